"""The parsers' and the secret screen's fast paths give exactly what the general paths give.

Each fast path handles only what it can prove it reads alike and hands everything else on; these
tests check both halves: random texts built from awkward fragments read alike either way, and
each awkward case is shown to leave the fast path.
"""

from __future__ import annotations

import marshal
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core.model import frontmatter as fmmod
from memtui.core.model import index as indexmod
from memtui.core.model.frontmatter import parse_frontmatter
from memtui.core.model.index import parse_index
from memtui.core.model.snapshot import BudgetConfig, Frontmatter, MemoryFile
from memtui.core.rules.budget import measure
from memtui.core.rules.validate import (
    _SCREENS,
    _SECRET,
    _SECRET_NAMES,
    _secret_matches,
    screen_secrets,
    secret_findings,
)
from memtui.core.stores.statcache import frontmatter_of, frontmatter_plain

# ---------------------------------------------------------------- frontmatter

FM_LINES = [
    "name: Alpha", "description: what it holds", "type: project", "type: Feedback", "status: archived",
    "pinned: true", "updated: 2026-01-02", "supersedes: [a.md, 'b.md']", "superseded_by: [[c]]",
    "relates_to: d.md, e.md", 'description: "quoted: value"', "name: 'single'", "name:", "name: ",
    "name:value", "  nested: under metadata", "\tname: tab", "metadata:", "metadata: flat", "  - item",
    "- item", "tags:", "description: |", "description: >-", "  block scalar line", "", "   ",
    "# a comment", "just words", "name: trailing  ", "name: x\r", "key with space: v", "name: a: b",
    "name: dup", "Name: Case", "x-y_z: 1", "_k: v", "9k: v", "ключ: значение", "name: ✓ ünïcode",
    "name: ends with quote'", "description: \x0bvertical", "name: a\x1cb",
]


@st.composite
def frontmatter_texts(draw: st.DrawFn) -> str:
    opener = draw(st.sampled_from(["---", "---", "---", "--- ", "---\r", "----", "\ufeff---", ""]))
    lines = draw(st.lists(st.sampled_from(FM_LINES), max_size=8))
    closer = draw(st.sampled_from(["---", "---", "--- ", "---\t", "---\r", "...", "----", None]))
    newline = draw(st.sampled_from(["\n", "\n", "\r\n"]))
    body = draw(st.sampled_from(["", "body\n", "\nbody text\n---\nmore\n", "no newline"]))
    parts = [opener, *lines] + ([closer] if closer is not None else [])
    return newline.join(parts) + (newline if draw(st.booleans()) else "") + body


def same_frontmatter(text: str) -> None:
    fast, general = parse_frontmatter(text), fmmod._parse_general(text)
    assert fast == general
    assert list(fast.fields.items()) == list(general.fields.items())  # same key order
    assert [type(line) for line in fast.lines] == [type(line) for line in general.lines]
    assert general == fast and not (fast != general) and type(general) is Frontmatter
    assert fast.lines == general.lines  # a plain block's lines, made from its fields
    kept = frontmatter_of(marshal.loads(marshal.dumps(frontmatter_plain(fast))))  # the stat cache's
    assert kept == general and type(kept) is type(fast)
    assert list(kept.fields.items()) == list(general.fields.items())
    assert [type(line) for line in kept.lines] == [type(line) for line in general.lines]
    assert MemoryFile("a.md", 1, 0.0, text, fast) == MemoryFile("a.md", 1, 0.0, text, general)


@settings(max_examples=400, deadline=None)
@given(frontmatter_texts())
def test_the_fast_frontmatter_path_reads_any_text_as_the_general_parser(text: str) -> None:
    same_frontmatter(text)


def test_the_common_block_takes_the_fast_path() -> None:
    text = "---\nname: Alpha\ndescription: a b\ntype: project\nsupersedes: a.md, b.md\n---\n\nbody\n"
    assert fmmod._FAST_BLOCK.match(text) is not None
    assert type(parse_frontmatter(text)) is fmmod.PlainFrontmatter
    same_frontmatter(text)
    fm = parse_frontmatter(text)
    assert fm.names("supersedes") == ("a.md", "b.md") and fm.body_offset == text.index("---\n\n") + 4


