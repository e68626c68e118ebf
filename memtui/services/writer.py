"""Changing the folder from the app: plan a change the core builds, show its verdict, apply it.

The app never writes a file itself.  It hands here a :class:`Request` — a core builder
(``Callable[[Snapshot], Changeset]``, as the CLI's ``apply_changeset`` takes), or undo / redo —
and gets a :class:`Plan` back: the changeset played on the snapshot and gated, with its diff and
the validator's verdict.  :func:`apply` commits a plan through the core's one writer
(:mod:`memtui.core.write`: lock, journal, atomic replace) and says what happened in an
:class:`Outcome`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum
from functools import cached_property
from pathlib import Path
from typing import Callable, Sequence

from memtui.core import write
from memtui.core.model.changeset import Changeset, Create, Move, VerbError, unified_diff
from memtui.core.model.snapshot import Finding, Snapshot
from memtui.core.rules.incremental import FindingsCache
from memtui.core.write import RefusalLine, refusal_lines, refusal_text

#: a core verb bound to its arguments: the snapshot in, the changeset out
Build = Callable[[Snapshot], Changeset]
#: a change over this root and others (a promotion to another layer): the snapshot in, every
#: root's snapshot and changeset out (:mod:`memtui.core.write.group` gates and writes them as one)
GroupBuild = Callable[[Snapshot], Sequence[tuple[Snapshot, Changeset]]]


class VerbRefused(Exception):
    """A change that cannot even be planned (a precondition fails, nothing to undo …)."""


class Step(Enum):
    """What a request plays: a new change, or the journal backwards or forwards."""

    DO = "do"
    UNDO = "undo"
    REDO = "redo"


@dataclass(frozen=True)
class Request:
    """A change the user asked for: how to build it, whether to ask first, where the cursor goes."""

    build: Build | None = None  # None for undo and redo
    step: Step = Step.DO
    group: GroupBuild | None = None  # instead of ``build``: a change over several roots
    confirm: bool = False
    select: str | None = None  # the file the cursor should be on afterwards
    on_marks: bool = False  # a change of the marked files: the marks clear once it is applied
    pinned: tuple[str, ...] = ()  # pinned files among the marked ones: a second confirmation

    @classmethod
    def undo(cls) -> Request:
        return cls(step=Step.UNDO)

    @classmethod
    def redo(cls) -> Request:
        return cls(step=Step.REDO)


@dataclass(frozen=True)
class Plan:
    """A request's changeset, played and gated, with everything the confirm dialog shows."""

    request: Request
    preview: write.Preview  # this root's (the root shown) half, for a change over several
    group: write.GroupPreview | None = None
    summary: str = ""  # what the whole change does, when one root's half does not say it

    @cached_property
    def diff(self) -> str:
        """The change as a unified diff (every root's, for a group), made when first asked for:
        a change applied without a dialog never needs it."""
        if self.group is not None:
            return "".join(f"### {half.before.root}\n{unified_diff(half.before, half.changeset)}"
                           for half in self.group.previews)
        changeset = self.preview.changeset
        try:
            return changeset.diff or unified_diff(self.preview.before, changeset)
        except ValueError:
            return ""

    @property
    def accepted(self) -> bool:
        return self.group.accepted if self.group is not None else self.preview.accepted

    @property
    def gate_preview(self) -> write.Preview:
        """The half whose verdict to show: the refused one, else this root's."""
        refused = self.group.refused if self.group is not None else None
        return refused if refused is not None else self.preview

    @property
    def description(self) -> str:
        return self.summary or self.preview.changeset.description

    @property
    def reason(self) -> str:
        """The gate's budget reason, if any."""
        return self.gate_preview.gate.reason

    @property
    def reasons(self) -> tuple[RefusalLine, ...]:
        """Why the gate refuses (nothing when it accepts)."""
        return refusal_lines(self.gate_preview.gate)

    @property
    def operations(self) -> tuple[str, ...]:
        """One line per write / create / move (each root's, under its path, for a group)."""
        if self.group is None:
            return describe_ops(self.preview.changeset)
        out: list[str] = []
        for half in self.group.previews:
            out.append(f"in {half.before.root}:")
            out.extend("  " + line for line in describe_ops(half.changeset))
        return tuple(out)

    @property
    def new_findings(self) -> tuple[Finding, ...]:
        """Warnings (or accepted errors) the change adds."""
        return tuple(self.preview.new_findings) if self.accepted else ()

    @property
    def touched(self) -> tuple[str, ...]:
        return tuple(self.preview.changeset.paths)

    @property
    def verdict(self) -> str:
        """The gate's word; an accepted change also lists the warnings it adds (a secret in a
        gist is allowed through, never without a word)."""
        if self.accepted:
            text = "accepted by the validator: no new error, and the budget is not made worse"
            added = [f for f in self.new_findings if f.severity != "error"]
            if added:
                count = len(added)
                text += (f" — but it adds {count} warning{'s' if count != 1 else ''}:" + "".join(
                    f"\n  ⚠ {f.rule} {f.path}{f':{f.line}' if f.line else ''} — {f.message}"
                    for f in added))
            return text
        text = refusal_text(self.gate_preview.gate)
        where = f" in {self.gate_preview.before.root} (neither root is changed)" if self.group else ""
        return f"refused{where} — {text}" if text else f"refused{where}"


