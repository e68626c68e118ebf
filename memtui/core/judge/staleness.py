"""Staleness (DESIGN §5): a decay score per memory file, reference checks, classes and guards.

``score = 100·(1 − exp(−age·ln2 / half_life))`` with a half-life per type; missing references add
fixed points (each kind once, capped at 100).  The class says how much of what the file points at
still exists; guards say why a file whose references are all gone is still not *fully* stale.
Ages come from :mod:`memtui.core.judge.ages`, references from :mod:`memtui.core.read.references` and their
checks from :mod:`memtui.core.read.project`.  The clock is always a parameter.  Nothing here writes
anywhere; the results suggest, a person decides.

**Status before age.**  A file the author declared superseded (``superseded_by`` naming a file
of the root, or ``status: superseded``) is class ``SUPERSEDED`` and ``status: archived`` class
``ARCHIVED``: action *prune* whatever the score.  So is a file its own entry in ``MEMORY.md``
marks superseded (``— SUPERSEDED by unified rules below``, :mod:`memtui.core.model.index_marks`;
not a mark that says "partly"), and the entry the mark names is its declared successor.
A rule — type ``user``, ``feedback``, ``decision`` or ``value``, or a ``project`` file named as
lessons, rules or a policy — and the declared successor of a superseded file are never pruned for their
age alone: such a prune is shown as *review* with the hold's reason listed among the guards (the
score stays the formula's).

**Unknown ages.**  When nothing dates a file and the root's modification times are a copy's
(:mod:`memtui.core.judge.ages`: a clone, a backup, a restore), its age is *unknown*: it scores as one
half-life of its type (base score :data:`UNKNOWN_BASE`, 50), so its action and bucket are
*review* — it asks a person to look, it never reads as fresh (no ``recent`` guard: nothing says
it changed lately) and it is never pruned for its age alone; the points of missing references
add to it as to any score (all its references gone is evidence, whatever the age).  The reason
is kept with the file (``age_unknown`` in JSON, where ``age_days`` and ``dated`` are then null).

A note that states a standing rule or decision (:func:`~memtui.core.model.standing.standing_reason`:
a directive in its title, description or first lines, in the folder's language; its first
heading naming its decisions; "do not change without …", "no cambiar sin revisar esto") is
held like a rule: not pruned for its date alone.  The folder's own documents (a README, a
licence, a second index, an unfilled template: :func:`~memtui.core.model.folder_docs.folder_document`)
are not scored: a report lists them apart (``documents``).

Decisions beyond the contract: "modified in the last 14 days" uses the same date the age comes
from (:func:`~memtui.core.judge.ages.file_age`), so a fresh checkout does not make every file recent;
guards are listed for every file (not only the downgraded ones) and never change the score;
archived files (under ``archive/`` or ``status: archived``) are left out of a root's report
unless asked for.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from datetime import date, datetime, timedelta, timezone
from enum import Enum
from pathlib import Path
from typing import Callable, Mapping, Sequence

from ..model.folder_docs import folder_document
from ..model.gcpause import gc_paused
from ..model.index_marks import IndexMark, index_marks
from ..model.snapshot import ARCHIVE_DIR, INDEX_NAME, MemoryFile, Snapshot
from ..model.standing import DIRECTIVE_WORDS as DIRECTIVE_WORDS
from ..model.standing import directive_word as directive_word
from ..read.project import Project, ProjectCache, ReferenceChecker, UrlFetcher, find_project
from ..read.references import (
    ReferenceCheck,
    RefKind,
    RefStatus,
)
from . import ages
from .ages import Burst, FileAge, RootTimes, SessionTimes, file_age
from .dates import to_utc
from .facets import BODY_FACTS, STANDING, BodyFacts

_FOUND, _MISSING = RefStatus.FOUND, RefStatus.MISSING

HALF_LIVES: Mapping[str, float] = {
    "value": 365,
    "user": 180,
    "feedback": 90,
    "decision": 90,  # a decision is a standing rule of the project: scored like feedback
    "reference": 60,
    "project": 14,
    "unknown": 30,
}
REVIEW_FROM = 50.0
PRUNE_FROM = 75.0
#: the base score of a file whose age is unknown: one half-life of its type (see the module
#: docstring) — a review, never fresh, never a prune from its age alone
UNKNOWN_BASE = 50.0
AGING_FROM = 25.0
RECENT_DAYS = 14

#: points added when a reference of the kind is missing (each kind counted once per file)
MODIFIER_POINTS: Mapping[RefKind, tuple[str, int, str]] = {
    RefKind.PATH: ("missing-file", 20, "a referenced file is missing"),
    RefKind.SYMBOL: ("missing-symbol", 30, "a symbol is not found"),
    RefKind.BRANCH: ("missing-branch", 15, "a branch does not exist"),
    RefKind.URL: ("dead-url", 10, "a URL does not answer 200"),
}


class Action(str, Enum):
    KEEP = "keep"
    REVIEW = "review"
    PRUNE = "prune"


class Bucket(str, Enum):
    FRESH = "fresh"
    AGING = "aging"
    REVIEW = "review"
    STALE = "stale"


class StalenessClass(str, Enum):
    EVERGREEN = "EVERGREEN"  # nothing verifiable to check
    FRESH = "FRESH"  # every verifiable reference found
    PARTIALLY_STALE = "PARTIALLY_STALE"  # some missing (or all missing, but guarded)
    FULLY_STALE = "FULLY_STALE"  # every verifiable reference missing, no guard
    SUPERSEDED = "SUPERSEDED"  # the author declared it replaced (status before age)
    ARCHIVED = "ARCHIVED"  # ``status: archived`` outside archive/ (status before age)


#: the class as a person reads it, named for its axis: what became of the file's references
#: (the action answers another question — the score, from the age and what is missing — so
#: "no refs" beside "prune" says an old note with nothing to check, not a contradiction)
REFS_WORDS = {
    StalenessClass.EVERGREEN.value: "no refs",
    StalenessClass.FRESH.value: "all found",
    StalenessClass.PARTIALLY_STALE.value: "some gone",
    StalenessClass.FULLY_STALE.value: "all gone",
    StalenessClass.SUPERSEDED.value: "superseded",
    StalenessClass.ARCHIVED.value: "archived",
}


# ------------------------------------------------------------------------------------ formula


#: types scored though the validator does not know them (common in real folders)
SCORED_TYPES = frozenset({"decision"})


def scoring_type(memory_file: MemoryFile) -> str:
    """The type a file is scored as: a known type, ``decision``, else ``unknown``."""
    known = memory_file.type
    if known == "unknown":
        raw = memory_file.frontmatter.get("type").strip().lower()
        if raw in SCORED_TYPES:
            return raw
    return known


def half_life(type_: str) -> float:
    return HALF_LIVES.get(type_, HALF_LIVES["unknown"])


def decay_score(age_days: float, half_life_days: float) -> float:
    """``100·(1 − exp(−age·ln2/half_life))``: 0 when new, 50 at one half-life, towards 100."""
    age = max(0.0, age_days)
    return 100.0 * (1.0 - math.exp(-age * math.log(2) / half_life_days))


def action_for(score: float) -> Action:
    if score >= PRUNE_FROM:
        return Action.PRUNE
    if score >= REVIEW_FROM:
        return Action.REVIEW
    return Action.KEEP


def bucket_for(score: float) -> Bucket:
    if score >= PRUNE_FROM:
        return Bucket.STALE
    if score >= REVIEW_FROM:
        return Bucket.REVIEW
    if score >= AGING_FROM:
        return Bucket.AGING
    return Bucket.FRESH


# ----------------------------------------------------------------------------- guards, classes


@dataclass(frozen=True)
class Guard:
    """A reason a file is not fully stale even when all its references are gone."""

    kind: str  # pinned | type-user | type-feedback | type-reference | recent | directive
    reason: str

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind, "reason": self.reason}


@dataclass(frozen=True)
class Modifier:
    """Points added to the decay score, and why."""

    kind: str  # missing-file | missing-symbol | missing-branch | dead-url
    points: int
    reason: str

    def to_json(self) -> dict[str, object]:
        return {"kind": self.kind, "points": self.points, "reason": self.reason}


PINNED_GUARD = Guard("pinned", "pinned: a load-bearing fact, exempt from decay")
TYPE_GUARDS: Mapping[str, Guard] = {
    "user": Guard("type-user", "type user: preferences do not decay because a path moved"),
    "feedback": Guard("type-feedback", "type feedback: the lesson outlives its example paths"),
    "decision": Guard("type-decision", "type decision: the choice outlives its example paths"),
    "reference": Guard("type-reference", "type reference: the lesson outlives its example paths"),
}


def guards_for(memory_file: MemoryFile, age: FileAge, type_: str | None = None,
               lowered_body: str | None = None, directive: str | None = "?") -> tuple[Guard, ...]:
    """Every guard that holds for a file, in a fixed order, each with its reason."""
    guards: list[Guard] = []
    if memory_file.pinned:
        guards.append(PINNED_GUARD)
    type_guard = TYPE_GUARDS.get(scoring_type(memory_file) if type_ is None else type_)
    if type_guard is not None:
        guards.append(type_guard)
    if age.known and age.days <= RECENT_DAYS:
        guards.append(Guard("recent", f"modified {age.days:.0f} days ago ({age.source}), "
                                      f"within {RECENT_DAYS} days"))
    if directive == "?":  # not given: read it from the body
        directive = directive_word(memory_file.body, lowered_body)
    if directive:
        guards.append(Guard("directive", f"the body is a directive ('{directive}')"))
    return tuple(guards)


RULE_TYPES = frozenset({"user", "feedback", "decision", "value"})
#: words that make a ``project`` file's name (not a session log's) a rule: lessons learnt, rules
RULE_WORDS = frozenset({"lesson", "lessons", "rule", "rules", "principle", "principles", "policy",
                        "decision", "decisions"})
_WORDS = re.compile(r"[a-z]+")


@dataclass(frozen=True)
class Lineage:
    """What the authors of a root declared about replacement: ``superseded`` maps a file declared
    replaced to its successor (or ``""`` for ``status: superseded`` alone), ``successors`` a
    live successor to one file it replaces."""

    superseded: Mapping[str, str]
    successors: Mapping[str, str]
    marked: Mapping[str, str] = field(default_factory=dict)  # a file MEMORY.md marks superseded
    # -> what the mark says


def lineage_of(files: Mapping[str, MemoryFile], marks: Sequence[IndexMark] = ()) -> Lineage:
    """The declared supersessions of a root's files: a file is declared replaced by its own
    ``superseded_by`` naming a file of the root, or ``status: superseded``, or by its entry's
    mark in ``MEMORY.md`` (``marks``, the ones not "partly"); a successor is a live file such a
    ``superseded_by`` or mark names, or one whose ``supersedes`` names a file of the root."""
    superseded: dict[str, str] = {}
    for path, f in files.items():
        for name in f.frontmatter.names("superseded_by"):
            if name in files and name != path:
                superseded.setdefault(path, name)
                break
        if f.status == "superseded":
            superseded.setdefault(path, "")
    marked: dict[str, str] = {}
    for mark in marks:
        if not mark.partial and mark.path not in superseded:
            superseded[mark.path] = mark.successor or ""
            marked[mark.path] = (f"{INDEX_NAME} line {mark.line} marks it superseded "
                                 f"(\u201c{mark.words}\u201d), declared by the author")
    successors: dict[str, str] = {}
    for old, new in sorted(superseded.items()):
        if new and new not in superseded:
            successors.setdefault(new, old)
    for path, f in sorted(files.items()):
        if path in superseded or path in successors:
            continue
        for name in f.frontmatter.names("supersedes"):
            if name in files and name != path:
                successors[path] = name
                break
    return Lineage(superseded, successors, marked)


def status_for(memory_file: MemoryFile, lineage: Lineage | None = None) -> Guard | None:
    """Why a file's status decides its action before its age (``superseded``/``archived``), or
    None.  Without a lineage only the file's own ``status`` is read."""
    if lineage is not None and memory_file.path in lineage.marked:
        return Guard("superseded", lineage.marked[memory_file.path])
    if lineage is not None and memory_file.path in lineage.superseded:
        new = lineage.superseded[memory_file.path]
        if new:
            return Guard("superseded", f"superseded by {new}, declared by the author")
    if memory_file.status == "superseded":
        return Guard("superseded", "status: superseded, declared by the author")
    if memory_file.status == "archived" and not memory_file.path.startswith(ARCHIVE_DIR + "/"):
        return Guard("archived", "status: archived, declared by the author")
    return None


