"""Noticing that a root changed on disk (the agent wrote memory): a cheap fingerprint of its files."""

from __future__ import annotations

import os
from pathlib import Path

from memtui.core.model import INDEX_NAME


def fingerprint(root: Path | str) -> int:
    """A hash of every memory file's path, size and modification time (dot-folders skipped).

    Nested roots are not entered, as the loader does not enter them.  A folder that cannot be
    listed simply contributes nothing, so a vanished root reads as a change, never an error.
    """
    items: list[tuple[str, int, int]] = []
    stack = [(str(root), "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = list(it)
        except OSError:
            continue
        if prefix and any(e.name == INDEX_NAME for e in entries):
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            try:
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, prefix + name + "/"))
                elif name.lower().endswith(".md"):
                    st = entry.stat()
                    items.append((prefix + name, st.st_size, st.st_mtime_ns))
            except OSError:
                continue
    items.sort()
    return hash(tuple(items))