@dataclass(frozen=True)
class Outcome:
    """What applying a plan did, in words for a notification, with the folder after it."""

    ok: bool
    message: str
    reasons: tuple[RefusalLine, ...] = ()  # why the gate refused it
    snapshot: Snapshot | None = None  # the snapshot after the change, when it was applied
    cache: FindingsCache | None = None  # its findings
    undoable: bool = False  # a new change (not an undo, a redo or a rejection)


def describe_ops(changeset: Changeset) -> tuple[str, ...]:
    """One line per operation: ``write x.md``, ``create y.md (120 bytes)``, ``move a → b``."""
    lines = []
    for op in changeset.ops:
        if isinstance(op, Move):
            lines.append(f"move    {op.src} → {op.dst}")
        elif isinstance(op, Create):
            lines.append(f"create  {op.path} ({len(op.data):,} bytes)")
        else:
            lines.append(f"write   {op.path}")
    return tuple(lines)


def plan(snapshot: Snapshot, request: Request, cache: FindingsCache | None = None) -> Plan:
    """Build the request's changeset and run it through the gate, touching nothing."""
    try:
        if request.group is not None:
            return _plan_group(snapshot, request)
        if request.step is Step.UNDO:
            preview = write.undo_plan(snapshot, cache)
        elif request.step is Step.REDO:
            preview = write.redo_plan(snapshot, cache)
        else:
            assert request.build is not None, "a new change needs a builder"
            preview = write.plan(snapshot, request.build(snapshot), cache)
    except (VerbError, write.TxnError) as exc:
        raise VerbRefused(str(exc)) from None
    except ValueError as exc:  # a changeset that no longer fits the snapshot
        raise VerbRefused(str(exc)) from None
    return Plan(request, preview)


def _plan_group(snapshot: Snapshot, request: Request) -> Plan:
    """Plan a change over several roots: every half gated on its own root."""
    assert request.group is not None
    parts = list(request.group(snapshot))
    group = write.plan_group(
        [(snapshot if Path(s.root) == Path(snapshot.root) else s, c) for s, c in parts])
    mine = next(p for p in group.previews if Path(p.before.root) == Path(snapshot.root))
    return Plan(request, mine, group)


def apply(the_plan: Plan) -> Outcome:
    """Commit an accepted plan through the one writer; a refusal or I/O error comes back in words."""
    try:
        if the_plan.group is not None:
            return _apply_group(the_plan, the_plan.group)
        done = write.attempt(the_plan.preview.before.root, reviewed=the_plan.preview)
    except write.Refused as exc:
        return Outcome(False, "refused by the validator — nothing was written",
                       refusal_lines(exc.preview.gate))
    except write.Busy as exc:
        return Outcome(False, f"busy: {exc}")
    except write.TxnError as exc:
        return Outcome(False, str(exc))
    except OSError as exc:
        return Outcome(False, f"could not write: {exc.strerror or exc}")
    if done.applied is None:
        return Outcome(False, "refused by the validator — nothing was written",
                       refusal_lines(done.preview.gate))
    return Outcome(True, the_plan.description, snapshot=done.applied.snapshot,
                   cache=done.applied.cache, undoable=the_plan.request.step is Step.DO)


def _apply_group(the_plan: Plan, group: write.GroupPreview) -> Outcome:
    """Commit every root's half as one change; the outcome carries this root's folder after it."""
    roots = [half.before.root for half in group.previews]
    applied = write.attempt_group(roots, reviewed=group).applied
    if applied is None:
        return Outcome(False, "refused by the validator — nothing was written",
                       refusal_lines(the_plan.gate_preview.gate))
    mine = next(i for i, p in enumerate(group.previews)
                if Path(p.before.root) == Path(the_plan.preview.before.root))
    half = group.previews[mine]
    return Outcome(True, the_plan.description, snapshot=applied.snapshots[mine], cache=half.cache,
                   undoable=True)


class RecoveryFailed(Exception):
    """An interrupted change could not be rolled back (the message says which paths)."""


class UnsafeToChange(RecoveryFailed):
    """The folder cannot be changed at all (its ``.memtui`` is a symlink …): no interrupted
    change is involved, and nothing will be written."""


@dataclass(frozen=True)
class Recovery:
    """What recovery did when the folder was opened: changes rolled back, records set aside."""

    restored: tuple[str, ...] = ()  # ids of the interrupted changes rolled back
    quarantined: tuple[str, ...] = ()  # journal records set aside unapplied (hostile paths)
    detail: str = ""  # the core's words: which record was set aside and why, paths left alone

    @property
    def notice(self) -> str:
        """One notification's text ("" when recovery had nothing to do)."""
        parts = []
        if self.restored:
            ids = ", ".join(self.restored)
            parts.append(f"an interrupted change was rolled back ({ids}): the folder is as it was "
                         "before it")
        if self.detail:
            parts.append(self.detail)
        return "; ".join(parts)


def recover(root: Path) -> Recovery:
    """Finish a change a crash interrupted (restore its before-images) and say what was done."""
    try:
        done = write.recover(root)
    except write.UnsafeFolder as exc:
        raise UnsafeToChange(str(exc)) from None
    except write.TxnError as exc:
        raise RecoveryFailed(str(exc)) from None
    return Recovery(tuple(done), tuple(done.quarantined), done.message)
