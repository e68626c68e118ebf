"""Where the inbox keeps what memtui has seen of a root: hashes and small compressed copies.

Layout (``<root>/.memtui/seen/``, or for a root memtui cannot write, a folder per root under
the user's cache: ``$MEMTUI_CACHE_DIR``, else ``$XDG_CACHE_HOME/memtui``, else
``~/.cache/memtui``, then ``seen/<hash of the root's real path>``):

- ``state.json`` — ``{"version": 2, "journal_seq", "seeded", "files": {path: {"sha256", "size",
  "copy"}}, "pack", "copies"}``: every tracked file's hash, and whether a copy is kept;
- ``copies-<random>.pack`` — zlib-compressed copies of file bytes, one after the other, each
  found by its hash through ``state.json``'s ``"copies": {sha256: [offset, length]}`` (a
  renamed file costs nothing); only files up to :data:`COPY_LIMIT` bytes get one, and only while
  all copies together stay under :data:`STORE_CAP` compressed bytes (smallest files first; the
  rest are kept by hash only).  Every save writes a new pack holding just the copies the new
  state refers to, then the state naming it, then removes the old pack: two files written per
  save, however many files the root holds.

Everything read back is distrusted (DESIGN §3): a path must be a plain relative path inside the
root (:func:`~memtui.core.model.safepath.check_stored_path`; others are quarantined and named), a pack
name must match ``copies-<16 hex>.pack``, a copy must decompress to at most :data:`COPY_LIMIT`
bytes with the hash it is stored under, and nothing under the store is opened through a symlink.  An in-root
store is written through the writer's side-file API (:func:`memtui.core.write.write_side_file`,
under the root's lock); a cache store by the same recipe (:func:`memtui.core.write.replace_file`:
exclusive temp file with an unpredictable name, fsync, ``os.replace``) — the root is not written at all.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import secrets
import zlib
from contextlib import nullcontext
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, ContextManager, Iterable, Mapping

from .. import write
from ..model.places import usable_cache_folder, user_cache_dir
from ..model.safepath import UnsafePath, check_private_dir, check_stored_path, open_nofollow

COPY_LIMIT = 1 << 20  # files up to 1 MiB get a copy
MAX_TRACKED = 100_000  # files one baseline tracks at most: a store holding more is refused
STATE_LIMIT = 64 << 20  # state.json's size at most (MAX_TRACKED entries take about 15 MiB)
STORE_CAP = 32 << 20  # all copies together, compressed
SEEN_DIR = ".memtui/seen"
STATE_FILE = "state.json"
_HEX = frozenset("0123456789abcdef")
_PACK = re.compile(r"^copies-[0-9a-f]{16}\.pack$")
_PACKED_MAX = COPY_LIMIT + (1 << 16)  # zlib never grows 1 MiB by more than this


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
    pack: str = ""  # the pack file holding the copies ("" when none)
    copies: Mapping[str, tuple[int, int]] = field(default_factory=dict)  # sha256 -> (offset, length)


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
    """The user's cache folder for memtui (a relative ``XDG_CACHE_HOME`` is ignored)."""
    return user_cache_dir()


def _may_write(path: Path) -> bool:
    """Whether memtui may write in a folder: a write bit set (whoever runs memtui, root too) and
    write access."""
    try:
        mode = os.lstat(path).st_mode
    except OSError:
        return False
    return bool(mode & 0o222) and os.access(path, os.W_OK)


def root_writable(root: Path) -> bool:
    """Whether memtui may keep its store inside the root (the folder and any ``.memtui`` writable)."""
    memtui = root / ".memtui"
    return _may_write(root) and (not os.path.lexists(memtui) or _may_write(memtui))


@dataclass(frozen=True)
class Location:
    """Where one root's seen store lives."""

    root: Path
    folder: Path
    in_root: bool

    def lock(self) -> ContextManager[object]:
        """The root's lock over the store's files for an in-root store; nothing for a cache store."""
        if self.in_root:
            return write.side_files(self.root)
        return nullcontext()


def location(root: Path, in_root: bool | None = None, *, create_in_root: bool = True) -> Location:
    """The store of ``root``: inside it when it can be written, else in the user's cache.

    An existing store is used where it is: the one in the root (when it can be written), else one
    in the cache.  With none yet, a new one goes into the root only when ``create_in_root``
    (a look that changes nothing else, ``memtui changes``, creates nothing in the root: DESIGN
    §1.6).
    """
    root = Path(root).absolute()
    key = sha256(os.path.realpath(root).encode("utf-8", "surrogateescape"))[:32]
    cached = Location(root, cache_dir() / "seen" / key, False)
    if in_root is None:
        in_root = root_writable(root) and (
            os.path.lexists(root / SEEN_DIR)
            or (create_in_root and not os.path.lexists(cached.folder / STATE_FILE)))
    if in_root:
        return Location(root, root / SEEN_DIR, True)
    return cached


