"""The only code that writes into a memory root: gate, lock, journal, atomic apply, recovery, undo.

Protocol for every changeset (DESIGN §3):

1. :func:`plan` plays it on a copy of the snapshot and gates the result (pure; nothing touched).
2. :func:`commit` takes the exclusive lock ``<root>/.memtui/lock`` (``fcntl.flock``; waits up to a
   timeout, then :class:`Busy`), finishes any interrupted change, checks that every path the
   changeset touches still holds the bytes the snapshot read (else :class:`ChangedOnDisk`) and
   that no folder above them is a symlink and no file it rewrites is read-only
   (:class:`ReadOnlyFile`), writes a journal record with the before-image of every touched
   path, its mode and its times (fsynced, file and folder; private: folders memtui creates under
   ``.memtui/`` are ``0o700``, records and temp files ``0o600``), applies each write as an
   exclusive temp file under an unpredictable name + fsync + a last look at the target's bytes
   + ``os.replace`` (permission bits kept, never setuid/setgid/sticky), each create and move as
   hard link + unlink (which fails, rather than overwrites, when another program created the
   target meanwhile), fsyncs the folders, and renames the record to committed.
3. Any failure while applying rolls back what was applied from the record and raises
   :class:`WriteFailed` (the folder is as it was).  A crash leaves a pending record, which
   :func:`recover` — run by :func:`open_root` and by every commit — restores byte for byte.
   Restoring only ever touches a path holding bytes memtui put there: whatever another
   program (the agent takes no lock) wrote meanwhile is left as it is, and named in the error
   or in :attr:`Recovered.message`.  It puts back modification times with the bytes, and first
   removes the failed change's own temp files (the space a full disk needs).

A folder may be hostile (someone else's copy, with its ``.memtui/``).  A pending record whose
paths are not plain paths inside the root (:func:`~memtui.core.journal.checked_record`) or run
through a symlinked folder is never applied: it is moved to ``.memtui/quarantine/`` and named in
:attr:`Recovered.message`; stored modes are clamped; nothing under ``.memtui/`` is reached
through a symlink (:class:`UnsafeFolder`); no folder memtui did not create is chmod-ed.

:func:`undo` and :func:`redo` replay the newest committed change backwards or forwards through the
same gate, whose baseline then also holds the errors and index size of the state returned to (a
change that repaired a broken folder can be undone; nothing new can be broken by it).  Undoing a
created file moves it into ``.memtui/attic/`` — nothing is ever erased.
Every filesystem call goes through :data:`fs`, so tests can inject faults at any step.

The public API (everything callers need is importable from here):

- operations and changesets — :class:`~memtui.core.changeset.Write`, ``Create``, ``Move``,
  ``Changeset`` (built by :mod:`memtui.core.verbs`, or by hand);
- :func:`plan` → :class:`Preview` (``accepted``, ``gate``, ``after``, ``cache``, ``findings``,
  ``new_findings``, ``to_json()``); :func:`commit` → :class:`Applied`; :func:`run` does both;
- :func:`undo_plan` / :func:`redo_plan` / :func:`undo` / :func:`redo`; :func:`journal_log`;
- :func:`open_root` (recover, then load), :func:`recover`, :func:`root_lock`;
- a change over several roots (a promotion between layers) is :mod:`memtui.core.txn_multi`,
  built on :func:`prepare` / :class:`Prepared` (the checks and the record of one root's half);
  its pending halves are finished or restored by :func:`recover` as its coordinator decided, and
  :func:`commit` of an undo or redo of it replays every half;
- memtui's own bookkeeping files (``.memtui/…``, the pressure log): :func:`write_side_file`,
  :func:`append_side_file` — same lock, same safe file layer;
- errors: :class:`TxnError` and its kinds :class:`Refused`, :class:`Busy`,
  :class:`ChangedOnDisk` (and :class:`ReadOnlyFile`), :class:`WriteFailed`,
  :class:`NothingToUndo`, :class:`UnsafeFolder`.

Typical use (what the CLI does)::

    with root_lock(root):
        snapshot = open_root(root)
        preview = plan(snapshot, verbs.pin(snapshot, "a.md"))
        if preview.accepted:
            commit(preview)
"""

from __future__ import annotations

import errno
import fcntl
import json
import logging
import os
import re
import secrets
import stat
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Iterator

from .changeset import (
    ATTIC_DIR,
    Changeset,
    Create,
    Move,
    Operation,
    Write,
    in_attic,
    is_archive_index,
    parent_dirs,
)
from .incremental import FindingsCache
from .journal import (
    COMMITTED,
    JOURNAL_DIR,
    LOCK_FILE,
    MAX_RECORDS,
    PENDING,
    ROLLED_BACK,
    JournalError,
    LogEntry,
    checked_record,
    decode_value,
    encode_bytes,
    journal_dir,
    journal_log,
    list_records,
    op_from_json,
    op_to_json,
    read_record,
    record_file,
    record_id,
    stacks,
)
from .model import BudgetConfig, Snapshot
from .plan import (
    Baseline,
    Busy,
    ChangedOnDisk,
    NothingToUndo,
    Preview,
    ReadOnlyFile,
    Refused,
    TxnError,
    UnsafeFolder,
    WriteFailed,
    baseline_of,
    inverse,
    plan,
    redo_plan,
    undo_plan,
)
from .safepath import (
    MEMTUI_DIR,
    UnsafePath,
    check_private_dir,
    check_side_file,
    open_nofollow,
    symlinked_parent,
)
from .store import load_root

