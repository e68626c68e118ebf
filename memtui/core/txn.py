"""The only code that writes into a memory root: gate, lock, journal, atomic apply, recovery, undo.

Protocol for every changeset (DESIGN §3):

1. :func:`plan` plays it on a copy of the snapshot and gates the result (pure; nothing touched).
2. :func:`commit` takes the exclusive lock ``<root>/.memtui/lock`` (``fcntl.flock``; waits up to a
   timeout, then :class:`Busy`), finishes any interrupted change, checks that every path the
   changeset touches still holds the bytes the snapshot read (else :class:`ChangedOnDisk`),
   writes a journal record with the before-image of every touched path (fsynced, file and
   folder), applies each write as temp file + fsync + ``os.replace`` (mode bits kept) and each
   move as ``os.replace`` (never over an existing file), fsyncs the folders, and renames the
   record to committed.
3. Any failure while applying rolls back what was applied from the record and raises
   :class:`WriteFailed` (the folder is as it was).  A crash leaves a pending record, which
   :func:`recover` — run by :func:`open_root` and by every commit — restores byte for byte.

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
- errors: :class:`TxnError` and its kinds :class:`Refused`, :class:`Busy`,
  :class:`ChangedOnDisk`, :class:`WriteFailed`, :class:`NothingToUndo`.

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
import os
import threading
import time
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterator

from .changeset import ATTIC_DIR, Changeset, Create, Move, Operation, Write, in_attic, parent_dirs
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
    Refused,
    TxnError,
    WriteFailed,
    baseline_of,
    inverse,
    plan,
    redo_plan,
    undo_plan,
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
    "Preview",
    "Refused",
    "TxnError",
    "WriteFailed",
    "baseline_of",
    "commit",
    "fs",
    "inverse",
    "journal_log",
    "open_root",
    "plan",
    "recover",
    "redo",
    "redo_plan",
    "root_lock",
    "run",
    "undo",
    "undo_plan",
]

LOCK_TIMEOUT = 5.0
MEMTUI_DIR = ".memtui"


# ---------------------------------------------------------------- the filesystem


class FileSystem:
    """Every filesystem call that changes something — one place, so tests can inject faults."""

    def write_tmp(self, path: str, data: bytes, mode: int | None) -> None:
        """Write a new file (a temp file) completely, set its mode, and fsync it."""
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW, 0o666)
        try:
            view = memoryview(data)
            while view:
                written = os.write(fd, view)
                view = view[written:]
            if mode is not None:
                os.fchmod(fd, mode)
            os.fsync(fd)
        finally:
            os.close(fd)

    def replace(self, src: str, dst: str) -> None:
        os.replace(src, dst)

    def mkdir(self, path: str) -> None:
        os.mkdir(path)

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
        """Remove one of memtui's own files (a temp file, an old journal record)."""
        os.unlink(path)

    def rmdir(self, path: str) -> None:
        """Remove an empty folder memtui created for a change it rolled back."""
        os.rmdir(path)


fs = FileSystem()


def _read(path: str) -> bytes | None:
    try:
        with open(path, "rb") as handle:
            return handle.read()
    except FileNotFoundError:
        return None
    except IsADirectoryError:
        return b"\0<folder>"


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
    """Create ``<root>/<rel>`` and its parents, fsyncing each parent after a creation."""
    parts = rel.split("/")
    for i in range(len(parts)):
        folder = root.joinpath(*parts[: i + 1])
        if not folder.is_dir():
            try:
                fs.mkdir(str(folder))
            except FileExistsError:
                continue
            fs.fsync_dir(str(folder.parent))


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
                    fd = os.open(str(root / LOCK_FILE), os.O_RDWR | os.O_CREAT, 0o644)
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


def _tmp_path(root: Path, rel: str, rid: str) -> str:
    folder, _, name = rel.rpartition("/")
    return _abs(root, (folder + "/" if folder else "") + f".{name}.{rid}.tmp")


def _check_disk(root: Path, preview: Preview) -> tuple[dict[str, int], list[str]]:
    """Refuse unless every touched path is as the snapshot read it; modes and folders to create."""
    changed: list[str] = []
    modes: dict[str, int] = {}
    for rel, expected in preview.initial.items():
        path = _abs(root, rel)
        if os.path.islink(path):
            raise ChangedOnDisk(f"'{rel}' is a symlink; memtui does not rewrite symlinks", (rel,))
        if _read(path) != expected:
            changed.append(rel)
        elif expected is not None:
            modes[rel] = os.stat(path).st_mode & 0o7777
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
    return modes, missing