@pytest.mark.parametrize("text", [
    "\ufeff---\nname: a\n---\n",  # BOM
    "---\r\nname: a\r\n---\r\n",  # CRLF
    "---\nname: \"a\"\n---\n",  # quoted value
    "---\nname: 'a'\n---\n",
    "---\ndescription: |\n  block\n---\n",  # YAML block scalar
    "---\nname: a\n\tdescription: tab\n---\n",  # tab indent
    "---\nmetadata:\n  name: a\n---\n",  # nested dialect
    "---\nsupersedes:\n  - a.md\n---\n",  # list items
    "---\nname: a\nname: b\n---\n",  # a repeated key (the first one counts)
    "---\nname:a\n---\n",  # does not split
    "---\nname: a  \n---\n",  # trailing space
    "---\nname: a\n\n---\n",  # blank line
    "---\nname: a\n",  # not closed
    "--- \nname: a\n---\n",  # opener with a space
])
def test_awkward_blocks_leave_the_fast_path_and_read_as_before(text: str) -> None:
    assert type(parse_frontmatter(text)) is Frontmatter  # the general parser's
    same_frontmatter(text)


def test_a_repeated_key_keeps_the_first_value() -> None:
    fm = parse_frontmatter("---\nname: first\nname: second\n---\n")
    assert fm.get("name") == "first" and [ln.value for ln in fm.lines] == ["first", "second"]


# ---------------------------------------------------------------- index

INDEX_LINES = [
    "- [Alpha](alpha.md) — the first", "- [Alpha](alpha.md)", "- [Alpha](alpha.md) - dash hook",
    "- [Alpha](alpha.md): colon", "- [a.md](alpha.md) — path-like title", "- [`b.md`](alpha.md) x",
    "- [Alpha](alpha.md) see beta.md", "- [Alpha](alpha.md) see BETA.MD", "- [Alpha](alpha.md) [[beta]]",
    "- [Alpha](alpha.md) and [Beta](beta.md)", "- [Alpha](alpha.md) `code`", "- [Alpha](ALPHA.MD) x",
    "- [Alpha](sub/alpha.md) x", "- [Alpha](../alpha.md) x", "- [Alpha](./alpha.md) x",
    "- [Alpha](alpha%20b.md) x", "- [Alpha](alpha.md#part) x", "- [Alpha](MEMORY.md) x",
    "- [Alpha](memory-archive.md) x", "- [Alpha](<alpha.md>) x", "- [Alpha](alpha.md \"t\") x",
    "- [a [b] c](alpha.md) x", "- ![img](alpha.md) x", "* [Alpha](alpha.md) x", "+ [Alpha](alpha.md) x",
    "1. [Alpha](alpha.md) x", "  - [Alpha](alpha.md) x", "\t- [Alpha](alpha.md) x", "-  [Alpha](alpha.md)",
    "- [Alpha](alpha.md) <!-- note", "- [Alpha](alpha.md) x\r", "- [Alpha](alpha.md)  ", "- [Alpha](ǎ.md) x",
    "- **beta.md** — bold", "- `beta.md` — code", "- [[beta]] wiki", "- region `al*.md` → hook",
    "## PATH_SCOPE: api", "Scope: `src/api`", "- **Memory base:** `sub/`", "# Memory", "## Recent",
    "<!-- open", "closed -->", "<!-- one line -->", "```", "~~~", "", "text naming alpha.md",
    "- [t](http://x.com/alpha.md) x", "- [Alpha](alpha.md)(x) y", "- [Alpha]( alpha.md ) x",
    "- plain words of a note", "- words naming alpha.md", "- words naming ALPHA.MD", "- words <b>",
    "- words `code`", "- words [x] y", "- ", "- region words → more", "-  two spaces", "- words -->",
    "- words <!-- c", "- **bold words**", "- Scope: words", "-\tword", "- words\r",
    "- [Alpha](archive/alpha.md) — archived", "- [Alpha](a/b.c/alpha.md) x", "- [Alpha](sub/MEMORY.md) x",
    "- [Alpha](sub/memory-archive.md) x", "- [Alpha](sub//alpha.md) x", "- [Alpha](sub/./alpha.md) x",
    "- [Alpha](sub/../alpha.md) x", "- [Alpha](x.md/alpha.md) x", "- [Alpha](sub/alpha.md) see sub/b.md",
]


@st.composite
def index_texts(draw: st.DrawFn) -> bytes:
    lines = draw(st.lists(st.sampled_from(INDEX_LINES), max_size=14))
    newline = draw(st.sampled_from(["\n", "\r\n"]))
    text = newline.join(lines) + (newline if draw(st.booleans()) else "")
    return (b"\xef\xbb\xbf" if draw(st.booleans()) else b"") + text.encode("utf-8")


NEVER = re.compile(r"(?!)")


