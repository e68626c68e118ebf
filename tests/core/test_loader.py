"""The loader profile (DESIGN §1.7): claude-code strips the index's frontmatter and block-level HTML
comments and trims before the 200-line / 25,000-character cut; raw measures the file as it is."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core.model.index import parse_index
from memtui.core.model.snapshot import BudgetConfig
from memtui.core.read.store import load_root
from memtui.core.rules.budget import configured_loader, loaded_text, measure, stripped_lines
from memtui.core.rules.validate import validate
from tests.support.roots import MakeRoot, topic

RAW = BudgetConfig(loader="raw")
CLAUDE = BudgetConfig()

FRONTMATTER = "---\nname: index\ndescription: the working set\n---\n"
COMMENTS = "<!--\n" + "".join(f"2026-0{k % 9 + 1}-01 history line {k}\n" for k in range(58)) + "-->\n"


def busy_root(make_root: MakeRoot, entries: int = 150) -> Path:
    """An index with frontmatter and 60 lines of comments around ``entries`` entry lines."""
    files = {f"f{k:03d}.md": topic(f"fact {k}") for k in range(entries)}
    lines = "".join(f"- [fact {k}](f{k:03d}.md) — hook {k}\n" for k in range(entries))
    files["MEMORY.md"] = FRONTMATTER + "# Memory\n" + COMMENTS + lines
    return make_root(files)


def test_frontmatter_and_comments_count_under_raw_only(make_root: MakeRoot) -> None:
    root = busy_root(make_root)
    raw = load_root(root, RAW)
    claude = load_root(root, CLAUDE)
    raw_budget = measure(raw.index, raw.config)
    claude_budget = measure(claude.index, claude.config)
    assert raw_budget.lines == 4 + 1 + 60 + 150 and raw_budget.over_lines
    assert claude_budget.lines == 151 and not claude_budget.over_lines and claude_budget.cut_line is None
    assert claude_budget.stripped == tuple(range(1, 5)) + tuple(range(6, 66))
    assert claude_budget.file_lines == raw_budget.lines and claude_budget.file_bytes == raw_budget.bytes
    assert "budget-lines" in {f.rule for f in validate(raw)}
    assert "budget-lines" not in {f.rule for f in validate(claude)}


def test_the_cut_counts_loaded_lines_and_keeps_file_line_numbers(make_root: MakeRoot) -> None:
    root = busy_root(make_root, entries=230)
    claude = load_root(root)
    budget = measure(claude.index, claude.config)
    # 1 heading + 199 entries load: the cut is the 200th entry, on file line 65 + 200
    assert budget.cut_line == 265 and budget.lines == 231
    text = loaded_text(claude).decode()
    assert not text.startswith("---") and "<!--" not in text and "history line" not in text
    assert text.startswith("# Memory\n") and text.count("\n") == 199  # 200 lines, joined
    raw = load_root(root, RAW)
    assert measure(raw.index, raw.config).cut_line == 201
    assert loaded_text(raw).decode().startswith(FRONTMATTER)


@pytest.mark.parametrize(
    ("text", "stripped"),
    [
        ("---\nname: x\n---\nbody\n", {0, 1, 2}),
        ("---\nname: x\nbody\n", set()),  # no closing line: no frontmatter
        ("a\n<!-- one -->\nb\n", {1}),
        ("a\n   <!-- indented\nstill\n--> tail\nb\n", {1, 2}),  # " tail" stays and counts
        ("a\n   <!-- indented\nstill\n-->\nb\n", {1, 2, 3}),
        ("a <!-- inline --> b\n", set()),  # not block-level: it loads
        ("    <!-- four spaces: code -->\n", set()),
        ("```\n<!-- in a fence -->\n```\n<!-- out -->\n", {3}),
        ("intro\n---\nname: x\n---\n", set()),  # frontmatter only on line 1
    ],
)
def test_what_claude_code_strips(text: str, stripped: set[int]) -> None:
    raws = [line.raw for line in parse_index(text.encode()).lines]
    assert stripped_lines(raws, "claude-code") == stripped
    assert stripped_lines(raws, "raw") == frozenset()


def test_history_message_says_whether_comments_load(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": "# Memory\n<!-- 2026-01-01: moved -->\nsee x <!-- inline --> y\n"})
    for config, block, inline in ((CLAUDE, "strips", "loaded every session"),
                                  (RAW, "loaded every session", "loaded every session")):
        found = [f for f in validate(load_root(root, config)) if f.rule == "history-in-index"]
        assert [f.line for f in found] == [2, 3]
        assert block in found[0].message and inline in found[1].message
        assert config.loader in found[0].message


def test_an_unknown_loader_is_refused() -> None:
    with pytest.raises(ValueError, match="loader"):
        BudgetConfig(loader="vim")


def test_configured_loader(tmp_path: Path) -> None:
    assert configured_loader({"HOME": str(tmp_path)}) == "claude-code"
    assert configured_loader({"HOME": str(tmp_path), "MEMTUI_LOADER": "raw"}) == "raw"
    config = tmp_path / "cfg" / "memtui" / "config.json"
    config.parent.mkdir(parents=True)
    config.write_text(json.dumps({"loader": "raw"}))
    assert configured_loader({"XDG_CONFIG_HOME": str(tmp_path / "cfg")}) == "raw"
    config.write_text(json.dumps({"loader": "emacs"}))
    with pytest.raises(ValueError, match="emacs"):
        configured_loader({"XDG_CONFIG_HOME": str(tmp_path / "cfg")})


def test_cli_loader_flag_env_and_config(make_root: MakeRoot, tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                        monkeypatch: pytest.MonkeyPatch) -> None:
    root = busy_root(make_root)
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "no-config"))
    monkeypatch.delenv("MEMTUI_LOADER", raising=False)
    assert main(["validate", str(root), "--quiet"]) == 0
    assert main(["validate", str(root), "--loader", "raw", "--quiet"]) == 1
    monkeypatch.setenv("MEMTUI_LOADER", "raw")
    assert main(["validate", str(root), "--quiet"]) == 1
    assert main(["validate", str(root), "--loader", "claude-code", "--quiet"]) == 0
    monkeypatch.setenv("MEMTUI_LOADER", "emacs")
    capsys.readouterr()
    assert main(["validate", str(root)]) == 2
    err = capsys.readouterr().err
    assert "emacs" in err and "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_cli_loaded_says_which_profile_and_shows_what_it_strips(
        make_root: MakeRoot, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMTUI_LOADER", raising=False)
    root = busy_root(make_root, entries=3)
    assert main(["loaded", str(root), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["loader"] == "claude-code" and data["budget"]["loader"] == "claude-code"
    assert [s["line"] for s in data["stripped"]][:5] == [1, 2, 3, 4, 6]
    assert "history line" not in data["loaded"] and data["loaded"].startswith("# Memory")
    assert main(["loaded", str(root)]) == 0
    out = capsys.readouterr().out
    assert "claude-code loader" in out and "stripped before counting" in out and "history line 3" in out
    assert main(["loaded", str(root), "--loader", "raw", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["loader"] == "raw" and data["stripped"] == [] and data["loaded"].startswith("---")


def test_every_reading_command_takes_the_flag(make_root: MakeRoot, capsys: pytest.CaptureFixture[str]) -> None:
    root = busy_root(make_root, entries=3)
    for argv in (["list", str(root)], ["stale", str(root)], ["scan", str(root)], ["loaded", str(root)]):
        assert main([*argv, "--loader", "raw", "--json"]) == 0, argv
    capsys.readouterr()


def test_the_gate_measures_with_the_same_profile(make_root: MakeRoot, capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("MEMTUI_LOADER", raising=False)
    root = busy_root(make_root)
    # over its line cap under raw: a new entry would make the overflow worse
    assert main(["remember", "A new fact", "--root", str(root), "--loader", "raw", "--dry-run"]) == 1
    assert "would grow" in capsys.readouterr().out
    assert main(["remember", "A new fact", "--root", str(root), "--dry-run"]) == 0


# ---------------------------------------------------------------- Claude Code's cut, row by row
# (CLAUDE-CODE.md "what loads"; each row measured on the real v2.1.240 and v2.1.332 builds)

ENTRIES = "".join(f"- [fact {k}](f{k}.md) — hook {k}\n" for k in range(300))


def lines_of(n: int, start: int = 0) -> str:
    return "".join(f"- [fact {k}](f{k}.md) — hook {k}\n" for k in range(start, start + n))


def claude_measure(text: str):
    index = parse_index(text.encode())
    return index, measure(index, CLAUDE)


def test_an_index_of_euro_signs_loads_whole() -> None:
    text = "".join("- [e](e.md) " + "€" * 330 + "\n" for _ in range(30))
    assert len(text.encode()) == 30_090
    _, budget = claude_measure(text)
    assert (budget.lines, budget.bytes, budget.cut_line) == (30, 30 * 343 - 1, None)
    assert budget.unit == "characters" and budget.warning() is None
    assert budget.file_bytes == len(text.encode())


def test_leading_blank_lines_do_not_count() -> None:
    index, budget = claude_measure("\n" * 50 + lines_of(160))
    assert (budget.lines, budget.cut_line) == (160, None)
    assert budget.stripped == tuple(range(1, 51)) and budget.numbering[0] == 51


def test_trailing_blank_lines_do_not_count() -> None:
    _, budget = claude_measure(lines_of(205) + "\n" * 30)
    assert (budget.lines, budget.cut_line, budget.loaded_count) == (205, 201, 200)
    assert budget.warning() == (
        'MEMORY.md is 205 lines (limit: 200). Only part of it was loaded: 5 of 205 lines were cut '
        'off, starting at line 201 ("- [fact 200](f200.md) — hook 200"). Keep index entries to one '
        "line under ~200 chars; move detail into topic files.")


def test_a_comment_with_text_after_it_keeps_the_text() -> None:
    index, budget = claude_measure("<!-- c --> visible text\n" + lines_of(200))
    assert (budget.lines, budget.cut_line) == (201, 201)  # the last entry is cut
    assert budget.stripped == ()
    cfg = BudgetConfig()
    from memtui.core.rules.budget import loaded_index_text

    loaded = loaded_index_text(index, cfg)
    assert loaded.startswith("visible text\n- [fact 0]") and "<!--" not in loaded
    assert loaded.endswith("- [fact 198](f198.md) — hook 198")


def test_a_line_over_the_character_cap_is_cut_mid_line() -> None:
    from memtui.core.rules.budget import loaded_index_text

    index, budget = claude_measure("x" * 26_000 + "\n")
    assert (budget.lines, budget.bytes, budget.cut_line, budget.cut_chars) == (1, 26_000, 1, 25_000)
    assert loaded_index_text(index, CLAUDE) == "x" * 25_000
    assert budget.warning() == (
        "MEMORY.md is 25.4KB (limit: 24.4KB) \u2014 index entries are too long. Only part of it was "
        "loaded: everything after the first 25000 characters of line 1 was cut off. Keep index "
        "entries to one line under ~200 chars; move detail into topic files.")
    # the line that crosses the cap after the first does not load at all (cut at a line break)
    _, later = claude_measure("short\n" + "y" * 26_000 + "\n")
    assert (later.cut_line, later.cut_chars, later.loaded_count) == (2, None, 1)


def test_both_numberings_after_frontmatter() -> None:
    _, budget = claude_measure("---\nname: index\ndescription: d\ntype: index\n---\n" + lines_of(201))
    assert budget.cut_line == 206 and budget.loaded_count == 200
    assert budget.loader_number(206) == 201 and budget.loader_number(6) == 1
    assert "starting at line 201 (" in (budget.warning() or "")
    assert budget.cut_where() == "line 206 (line 201 as Claude Code counts, after stripping)"


def test_characters_are_utf16_units_and_crlf_as_claude_code_counts_it() -> None:
    from memtui.core.rules.budget import loaded_index_text

    _, emoji = claude_measure("😀" * 10 + "\n")
    assert emoji.bytes == 20
    # v2.1.332 counts the file's own CR (the text it sends has LF): two characters a CRLF ...
    index, crlf = claude_measure("a\r\nb\r\n")
    assert (crlf.lines, crlf.bytes) == (2, 4) and loaded_index_text(index, CLAUDE) == "a\nb"
    _, fm = claude_measure("---\r\nname: i\r\n---\r\na\r\nb\r\n")
    assert (fm.lines, fm.bytes, fm.numbering) == (2, 4, (4, 5))
    # ... but one when a comment block was stripped: its stripper makes every line ending LF
    _, commented = claude_measure("<!-- c -->\r\na\r\nb\r\n")
    assert (commented.lines, commented.bytes) == (2, 3)
    # a lone CR is no line break in the count
    _, lone = claude_measure("- a\r- b\r- c\r")
    assert (lone.lines, lone.bytes) == (1, 11)
    # 180 CRLF lines of 141 characters: the CRs push the cut up a line (measured: line 178)
    text = "".join(f"- [f{k}](f{k}.md) — " + "z" * 120 + "\r\n" for k in range(180))
    _, near = claude_measure(text)
    assert near.bytes == 25_338 and near.cut_line == 178
    assert "3 of 180 lines were cut off, starting at line 178" in (near.warning() or "")
    assert "MEMORY.md is 24.7KB (limit: 24.4KB)" in (near.warning() or "")
    _, cap = claude_measure("😀" * 12_501)  # 25,002 units: the cut may not split a pair
    assert cap.cut_chars == 25_000


@pytest.mark.parametrize(
    ("text", "counted"),
    [
        ("<!-- a -->\n\n\n- x\n", "- x"),  # a comment block takes the empty lines after it
        ("- x\n  <!-- in the item -->\n", "- x\n  <!-- in the item -->"),  # the item's own
        ("<!-- never closed\n- x\n", "<!-- never closed\n- x"),
        ("<!-- a --> b <!-- c -->\n", "b"),
        ("```\n<!-- fenced -->\n```\n", "```\n<!-- fenced -->\n```"),
        ("- x <!-- inline -->\n", "- x <!-- inline -->"),
        ("a\n<!-- b -->\nc\n", "a\nc"),
    ],
)
def test_comment_blocks_as_claude_code_strips_them(text: str, counted: str) -> None:
    from memtui.core.rules.budget import loaded_index_text

    index, budget = claude_measure(text)
    assert loaded_index_text(index, CLAUDE) == counted
    assert (budget.lines, budget.bytes) == (counted.count("\n") + 1, len(counted))


def test_loaded_prints_claude_codes_warning(make_root: MakeRoot, capsys) -> None:
    root = make_root({"MEMORY.md": "---\nname: i\n---\n" + lines_of(203)})
    assert main(["loaded", str(root), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["cut_line"] == 204 and data["budget"]["loader_cut_line"] == 201
    assert data["warning"].startswith("MEMORY.md is 203 lines (limit: 200). Only part of it was "
                                      "loaded: 3 of 203 lines were cut off, starting at line 201 (")
    assert main(["loaded", str(root)]) == 0
    text = capsys.readouterr().out
    assert "> WARNING: MEMORY.md is 203 lines (limit: 200)." in text
    assert "line 204 (line 201 as Claude Code counts, after stripping)" in text
