"""What memtui says when things go wrong is said once, in plain words (issue 33, item 6).

A full disk is "the disk is full", never ``[Errno 28] No space left on device``; one recovery
event is one line, not the logger's line and the notice; a hook's bad input (a payload nested
too deep, a file path with a NUL) is bad input, exit 0, never an "internal error"; undoing a
change whose record has no description still says what it undoes.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core import write
from memtui.core.read.store import load_root
from memtui.core.verbs import lifecycle as verbs
from memtui.core.write.fs import disk
from tests.support.hooks import call, pre
from tests.support.roots import MakeRoot
from tests.support.writer import VALID_ROOT, Crash

AGENT = b"- AGENT WROTE THIS AFTER THE CRASH\n"


def _crashed_pin(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A pin of alpha.md cut off after alpha.md was replaced, before MEMORY.md."""
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.pin(snapshot, "alpha.md"))
    original = disk.replace

    def crash(src: str, dst: str) -> None:
        if dst.endswith("MEMORY.md") and src.endswith(".tmp"):
            raise Crash()
        original(src, dst)

    with monkeypatch.context() as patch:
        patch.setattr(disk, "replace", crash)
        with pytest.raises(Crash):
            write.commit(preview)


def test_a_full_disk_after_a_recovery_is_said_in_words(
        make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_root(dict(VALID_ROOT))
    assert main(["changes", str(root)]) == 0  # a first look: the seen store is made
    _crashed_pin(root, monkeypatch)
    capsys.readouterr()
    real = disk.write_tmp

    def full(path: str, data: bytes, mode: int | None) -> None:
        if f"{os.sep}seen{os.sep}" in path:  # the recovery fits; the seen store does not
            raise OSError(errno.ENOSPC, "No space left on device", path)
        real(path, data, mode)

    def full_cache(folder: object, name: str, data: bytes, **_: object) -> None:
        raise OSError(errno.ENOSPC, "No space left on device", f"{folder}/{name}")

    monkeypatch.setattr(disk, "write_tmp", full)  # the store in the root …
    monkeypatch.setattr(write, "replace_file", full_cache)  # … or in the user's cache
    (root / "beta.md").write_text((root / "beta.md").read_text() + "changed outside memtui\n")
    code = main(["changes", "--mark-seen", str(root)])
    err = " ".join(capsys.readouterr().err.split())
    assert code == 2
    assert "the disk is full" in err
    assert "Errno" not in err and "No space left on device" not in err  # before: both


def test_one_recovery_event_is_said_once(make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch) -> None:
    """In a process of its own (pytest catches the ``memtui`` logger's lines in a test)."""
    root = make_root(dict(VALID_ROOT))
    _crashed_pin(root, monkeypatch)
    (root / "alpha.md").write_bytes((root / "alpha.md").read_bytes() + AGENT)  # the agent, after
    done = subprocess.run([sys.executable, "-m", "memtui", "pin", str(root / "beta.md")],
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stderr.count("alpha.md") == 1, done.stderr  # before: the logger's line and the notice
    assert "left alpha.md as another program wrote it" in " ".join(done.stderr.split())


def test_open_root_still_says_what_recovery_left_alone(
        make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    """:func:`write.open_root` hands back only the snapshot: there the logger is the one notice."""
    root = make_root(dict(VALID_ROOT))
    _crashed_pin(root, monkeypatch)
    (root / "alpha.md").write_bytes((root / "alpha.md").read_bytes() + AGENT)
    with caplog.at_level("WARNING", logger="memtui"):
        write.open_root(root)
    assert [r.getMessage().count("left alpha.md") for r in caplog.records] == [1]


def _hook(payload: object | bytes, tmp_path: Path) -> tuple[int, str, str]:
    env = {"HOME": str(tmp_path / "home"), "MEMTUI_CACHE_DIR": str(tmp_path / "cache")}
    return call("pre", payload, env)


def test_a_hook_payload_nested_too_deep_is_bad_input(tmp_path: Path) -> None:
    deep = b'{"tool_input": ' + b"[" * 200_000 + b"]" * 200_000 + b"}"
    code, out, err = _hook(deep, tmp_path)
    assert code == 0 and out == ""  # never blocks
    assert "internal error" not in err  # before: "internal error (RecursionError: …)"
    assert "input is not JSON Claude Code sends" in err and "nested" in err and "nothing checked" in err


def test_a_hook_file_path_with_a_nul_is_bad_input(make_root: MakeRoot, tmp_path: Path) -> None:
    root = make_root(dict(VALID_ROOT))
    payload = pre("Write", f"{root}/alpha\0.md", root, content="x\n")
    code, out, err = _hook(payload, tmp_path)
    assert code == 0 and out == ""
    assert "internal error" not in err  # before: "internal error (ValueError: embedded null byte)"
    assert "tool_input.file_path holds a NUL byte" in err and "nothing checked" in err
    json.dumps(payload)  # the payload itself is valid JSON: only the path is bad


def test_undo_of_a_record_without_a_description_says_what_it_undoes(
        make_root: MakeRoot, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_root(dict(VALID_ROOT))
    journal = root / ".memtui" / "journal"
    journal.mkdir(parents=True)
    (journal / "00000001-do.json").write_text("{}")  # an empty record
    capsys.readouterr()
    assert main(["undo", str(root)]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "undo: " in out
    assert "applied: undo: (" not in out and not out.rstrip().endswith("undo:")  # before: "applied: undo: "
    assert "a change with no description (change 1, no operation)" in out
