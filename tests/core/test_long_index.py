"""The long index's linear algorithms give exactly what the plain ones they replace give.

Each replaced algorithm is kept here in its plain form (the reference) and compared with the
project's on random inputs drawn from a small alphabet, so that the awkward cases (one text
inside another, equal texts, texts spanning lines) come up often.
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core.model.frontmatter import parse_frontmatter
from memtui.core.model.index import parse_index
from memtui.core.model.index_edit import dominant_ending
from memtui.core.model.snapshot import Index, LineKind, MemoryFile, Snapshot, encode_text
from memtui.core.rules import budget, erasure, neutralize, validate
from memtui.core.rules.erasure import BLOCK_HEADINGS, ErasedLine
from memtui.core.tidy import prose as prose_index
from memtui.core.tidy.lines import LineEdit
from memtui.core.tidy.repair import distinct_hooks

# ---------------------------------------------------------------- the merged entry's hooks


def plain_distinct_hooks(hooks: list[str]) -> list[str]:
    """The reference: each hook against every kept one."""
    kept: list[str] = []
    for hook in hooks:
        if hook and not any(hook in h for h in kept):
            kept = [h for h in kept if h not in hook] + [hook]
    return kept


HOOK = st.text(alphabet="ab; .\n", max_size=7)


@settings(max_examples=400, deadline=None)
@given(st.lists(HOOK, max_size=40))
def test_distinct_hooks_equal_the_plain_walk(hooks: list[str]) -> None:
    assert distinct_hooks(hooks) == plain_distinct_hooks(hooks)


@settings(max_examples=100, deadline=None)
@given(st.lists(st.text(alphabet="ab", min_size=1, max_size=2), min_size=10, max_size=60))
def test_distinct_hooks_by_substrings_equal_the_plain_walk(hooks: list[str]) -> None:
    """Short hooks after many kept ones: the kept hooks inside a new one are found by its substrings."""
    many = [f"x{i}y" for i in range(12)]
    assert distinct_hooks(many + hooks) == plain_distinct_hooks(many + hooks)


def test_a_hook_inside_a_dropped_one_is_still_dropped() -> None:
    """'ab' was dropped for 'abc'; 'b' lies in both, so it stays out."""
    assert distinct_hooks(["ab", "abc", "b", "c d"]) == ["abc", "c d"]


# ---------------------------------------------------------------- the index's text rules

#: fragments for index lines: plain words, every kind of character the text rules look for,
#: and the markup Claude Code reserves
FRAGMENTS = ["- a fact", "word", " ", "\t", "\r", "<", "<b>", "<system-reminder>", "</function_calls>",
             "\x00", "\x07", "\x0b", "\x1f", "\x7f", "\x85", "\x9f", "\xa0", "é", "—", "\u200b", "\u200d",
             "\ufe0f", "\ufe00", "\u034f", "\ue000", "\U000e0041", "\u0378", "\udc80", "\u2028", "[x](a.md)"]
LINE = st.lists(st.sampled_from(FRAGMENTS), max_size=6).map("".join)


def plain_changed_lines(index: Index, stripped: set[int]) -> list[int]:
    """The reference: the counted lines Claude Code changes, character by character — one it
    strips (its strip set, asked one code point at a time), or a line holding an escaped tag's
    opener (the tags found on the counted lines' stripped text, joined as they load)."""
    table = neutralize.tables().strip
    lines = [line for line in index.lines if line.number not in stripped]
    kept = ["".join(ch for ch in line.raw.replace("\r", "\n").replace("\u2028", "\n")
                    .replace("\u2029", "\n") if ch not in table) for line in lines]
    changed = {k for k, line in enumerate(lines)
               if any(ch in table for ch in line.raw.replace("\r", "\n"))}
    at, starts = 0, []
    for piece in kept:
        starts.append(at)
        at += len(piece) + 1
    for found in neutralize.escapes("\n".join(kept)):
        changed.add(max(k for k, start in enumerate(starts) if start <= found.at))
    return sorted(lines[k].number for k in changed)


def plain_not_text(index: Index) -> bool:
    total = sum(len(line.raw) for line in index.lines)
    noise = sum(len(validate._NOISE.findall(line.raw)) for line in index.lines)
    return not (noise < 8 or noise * 20 < total)


ENDING = st.sampled_from(["\n", "\r\n", "\r"])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(LINE, ENDING), max_size=25), st.booleans(), st.sets(st.integers(1, 25)))
def test_the_text_rules_equal_the_line_by_line_walk(
    lines: list[tuple[str, str]], final_newline: bool, stripped: set[int]
) -> None:
    text = "".join(raw + ending for raw, ending in lines)
    if lines and not final_newline:
        text = text[: -len(lines[-1][1])]
    index = parse_index(encode_text(text))
    assert (validate.not_text(index) is not None) == plain_not_text(index)
    if validate.not_text(index) is None:
        found = validate.neutralized_findings(index, stripped)
        assert [f.line for f in found] == plain_changed_lines(index, stripped)


