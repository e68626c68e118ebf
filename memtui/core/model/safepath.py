"""Checks for what memtui reads back from disk-stored state: a memory folder may be hostile.

Memory folders travel (a repository's committed ``memory/``, a teammate's copy), and with them
``.memtui/`` — the journal, the attic, rejected pairs, the seen store, caches.  Nothing read from
there is trusted: every path is checked by :func:`check_stored_path` before any use, every mode
by :func:`clamp_mode`, and ``.memtui/`` and everything in it is opened without following a
symlink (:func:`check_private_dir`, :func:`read_private_file`).  Pure checks and reads only; the
writes live in :mod:`memtui.core.write`.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path
from typing import Iterator

MEMTUI_DIR = ".memtui"
ATTIC_PREFIX = ".memtui/attic/"
PRESSURE_LOG = ".memory-pressure.jsonl"

#: permission bits a stored mode may keep: never setuid, setgid, sticky, group/other write or
#: execute on a file (files are Markdown), never more open than ``0o755`` on a folder
FILE_MODE_MAX = 0o644
FOLDER_MODE_MAX = 0o755


class UnsafePath(ValueError):
    """A path (or mode) from stored state that memtui will not use; the message says why."""


def check_stored_path(value: object, *, attic: bool = False, folder: bool = False) -> str:
    """Return ``value`` if it is a plain relative path inside the root, else raise :class:`UnsafePath`.

    Plain means: a non-empty ``str`` with ``/`` separators, not absolute, no backslash, no NUL,
    no empty, ``.`` or ``..`` part, and no hidden (dot) part — memory is never hidden.  With
    ``attic`` a path under ``.memtui/attic/`` is also accepted (where undo puts back created
    files); with ``folder`` too, the folders ``.memtui`` and ``.memtui/attic`` themselves.  Use it
    on every path read from the journal, the attic, rejected pairs, the seen store or a cache.
    """
    if not isinstance(value, str) or not value:
        raise UnsafePath(f"{value!r} is not a path")
    shown = value.encode("unicode_escape").decode("ascii")[:120]
    if value.startswith("/") or "\\" in value or "\0" in value:
        raise UnsafePath(f"'{shown}' is not a plain path inside the root")
    rest = value
    if attic and folder and value in (MEMTUI_DIR, ATTIC_PREFIX.rstrip("/")):
        return value
    if attic and value.startswith(ATTIC_PREFIX):
        rest = value[len(ATTIC_PREFIX):]
    parts = rest.split("/")
    if any(part in ("", ".", "..") for part in parts):
        raise UnsafePath(f"'{shown}' is not a plain path inside the root")
    if any(part.startswith(".") for part in parts):
        raise UnsafePath(f"'{shown}' is hidden; memory is never a dot-file")
    return value


def check_side_file(rel: str) -> str:
    """Return ``rel`` if it names one of memtui's bookkeeping files, else raise :class:`UnsafePath`.

    Those are the pressure log ``.memory-pressure.jsonl`` and plain paths under ``.memtui/``
    (``rejected.json``, the seen store, caches) — never a memory file, never outside the root.
    """
    if rel == PRESSURE_LOG:
        return rel
    parts = rel.split("/") if isinstance(rel, str) else []
    if (len(parts) < 2 or parts[0] != MEMTUI_DIR or "\\" in rel or "\0" in rel
            or any(part in ("", ".", "..") for part in parts)):
        raise UnsafePath(f"{rel!r} is not a memtui bookkeeping file (.memtui/… or {PRESSURE_LOG})")
    return rel


def clamp_mode(value: object, folder: bool = False) -> int:
    """A stored mode made harmless: permission bits only, at most ``0o644`` (``0o755`` for folders)."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise UnsafePath(f"{value!r} is not a file mode")
    return value & (FOLDER_MODE_MAX if folder else FILE_MODE_MAX)


def symlinked_parent(root: Path | str, rel: str) -> str | None:
    """The first folder above ``rel`` that is a symlink or not a folder (``lstat``), or ``None``.

    A missing folder is fine (it would be created); ``rel`` itself is not looked at.
    """
    try:
        for folder, st in _lstat_down(root, rel.split("/")[:-1]):
            if st is None:
                return None
            if not stat.S_ISDIR(st.st_mode):
                return folder
    except OSError:  # cannot look (permission denied …): as unsafe as a symlink
        return rel.rpartition("/")[0]
    return None


def _lstat_down(root: Path | str, parts: list[str]) -> Iterator[tuple[str, os.stat_result | None]]:
    """Each path from ``parts[0]`` down to all of ``parts`` with its ``lstat`` (None once missing)."""
    for i in range(len(parts)):
        part = "/".join(parts[: i + 1])
        try:
            yield part, os.lstat(os.path.join(root, *parts[: i + 1]))
        except FileNotFoundError:
            yield part, None
            return


def check_private_dir(root: Path | str, rel: str) -> bool:
    """Whether ``<root>/<rel>`` (a folder under ``.memtui/``) exists, checked without following symlinks.

    Every part from ``.memtui`` down is looked at with ``lstat``: a symlink or a non-folder raises
    :class:`UnsafePath` naming it, so nothing under ``.memtui/`` is ever reached through a link.
    """
    for part, st in _lstat_down(root, rel.split("/")):
        if st is None:
            return False
        if stat.S_ISLNK(st.st_mode):
            raise UnsafePath(
                f"'{part}' is a symlink; memtui never follows a symlink under {MEMTUI_DIR}/ (it "
                f"could lead outside the folder) — remove the link (or replace it by a real "
                "folder) and try again")
        if not stat.S_ISDIR(st.st_mode):
            raise UnsafePath(f"'{part}' is not a folder; move it aside and try again")
    return True


def open_nofollow(path: Path | str, flags: int = os.O_RDONLY, mode: int = 0o600) -> int:
    """``os.open`` that refuses a symlink at ``path`` and anything but a regular file.

    Raises :class:`UnsafePath` for a symlink, FIFO, device or folder (opened non-blocking, so a
    FIFO cannot hang memtui), :class:`OSError` otherwise.
    """
    try:
        fd = os.open(path, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, mode)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise UnsafePath(f"'{os.path.basename(path)}' is a symlink; memtui does not follow it "
                             "— remove it and try again") from None
        raise
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        raise UnsafePath(f"'{os.path.basename(path)}' is not a regular file; move it aside")
    return fd


def read_private_file(root: Path | str, rel: str, limit: int = 64 * 1024 * 1024) -> bytes:
    """The bytes of a bookkeeping file, read without following any symlink on the way.

    :class:`FileNotFoundError` when it is absent; :class:`UnsafePath` when a part of its path
    is a symlink, or it is not a regular file, or it is larger than ``limit``.
    """
    folder = rel.rpartition("/")[0]
    if folder and not check_private_dir(root, folder):
        raise FileNotFoundError(errno.ENOENT, os.strerror(errno.ENOENT), rel)
    fd = open_nofollow(os.path.join(root, *rel.split("/")))
    try:
        if os.fstat(fd).st_size > limit:
            raise UnsafePath(f"'{rel}' is larger than {limit:,} bytes; move it aside")
        return read_to_end(fd)
    finally:
        os.close(fd)


def read_to_end(fd: int) -> bytes:
    """Everything left to read from an open file, a megabyte at a time."""
    chunks = []
    while True:
        chunk = os.read(fd, 1 << 20)
        if not chunk:
            break
        chunks.append(chunk)
    return b"".join(chunks)