def _next_seq(root: Path) -> int:
    records = list_records(root)
    return records[-1].seq + 1 if records else 1


def _write_record(root: Path, rid: str, record: dict[str, Any]) -> None:
    _ensure_dir(root, JOURNAL_DIR)
    folder = journal_dir(root)
    tmp = str(folder / f".{rid}.tmp")
    data = json.dumps(record, ensure_ascii=False).encode("utf-8")
    fs.write_tmp(tmp, data, None)
    fs.replace(tmp, str(folder / record_file(rid, PENDING)))
    fs.fsync_dir(str(folder))


def _mark(root: Path, rid: str, state: str) -> None:
    folder = journal_dir(root)
    fs.replace(str(folder / record_file(rid, PENDING)), str(folder / record_file(rid, state)))
    fs.fsync_dir(str(folder))


def _apply_ops(root: Path, rid: str, ops: tuple[Operation, ...], modes: dict[str, int],
               missing: list[str]) -> None:
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
            tmp = _tmp_path(root, op.path, rid)
            fs.write_tmp(tmp, op.data, modes.get(op.path))
            fs.replace(tmp, dst)
        elif isinstance(op, Create):
            tmp = _tmp_path(root, op.path, rid)
            fs.write_tmp(tmp, op.data, None)
            if os.path.lexists(dst):
                raise ChangedOnDisk(f"'{op.path}' appeared on disk meanwhile", (op.path,))
            fs.replace(tmp, dst)
        else:
            if os.path.lexists(dst):
                raise ChangedOnDisk(f"'{op.dst}' appeared on disk meanwhile", (op.dst,))
            fs.replace(_abs(root, op.src), dst)
            dirty[os.path.dirname(_abs(root, op.src))] = None
        dirty[os.path.dirname(dst)] = None
    for folder in dirty:
        fs.fsync_dir(folder)


def _restore(root: Path, rid: str, record: dict[str, Any]) -> None:
    """Put every path the record touched back to its before-image (idempotent)."""
    ops = [op_from_json(op) for op in record.get("ops", [])]
    before = {path: decode_value(value) for path, value in record.get("before", {}).items()}
    modes: dict[str, int] = {k: int(v) for k, v in record.get("modes", {}).items()}
    dirty: dict[str, None] = {}
    for op in reversed(ops):
        if isinstance(op, Move):
            src, dst = _abs(root, op.src), _abs(root, op.dst)
            if os.path.lexists(dst) and not os.path.lexists(src):
                fs.replace(dst, src)
                dirty[os.path.dirname(src)] = dirty[os.path.dirname(dst)] = None
    for rel, data in before.items():
        if data is None or in_attic(rel):
            continue
        path = _abs(root, rel)
        if _read(path) != data:
            tmp = _tmp_path(root, rel, rid)
            fs.write_tmp(tmp, data, modes.get(rel))
            fs.replace(tmp, path)
            dirty[os.path.dirname(path)] = None
    for rel, data in before.items():
        if data is None and not in_attic(rel) and os.path.lexists(_abs(root, rel)):
            dest = f"{ATTIC_DIR}/{rid}/{rel}"
            _ensure_dir(root, dest.rpartition("/")[0])
            fs.replace(_abs(root, rel), _abs(root, dest))
            dirty[os.path.dirname(_abs(root, rel))] = None
    for rel in before:
        tmp = _tmp_path(root, rel, rid)
        if os.path.lexists(tmp):
            fs.unlink(tmp)
    for folder in reversed(record.get("created_dirs", [])):
        path = _abs(root, folder)
        if os.path.isdir(path) and not os.listdir(path):
            fs.rmdir(path)
            dirty[os.path.dirname(path)] = None
    for folder in dirty:
        if os.path.isdir(folder):
            fs.fsync_dir(folder)