def _refuse_symlinks(loc: Location) -> None:
    """Refuse a store reached through a symlink (``.memtui`` or ``seen``)."""
    if loc.in_root:
        try:
            check_private_dir(loc.root, SEEN_DIR)
        except UnsafePath as exc:
            raise SeenError(str(exc)) from None
        return
    for folder in (cache_dir(), cache_dir() / "seen", loc.folder):
        if os.path.islink(folder):
            raise SeenError(f"{folder} is a symlink; memtui does not follow symlinks in its own folders")
    if not usable_cache_folder(loc.folder, os.path.realpath(loc.root)):
        raise SeenError(f"{loc.folder} lies inside a memory folder; memtui keeps nothing of "
                        "one root inside another — set MEMTUI_CACHE_DIR elsewhere")


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


def _on_disk_name(path: str) -> bool:
    """Whether a stored path is a name a file can have (its bytes, ``surrogateescape``)."""
    try:
        path.encode("utf-8", "surrogateescape")
    except UnicodeEncodeError:
        return False
    return True


def load_state(loc: Location) -> SeenState | None:
    """The stored baseline (``None`` when there is none); bad entries are quarantined."""
    _refuse_symlinks(loc)
    data = _read_nofollow(loc.folder / STATE_FILE, STATE_LIMIT)
    if data is None:
        return None
    if len(data) > STATE_LIMIT:
        raise SeenError(f"{loc.folder / STATE_FILE} is over {STATE_LIMIT >> 20} MiB, more than memtui "
                        "ever stores; move it aside to start a new baseline")
    try:
        value = json.loads(data.decode("utf-8", "surrogateescape"))  # names as they are on disk
        if not isinstance(value, dict) or not isinstance(value.get("files"), dict):
            raise ValueError("not a seen-store state")
    except (ValueError, UnicodeDecodeError) as exc:
        raise SeenError(f"{loc.folder / STATE_FILE} is damaged ({exc}); move it aside to start "
                        "a new baseline") from None
    if len(value["files"]) > MAX_TRACKED:
        raise SeenError(f"{loc.folder / STATE_FILE} tracks {len(value['files']):,} files, more than "
                        f"the {MAX_TRACKED:,} memtui keeps; move it aside to start a new baseline")
    files: dict[str, Seen] = {}
    quarantined: list[str] = []
    for path, item in value["files"].items():
        try:
            digest, size, copy = str(item["sha256"]), int(item["size"]), bool(item.get("copy", False))
        except (KeyError, TypeError, ValueError):
            quarantined.append(str(path)[:200])
            continue
        if (not plain_relative(path) or not _on_disk_name(path) or len(digest) != 64
                or not set(digest) <= _HEX or size < 0):
            quarantined.append(str(path)[:200])
            continue
        files[path] = Seen(digest, size, copy)
    try:
        seq = max(0, int(value.get("journal_seq", 0)))
    except (TypeError, ValueError):
        seq = 0
    pack = value.get("pack")
    copies: dict[str, tuple[int, int]] = {}
    if isinstance(pack, str) and _PACK.match(pack) and isinstance(value.get("copies"), dict):
        for digest, where in value["copies"].items():
            try:
                offset, length = int(where[0]), int(where[1])
            except (TypeError, ValueError, IndexError, KeyError):
                continue
            if len(digest) == 64 and set(digest) <= _HEX and offset >= 0 and 0 < length <= _PACKED_MAX:
                copies[digest] = (offset, length)
    else:
        pack = ""
    return SeenState(files, seq, str(value.get("seeded", "")), tuple(quarantined), pack, copies)


def _packed(loc: Location, state: SeenState, digests: Iterable[str]) -> dict[str, bytes]:
    """The packed (compressed) bytes of the copies with these hashes, read in one open."""
    wanted = [(state.copies[d], d) for d in set(digests) if d in state.copies]
    if not wanted or not state.pack:
        return {}
    try:
        fd = open_nofollow(loc.folder / state.pack)
    except FileNotFoundError:
        return {}
    except (UnsafePath, OSError) as exc:
        raise SeenError(f"{loc.folder / state.pack}: {exc}") from None
    try:
        return {digest: os.pread(fd, length, offset) for (offset, length), digest in sorted(wanted)}
    finally:
        os.close(fd)


def _inflate(packed: bytes, digest: str) -> bytes | None:
    """A copy decompressed, if it is at most :data:`COPY_LIMIT` bytes with the hash ``digest``."""
    try:
        inflate = zlib.decompressobj()
        data = inflate.decompress(packed, COPY_LIMIT + 1)
    except zlib.error:
        return None
    if len(data) > COPY_LIMIT or inflate.unconsumed_tail or sha256(data) != digest:
        return None
    return data


def read_copies(loc: Location, state: SeenState, digests: Iterable[str]) -> dict[str, bytes]:
    """The kept copies of the bytes with these hashes (absent ones, or ones that are not what
    they claim, are left out)."""
    out = {}
    for digest, packed in _packed(loc, state, digests).items():
        data = _inflate(packed, digest)
        if data is not None:
            out[digest] = data
    return out


