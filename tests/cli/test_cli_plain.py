"""The CLI's tables printed plainly: ``--plain``, and by default when piped without ``COLUMNS`` —
a header row, then one tab-separated row a line, no title, legend, border, padding or colour, a
cell's tabs, line breaks and control characters written as escapes."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from memtui.cli.main import main
from tests.support.roots import MakeRoot, topic

#: a file name no cell may carry into a row as they are: a tab, a line break, an
#: escape sequence (clear the screen) and a bell
HOSTILE = "tab\there\nnext\x1b[2J\x07.md"


@pytest.fixture
def root(make_root: MakeRoot) -> Path:
    return make_root({
        "MEMORY.md": "- [gc](gc_runbook.md) — gc\n- [h](hostile.md) — h\n",
        "gc_runbook.md": topic("GC runbook for blob sweeps", body="Sweep orphaned blobs nightly "
                               "after the retention window, verify counts, then compact.\n"),
        "gc_operations.md": topic("GC runbook for blob sweeps, operations", body="Sweep orphaned "
                                  "blobs nightly after the retention window, verify counts, then "
                                  "compact.\n"),
        HOSTILE: topic("Hostile"),
        "hostile.md": topic("Hostile too"),
    })


@pytest.fixture
def fleet(make_root: MakeRoot, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch Claude Code config with two projects' memory folders, one named with a tab."""
    for name in ("-w-one", "-w-t\tab"):
        make_root({"MEMORY.md": "# M\n- [A](a.md) — the alpha fact\n", "a.md": topic("A")},
                  name=f"claude/projects/{name}/memory")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    return tmp_path / "claude"


def rows(out: str) -> list[list[str]]:
    """The output's lines split at tabs, after checking each has the header's number of fields."""
    lines = out.splitlines()
    assert lines and out.endswith("\n")
    table = [line.split("\t") for line in lines]
    assert all(len(row) == len(table[0]) for row in table), table
    return table