def holds_for(memory_file: MemoryFile, lineage: Lineage | None = None,
              type_: str | None = None, standing: str | None = "?") -> tuple[Guard, ...]:
    """Why a file is not pruned for its age alone (a prune from age alone becomes a review):
    a rule by its type or name, a note that states a standing rule or decision
    (:func:`~memtui.core.model.standing.standing_reason`; ``standing`` when the caller has it, "?" to
    read it here), the declared successor of a superseded file."""
    out: list[Guard] = []
    type_ = scoring_type(memory_file) if type_ is None else type_
    if type_ in RULE_TYPES:
        out.append(Guard("rule", f"type {type_}: a standing rule, not retired by age alone"))
    elif type_ == "project":
        name = memory_file.path.rsplit("/", 1)[-1].lower()
        said = RULE_WORDS.intersection(_WORDS.findall(name))
        if said and not name.startswith(("session_", "session-")):
            out.append(Guard("rule", f"named as {min(said)}: a standing rule, not retired by "
                                     "age alone"))
    if not out:
        if standing == "?":
            standing = STANDING(memory_file)
        if standing:
            out.append(Guard("standing", f"{standing}: a standing rule or decision, not retired "
                                         "by its date alone"))
    if lineage is not None and memory_file.path in lineage.successors:
        out.append(Guard("successor", f"replaces {lineage.successors[memory_file.path]}: the "
                                      "current version, not retired by age alone"))
    return tuple(out)