def same_index(data: bytes) -> None:
    exists = {"alpha.md", "sub/alpha.md", "beta.md"}.__contains__
    fast = parse_index(data, "MEMORY.md", exists)
    with pytest.MonkeyPatch.context() as m:
        m.setattr(indexmod, "_FAST_ENTRY", NEVER)
        m.setattr(indexmod, "_plain_item", lambda raw: False)
        general = parse_index(data, "MEMORY.md", exists)
    assert fast == general
    assert [vars(line) for line in fast.lines] == [vars(line) for line in general.lines]
    for line in fast.lines:  # every field set, as the dataclass's own __init__ sets them
        assert vars(indexmod.IndexLine(**vars(line))) == vars(line)
    assert fast.render() == data


@settings(max_examples=300, deadline=None)
@given(data=index_texts())
def test_the_fast_entry_path_reads_any_index_as_the_general_parser(data: bytes) -> None:
    same_index(data)


def test_an_entry_in_a_folder_takes_the_fast_path() -> None:
    assert indexmod._FAST_ENTRY.fullmatch("- [Alpha](archive/alpha.md) — old") is not None
    assert indexmod._FAST_ENTRY.fullmatch("- [Alpha](archive/../alpha.md) — old") is None
    same_index(b"- [Alpha](archive/alpha.md) \xe2\x80\x94 old\n- [B](a/b/beta.md)\n")


def test_a_plain_entry_takes_the_fast_path() -> None:
    assert indexmod._FAST_ENTRY.fullmatch("- [Alpha](alpha.md) — the first") is not None
    [line] = parse_index(b"- [Alpha](alpha.md) \xe2\x80\x94 the first\n").lines
    assert (line.title, line.hook, line.resolved, line.refs) == (
        "Alpha", "the first", "alpha.md", (indexmod.Ref("link", "alpha.md", "alpha.md", False),))


@pytest.mark.parametrize("text", [
    "- [Alpha](alpha.md) see beta.md",  # a mention besides the link
    "- [Alpha](alpha.md) [[beta]]",  # a wikilink
    "- [Alpha](MEMORY.md) x",  # navigation, not an entry
    "- [Alpha](archive/MEMORY.md) x",  # navigation in a folder
    "## PATH_SCOPE: api\nMemory base: `sub/`\n- [Alpha](alpha.md) x",  # resolved under a base
    "<!-- open\n- [Alpha](alpha.md) x\n-->",  # inside a comment
    "```\n- [Alpha](alpha.md) x\n```",  # inside a fence
    "- [Alpha](alpha.md) x\r\n- [Beta](beta.md)\r\n",  # CRLF (the ending is split off first)
    "- [Alpha](alpha%5F.md) x",  # an escape in the target
])
def test_odd_index_lines_read_as_before(text: str) -> None:
    same_index(text.encode("utf-8"))


def test_the_budget_is_measured_once_per_index_and_config() -> None:
    index = parse_index(b"# Memory\n- [A](a.md) x\n")
    assert measure(index, BudgetConfig()) is measure(index, BudgetConfig())
    raw = measure(index, BudgetConfig(loader="raw"))
    assert raw.loader == "raw" and measure(index, BudgetConfig()).loader == "claude-code"


# ---------------------------------------------------------------- the secret screen

SECRET_SAMPLES = [
    "ghp_" + "a1B2" * 6, "gho_" + "x" * 22, "github_pat_" + "Z9_x" * 6, "sk-ant-" + "k-_1" * 6,
    "sk-" + "Ab12" * 6, "sk-proj-" + "Ab12" * 6, "AKIA" + "ABCD2345EFGH6789", "ASIA" + "ABCD2345EFGH6789",
    "-----BEGIN RSA PRIVATE KEY-----", "client_secret: abcdef123", "xoxb-1234567890-abc",
    "glpat-" + "x" * 20, "AIza" + "B" * 35,
    "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYz1y2x3w4v5",
    "AWS_SECRET_ACCESS_KEY: wJalrXUtnFEMI/K7MDENG/bPxRfiCYz1y2x3w4v5", "db password: Tr0ub4dor&3",
    "PASSWORD=hunter22!", "Passwort: geheim12", "pwd=abc123", "PWD: abc123!", "passwd: s3cret!",
    "token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N",
    "sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc", "rk_live_" + "4eC39HqLyjWDarjtT1zd",
    "postgres://app:Pg5ecret@db.internal/prod", "MONGODB+SRV://a:b4c@c", "redis://:pw9@h",
    "aws_secret_access_\u212aey = wJalrXUtnFEMI/K7MDENG/bPxRfiCYz1y2x3w4v5",  # Kelvin sign lowers to k
    "pWd=abc123!", "PaSsWoRd: hunter22!", "pAsSwD=abc123!", "Postgres://u:p4ss@h",
    "Aws_Secret_Access_Key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYz1y2x3w4v5",
    "PA\u017fSWORD=hunter22!", "pass\u0130word=x1", "\u0130 password=hunter22!",  # long s, dotted I
]
NEGATIVES = [
    "we use the sk-assessment-framework", "password: <your password>", "SA_PASSWORD=YourPassword123!",
    "password=${DB_PASSWORD}", "password: stored in the vault", "password = os.environ['PW']",
    "postgres://user:<password>@host/db", "password: changeme", "Password: ********",
    "passwordless login; bypass=abc123!x", "https://user:token@github.com", "postgres://localhost/db",
    "ghp_short", "ASIAN food", "AIza" + "B" * 10, "eyJabc.eyJabc.abc", "pk_live_" + "x" * 20,
]
FILLER = ["", "plain words. ", "\n", "—ünïcode ✓ ", "x\0y ", "note_1.md ", "a-b ", "Key: ", "=", "'"]