__all__ = [
    "Applied",
    "Baseline",
    "Busy",
    "ChangedOnDisk",
    "Changeset",
    "Create",
    "Move",
    "Write",
    "LogEntry",
    "NothingToUndo",
    "Prepared",
    "Preview",
    "ReadOnlyFile",
    "Recovered",
    "Refused",
    "TxnError",
    "UnsafeFolder",
    "WriteFailed",
    "append_side_file",
    "baseline_of",
    "commit",
    "fs",
    "inverse",
    "journal_log",
    "open_root",
    "plan",
    "prepare",
    "recover",
    "redo",
    "redo_plan",
    "root_lock",
    "run",
    "undo",
    "undo_plan",
    "write_side_file",
]

LOCK_TIMEOUT = 5.0
QUARANTINE_DIR = ".memtui/quarantine"

_log = logging.getLogger("memtui")


# ---------------------------------------------------------------- the filesystem


class FileSystem:
    """Every filesystem call that changes something — one place, so tests can inject faults."""

    def write_tmp(self, path: str, data: bytes, mode: int | None) -> None:
        """Create a new file (a temp file) exclusively, write it completely, set its mode, fsync it.

        ``O_EXCL``: a name that already exists (a planted hard link or symlink) is never opened.
        The file is created ``0o600`` (it may hold a private file's bytes, or a journal record
        of them) and only then given ``mode``; without ``mode`` it stays private."""
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
        try:
            _write_all(fd, data)
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)

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
        name of a file :func:`_move` has just linked to its new name."""
        os.unlink(path)

    def rmdir(self, path: str) -> None:
        """Remove an empty folder memtui created for a change it rolled back."""
        os.rmdir(path)


fs = FileSystem()


def _write_all(fd: int, data: bytes) -> None:
    """Write every byte of ``data`` to ``fd`` (``os.write`` may write less than asked)."""
    view = memoryview(data)
    while view:
        view = view[os.write(fd, view):]


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return b"\0<folder>"


#: ``link`` errors meaning "this file system has no hard links" (not "the name is taken")
_NO_HARD_LINKS = frozenset({errno.EPERM, errno.ENOTSUP, errno.EOPNOTSUPP, errno.EMLINK, errno.ENOSYS})


def _move(src: str, dst: str) -> None:
    """Move a file to ``dst`` without ever replacing what is there (``FileExistsError`` if taken).

    ``os.replace`` would silently overwrite a file another program created at ``dst`` after
    memtui looked; a hard link fails atomically instead.  The file is linked to its new name,
    then its old name is unlinked (a crash in between leaves two names of one file, which
    :func:`_restore` folds back).  On a file system without hard links it falls back to
    checking, then renaming.
    """
    try:
        fs.link(src, dst)
    except FileExistsError:
        raise
    except OSError as exc:
        if exc.errno not in _NO_HARD_LINKS:
            raise
        if os.path.lexists(dst):
            raise FileExistsError(errno.EEXIST, os.strerror(errno.EEXIST), dst) from None
        fs.replace(src, dst)
        return
    fs.unlink(src)


def _new_file_mode() -> int:
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


def _mode_of(path: str) -> int | None:
    """The permission bits of the file at ``path`` (``None`` when there is none)."""
    try:
        return os.lstat(path).st_mode & 0o7777
    except OSError:
        return None


def _describe_os_error(exc: OSError) -> str:
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        return "the disk is full"
    if exc.errno == errno.EROFS:
        return "the folder is on a read-only file system"
    if exc.errno in (errno.EACCES, errno.EPERM):
        return "permission denied"
    return exc.strerror or str(exc)


def _where(exc: OSError, root: Path) -> str:
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


def _ensure_dir(root: Path, rel: str) -> None:
    """Create the folder ``<root>/<rel>`` under ``.memtui/`` and its parents, never through a symlink.

    Each existing part is checked with ``lstat`` (:func:`~memtui.core.safepath.check_private_dir`:
    a symlink raises :class:`UnsafeFolder`); each missing one is created ``0o700`` (the journal
    holds copies of memory files) and its parent fsynced.  A folder memtui did not create is
    never chmod-ed.
    """
    parts = rel.split("/")
    for i in range(len(parts)):
        part = "/".join(parts[: i + 1])
        if _private_dir_exists(root, part):
            continue
        try:
            fs.mkdir(_abs(root, part))
        except FileExistsError:  # made meanwhile: look again (it may be a symlink)
            _private_dir_exists(root, part)
            continue
        _make_private(_abs(root, part))
        fs.fsync_dir(os.path.dirname(_abs(root, part)))


def _make_private(path: str) -> None:
    """Make a folder memtui has just created ``0o700`` (opened without following a symlink)."""
    fd = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        os.fchmod(fd, 0o700)
    finally:
        os.close(fd)


def _private_dir_exists(root: Path, rel: str) -> bool:
    """Whether a folder under ``.memtui/`` exists; :class:`UnsafeFolder` if a part is a symlink."""
    try:
        return check_private_dir(root, rel)
    except UnsafePath as exc:
        raise UnsafeFolder(f"memtui will not change {root}: {exc}") from None


def _open_lock(root: Path) -> int:
    """Open (creating) ``.memtui/lock`` without following a symlink; :class:`UnsafeFolder` if one."""
    try:
        return open_nofollow(_abs(root, LOCK_FILE), os.O_RDWR | os.O_CREAT, 0o600)
    except UnsafePath as exc:
        raise UnsafeFolder(f"memtui will not change {root}: {LOCK_FILE}: {exc}") from None


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
                try:
                    _ensure_dir(root, MEMTUI_DIR)
                    fd = _open_lock(root)
                except OSError as exc:
                    raise WriteFailed(
                        f"cannot change {root}: {_describe_os_error(exc)}{_where(exc, root)}; "
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


# ---------------------------------------------------------------- commit


@dataclass(frozen=True)
class Applied:
    """A committed change: its journal id and the snapshot after it (with its findings).

    The snapshot is the planned one: files it wrote carry the plan's clock as modification time.
    Pass ``snapshot`` and ``cache`` to the next :func:`plan` to keep validation incremental.
    """

    record_id: str
    preview: Preview
    snapshot: Snapshot
    cache: FindingsCache = field(repr=False)


def _abs(root: Path, rel: str) -> str:
    return str(root.joinpath(*rel.split("/")))


#: what follows ``.<name>.<record id>.`` in the name of a temp file memtui made
_TMP_TAIL = re.compile(r"[0-9a-f]{16}\.tmp")


def _tmp_path(root: Path, rel: str, rid: str) -> str:
    """A fresh, unpredictable temp name next to ``rel``: ``.<name>.<record id>.<random>.tmp``."""
    folder, _, name = rel.rpartition("/")
    return _abs(root, (folder + "/" if folder else "") + f".{name}.{rid}.{secrets.token_hex(8)}.tmp")


def _remove_tmps(root: Path, rels: Iterable[str], rid: str) -> None:
    """Remove the temp files change ``rid`` may have left next to ``rels`` (crash, full disk).

    Only names of exactly :func:`_tmp_path`'s shape are removed (unlinking a name never touches
    another name of the same file); folders reached through a symlink are not looked in.
    """
    by_folder: dict[str, set[str]] = {}
    for rel in rels:
        folder, _, name = rel.rpartition("/")
        by_folder.setdefault(folder, set()).add(f".{name}.{rid}.")
    for folder, prefixes in by_folder.items():
        _unlink_tmps(root, folder, prefixes)


def _unlink_tmps(root: Path, folder: str, prefixes: set[str]) -> None:
    """Unlink ``<prefix><16 hex>.tmp`` names in ``folder`` (not when reached through a symlink)."""
    if folder and symlinked_parent(root, folder + "/x") is not None:
        return
    try:
        names = os.listdir(_abs(root, folder) if folder else str(root))
    except OSError:
        return
    for name in names:
        if name.endswith(".tmp") and any(
                name.startswith(p) and _TMP_TAIL.fullmatch(name[len(p):]) for p in prefixes):
            fs.unlink(_abs(root, f"{folder}/{name}" if folder else name))


def _check_folders(root: Path, preview: Preview) -> None:
    """Refuse a change that would write through a symlinked folder (it may lead outside the root).

    Every folder above every path an operation touches is checked on disk (``islink``) and
    against the snapshot's symlinks leading outside.
    """
    for rel in preview.changeset.paths:
        for folder in parent_dirs(rel):
            if folder in preview.before.outside or os.path.islink(_abs(root, folder)):
                raise ChangedOnDisk(
                    f"'{folder}' is a symlinked folder; memtui does not write through symlinked "
                    f"folders (the change touches '{rel}'), so nothing was changed", (folder,))


def _rewritten(ops: tuple[Operation, ...]) -> set[str]:
    """The paths, as they were before ``ops``, of every file a write in ``ops`` rewrites."""
    origin: dict[str, str] = {}
    out: set[str] = set()
    for op in ops:
        if isinstance(op, Move):
            origin[op.dst] = origin.pop(op.src, op.src)
        elif isinstance(op, Write):
            out.add(origin.get(op.path, op.path))
    return out | {path.lower() for path in out if is_archive_index(path)}


def _read_only(path: str, mode: int) -> bool:
    """Whether a file may not be written: no write bit at all (whoever runs memtui), or no access."""
    return not mode & 0o222 or not os.access(path, os.W_OK)


def _check_disk(root: Path, preview: Preview) -> tuple[dict[str, int], dict[str, list[int]], list[str]]:
    """Refuse unless every touched path is as the snapshot read it and may be written.

    Returns the touched files' modes (permission bits only: never setuid, setgid or sticky),
    their access and modification times (ns, for restoring), and the folders to create.
    """
    _check_folders(root, preview)
    changed: list[str] = []
    modes: dict[str, int] = {}
    times: dict[str, list[int]] = {}
    rewritten = _rewritten(preview.changeset.ops)
    for rel, expected in preview.initial.items():
        path = _abs(root, rel)
        if os.path.islink(path):
            raise ChangedOnDisk(f"'{rel}' is a symlink; memtui does not rewrite symlinks", (rel,))
        if _read(path) != expected:
            changed.append(rel)
        elif expected is not None:
            st = os.stat(path)
            modes[rel] = st.st_mode & 0o777
            times[rel] = [st.st_atime_ns, st.st_mtime_ns]
            if (rel in rewritten or rel.lower() in rewritten) and _read_only(path, st.st_mode):
                raise ReadOnlyFile(
                    f"'{rel}' is a read-only file (mode {stat.S_IMODE(st.st_mode):04o}); memtui "
                    "never rewrites it — make it writable (chmod u+w) to change it; nothing was "
                    "changed", (rel,))
    if changed:
        shown = ", ".join(changed[:5]) + (" …" if len(changed) > 5 else "")
        raise ChangedOnDisk(
            f"changed on disk — {shown} changed since memtui read it; reload and try again",
            tuple(changed),
        )
    missing: list[str] = []
    for op in preview.changeset.ops:
        target = op.dst if isinstance(op, Move) else op.path
        for folder in parent_dirs(target):
            if folder not in missing and not os.path.isdir(_abs(root, folder)):
                if os.path.lexists(_abs(root, folder)):
                    raise ChangedOnDisk(f"'{folder}' exists and is not a folder", (folder,))
                missing.append(folder)
    return modes, times, missing


def _next_seq(root: Path) -> int:
    records = list_records(root)
    return records[-1].seq + 1 if records else 1


def _write_record(root: Path, rid: str, record: dict[str, Any]) -> None:
    _ensure_dir(root, JOURNAL_DIR)
    folder = journal_dir(root)
    tmp = str(folder / f".{rid}.{secrets.token_hex(8)}.tmp")
    data = json.dumps(record, ensure_ascii=False).encode("utf-8")
    fs.write_tmp(tmp, data, None)
    fs.replace(tmp, str(folder / record_file(rid, PENDING)))
    fs.fsync_dir(str(folder))


def _mark(root: Path, rid: str, state: str) -> None:
    folder = journal_dir(root)
    fs.replace(str(folder / record_file(rid, PENDING)), str(folder / record_file(rid, state)))
    fs.fsync_dir(str(folder))


def _apply_ops(root: Path, rid: str, ops: tuple[Operation, ...], modes: dict[str, int],
               missing: list[str], restores: dict[str, tuple[bytes, int, int]] | None = None) -> None:
    """Apply the operations; a write that puts back bytes in ``restores`` gets their times too."""
    dirty: dict[str, None] = {}
    for op in ops:
        if isinstance(op, Move):
            target = op.dst
        else:
            target = op.path
        for folder in parent_dirs(target):
            if folder in missing and not os.path.isdir(_abs(root, folder)):
                fs.mkdir(_abs(root, folder))
                dirty[os.path.dirname(_abs(root, folder))] = None
        dst = _abs(root, target)
        if isinstance(op, Write):
            # the recorded mode, or (a file an earlier move put here) the file's own mode
            mode = modes.get(op.path)
            if mode is None:
                mode = _mode_of(dst)
            tmp = _tmp_path(root, op.path, rid)
            fs.write_tmp(tmp, op.data, mode)
            kept = (restores or {}).get(op.path)
            if kept is not None and kept[0] == op.data:
                fs.utime(tmp, (kept[1], kept[2]))
            if _read(dst) != op.expected:  # another program wrote it since the check
                raise ChangedOnDisk(f"changed on disk — '{op.path}' changed while memtui was "
                                    "writing; reload and try again", (op.path,))
            fs.replace(tmp, dst)
        elif isinstance(op, Create):
            tmp = _tmp_path(root, op.path, rid)
            fs.write_tmp(tmp, op.data, _new_file_mode())
            try:
                _move(tmp, dst)
            except FileExistsError:
                raise ChangedOnDisk(f"'{op.path}' appeared on disk meanwhile", (op.path,)) from None
        else:
            try:
                _move(_abs(root, op.src), dst)
            except FileExistsError:
                raise ChangedOnDisk(f"'{op.dst}' appeared on disk meanwhile", (op.dst,)) from None
            dirty[os.path.dirname(_abs(root, op.src))] = None
        dirty[os.path.dirname(dst)] = None
    for folder in dirty:
        fs.fsync_dir(folder)


def _known_bytes(ops: list[Operation], before: dict[str, bytes | None]) -> dict[str, set[bytes]]:
    """Every content memtui itself may have left at each path a record touches.

    That is the path's before-image and each version an operation put there (a write's or a
    create's data, the bytes a move carried).  Anything else on disk was written by another
    program (the agent takes no lock), and restoring must never overwrite or displace it.
    """
    archive = next((path for path in before if is_archive_index(path)), None)

    def key(path: str) -> str:  # the plan keys the archive index by the snapshot's spelling
        return archive if archive is not None and is_archive_index(path) else path

    state = dict(before)
    known = {path: {data} for path, data in before.items() if data is not None}
    for op in ops:
        if isinstance(op, Move):
            target, data = key(op.dst), state.get(key(op.src))
            state[key(op.src)] = None
        else:
            target, data = key(op.path), op.data
        state[target] = data
        if data is not None:
            known.setdefault(target, set()).add(data)
    return known


def _attic_dest(root: Path, rid: str, rel: str) -> str:
    """A free attic path for ``rel`` under the record's folder (``name.2.md``… when taken)."""
    dest = f"{ATTIC_DIR}/{rid}/{rel}"
    stem, dot, ext = dest.rpartition(".")
    if "/" in ext:
        stem, dot, ext = dest, "", ""
    n = 1
    while os.path.lexists(_abs(root, dest)):
        n += 1
        dest = f"{stem}.{n}{dot}{ext}"
    return dest