# ---------------------------------------------------------------- the budget's line numbers

RAW = st.sampled_from(["---", "name: x", "", " ", "- a fact", "<!-- note -->", "<!--", "-->", "text",
                       "```", "  - nested", "\u2028", "\ufeff", "# Heading", "a <!-- b --> c"])


@settings(max_examples=300, deadline=None)
@given(st.lists(RAW, max_size=30))
def test_one_kept_span_numbers_its_lines_as_the_general_walk(raws: list[str]) -> None:
    """A kept text of one span numbers its lines from the one it starts in; the general walk
    (for any number of spans) gives the same numbers."""
    body, starts, numbers = budget.counted_text(raws)
    text, spans, _ = budget.kept_spans(raws)
    if len(spans) == 1:
        a = spans[0][0]
        piece = text[a:spans[0][1]]
        lead = len(piece) - len(piece.lstrip(budget.JS_SPACE))
        assert numbers == budget._numbers(raws, body, starts, [(0, a)], lead)


# ---------------------------------------------------------------- the gate's erasure check


def plain_erased_lines(before: Snapshot, after: Snapshot, touched: list[str]) -> list[ErasedLine]:
    """The reference: every line of the indexes through Python, one after another."""
    def lines_of(index: Index) -> list[str]:
        return [line.raw.strip() for line in index.lines] if index.exists else []

    kept = set(lines_of(after.index)) | set(lines_of(after.archive_index))
    missing = []
    for index in (before.index, before.archive_index):
        if not index.exists:
            continue
        for line in index.lines:
            if line.kind is LineKind.BLANK:
                continue
            text = line.raw.strip()
            if text and text not in kept and " ".join(text.lower().split()) not in BLOCK_HEADINGS:
                missing.append((index, line))
    if not missing:
        return []
    texts = [after.files[path].text for path in dict.fromkeys(touched) if path in after.files]
    texts += ["\n".join(lines_of(after.index)), "\n".join(lines_of(after.archive_index))]
    whole = {part.strip() for text in texts for part in text.splitlines()}
    out = []
    for index, line in missing:
        needles = erasure._needles(line)
        if needles[0] in whole or any(needle in text for needle in needles for text in texts):
            continue
        out.append(ErasedLine(index.path, line.number, line.raw.strip()))
    return out


INDEX_LINE = st.sampled_from([
    "# Memory", "## Recent", "##  recent ", "## Pinned", "## Notes", "", "  ", "- [A](a.md) — alpha hook",
    "- [A](a.md) — alpha", "- [B](b.md)", "- [B](b.md) — beta", "- a fact", " - a fact ", "alpha hook",
    "<!-- c -->", "text\u2028more", "\u00a0", "- [C](c.md) — gamma\x0bdelta", "gamma"])


def _index(lines: list[str], path: str) -> Index:
    return parse_index(encode_text("".join(line + "\n" for line in lines)), path) if lines \
        else Index(path, False)


@settings(max_examples=300, deadline=None)
@given(st.lists(INDEX_LINE, max_size=12), st.lists(INDEX_LINE, max_size=4), st.lists(INDEX_LINE, max_size=12),
       st.lists(INDEX_LINE, max_size=4), st.lists(INDEX_LINE, max_size=5), st.booleans())
