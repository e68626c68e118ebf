"""The CLI as a new user meets it: --help describes the app, exit codes follow DESIGN §8,
tables stay readable at 80 columns, the demo's copy goes with the terminal."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

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
