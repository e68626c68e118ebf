"""Recovery: finish (restore) every interrupted change of a root before anything else reads or writes it.

A pending record whose paths are not plain paths inside the root, or that runs through a
symlinked folder, is never applied: it is moved to ``.memtui/quarantine/`` and named in
:attr:`Recovered.message`.  A pending half of a change over several roots follows its
coordinator's decision (:func:`resolve_pending`).
"""

from __future__ import annotations

import errno
import os
import re
import stat
from pathlib import Path
from typing import Any, Iterable

from ..model.changeset import op_from_json
from ..model.journal import (
    COMMITTED,
    JOURNAL_DIR,
    PENDING,
    ROLLED_BACK,
    JournalError,
    RecordName,
    checked_record,
    decode_value,
    journal_dir,
    list_records,
    parse_name,
    read_record,
    record_file,
    records_of,
)
from ..model.safepath import MEMTUI_DIR, UnsafePath, symlinked_parent
from ..model.snapshot import BudgetConfig, Snapshot
from ..read.store import load_root
from .errors import Busy, TxnError, WriteFailed
from .fs import (
    LOCK_TIMEOUT,
    QUARANTINE_DIR,
    abs_path,
    describe_os_error,
    disk,
    ensure_dir,
    is_kept_name,
    mark_record,
    move_file,
    private_dir_exists,
    remove_kept,
    root_lock,
    where,
)
from .restore import left_alone_words, remade_words, remove_empty_created_dirs, restore_record


def _warn(message: str, *args: object) -> None:
    """A warning on the ``memtui`` logger (logging is imported only when one is given: most
    processes that load the writer never recover anything, and importing it costs ~6 ms)."""
    import logging

    logging.getLogger("memtui").warning(message, *args)


def told(root: Path, recovered: Recovered) -> Recovered:
    """Say what recovery did on the ``memtui`` logger, for a caller that hands the
    :class:`Recovered` to no one (:func:`open_root`, a commit's own recovery): the callers that
    keep it (:func:`~memtui.core.write.attempt`, the CLI, the app) say its ``message`` once
    themselves, and the logger stays quiet for them."""
    if recovered.message:
        _warn("recovering %s: %s", root, recovered.message)
    return recovered

#: the key of a record that is one half of a change over several roots
GROUP = "group"

class Recovered(list):  # type: ignore[type-arg]
    """The ids of the interrupted changes :func:`recover` restored (a list of ``str``).

    ``left_alone`` maps an id to the paths its restore left untouched because another program
    wrote them after the crash; ``quarantined`` maps a record's file name to why it was set aside
    unapplied; :attr:`message` says both in words ("" when there is nothing to say).
    """

    def __init__(self, ids: Iterable[str] = (), left_alone: dict[str, list[str]] | None = None,
                 quarantined: dict[str, str] | None = None,
                 remade: dict[str, list[str]] | None = None) -> None:
        super().__init__(ids)
        self.left_alone: dict[str, list[str]] = dict(left_alone or {})
        self.quarantined: dict[str, str] = dict(quarantined or {})
        self.remade: dict[str, list[str]] = dict(remade or {})  # folder made again -> paths put back

    @property
    def message(self) -> str:
        parts = []
        for name, why in self.quarantined.items():
            parts.append(f"memtui set aside the journal record {JOURNAL_DIR}/{name} as "
                         f"{QUARANTINE_DIR}/{name}, not applied: {why} (memtui never writes such a "
                         "record; the folder may come from someone else — nothing it names was "
                         "touched)")
        if self.remade:
            parts.append(remade_words(self.remade))
        paths = [p for left in self.left_alone.values() for p in left]
        if paths:
            parts.append("memtui finished an interrupted change" + left_alone_words(list(dict.fromkeys(paths))))
        return "; ".join(parts)


def _check_record(record: Any, value: dict[str, Any]) -> dict[str, Any]:
    """The record made safe to restore, or an error naming the file and what to do.

    :class:`JournalError` when it is damaged; :class:`~memtui.core.model.safepath.UnsafePath` when it
    names a path that is not a plain path inside the root (see
    :func:`~memtui.core.model.journal.checked_record`).
    """
    try:
        for op in value.get("ops", []):
            op_from_json(op)
        for data in value.get("before", {}).values():
            decode_value(data)
        for mode in value.get("modes", {}).values():
            int(mode)
        for folder in (*value.get("created_dirs", []), *value.get("removed_dirs", [])):
            if not isinstance(folder, str):
                raise JournalError(f"folder {folder!r} is not a path")
    except (JournalError, AttributeError, KeyError, TypeError, ValueError) as exc:
        raise JournalError(f"journal record {record.file} is damaged ({exc})") from None
    return checked_record(value)


