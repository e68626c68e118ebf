"""Putting a journal record's before-images back: rollback of a failed apply and recovery's restore.

Restoring only ever touches a path holding bytes memtui put there: whatever another program (the
agent takes no lock) wrote meanwhile is left as it is, and named.  Modification times come back
with the bytes; a file the change created moves into ``.memtui/attic/`` (nothing is erased).
"""

from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any, Iterable

from ..model.changeset import ATTIC_DIR, Move, Operation, in_attic, is_archive_index, op_from_json
from ..model.journal import (
    COMMITTED,
    JOURNAL_DIR,
    PENDING,
    ROLLED_BACK,
    checked_record,
    decode_value,
    journal_dir,
    list_records,
    read_record,
    record_file,
)
from ..model.safepath import symlinked_parent
from .errors import ChangedOnDisk, TxnError, WriteFailed
from .fs import (
    abs_path,
    describe_os_error,
    disk,
    ensure_dir,
    kept_versions,
    move_file,
    new_file_mode,
    open_replaced,
    read_fd,
    read_file,
    remove_kept,
    remove_tmps,
    tmp_path,
    unlink_tmps,
    where,
)


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


def _replace_watching(root: Path, rid: str, rel: str, tmp: str, path: str, current: bytes,
                      mode: int) -> bool:
    """Replace ``path`` (holding ``current``) by ``tmp``; False when another program wrote it
    before or during the rename — then it keeps that program's bytes (the replaced file is read
    again through a descriptor kept across the rename, and put back if it grew meanwhile)."""
    fd = open_replaced(path)
    try:
        if (read_fd(fd) if fd is not None else read_file(path)) != current:
            return False
        disk.replace(tmp, path)
        if fd is None:
            return True
        after = read_fd(fd)
        if after == current:
            return True
        st = os.fstat(fd)
        again = tmp_path(root, rel, rid)
        disk.write_tmp(again, after, mode)
        disk.utime(again, (st.st_atime_ns, st.st_mtime_ns))
        disk.replace(again, path)
        return False
    finally:
        if fd is not None:
            os.close(fd)


def _attic_dest(root: Path, rid: str, rel: str) -> str:
    """A free attic path for ``rel`` under the record's folder (``name.2.md``… when taken)."""
    dest = f"{ATTIC_DIR}/{rid}/{rel}"
    stem, dot, ext = dest.rpartition(".")
    if "/" in ext:
        stem, dot, ext = dest, "", ""
    n = 1
    while os.path.lexists(abs_path(root, dest)):
        n += 1
        dest = f"{stem}.{n}{dot}{ext}"
    return dest


class _Kept:
    """The old versions change ``rid`` kept (:func:`~memtui.core.write.fs.keep_replaced`), found
    by their bytes: a before-image one of them holds is put back by renaming it, which needs no
    new space (a full disk is the usual reason a change is rolled back)."""

    def __init__(self, root: Path, rid: str) -> None:
        self.by_size: dict[int, list[str]] = {}
        for path in kept_versions(root, rid):
            try:
                self.by_size.setdefault(os.lstat(path).st_size, []).append(path)
            except OSError:
                continue

    def take(self, data: bytes, mode: int | None) -> str | None:
        """A kept file holding exactly ``data`` with mode ``mode`` (taken: used once), or None."""
        for path in self.by_size.get(len(data), []):
            try:
                same = os.lstat(path).st_mode & 0o7777 == mode and read_file(path) == data
            except OSError:
                continue
            if same:
                self.by_size[len(data)].remove(path)
                return path
        return None


class Restored(list):  # type: ignore[type-arg]
    """What :func:`restore_record` did not put back: the paths it left as another program wrote
    them (a list of ``str``); ``remade`` maps each folder it had to make again (removed after
    the change was cut off) to the paths it put back in it."""

    def __init__(self, left: Iterable[str] = (), remade: dict[str, list[str]] | None = None) -> None:
        super().__init__(left)
        self.remade: dict[str, list[str]] = dict(remade or {})


def restore_record(root: Path, rid: str, record: dict[str, Any]) -> Restored:
    """Put every path the record touched back to its before-image (idempotent).

    Only a path that holds bytes memtui put there (:func:`_known_bytes`) — or nothing — is
    restored or moved.  A path another program wrote meanwhile is left exactly as it is; those
    paths are returned, so the caller can tell the user.  A folder a before-image needs that is
    gone (a person removed it after a crash) is made again inside the root — never through a
    symlink: each part above it was checked to be a real folder or missing — so the folder
    comes back to the state before the change, and the caller says so (``remade``); where it
    cannot be made (a file of that name sits there now), the path is left as it is.

    It needs no new space where it can: a rewritten file comes back as the old file the change
    kept a second name of (:class:`_Kept`), moves go back as renames, and a created file whose
    move into the attic finds no room for the attic's folder is unlinked (it holds only bytes
    memtui wrote, which the record keeps).  Its own temp files go whether it succeeds or not;
    the kept old versions go only when it succeeds (a restore that fails is finished later from
    the same record, and may need them again).
    """
    try:
        restored = _restore(root, rid, record)
    except BaseException:
        try:
            remove_tmps(root, record.get("before", {}), rid)
        except OSError:
            pass
        raise
    remove_kept(root, rid)
    return restored


