"""Load a memory root from disk into a :class:`Snapshot` — one scan, no subprocess.

Rules of the scan (DESIGN §1.1): dotfiles and dot-folders are invisible; ``MEMORY.md`` and
``MEMORY-archive.md`` at the root are the indexes; a sub-folder holding its own ``MEMORY.md`` is
another root and is not entered; ``*.md`` files are memory files and anything else is listed as an
"other file".  Symlinks are followed only when they stay inside the root; symlinked folders are
never entered (no loops), and nothing outside the root is ever read.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from .frontmatter import parse_frontmatter
from .index import parse_index
from .model import (
    ARCHIVE_INDEX_NAME,
    INDEX_NAME,
    BudgetConfig,
    Index,
    MemoryFile,
    Skipped,
    Snapshot,
    decode_bytes,
)

MAX_READ_BYTES = 64 * 1024 * 1024


class RootError(Exception):
    """A path that cannot be loaded as a memory root (missing, a file, unreadable)."""


def _within(path: str, root_real: str) -> bool:
    return path == root_real or path.startswith(root_real.rstrip(os.sep) + os.sep)


def read_memory_file(abs_path: str, rel: str, st: os.stat_result | None = None) -> MemoryFile:
    """Read one memory file (the bytes, its frontmatter, size, mtime and mode)."""
    with open(abs_path, "rb") as handle:
        if st is None:
            st = os.fstat(handle.fileno())
        data = handle.read(MAX_READ_BYTES + 1)
    text = decode_bytes(data)
    fm = parse_frontmatter(text)
    return MemoryFile(
        path=rel,
        size=len(data),
        mtime=st.st_mtime,
        text=text,
        frontmatter=fm,
        mode=stat.S_IMODE(st.st_mode),
    )


def check_root(root: Path) -> Path:
    """The absolute root path, or :class:`RootError` saying why it cannot be a root."""
    try:
        st = root.stat()
    except FileNotFoundError:
        raise RootError(f"{root}: no such folder") from None
    except PermissionError:
        raise RootError(f"{root}: permission denied") from None
    except OSError as exc:
        raise RootError(f"{root}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise RootError(f"{root}: is a file, not a memory folder")
    if not os.access(root, os.R_OK | os.X_OK):
        raise RootError(f"{root}: permission denied")
    return root.absolute()


def load_root(root: Path | str, config: BudgetConfig = BudgetConfig()) -> Snapshot:
    """Read a memory root.  Raises :class:`RootError` when the folder cannot be read at all."""
    root_path = check_root(Path(root))
    root_real = os.path.realpath(root_path)
    files: dict[str, MemoryFile] = {}
    other: list[str] = []
    nested: list[str] = []
    skipped: list[Skipped] = []
    outside: set[str] = set()
    index_data: bytes | None = None
    archive_data: bytes | None = None
    archive_name = ARCHIVE_INDEX_NAME

    stack: list[tuple[str, str]] = [(str(root_path), "")]
    while stack:
        folder, prefix = stack.pop()
        try:
            with os.scandir(folder) as it:
                entries = sorted(it, key=lambda e: e.name)
        except OSError as exc:
            skipped.append(Skipped(prefix.rstrip("/") or ".", f"cannot list folder: {exc.strerror}"))
            continue
        if prefix and any(e.name == INDEX_NAME for e in entries):
            nested.append(prefix.rstrip("/"))
            continue
        for entry in entries:
            name = entry.name
            if name.startswith("."):
                continue
            rel = prefix + name
            try:
                is_link = entry.is_symlink()
                if is_link:
                    real = os.path.realpath(entry.path)
                    if not _within(real, root_real):
                        outside.add(rel)
                        skipped.append(Skipped(rel, "symlink leading outside the root; not read"))
                        continue
                    if os.path.isdir(real):
                        skipped.append(Skipped(rel, "symlinked folder; not entered"))
                        continue
                if entry.is_dir(follow_symlinks=False):
                    stack.append((entry.path, rel + "/"))
                    continue
                if not entry.is_file():
                    if not is_link:
                        other.append(rel)
                    else:
                        skipped.append(Skipped(rel, "broken symlink"))
                    continue
                if not prefix and name == INDEX_NAME:
                    index_data = _read_bytes(entry.path)
                    continue
                if not prefix and name.lower() == ARCHIVE_INDEX_NAME.lower():
                    archive_data = _read_bytes(entry.path)
                    archive_name = name
                    continue
                if not name.lower().endswith(".md"):
                    other.append(rel)
                    continue
                st = entry.stat()
                if st.st_size > MAX_READ_BYTES:
                    skipped.append(Skipped(rel, f"{st.st_size:,} bytes; too large to read"))
                    continue
                files[rel] = read_memory_file(entry.path, rel, st)
            except OSError as exc:
                skipped.append(Skipped(rel, f"cannot read: {exc.strerror or exc}"))

    exists = files.__contains__
    if index_data is not None:
        index = parse_index(index_data, INDEX_NAME, exists)
    else:
        index = Index(path=INDEX_NAME, exists=False)
    if archive_data is not None:
        archive_index = parse_index(archive_data, archive_name, exists)
    else:
        archive_index = Index(path=ARCHIVE_INDEX_NAME, exists=False)
    return Snapshot(
        root=root_path,
        index=index,
        archive_index=archive_index,
        files=dict(sorted(files.items())),
        other_files=tuple(sorted(other)),
        nested_roots=tuple(sorted(nested)),
        skipped=tuple(sorted(skipped, key=lambda s: s.path)),
        outside=frozenset(outside),
        config=config,
    )


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as handle:
        return handle.read(MAX_READ_BYTES + 1)
