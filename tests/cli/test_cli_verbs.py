"""``memtui pin|…|rebuild|undo|redo|log``: exit codes, --dry-run, --json, root resolution."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core.model.journal import list_records
from memtui.core.write.fs import disk
from tests.support.roots import MakeRoot
from tests.support.writer import VALID_ROOT, tree


@pytest.fixture
def root(make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COLUMNS", "250")
    monkeypatch.setenv("NO_COLOR", "1")
    return make_root(dict(VALID_ROOT))


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_pin_applies_and_says_how_to_undo(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "pin", str(root / "alpha.md"))
    assert (code, err) == (0, "")
    assert "applied: pin alpha.md" in out and "journal 00000001-do" in out and "memtui undo" in out
    assert b"pinned: true" in (root / "alpha.md").read_bytes()


def test_dry_run_touches_nothing(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = tree(root, include_memtui=True)
    code, out, _ = run(capsys, "archive", str(root / "alpha.md"), "--dry-run")
    assert code == 0
    assert "dry run: archive alpha.md → archive/alpha.md" in out
    assert "move    alpha.md → archive/alpha.md" in out
    assert "-- [Alpha](alpha.md) — the alpha fact" in out  # the diff
    assert "the validator accepts this change (nothing was written)" in out
    assert tree(root, include_memtui=True) == before


def test_json_shape(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "decay", str(root / "beta.md"), "--json")
    assert code == 0
    result = json.loads(out)
    assert {"verb", "accepted", "changes", "findings"} <= set(result)
    assert result["verb"] == "decay" and result["accepted"] is True and result["dry_run"] is False
    assert result["changes"] == [
        {"op": "write", "path": "MEMORY.md", "bytes": (root / "MEMORY.md").stat().st_size},
        {"op": "create", "path": "MEMORY-archive.md", "bytes": (root / "MEMORY-archive.md").stat().st_size},
    ]
    assert result["id"] == "00000001-do"


def test_refused_change_exits_1_with_the_findings(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = tree(root, include_memtui=True)
    code, out, _ = run(capsys, "pin", str(root / "lesson_one.md"), "--max-lines", "10")
    assert code == 1
    assert "refused: pin lesson_one.md" in out
    assert "MEMORY.md would grow from 14 to 15 lines while over its 10-line cap" in out
    code, out, _ = run(capsys, "pin", str(root / "lesson_one.md"), "--max-lines", "10", "--json")
    assert code == 1
    assert json.loads(out)["accepted"] is False
    assert tree(root, include_memtui=True) == before


def test_refusal_by_an_error_finding(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert run(capsys, "supersede", str(root / "beta.md"), str(root / "gamma.md"))[0] == 0
    code, out, _ = run(capsys, "supersede", str(root / "gamma.md"), str(root / "beta.md"), "--json")
    assert code == 1
    rules = {f["rule"] for f in json.loads(out)["findings"]}
    assert rules == {"supersede-cycle"}


@pytest.mark.parametrize(
    "argv,message",
    [
        (["decay", "{root}/deploy.md"], "pinned; unpin it first"),
        (["archive", "{root}/deploy.md"], "needs confirmation (--yes)"),
    ],
)
def test_refused_preconditions_exit_1_in_one_line(root: Path, capsys: pytest.CaptureFixture[str],
                                                 argv: list[str], message: str) -> None:
    code, out, err = run(capsys, *[a.replace("{root}", str(root)) for a in argv])
    assert code == 1, (out, err)
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "argv,message",
    [
        (["pin", "{root}/missing.md"], "no memory file 'missing.md'"),
        (["pin", "/nonexistent-dir/x.md"], "no MEMORY.md in any folder above it"),
        (["pin", "x.md", "--root", "/nonexistent-dir"], "no MEMORY.md there"),
        (["remember", "!!!", "--root", "{root}"], "letter or digit"),
        (["edit", "{root}/alpha.md", "--hook", " "], "the new hook is empty"),
    ],
)
def test_user_mistakes_exit_2_in_one_line(root: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                          message: str) -> None:
    code, out, err = run(capsys, *[a.replace("{root}", str(root)) for a in argv])
    assert code == 2, (out, err)
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def test_root_from_cwd_and_from_root_option(root: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(root)
    assert run(capsys, "pin", "alpha.md")[0] == 0
    monkeypatch.chdir(root.parent)
    assert run(capsys, "unpin", "alpha.md", "--root", str(root))[0] == 0
    assert (root / "alpha.md").read_text() == VALID_ROOT["alpha.md"]


def test_several_files_are_one_change(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "decay", str(root / "beta.md"), str(root / "gamma.md"))
    assert code == 0
    assert len(list_records(root)) == 1
    assert run(capsys, "undo", str(root))[0] == 0
    assert (root / "MEMORY.md").read_text() == VALID_ROOT["MEMORY.md"]


def test_undo_redo_and_log(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    run(capsys, "archive", str(root / "alpha.md"))
    code, out, _ = run(capsys, "undo", str(root), "--dry-run")
    assert code == 0 and "dry run: undo: archive alpha.md" in out
    assert (root / "archive" / "alpha.md").exists()
    code, out, _ = run(capsys, "undo", str(root))
    assert code == 0 and (root / "alpha.md").exists()
    code, out, _ = run(capsys, "redo", str(root / "MEMORY.md"), "--json")
    assert code == 0 and json.loads(out)["verb"] == "redo"
    code, out, _ = run(capsys, "log", str(root))
    assert code == 0
    lines = out.strip().splitlines()
    assert "00000003-redo-00000001" in lines[0] and "redo: archive alpha.md" in lines[0]
    assert "00000001-do" in lines[2] and "archive alpha.md" in lines[2]
    code, out, _ = run(capsys, "log", str(root), "--json", "-n", "1")
    assert [c["id"] for c in json.loads(out)["changes"]] == ["00000003-redo-00000001"]


def test_nothing_to_undo_exits_1(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(capsys, "undo", str(root))
    assert code == 1 and "nothing to undo" in err


def test_rebuild_shows_the_diff(make_root: MakeRoot, capsys: pytest.CaptureFixture[str],
                                monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "250")
    root = make_root({**VALID_ROOT, "stray.md": "---\nname: Stray\ndescription: lost\ntype: user\n---\n"})
    code, out, _ = run(capsys, "rebuild", str(root), "--dry-run")
    assert code == 0
    assert "+++ b/MEMORY.md" in out and "+- [Stray](stray.md) — lost" in out  # live: indexed, not archived
    code, out, _ = run(capsys, "rebuild", str(root))
    assert code == 0 and "applied: rebuild MEMORY.md" in out
    code, out, _ = run(capsys, "rebuild", str(root))
    assert code == 0 and "already what rebuild would write" in out


def test_edit_hook_and_edit_in_editor(root: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path,
                                      monkeypatch: pytest.MonkeyPatch) -> None:
    assert run(capsys, "edit", str(root / "alpha.md"), "--hook", "a sharper hook")[0] == 0
    assert "- [Alpha](alpha.md) — a sharper hook\n" in (root / "MEMORY.md").read_text()
    script = tmp_path / "editor.py"
    script.write_text("import sys\np = sys.argv[1]\nopen(p, 'a').write('Added in the editor.\\n')\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    code, out, _ = run(capsys, "edit", str(root / "beta.md"))
    assert code == 0, out
    assert (root / "beta.md").read_text() == VALID_ROOT["beta.md"] + "Added in the editor.\n"


def test_remember_reads_the_body_from_stdin(root: Path, capsys: pytest.CaptureFixture[str],
                                            monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("Deploys need two approvals.\n"))
    code, out, _ = run(capsys, "remember", "Deploy approvals", "--type", "feedback", "--body", "-",
                       "--root", str(root))
    assert code == 0, out
    text = (root / "deploy_approvals.md").read_text()
    assert "description: Deploys need two approvals.\ntype: feedback\n" in text
    assert text.endswith("---\n\nDeploys need two approvals.\n")


def test_archive_pinned_with_yes(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(capsys, "archive", str(root / "deploy.md"), "--yes")
    assert code == 0 and "(unpinned)" in out
    code, out, _ = run(capsys, "restore", str(root / "deploy.md"))  # now at archive/deploy.md
    assert code == 0 and (root / "deploy.md").exists()


def test_unwritable_folder_exits_2(root: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    def refuse(path: str) -> None:
        raise PermissionError(13, "Permission denied", path)

    monkeypatch.setattr(disk, "mkdir", refuse)
    code, _, err = run(capsys, "pin", str(root / "alpha.md"))
    assert code == 2 and "permission denied" in err and "nothing was changed" in err


def test_merge_command_folds_two_files_and_undo_restores_them(tmp_path, capsys) -> None:
    from memtui.cli.main import main
    from memtui.core.read.demo import copy_demo

    root = copy_demo(tmp_path / "demo")
    before = {p: p.read_bytes() for p in root.rglob("*.md")}
    a, b = root / "reference_gc_runbook.md", root / "reference_gc_operations.md"
    assert main(["merge", str(a), str(b), "--dry-run"]) == 0
    assert {p: p.read_bytes() for p in root.rglob("*.md")} == before
    assert main(["merge", str(a), str(b)]) == 0
    assert not a.exists() and (root / "archive" / a.name).is_file()
    assert b"folded_into:" in (root / "archive" / b.name).read_bytes()
    assert main(["undo", str(root)]) == 0
    after_undo = {p: p.read_bytes() for p in root.rglob("*.md") if ".memtui" not in p.parts}
    assert after_undo == before
    capsys.readouterr()
    assert main(["merge", str(a), "--json"]) == 2


def test_a_diff_shows_a_files_control_characters_as_escapes(make_root: MakeRoot,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    # a description crafted to clear the screen and retitle the terminal: written as \e, never sent
    evil = "---\nname: Evil\ndescription: evil \x1b]0;PWNED\x07 note \x1b[2J\ntype: project\n---\nBody.\n"
    root = make_root({"MEMORY.md": "# Memory\n\n- [Evil](evil.md) — evil \x1b[2J note\n"
                                   "- [Evil](evil.md) — evil \x1b[2J note again\n", "evil.md": evil})
    for argv in (("archive", str(root / "evil.md"), "--dry-run"), ("dream", "--dry-run", str(root))):
        code, out, _ = run(capsys, *argv)
        assert "\x1b" not in out and "\x07" not in out, argv
        assert "\\e[2J" in out, argv  # the diff is there, escaped



def test_an_editor_killed_by_a_signal_leaves_no_temp_folder_and_is_named(
        root: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path,
        monkeypatch: pytest.MonkeyPatch) -> None:
    import tempfile
    script = tmp_path / "editor.py"
    script.write_text("import os, signal, sys\n"
                      "p = sys.argv[1]\n"
                      "open(os.path.join(os.path.dirname(p), '.swp'), 'w').write('swap')\n"
                      "os.kill(os.getpid(), signal.SIGTERM)\n")
    monkeypatch.setenv("EDITOR", f"{sys.executable} {script}")
    monkeypatch.delenv("VISUAL", raising=False)
    code, _, err = run(capsys, "edit", str(root / "beta.md"))
    assert code == 2
    assert "killed by SIGTERM" in err and "status -15" not in err and "kept" not in err
    assert list(Path(tempfile.gettempdir()).glob("memtui-edit-*")) == []
    assert (root / "beta.md").read_text() == VALID_ROOT["beta.md"]


def test_dream_with_nothing_to_do_names_the_errors_no_pass_fixes(
        make_root: MakeRoot, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_root({"MEMORY.md": "- [Deploy](../ops/deploy.md) — how we deploy\n"})
    code, out, _ = run(capsys, "dream", str(root))
    assert code == 0 and "nothing to do" not in out
    assert out.splitlines()[0] == "nothing a pass can do — but 1 error no pass fixes needs a person:"
    assert "link-escapes-root MEMORY.md:1 — '../ops/deploy.md' points outside the memory root" in out
    code, out, _ = run(capsys, "dream", "--json", str(root))
    assert [f["rule"] for f in json.loads(out)["errors_left"]] == ["link-escapes-root"]
