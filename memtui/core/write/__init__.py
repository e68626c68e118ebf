"""The only code that writes into a memory root: gate, lock, journal, atomic apply, recovery, undo.

This package is sealed: everyone outside it imports from here (the face), never from its modules.
It reads stored state through the two modules below it in the core, :mod:`memtui.core.model.journal` (the
journal's read side) and :mod:`memtui.core.model.safepath` (the safe-path checks), which the loader and the
caches read too.  Its layers, each importing only those below it: :mod:`.errors`, :mod:`.preview` (plan
and gate; pure), :mod:`.fs` (the filesystem seam, the lock, temp files, records, side files),
:mod:`.restore`, :mod:`.recovery`, :mod:`.rootcommit` (one root), :mod:`.group` (several roots),
:mod:`.protocol` (the ways in: ``attempt()``).

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
   + ``os.replace`` (permission bits kept, never setuid/setgid/sticky; a descriptor on the
   replaced file is kept across the rename, and bytes another program wrote to it in between
   roll the change back with them as the file's before-image), each create and move as
   hard link + unlink (which fails, rather than overwrites, when another program created the
   target meanwhile), fsyncs the folders, and renames the record to committed.
3. Any failure while applying rolls back what was applied from the record and raises
   :class:`WriteFailed` (the folder is as it was).  A crash leaves a pending record, which
   :func:`recover` — run by :func:`open_root` and by every commit — restores byte for byte.
   Restoring only ever touches a path holding bytes memtui put there: whatever another
   program (the agent takes no lock) wrote meanwhile is left as it is, and named in the error
   or in :attr:`Recovered.message`.  It puts back modification times with the bytes, and first
   removes the failed change's own temp files (the space a full disk needs); a file the change
   replaced comes back as the old file itself, which the apply gave a second name in the
   journal (:func:`~memtui.core.write.fs.keep_replaced`), so a rollback on a full disk writes
   nothing new.

A folder may be hostile (someone else's copy, with its ``.memtui/``).  A pending record whose
paths are not plain paths inside the root (:func:`~memtui.core.model.journal.checked_record`) or run
through a symlinked folder is never applied: it is moved to ``.memtui/quarantine/`` and named in
:attr:`Recovered.message`; stored modes are clamped; nothing under ``.memtui/`` is reached
through a symlink (:class:`UnsafeFolder`); no folder memtui did not create is chmod-ed.

:func:`undo` and :func:`redo` replay the newest committed change backwards or forwards through the
same gate, whose baseline then also holds the errors and index size of the state returned to (a
change that repaired a broken folder can be undone; nothing new can be broken by it).  Undoing a
created file moves it into ``.memtui/attic/`` — nothing is ever erased.  A folder a change creates
is part of it: a rollback removes it, an undo removes it (when it leaves it empty) within its own
apply, before its commit mark — so a rollback of the undo makes it again — and a redo makes it
again.
Every filesystem call goes through :data:`memtui.core.write.fs.disk`, so tests can inject faults at any step.

The public API (everything callers need is importable from here):

- operations and changesets — :class:`~memtui.core.model.changeset.Write`, ``Create``, ``Move``,
  ``Changeset`` (built by :mod:`memtui.core.verbs.lifecycle`, or by hand);
- :func:`plan` → :class:`Preview` (``accepted``, ``gate``, ``after``, ``cache``, ``findings``,
  ``new_findings``, ``to_json()``); :func:`commit` → :class:`Applied`; :func:`run` does both;
- :func:`undo_plan` / :func:`redo_plan` / :func:`undo` / :func:`redo`; :func:`journal_log`;
- :func:`open_root` (recover, then load), :func:`recover`, :func:`root_lock`;
- a change over several roots (a promotion between layers) is :mod:`memtui.core.write.group`,
  built on :func:`prepare` / :class:`Prepared` (the checks and the record of one root's half);
  its pending halves are finished or restored by :func:`recover` as its coordinator decided, and
  :func:`commit` of an undo or redo of it replays every half;
- memtui's own bookkeeping files (``.memtui/…``, the pressure log): :func:`write_side_file`,
  :func:`append_side_file` — same lock, same safe file layer; a file outside any memory folder
  (the caches, Claude Code's settings) is written by :func:`replace_file`; a memory folder that
  does not exist yet (a project's first note) is made by :func:`make_root`;
- errors: :class:`TxnError` and its kinds :class:`Refused`, :class:`Busy`,
  :class:`ChangedOnDisk` (and :class:`ReadOnlyFile`), :class:`WriteFailed`,
  :class:`NothingToUndo`, :class:`UnsafeFolder`; :func:`describe_os_error` says what an
  ``OSError`` means in the writer's words ("the disk is full").

Typical use (what the CLI and the app do: one way in, the gate, the lock and recovery
included)::

    outcome = write.attempt(root, lambda snapshot: write.plan(snapshot, verbs.pin(snapshot, "a.md")))
    if not outcome.accepted:
        print(write.refusal_text(outcome.preview.gate))  # the gate said no: nothing was written

The face loads its modules as they are first asked for (``write.replace_file`` loads the file
layer only, not the gate): a hook or a cache that writes one side file does not pay for the
rest of the writer.
"""

