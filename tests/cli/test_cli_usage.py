"""A user's mistake on any command is one line on stderr and exit 2; tables fit their output."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.cli.main import build_parser, main
from tests.support.roots import topic


def subcommands() -> list[str]:
    parser = build_parser()
    return sorted(parser._subparsers._group_actions[0].choices)  # type: ignore[union-attr]


def one_line_usage_error(capsys: pytest.CaptureFixture[str], args: list[str]) -> str:
    code = main(args)
    out, err = capsys.readouterr()
    assert code == 2, (args, out, err)
    assert out == "" and len(err.strip().splitlines()) == 1, err
    assert "usage:" not in err and "Traceback" not in err
    return err


@pytest.mark.parametrize("command", subcommands())
def test_an_unknown_option_on_every_subcommand_is_one_line(
        capsys: pytest.CaptureFixture[str], command: str) -> None:
    err = one_line_usage_error(capsys, [command, "--no-such-option"])
    assert f"memtui {command} --help" in err


@pytest.mark.parametrize("args, says", [
    (["stale", "--action", "foo"], "invalid choice: 'foo'"),
    (["validate", "--max-lines", "-5"], "-5 must be greater than 0"),
    (["validate", "--max-bytes", "many"], "'many' is not a whole number"),
    (["pin"], "the following arguments are required"),
    (["--no-such-flag"], "unrecognized arguments"),
])
def test_bad_values_are_one_line(capsys: pytest.CaptureFixture[str], args: list[str], says: str) -> None:
    assert says in one_line_usage_error(capsys, args)


@pytest.mark.parametrize("args, says", [
    (["pinn", "a.md"], "'pinn' is neither a command nor a folder — did you mean 'pin'?"),
    (["validate", "--jsn"], "unrecognized arguments: --jsn — did you mean '--json'?"),
    (["validate", "--jsn=1"], "unrecognized arguments: --jsn=1 — did you mean '--json'?"),
    (["stale", "--action", "prun"], "invalid choice: 'prun'"),
])
def test_a_misspelt_command_option_or_value_gets_the_nearest_one(
        capsys: pytest.CaptureFixture[str], args: list[str], says: str) -> None:
    err = one_line_usage_error(capsys, args)
    assert says in err
    assert "did you mean" in err


def test_nothing_near_is_no_guess(capsys: pytest.CaptureFixture[str]) -> None:
    assert "did you mean" not in one_line_usage_error(capsys, ["xyzzy"])


@pytest.mark.parametrize("hook", ["", "  "])
def test_an_empty_hook_is_refused_and_no_editor_opens(
        make_root, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch,
        hook: str) -> None:
    monkeypatch.setenv("EDITOR", "false")
    monkeypatch.setenv("VISUAL", "false")
    root = make_root({"MEMORY.md": "# M\n- [Alpha](a.md) — the alpha fact\n", "a.md": topic("Alpha", "a")})
    before = {p: p.read_bytes() for p in root.rglob("*")}
    err = one_line_usage_error(capsys, ["edit", str(root / "a.md"), "--hook", hook])
    assert "the new hook is empty" in err
    assert {p: p.read_bytes() for p in root.rglob("*")} == before


def test_piped_tables_keep_every_row_on_one_line(
        make_root, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    long_name = "a_rather_long_memory_root_name_that_would_wrap_in_eighty_columns"
    make_root({"MEMORY.md": "# M\n- [Alpha](a.md) — the alpha fact\n", "a.md": topic("Alpha", "a")},
              name=f"top/{long_name}")
    assert main(["list", str(tmp_path / "top")]) == 0
    out = capsys.readouterr().out
    row = [line for line in out.splitlines() if long_name in line]
    assert len(row) == 1 and "2/200" in row[0] and "36/25,000" in row[0]  # characters, trimmed


def test_piped_validate_ends_on_its_verdict_and_separates_roots_by_one_blank_line(
        make_root, tmp_path: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("COLUMNS", raising=False)
    for name in ("a", "b"):
        make_root({"MEMORY.md": "# M\n- [Alpha](a.md) — the alpha fact\n", "a.md": topic("Alpha", "a")},
                  name=f"top/{name}")
    main(["validate", str(tmp_path / "top")])
    out = capsys.readouterr().out
    assert out.endswith("in 1 file\n") and "\n\n\n" not in out
    assert out.count("\n\n") == 1  # between the two roots
    assert not any(line != line.rstrip() for line in out.splitlines())


def test_remember_help_names_its_type_option_plainly(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["remember", "--help"])
    out = capsys.readouterr().out
    assert "--type TYPE " in out and "TYPE_" not in out
