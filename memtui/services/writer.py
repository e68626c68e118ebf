"""Changing the folder from the app: build a verb's changeset, show its verdict, apply, undo.

The app never writes a file itself.  It asks here for a :class:`Plan` (the verb's changeset
played on the snapshot and gated: its diff and the validator's verdict), shows it when the verb
asks first, and hands it back to :func:`apply`, which commits through the core's one writer
(:mod:`memtui.core.txn`: lock, journal, atomic replace).  Undo and redo are plans too.
When a core piece is missing from the build, :class:`WriterUnavailable` says so in words.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass, field
from datetime import date
from pathlib import Path
from typing import Any, Callable

from memtui.core.model import Finding, Snapshot


class WriterUnavailable(Exception):
    """The core's writer (txn / verbs) is not in this build."""


class VerbRefused(Exception):
    """A verb's precondition fails (decay of a pinned file, archive of an archived one …)."""


@dataclass(frozen=True)
class Plan:
    """A verb's changeset, played and gated, with everything the confirm dialog shows."""

    verb: str
    paths: tuple[str, ...]
    description: str
    accepted: bool
    refusing: tuple[Finding, ...] = ()
    reason: str = ""  # the gate's budget reason, if any
    diff: str = ""
    operations: tuple[str, ...] = ()  # one line per write / create / move
    new_findings: tuple[Finding, ...] = ()  # warnings (or accepted errors) the change adds
    preview: Any = None  # core.txn.Preview
    options: dict[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> str:
        if self.accepted:
            return "accepted by the validator: no new error, and the budget is not made worse"
        parts = [f"{f.rule}: {f.message}" for f in self.refusing]
        if self.reason:
            parts.append(self.reason)
        return "refused — " + "; ".join(parts) if parts else "refused"


@dataclass(frozen=True)
class Outcome:
    """What applying a plan did, in words for a notification, with the folder after it."""

    ok: bool
    message: str
    refusing: tuple[Finding, ...] = ()
    snapshot: Snapshot | None = None  # the snapshot after the change, when it was applied
    cache: Any = None  # its core.incremental.FindingsCache


def _module(name: str) -> Any:
    try:
        return importlib.import_module(f"memtui.core.{name}")
    except ImportError:
        return None


def available() -> bool:
    """Whether this build can change a folder (the core's txn and verbs modules exist)."""
    return _module("txn") is not None and _module("verbs") is not None


def merge_available() -> bool:
    return _merge_function() is not None


def _require() -> tuple[Any, Any]:
    txn, verbs = _module("txn"), _module("verbs")
    if txn is None or verbs is None:
        raise WriterUnavailable(
            "changing memory is not available in this build — the writer (core/txn.py, "
            "core/verbs.py) is missing; everything else works read-only"
        )
    return txn, verbs


def _merge_function() -> Callable[..., Any] | None:
    for module_name in ("merge", "verbs", "consolidate"):
        module = _module(module_name)
        function = getattr(module, "merge", None) if module is not None else None
        if callable(function):
            return function  # type: ignore[no-any-return]
    return None


def describe_ops(changeset: Any) -> tuple[str, ...]:
    """One line per operation: ``write x.md``, ``create y.md (120 bytes)``, ``move a → b``."""
    lines = []
    for op in getattr(changeset, "ops", ()):
        kind = type(op).__name__.lower()
        if kind == "move":
            lines.append(f"move    {op.src} → {op.dst}")
        elif kind == "create":
            lines.append(f"create  {op.path} ({len(op.data):,} bytes)")
        else:
            lines.append(f"write   {op.path}")
    return tuple(lines)


def build_changeset(snapshot: Snapshot, verb: str, paths: tuple[str, ...], options: dict[str, Any]) -> Any:
    """The core verb's changeset for ``verb`` on ``paths`` (raises :class:`VerbRefused`)."""
    txn, verbs = _require()
    from memtui.core.changeset import VerbError

    try:
        if verb in ("pin", "unpin", "decay", "promote", "restore"):
            return getattr(verbs, verb)(snapshot, paths[0])
        if verb == "archive":
            return verbs.archive(snapshot, paths[0], confirm=bool(options.get("confirm_pinned")))
        if verb == "supersede":
            return verbs.supersede(snapshot, paths[0], options["successor"], confirm=True)
        if verb == "rebuild":
            rebuild = getattr(verbs, "rebuild", None) or importlib.import_module(
                "memtui.core.rebuild").rebuild
            return rebuild(snapshot)
        if verb == "edit":
            return verbs.edit_file(snapshot, paths[0], options["data"])
        if verb == "drop-line":
            return drop_index_line(snapshot, options.get("index", "MEMORY.md"), int(options["line"]))
        if verb == "merge":
            merge = _merge_function()
            if merge is None:
                raise WriterUnavailable("merging is not available in this build yet (the merge "
                                        "verb is still being written)")
            return merge(snapshot, list(paths), **_merge_options(merge, options))
    except VerbError as exc:
        raise VerbRefused(str(exc)) from None
    raise VerbRefused(f"unknown change '{verb}'")


def drop_index_line(snapshot: Snapshot, index_path: str, number: int) -> Any:
    """A changeset removing one entry or region line from an index (a broken link, an empty
    region): the quick fix for those findings.  Every other byte of the index stays."""
    from memtui.core.changeset import Changeset, Write
    from memtui.core.index_edit import IndexDraft
    from memtui.core.model import LineKind

    index = snapshot.archive_index if index_path == snapshot.archive_index.path else snapshot.index
    if not index.exists or not 1 <= number <= len(index.lines):
        raise VerbRefused(f"{index_path} has no line {number}")
    line = index.lines[number - 1]
    if line.kind not in (LineKind.ENTRY, LineKind.REGION):
        raise VerbRefused(f"line {number} of {index_path} is not an entry or a region pointer")
    draft = IndexDraft(index, snapshot.files.__contains__)
    draft.remove([number - 1])
    shown = line.raw.strip()
    shown = shown if len(shown) <= 60 else shown[:59] + "…"
    return Changeset("drop-line", f"remove line {number} of {index.path}: {shown}",
                     (Write(index.path, draft.render(), index.render()),))


def _merge_options(merge: Callable[..., Any], options: dict[str, Any]) -> dict[str, Any]:
    """The options the core's merge takes, by name (gist text, confirmation of pinned files)."""
    import inspect

    accepted = set(inspect.signature(merge).parameters)
    out: dict[str, Any] = {}
    for name in ("gist", "gist_text", "body", "gist_body"):
        if name in accepted and options.get("gist") is not None:
            out[name] = options["gist"]
            break
    for name in ("confirm", "confirm_pinned"):
        if name in accepted:
            out[name] = bool(options.get("confirm_pinned", True))
            break
    if "today" in accepted and options.get("today") is not None:
        out["today"] = options["today"]
    return out


def plan(snapshot: Snapshot, verb: str, paths: tuple[str, ...] = (), *, cache: Any = None,
         **options: Any) -> Plan:
    """Build a verb's changeset and run it through the gate, touching nothing."""
    txn, _ = _require()
    from memtui.core.changeset import unified_diff

    try:
        if verb in ("undo", "redo"):
            preview = (txn.undo_plan if verb == "undo" else txn.redo_plan)(snapshot, cache)
        else:
            preview = txn.plan(snapshot, build_changeset(snapshot, verb, paths, options), cache)
    except txn.NothingToUndo as exc:
        raise VerbRefused(str(exc)) from None
    except txn.TxnError as exc:
        raise VerbRefused(str(exc)) from None
    except ValueError as exc:  # a changeset that no longer fits the snapshot
        raise VerbRefused(str(exc)) from None
    changeset = preview.changeset
    try:
        diff = changeset.diff or unified_diff(snapshot, changeset)
    except ValueError:
        diff = ""
    new = tuple(preview.new_findings) if preview.accepted else ()
    return Plan(
        verb=verb,
        paths=paths,
        description=changeset.description,
        accepted=preview.accepted,
        refusing=tuple(preview.gate.refusing),
        reason=preview.gate.reason,
        diff=diff,
        operations=describe_ops(changeset),
        new_findings=new,
        preview=preview,
        options=dict(options),
    )


def apply(the_plan: Plan) -> Outcome:
    """Commit an accepted plan through the one writer; a refusal or I/O error comes back in words."""
    txn, _ = _require()
    try:
        applied = txn.commit(the_plan.preview)
    except txn.Refused as exc:
        preview = getattr(exc, "preview", the_plan.preview)
        return Outcome(False, "refused by the validator — nothing was written",
                       tuple(getattr(getattr(preview, "gate", None), "refusing", ())))
    except txn.ChangedOnDisk as exc:
        return Outcome(False, f"{exc} — changed on disk; reloaded, try again")
    except txn.Busy as exc:
        return Outcome(False, f"busy: {exc}")
    except txn.TxnError as exc:
        return Outcome(False, str(exc))
    except OSError as exc:
        return Outcome(False, f"could not write: {exc.strerror or exc}")
    return Outcome(True, the_plan.description, snapshot=applied.snapshot, cache=applied.cache)


def findings_cache(snapshot: Snapshot) -> Any:
    """The core's per-file findings cache for a snapshot (None when the core has none)."""
    incremental = _module("incremental")
    if incremental is None:
        return None
    return incremental.findings_cache(snapshot)


@dataclass(frozen=True)
class GistDraft:
    """What a merge would write before the user edits it: the gist's path, body and provenance."""

    path: str
    body: str
    provenance: tuple[str, ...]


def gist_draft(snapshot: Snapshot, paths: tuple[str, ...], today: date | None = None) -> GistDraft:
    """The merge verb's default gist for these files: where it goes, its body, its provenance."""
    merge = _module("merge")
    if merge is None:
        raise WriterUnavailable("merging is not available in this build (core/merge.py is missing)")
    from memtui.core.contradictions import freshness

    sources = [snapshot.files[p] for p in paths]
    newest = max(sources, key=lambda f: (freshness(f), f.path))
    others = sorted((f for f in sources if f is not newest), key=lambda f: (-freshness(f), f.path))
    path = merge.gist_name(snapshot, newest, sources, today or date.today())
    body = merge.merged_body(newest, others)
    provenance = (
        f"{path}: new gist, consolidated_from: {', '.join(paths)}",
        *(f"{p} → archive/{p}, folded_into: {path}" for p in paths),
    )
    if any(f.pinned for f in sources):
        provenance += (f"{path}: pinned: true (a source was pinned)",)
    return GistDraft(path, body, provenance)


def recover(root: Path) -> list[str]:
    """Finish a change a crash interrupted (restore its before-images); the ids restored.

    Does nothing when the build has no writer or nothing was interrupted.
    """
    txn = _module("txn")
    if txn is None:
        return []
    try:
        return list(txn.recover(root))
    except txn.TxnError as exc:
        raise WriterUnavailable(str(exc)) from None
