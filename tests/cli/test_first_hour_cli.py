"""The CLI as a new user meets it: --help describes the app, exit codes follow DESIGN §8,
tables stay readable at 80 columns, the demo's copy goes with the terminal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from memtui.cli.main import main


def test_help_documents_the_app(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: memtui [PATH]")
    for option in ("--demo", "--keep", "--read-only", "--loader", "PATH is a memory root"):
        assert option in out, option
    assert "validate" in out  # the commands are still listed


def test_a_command_help_keeps_its_own_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["validate", "--help"])
    assert capsys.readouterr().out.startswith("usage: memtui validate [-h]")


CHILD = """
import argparse, os, signal, sys
from memtui.cli.main import _run_demo

def run_app(args):
    print(args.path, flush=True)
    os.kill(os.getpid(), getattr(signal, sys.argv[1]))
    signal.pause()  # never reached: the signal ends the process
    return 0

args = argparse.Namespace(demo=True, keep=False, path=None, read_only=False, loader=None)
_run_demo(args, run_app)
"""


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
@pytest.mark.parametrize("name", ["SIGHUP", "SIGTERM"])
def test_the_demo_copy_goes_when_the_terminal_closes(name: str, tmp_path: Path) -> None:
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    child = subprocess.run([sys.executable, "-c", CHILD, name], capture_output=True, text=True,
                           env=env, timeout=120)
    root = Path(child.stdout.strip())
    assert root.name == "memory" and str(root).startswith(str(tmp_path)), child
    assert child.returncode == -getattr(signal, name)  # ended by the signal, as without memtui
    assert not root.exists() and not list(tmp_path.iterdir())


@pytest.mark.parametrize("command", ["stale", "scan", "loaded", "list"])
def test_a_reader_closing_the_pipe_is_not_an_error(demo_root: Path, command: str) -> None:
    """``memtui stale | head``: the reader is gone before memtui writes; exit 0, no traceback."""
    child = subprocess.Popen([sys.executable, "-m", "memtui", command, str(demo_root)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stderr is not None
    child.stdout.close()  # before the child has imported anything: its first write finds no reader
    err = child.stderr.read()
    assert child.wait(timeout=120) == 0, err
    assert "Traceback" not in err and "Broken pipe" not in err


def test_the_pairs_heading_says_what_proposed_the_rows() -> None:
    from memtui.core.judge.consolidate import Candidate, pairs_summary

    def pair(score: float, evidence: str) -> Candidate:
        return Candidate("a.md", "b.md", score, None, score, 0.5, (), 0, evidence=evidence)

    pairs = [pair(0.9, "body"), pair(0.7, "content"), pair(0.65, "content"), pair(0.6, "contained")]
    assert pairs_summary(pairs, 0.8) == "4 pairs: 1 at overlap ≥ 0.80, 2 by content, 1 by contained"
    assert pairs_summary(pairs[1:2], 0.8) == "1 pair: 1 by content"


def at_80_columns(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str],
                  argv: list[str]) -> list[str]:
    monkeypatch.setenv("COLUMNS", "80")
    main(argv)
    lines = capsys.readouterr().out.splitlines()
    wide = [line for line in lines if line[:1] in "┏┃┡│└ " and len(line.rstrip()) > 80]
    assert not wide, wide  # tables and findings fit (a title or summary line may run on)
    return lines


def test_stale_at_80_columns_keeps_every_file_name_whole(
        demo_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    lines = at_80_columns(monkeypatch, capsys, ["stale", str(demo_root)])
    names = [p.relative_to(demo_root).as_posix() for p in demo_root.rglob("*.md")
             if p.name not in ("MEMORY.md", "MEMORY-archive.md", "SCOPE.md")
             and not p.relative_to(demo_root).as_posix().startswith("archive/")]
    text = "\n".join(lines)
    missing = [n for n in names if f"│{n} " not in text]
    assert not missing, missing


def test_list_at_80_columns_keeps_the_root_whole(
        make_root: Any, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    index = "# M\n- [A](a.md) — a\n"
    topic_text = "---\nname: A\ndescription: a\ntype: project\n---\nA\n"
    parent = make_root({"MEMORY.md": index, "a.md": topic_text}, name="holder/a-rather-long-root-name-one")
    make_root({"MEMORY.md": index, "a.md": topic_text}, name="holder/a-rather-long-root-name-two")
    lines = at_80_columns(monkeypatch, capsys, ["list", str(parent.parent)])
    for name in ("a-rather-long-root-name-one", "a-rather-long-root-name-two"):
        assert any(name in line for line in lines), lines


def test_validate_at_80_columns_wraps_findings_under_the_rule(
        demo_root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    lines = at_80_columns(monkeypatch, capsys, ["validate", str(demo_root)])
    finding = next(i for i, line in enumerate(lines) if line.startswith("  error   orphan"))
    follow = lines[finding + 1]
    assert follow.startswith(" " * 10) and follow[10] != " "  # a hanging indent under the rule
    words = " ".join(line.strip() for line in lines[finding:finding + 3]).split()
    assert "MEMORY-archive.md" in words  # no word cut in two across the lines


def test_remember_follows_a_folder_that_names_files_by_type(make_root: Any) -> None:
    from memtui.core.read.store import load_root
    from memtui.core.verbs.lifecycle import remember

    typed = {f"{t}_{n}.md": f"---\nname: {n}\ndescription: d\ntype: {t}\n---\nx\n"
             for t, n in (("feedback", "a"), ("project", "b"), ("user", "c"), ("feedback", "d"))}
    root = make_root({"MEMORY.md": "# M\n", **typed})
    change = remember(load_root(root), "Use go vet", type_="feedback")
    assert "feedback_use_go_vet.md" in change.paths
    plain = make_root({"MEMORY.md": "# M\n", "a.md": typed["feedback_a.md"],
                       "b.md": typed["project_b.md"], "c.md": typed["user_c.md"]}, name="plain")
    assert "use_go_vet.md" in remember(load_root(plain), "Use go vet", type_="feedback").paths