def _class_and_modifiers(checks: tuple[ReferenceCheck, ...],
                         ) -> tuple[StalenessClass, tuple[Modifier, ...]]:
    """The class — EVERGREEN (nothing verifiable), FRESH (all found), PARTIALLY_ or FULLY_STALE —
    and one modifier per kind of missing reference (paths, symbols, branches, URLs), in one pass."""
    found = 0
    missing: dict[RefKind, list[str]] = {}
    for check in checks:
        status = check.status
        if status is _FOUND:
            found += 1
        elif status is _MISSING:
            missing.setdefault(check.kind, []).append(check.text)
    if not missing:
        return (StalenessClass.FRESH if found else StalenessClass.EVERGREEN), ()
    modifiers: list[Modifier] = []
    for kind, (name, points, what) in MODIFIER_POINTS.items():
        texts = missing.get(kind)
        if texts:
            more = f" (and {len(texts) - 1} more)" if len(texts) > 1 else ""
            modifiers.append(Modifier(name, points, f"{what}: {texts[0]}{more}"))
    cls = StalenessClass.PARTIALLY_STALE if found else StalenessClass.FULLY_STALE
    return cls, tuple(modifiers)


# ------------------------------------------------------------------------------------- results


@dataclass(frozen=True)
class StalenessResult:
    """The full breakdown for one file: age, half-life, base score, modifiers, class, guards."""

    path: str
    type: str
    half_life: float
    age: FileAge
    base_score: float
    modifiers: tuple[Modifier, ...]
    score: float
    action: Action
    bucket: Bucket
    cls: StalenessClass
    guards: tuple[Guard, ...]
    references: tuple[ReferenceCheck, ...]
    downgraded: bool = False  # FULLY_STALE turned PARTIALLY_STALE by a guard
    status: Guard | None = None  # the declared status that decided the action (superseded, archived)
    holds: tuple[Guard, ...] = ()  # what keeps a prune from age alone a review (listed when it does)

    @property
    def age_days(self) -> float:
        return self.age.days

    @property
    def found(self) -> tuple[ReferenceCheck, ...]:
        return tuple(c for c in self.references if c.status is RefStatus.FOUND)

    @property
    def missing(self) -> tuple[ReferenceCheck, ...]:
        return tuple(c for c in self.references if c.status is RefStatus.MISSING)

    @property
    def unverifiable(self) -> tuple[ReferenceCheck, ...]:
        return tuple(c for c in self.references if c.status is RefStatus.UNVERIFIABLE)

    def to_json(self) -> dict[str, object]:
        counts = {RefStatus.FOUND: 0, RefStatus.MISSING: 0, RefStatus.UNVERIFIABLE: 0}
        missing = []
        for c in self.references:  # one pass (a stale --json has one of these per file)
            counts[c.status] += 1
            if c.status is RefStatus.MISSING:
                missing.append({"kind": c.kind.value, "ref": c.text, "reason": c.reason})
        known = self.age.known
        return {
            "path": self.path,
            "type": self.type,
            "age_days": round(self.age.days, 1) if known else None,
            "score": round(self.score, 1),
            "action": self.action.value,
            "class": self.cls.value,
            "modifiers": [m.to_json() for m in self.modifiers],
            "missing": missing,
            "guards": [g.to_json() for g in self.guards],
            "half_life": self.half_life,
            "base_score": round(self.base_score, 1),
            "bucket": self.bucket.value,
            "age_source": self.age.source,
            "dated": self.age.when.date().isoformat() if known else None,
            "downgraded": self.downgraded,
            "references": {"found": counts[RefStatus.FOUND], "missing": counts[RefStatus.MISSING],
                           "unverifiable": counts[RefStatus.UNVERIFIABLE]},
            "status": None if self.status is None else self.status.to_json(),
            "age_unknown": None if known else self.age.reason,
        }