def _restore(root: Path, rid: str, record: dict[str, Any]) -> list[str]:
    """Put every path the record touched back to its before-image (idempotent).

    Only a path that holds bytes memtui put there (:func:`_known_bytes`) — or nothing — is
    restored or moved.  A path another program wrote meanwhile is left exactly as it is; those
    paths are returned, so the caller can tell the user.
    """
    ops = [op_from_json(op) for op in record.get("ops", [])]
    before = {path: decode_value(value) for path, value in record.get("before", {}).items()}
    modes: dict[str, int] = {k: int(v) for k, v in record.get("modes", {}).items()}
    times: dict[str, Any] = record.get("times", {})
    known = _known_bytes(ops, before)
    left: list[str] = []
    dirty: dict[str, None] = {}
    # first, the space the failed change's own temp files hold (a full disk is the usual cause)
    _remove_tmps(root, before, rid)

    def ours(rel: str, path: str) -> bool:
        return (symlinked_parent(root, rel) is None and not os.path.islink(path)
                and _read(path) in known.get(rel, ()))

    def leave(rel: str) -> None:
        if rel not in left:
            left.append(rel)

    for op in reversed(ops):
        if not isinstance(op, Move):
            continue
        src, dst = _abs(root, op.src), _abs(root, op.dst)
        if not os.path.lexists(dst):
            continue
        if os.path.lexists(src):
            # a crash between linking the new name and unlinking the old: two names, one file
            if (not os.path.islink(src) and not os.path.islink(dst)
                    and os.path.samefile(src, dst)):
                fs.unlink(dst)
                dirty[os.path.dirname(dst)] = None
            continue
        if not ours(op.dst, dst) or symlinked_parent(root, op.src) is not None:
            leave(op.dst)
            continue
        moved = _read(dst)
        try:
            _move(dst, src)
        except FileExistsError:  # another program created the old name just now
            leave(op.src)
            continue
        if moved is not None:
            known.setdefault(op.src, set()).add(moved)
        dirty[os.path.dirname(src)] = dirty[os.path.dirname(dst)] = None
    for rel, data in before.items():
        if data is None or in_attic(rel):
            continue
        path = _abs(root, rel)
        current = _read(path) if os.path.lexists(path) else None
        if current == data and not os.path.islink(path):
            continue
        if (current is not None and not ours(rel, path)) or symlinked_parent(root, rel) is not None:
            leave(rel)
            continue
        tmp = _tmp_path(root, rel, rid)
        mode = modes.get(rel)
        fs.write_tmp(tmp, data, mode if mode is not None else _new_file_mode())
        if rel in times:
            fs.utime(tmp, (int(times[rel][0]), int(times[rel][1])))
        if current is None:
            try:
                _move(tmp, path)  # never over a file that appeared meanwhile
            except FileExistsError:
                leave(rel)
        elif _read(path) == current:
            fs.replace(tmp, path)
        else:  # written by another program while memtui was restoring
            leave(rel)
        dirty[os.path.dirname(path)] = None
    for rel, data in before.items():
        path = _abs(root, rel)
        if data is not None or in_attic(rel) or not os.path.lexists(path):
            continue
        if not ours(rel, path):
            leave(rel)
            continue
        dest = _attic_dest(root, rid, rel)
        _ensure_dir(root, dest.rpartition("/")[0])
        try:
            _move(path, _abs(root, dest))
        except FileExistsError:  # pragma: no cover - the attic path was free a moment ago
            leave(rel)
        dirty[os.path.dirname(path)] = None
    _remove_tmps(root, before, rid)
    for folder in reversed(record.get("created_dirs", [])):
        path = _abs(root, folder)
        if (symlinked_parent(root, folder) is None and not os.path.islink(path)
                and os.path.isdir(path) and not os.listdir(path)):
            fs.rmdir(path)
            dirty[os.path.dirname(path)] = None
    for folder in dirty:
        if os.path.isdir(folder):
            fs.fsync_dir(folder)
    return left