def printed(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(list(argv)) == 0
    captured = capsys.readouterr()
    assert "\x1b" not in captured.out and "\x07" not in captured.out
    return captured.out


PLAIN_HEADERS = {
    "stale": ["score", "action", "refs", "type", "age", "missing refs", "guards", "file"],
    "list": ["layer", "root", "files", "lines", "characters", "use", "errors", "warnings"],
}


def test_stale_plain_is_a_header_and_one_row_a_file(root: Path, capsys: pytest.CaptureFixture[str],
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # --plain wins over a terminal's width
    table = rows(printed(capsys, "stale", str(root), "--now", "2026-11-29", "--plain"))
    assert table[0] == PLAIN_HEADERS["stale"]
    files = [row[-1] for row in table[1:]]
    assert sorted(files) == sorted(["gc_runbook.md", "gc_operations.md", "hostile.md",
                                    "tab\\there\\nnext\\e[2J\\x07.md"])
    for row in table[1:]:
        assert float(row[0]) >= 0 and row[1] in ("prune", "review", "keep")
        assert row[0] == row[0].strip() and "[" not in row[1]  # no padding, no markup


def test_stale_of_several_roots_puts_the_root_first(make_root: MakeRoot,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    make_root({"MEMORY.md": "", "a.md": topic("a")}, name="top/one")
    make_root({"MEMORY.md": "", "b.md": topic("b"), "c.md": topic("c")}, name="top/two")
    table = rows(printed(capsys, "stale", str(make_root({}, name="top")), "--plain"))
    assert table[0] == ["root", *PLAIN_HEADERS["stale"]]
    assert sorted((row[0], row[-1]) for row in table[1:]) == [
        ("one", "a.md"), ("two", "b.md"), ("two", "c.md")]


def test_list_plain_names_the_layer_on_every_row(make_root: MakeRoot, root: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    make_root({"MEMORY.md": "- [a](a.md) — a\n", "a.md": topic("a")}, name="other\tone")
    table = rows(printed(capsys, "list", str(root.parent), "--plain"))
    assert table[0] == PLAIN_HEADERS["list"]
    assert sorted(row[1] for row in table[1:]) == ["other\\tone", "root"]
    for row in table[1:]:
        assert row[0] and row[2].isdigit() and row[3].endswith("/200") and row[5].endswith("%")


def test_list_all_plain_is_one_row_a_root(fleet: Path, capsys: pytest.CaptureFixture[str],
                                          monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "80")  # not the narrow terminal's two lines a root
    table = rows(printed(capsys, "list", "--all", "--plain"))
    assert table[0] == ["!", "root", "layer", "files", "lines", "chars", "cut", "err", "warn",
                        "peak", "agent", "dream", "why"]
    roots = sorted(row[1] for row in table[1:])
    assert roots == [str(fleet / "projects" / "-w-one" / "memory"),
                     str(fleet / "projects" / "-w-t\\tab" / "memory")]
    assert all(row[0] in ("", "!") and row[3] == "1" for row in table[1:])


def test_scan_plain_is_four_blocks_each_with_its_header(root: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    out = printed(capsys, "scan", str(root), "--plain")
    blocks = out.split("\n\n")
    assert len(blocks) == 4
    pairs, clusters, contradictions, supersessions = (rows(b + "\n" * (not b.endswith("\n")))
                                                      for b in blocks)
    assert pairs[0][:4] == ["#", "file", "relation", "other file"] and len(pairs) == 3
    assert {frozenset((row[1], row[3])) for row in pairs[1:]} == {
        frozenset(("gc_runbook.md", "gc_operations.md")),
        frozenset(("hostile.md", "tab\\there\\nnext\\e[2J\\x07.md"))}  # one field, escaped
    assert all(row[0].isdigit() and row[2] in ("↔", "contained in") for row in pairs[1:])
    assert clusters[0] == ["files", "pairs", "review", "members"]
    assert contradictions[0][:2] == ["older (superseded)", "newer (successor)"]
    assert supersessions[0][:2] == ["older (folded)", "newer (successor)"]


@pytest.mark.parametrize("argv", [
    ["stale", "{root}", "--now", "2026-11-29"],
    ["list", "{parent}"],
    ["scan", "{root}"],
    ["list", "--all"],
])
def test_piped_without_columns_is_the_plain_form(argv: list[str], root: Path, fleet: Path,
                                                 capsys: pytest.CaptureFixture[str],
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    """Standard output here is a capture, not a terminal: without COLUMNS the table is the plain
    one; with COLUMNS it is the table a terminal of that width shows."""
    args = [a.format(root=root, parent=root.parent) for a in argv]
    monkeypatch.delenv("COLUMNS", raising=False)
    plain = printed(capsys, *args, "--plain")
    assert printed(capsys, *args) == plain
    monkeypatch.setenv("COLUMNS", "200")
    assert printed(capsys, *args, "--plain") == plain
    table = printed(capsys, *args)
    assert "\t" not in table and table != plain
    if argv[0] == "list" and argv[1] == "--all":  # no borders: the title and legend
        assert "memory roots" in table and "--sort COLUMN to sort" in table
    else:
        assert "┃" in table and "│" in table  # the bordered table, as before
    if argv[0] == "stale":
        assert "suggestions only; nothing was changed" in table


def test_a_rich_tables_cells_become_their_text() -> None:
    """The markup of a drawn table's cells goes, its escaped brackets stay, and a cell's
    control characters are escapes in the printed field."""
    from rich.console import Console
    from rich.table import Table

    from memtui.cli.common import esc, print_plain, table_cells

    table = Table()
    table.add_column("[bold]name[/]")
    table.add_column("n", justify="right")
    table.add_row(esc("[red]not markup[/]\tx"), "[red]3[/]")
    table.add_row(esc("a\x1b]0;title\x07"), "4")
    names, cells = table_cells(table)
    assert names == ["name", "n"]
    assert cells == [["[red]not markup[/]\\tx", "3"], ["a\\e]0;title\\x07", "4"]]
    written = io.StringIO()
    out = Console(file=written, width=20)
    print_plain(out, ["a\tb", "c"], [["1\n2", "\x1b[2J"]])
    assert written.getvalue() == "a\\tb\tc\n1\\n2\t\\e[2J\n"


def test_a_long_list_line_wraps_under_its_own_words_in_an_80_column_terminal(
        monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from rich.console import Console

    from memtui.cli.common import print_hanging

    head = "00000003-do  2026-12-03T12:24:53+00:00"
    tail = "dream: 1 repair, 1 supersede-declared, 1 archive, 1 merge, 1 lesson"
    monkeypatch.setenv("COLUMNS", "80")  # a terminal 80 columns wide
    screen = Console(file=io.StringIO(), width=80, highlight=False, soft_wrap=True)
    print_hanging(screen, head, tail)
    lines = screen.file.getvalue().splitlines()  # type: ignore[attr-defined]
    assert len(lines) == 2 and all(len(line.rstrip()) <= 80 for line in lines), lines
    assert lines[1].startswith(" " * (len(head) + 2)) and lines[1].strip() == "archive, 1 merge, 1 lesson"
    monkeypatch.delenv("COLUMNS")  # piped: one line, greppable
    pipe = Console(file=io.StringIO(), width=1000, highlight=False, soft_wrap=True)
    print_hanging(pipe, head, tail)
    assert pipe.file.getvalue() == f"{head}  {tail}\n"  # type: ignore[attr-defined]
