"""Two contract slips (DESIGN §1.1, §8): a folder named explicitly that holds memory files but no
MEMORY.md is a root with ``index-missing`` (exit 1); a verb whose precondition fails is a refusal
(exit 1) with the reason, not a usage error (exit 2)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli.main import main
from tests.support.roots import MakeRoot, topic


def test_a_folder_of_memory_files_without_an_index_is_a_root(
        make_root: MakeRoot, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_root({"a.md": topic("a"), "b.md": topic("b")})
    assert main(["validate", str(root), "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["root"] == str(root) and not data["ok"]
    assert [f["rule"] for f in data["findings"] if f["severity"] == "error"] == ["index-missing"]
    for argv in (["loaded"], ["list"], ["stale"], ["scan"]):
        assert main([*argv, str(root), "--json"]) == 0, argv
    capsys.readouterr()


def test_a_folder_without_memory_files_is_still_a_usage_error(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    (tmp_path / "notes.txt").write_text("not memory\n")
    assert main(["validate", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert "no MEMORY.md" in err and len(err.strip().splitlines()) == 1


@pytest.fixture
def root(make_root: MakeRoot) -> Path:
    return make_root({
        "MEMORY.md": "# Memory\n\n## Pinned\n- [p](p.md) — pinned fact\n\n## Recent\n- [a](a.md) — a fact\n",
        "p.md": topic("p", pinned="true"),
        "a.md": topic("a"),
    })


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["decay", "p.md"], "pinned"),
        (["restore", "a.md"], "not archived"),
        (["archive", "p.md"], "pinned"),
        (["merge", "p.md", "a.md"], "pinned"),
    ],
)
def test_a_failed_precondition_is_a_refusal_with_its_reason(
        root: Path, capsys: pytest.CaptureFixture[str], argv: list[str], reason: str) -> None:
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    files = [str(root / arg) if arg.endswith(".md") else arg for arg in argv[1:]]
    assert main([argv[0], *files]) == 1
    err = capsys.readouterr().err
    assert reason in err and "Traceback" not in err
    assert f"memtui {argv[0]}: {argv[0]}:" not in err  # the verb is named once
    assert main([argv[0], *files, "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["accepted"] is False and reason in data["error"]
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


@pytest.mark.parametrize("confirm", ["--yes", "--confirm-pinned"])
def test_a_pinned_file_is_merged_or_archived_with_the_same_confirmation(
        root: Path, capsys: pytest.CaptureFixture[str], confirm: str) -> None:
    """archive and supersede confirm a pinned file with --yes; merge takes it too (its old
    --confirm-pinned still works), and its refusal names --yes."""
    assert main(["merge", str(root / "p.md"), str(root / "a.md")]) == 1
    assert "needs confirmation (--yes)" in capsys.readouterr().err
    assert main(["merge", str(root / "p.md"), str(root / "a.md"), confirm]) == 0
    assert (root / "archive" / "p.md").exists() and (root / "archive" / "a.md").exists()


@pytest.mark.parametrize(
    ("argv", "reason"),
    [
        (["pin", "p.md"], "already pinned"),
        (["unpin", "a.md"], "not pinned"),
        (["promote", "a.md"], "already in the working set"),
    ],
)
def test_a_verb_with_nothing_to_do_is_0_with_a_notice(
        root: Path, capsys: pytest.CaptureFixture[str], argv: list[str], reason: str) -> None:
    before = {p: p.read_bytes() for p in root.rglob("*") if p.is_file()}
    assert main([argv[0], str(root / argv[1])]) == 0
    err = capsys.readouterr().err
    assert "nothing to do" in err and reason in err
    assert main([argv[0], str(root / argv[1]), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["accepted"] is True and data["changes"] == [] and reason in data["description"]
    assert {p: p.read_bytes() for p in root.rglob("*") if p.is_file()} == before


def test_decay_of_a_decayed_file_is_0(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decay", str(root / "a.md")]) == 0
    assert main(["decay", str(root / "a.md")]) == 0
    assert "nothing to do" in capsys.readouterr().err


def test_a_missing_file_is_still_a_usage_error(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decay", str(root / "nope.md")]) == 2
    assert "nope.md" in capsys.readouterr().err
