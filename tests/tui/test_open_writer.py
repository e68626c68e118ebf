"""The watcher notices a program still writing to a MEMORY.md that memtui (or anyone) replaced."""

from __future__ import annotations

import os
from pathlib import Path

import pytest
from textual.message import Message
from textual.notifications import Notify

from memtui.core import write
from memtui.core.read.store import load_root
from memtui.core.verbs import lifecycle as verbs
from memtui.services.watch import OpenWriter, index_identity, index_replaced
from tests.support.app import RECENT_FIRST, focus_recent, make_app, press, settle

pytestmark = pytest.mark.skipif(not os.path.isdir("/proc/self/fdinfo"), reason="reads /proc (Linux)")

ME = OpenWriter(os.getpid(), Path("/proc/self/comm").read_text().strip())


def _pin(root: Path) -> None:
    """Pin a file through the core: the index is replaced by a new file (an atomic rename)."""
    snapshot = load_root(root)
    write.commit(write.plan(snapshot, verbs.pin(snapshot, RECENT_FIRST)))


def test_a_program_writing_to_the_replaced_index_is_found(demo_root: Path) -> None:
    index = demo_root / "MEMORY.md"
    known = index_identity(demo_root)
    with open(index, "a", encoding="utf-8") as handle:
        _pin(demo_root)
        identity, writers = index_replaced(demo_root, known)
        assert identity == index_identity(demo_root) != known
        assert writers == (ME,)
        handle.write("- [Late](late.md) — written after the replace\n")
        handle.flush()
    assert "late.md" not in index.read_text(encoding="utf-8")  # the loss the warning is about
    assert index_replaced(demo_root, known) == (identity, ())  # closed: nobody writes to it now


def test_readers_and_writers_of_the_current_index_are_not_reported(demo_root: Path) -> None:
    index = demo_root / "MEMORY.md"
    known = index_identity(demo_root)
    with open(index, encoding="utf-8"):
        _pin(demo_root)
        assert index_replaced(demo_root, known)[1] == ()  # a reader of the old file loses nothing
    current = index_identity(demo_root)
    with open(index, "a", encoding="utf-8"):
        assert index_replaced(demo_root, current) == (current, ())  # not replaced: no look at all


def test_without_proc_nothing_is_found_and_nothing_fails(demo_root: Path, tmp_path: Path) -> None:
    known = index_identity(demo_root)
    with open(demo_root / "MEMORY.md", "a", encoding="utf-8"):
        _pin(demo_root)
        identity, writers = index_replaced(demo_root, known, proc=str(tmp_path / "no-proc"))
    assert identity != known and writers == ()


def _notes(posted: list[Message]) -> list[tuple[str, str]]:
    return [(str(m.notification.message), m.notification.severity)
            for m in posted if isinstance(m, Notify) and "old MEMORY.md" in str(m.notification.message)]


async def test_the_app_warns_once_when_its_change_strands_a_writer(demo_root: Path) -> None:
    posted: list[Message] = []
    app = make_app(demo_root)  # no timer: the test polls when the timer would
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        with open(demo_root / "MEMORY.md", "a", encoding="utf-8"):
            await focus_recent(pilot)
            await press(pilot, "p")  # the app's pin replaces MEMORY.md
            app.poll_folder()
            await settle(pilot)
            app.poll_folder()  # the same replace is not reported twice
            await settle(pilot)
        assert _notes(posted) == [(
            f"a program still writes to the old MEMORY.md (pid {ME.pid}, {ME.name}) — its writes "
            "after memtui's change will be lost; close it and re-open the file", "warning")]


async def test_the_app_warns_when_another_program_replaced_the_index(demo_root: Path) -> None:
    posted: list[Message] = []
    app = make_app(demo_root)
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        index = demo_root / "MEMORY.md"
        with open(index, "a", encoding="utf-8"):
            fresh = demo_root / "MEMORY.md.new"
            fresh.write_text(index.read_text(encoding="utf-8") + "\n", encoding="utf-8")
            os.replace(fresh, index)
            app.poll_folder()
            await settle(pilot)
        [(text, severity)] = _notes(posted)
        assert severity == "warning" and f"(pid {ME.pid}, " in text
        assert "its writes since MEMORY.md was replaced will be lost" in text
        assert [m for m in posted if isinstance(m, app.FolderChanged)]
