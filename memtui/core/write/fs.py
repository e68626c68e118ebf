"""The writer's floor: the filesystem seam, the root's lock, temp files, journal records, side files.

Every filesystem call that changes something goes through :data:`disk` (a :class:`FileSystem`),
so tests can inject a fault at any step.  Only the modules of :mod:`memtui.core.write` use this
module; everyone else goes through :mod:`memtui.core.write` (the face).
"""

from __future__ import annotations

import errno
import fcntl
import json
import os
import re
import stat
import threading
import time
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterable, Iterator

from ..model.journal import (
    JOURNAL_DIR,
    LOCK_FILE,
    MAX_RECORDS,
    PENDING,
    RecordName,
    journal_dir,
    list_records,
    record_file,
)
from ..model.safepath import (
    MEMTUI_DIR,
    UnsafePath,
    check_private_dir,
    check_side_file,
    open_nofollow,
    symlinked_parent,
)
from .errors import Busy, UnsafeFolder, WriteFailed

LOCK_TIMEOUT = 5.0
QUARANTINE_DIR = ".memtui/quarantine"


class FileSystem:
    """Every filesystem call that changes something — one place, so tests can inject faults."""

    def write_tmp(self, path: str, data: bytes, mode: int | None) -> None:
        """Create a new file (a temp file) exclusively, write it completely, set its mode, fsync it.

        ``O_EXCL``: a name that already exists (a planted hard link or symlink) is never opened.
        The file is created ``0o600`` (it may hold a private file's bytes, or a journal record
        of them) and only then given ``mode``; without ``mode`` it stays private.  A file that
        cannot be written whole (a full disk) is removed before the error goes up: what it
        holds is the space the caller's rollback may need."""
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            try:
                write_all(fd, data)
                if mode is not None:
                    os.fchmod(fd, mode)
                os.fsync(fd)
            finally:
                os.close(fd)
        except BaseException:
            try:
                os.unlink(path)
            except OSError:
                pass
            raise

    def replace(self, src: str, dst: str) -> None:
        os.replace(src, dst)

    def link(self, src: str, dst: str) -> None:
        """Give ``src`` a second name ``dst``; fails (``FileExistsError``) if ``dst`` exists."""
        os.link(src, dst, follow_symlinks=False)

    def mkdir(self, path: str) -> None:
        os.mkdir(path)

    def utime(self, path: str, times: tuple[int, int]) -> None:
        """Give a temp file the access and modification times (ns) of the before-image it holds."""
        os.utime(path, ns=times, follow_symlinks=False)

    def fsync_dir(self, path: str) -> None:
        fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY)
        try:
            os.fsync(fd)
        except OSError as exc:  # some file systems cannot fsync a folder
            if exc.errno not in (errno.EINVAL, errno.ENOTSUP):
                raise
        finally:
            os.close(fd)

    def unlink(self, path: str) -> None:
        """Remove one of memtui's own files (a temp file, an old journal record), or the old
        name of a file :func:`move_file` has just linked to its new name."""
        os.unlink(path)

    def rmdir(self, path: str) -> None:
        """Remove an empty folder memtui created for a change it rolled back."""
        os.rmdir(path)


disk = FileSystem()