def score_file(memory_file: MemoryFile, now: datetime | date,
               checker: ReferenceChecker | None = None,
               git_dates: Callable[[], Mapping[str, datetime]] | Mapping[str, datetime] | None = None,
               lineage: Lineage | None = None, times: RootTimes | None = None,
               git_import: Callable[[], Burst | None] | Burst | None = None,
               facts: BodyFacts | None = None) -> StalenessResult:
    """Score one file; without a checker every reference is unverifiable (no project known).

    ``lineage``: the root's declared supersessions (:func:`lineage_of`); without it only the
    file's own ``status`` is read.  ``times``, ``git_import``: what the root's times say
    together (:func:`~memtui.core.judge.ages.file_age`); without them the file's time is its own.
    ``facts``: its :data:`~memtui.core.judge.facets.BODY_FACTS`, when the caller has them."""
    age = file_age(memory_file, now, git_dates, times, git_import)
    type_ = scoring_type(memory_file)
    life = half_life(type_)
    base = decay_score(age.days, life) if age.known else UNKNOWN_BASE
    checker = checker or ReferenceChecker(None)
    keys, directive, _ = facts if facts is not None else BODY_FACTS(memory_file)
    checks = checker.check(keys)
    cls, modifiers = _class_and_modifiers(checks)
    score = min(100.0, base + sum(m.points for m in modifiers)) if modifiers else base
    guards = guards_for(memory_file, age, type_, directive=directive)
    downgraded = cls is StalenessClass.FULLY_STALE and bool(guards)
    if downgraded:
        cls = StalenessClass.PARTIALLY_STALE
    status = status_for(memory_file, lineage)
    holds = holds_for(memory_file, lineage, type_)
    action = action_for(score)
    if status is not None:
        cls, action, downgraded = _STATUS_CLASS[status.kind], Action.PRUNE, False
    elif action is Action.PRUNE and holds and not modifiers:
        action = Action.REVIEW
        guards = guards + holds
    return StalenessResult(
        path=memory_file.path,
        type=type_,
        half_life=life,
        age=age,
        base_score=base,
        modifiers=modifiers,
        score=score,
        action=action,
        bucket=bucket_for(score),
        cls=cls,
        guards=guards,
        references=checks,
        downgraded=downgraded,
        status=status,
        holds=holds,
    )