def _restore(root: Path, rid: str, record: dict[str, Any]) -> Restored:
    ops = [op_from_json(op) for op in record.get("ops", [])]
    before = {path: decode_value(value) for path, value in record.get("before", {}).items()}
    modes: dict[str, int] = {k: int(v) for k, v in record.get("modes", {}).items()}
    times: dict[str, Any] = record.get("times", {})
    known = _known_bytes(ops, before)
    left: list[str] = []
    dirty: dict[str, None] = {}
    # first, the space the failed change's own temp files hold (a full disk is the usual cause)
    remove_tmps(root, before, rid)
    kept = _Kept(root, rid)
    # the folders an undo removed (it made them empty): they were there before it
    for folder in sorted(record.get("removed_dirs", []), key=lambda f: f.count("/")):
        path = abs_path(root, folder)
        if (not os.path.lexists(path) and symlinked_parent(root, folder) is None
                and os.path.isdir(os.path.dirname(path))):
            disk.mkdir(path)
            dirty[os.path.dirname(path)] = None

    def ours(rel: str, path: str) -> bool:
        return (symlinked_parent(root, rel) is None and not os.path.islink(path)
                and read_file(path) in known.get(rel, ()))

    def leave(rel: str) -> None:
        if rel not in left:
            left.append(rel)

    made: list[str] = []  # folders made again, outermost first
    remade: dict[str, list[str]] = {}

    def folders_for(rel: str) -> bool:
        """Make the folders above ``rel`` that are gone; False when one cannot be made."""
        parts = rel.split("/")[:-1]
        for i in range(len(parts)):
            folder = "/".join(parts[: i + 1])
            path = abs_path(root, folder)
            if os.path.isdir(path) and not os.path.islink(path):
                continue
            try:
                disk.mkdir(path)
            except (FileExistsError, NotADirectoryError, PermissionError):
                return False  # something else sits there now: left as it is
            made.append(folder)
            dirty[os.path.dirname(path)] = None
        top = next((f for f in made if rel.startswith(f + "/")), None)
        if top is not None:
            remade.setdefault(top, []).append(rel)
        return True

    for op in reversed(ops):
        if not isinstance(op, Move):
            continue
        src, dst = abs_path(root, op.src), abs_path(root, op.dst)
        if not os.path.lexists(dst):
            continue
        if os.path.lexists(src):
            # a crash between linking the new name and unlinking the old: two names, one file
            if (not os.path.islink(src) and not os.path.islink(dst)
                    and os.path.samefile(src, dst)):
                disk.unlink(dst)
                dirty[os.path.dirname(dst)] = None
            continue
        if not ours(op.dst, dst) or symlinked_parent(root, op.src) is not None or not folders_for(op.src):
            leave(op.dst)
            continue
        moved = read_file(dst)
        try:
            move_file(dst, src)
        except FileExistsError:  # another program created the old name just now
            leave(op.src)
            continue
        if moved is not None:
            known.setdefault(op.src, set()).add(moved)
        dirty[os.path.dirname(src)] = dirty[os.path.dirname(dst)] = None
    for rel, data in before.items():
        if data is None or in_attic(rel):
            continue
        path = abs_path(root, rel)
        current = read_file(path) if os.path.lexists(path) else None
        if current == data and not os.path.islink(path):
            continue
        if ((current is not None and not ours(rel, path)) or symlinked_parent(root, rel) is not None
                or (current is None and not folders_for(rel))):
            leave(rel)
            continue
        mode = modes.get(rel)
        tmp = kept.take(data, mode)  # the old file itself: renamed back, nothing written
        if tmp is None:
            tmp = tmp_path(root, rel, rid)
            disk.write_tmp(tmp, data, mode if mode is not None else new_file_mode())
        if rel in times:
            disk.utime(tmp, (int(times[rel][0]), int(times[rel][1])))
        if current is None:
            try:
                move_file(tmp, path)  # never over a file that appeared meanwhile
            except FileExistsError:
                leave(rel)
        elif not _replace_watching(root, rid, rel, tmp, path, current,
                                   mode if mode is not None else new_file_mode()):
            leave(rel)  # written by another program while memtui was restoring
        dirty[os.path.dirname(path)] = None
    for rel, data in before.items():
        path = abs_path(root, rel)
        if data is not None or in_attic(rel) or not os.path.lexists(path):
            continue
        if not ours(rel, path):
            leave(rel)
            continue
        dest = _attic_dest(root, rid, rel)
        try:
            ensure_dir(root, dest.rpartition("/")[0])
        except OSError as exc:
            if exc.errno not in (errno.ENOSPC, errno.EDQUOT):
                raise
            disk.unlink(path)  # no room for the attic's folder: memtui's own bytes, in the record
            dirty[os.path.dirname(path)] = None
            continue
        try:
            move_file(path, abs_path(root, dest))
        except FileExistsError:  # pragma: no cover - the attic path was free a moment ago
            leave(rel)
        dirty[os.path.dirname(path)] = None
    remove_tmps(root, before, rid)
    for folder in reversed(record.get("created_dirs", [])):
        path = abs_path(root, folder)
        if (symlinked_parent(root, folder) is None and not os.path.islink(path)
                and os.path.isdir(path) and not os.listdir(path)):
            disk.rmdir(path)
            dirty[os.path.dirname(path)] = None
    for folder in dirty:
        if os.path.isdir(folder):
            disk.fsync_dir(folder)
    return Restored(left, remade)


