"""Planning a change: play a changeset on a snapshot and gate it; plan undo and redo.

Pure (it reads the snapshot and, for undo and redo, the journal; it never writes): a
:class:`Preview` is what :func:`memtui.core.write.commit` writes.  Callers import it from
:mod:`memtui.core.write`.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Iterable, Mapping

from ..model.changeset import (
    ATTIC_DIR,
    Changeset,
    Move,
    Operation,
    Write,
    apply_to_snapshot,
    is_archive_index,
    op_from_json,
)
from ..model.journal import (
    COMMITTED,
    JournalError,
    checked_record,
    decode_value,
    list_records,
    read_record,
    stacks,
)
from ..model.safepath import UnsafePath
from ..model.snapshot import Finding, Snapshot
from ..rules.budget import measure
from ..rules.erasure import erased_lines
from ..rules.incremental import FindingsCache, findings_cache, revalidate
from ..rules.validate import GateResult, gate
from .errors import ChangedOnDisk, NothingToUndo, UnsafeFolder

# ---------------------------------------------------------------- why a change was refused


@dataclass(frozen=True)
class RefusalLine:
    """One reason the gate refused a change: a finding the change would add, or the budget."""

    rule: str  # the validator's rule, or "budget"
    where: str  # ``path`` or ``path:line``; "" for the budget
    message: str

    def __str__(self) -> str:
        return f"{self.rule} {self.where} — {self.message}" if self.where else f"{self.rule}: {self.message}"


def refusal_lines(gate: GateResult) -> tuple[RefusalLine, ...]:
    """Why the gate refused, one line a reason: every refusing finding, then the budget's."""
    lines = [RefusalLine(f.rule, f"{f.path}:{f.line}" if f.line else f.path, f.message)
             for f in gate.refusing]
    if gate.reason:
        lines.append(RefusalLine("budget", "", gate.reason))
    return tuple(lines)


def refusal_text(gate: GateResult, limit: int | None = None) -> str:
    """The reasons in one line (the first ``limit`` findings, then a count of the rest)."""
    lines = refusal_lines(gate)
    findings = [line for line in lines if line.where]
    shown = findings if limit is None else findings[:limit]
    parts = [str(line) for line in shown]
    if len(findings) > len(shown):
        parts.append(f"and {len(findings) - len(shown)} more")
    parts += [str(line) for line in lines if not line.where]
    return "; ".join(parts)


# ---------------------------------------------------------------- plan


@dataclass(frozen=True)
class Preview:
    """A changeset played on a snapshot and gated: what will happen, and whether it may."""

    before: Snapshot
    changeset: Changeset
    after: Snapshot
    before_cache: FindingsCache
    cache: FindingsCache  # the findings of ``after``
    gate: GateResult
    initial: dict[str, bytes | None]  # what each touched path must hold on disk
    kind: str = "do"  # do | undo | redo
    target: int | None = None  # the seq an undo/redo replays
    #: path -> (before-image bytes, atime ns, mtime ns): an undo that writes those bytes back
    #: gives the file those times back too
    restores: Mapping[str, tuple[bytes, int, int]] = field(default_factory=dict, repr=False)
    #: the findings before as the gate compared them (moved with their files, a baseline's
    #: and a promotion's added); empty: ``before_cache``'s
    gated_before: tuple[Finding, ...] = field(default=(), repr=False)

    @property
    def accepted(self) -> bool:
        return self.gate.accepted

    @property
    def findings(self) -> tuple[Finding, ...]:
        """The findings of the snapshot after the change."""
        return self.cache.findings

    @property
    def new_findings(self) -> list[Finding]:
        """Findings (errors and warnings) the change adds, keyed by rule, path and subject."""
        had: dict[tuple[str, str, str], int] = {}
        for f in self.gated_before or self.before_cache.findings:
            had[f.key] = had.get(f.key, 0) + 1
        out = []
        for f in self.cache.findings:
            if had.get(f.key, 0) > 0:
                had[f.key] -= 1
            else:
                out.append(f)
        return out

    def refusal_message(self, limit: int = 3) -> str:
        """Why the gate said no, in one line (the first ``limit`` findings, then a count)."""
        if self.accepted:
            return ""
        return "refused by the validator — " + refusal_text(self.gate, limit)

    def to_json(self) -> dict[str, object]:
        """The stable ``--json`` shape of a verb: verb, accepted, changes, findings."""
        shown = self.gate.refusing if not self.accepted else tuple(self.new_findings)
        return {
            "verb": self.changeset.verb,
            "accepted": self.accepted,
            "description": self.changeset.description,
            "changes": self.changeset.to_json(),
            "findings": [f.to_json() for f in shown],
            "reason": self.gate.reason,
        }