from __future__ import annotations

import types

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover - what the names are, for the type checker
    from ..model.changeset import Changeset, Create, Move, Write
    from ..model.journal import LogEntry, journal_log
    from .errors import (
        Busy,
        ChangedOnDisk,
        NothingToUndo,
        ReadOnlyFile,
        Refused,
        TxnError,
        UnsafeFolder,
        WriteFailed,
    )
    from .fs import (
        LOCK_TIMEOUT,
        append_side_file,
        describe_os_error,
        make_root,
        remove_side_file,
        replace_file,
        root_lock,
        side_files,
        write_side_file,
    )
    from .group import (
        GroupApplied,
        GroupPreview,
        commit_group,
        group_of,
        plan_group,
        replay_group_plan,
    )
    from .preview import (
        Baseline,
        Preview,
        RefusalLine,
        baseline_of,
        inverse,
        plan,
        redo_plan,
        refusal_lines,
        refusal_text,
        undo_plan,
    )
    from .protocol import (
        Attempt,
        GroupAttempt,
        attempt,
        attempt_group,
        commit,
        redo,
        run,
        undo,
    )
    from .recovery import Recovered, open_root, recover
    from .rootcommit import Applied, Prepared, prepare

#: each public name and the module it is defined in (relative to this package)
WHERE = {
    **dict.fromkeys(("Changeset", "Create", "Move", "Write"), "..model.changeset"),
    **dict.fromkeys(("LogEntry", "journal_log"), "..model.journal"),
    **dict.fromkeys(("Busy", "ChangedOnDisk", "NothingToUndo", "ReadOnlyFile", "Refused", "TxnError",
                     "UnsafeFolder", "WriteFailed"), ".errors"),
    **dict.fromkeys(("LOCK_TIMEOUT", "append_side_file", "describe_os_error", "make_root",
                     "remove_side_file", "replace_file", "root_lock", "side_files", "write_side_file"), ".fs"),
    **dict.fromkeys(("GroupApplied", "GroupPreview", "commit_group", "group_of", "plan_group",
                     "replay_group_plan"), ".group"),
    **dict.fromkeys(("Baseline", "Preview", "RefusalLine", "baseline_of", "inverse", "plan",
                     "redo_plan", "refusal_lines", "refusal_text", "undo_plan"), ".preview"),
    **dict.fromkeys(("Attempt", "GroupAttempt", "attempt", "attempt_group", "commit", "redo", "run",
                     "undo"), ".protocol"),
    **dict.fromkeys(("Recovered", "open_root", "recover"), ".recovery"),
    **dict.fromkeys(("Applied", "Prepared", "prepare"), ".rootcommit"),
}

__all__ = [
    "Applied",
    "Attempt",
    "Baseline",
    "Busy",
    "ChangedOnDisk",
    "Changeset",
    "Create",
    "GroupApplied",
    "GroupAttempt",
    "GroupPreview",
    "LOCK_TIMEOUT",
    "LogEntry",
    "Move",
    "NothingToUndo",
    "Prepared",
    "Preview",
    "ReadOnlyFile",
    "Recovered",
    "RefusalLine",
    "Refused",
    "TxnError",
    "UnsafeFolder",
    "Write",
    "WriteFailed",
    "append_side_file",
    "attempt",
    "attempt_group",
    "baseline_of",
    "commit",
    "commit_group",
    "describe_os_error",
    "group_of",
    "inverse",
    "journal_log",
    "make_root",
    "open_root",
    "plan",
    "plan_group",
    "prepare",
    "recover",
    "redo",
    "redo_plan",
    "refusal_lines",
    "refusal_text",
    "remove_side_file",
    "replace_file",
    "replay_group_plan",
    "root_lock",
    "run",
    "side_files",
    "undo",
    "undo_plan",
    "write_side_file",
]


def __getattr__(name: str) -> object:
    """A public name, loaded from its module when first asked for (PEP 562)."""
    where = WHERE.get(name)
    if where is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(_module(where), name)
    globals()[name] = value
    return value


def _module(where: str) -> types.ModuleType:
    """The module of :data:`WHERE` named ``where``, imported (each import written out)."""
    if where == "..model.changeset":
        import memtui.core.model.changeset as changeset
        return changeset
    if where == "..model.journal":
        import memtui.core.model.journal as journal
        return journal
    if where == ".errors":
        import memtui.core.write.errors as errors
        return errors
    if where == ".fs":
        import memtui.core.write.fs as fs
        return fs
    if where == ".group":
        import memtui.core.write.group as group
        return group
    if where == ".preview":
        import memtui.core.write.preview as preview
        return preview
    if where == ".protocol":
        import memtui.core.write.protocol as protocol
        return protocol
    if where == ".recovery":
        import memtui.core.write.recovery as recovery
        return recovery
    if where == ".rootcommit":
        import memtui.core.write.rootcommit as rootcommit
        return rootcommit
    raise AssertionError(f"WHERE names no module {where!r}")


def __dir__() -> list[str]:
    return sorted({*globals(), *__all__})