def remade_words(remade: dict[str, list[str]]) -> str:
    """The words telling the user which folders a restore made again, and what it put in them."""
    parts = []
    for folder, paths in remade.items():
        shown = ", ".join(paths[:5]) + (" …" if len(paths) > 5 else "")
        parts.append(f"memtui made the folder {folder}/ again to put back {shown} as it was before "
                     f"an interrupted change (the folder was removed after the change was cut off) "
                     f"— remove it again if you meant to")
    return "; ".join(parts)


def left_alone_words(paths: list[str]) -> str:
    """The words telling the user which paths a restore left as another program wrote them."""
    if not paths:
        return ""
    shown = ", ".join(paths[:5]) + (" …" if len(paths) > 5 else "")
    return (f"; left {shown} as another program wrote it meanwhile (memtui never overwrites "
            "that) — check it by hand")


def rollback(root: Path, rid: str, record: dict[str, Any], cause: BaseException) -> TxnError:
    """Undo a failed apply; the error to raise (the folder is unchanged unless it says so)."""
    why = describe_os_error(cause) + where(cause, root) if isinstance(cause, OSError) else str(cause)
    folder = journal_dir(root)
    written = next(
        (folder / record_file(rid, state) for state in (PENDING, COMMITTED)
         if (folder / record_file(rid, state)).exists()),
        None,
    )
    left: list[str] = []
    try:
        if written is not None:
            left = restore_record(root, rid, record)
            disk.replace(str(written), str(folder / record_file(rid, ROLLED_BACK)))
            disk.fsync_dir(str(folder))
        else:
            unlink_tmps(root, JOURNAL_DIR, {f".{rid}."})
    except OSError as exc:
        return WriteFailed(
            f"cannot change {root}: {why}; restoring the folder also failed "
            f"({describe_os_error(exc)}) — memtui finishes the restore from its journal the next "
            "time it opens this folder"
        )
    if isinstance(cause, ChangedOnDisk):
        if left:
            return ChangedOnDisk(f"{cause}{left_alone_words(left)}", tuple(dict.fromkeys((*cause.paths, *left))))
        return cause
    if left:
        return WriteFailed(f"cannot change {root}: {why}; the rest was restored{left_alone_words(left)}")
    return WriteFailed(f"cannot change {root}: {why}; nothing was changed")

def created_dirs_of(root: Path, target: int) -> list[str]:
    """The folders the committed do/redo records of change ``target`` created that are real
    folders now, deepest first: what an undo of it removes when it leaves them empty."""
    folders: list[str] = []
    for name in list_records(root):
        if name.state == COMMITTED and ((name.kind == "do" and name.seq == target)
                                        or (name.kind == "redo" and name.target == target)):
            folders.extend(checked_record(read_record(root, name)).get("created_dirs", []))
    return [folder for folder in sorted(set(folders), key=lambda f: f.count("/"), reverse=True)
            if symlinked_parent(root, folder) is None and not os.path.islink(abs_path(root, folder))
            and os.path.isdir(abs_path(root, folder))]


def remove_empty_dirs(root: Path, folders: list[str]) -> None:
    """Remove each of ``folders`` (deepest first) that is an empty real folder now."""
    for folder in folders:
        path = abs_path(root, folder)
        if (symlinked_parent(root, folder) is None and not os.path.islink(path)
                and os.path.isdir(path) and not os.listdir(path)):
            disk.rmdir(path)
            disk.fsync_dir(os.path.dirname(path))


def remove_empty_created_dirs(root: Path, target: int) -> None:
    """Remove the folders that the committed do/redo records of change ``target`` created, when
    they are empty now (deepest first; never through a symlink): what an undo recorded before
    its folders were part of it left behind."""
    remove_empty_dirs(root, created_dirs_of(root, target))