def _left_alone(paths: list[str]) -> str:
    """The words telling the user which paths a restore left as another program wrote them."""
    if not paths:
        return ""
    shown = ", ".join(paths[:5]) + (" …" if len(paths) > 5 else "")
    return (f"; left {shown} as another program wrote it meanwhile (memtui never overwrites "
            "that) — check it by hand")


def _rollback(root: Path, rid: str, record: dict[str, Any], cause: BaseException) -> TxnError:
    """Undo a failed apply; the error to raise (the folder is unchanged unless it says so)."""
    why = _describe_os_error(cause) + _where(cause, root) if isinstance(cause, OSError) else str(cause)
    folder = journal_dir(root)
    written = next(
        (folder / record_file(rid, state) for state in (PENDING, COMMITTED)
         if (folder / record_file(rid, state)).exists()),
        None,
    )
    left: list[str] = []
    try:
        if written is not None:
            left = _restore(root, rid, record)
            fs.replace(str(written), str(folder / record_file(rid, ROLLED_BACK)))
            fs.fsync_dir(str(folder))
        else:
            _unlink_tmps(root, JOURNAL_DIR, {f".{rid}."})
    except OSError as exc:
        return WriteFailed(
            f"cannot change {root}: {why}; restoring the folder also failed "
            f"({_describe_os_error(exc)}) — memtui finishes the restore from its journal the next "
            "time it opens this folder"
        )
    if isinstance(cause, ChangedOnDisk):
        if left:
            return ChangedOnDisk(f"{cause}{_left_alone(left)}", tuple(dict.fromkeys((*cause.paths, *left))))
        return cause
    if left:
        return WriteFailed(f"cannot change {root}: {why}; the rest was restored{_left_alone(left)}")
    return WriteFailed(f"cannot change {root}: {why}; nothing was changed")