def _check_disk_paths(root: Path, value: dict[str, Any]) -> None:
    """Raise :class:`UnsafePath` if a folder above a path the record names is a symlink."""
    paths = [*value["before"], *value["created_dirs"], *value["removed_dirs"]]
    for op in value["ops"]:
        paths.extend((op["src"], op["dst"]) if op.get("op") == "move" else (op["path"],))
    for rel in paths:
        folder = symlinked_parent(root, rel)
        if folder is not None:
            raise UnsafePath(f"'{folder}' above '{rel}' is a symlink or not a folder")


def quarantine_record(root: Path, name: str) -> None:
    """Set a journal record memtui will not apply aside (see :func:`_quarantine`); under the lock."""
    _quarantine(root, name)


def _quarantine(root: Path, name: str) -> None:
    """Move a journal record memtui will not apply to ``.memtui/quarantine/`` (never erased)."""
    ensure_dir(root, QUARANTINE_DIR)
    dest, n = name, 1
    while os.path.lexists(abs_path(root, f"{QUARANTINE_DIR}/{dest}")):
        n += 1
        dest = f"{name}.{n}"
    move_file(abs_path(root, f"{JOURNAL_DIR}/{name}"), abs_path(root, f"{QUARANTINE_DIR}/{dest}"))
    disk.fsync_dir(abs_path(root, JOURNAL_DIR))


def resolve_pending(value: dict[str, Any], root: Path | str | None = None,
                    rid: str | None = None) -> bool | None:
    """For a pending half: True when its group committed (finish it), False when not (restore
    it), None when the record is not part of a group.

    Committed means: the coordinator is a real folder (not a symlink) whose journal holds the
    coordinator's half committed, and — given ``root`` and ``rid``, this half's root and record
    id — that half names this one back in its own ``group`` entry (same group id).  One record
    of the coordinator's journal is read, nothing else of it; anything else restores this half
    (the usual recovery, inside this root only).
    """
    info = value.get(GROUP)
    if not isinstance(info, dict):
        return None
    coordinator = info.get("coordinator")
    members = info.get("members")
    if not isinstance(members, list):
        return False
    theirs = next((m.get("record") for m in members
                   if isinstance(m, dict) and m.get("root") == coordinator), None)
    if not isinstance(coordinator, str) or not os.path.isabs(coordinator) or not isinstance(theirs, str):
        return False
    name = parse_name(record_file(theirs, COMMITTED))
    if name is None or name.id != theirs or not _real_folder(coordinator):
        return False
    if root is None or rid is None:
        return os.path.isfile(journal_dir(coordinator) / record_file(theirs, COMMITTED))
    try:
        other = read_record(coordinator, name)
    except JournalError:
        return False
    return names_back(other.get(GROUP), info.get("id"), root, rid)


def _real_folder(path: str) -> bool:
    """Whether ``path`` is a folder and not a symlink (its last part; lstat only)."""
    try:
        return stat.S_ISDIR(os.lstat(path).st_mode)
    except (OSError, ValueError):
        return False


def names_back(info: Any, group_id: Any, root: Path | str, rid: str) -> bool:
    """Whether a ``group`` entry read from another root's record is the group ``group_id`` and
    lists ``root`` (by real path) with the record ``rid`` among its members."""
    if not isinstance(info, dict) or not isinstance(group_id, str) or info.get("id") != group_id:
        return False
    members = info.get("members")
    if not isinstance(members, list):
        return False
    mine = os.path.realpath(root)
    return any(isinstance(m, dict) and isinstance(m.get("root"), str) and m.get("record") == rid
               and os.path.realpath(m["root"]) == mine for m in members)


def _group_committed(value: dict[str, Any], root: Path, rid: str) -> bool:
    """Whether a pending record is one half of a multi-root change that committed."""
    return resolve_pending(value, root, rid) is True


def recover_locked(root: Path) -> Recovered:
    """:func:`recover` with the root's lock held (every commit runs it first)."""
    return recover_listed(root)[0]