@dataclass(frozen=True)
class Baseline:
    """Errors and index size a change may bring back besides the current ones: those of the state
    an undo or redo returns to (kept in the journal record of the original change)."""

    errors: tuple[tuple[str, str, str], ...] = ()  # (rule, path, subject)
    lines: int = 0
    bytes: int = 0

    def to_json(self) -> dict[str, object]:
        return {"errors": [list(key) for key in self.errors], "lines": self.lines, "bytes": self.bytes}

    @classmethod
    def from_json(cls, value: Any) -> Baseline:
        if not isinstance(value, dict):
            return cls()
        errors = tuple((str(e[0]), str(e[1]), str(e[2])) for e in value.get("errors", []) if len(e) == 3)
        return cls(errors, int(value.get("lines", 0)), int(value.get("bytes", 0)))


def moved_findings(findings: Iterable[Finding], ops: Iterable[Operation]) -> list[Finding]:
    """The findings as the change's moves carry them: a file archived (or moved otherwise)
    keeps its findings at its new path, and a finding about it (its subject) follows it too.

    The gate keys findings by rule, path and subject; without this, an error a file already
    had would count as new once the file moved (DESIGN §2)."""
    moves: dict[str, str] = {}
    sources: dict[str, list[str]] = {}  # where each path moved to was moved from (linear in the moves)
    for op in ops:
        if isinstance(op, Move):
            # a chain a → b → c ends at c
            onward = sources.pop(op.src, [])
            for src in onward:
                moves[src] = op.dst
            sources.setdefault(op.dst, []).extend(onward)
            if op.src not in moves:
                moves[op.src] = op.dst
                sources[op.dst].append(op.src)
    if not moves:
        return list(findings)
    return [replace(f, path=moves.get(f.path, f.path), subject=moves.get(f.subject, f.subject))
            if f.path in moves or f.subject in moves else f for f in findings]


def plan(snapshot: Snapshot, changeset: Changeset, cache: FindingsCache | None = None,
         baseline: Baseline | None = None, carried: Iterable[Finding] = ()) -> Preview:
    """Play a changeset on a copy of the snapshot and gate it.  Pure: touches nothing.

    Pass the snapshot's :class:`FindingsCache` (from a previous plan or
    :func:`~memtui.core.rules.incremental.findings_cache`) to validate only what the change affects.
    A ``baseline`` (undo and redo) also allows the errors and size of the state returned to.
    ``carried``: findings files bring with them from another root (a promotion to a layer).
    """
    if cache is None or cache.snapshot is not snapshot:
        cache = findings_cache(snapshot)
    result = apply_to_snapshot(snapshot, changeset.ops)
    after, after_cache = revalidate(snapshot, cache, result)
    before_findings = moved_findings(cache.findings, changeset.ops) + list(carried)
    before_budget = measure(snapshot.index, snapshot.config)
    if baseline is not None:
        before_findings += [Finding(rule, "error", path, None, "", subject)
                            for rule, path, subject in baseline.errors]
        before_budget = replace(before_budget, lines=max(before_budget.lines, baseline.lines),
                                bytes=max(before_budget.bytes, baseline.bytes))
    verdict = gate(before_findings, list(after_cache.findings), before_budget,
                   measure(after.index, after.config))
    if baseline is None and changeset.verb not in AUTHOR_WRITES:  # an undo or redo writes back
        verdict = _erasing(snapshot, changeset, after, verdict)    # journaled bytes: erases nothing
    if verdict.refusing:
        verdict = replace(verdict, refusing=tuple(_say_if_already_there(f, before_findings)
                                                  for f in verdict.refusing))
    return Preview(snapshot, changeset, after, cache, after_cache, verdict, result.initial,
                   gated_before=tuple(before_findings))