def _prune(root: Path) -> None:
    records = list_records(root)
    excess = len(records) - MAX_RECORDS
    for record in records:
        if excess <= 0:
            break
        if record.state == PENDING:
            continue
        try:
            fs.unlink(str(journal_dir(root) / record.file))
        except OSError:
            return
        excess -= 1


@dataclass(frozen=True)
class Prepared:
    """A planned change checked under its root's lock: its journal id and record, ready to write.

    :func:`commit` writes one; :mod:`memtui.core.txn_multi` writes one per root of a change that
    spans several.
    """

    root: Path
    preview: Preview
    rid: str
    record: dict[str, Any]
    modes: dict[str, int]
    missing: list[str]

    def write_record(self) -> None:
        """Write the journal record, pending (fsynced)."""
        _write_record(self.root, self.rid, self.record)

    def apply(self) -> None:
        """Apply the changeset's operations (atomic per file; folders fsynced)."""
        _apply_ops(self.root, self.rid, self.preview.changeset.ops, self.modes, self.missing,
                   dict(self.preview.restores))

    def rollback(self, cause: BaseException) -> TxnError:
        """Restore what was applied from the record; the error to raise."""
        return _rollback(self.root, self.rid, self.record, cause)

    def tidy(self) -> None:
        """After an undo committed: remove the folders the undone change created that it left
        empty (``archive/`` after undoing the first archive), as a crash's restore does.  Best
        effort: a folder that stays behind is harmless."""
        if self.preview.kind != "undo" or self.preview.target is None:
            return
        try:
            _remove_empty_created_dirs(self.root, self.preview.target)
        except (OSError, JournalError, UnsafePath):
            pass