_STATUS_CLASS = {"superseded": StalenessClass.SUPERSEDED, "archived": StalenessClass.ARCHIVED}
_HOLD_KINDS = frozenset({"rule", "standing", "successor"})


@dataclass(frozen=True)
class StalenessReport:
    """Every scored file of one root, highest score first."""

    root: Path
    now: datetime | date
    project: Project | None
    results: tuple[StalenessResult, ...]
    online: bool = False
    #: the folder's own documents, listed apart and never scored: (path, what it is)
    documents: tuple[tuple[str, str], ...] = ()
    _by_path: dict[str, StalenessResult] = field(default_factory=dict, init=False, repr=False,
                                                compare=False)

    def __post_init__(self) -> None:
        self._by_path.update((r.path, r) for r in self.results)

    def get(self, path: str) -> StalenessResult | None:
        return self._by_path.get(path)

    def to_json(self) -> dict[str, object]:
        return {
            "root": str(self.root),
            "now": self.now.isoformat(),
            "project": str(self.project.path) if self.project else None,
            "online": self.online,
            "documents": documents_json(self.documents),
            "files": [r.to_json() for r in self.results],
        }


def documents_json(documents: Sequence[tuple[str, str]]) -> list[dict[str, str]]:
    """The folder's own documents of a report as its JSON lists them."""
    return [{"path": path, "what": what} for path, what in documents]


