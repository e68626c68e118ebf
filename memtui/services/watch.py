"""Noticing that a root changed on disk (the agent wrote memory): a cheap fingerprint of its files."""

from __future__ import annotations

from pathlib import Path

from memtui.core.walk import memory_entries


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