def _packs_on_disk(loc: Location) -> dict[str, int]:
    """Pack files in the store folder and their sizes."""
    try:
        names = os.listdir(loc.folder)
    except OSError:
        return {}
    out: dict[str, int] = {}
    for name in names:
        if _PACK.match(name):
            try:
                out[name] = os.lstat(loc.folder / name).st_size
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
        try:
            write.write_side_file(loc.root, f"{SEEN_DIR}/{name}", data)
        except write.TxnError as exc:  # busy, a symlink on the way, a read-only disk
            raise SeenError(str(exc)) from None
        return
    folder, _, base = (loc.folder / name).as_posix().rpartition("/")
    write.replace_file(folder, base, data, sync=True)  # the folder: made by save_state's _ensure_folder


def _remove(loc: Location, name: str) -> None:
    """Remove one store file (an old pack); best effort — a pack left behind is only space."""
    try:
        if loc.in_root:
            write.remove_side_file(loc.root, f"{SEEN_DIR}/{name}")
        else:
            os.unlink(loc.folder / name)
    except (write.TxnError, OSError):
        pass


#: a temp file a save left behind when it was cut off (this module's, or the writer's side file)
_TEMP = re.compile(r"^\.(state\.json|copies-[0-9a-f]{16}\.pack)\.(side\.)?[0-9a-f]{16}\.tmp$")
STALE_TEMP_S = 600  # a cache store has no lock: another save's temp file is younger than this


def _remove_stale_temps(loc: Location) -> None:
    """Remove the temp files of saves that were cut off (a crash; up to a pack's size each): all
    of them in an in-root store (its saves hold the root's lock), those older than
    :data:`STALE_TEMP_S` in a cache store."""
    try:
        names = [n for n in os.listdir(loc.folder) if _TEMP.match(n)]
    except OSError:
        return
    if not names:
        return
    import time

    limit = time.time() - STALE_TEMP_S
    for name in names:
        try:
            if loc.in_root or os.lstat(loc.folder / name).st_mtime < limit:
                _remove(loc, name)
        except OSError:
            pass


def save_state(loc: Location, files: Mapping[str, tuple[str, int]], blobs: Mapping[str, bytes],
               journal_seq: int, seeded: str, cap: int | None = None) -> SeenState:
    """Store a baseline: ``files`` maps path → (hash, size); ``blobs`` holds bytes by hash for
    copies not stored yet.  Copies go to the smallest files first while the total stays under
    ``cap`` (default :data:`STORE_CAP`); a new pack holds exactly those, the old one goes.
    Returns the state as stored."""
    cap = STORE_CAP if cap is None else cap
    if len(files) > MAX_TRACKED:
        raise SeenError(f"{loc.root} holds {len(files):,} files, more than the {MAX_TRACKED:,} the "
                        "inbox tracks")
    _refuse_symlinks(loc)
    with loc.lock():
        if not loc.in_root:
            _ensure_folder(loc, loc.folder)
        previous = load_state(loc)
        sizes = {digest: size for digest, size in files.values()}
        small = [d for d in sorted(sizes, key=lambda d: (sizes[d], d)) if sizes[d] <= COPY_LIMIT]
        old = _packed(loc, previous, small) if previous is not None else {}
        pack = bytearray()
        copies: dict[str, tuple[int, int]] = {}
        for digest in small:
            packed = old.get(digest)
            if packed is None or _inflate(packed, digest) is None:
                data = blobs.get(digest)
                if data is None:
                    continue  # seen by hash only before; its bytes are gone
                packed = zlib.compress(data, 6)
            if len(pack) + len(packed) > cap:
                continue
            copies[digest] = (len(pack), len(packed))
            pack += packed
        name = f"copies-{secrets.token_hex(8)}.pack" if copies else ""
        if name:
            _write(loc, name, bytes(pack))
        state = {
            "version": 2,
            "journal_seq": journal_seq,
            "seeded": seeded,
            "files": {path: {"sha256": d, "size": s, "copy": d in copies}
                      for path, (d, s) in sorted(files.items())},
            "pack": name,
            "copies": {d: list(where) for d, where in copies.items()},
        }
        # a name that is not UTF-8 is stored as its bytes (read back with surrogateescape)
        _write(loc, STATE_FILE, json.dumps(state, ensure_ascii=False).encode("utf-8", "surrogateescape"))
        for other in _packs_on_disk(loc):
            if other != name:
                _remove(loc, other)
        _remove_stale_temps(loc)
    return SeenState({p: Seen(d, s, d in copies) for p, (d, s) in files.items()}, journal_seq, seeded,
                     (), name, copies)


def store_size(loc: Location) -> int:
    """Bytes the store's copies take on disk (compressed)."""
    return sum(_packs_on_disk(loc).values())


def describe(value: Any) -> str:
    """A store folder for people (``~`` for the home folder)."""
    text = str(value)
    home = str(Path.home())
    return "~" + text[len(home):] if text.startswith(home + os.sep) else text