def _remove_empty_created_dirs(root: Path, target: int) -> None:
    """Remove the folders that the committed do/redo records of change ``target`` created, when
    they are empty now (deepest first; never through a symlink)."""
    folders: list[str] = []
    for name in list_records(root):
        if name.state == COMMITTED and ((name.kind == "do" and name.seq == target)
                                        or (name.kind == "redo" and name.target == target)):
            folders.extend(checked_record(read_record(root, name)).get("created_dirs", []))
    for folder in sorted(set(folders), key=lambda f: f.count("/"), reverse=True):
        path = _abs(root, folder)
        if (symlinked_parent(root, folder) is None and not os.path.islink(path)
                and os.path.isdir(path) and not os.listdir(path)):
            fs.rmdir(path)
            fs.fsync_dir(os.path.dirname(path))


def prepare(root: Path, preview: Preview, extra: dict[str, Any] | None = None) -> Prepared:
    """Check, holding ``root``'s lock, that the journal and the disk are as the preview planned;
    the record to write (``extra`` keys added to it).  Raises :class:`ChangedOnDisk` if not."""
    if preview.kind != "do":
        st = stacks(list_records(root))
        expected = st.done[-1] if preview.kind == "undo" and st.done else (
            st.redo[0] if preview.kind == "redo" and st.redo else None)
        if expected != preview.target:
            raise ChangedOnDisk(f"the journal of {root} changed since this {preview.kind} was "
                                "planned; reload and try again")
    modes, times, missing = _check_disk(root, preview)
    rid = record_id(_next_seq(root), preview.kind, preview.target)
    record = {
        "id": rid,
        "kind": preview.kind,
        "target": preview.target,
        "time": datetime.now(timezone.utc).astimezone().isoformat(timespec="seconds"),
        "verb": preview.changeset.verb,
        "description": preview.changeset.description,
        "ops": [op_to_json(op) for op in preview.changeset.ops],
        "before": {path: encode_bytes(data) for path, data in preview.initial.items()},
        "modes": modes,
        "times": times,
        "created_dirs": missing,
        "baseline": baseline_of(preview).to_json(),
        **(extra or {}),
    }
    return Prepared(root, preview, rid, record, modes, missing)


