"""A file verb on many files as one changeset (marks in the app, several FILEs on the command line).

The result is what applying the verb to each file in turn gives (:func:`memtui.core.verbs.lifecycle.compose`
— a test holds the two equal), built in one pass: each index is edited once for all the files
instead of once per file, so a thousand files take about as long as a few.  A file the verb does
not apply to refuses the whole change with the verb's own reason, unless ``skip`` leaves it out.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Callable, Iterable

from ..model.changeset import AlreadyDone, Changeset, Move, Operation, Refusal, VerbError
from ..model.frontmatter import clear_key, set_key
from ..model.index_edit import IndexDraft, new_entry, portable_raw
from ..model.snapshot import ARCHIVE_DIR, INDEX_NAME, MemoryFile, Snapshot
from ..tidy.lines import keep_erased
from . import lifecycle as verbs
from .lifecycle import (
    _clear_pinned,
    _draft,
    _draft_op,
    _file,
    _in_archive,
    _superseded,
    _text_write,
    normalize_path,
    region_covers,
)

#: the verbs that take files and can run on many at once
BULK_VERBS = ("pin", "unpin", "decay", "promote", "archive", "restore")


@dataclass
class _Batch:
    """The shared state of one bulk change: both index drafts and the topic-file operations."""

    snapshot: Snapshot
    index: IndexDraft
    archive: IndexDraft
    hooks: dict[str, str]
    ops: list[Operation]
    new_hook: str | None = None

    def hook(self, f: MemoryFile) -> str:
        """The hook an entry for ``f`` should carry (:func:`verbs.hook_for`, looked up once)."""
        return self.hooks.get(f.path) or f.description or f.title


def _hooks(snapshot: Snapshot) -> dict[str, str]:
    hooks: dict[str, str] = {}
    for index in (snapshot.index, snapshot.archive_index):
        for line in index.entries:
            if line.resolved and line.hook and line.resolved not in hooks:
                hooks[line.resolved] = line.hook
    return hooks


# ------------------------------------------------------------------ per verb: check, then edit

def _check_pin(batch: _Batch, f: MemoryFile) -> None:
    if _in_archive(f.path) or f.status == "archived":
        raise Refusal(f"'{f.path}' is archived; restore it before pinning")
    if _superseded(f):
        raise Refusal(f"'{f.path}' is superseded; pin its successor instead")
    if f.pinned and any(batch.index.in_block(line, "Pinned") for line in batch.index.entries_for(f.path)):
        raise AlreadyDone(f"'{f.path}' is already pinned")


def _pin(batch: _Batch, files: list[MemoryFile]) -> None:
    raws: list[str] = []
    moving: set[str] = set()
    for f in files:
        if not f.pinned:
            batch.ops.append(_text_write(f, set_key(f.text, "pinned", "true")))
        entries = batch.index.entries_for(f.path)
        if not any(batch.index.in_block(line, "Pinned") for line in entries):
            raws.append(portable_raw(entries[0], f, f.path) if entries else new_entry(f, batch.hook(f)))
            moving.add(f.path)
    batch.archive.remove_entries_of({f.path for f in files})
    batch.index.remove_entries_of(moving)
    if raws:
        batch.index.add_pinned(*raws)


def _check_unpin(batch: _Batch, f: MemoryFile) -> None:
    if not f.pinned:
        raise AlreadyDone(f"'{f.path}' is not pinned")


def _unpin(batch: _Batch, files: list[MemoryFile]) -> None:
    raws: list[str] = []
    moving: set[str] = set()
    for f in files:
        batch.ops.append(_text_write(f, _clear_pinned(f.text)))
        in_pinned = [line for line in batch.index.entries_for(f.path)
                     if batch.index.in_block(line, "Pinned")]
        if in_pinned:
            raws.append(portable_raw(in_pinned[0], f, f.path))
            moving.add(f.path)
    batch.index.remove_entries_of(moving)
    if raws:
        batch.index.add_recent(*reversed(raws))


def _check_decay(batch: _Batch, f: MemoryFile) -> None:
    if f.pinned:
        raise Refusal(f"'{f.path}' is pinned; unpin it first (pinned files never decay)")
    if _in_archive(f.path):
        raise AlreadyDone(f"'{f.path}' is archived, already out of the working set")
    if not batch.index.entries_for(f.path):
        raise AlreadyDone(f"'{f.path}' has no entry in {INDEX_NAME}; it is not in the working set")


def _decay(batch: _Batch, files: list[MemoryFile]) -> None:
    removed = batch.index.remove_entries_of({f.path for f in files})
    raws = [
        new_entry(f, removed[f.path][0].hook or f.description or f.title) for f in files
        if not region_covers(batch.snapshot.index, f.path) and not batch.archive.entries_for(f.path)
    ]
    if raws:
        batch.archive.append_entry(*raws)


def _check_promote(batch: _Batch, f: MemoryFile) -> None:
    if _in_archive(f.path) or f.status == "archived":
        raise Refusal(f"'{f.path}' is archived; restore it instead")
    if batch.index.entries_for(f.path):
        raise AlreadyDone(f"'{f.path}' is already in the working set")


def _promote(batch: _Batch, files: list[MemoryFile]) -> None:
    batch.index.add_recent(*reversed([new_entry(f, batch.new_hook or batch.hook(f)) for f in files]))
    batch.archive.remove_entries_of({f.path for f in files})


def _check_archive(batch: _Batch, f: MemoryFile, confirm: bool) -> None:
    if _in_archive(f.path):
        raise AlreadyDone(f"'{f.path}' is already archived")
    if f.pinned and not confirm:
        raise Refusal(f"'{f.path}' is pinned; archiving it needs confirmation (--yes), and unpins it")
    if f"{ARCHIVE_DIR}/{f.path}" in batch.snapshot.files:
        raise Refusal(f"'{ARCHIVE_DIR}/{f.path}' already exists; rename one of them first")


def _archive(batch: _Batch, files: list[MemoryFile]) -> None:
    for f in files:
        if f.pinned:
            batch.ops.append(_text_write(f, _clear_pinned(f.text)))
        batch.ops.append(Move(f.path, f"{ARCHIVE_DIR}/{f.path}"))
    paths = {f.path for f in files}
    batch.index.remove_entries_of(paths)
    batch.archive.remove_entries_of(paths)
    batch.archive.append_entry(*[
        new_entry(replace(f, path=f"{ARCHIVE_DIR}/{f.path}"), batch.hook(f)) for f in files])


def _restore_target(f: MemoryFile) -> str:
    return f.path[len(ARCHIVE_DIR) + 1:] if _in_archive(f.path) else f.path


def _check_restore(batch: _Batch, f: MemoryFile) -> None:
    if not _in_archive(f.path) and f.status != "archived":
        raise Refusal(f"'{f.path}' is not archived")
    dst = _restore_target(f)
    if dst != f.path and dst in batch.snapshot.files:
        raise Refusal(f"'{dst}' exists; rename one of them before restoring '{f.path}'")


def _restore(batch: _Batch, files: list[MemoryFile]) -> None:
    raws = []
    for f in files:
        dst = _restore_target(f)
        text = clear_key(f.text, "status") if f.status == "archived" else f.text
        if text != f.text:
            batch.ops.append(_text_write(f, text))
        if dst != f.path:
            batch.ops.append(Move(f.path, dst))
        raws.append(new_entry(replace(f, path=dst), batch.hook(f)))
    paths = {f.path for f in files}
    batch.archive.remove_entries_of(paths)
    batch.index.remove_entries_of(paths)
    batch.index.add_recent(*reversed(raws))


_VERBS: dict[str, tuple[Callable[..., None], Callable[[_Batch, list[MemoryFile]], None]]] = {
    "pin": (_check_pin, _pin),
    "unpin": (_check_unpin, _unpin),
    "decay": (_check_decay, _decay),
    "promote": (_check_promote, _promote),
    "archive": (_check_archive, _archive),
    "restore": (_check_restore, _restore),
}


def _resolve(snapshot: Snapshot, verb: str, path: str) -> MemoryFile:
    if verb == "restore":
        path = normalize_path(path)
        if path not in snapshot.files and f"{ARCHIVE_DIR}/{path}" in snapshot.files:
            path = f"{ARCHIVE_DIR}/{path}"
    return _file(snapshot, path)


def _single(snapshot: Snapshot, verb: str, path: str, confirm: bool, hook: str | None) -> Changeset:
    if verb == "archive":
        return verbs.archive(snapshot, path, confirm=confirm)
    if verb == "promote":
        return verbs.promote(snapshot, path, hook)
    single: Callable[[Snapshot, str], Changeset] = getattr(verbs, verb)
    return single(snapshot, path)


@dataclass(frozen=True)
class BulkChange:
    """A bulk changeset and the files left out of it (with why) when ``skip`` was asked."""

    changeset: Changeset
    skipped: tuple[tuple[str, str], ...] = ()


def bulk(snapshot: Snapshot, verb: str, paths: Iterable[str], *, confirm: bool = False,
         skip: bool = False, hook: str | None = None) -> BulkChange:
    """``verb`` on every file of ``paths`` as one changeset (``hook``: promote's entry text).

    A file the verb does not apply to raises its :class:`VerbError` (naming how many others
    were fine), or with ``skip`` is left out and listed in :attr:`BulkChange.skipped`.
    """
    if verb not in _VERBS:
        raise VerbError(f"'{verb}' cannot run on several files at once")
    check, apply = _VERBS[verb]
    batch = _Batch(snapshot, _draft(snapshot), _draft(snapshot, archive=True), _hooks(snapshot), [], hook)
    files: list[MemoryFile] = []
    seen: set[str] = set()
    skipped: list[tuple[str, str]] = []
    done: list[tuple[str, str]] = []  # files already as the verb would leave them
    for path in paths:
        try:
            f = _resolve(snapshot, verb, path)
            if f.path in seen:
                continue
            if verb == "archive":
                check(batch, f, confirm)
            else:
                check(batch, f)
        except AlreadyDone as exc:  # already as the verb leaves it: nothing to do for it
            done.append((normalize_path(path), str(exc)))
            continue
        except VerbError as exc:
            if not skip:
                raise type(exc)(f"{verb}: {exc}") from None  # a Refusal stays a refusal
            skipped.append((normalize_path(path), str(exc)))
            continue
        seen.add(f.path)
        files.append(f)
    if not files and done and not skipped:
        raise AlreadyDone(done[0][1] if len(done) == 1 else
                          f"all {len(done)} files are already so: {done[0][1]}, …")
    skipped += done
    if not files:
        raise (Refusal if skipped else VerbError)(f"{verb}: none of the {len(skipped)} files can be changed"
                        + (f" ({skipped[0][1]})" if skipped else ""))
    if len(files) == 1 and not skipped:  # one file: the verb itself, with its own description
        return BulkChange(_single(snapshot, verb, files[0].path, confirm, hook))
    apply(batch, files)
    ops = batch.ops + _draft_op(batch.index) + _draft_op(batch.archive)
    names = ", ".join(f.path for f in files[:3]) + (f", … ({len(files)} files)" if len(files) > 3 else "")
    description = f"{verb} {names}"
    if skipped:
        description += f"; {len(skipped)} left out"
    return BulkChange(keep_erased(snapshot, Changeset(verb, description, tuple(ops))), tuple(skipped))