def recover_listed(root: Path, names: list[str] | None = None) -> tuple[Recovered, list[str]]:
    """:func:`recover_locked`, and the journal folder's names after it (what a commit goes on
    with).  ``names``: the folder's, as just listed under the lock (then it is listed again
    only when recovery changed it)."""
    if not private_dir_exists(root, JOURNAL_DIR):
        _tidy(root, [])
        return Recovered(), []
    folder = journal_dir(root)
    restored: list[str] = []
    left_alone: dict[str, list[str]] = {}
    quarantined: dict[str, str] = {}
    remade: dict[str, list[str]] = {}
    if names is None:
        names = os.listdir(folder)
    cut_off = sorted(name for name in names  # a record cut off while it was written; the old versions
                     if name.startswith(".") and name.endswith(".tmp") and not is_kept_name(name))
    for name in cut_off:  # a change kept stay until its record is restored
        disk.unlink(str(folder / name))
    records = records_of(names)
    pending = [record for record in reversed(records) if record.state == PENDING]
    for record in pending:
        try:
            value = _check_record(record, read_record(root, record))
            _check_disk_paths(root, value)
        except UnsafePath as exc:
            _quarantine(root, record.file)
            quarantined[record.file] = str(exc)
            continue
        except JournalError as exc:
            raise WriteFailed(
                f"cannot recover {root}: {exc}. It describes a change that was interrupted; "
                f"check the files it names by hand, then move {JOURNAL_DIR}/{record.file} out "
                "of the journal folder (or rename it to "
                f"{record_file(record.id, ROLLED_BACK)}) and open the folder again"
            ) from None
        if _group_committed(value, root, record.id):  # the coordinator decided it happened
            mark_record(root, record.id, COMMITTED)
            continue
        try:
            left = restore_record(root, record.id, value)
            mark_record(root, record.id, ROLLED_BACK)
        except OSError as exc:
            raise WriteFailed(_cannot_restore(root, record, exc)) from None
        restored.append(record.id)
        for made, paths in left.remade.items():
            remade.setdefault(made, []).extend(paths)
        if left:
            left_alone[record.id] = left
    if pending:  # records marked, restored or set aside: the folder as it is now
        names = os.listdir(folder)
        records = records_of(names)
    elif cut_off:
        names = [name for name in names if name not in cut_off]
    remove_kept(root, names=names)  # of changes that committed, or were set aside
    names = [name for name in names if not is_kept_name(name)]
    _tidy(root, records)
    return Recovered(restored, left_alone, quarantined, remade), names


def _cannot_restore(root: Path, record: RecordName, exc: OSError) -> str:
    """Why an interrupted change could not be put back, and the way out."""
    if exc.errno in (errno.ENOSPC, errno.EDQUOT):
        then = "free some space, then run any memtui change (it finishes the restore)"
    else:
        then = ("memtui tries again at its next change; if it keeps failing, check the files the "
                f"change names by hand (memtui log), then move {JOURNAL_DIR}/{record.file} out of "
                f"the journal folder (or rename it to {record_file(record.id, ROLLED_BACK)})")
    return (f"cannot recover {root}: {describe_os_error(exc)}{where(exc, root)} while putting back "
            f"the interrupted change {record.id} — {then}")


#: a side file's temp file (:func:`~memtui.core.write.fs.write_side_file`), left by a crash
_SIDE_TMP = re.compile(r"^\..+\.side\.[0-9a-f]{16}\.tmp$")


def _tidy(root: Path, records: list[RecordName] | None = None) -> None:
    """What a change cut off after its commit left behind, removed under the lock: the empty
    folders an undo's cleanup did not get to (``archive/`` after undoing the first archive),
    and the temp files of side-file writes (the seen store's pack: up to 32 MiB each).
    Best effort.  ``records``: the journal's, as just listed."""
    records = list_records(root) if records is None else records
    newest = records[-1] if records else None
    if (newest is not None and newest.state == COMMITTED and newest.kind == "undo"
            and newest.target is not None):
        try:
            remove_empty_created_dirs(root, newest.target)
        except (OSError, JournalError, UnsafePath):
            pass
    for rel in (MEMTUI_DIR, f"{MEMTUI_DIR}/seen"):
        try:
            if not private_dir_exists(root, rel):
                continue
            names = [n for n in os.listdir(abs_path(root, rel)) if _SIDE_TMP.match(n)]
        except (OSError, TxnError):
            continue
        for name in names:
            try:
                disk.unlink(abs_path(root, f"{rel}/{name}"))
            except OSError:
                pass


def recover(root: Path | str, timeout: float = LOCK_TIMEOUT) -> Recovered:
    """Finish an interrupted change: restore the before-images of every pending record.

    Returns the ids restored (a :class:`Recovered`, whose ``message`` names any path left alone
    because another program wrote it after the crash).  Touches nothing (not even the lock)
    when there is nothing to do; skips quietly when another memtui holds the lock (its change
    is not interrupted).
    """
    return recover_seen(root, timeout)[0]


def recover_seen(root: Path | str, timeout: float = LOCK_TIMEOUT) -> tuple[Recovered, list[str] | None]:
    """:func:`recover`, and the journal folder's names as it saw or left them (None when there is
    no journal folder): one listing when nothing is to be done."""
    root = Path(root).absolute()
    folder = journal_dir(root)
    try:
        if not private_dir_exists(root, JOURNAL_DIR):
            return Recovered(), None
        names = os.listdir(folder)
    except OSError:
        return Recovered(), None
    if not any(n.endswith(".pending.json") or (n.startswith(".") and n.endswith(".tmp")) for n in names):
        return Recovered(), names
    try:
        with root_lock(root, timeout):
            return recover_listed(root)
    except Busy:
        return Recovered(), names
    except OSError as exc:
        raise WriteFailed(f"cannot recover {root}: {describe_os_error(exc)}{where(exc, root)}") from None


def open_root(root: Path | str, config: BudgetConfig = BudgetConfig()) -> Snapshot:
    """Recover any interrupted change (what it did goes to the logger), then load the root."""
    told(Path(root).absolute(), recover(root))
    return load_root(root, config)
