"""``memtui loaded`` reads the lines past the cut cheaply: what it finds equals the full parse.

An index read with :func:`memtui.core.model.index_read.read_index` parses the lines that load as
:func:`memtui.core.model.index.parse_index` does, and finds the entries and region pointers past
the cut by one search of the text; its budget, loaded text and past entries must equal those of
the index parsed in full, for random indexes (every cut) and every corpus root.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core.model.index import _FAST_ENTRY, parse_index
from memtui.core.model.index_read import (
    _FAST_ASCII_TARGETS,
    _FAST_ENTRIES,
    _FAST_TARGETS,
    PastEntries,
    past_entry,
    read_index,
)
from memtui.core.model.snapshot import AGENT_LOADER, CLAUDE_CODE_LOADER, RAW_LOADER, BudgetConfig, LineKind
from memtui.core.rules.budget import measure
from memtui.core.rules.budget_read import loaded_of
from tests.support.roots import CORPORA, corpus_roots

#: lines that decide how the lines after them parse (comments, fences, scopes), entries of
#: every form, and the common entry's near misses (an index file, a second ``.md``, a path)
PIECES = ("- [a](a.md) x", "- [b](sub/b.md) — y", "<!-- c", "-->", "<!-- one -->", "```", "~~~",
          "## PATH_SCOPE: s", "Memory base: `sub`", "Scope: `src`", "## Other", "# Top", "",
          "- region `x_*.md` → r", "- [[wiki]]", "- **bold.md** b", "- `code.md` c", "- [m](MEMORY.md)",
          "- [d](a.md) see b.md", "- plain", "text a.md", "- [ü](ü.md)", "  - [n](n.md)", "a\rb",
          "- [e](../e.md)", "- [l](a.md) [b](b.md)", "---", "name: x", "- [a.md](a.md)",
          "- [M](sub/MEMORY.md)", "- [x](a.md) b.MD", "- [m](memory-archive.MD)", "- [s](s/./a.md)",
          "- [q](a.md#x)", "- [c](a.md) `t`", "- [😀](a.md) 😀")
COMMON = "- [a](a.md) — a fact"


def _exists(rel: str) -> bool:
    return rel.startswith("sub/")


@st.composite
def indexes(draw: st.DrawFn) -> bytes:
    """Index bytes: mostly common entries (a rotted index), some lines of every other kind,
    LF or CRLF endings, perhaps a BOM and no final line ending."""
    lines = draw(st.lists(st.one_of(st.just(COMMON), st.sampled_from(PIECES)), max_size=40))
    ending = draw(st.sampled_from(["\n", "\r\n"]))
    text = ending.join(lines) + draw(st.sampled_from(["", ending]))
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + text.encode("utf-8", "surrogatepass")


@settings(max_examples=300, deadline=None)
@given(data=indexes())
def test_every_cut_reads_as_the_full_parse(data: bytes) -> None:
    full = parse_index(data, exists=_exists)
    assert read_index(data, exists=_exists).text == full.raw_text()
    for start in range(1, len(full.lines) + 2):
        read = read_index(data, exists=_exists)  # a fresh one: no head parsed before
        want = [past_entry(line) for line in full.lines[start - 1:]
                if line.kind in (LineKind.ENTRY, LineKind.REGION)]
        assert read.past_entries(start) == want
        assert read.head(start - 1).lines == full.lines[:start - 1]


CONFIGS = (BudgetConfig(), BudgetConfig(loader=RAW_LOADER), BudgetConfig(loader=AGENT_LOADER),
           BudgetConfig(3, 25_000, CLAUDE_CODE_LOADER), BudgetConfig(200, 60, CLAUDE_CODE_LOADER),
           BudgetConfig(200, 5, CLAUDE_CODE_LOADER), BudgetConfig(4, 80, RAW_LOADER))


@settings(max_examples=200, deadline=None)
@given(data=indexes(), config=st.sampled_from(CONFIGS))
def test_what_loads_and_what_falls_past_are_the_full_parse(data: bytes, config: BudgetConfig) -> None:
    full = parse_index(data, exists=_exists)
    assert loaded_of(read_index(data, exists=_exists), config) == loaded_of(full, config)
    budget = measure(full, config)
    counted = set(budget.numbering)  # the stripped lines of one run of counted lines, taken apart
    if config.loader != RAW_LOADER:
        assert budget.stripped == tuple(n for n in range(1, len(full.lines) + 1) if n not in counted)


@given(line=st.one_of(st.sampled_from(PIECES), st.text(alphabet="- [](a.md/_`\\M😀é\r\u0660", max_size=30)))
def test_the_search_finds_the_lines_the_parser_takes_fast(line: str) -> None:
    one = _FAST_ENTRY.fullmatch(line)
    text = f"x\n{line}\ny"
    assert [m.groups() for m in _FAST_ENTRIES.finditer(text)] == ([one.groups()] if one else [])
    assert _FAST_TARGETS.findall(text) == ([one.group(2)] if one else [])
    assert _FAST_ASCII_TARGETS.findall(text) in ([], _FAST_TARGETS.findall(text))


def test_a_rotted_index_is_found_by_one_search() -> None:
    """Past the cut of 2,000 common entries, one near miss among them is still parsed."""
    lines = ["# Memory", *(f"- [n {i}](n_{i}.md) — fact" for i in range(2000))]
    lines[1500] = "- [n](n_1500.md) and n_1501.md"  # a second .md: not the common entry
    lines[1700] = "<!-- hidden"
    lines[1701] = "- [h](h.md) -->"
    data = ("\n".join(lines) + "\n").encode()
    full = parse_index(data)
    for config in CONFIGS:
        read = loaded_of(read_index(data), config)
        assert read == loaded_of(full, config)
        assert isinstance(read.past, PastEntries) and read.past_lines > 1800
    past = read_index(data).past_entries(201)
    assert [e.number for e in past if e.number in (1501, 1701, 1702)] == [1501]


@pytest.mark.parametrize("name", [p.relative_to(CORPORA).as_posix() for p in corpus_roots()])
@pytest.mark.parametrize("config", CONFIGS[:4], ids=["claude", "raw", "agent", "3lines"])
def test_corpus_indexes_read_as_the_full_parse(name: str, config: BudgetConfig) -> None:
    root = CORPORA / name
    path = root / "MEMORY.md"
    if not path.is_file():
        pytest.skip("no MEMORY.md")
    data = path.read_bytes()

    def exists(rel: str) -> bool:
        return Path(root, rel).is_file()

    assert loaded_of(read_index(data, exists=exists), config) == loaded_of(parse_index(data, exists=exists),
                                                                            config)


@given(text=st.text(alphabet="a\u00e9\U0001f600\udc80\ud800 \n", max_size=16), units=st.integers(0, 18))
def test_javascript_lengths_count_code_units(text: str, units: int) -> None:
    """A JavaScript length is two for a character past U+FFFF, one for any other (a lone
    surrogate too); the prefix is the longest that fits."""
    from memtui.core.rules.budget import _utf16_prefix, utf16_len

    sizes = [2 if ord(ch) > 0xFFFF else 1 for ch in text]
    assert utf16_len(text) == sum(sizes)
    fits = max(k for k in range(len(text) + 1) if sum(sizes[:k]) <= units)
    assert _utf16_prefix(text, units) == text[:fits]