def _say_if_already_there(finding: Finding, before: list[Finding]) -> Finding:
    """A refusing error that the folder already had in another file (the same rule about the
    same subject) says so: the change did not invent it, it copied it where the gate counts it
    as new."""
    if not finding.subject:
        return finding
    for old in before:
        if old.rule != finding.rule or old.severity != finding.severity or old.key == finding.key:
            continue
        if old.subject == finding.subject:
            where = f"{old.path}:{old.line}" if old.line else old.path
            return replace(finding, message=f"{finding.message} (already there before this "
                                            f"change, as {where})")
    return finding


#: changes that are not memtui's own edit of the index: the agent's write played by the PreToolUse
#: hook (its policy judges it), and a revert, which writes back the bytes a person last saw
AUTHOR_WRITES = frozenset({"hook", "revert"})


def _erasing(snapshot: Snapshot, changeset: Changeset, after: Snapshot, verdict: GateResult) -> GateResult:
    """The verdict refused when the change loses the text of an index line (DESIGN §2)."""
    touched = changeset.paths
    if not any(path == snapshot.index.path or is_archive_index(path) for path in touched):
        return verdict
    erased = erased_lines(snapshot, after, touched)
    if not erased:
        return verdict
    refusing = tuple(Finding("erased-text", "error", e.path, e.line, e.message(), e.text) for e in erased)
    return replace(verdict, accepted=False, refusing=verdict.refusing + refusing)


def baseline_of(preview: Preview) -> Baseline:
    """The errors and index size before a planned change (what its undo may bring back)."""
    budget = measure(preview.before.index, preview.before.config)
    errors = tuple(f.key for f in preview.before_cache.findings if f.severity == "error")
    return Baseline(errors, budget.lines, budget.bytes)


# ---------------------------------------------------------------- undo and redo


def _target(root: Path, kind: str) -> tuple[int, dict[str, Any]]:
    records = list_records(root)
    st = stacks(records)
    seq = (st.done[-1] if st.done else None) if kind == "undo" else (st.redo[0] if st.redo else None)
    if seq is None:
        raise NothingToUndo("nothing to undo" if kind == "undo" else "nothing to redo")
    record = next((r for r in records if r.seq == seq and r.kind == "do"), None)
    if record is None:
        raise NothingToUndo(f"the change to {kind} is older than the journal keeps")
    try:
        return seq, read_record(root, record)
    except JournalError as exc:
        raise NothingToUndo(str(exc)) from None


def inverse(ops: list[Operation] | tuple[Operation, ...], attic: str) -> tuple[Operation, ...]:
    """The operations that take back ``ops``; created files move into ``attic`` (never erased)."""
    out: list[Operation] = []
    for op in reversed(ops):
        if isinstance(op, Write):
            out.append(Write(op.path, op.expected, op.data))
        elif isinstance(op, Move):
            out.append(Move(op.dst, op.src))
        else:
            out.append(Move(op.path, f"{attic}/{op.path}"))
    return tuple(out)


