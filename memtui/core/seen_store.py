"""Where the inbox keeps what memtui has seen of a root: hashes and small compressed copies.

Layout (``<root>/.memtui/seen/``, or for a root memtui cannot write, a folder per root under
the user's cache: ``$MEMTUI_CACHE_DIR``, else ``$XDG_CACHE_HOME/memtui``, else
``~/.cache/memtui``, then ``seen/<hash of the root's real path>``):

- ``state.json`` — ``{"version": 1, "journal_seq", "seeded", "files": {path: {"sha256", "size",
  "copy"}}}``: every tracked file's hash, and whether a copy is kept;
- ``objects/<sha256>.z`` — a zlib-compressed copy of a file's bytes, content-addressed (a renamed
  file costs nothing), only for files up to :data:`COPY_LIMIT` bytes and only while all copies
  together stay under :data:`STORE_CAP` compressed bytes (smallest files first; the rest are
  kept by hash only).  Objects no state refers to are removed at every save.

Everything read back is distrusted (DESIGN §3): a path must be a plain relative path inside the
root (others are quarantined and named), an object name must be 64 hex digits, a copy must
decompress to at most :data:`COPY_LIMIT` bytes with the hash of its name, and nothing under the
store is opened through a symlink.  Writes go through :func:`write_side_file`, under the root's
lock for an in-root store: an exclusive temp file with an unpredictable name, fsync, then
``os.replace``.
"""

from __future__ import annotations

import errno
import hashlib
import json
import os
import secrets
import zlib
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ContextManager, Mapping

COPY_LIMIT = 1 << 20  # files up to 1 MiB get a copy
STORE_CAP = 32 << 20  # all copies together, compressed
SEEN_DIR = ".memtui/seen"
STATE_FILE = "state.json"
OBJECTS_DIR = "objects"
_HEX = frozenset("0123456789abcdef")


class SeenError(Exception):
    """The seen store cannot be used (a symlink, unreadable); the message says why."""


@dataclass(frozen=True)
class Seen:
    """What memtui saw of one file: its hash and size, and whether a copy is kept."""

    sha256: str
    size: int
    copy: bool = False


@dataclass(frozen=True)
class SeenState:
    """The baseline of one root: each tracked file as last seen, and the journal position."""

    files: Mapping[str, Seen]
    journal_seq: int = 0
    seeded: str = ""
    quarantined: tuple[str, ...] = field(default=(), compare=False)


