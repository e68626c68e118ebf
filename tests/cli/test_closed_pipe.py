"""A closed standard output never changes a command's verdict (DESIGN §8): ``memtui validate |
head`` under ``set -o pipefail`` fails a folder with errors as ``memtui validate`` does."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

COMMANDS = ["validate", "stale", "scan", "loaded", "list"]


def _run(argv: list[str], closed: bool) -> tuple[int, str]:
    """The exit code and standard error of ``memtui argv``, its standard output read whole or
    closed before the child writes a byte."""
    child = subprocess.Popen([sys.executable, "-m", "memtui", *argv], stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
    assert child.stdout is not None and child.stderr is not None
    if closed:
        child.stdout.close()
    else:
        child.stdout.read()
    err = child.stderr.read()
    return child.wait(timeout=120), err


@pytest.mark.parametrize("command", COMMANDS)
def test_a_closed_pipe_keeps_the_exit_code(demo_root: Path, command: str) -> None:
    read, _ = _run([command, str(demo_root)], closed=False)
    closed, err = _run([command, str(demo_root)], closed=True)
    assert closed == read, err
    assert "Traceback" not in err and "Broken pipe" not in err


def test_validate_of_a_broken_folder_piped_to_head_exits_1(demo_root: Path) -> None:
    """The demo has errors (an orphan, a broken link): validate exits 1 however little the
    reader takes of its report."""
    assert _run(["validate", str(demo_root)], closed=True)[0] == 1
    bash = shutil.which("bash")
    if bash is None:
        pytest.skip("no bash for set -o pipefail")
    command = f"set -o pipefail; {sys.executable} -m memtui validate {demo_root} | head -1"
    shell = subprocess.run([bash, "-c", command], capture_output=True, text=True, timeout=120,
                           env={**os.environ, "COLUMNS": "80"})
    assert shell.returncode == 1, shell.stderr
    assert len(shell.stdout.splitlines()) == 1 and "Traceback" not in shell.stderr


def test_a_verb_whose_report_cannot_be_read_still_says_applied(demo_root: Path) -> None:
    """A change committed before its report met the closed pipe exits 0 (applied), not 1."""
    target = demo_root / "feedback_small_prs.md"
    code, err = _run(["pin", str(target)], closed=True)
    assert code == 0, err
    assert "pinned: true" in target.read_text(encoding="utf-8")
