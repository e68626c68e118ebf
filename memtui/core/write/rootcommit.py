"""Committing one root's change: check the disk, write the journal record, apply, mark committed.

:func:`prepare` does the checks and builds the record under the root's lock (a change over
several roots, :mod:`memtui.core.write.group`, prepares one per root); :func:`commit_root` is
the whole protocol for one root.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from ..model.changeset import Create, Move, Operation, Write, is_archive_index, op_to_json, parent_dirs
from ..model.journal import (
    COMMITTED,
    JournalError,
    RecordName,
    decode_value,
    encode_bytes,
    journal_names,
    list_records,
    record_id,
    records_of,
    stacks,
)
from ..model.safepath import UnsafePath
from ..model.snapshot import Snapshot
from ..rules.incremental import FindingsCache
from .errors import ChangedOnDisk, ReadOnlyFile, Refused, TxnError, WrittenMeanwhile
from .fs import (
    LOCK_TIMEOUT,
    abs_path,
    disk,
    keep_replaced,
    mark_record,
    mode_of,
    move_file,
    new_file_mode,
    next_seq,
    open_replaced,
    prune_journal,
    read_fd,
    read_file,
    remove_kept,
    root_lock,
    tmp_path,
    write_record,
)
from .preview import Preview, baseline_of
from .recovery import recover_listed, told
from .restore import created_dirs_of, remove_empty_dirs, rollback


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


def _check_folders(root: Path, preview: Preview) -> None:
    """Refuse a change that would write through a symlinked folder (it may lead outside the root).

    Every folder above every path an operation touches is checked on disk (``islink``) and
    against the snapshot's symlinks leading outside.
    """
    for rel in preview.changeset.paths:
        for folder in parent_dirs(rel):
            if folder in preview.before.outside or os.path.islink(abs_path(root, folder)):
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
        path = abs_path(root, rel)
        if os.path.islink(path):
            raise ChangedOnDisk(f"'{rel}' is a symlink; memtui does not rewrite symlinks", (rel,))
        if read_file(path) != expected:
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
            if folder not in missing and not os.path.isdir(abs_path(root, folder)):
                if os.path.lexists(abs_path(root, folder)):
                    raise ChangedOnDisk(f"'{folder}' exists and is not a folder", (folder,))
                missing.append(folder)
    _check_folder_modes(root, preview, missing)
    return modes, times, missing


def _check_folder_modes(root: Path, preview: Preview, missing: list[str]) -> None:
    """Refuse a change that would write in an existing folder without any write bit (whoever
    runs memtui: as root, chmod alone does not stop the write)."""
    folders: dict[str, None] = {}
    for op in preview.changeset.ops:
        for rel in ((op.src, op.dst) if isinstance(op, Move) else (op.path,)):
            folders[rel.rpartition("/")[0]] = None
    for folder in folders:
        while folder in missing:  # the nearest folder that exists holds the new ones
            folder = folder.rpartition("/")[0]
        path = abs_path(root, folder) if folder else str(root)
        try:
            mode = os.stat(path).st_mode
        except OSError:
            continue
        if not mode & 0o222:
            shown = f"'{folder}'" if folder else str(root)
            raise ReadOnlyFile(
                f"{shown} is a read-only folder (mode {stat.S_IMODE(mode):04o}); memtui never "
                "writes in it — make it writable (chmod u+w) to change it; nothing was changed",
                (folder,))


def _apply_ops(root: Path, rid: str, ops: tuple[Operation, ...], modes: dict[str, int],
               missing: list[str], restores: dict[str, tuple[bytes, int, int]] | None = None) -> None:
    """Apply the operations; a write that puts back bytes in ``restores`` gets their times too
    (found by path, else by the bytes: a file a later operation moves, as a merge's sources)."""
    dirty: dict[str, None] = {}
    replaced: set[str] = set()  # paths whose old file is kept: a later write there replaces memtui's own
    by_bytes = {data: (data, atime, mtime) for data, atime, mtime in (restores or {}).values()}
    for op in ops:
        if isinstance(op, Move):
            target = op.dst
        else:
            target = op.path
        for folder in parent_dirs(target):
            if folder in missing and not os.path.isdir(abs_path(root, folder)):
                disk.mkdir(abs_path(root, folder))
                dirty[os.path.dirname(abs_path(root, folder))] = None
        dst = abs_path(root, target)
        if isinstance(op, Write):
            # the recorded mode, or (a file an earlier move put here) the file's own mode
            mode = modes.get(op.path)
            if mode is None:
                mode = mode_of(dst)
            tmp = tmp_path(root, op.path, rid)
            disk.write_tmp(tmp, op.data, mode)
            kept = (restores or {}).get(op.path) or by_bytes.get(op.data)
            if kept is not None and kept[0] == op.data:
                disk.utime(tmp, (kept[1], kept[2]))
            _replace_watching(root, rid, tmp, dst, op.path, op.expected, keep=op.path not in replaced)
            replaced.add(op.path)
        elif isinstance(op, Create):
            tmp = tmp_path(root, op.path, rid)
            disk.write_tmp(tmp, op.data, new_file_mode())
            kept = (restores or {}).get(op.path) or by_bytes.get(op.data)
            if kept is not None and kept[0] == op.data:  # a redo re-creating a file
                disk.utime(tmp, (kept[1], kept[2]))
            try:
                move_file(tmp, dst)
            except FileExistsError:
                raise ChangedOnDisk(f"'{op.path}' appeared on disk meanwhile", (op.path,)) from None
        else:
            try:
                move_file(abs_path(root, op.src), dst)
            except FileExistsError:
                raise ChangedOnDisk(f"'{op.dst}' appeared on disk meanwhile", (op.dst,)) from None
            dirty[os.path.dirname(abs_path(root, op.src))] = None
        dirty[os.path.dirname(dst)] = None
    for folder in dirty:
        disk.fsync_dir(folder)


def _replace_watching(root: Path, rid: str, tmp: str, dst: str, rel: str, expected: bytes,
                      keep: bool = True) -> None:
    """Replace ``dst`` (holding ``expected``) by ``tmp``, watching the replaced file.

    A descriptor on the old file is taken before the last look at its bytes and kept across the
    rename; afterwards the old file is read again through it.  Bytes another program added in
    between (an agent's append lands on the old file, which the rename unlinks) would be lost:
    :class:`WrittenMeanwhile` carries them, and the change is rolled back with them.  With
    ``keep`` (the first write of ``rel`` in the change: a later one replaces a version memtui
    wrote, which no rollback puts back), the old file keeps a second name in the journal until
    the change ends (:func:`keep_replaced`), so a rollback puts it back without writing it
    again (a full disk has no room for that).
    """
    fd = open_replaced(dst)
    try:
        if (read_fd(fd) if fd is not None else read_file(dst)) != expected:
            raise ChangedOnDisk(f"changed on disk — '{rel}' changed while memtui was writing; "
                                "reload and try again", (rel,))
        if fd is not None and keep:
            keep_replaced(root, rid, dst)
        disk.replace(tmp, dst)
        if fd is None:
            return
        after = read_fd(fd)
        if after != expected:
            st = os.fstat(fd)
            raise WrittenMeanwhile(rel, after, (st.st_atime_ns, st.st_mtime_ns), expected)
    finally:
        if fd is not None:
            os.close(fd)


def _keep_written_meanwhile(prepared: Prepared, error: WrittenMeanwhile) -> None:
    """Make the other program's bytes the record's before-image of their path (the pending
    record rewritten, fsynced), so that the rollback — or, after a crash, recovery — puts them
    back rather than the bytes memtui read.  An append to a version an earlier operation of the
    same change wrote is carried over to the file as it was before the change."""
    before = prepared.record["before"]
    key = error.path if error.path in before else next(
        (p for p in before if is_archive_index(p) and p.lower() == error.path.lower()), error.path)
    data = error.data
    old = decode_value(before.get(key))
    if old is not None and old != error.expected and data.startswith(error.expected):
        data = old + data[len(error.expected):]  # the appended bytes, on the file as it was
    before[key] = encode_bytes(data)
    prepared.record.setdefault("times", {})[key] = list(error.times)
    try:
        write_record(prepared.root, prepared.rid, prepared.record)
    except OSError:  # the rollback still restores them from the record in memory
        pass


@dataclass(frozen=True)
class Prepared:
    """A planned change checked under its root's lock: its journal id and record, ready to write.

    :func:`commit_root` writes one; :mod:`memtui.core.write.group` writes one per root of a change that
    spans several.
    """

    root: Path
    preview: Preview
    rid: str
    record: dict[str, Any]
    modes: dict[str, int]
    missing: list[str]
    removed: list[str] = field(default_factory=list)  # folders an undo removes when it empties them

    def write_record(self) -> None:
        """Write the journal record, pending (fsynced)."""
        write_record(self.root, self.rid, self.record)

    def apply(self) -> None:
        """Apply the changeset's operations (atomic per file; folders fsynced).  Bytes another
        program wrote to a file while it was being replaced become its before-image first
        (:class:`WrittenMeanwhile`), for the rollback to restore."""
        try:
            _apply_ops(self.root, self.rid, self.preview.changeset.ops, self.modes, self.missing,
                       dict(self.preview.restores))
        except WrittenMeanwhile as exc:
            _keep_written_meanwhile(self, exc)
            raise
        remove_empty_dirs(self.root, self.removed)  # part of the change: a rollback makes them again

    def rollback(self, cause: BaseException) -> TxnError:
        """Restore what was applied from the record; the error to raise."""
        return rollback(self.root, self.rid, self.record, cause)

    def tidy(self, names: list[str] | None = None) -> None:
        """After the change committed: unlink the old versions it kept for a rollback.  Best
        effort: what stays behind (a crash right now) the next recovery removes.  ``names``: the
        journal folder's, as just listed."""
        try:
            remove_kept(self.root, self.rid, names)
        except OSError:
            pass



def prepare(root: Path, preview: Preview, extra: dict[str, Any] | None = None,
            records: list[RecordName] | None = None) -> Prepared:
    """Check, holding ``root``'s lock, that the journal and the disk are as the preview planned;
    the record to write (``extra`` keys added to it).  Raises :class:`ChangedOnDisk` if not.
    ``records``: the journal's, as just listed under the lock."""
    records = list_records(root) if records is None else records
    if preview.kind != "do":
        st = stacks(records)
        expected = st.done[-1] if preview.kind == "undo" and st.done else (
            st.redo[0] if preview.kind == "redo" and st.redo else None)
        if expected != preview.target:
            raise ChangedOnDisk(f"the journal of {root} changed since this {preview.kind} was "
                                "planned; reload and try again")
    modes, times, missing = _check_disk(root, preview)
    removed: list[str] = []
    if preview.kind == "undo" and preview.target is not None:
        try:  # the folders the undone change made (archive/ on a first archive) go with it
            removed = created_dirs_of(root, preview.target)
        except (JournalError, UnsafePath):
            removed = []
    rid = record_id(next_seq(root, records), preview.kind, preview.target)
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
        "removed_dirs": removed,
        "baseline": baseline_of(preview).to_json(),
        **({"by": preview.changeset.by.to_json()} if preview.changeset.by is not None else {}),
        **(extra or {}),
    }
    return Prepared(root, preview, rid, record, modes, missing, removed)


def commit_root(preview: Preview, timeout: float = LOCK_TIMEOUT,
                journal: list[str] | None = None) -> Applied:
    """Write an accepted preview of one root's change to disk; raise :class:`TxnError` if not.

    The journal folder is listed once before the change (``journal``: its names, when the
    caller listed them holding the lock) and once after it."""
    if not preview.accepted:
        raise Refused(preview)
    root = Path(preview.before.root).absolute()
    with root_lock(root, timeout):
        recovered, names = recover_listed(root, journal)
        told(root, recovered)
        prepared = prepare(root, preview, records=records_of(names))
        try:
            prepared.write_record()
            prepared.apply()
            mark_record(root, prepared.rid, COMMITTED)
        except (Exception, KeyboardInterrupt) as exc:
            error = prepared.rollback(exc)
            if isinstance(exc, KeyboardInterrupt):
                raise
            raise error from exc
        after = journal_names(root) or []
        prepared.tidy(after)
        try:
            prune_journal(root, records_of(after))
        except OSError:
            pass
    return Applied(prepared.rid, preview, preview.after, preview.cache)