@pytest.mark.parametrize("text", SECRET_SAMPLES + NEGATIVES)
def test_the_screen_flags_every_text_with_a_finding(text: str) -> None:
    for body in (text, f"intro\n{text}\n", f"ünïcode — {text} ✓"):
        found = secret_findings("a.md", body, screened=True)
        assert secret_findings("a.md", body) == found
        if found:
            assert screen_secrets(["plain", body, "plain"]) == {1}


def test_every_kind_is_found_and_placeholders_are_not() -> None:
    kinds = {f.subject.split(":")[0] for text in SECRET_SAMPLES for f in secret_findings("a.md", text)}
    assert kinds == set(_SECRET_NAMES)
    assert [text for text in NEGATIVES if secret_findings("a.md", text)] == []


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.sampled_from(SECRET_SAMPLES + NEGATIVES + FILLER), max_size=6).map("".join),
                min_size=1, max_size=6))
def test_the_screen_is_a_superset_of_the_findings(texts: list[str]) -> None:
    flagged = screen_secrets(texts, chunk=4)
    for i, text in enumerate(texts):
        if secret_findings("a.md", text, screened=True):
            assert i in flagged
    assert all(_SECRET.search(t) is None for i, t in enumerate(texts) if i not in flagged)


OVERLAPS = ["client_secret=sk-proj-" + "A1" * 12, "ghp_AKIA" + "B" * 20, "sk-----BEGIN RSA PRIVATE KEY-----",
            "xoxb-glpat-" + "a" * 20, "_" * 5 + "ghp_" + "x" * 25, "AKIAKIA" + "C" * 16,
            "github_pat_ghp_" + "d" * 25]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(SECRET_SAMPLES + NEGATIVES + FILLER + OVERLAPS), max_size=8).map("".join))
def test_secret_matches_are_the_alternations_matches(text: str) -> None:
    assert [(m.span(), m.lastgroup) for m in _secret_matches(text)] == [
        (m.span(), m.lastgroup) for m in _SECRET.finditer(text)]


def strip_hook_by_steps(text: str) -> str:
    """The hook as the index parser first took it off, step by step (the oracle)."""
    text = text.strip().lstrip("*_").strip()
    for sep in ("—", "–", "--", "-", ":"):
        if text.startswith(sep):
            text = text[len(sep):]
            break
    return text.strip().strip("*_").strip()


@settings(max_examples=500, deadline=None)
@given(st.lists(st.sampled_from([" ", "\t", "\u00a0", "\u2003", "*", "_", "-", "—", "–", ":", "x y", "\r",
                                 "\n", "\x1c", "**b**"]), max_size=10).map("".join))
def test_the_hook_regex_takes_off_what_the_steps_took_off(text: str) -> None:
    assert indexmod._strip_hook(text) == strip_hook_by_steps(text)


def test_every_screen_starts_with_the_literal_character_it_is_skipped_without() -> None:
    for screen in _SCREENS:
        first = screen.pattern[0]
        assert first not in "\\[](){}.^$*+?|" and first.lower() == first.upper() or not screen.flags & re.I
        for text in SECRET_SAMPLES:
            found = screen.search(text)
            assert found is None or found.group().startswith(first)
    assert screen_secrets(["no first characters here", "aws_secret_access_key"]) == {1}