def sha256(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def plain_relative(path: object) -> bool:
    """Whether a stored path is a plain relative path inside the root (no ``..``, no dot part).

    Local stand-in for the writer's public check of stored paths; same rule as the changeset's.
    """
    if not isinstance(path, str) or not path or "\0" in path or "\\" in path or path.startswith("/"):
        return False
    return all(part not in ("", ".", "..") and not part.startswith(".") for part in path.split("/"))


def cache_dir() -> Path:
    """The user's cache folder for memtui."""
    override = os.environ.get("MEMTUI_CACHE_DIR")
    if override:
        return Path(override).expanduser()
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "memtui"


def root_writable(root: Path) -> bool:
    """Whether memtui may keep its store inside the root (the folder and any ``.memtui`` writable)."""
    memtui = root / ".memtui"
    return os.access(root, os.W_OK) and (not os.path.lexists(memtui) or os.access(memtui, os.W_OK))


@dataclass(frozen=True)
class Location:
    """Where one root's seen store lives."""

    root: Path
    folder: Path
    in_root: bool

    def lock(self) -> ContextManager[None]:
        """The root's writer lock for an in-root store; nothing for a cache store."""
        if self.in_root:
            from .txn import root_lock

            return root_lock(self.root)
        return nullcontext()


def location(root: Path, in_root: bool | None = None) -> Location:
    """The store of ``root``: inside it when it can be written, else in the user's cache."""
    root = Path(root).absolute()
    if in_root is None:
        in_root = root_writable(root)
    if in_root:
        return Location(root, root / SEEN_DIR, True)
    key = sha256(os.path.realpath(root).encode("utf-8", "surrogateescape"))[:32]
    return Location(root, cache_dir() / "seen" / key, False)


def _refuse_symlinks(loc: Location) -> None:
    """Refuse a store reached through a symlink (``.memtui``, ``seen``, ``objects``)."""
    parts = [loc.root / ".memtui", loc.folder, loc.folder / OBJECTS_DIR] if loc.in_root else [
        loc.folder, loc.folder / OBJECTS_DIR]
    for part in parts:
        if os.path.islink(part):
            raise SeenError(f"{part} is a symlink; memtui does not follow symlinks in its own folders")


def _read_nofollow(path: Path, limit: int) -> bytes | None:
    """A file's bytes (at most ``limit``), never through a symlink; ``None`` when absent."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return None
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise SeenError(f"{path} is a symlink; memtui does not follow it") from None
        raise SeenError(f"cannot read {path}: {exc.strerror}") from None
    try:
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    return b"".join(chunks)


def load_state(loc: Location) -> SeenState | None:
    """The stored baseline (``None`` when there is none); bad entries are quarantined."""
    _refuse_symlinks(loc)
    data = _read_nofollow(loc.folder / STATE_FILE, 256 << 20)
    if data is None:
        return None
    try:
        value = json.loads(data.decode("utf-8"))
        if not isinstance(value, dict) or not isinstance(value.get("files"), dict):
            raise ValueError("not a seen-store state")
    except (ValueError, UnicodeDecodeError) as exc:
        raise SeenError(f"{loc.folder / STATE_FILE} is damaged ({exc}); move it aside to start "
                        "a new baseline") from None
    files: dict[str, Seen] = {}
    quarantined: list[str] = []
    for path, item in value["files"].items():
        try:
            digest, size, copy = str(item["sha256"]), int(item["size"]), bool(item.get("copy", False))
        except (KeyError, TypeError, ValueError):
            quarantined.append(str(path)[:200])
            continue
        if not plain_relative(path) or len(digest) != 64 or not set(digest) <= _HEX or size < 0:
            quarantined.append(str(path)[:200])
            continue
        files[path] = Seen(digest, size, copy)
    try:
        seq = max(0, int(value.get("journal_seq", 0)))
    except (TypeError, ValueError):
        seq = 0
    return SeenState(files, seq, str(value.get("seeded", "")), tuple(quarantined))


def read_copy(loc: Location, digest: str) -> bytes | None:
    """The kept copy of the bytes with this hash (``None`` when absent or not what it claims)."""
    if len(digest) != 64 or not set(digest) <= _HEX:
        return None
    packed = _read_nofollow(loc.folder / OBJECTS_DIR / f"{digest}.z", COPY_LIMIT + (1 << 16))
    if packed is None:
        return None
    try:
        inflate = zlib.decompressobj()
        data = inflate.decompress(packed, COPY_LIMIT + 1)
    except zlib.error:
        return None
    if len(data) > COPY_LIMIT or inflate.unconsumed_tail or sha256(data) != digest:
        return None
    return data


def _objects_on_disk(loc: Location) -> dict[str, int]:
    folder = loc.folder / OBJECTS_DIR
    try:
        names = os.listdir(folder)
    except OSError:
        return {}
    out: dict[str, int] = {}
    for name in names:
        digest = name[:-2] if name.endswith(".z") else ""
        if len(digest) == 64 and set(digest) <= _HEX:
            try:
                out[digest] = os.lstat(folder / name).st_size
            except OSError:
                continue
    return out


def _ensure_folder(loc: Location, folder: Path) -> None:
    """Create a store folder (private) and its parents; never through a symlink."""
    if loc.in_root:
        base = loc.root
        rel = folder.relative_to(base).parts
    else:
        base = Path(folder.anchor)
        rel = folder.parts[1:]
    current = base
    for i, part in enumerate(rel):
        current = current / part
        if os.path.islink(current) and (loc.in_root or current.is_relative_to(loc.folder)):
            raise SeenError(f"{current} is a symlink; memtui does not follow it")
        if not current.is_dir():
            private = loc.in_root or current.is_relative_to(cache_dir())
            os.mkdir(current, 0o700 if private else 0o755)


def write_side_file(folder: Path, name: str, data: bytes) -> None:
    """Write ``folder/name`` atomically: an exclusive temp file (unpredictable name), fsync, replace.

    memtui's own bookkeeping (never a memory file); callers hold the root's lock for an in-root
    store.  Stand-in for the writer's side-file API until that is public.
    """
    tmp = folder / f".{name}.{secrets.token_hex(8)}.tmp"
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    try:
        try:
            view = memoryview(data)
            while view:
                view = view[os.write(fd, view):]
            os.fsync(fd)
        finally:
            os.close(fd)
        os.replace(tmp, folder / name)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def save_state(loc: Location, files: Mapping[str, tuple[str, int]], blobs: Mapping[str, bytes],
               journal_seq: int, seeded: str, cap: int | None = None) -> SeenState:
    """Store a baseline: ``files`` maps path → (hash, size); ``blobs`` holds bytes by hash for
    copies not stored yet.  Copies go to the smallest files first while the total stays under
    ``cap`` (default :data:`STORE_CAP`); unreferenced objects are removed.  Returns the state
    as stored."""
    cap = STORE_CAP if cap is None else cap
    _refuse_symlinks(loc)
    with loc.lock():
        _ensure_folder(loc, loc.folder / OBJECTS_DIR)
        objects = loc.folder / OBJECTS_DIR
        on_disk = _objects_on_disk(loc)
        sizes = {digest: size for digest, size in files.values()}
        kept: set[str] = set()
        used = 0
        for digest in sorted(sizes, key=lambda d: (sizes[d], d)):
            if sizes[digest] > COPY_LIMIT:
                continue
            if digest in on_disk:
                packed_size, packed = on_disk[digest], None
            elif digest in blobs:
                packed = zlib.compress(blobs[digest], 6)
                packed_size = len(packed)
            else:
                continue  # seen by hash only before; its bytes are gone
            if used + packed_size > cap:
                continue
            if packed is not None:
                write_side_file(objects, f"{digest}.z", packed)
            kept.add(digest)
            used += packed_size
        state = {
            "version": 1,
            "journal_seq": journal_seq,
            "seeded": seeded,
            "files": {path: {"sha256": d, "size": s, "copy": d in kept}
                      for path, (d, s) in sorted(files.items())},
        }
        write_side_file(loc.folder, STATE_FILE, json.dumps(state, ensure_ascii=False).encode("utf-8"))
        for digest in on_disk:
            if digest not in kept:
                try:
                    os.unlink(objects / f"{digest}.z")
                except OSError:
                    pass
    return SeenState({p: Seen(d, s, d in kept) for p, (d, s) in files.items()}, journal_seq, seeded)


def store_size(loc: Location) -> int:
    """Bytes the store's copies take on disk (compressed)."""
    return sum(_objects_on_disk(loc).values())


def describe(value: Any) -> str:
    """A store folder for people (``~`` for the home folder)."""
    text = str(value)
    home = str(Path.home())
    return "~" + text[len(home):] if text.startswith(home + os.sep) else text