def score_root(snapshot: Snapshot, now: datetime | date, repo: Path | str | None = None,
               online: bool = False, *, cache: ProjectCache | None = None,
               fetcher: UrlFetcher | None = None, include_archived: bool = False,
               times: RootTimes | None = None, project: Project | None | bool = False,
               logs: list[tuple[object, ...] | None] | None = None,
               sessions: SessionTimes | None = None) -> StalenessReport:
    """Score every memory file of a root (archived ones only if asked), highest score first;
    the folder's own documents are listed apart, unscored.

    ``cache`` shares project facts between roots of one run; ``fetcher`` replaces the URL fetch
    (tests).  ``git log`` runs at most once, and only if some file has no frontmatter date.
    ``times``: what the root's times say together (:func:`root_times`) when ``snapshot`` holds
    only some of its files (the app scores again only the files a change touched).
    ``project``: the project already found for the root (False: find it); ``logs`` collects the
    state of the root's git history when its dates are read, ``sessions`` answers the sessions'
    times (what a kept answer was made from: :mod:`memtui.core.judge.stalecache`).
    """
    with gc_paused():
        return _score_root(snapshot, now, repo, online, cache, fetcher, include_archived, project,
                           logs, times=times, sessions=sessions)


# ---------------------------------------------------------------- facts: what the clock does not move

#: A file's staleness without the clock, as plain data (kept whole in the stat cache): path, type,
#: half-life, when (µs since the epoch, UTC), age source, dated, modifier points (None: no
#: modifier), class before guards, guards before ``recent``, guards after it, modifiers
#: ``(kind, points, reason)``, missing references ``(kind, ref, reason)``, reference counts
#: ``(found, missing, unverifiable)``, URLs not checked offline, the declared status
#: ``(kind, reason)`` (None: none), the holds ``(kind, reason)`` on a prune from age alone and
#: why the age is unknown ("" when it is known; then "when" is the moment the file's time says).
Facts = tuple[str, str, float, int, str, str, "int | None", str,
              tuple[tuple[str, str], ...], tuple[tuple[str, str], ...],
              tuple[tuple[str, int, str], ...], tuple[tuple[str, str, str], ...],
              tuple[int, int, int], int, "tuple[str, str] | None", tuple[tuple[str, str], ...], str]
FACTS_LENGTH = 17

#: A file scored at one moment: score, path, age in days, base score, action, bucket, class,
#: downgraded, guards ``(kind, reason)`` and the file's :data:`Facts`.
Row = tuple[float, str, float, float, str, str, str, bool, tuple[tuple[str, str], ...], Facts]

_EPOCH = datetime(1970, 1, 1, tzinfo=timezone.utc)
_US = timedelta(microseconds=1)
_GUARDED_AFTER = frozenset({"directive"})  # the guards listed after ``recent``
_FULLY, _PARTLY = StalenessClass.FULLY_STALE.value, StalenessClass.PARTIALLY_STALE.value
_PRUNE, _REVIEW, _KEEP = Action.PRUNE.value, Action.REVIEW.value, Action.KEEP.value
_STALE, _TO_REVIEW, _AGING, _FRESH = (Bucket.STALE.value, Bucket.REVIEW.value, Bucket.AGING.value,
                                      Bucket.FRESH.value)


def _reference_class(result: StalenessResult) -> StalenessClass:
    """A result's class from its references alone (a declared status replaces it when shown)."""
    return result.cls if result.status is None else _class_and_modifiers(result.references)[0]


