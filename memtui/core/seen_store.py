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
root (:func:`~memtui.core.safepath.check_stored_path`; others are quarantined and named), an
object name must be 64 hex digits, a copy must decompress to at most :data:`COPY_LIMIT` bytes
with the hash of its name, and nothing under the store is opened through a symlink.  An in-root
store is written through the writer's side-file API (:func:`memtui.core.txn.write_side_file`,
under the root's lock); a cache store by the same recipe here (exclusive temp file with an
unpredictable name, fsync, ``os.replace``) — the root is not written at all.
"""

from __future__ import annotations

import hashlib
import json
import os
import secrets
import zlib
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ContextManager, Mapping

from .safepath import UnsafePath, check_private_dir, check_stored_path, open_nofollow

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
    """Whether a stored path is a plain relative path inside the root (the writer's one check)."""
    try:
        check_stored_path(path)
    except UnsafePath:
        return False
    return True


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
    if loc.in_root:
        try:
            check_private_dir(loc.root, f"{SEEN_DIR}/{OBJECTS_DIR}")
        except UnsafePath as exc:
            raise SeenError(str(exc)) from None
        return
    for part in (loc.folder, loc.folder / OBJECTS_DIR):
        if os.path.islink(part):
            raise SeenError(f"{part} is a symlink; memtui does not follow symlinks in its own folders")


def _read_nofollow(path: Path, limit: int) -> bytes | None:
    """A file's bytes (at most ``limit``), never through a symlink; ``None`` when absent."""
    try:
        fd = open_nofollow(path)
    except FileNotFoundError:
        return None
    except UnsafePath as exc:
        raise SeenError(f"{path}: {exc}") from None
    except OSError as exc:
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
    """Create a cache store folder (private under the cache) and its parents; the store's own
    folders are never reached through a symlink."""
    current = Path(folder.anchor)
    for part in folder.parts[1:]:
        current = current / part
        if os.path.islink(current) and current.is_relative_to(loc.folder):
            raise SeenError(f"{current} is a symlink; memtui does not follow it")
        if not current.is_dir():
            os.mkdir(current, 0o700 if current.is_relative_to(cache_dir()) else 0o755)


def _write(loc: Location, name: str, data: bytes) -> None:
    """Write one store file (``name`` relative to the store folder) atomically."""
    if loc.in_root:
        from .txn import TxnError, write_side_file

        try:
            write_side_file(loc.root, f"{SEEN_DIR}/{name}", data)
        except TxnError as exc:  # busy, a symlink on the way, a read-only disk
            raise SeenError(str(exc)) from None
        return
    folder, _, base = (loc.folder / name).as_posix().rpartition("/")
    _write_cache_file(Path(folder), base, data)


def _write_cache_file(folder: Path, name: str, data: bytes) -> None:
    """Write ``folder/name`` in the user's cache: exclusive temp file (unpredictable name), fsync,
    replace."""
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
        if not loc.in_root:
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
                _write(loc, f"{OBJECTS_DIR}/{digest}.z", packed)
            kept.add(digest)
            used += packed_size
        state = {
            "version": 1,
            "journal_seq": journal_seq,
            "seeded": seeded,
            "files": {path: {"sha256": d, "size": s, "copy": d in kept}
                      for path, (d, s) in sorted(files.items())},
        }
        _write(loc, STATE_FILE, json.dumps(state, ensure_ascii=False).encode("utf-8"))
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
