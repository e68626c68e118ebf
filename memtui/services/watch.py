"""Noticing that a root changed on disk (the agent wrote memory): a cheap fingerprint of its files.

Also noticing the one loss no rename-based writer can prevent: a program that still holds the
replaced ``MEMORY.md`` open for writing writes into a nameless file (Linux: read from ``/proc``).
"""

from __future__ import annotations

import os
import time
from dataclasses import dataclass
from pathlib import Path

from memtui.core.model.snapshot import INDEX_NAME
from memtui.core.model.walk import memory_entries

#: an index file's identity: (device, inode); None when there is no index
Identity = tuple[int, int] | None
#: seconds a look through ``/proc`` for writers of a replaced index may take, at most
SCAN_BUDGET = 0.25
#: where the open files of every process are listed (absent off Linux: the look is skipped)
PROC = "/proc"


def fingerprint(root: Path | str) -> int:
    """A hash of every memory file's path, size and modification time (dot-folders skipped).

    Nested roots are not entered, as the loader does not enter them.  A folder that cannot be
    listed simply contributes nothing, so a vanished root reads as a change, never an error.
    """
    items: list[tuple[str, int, int]] = []
    for rel, entry in memory_entries(root):
        try:
            st = entry.stat()
        except OSError:
            continue
        items.append((rel, st.st_size, st.st_mtime_ns))
    items.sort()
    return hash(tuple(items))


@dataclass(frozen=True)
class OpenWriter:
    """A process that holds a replaced ``MEMORY.md`` open for writing."""

    pid: int
    name: str


def index_identity(root: Path | str) -> Identity:
    """The root's ``MEMORY.md`` as (device, inode), or None when it cannot be read."""
    try:
        st = os.stat(os.path.join(root, INDEX_NAME))
    except OSError:
        return None
    return (st.st_dev, st.st_ino)


def index_replaced(root: Path | str, known: Identity, *, proc: str = PROC,
                   budget: float = SCAN_BUDGET) -> tuple[Identity, tuple[OpenWriter, ...]]:
    """The index's identity now and, when it is no longer ``known``, who still writes to the old one.

    An atomic replace leaves a program that kept the old file open writing into a nameless file;
    while it is held open its inode cannot be reused, so a changed identity plus an open write
    handle on the old inode is exact.  Only then are ``/proc/*/fd`` read, for ``budget`` seconds at
    most; without ``/proc`` (or where a process's files are not ours to see) nothing is found.
    """
    now = index_identity(root)
    if known is None or now == known:
        return now, ()
    return now, _writers_of(os.path.join(os.path.realpath(root), INDEX_NAME), known, proc, budget)


def _writers_of(path: str, old: tuple[int, int], proc: str, budget: float) -> tuple[OpenWriter, ...]:
    """Processes with a write handle on the file ``old`` that was once at ``path``."""
    try:
        pids = [name for name in os.listdir(proc) if name.isdigit()]
    except OSError:
        return ()
    deadline = time.monotonic() + budget
    found = []
    for pid in pids:
        if time.monotonic() > deadline:
            break
        fds = f"{proc}/{pid}/fd"
        try:
            names = os.listdir(fds)
        except OSError:
            continue
        for fd in names:
            try:  # the link reads "<path> (deleted)" once the file was replaced
                if not os.readlink(f"{fds}/{fd}").startswith(path):
                    continue
                st = os.stat(f"{fds}/{fd}")
            except OSError:
                continue
            if (st.st_dev, st.st_ino) == old and _opened_for_writing(f"{proc}/{pid}/fdinfo/{fd}"):
                found.append(OpenWriter(int(pid), _command(f"{proc}/{pid}")))
                break
    return tuple(found)


def _opened_for_writing(fdinfo: str) -> bool:
    """Whether the ``flags:`` line of a ``/proc/PID/fdinfo/FD`` says write-only or read-write."""
    try:
        with open(fdinfo, encoding="ascii", errors="replace") as handle:
            for line in handle:
                if line.startswith("flags:"):
                    return int(line.split()[1], 8) & os.O_ACCMODE in (os.O_WRONLY, os.O_RDWR)
    except (OSError, ValueError, IndexError):
        pass
    return False


def _command(process: str) -> str:
    """A process's command name (``comm``), or "?" when it is gone."""
    try:
        with open(f"{process}/comm", encoding="utf-8", errors="replace") as handle:
            return handle.read().strip() or "?"
    except OSError:
        return "?"