def _described(record: dict[str, Any], seq: int) -> str:
    """What a record says it did, for its undo's or redo's description; a record without a
    description (stored state: empty, or from another tool) is described by what it holds."""
    description = str(record.get("description") or "").strip()
    if description:
        return description
    verb = str(record.get("verb") or "").strip()
    count = len(record.get("ops") or [])
    ops = "no operation" if not count else f"{count} operation{'s' if count != 1 else ''}"
    return f"{'a ' + verb if verb else 'a change'} with no description (change {seq}, {ops})"


def _replay_plan(snapshot: Snapshot, kind: str, cache: FindingsCache | None) -> Preview:
    root = Path(snapshot.root).absolute()
    seq, record = _target(root, kind)
    try:
        ops = [op_from_json(op) for op in record.get("ops", [])]
        for value in record.get("before", {}).values():
            decode_value(value)
        record = checked_record(record)
    except UnsafePath as exc:
        raise UnsafeFolder(f"cannot {kind}: the journal record of change {seq} names {exc}; "
                           "memtui never writes such a record (the folder may come from someone "
                           "else), so it will not replay it") from None
    except (JournalError, AttributeError, TypeError, ValueError) as exc:
        raise NothingToUndo(f"cannot {kind}: the journal record of change {seq} is damaged "
                            f"({exc}); make the change by hand instead") from None
    description = _described(record, seq)
    if kind == "undo":
        attic = f"{ATTIC_DIR}/{seq:08d}-undo-{time.time_ns()}"
        changeset = Changeset("undo", f"undo: {description}", inverse(ops, attic))
    else:
        changeset = Changeset("redo", f"redo: {description}", tuple(ops))
    try:
        preview = plan(snapshot, changeset, cache, Baseline.from_json(record.get("baseline")))
    except ValueError as exc:  # the folder no longer fits the change
        raise ChangedOnDisk(f"cannot {kind} '{description}': {exc}") from None
    restores = _restores(record) if kind == "undo" else _redo_restores(root, seq)
    return replace(preview, kind=kind, target=seq, restores=restores,
                   after=_with_times(preview.after, restores))


def _restores(record: dict[str, Any]) -> dict[str, tuple[bytes, int, int]]:
    """The before-images of a (checked) record that kept their times: what undo puts back."""
    out: dict[str, tuple[bytes, int, int]] = {}
    for path, (atime, mtime) in record.get("times", {}).items():
        data = decode_value(record["before"].get(path))
        if data is not None:
            out[path] = (data, atime, mtime)
    return out


def _redo_restores(root: Path, seq: int) -> dict[str, tuple[bytes, int, int]]:
    """What a redo of change ``seq`` puts back with its times: the newest committed undo of it
    kept, as its before-images, the files as the change had left them and their times (a redo
    restores modification times as an undo does).  Empty when that record is gone or damaged."""
    undone = [r for r in list_records(root)
              if r.state == COMMITTED and r.kind == "undo" and r.target == seq]
    if not undone:
        return {}
    try:
        value = read_record(root, undone[-1])
        for data in value.get("before", {}).values():
            decode_value(data)
        return _restores(checked_record(value))
    except (JournalError, UnsafePath, AttributeError, TypeError, ValueError):
        return {}


def _with_times(snapshot: Snapshot, restores: Mapping[str, tuple[bytes, int, int]]) -> Snapshot:
    """The snapshot with each file an undo puts back carrying its old modification time."""
    files = dict(snapshot.files)
    changed = False
    for path, (data, _, mtime) in restores.items():
        f = files.get(path)
        if f is not None and f.data == data:
            files[path] = replace(f, mtime=mtime / 1e9)
            changed = True
    return replace(snapshot, files=files) if changed else snapshot


def undo_plan(snapshot: Snapshot, cache: FindingsCache | None = None) -> Preview:
    """The inverse of the newest committed change, played and gated (nothing touched)."""
    return _replay_plan(snapshot, "undo", cache)


def redo_plan(snapshot: Snapshot, cache: FindingsCache | None = None) -> Preview:
    """The most recently undone change, played again and gated (nothing touched)."""
    return _replay_plan(snapshot, "redo", cache)