def facts_of(result: StalenessResult) -> Facts:
    """What of a scored file does not depend on the moment it was scored at."""
    counts = {RefStatus.FOUND: 0, RefStatus.MISSING: 0, RefStatus.UNVERIFIABLE: 0}
    missing = []
    unchecked = 0
    for c in result.references:
        counts[c.status] += 1
        if c.status is RefStatus.MISSING:
            missing.append((c.kind.value, c.text, c.reason))
        elif (c.status is RefStatus.UNVERIFIABLE and c.kind is RefKind.URL
              and c.reason.startswith("not checked offline")):
            unchecked += 1
    age = result.age
    guards = [(g.kind, g.reason) for g in result.guards
              if g.kind != "recent" and g.kind not in _HOLD_KINDS]
    return (
        result.path, result.type, result.half_life, (age.when - _EPOCH) // _US, age.source,
        age.when.date().isoformat(),
        sum(m.points for m in result.modifiers) if result.modifiers else None,
        (StalenessClass.FULLY_STALE if result.downgraded else _reference_class(result)).value,
        tuple(g for g in guards if g[0] not in _GUARDED_AFTER),
        tuple(g for g in guards if g[0] in _GUARDED_AFTER),
        tuple((m.kind, m.points, m.reason) for m in result.modifiers), tuple(missing),
        (counts[RefStatus.FOUND], counts[RefStatus.MISSING], counts[RefStatus.UNVERIFIABLE]),
        unchecked,
        None if result.status is None else (result.status.kind, result.status.reason),
        tuple((g.kind, g.reason) for g in result.holds),
        "" if age.known else age.reason,
    )


def rows_at(facts: list[Facts], now: datetime | date) -> list[Row]:
    """Every file of ``facts`` scored at ``now``, highest score first: :func:`score_file`'s
    arithmetic (the same float operations, so the same numbers) without its objects."""
    moment = (to_utc(now) - _EPOCH) // _US
    decay, recent_days = decay_score, RECENT_DAYS
    rows: list[Row] = []
    append = rows.append
    for f in facts:
        life, points, cls, before, after = f[2], f[6], f[7], f[8], f[9]
        days = max(0.0, ((moment - f[3]) / 1_000_000) / 86400.0)  # timedelta.total_seconds()
        unknown = f[16]
        base = decay(days, life) if not unknown else UNKNOWN_BASE
        score = min(100.0, base + points) if points is not None else base
        if days <= recent_days and not unknown:
            guards = (*before, ("recent", f"modified {days:.0f} days ago ({f[4]}), "
                                          f"within {recent_days} days"), *after)
        else:
            guards = before + after if after else before
        downgraded = cls == _FULLY and bool(guards)
        shown = _PARTLY if downgraded else cls
        action = _PRUNE if score >= PRUNE_FROM else _REVIEW if score >= REVIEW_FROM else _KEEP
        status = f[14]
        if status is not None:
            action, shown, downgraded = _PRUNE, _STATUS_CLASS[status[0]].value, False
        elif action == _PRUNE and points is None and f[15]:
            action = _REVIEW
            guards = (*guards, *f[15])
        append((
            score, f[0], days, base, action,
            _STALE if score >= PRUNE_FROM else _TO_REVIEW if score >= REVIEW_FROM
            else _AGING if score >= AGING_FROM else _FRESH,
            shown, downgraded, guards, f,
        ))
    rows.sort(key=_row_order)
    return rows


def _row_order(row: Row) -> tuple[float, str]:
    return -row[0], row[1]


def row_json(row: Row) -> dict[str, object]:
    """A row as :meth:`StalenessResult.to_json` gives it."""
    score, path, days, base, action, bucket, cls, downgraded, guards, f = row
    found, missing, unverifiable = f[12]
    unknown = f[16]
    return {
        "path": path,
        "type": f[1],
        "age_days": round(days, 1) if not unknown else None,
        "score": round(score, 1),
        "action": action,
        "class": cls,
        "modifiers": [{"kind": k, "points": p, "reason": r} for k, p, r in f[10]],
        "missing": [{"kind": k, "ref": t, "reason": r} for k, t, r in f[11]],
        "guards": [{"kind": k, "reason": r} for k, r in guards],
        "half_life": f[2],
        "base_score": round(base, 1),
        "bucket": bucket,
        "age_source": f[4],
        "dated": f[5] if not unknown else None,
        "downgraded": downgraded,
        "references": {"found": found, "missing": missing, "unverifiable": unverifiable},
        "status": None if f[14] is None else {"kind": f[14][0], "reason": f[14][1]},
        "age_unknown": unknown or None,
    }


@dataclass(frozen=True)
class StaleFacts:
    """A root's staleness without the clock: score it at any moment with :func:`rows_at`."""

    root: Path
    project: Project | None
    online: bool
    files: list[Facts]
    interrupted: tuple[str, ...] = ()
    documents: tuple[tuple[str, str], ...] = ()  # the folder's own documents: (path, what)

    def header(self, now: datetime | date) -> dict[str, object]:
        """The JSON of the report at ``now`` without its files."""
        return {"root": str(self.root), "now": now.isoformat(),
                "project": str(self.project.path) if self.project else None,
                "online": self.online, "documents": documents_json(self.documents)}


