"""The bundled demo: a project with a git history beside its memory, so staleness has something real
to check; the copy is fresh every time and a ``--demo`` run removes its temp folder."""

from __future__ import annotations

import argparse
import hashlib
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest

from memtui.cli.main import _run_demo, main
from memtui.core.read.demo import HISTORY, copy_demo, demo_project_source, demo_source, final_tree

needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def tree_digest(folder: Path) -> dict[str, str]:
    return {p.relative_to(folder).as_posix(): hashlib.sha256(p.read_bytes()).hexdigest()
            for p in sorted(folder.rglob("*")) if p.is_file()}


def git(project: Path, *args: str) -> str:
    return subprocess.run(["git", "-C", str(project), *args], capture_output=True, text=True,
                          check=True).stdout


def stale_json(capsys: pytest.CaptureFixture[str], *args: str) -> dict[str, dict]:
    capsys.readouterr()
    assert main(["stale", "--json", *args]) == 0
    report = json.loads(capsys.readouterr().out)
    return {f["path"]: f for f in report["files"]}


@needs_git
def test_copy_builds_the_projects_history_beside_an_untracked_memory(tmp_path: Path) -> None:
    root = copy_demo(tmp_path / "harbor")
    project = root.parent
    assert root == project / "memory" and (root / "MEMORY.md").is_file()
    assert git(project, "rev-parse", "--abbrev-ref", "HEAD").strip() == "main"
    branches = set(git(project, "for-each-ref", "--format=%(refname:short)", "refs/heads").split())
    assert branches == {"main", "release-2.4", "release-2.5", "gc-concurrent-mark"}
    assert len(git(project, "rev-list", "main").split()) == sum(c.branch == "main" for c in HISTORY)
    assert git(project, "status", "--porcelain") == ""  # memory/ is ignored, the tree is main's
    assert sorted(git(project, "ls-files").split()) == final_tree()
    assert "internal/gc/journal.go" in git(project, "ls-tree", "-r", "--name-only", "gc-concurrent-mark")
    assert not (project / "internal/gc/journal.go").exists()
    assert (project / "scripts/cherry-pick.sh").stat().st_mode & 0o111


@needs_git
def test_stale_on_a_demo_copy_shows_every_class_with_real_missing_references(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_demo(tmp_path / "harbor")
    files = stale_json(capsys, str(root))
    classes = [f["class"] for f in files.values()]
    assert {"FRESH", "PARTIALLY_STALE", "FULLY_STALE"} <= set(classes)
    assert classes.count("FRESH") > len(classes) / 2 and classes.count("EVERGREEN") < len(classes) / 10

    shim = files["project_v1_catalog_shim.md"]
    assert shim["class"] == "FULLY_STALE" and shim["guards"] == []
    missing = {(m["kind"], m["ref"]) for m in shim["missing"]}
    assert {("path", "internal/api/v1compat/catalog.go"), ("symbol", "SearchRepositoriesV1"),
            ("branch", "release-2.3")} <= missing
    ldap = files["project_auth_ldap_group_mapping.md"]  # its author declared it superseded
    assert (ldap["class"], ldap["action"], ldap["status"]["kind"]) == ("SUPERSEDED", "prune", "superseded")
    assert ldap["references"]["missing"] and not ldap["references"]["found"]  # and every reference is gone

    work_in_progress = files["project_gc_concurrent_mark.md"]  # its code is on a branch, not main
    assert work_in_progress["class"] == "PARTIALLY_STALE"
    assert ("symbol", "JournalRecorder") in {(m["kind"], m["ref"]) for m in work_in_progress["missing"]}

    guarded = files["feedback_commit_message_style.md"]  # every reference missing, but a lesson
    assert guarded["class"] == "PARTIALLY_STALE"
    assert "type-feedback" in {g["kind"] for g in guarded["guards"]}
    assert files["value_never_lose_referenced_blobs.md"]["class"] == "FRESH"


def test_without_git_the_project_is_its_final_tree_and_repo_checks_against_it(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = copy_demo(tmp_path / "harbor", with_git=False)
    project = root.parent
    assert not (project / ".git").exists()
    written = sorted(p.relative_to(project).as_posix() for p in project.rglob("*")
                     if p.is_file() and "memory" not in p.relative_to(project).parts)
    assert written == final_tree()
    files = stale_json(capsys, "--repo", str(project), str(root))
    assert files["project_v1_catalog_shim.md"]["class"] == "FULLY_STALE"
    assert files["value_never_lose_referenced_blobs.md"]["class"] == "FRESH"


def test_copy_leaves_the_bundled_folders_unchanged_and_keeps_the_documented_defects(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = tree_digest(demo_source()), tree_digest(demo_project_source())
    root = copy_demo(tmp_path / "harbor")
    (root / "MEMORY.md").write_text("changed\n")
    assert (tree_digest(demo_source()), tree_digest(demo_project_source())) == before
    fresh = copy_demo(tmp_path / "again")
    capsys.readouterr()
    main(["validate", "--json", str(fresh)])
    rules = {f["rule"] for f in json.loads(capsys.readouterr().out)["findings"]}
    assert {"orphan", "broken-link", "superseded-active"} <= rules


@pytest.mark.parametrize("keep", [False, True])
def test_a_demo_run_removes_its_temp_copy_unless_kept(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch, keep: bool) -> None:
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    opened: list[Path] = []

    def fake_app(args: argparse.Namespace) -> int:
        opened.append(Path(args.path))
        assert (Path(args.path) / "MEMORY.md").is_file() and not args.demo
        return 0

    args = argparse.Namespace(path=None, demo=True, keep=keep, read_only=False)
    assert _run_demo(args, fake_app) == 0
    left = list(tmp_path.glob("memtui-demo-*"))
    assert left == ([opened[0].parent.parent] if keep else [])


def test_keep_without_demo_is_a_usage_error(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--keep", "."]) == 2
    assert "--keep only applies with --demo" in capsys.readouterr().err