def commit(preview: Preview, timeout: float = LOCK_TIMEOUT) -> Applied:
    """Write an accepted preview to disk by the protocol above; raise :class:`TxnError` if not."""
    if not preview.accepted:
        raise Refused(preview)
    if preview.kind != "do":
        grouped = _commit_grouped_replay(preview, timeout)
        if grouped is not None:
            return grouped
    root = Path(preview.before.root).absolute()
    with root_lock(root, timeout):
        _recover_locked(root)
        prepared = prepare(root, preview)
        try:
            prepared.write_record()
            prepared.apply()
            _mark(root, prepared.rid, COMMITTED)
        except (Exception, KeyboardInterrupt) as exc:
            error = prepared.rollback(exc)
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise error from exc
        prepared.tidy()
        try:
            _prune(root)
        except OSError:
            pass
    return Applied(prepared.rid, preview, preview.after, preview.cache)


def _commit_grouped_replay(preview: Preview, timeout: float) -> Applied | None:
    """Undo or redo of a change that spans several roots: replayed in all of them as one
    (:mod:`memtui.core.txn_multi`); None when the change is this root's alone."""
    from . import txn_multi

    group = txn_multi.replay_group_plan(preview.before, preview.kind)
    if group is None:
        return None
    applied = txn_multi.commit_group(group, timeout)
    mine = os.path.realpath(preview.before.root)
    i = next(i for i, p in enumerate(group.previews) if os.path.realpath(p.before.root) == mine)
    return Applied(applied.record_ids[i], group.previews[i], applied.snapshots[i],
                   group.previews[i].cache)


def run(snapshot: Snapshot, changeset: Changeset, cache: FindingsCache | None = None,
        timeout: float = LOCK_TIMEOUT) -> Applied:
    """:func:`plan` then :func:`commit`; raises :class:`Refused` when the gate says no."""
    return commit(plan(snapshot, changeset, cache), timeout)


# ---------------------------------------------------------------- recovery


class Recovered(list):  # type: ignore[type-arg]
    """The ids of the interrupted changes :func:`recover` restored (a list of ``str``).

    ``left_alone`` maps an id to the paths its restore left untouched because another program
    wrote them after the crash; ``quarantined`` maps a record's file name to why it was set aside
    unapplied; :attr:`message` says both in words ("" when there is nothing to say).
    """

    def __init__(self, ids: Iterable[str] = (), left_alone: dict[str, list[str]] | None = None,
                 quarantined: dict[str, str] | None = None) -> None:
        super().__init__(ids)
        self.left_alone: dict[str, list[str]] = dict(left_alone or {})
        self.quarantined: dict[str, str] = dict(quarantined or {})

    @property
    def message(self) -> str:
        parts = []
        for name, why in self.quarantined.items():
            parts.append(f"memtui set aside the journal record {JOURNAL_DIR}/{name} as "
                         f"{QUARANTINE_DIR}/{name}, not applied: {why} (memtui never writes such a "
                         "record; the folder may come from someone else — nothing it names was "
                         "touched)")
        paths = [p for left in self.left_alone.values() for p in left]
        if paths:
            parts.append("memtui finished an interrupted change" + _left_alone(list(dict.fromkeys(paths))))
        return "; ".join(parts)


def _check_record(record: Any, value: dict[str, Any]) -> dict[str, Any]:
    """The record made safe to restore, or an error naming the file and what to do.

    :class:`JournalError` when it is damaged; :class:`~memtui.core.safepath.UnsafePath` when it
    names a path that is not a plain path inside the root (see
    :func:`~memtui.core.journal.checked_record`).
    """
    try:
        for op in value.get("ops", []):
            op_from_json(op)
        for data in value.get("before", {}).values():
            decode_value(data)
        for mode in value.get("modes", {}).values():
            int(mode)
        for folder in value.get("created_dirs", []):
            if not isinstance(folder, str):
                raise JournalError(f"folder {folder!r} is not a path")
    except (JournalError, AttributeError, KeyError, TypeError, ValueError) as exc:
        raise JournalError(f"journal record {record.file} is damaged ({exc})") from None
    return checked_record(value)


def _check_disk_paths(root: Path, value: dict[str, Any]) -> None:
    """Raise :class:`UnsafePath` if a folder above a path the record names is a symlink."""
    paths = [*value["before"], *value["created_dirs"]]
    for op in value["ops"]:
        paths.extend((op["src"], op["dst"]) if op.get("op") == "move" else (op["path"],))
    for rel in paths:
        folder = symlinked_parent(root, rel)
        if folder is not None:
            raise UnsafePath(f"'{folder}' above '{rel}' is a symlink or not a folder")


def _quarantine(root: Path, name: str) -> None:
    """Move a journal record memtui will not apply to ``.memtui/quarantine/`` (never erased)."""
    _ensure_dir(root, QUARANTINE_DIR)
    dest, n = name, 1
    while os.path.lexists(_abs(root, f"{QUARANTINE_DIR}/{dest}")):
        n += 1
        dest = f"{name}.{n}"
    _move(_abs(root, f"{JOURNAL_DIR}/{name}"), _abs(root, f"{QUARANTINE_DIR}/{dest}"))
    fs.fsync_dir(_abs(root, JOURNAL_DIR))