class Scored:
    """A file scored from its kept facts (:func:`~memtui.core.judge.stalecache.scored_cached`), by the names of
    :class:`StalenessResult`: what the dream's archive step reads of a result (the objects
    made only when asked for: most files are only filtered on their class and guards)."""

    __slots__ = ("_row",)

    def __init__(self, row: Row) -> None:
        self._row = row

    @property
    def path(self) -> str:
        return self._row[1]

    @property
    def score(self) -> float:
        return self._row[0]

    @property
    def age_days(self) -> float:
        return self._row[2]

    @property
    def age(self) -> FileAge:
        f = self._row[9]
        return FileAge(_EPOCH + f[3] * _US, f[4], self._row[2], f[16])

    @property
    def cls(self) -> StalenessClass:
        return StalenessClass(self._row[6])

    @property
    def guards(self) -> tuple[Guard, ...]:
        return tuple(Guard(kind, reason) for kind, reason in self._row[8])

    @property
    def modifiers(self) -> tuple[Modifier, ...]:
        return tuple(Modifier(kind, points, reason) for kind, points, reason in self._row[9][10])

    @property
    def missing(self) -> tuple[ReferenceCheck, ...]:
        return tuple(ReferenceCheck(RefKind(kind), text, RefStatus.MISSING, reason)
                     for kind, text, reason in self._row[9][11])


def root_times(snapshot: Snapshot, sessions: SessionTimes | None = None) -> RootTimes:
    """What the times of all a root's files say together (:class:`~memtui.core.judge.ages.RootTimes`):
    the copy burst of their modification times (with ``MEMORY.md``'s), and the sessions' times
    from their transcripts."""
    return RootTimes(ages.mtime_burst(snapshot.files, ages.index_mtime(snapshot.root)),
                     sessions if sessions is not None else SessionTimes(snapshot.root))


def _score_root(snapshot: Snapshot, now: datetime | date, repo: Path | str | None, online: bool,
                cache: ProjectCache | None, fetcher: UrlFetcher | None, include_archived: bool,
                found: Project | None | bool = False,
                logs: list[tuple[object, ...] | None] | None = None, *,
                times: RootTimes | None = None, sessions: SessionTimes | None = None,
                ) -> StalenessReport:
    project = (find_project(snapshot.root, Path(repo) if repo is not None else None)
               if isinstance(found, bool) else found)
    index = (cache or ProjectCache()).get(project) if project is not None else None
    checker = ReferenceChecker(index, online=online, fetcher=fetcher)
    documents: list[tuple[str, str]] = []
    files = []
    facts: dict[str, BodyFacts] = {}
    for f in snapshot.files.values():
        if not include_archived and f.archived:
            continue
        facts[f.path] = body = BODY_FACTS(f)
        document = folder_document(f.path, f, body[2])
        if document is not None:
            documents.append((f.path, document.what))
        else:
            files.append(f)
    if times is None:
        times = root_times(snapshot, sessions)
    if online:
        urls = (text for f in files for kind, text in facts[f.path][0] if kind is RefKind.URL)
        checker.prefetch_urls(urls)
    commit_dates: dict[str, datetime] | None = None

    def lazy_git_dates() -> Mapping[str, datetime]:
        nonlocal commit_dates
        if commit_dates is None:
            if logs is not None:  # what the dates come from, learnt before them
                logs.append(ages.git_log_state(snapshot.root))
            commit_dates = ages.git_commit_dates(snapshot.root)
        return commit_dates

    imported: list[Burst | None] = []

    def git_import() -> Burst | None:
        if not imported:  # the last commits of all the root's files: one commit that added them all
            imported.append(ages.git_burst(lazy_git_dates(), snapshot.files))
        return imported[0]

    moment = to_utc(now)
    lineage = lineage_of(snapshot.files, index_marks(snapshot))
    results = [score_file(f, moment, checker, lazy_git_dates, lineage, times, git_import,
                          facts[f.path]) for f in files]
    results.sort(key=lambda r: (-r.score, r.path))
    return StalenessReport(snapshot.root, now, project, tuple(results), online,
                           tuple(sorted(documents)))