def test_erased_lines_equal_the_line_by_line_walk(
    before: list[str], before_archive: list[str], after: list[str], after_archive: list[str],
    history: list[str], touched: bool,
) -> None:
    text = "\n".join(history)
    files = {"MEMORY-history.md": MemoryFile("MEMORY-history.md", len(text), 0.0, text, parse_frontmatter(text))}
    one = Snapshot(Path("."), _index(before, "MEMORY.md"), _index(before_archive, "MEMORY-archive.md"), files)
    two = replace(one, index=_index(after, "MEMORY.md"), archive_index=_index(after_archive, "MEMORY-archive.md"))
    paths = ["MEMORY.md", "MEMORY-history.md"] if touched else ["MEMORY.md"]
    assert erasure.erased_lines(one, two, paths) == plain_erased_lines(one, two, paths)
    # the way back, on the same indexes: what the first call kept of them is reused
    assert erasure.erased_lines(two, one, paths) == plain_erased_lines(two, one, paths)


# ---------------------------------------------------------------- a batch of line edits


def plain_render(edit: LineEdit) -> bytes:
    """The reference: every line through Python, one after another."""
    nl = dominant_ending(edit.index)
    out: list[tuple[str, str]] = [(raw, nl) for raw in edit.inserted.get(-1, [])]
    for pos, line in enumerate(edit.index.lines):
        raws = edit.replaced.get(pos)
        if raws is None:
            out.append((line.raw, line.ending))
        elif raws:
            out += [(raw, nl) for raw in raws[:-1]] + [(raws[-1], line.ending or nl)]
        out += [(raw, nl) for raw in edit.inserted.get(pos, [])]
    last = edit.index.lines[-1].ending if edit.index.lines else nl
    text = "".join(raw + (ending or nl) for raw, ending in out[:-1])
    if out:
        text += out[-1][0] + (out[-1][1] if out[-1][1] else "")
        if not last and out[-1][1]:
            text = text[: -len(out[-1][1])]
    return (b"\xef\xbb\xbf" if edit.index.bom else b"") + encode_text(text)


EDIT = st.tuples(st.sampled_from(["replace", "remove", "insert"]), st.integers(-1, 9),
                 st.lists(st.sampled_from(["- new", "", "## H"]), max_size=3))


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["- a", "", "# T", "b"]), ENDING), max_size=8),
       st.booleans(), st.booleans(), st.lists(EDIT, max_size=8))
def test_line_edits_render_as_the_line_by_line_walk(
    lines: list[tuple[str, str]], final_newline: bool, bom: bool, edits: list[tuple[str, int, list[str]]]
) -> None:
    text = "".join(raw + ending for raw, ending in lines)
    if lines and not final_newline:
        text = text[: -len(lines[-1][1])]
    edit = LineEdit(parse_index((b"\xef\xbb\xbf" if bom else b"") + encode_text(text)))
    for kind, pos, raws in edits:
        if kind == "insert":
            edit.insert_after(pos, *raws)
        elif pos >= 0 and kind == "remove":
            edit.remove(pos)
        elif pos >= 0 and raws:
            edit.replace(pos, *raws)
    assert edit.render() == plain_render(edit)


# ---------------------------------------------------------------- free names for moved text


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from(["notes", "notes_2", "a", "A", "a_3"]), max_size=30),
       st.sets(st.sampled_from(["notes.md", "notes_2.md", "notes_3.md", "a.md", "a_2.md", "A_4.md", "a_3_2.md"])))
def test_free_names_searched_from_where_the_slug_stopped_equal_a_full_search(
    slugs: list[str], existing: set[str]
) -> None:
    files = {name: MemoryFile(name, 0, 0.0, "", parse_frontmatter("")) for name in existing}
    snapshot = Snapshot(Path("."), Index("MEMORY.md", False), Index("MEMORY-archive.md", False), files)
    plain_taken = {name.lower() for name in existing}
    taken, tried = set(plain_taken), {}
    for slug in slugs:
        assert prose_index._free(snapshot, taken, slug, tried) == prose_index._free(snapshot, plain_taken, slug)