def _group_committed(value: dict[str, Any]) -> bool:
    """Whether a pending record is one half of a multi-root change that committed."""
    from .txn_multi import resolve_pending

    return resolve_pending(value) is True


def _recover_locked(root: Path) -> Recovered:
    if not _private_dir_exists(root, JOURNAL_DIR):
        return Recovered()
    folder = journal_dir(root)
    restored: list[str] = []
    left_alone: dict[str, list[str]] = {}
    quarantined: dict[str, str] = {}
    for name in sorted(os.listdir(folder)):
        if name.startswith(".") and name.endswith(".tmp"):
            fs.unlink(str(folder / name))
    for record in reversed(list_records(root)):
        if record.state != PENDING:
            continue
        try:
            value = _check_record(record, read_record(root, record))
            _check_disk_paths(root, value)
        except UnsafePath as exc:
            _quarantine(root, record.file)
            quarantined[record.file] = str(exc)
            _log.warning("recovering %s: set aside %s: %s", root, record.file, exc)
            continue
        except JournalError as exc:
            raise WriteFailed(
                f"cannot recover {root}: {exc}. It describes a change that was interrupted; "
                f"check the files it names by hand, then move {JOURNAL_DIR}/{record.file} out "
                "of the journal folder (or rename it to "
                f"{record_file(record.id, ROLLED_BACK)}) and open the folder again"
            ) from None
        if _group_committed(value):  # another root's half decided it happened: finish it
            _mark(root, record.id, COMMITTED)
            continue
        left = _restore(root, record.id, value)
        _mark(root, record.id, ROLLED_BACK)
        restored.append(record.id)
        if left:
            left_alone[record.id] = left
            _log.warning("recovering %s (%s): %s", root, record.id, _left_alone(left).lstrip("; "))
    return Recovered(restored, left_alone, quarantined)


def recover(root: Path | str, timeout: float = LOCK_TIMEOUT) -> Recovered:
    """Finish an interrupted change: restore the before-images of every pending record.

    Returns the ids restored (a :class:`Recovered`, whose ``message`` names any path left alone
    because another program wrote it after the crash).  Touches nothing (not even the lock)
    when there is nothing to do; skips quietly when another memtui holds the lock (its change
    is not interrupted).
    """
    root = Path(root).absolute()
    folder = journal_dir(root)
    try:
        if not _private_dir_exists(root, JOURNAL_DIR):
            return Recovered()
        names = os.listdir(folder)
    except OSError:
        return Recovered()
    if not any(n.endswith(".pending.json") or (n.startswith(".") and n.endswith(".tmp")) for n in names):
        return Recovered()
    try:
        with root_lock(root, timeout):
            return _recover_locked(root)
    except Busy:
        return Recovered()
    except OSError as exc:
        raise WriteFailed(f"cannot recover {root}: {_describe_os_error(exc)}{_where(exc, root)}") from None


def open_root(root: Path | str, config: BudgetConfig = BudgetConfig()) -> Snapshot:
    """Recover any interrupted change, then load the root."""
    recover(root)
    return load_root(root, config)


# ---------------------------------------------------------------- memtui's bookkeeping files


def _side_target(root: Path, rel: str) -> str:
    """The absolute path of a bookkeeping file, its folder made (no symlinks); else :class:`UnsafeFolder`."""
    try:
        check_side_file(rel)
    except UnsafePath as exc:
        raise UnsafeFolder(str(exc)) from None
    folder = rel.rpartition("/")[0]
    if folder:
        _ensure_dir(root, folder)
    return _abs(root, rel)


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
        tmp = _abs(root, (folder + "/" if folder else "") + f".{name}.side.{secrets.token_hex(8)}.tmp")
        try:
            fs.write_tmp(tmp, data, None)
            fs.replace(tmp, target)
        except BaseException:
            if os.path.lexists(tmp):
                fs.unlink(tmp)
            raise
        fs.fsync_dir(os.path.dirname(target))


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
        mode = 0o600 if "/" in rel else _new_file_mode()
        try:
            fd = open_nofollow(target, os.O_WRONLY | os.O_APPEND | os.O_CREAT, mode)
        except UnsafePath as exc:
            raise UnsafeFolder(f"{rel}: {exc}") from None
        try:
            if os.fstat(fd).st_nlink != 1:
                raise UnsafeFolder(f"'{rel}' has other names (a hard link); memtui does not write "
                                   "through it — move it aside")
            _write_all(fd, line)
            os.fsync(fd)
        finally:
            os.close(fd)


# ---------------------------------------------------------------- undo and redo


def undo(snapshot: Snapshot, cache: FindingsCache | None = None,
         timeout: float = LOCK_TIMEOUT) -> Applied:
    """Undo the newest committed change through the gate."""
    return commit(undo_plan(snapshot, cache), timeout)


def redo(snapshot: Snapshot, cache: FindingsCache | None = None,
         timeout: float = LOCK_TIMEOUT) -> Applied:
    """Redo the most recently undone change through the gate."""
    return commit(redo_plan(snapshot, cache), timeout)