def _rollback(root: Path, rid: str, record: dict[str, Any], cause: BaseException) -> TxnError:
    """Undo a failed apply; the error to raise (the folder is unchanged unless it says so)."""
    why = _describe_os_error(cause) + _where(cause, root) if isinstance(cause, OSError) else str(cause)
    folder = journal_dir(root)
    written = next(
        (folder / record_file(rid, state) for state in (PENDING, COMMITTED)
         if (folder / record_file(rid, state)).exists()),
        None,
    )
    try:
        if written is not None:
            _restore(root, rid, record)
            fs.replace(str(written), str(folder / record_file(rid, ROLLED_BACK)))
            fs.fsync_dir(str(folder))
        else:
            tmp = journal_dir(root) / f".{rid}.tmp"
            if tmp.exists():
                fs.unlink(str(tmp))
    except OSError as exc:
        return WriteFailed(
            f"cannot change {root}: {why}; restoring the folder also failed "
            f"({_describe_os_error(exc)}) — memtui finishes the restore from its journal the next "
            "time it opens this folder"
        )
    if isinstance(cause, ChangedOnDisk):
        return cause
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


def commit(preview: Preview, timeout: float = LOCK_TIMEOUT) -> Applied:
    """Write an accepted preview to disk by the protocol above; raise :class:`TxnError` if not."""
    if not preview.accepted:
        raise Refused(preview)
    root = Path(preview.before.root).absolute()
    with root_lock(root, timeout):
        _recover_locked(root)
        if preview.kind != "do":
            st = stacks(list_records(root))
            expected = st.done[-1] if preview.kind == "undo" and st.done else (
                st.redo[0] if preview.kind == "redo" and st.redo else None)
            if expected != preview.target:
                raise ChangedOnDisk(f"the journal changed since this {preview.kind} was planned; "
                                    "reload and try again")
        modes, missing = _check_disk(root, preview)
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
            "created_dirs": missing,
            "baseline": baseline_of(preview).to_json(),
        }
        try:
            _write_record(root, rid, record)
            _apply_ops(root, rid, preview.changeset.ops, modes, missing)
            _mark(root, rid, COMMITTED)
        except (Exception, KeyboardInterrupt) as exc:
            error = _rollback(root, rid, record, exc)
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise error from exc
        try:
            _prune(root)
        except OSError:
            pass
    return Applied(rid, preview, preview.after, preview.cache)


def run(snapshot: Snapshot, changeset: Changeset, cache: FindingsCache | None = None,
        timeout: float = LOCK_TIMEOUT) -> Applied:
    """:func:`plan` then :func:`commit`; raises :class:`Refused` when the gate says no."""
    return commit(plan(snapshot, changeset, cache), timeout)


# ---------------------------------------------------------------- recovery


def _recover_locked(root: Path) -> list[str]:
    folder = journal_dir(root)
    if not folder.is_dir():
        return []
    restored: list[str] = []
    for name in sorted(os.listdir(folder)):
        if name.startswith(".") and name.endswith(".tmp"):
            fs.unlink(str(folder / name))
    for record in reversed(list_records(root)):
        if record.state != PENDING:
            continue
        try:
            value = read_record(root, record)
        except JournalError as exc:
            raise WriteFailed(f"cannot recover {root}: {exc}") from None
        _restore(root, record.id, value)
        _mark(root, record.id, ROLLED_BACK)
        restored.append(record.id)
    return restored


def recover(root: Path | str, timeout: float = LOCK_TIMEOUT) -> list[str]:
    """Finish an interrupted change: restore the before-images of every pending record.

    Returns the ids restored.  Touches nothing (not even the lock) when there is nothing to do;
    skips quietly when another memtui holds the lock (its change is not interrupted).
    """
    root = Path(root).absolute()
    folder = journal_dir(root)
    try:
        names = os.listdir(folder)
    except OSError:
        return []
    if not any(n.endswith(".pending.json") or (n.startswith(".") and n.endswith(".tmp")) for n in names):
        return []
    try:
        with root_lock(root, timeout):
            return _recover_locked(root)
    except Busy:
        return []
    except OSError as exc:
        raise WriteFailed(f"cannot recover {root}: {_describe_os_error(exc)}{_where(exc, root)}") from None


def open_root(root: Path | str, config: BudgetConfig = BudgetConfig()) -> Snapshot:
    """Recover any interrupted change, then load the root."""
    recover(root)
    return load_root(root, config)


# ---------------------------------------------------------------- undo and redo


def undo(snapshot: Snapshot, cache: FindingsCache | None = None,
         timeout: float = LOCK_TIMEOUT) -> Applied:
    """Undo the newest committed change through the gate."""
    return commit(undo_plan(snapshot, cache), timeout)


def redo(snapshot: Snapshot, cache: FindingsCache | None = None,
         timeout: float = LOCK_TIMEOUT) -> Applied:
    """Redo the most recently undone change through the gate."""
    return commit(redo_plan(snapshot, cache), timeout)
