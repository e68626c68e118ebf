"""memtui's own state in a memory folder kept in git: the ``.memtui/`` it makes ignores itself."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from memtui.core import write
from memtui.core.read.store import load_root
from memtui.core.verbs import lifecycle as verbs
from tests.support.roots import MakeRoot, topic


def test_the_first_change_leaves_no_untracked_state_in_a_git_folder(make_root: MakeRoot) -> None:
    if shutil.which("git") is None:
        pytest.skip("git is not on this machine")
    root = make_root({"MEMORY.md": "# Memory\n\n- [A](a.md) — a\n", "a.md": topic("A", type_="feedback")})
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1", "PATH": "/usr/bin:/bin",
           "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@t", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@t"}

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=root, env=env, check=True, capture_output=True,
                              text=True).stdout

    git("init", "-q")
    git("add", "-A")
    git("commit", "-q", "-m", "memory")
    snapshot = load_root(root)
    write.run(snapshot, verbs.pin(snapshot, "a.md"))
    assert (root / ".memtui" / "journal").is_dir() and (root / ".memtui" / ".gitignore").read_bytes().endswith(b"*\n")
    assert git("status", "--porcelain") == " M MEMORY.md\n M a.md\n"  # the pin, and nothing of memtui's own