def write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (``os.write`` may write less than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def read_file(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return b"\0<folder>"


def open_replaced(path: str) -> int | None:
    """A descriptor on the file a write is about to replace (None when there is no regular file
    there): kept across the rename, it still reads the old file, which another program may have
    appended to in between (opened non-blocking: a FIFO cannot hang memtui)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
    except OSError:
        return None
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return fd


def read_fd(fd: int) -> bytes:
    """Every byte of an open file, from the start (whatever its offset)."""
    chunks: list[bytes] = []
    offset = 0
    while True:
        chunk = os.pread(fd, max(os.fstat(fd).st_size - offset, 0) + 1, offset)
        if not chunk:
            return b"".join(chunks)
        chunks.append(chunk)
        offset += len(chunk)


def replace_file(folder: Path | str, name: str, data: bytes, *, mode: int = 0o600, sync: bool = False) -> None:
    """Write ``folder/name`` at once, for a file outside any memory folder (memtui's caches,
    Claude Code's settings): ``folder`` is opened without following a symlink at its last part
    (a caller that means to follow one passes its real path), the bytes go to an exclusively
    created temp file ``.<name>.<16 hex>.tmp`` in it (``mode``), which then replaces ``name``;
    with ``sync``, the temp file before the rename and the folder after it are fsynced.  The
    temp file goes on any failure.  Raises OSError."""
    dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        tmp = f".{name}.{os.urandom(8).hex()}.tmp"
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600,
                     dir_fd=dir_fd)
        try:
            try:
                write_all(fd, data)
                if mode != 0o600:
                    os.fchmod(fd, mode)
                if sync:
                    os.fsync(fd)
            finally:
                os.close(fd)
            os.replace(tmp, name, src_dir_fd=dir_fd, dst_dir_fd=dir_fd)
        except BaseException:
            try:
                os.unlink(tmp, dir_fd=dir_fd)
            except OSError:
                pass
            raise
        if sync:
            try:
                os.fsync(dir_fd)
            except OSError:
                pass  # some file systems cannot fsync a folder; the file itself is synced
    finally:
        os.close(dir_fd)


#: ``link`` errors meaning "this file system has no hard links" (not "the name is taken")
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS})


def move_file(src: str, dst: str) -> None:
    """Move a file to ``dst`` without ever replacing what is there (``FileExistsError`` if taken).

    ``os.replace`` would silently overwrite a file another program created at ``dst`` after
    memtui looked; a hard link fails atomically instead.  The file is linked to its new name,
    then its old name is unlinked (a crash in between leaves two names of one file, which
    :func:`restore_record` folds back).  On a file system without hard links it falls back to
    checking, then renaming.
    """
    try:
        disk.link(src, dst)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
        if os.path.lexists(dst):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), dst) from None
        disk.replace(src, dst)
        return
    disk.unlink(src)


def new_file_mode() -> int:
    """The mode a plain new file gets: ``0o666`` less the process's umask."""
    try:
        with open("/proc/self/status", encoding="ascii") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return 0o666 & ~int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def mode_of(path: str) -> int | None:
    """The permission bits of the file at ``path`` (``None`` when there is none)."""
    try:
        return os.lstat(path).st_mode & 0o7777
    except OSError:
        return None


def describe_os_error(exc: OSError) -> str:
    """What an ``OSError`` means, in plain words ("the disk is full", not ``[Errno 28] …``)."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full"
    if exc.errno == errno.EROFS:
        return "the folder is on a read-only file system"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return exc.strerror or str(exc)


def where(exc: OSError, root: Path) -> str:
    name = exc.filename if isinstance(exc.filename, str) else ""
    if name:
        try:
            name = os.path.relpath(name, root)
        except ValueError:
            pass
        return f" ({name})"
    return ""


# ---------------------------------------------------------------- the lock

_LOCAL = threading.Lock()
_HELD: dict[str, list[Any]] = {}  # realpath of root -> [fd, depth, thread id]


def make_root(root: Path | str) -> bool:
    """Make a memory folder that does not exist yet, its missing parents too (as Claude Code
    makes ``<config>/projects/<project>/memory/`` at its first memory write), so a first note
    can be written into it; True when it was made.  Nothing is put inside: the first change
    journals itself.  A path that exists is left as it is (a file there is the caller's error,
    ``NotADirectoryError`` or ``FileExistsError``)."""
    path = os.path.abspath(root)
    missing: list[str] = []
    while not os.path.lexists(path):
        missing.append(path)
        path = os.path.dirname(path)
    if not os.path.isdir(path):
        raise NotADirectoryError(errno.ENOTDIR, "not a folder", path)
    for part in reversed(missing):
        try:
            disk.mkdir(part)
        except FileExistsError:  # made meanwhile
            if not os.path.isdir(part):
                raise
        disk.fsync_dir(os.path.dirname(part))
    return bool(missing)


def ensure_dir(root: Path, rel: str) -> None:
    """Create the folder ``<root>/<rel>`` under ``.memtui/`` and its parents, never through a symlink.

    Each existing part is checked with ``lstat`` (:func:`~memtui.core.model.safepath.check_private_dir`:
    a symlink raises :class:`UnsafeFolder`); each missing one is created ``0o700`` (the journal
    holds copies of memory files) and its parent fsynced.  A folder memtui did not create is
    never chmod-ed.
    """
    parts = rel.split("/")
    for i in range(len(parts)):
        part = "/".join(parts[: i + 1])
        if private_dir_exists(root, part):
            continue
        try:
            disk.mkdir(abs_path(root, part))
        except FileExistsError:  # made meanwhile: look again (it may be a symlink)
            private_dir_exists(root, part)
            continue
        _make_private(abs_path(root, part))
        if part == MEMTUI_DIR:
            _ignore_itself(root)
        disk.fsync_dir(os.path.dirname(abs_path(root, part)))


#: what ``.memtui/.gitignore`` holds: memtui's own state (journal, lock, seen store) is no part of
#: a memory folder kept in git, as a tool's cache folder is not (``.pytest_cache``, ``.ruff_cache``)
GITIGNORE = b"# memtui's own state (the journal, the lock, the seen store): not part of the memory\n*\n"


def _ignore_itself(root: Path) -> None:
    """Give a ``.memtui/`` memtui has just created a ``.gitignore`` that ignores all of it, so a
    memory folder in git shows no untracked state after a change.  A step of the change like the
    others: a disk that cannot take it refuses the change before anything of the folder moved."""
    disk.write_tmp(abs_path(root, f"{MEMTUI_DIR}/.gitignore"), GITIGNORE, None)


def _make_private(path: str) -> None:
    """Make a folder memtui has just created ``0o700`` (opened without following a symlink)."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        os.fchmod(fd, 0o700)
    finally:
        os.close(fd)


def private_dir_exists(root: Path, rel: str) -> bool:
    """Whether a folder under ``.memtui/`` exists; :class:`UnsafeFolder` if a part is a symlink."""
    try:
        return check_private_dir(root, rel)
    except UnsafePath as exc:
        raise UnsafeFolder(f"memtui will not change {root}: {exc}") from None


def _open_lock(root: Path) -> int:
    """Open (creating) ``.memtui/lock`` without following a symlink; :class:`UnsafeFolder` if one."""
    try:
        return open_nofollow(abs_path(root, LOCK_FILE), os.O_RDWR | os.O_CREAT, 0o600)
    except UnsafePath as exc:
        raise UnsafeFolder(f"memtui will not change {root}: {LOCK_FILE}: {exc}") from None


def refuse_read_only_folder(root: Path) -> None:
    """Raise :class:`WriteFailed` when the root folder has no write bit at all: memtui never
    writes in it, whoever runs it (root included), and creates nothing there — not even
    ``.memtui/lock`` (DESIGN §1.6)."""
    try:
        mode = os.stat(root).st_mode
    except OSError:
        return  # ensure_dir says why
    if not mode & 0o222:
        raise WriteFailed(
            f"cannot change {root}: permission denied — the folder is read-only (mode "
            f"{stat.S_IMODE(mode):04o}) and memtui never writes in a folder without write "
            "permission, whoever runs it; nothing was changed")


@contextmanager
def root_lock(root: Path | str, timeout: float = LOCK_TIMEOUT) -> Iterator[None]:
    """Hold the root's exclusive lock (re-entrant within a thread); :class:`Busy` after ``timeout``."""
    root = Path(root).absolute()
    key = os.path.realpath(root)
    me = threading.get_ident()
    deadline = time.monotonic() + timeout
    while True:
        with _LOCAL:
            held = _HELD.get(key)
            if held is not None and held[2] == me:
                held[1] += 1
                break
            if held is None:
                refuse_read_only_folder(root)
                try:
                    ensure_dir(root, MEMTUI_DIR)
                    fd = _open_lock(root)
                except OSError as exc:
                    raise WriteFailed(
                        f"cannot change {root}: {describe_os_error(exc)}{where(exc, root)}; "
                        "nothing was changed"
                    ) from None
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except OSError:
                    os.close(fd)
                else:
                    held = _HELD[key] = [fd, 1, me]
                    break
        if time.monotonic() >= deadline:
            raise Busy(
                f"{root} is busy: another memtui is changing it (lock {LOCK_FILE}); "
                "try again in a moment"
            )
        time.sleep(0.02)
    try:
        yield
    finally:
        with _LOCAL:
            held[1] -= 1
            if held[1] == 0:
                del _HELD[key]
                fcntl.flock(held[0], fcntl.LOCK_UN)
                os.close(held[0])


# ---------------------------------------------------------------- paths, temp files, journal records


def abs_path(root: Path, rel: str) -> str:
    return str(root.joinpath(*rel.split("/")))


#: what follows ``.<name>.<record id>.`` in the name of a temp file memtui made
_TMP_TAIL = re.compile(r"[0-9a-f]{16}\.tmp")


def tmp_path(root: Path, rel: str, rid: str) -> str:
    """A fresh, unpredictable temp name next to ``rel``: ``.<name>.<record id>.<random>.tmp``."""
    folder, _, name = rel.rpartition("/")
    return abs_path(root, (folder + "/" if folder else "") + f".{name}.{rid}.{os.urandom(8).hex()}.tmp")


def remove_tmps(root: Path, rels: Iterable[str], rid: str) -> None:
    """Remove the temp files change ``rid`` may have left next to ``rels`` (crash, full disk).

    Only names of exactly :func:`tmp_path`'s shape are removed (unlinking a name never touches
    another name of the same file); folders reached through a symlink are not looked in.
    """
    by_folder: dict[str, set[str]] = {}
    for rel in rels:
        folder, _, name = rel.rpartition("/")
        by_folder.setdefault(folder, set()).add(f".{name}.{rid}.")
    for folder, prefixes in by_folder.items():
        unlink_tmps(root, folder, prefixes)


def unlink_tmps(root: Path, folder: str, prefixes: set[str]) -> None:
    """Unlink ``<prefix><16 hex>.tmp`` names in ``folder`` (not when reached through a symlink)."""
    if folder and symlinked_parent(root, folder + "/x") is not None:
        return
    try:
        names = os.listdir(abs_path(root, folder) if folder else str(root))
    except OSError:
        return
    for name in names:
        if name.endswith(".tmp") and any(
                name.startswith(p) and _TMP_TAIL.fullmatch(name[len(p):]) for p in prefixes):
            disk.unlink(abs_path(root, f"{folder}/{name}" if folder else name))


# ---------------------------------------------------------------- old versions kept for a rollback

#: a second name of a file a change replaced, in the journal folder: ``.<record id>.keep.<16 hex>.tmp``
_KEPT = re.compile(r"^\.(\d{8}-(?:do|undo|redo)(?:-\d{8})?)\.keep\.[0-9a-f]{16}\.tmp$")


def keep_replaced(root: Path, rid: str, path: str) -> None:
    """Give the file at ``path``, which change ``rid`` is about to replace, a second name in the
    journal folder (a hard link): the old file — its bytes, mode and times — outlives the rename.

    This is what makes a rollback on a full disk possible.  Putting a before-image back by
    writing it again needs as much new space as the file holds, at the very moment the disk has
    none (the change failed for want of it); renaming the kept old file back over the new one
    needs none, and frees the new version's space as it goes.  The kept names cost no data (one
    folder entry each) but keep the old versions allocated until the change ends, so an apply
    needs at most the size of the files it rewrites more than before — less than the journal
    record, which holds every before-image and every new version, already took; a disk too full
    for that fails the apply, which is rolled back whole.  Reserving the rollback's space in
    advance (writing it) would cost that space for real on every change and still leave the
    rollback a write that can fail.

    On a file system without hard links (or a file in a folder mounted from elsewhere) nothing
    is kept, and the rollback writes the bytes back as before.  Any other failure (no room even
    for a folder entry) raises: the apply stops, and rolls back what it did.
    """
    keep = str(journal_dir(root) / f".{rid}.keep.{os.urandom(8).hex()}.tmp")
    try:
        disk.link(path, keep)
    except OSError as exc:
        if exc.errno in _NO_HARD_LINKS or exc.errno == errno.EXDEV:
            return
        raise


def kept_versions(root: Path, rid: str) -> list[str]:
    """The absolute paths of the old versions change ``rid`` kept (:func:`keep_replaced`), each
    checked to be a plain file with no other name (a name planted in a copied journal, a hard
    link to a file elsewhere, is never used: only unlinked)."""
    folder = journal_dir(root)
    try:
        if not private_dir_exists(root, JOURNAL_DIR):
            return []
        names = os.listdir(folder)
    except (OSError, UnsafeFolder):
        return []
    out = []
    for name in sorted(names):
        match = _KEPT.match(name)
        if match is None or match.group(1) != rid:
            continue
        try:
            st = os.lstat(folder / name)
        except OSError:
            continue
        if stat.S_ISREG(st.st_mode) and st.st_nlink == 1:
            out.append(str(folder / name))
    return out


def remove_kept(root: Path, rid: str | None = None, names: Iterable[str] | None = None) -> None:
    """Unlink the old versions change ``rid`` kept (every change's when None): the change ended.
    ``names``: the journal folder's, as just listed under the lock."""
    folder = journal_dir(root)
    if names is None:
        try:
            names = os.listdir(folder)
        except OSError:
            return
    for name in names:
        match = _KEPT.match(name)
        if match is not None and (rid is None or match.group(1) == rid):
            try:
                disk.unlink(str(folder / name))
            except FileNotFoundError:
                pass


def is_kept_name(name: str) -> bool:
    """Whether a journal folder name is an old version a change kept (:func:`keep_replaced`)."""
    return _KEPT.match(name) is not None


def next_seq(root: Path, records: list[RecordName] | None = None) -> int:
    """The sequence number of the next record (``records``: the journal's, as just listed)."""
    records = list_records(root) if records is None else records
    return records[-1].seq + 1 if records else 1


def write_record(root: Path, rid: str, record: dict[str, Any]) -> None:
    ensure_dir(root, JOURNAL_DIR)
    folder = journal_dir(root)
    tmp = str(folder / f".{rid}.{os.urandom(8).hex()}.tmp")
    # a path that is not UTF-8 (a file name as it is on disk) is kept as its bytes
    data = json.dumps(record, ensure_ascii=False).encode("utf-8", "surrogateescape")
    disk.write_tmp(tmp, data, None)
    disk.replace(tmp, str(folder / record_file(rid, PENDING)))
    disk.fsync_dir(str(folder))


def mark_record(root: Path, rid: str, state: str) -> None:
    folder = journal_dir(root)
    disk.replace(str(folder / record_file(rid, PENDING)), str(folder / record_file(rid, state)))
    disk.fsync_dir(str(folder))


def prune_journal(root: Path, records: list[RecordName] | None = None) -> None:
    """Unlink the oldest records past :data:`MAX_RECORDS` (``records``: the journal's, as just
    listed)."""
    records = list_records(root) if records is None else records
    excess = len(records) - MAX_RECORDS
    for record in records:
        if excess <= 0:
            break
        if record.state == PENDING:
            continue
        try:
            disk.unlink(str(journal_dir(root) / record.file))
        except OSError:
            return
        excess -= 1


# ---------------------------------------------------------------- memtui's bookkeeping files


def _side_target(root: Path, rel: str) -> str:
    """The absolute path of a bookkeeping file, its folder made (no symlinks); else :class:`UnsafeFolder`."""
    try:
        check_side_file(rel)
    except UnsafePath as exc:
        raise UnsafeFolder(str(exc)) from None
    folder = rel.rpartition("/")[0]
    if folder:
        ensure_dir(root, folder)
    return abs_path(root, rel)


def write_side_file(root: Path | str, rel: str, data: bytes, timeout: float = LOCK_TIMEOUT) -> None:
    """Replace one of memtui's bookkeeping files (``.memtui/…``) atomically, under the root's lock.

    The file is written like a memory file (exclusive temp file with an unpredictable name,
    fsync, ``os.replace``, folder fsync), is private (``0o600``) and is never reached through a
    symlink.  ``rel`` must be a plain path under ``.memtui/`` (or the pressure log); anything
    else, or a symlink on the way, raises :class:`UnsafeFolder`.  Use it for rejected pairs, the
    seen store, caches — never for memory files, which go through :func:`commit`.
    """
    root = Path(root).absolute()
    with root_lock(root, timeout):
        target = _side_target(root, rel)
        if os.path.islink(target):
            raise UnsafeFolder(f"'{rel}' is a symlink; memtui does not write through it — remove it")
        folder, _, name = rel.rpartition("/")
        tmp = abs_path(root, (folder + "/" if folder else "") + f".{name}.side.{os.urandom(8).hex()}.tmp")
        try:
            disk.write_tmp(tmp, data, None)
            disk.replace(tmp, target)
        except BaseException:
            if os.path.lexists(tmp):
                disk.unlink(tmp)
            raise
        disk.fsync_dir(os.path.dirname(target))


def append_side_file(root: Path | str, rel: str, line: bytes, timeout: float = LOCK_TIMEOUT) -> None:
    """Append ``line`` to one of memtui's bookkeeping files (the pressure log, ``.memtui/…``).

    Under the root's lock; opened with ``O_APPEND`` and without following a symlink; a file with
    more than one name (a hard link that may lead outside the root), a symlink or a non-file
    raises :class:`UnsafeFolder` and nothing is written.  A new file is private (``0o600``) under
    ``.memtui/``, and gets the usual mode (``0o666`` less the umask) at the root.
    """
    root = Path(root).absolute()
    with root_lock(root, timeout):
        target = _side_target(root, rel)
        mode = 0o600 if "/" in rel else new_file_mode()
        try:
            fd = open_nofollow(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, mode)
        except UnsafePath as exc:
            raise UnsafeFolder(f"{rel}: {exc}") from None
        try:
            if os.fstat(fd).st_nlink != 1:
                raise UnsafeFolder(f"'{rel}' has other names (a hard link); memtui does not write "
                                   "through it — move it aside")
            write_all(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)


def remove_side_file(root: Path | str, rel: str, timeout: float = LOCK_TIMEOUT) -> None:
    """Remove one of memtui's own bookkeeping files (an old seen-store pack), under the root's
    lock; never a memory file, never through a symlinked folder (:class:`UnsafeFolder`)."""
    root = Path(root).absolute()
    with root_lock(root, timeout):
        target = _side_target(root, rel)
        try:
            disk.unlink(target)
        except FileNotFoundError:
            return
        disk.fsync_dir(os.path.dirname(target))


@contextmanager
def side_files(root: Path | str, timeout: float = LOCK_TIMEOUT) -> Iterator[Path]:
    """Hold the root's lock over a read-modify-write of bookkeeping files (the rejected pairs,
    the seen store): inside, :func:`write_side_file`, :func:`append_side_file` and
    :func:`remove_side_file` on the same root do not wait.  Yields the root's absolute path."""
    root = Path(root).absolute()
    with root_lock(root, timeout):
        yield root
