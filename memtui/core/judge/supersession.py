"""Supersession candidates (DESIGN §6): a newer file that replaces an older one — proposed as
*fold the earlier into the later* (the earlier archived with ``superseded_by``), never as a merge
of equals.

The kinds below, each read from the files' frontmatter, names, dates and words; the direction
comes from the author (``supersedes``) or else from the dates (:func:`memtui.core.judge.ages.stated_date`,
the stage of the work within one day):

- **checkpoint** — successive session logs (``session_*``) of one work item: their names share the item's words (the
  name less its date, the type or ``session`` prefix, stage words such as *plan*, *exec*,
  *verified*, *COMPLETE* and version tags ``v2``), one item's words contained in the other's,
  at least one of them rare in the root (or the later, a new version, names the earlier and
  shares its first word); dated at most :data:`CHAIN_DAYS` apart, the later one after the
  earlier by date, then version (when both names carry one), then stage; not about different
  parts of the item (past the
  words the names share, each says something of its own, or the later names a task or block
  the earlier does not), a review not replacing what it
  reviews and replaced only by what answers it (approval, verification, close), unless the later
  is a new version; and the later one restates the earlier: names it, or closes the item
  (COMPLETE, DONE, CLOSED, shipped, a higher version …) holding :data:`RESTATES` of its words,
  or is a new version of it (``v2`` after an untagged plan or draft, or a higher tag: a tag after
  a note of another stage names the product's version, not the note's) holding
  :data:`VERSION_RESTATES` of them.
  Each note is linked to its nearest later note only (a chain, not every pair).  A later note
  :data:`CONTAINED_RATIO` times larger holding
  :data:`CONTAINED_SHARE` of the earlier's words is shown as "contained in".
- **declared** — the author's own word: a note whose ``supersedes`` names another candidate
  (the older one not yet marked ``superseded_by``), whatever their names and words.
- **consolidated** — a file that says it consolidates (``consolidated``, ``canonical merge``,
  ``consolidation of``) a work item over a date range: every note of that item and of its type
  dated within the range is folded into it.
- **extends** — one rule stated twice: a rule (``user``, ``feedback``, ``decision``, ``value``)
  that says near its start (the first :data:`EXTENDS_CHARS` characters of its body) that it
  extends (restates, refines, builds on) another rule it names, by file name or title, quoted
  or linked in the sentence of the cue; whatever their sizes (two short feedback files share few words by count).
- **replaces** — a note whose name or claim says it replaces another (renamed, replaces,
  instead of, no longer, supersedes, retired, reworked, restyled, rewritten, reverted,
  ``(was …)``; "now" in its title, for the notes it links only) and an older note of the same
  subject (their names share a rare word — two words when only the claim says it, and when the
  name says it, a word it names before its cue: ``beats-rename-claude-md`` replaces nothing of
  CLAUDE.md's — and their
  words :data:`SAME_SUBJECT`, or, when the name says it and the note links the older one,
  whatever their overlap).  A note of the same day is older when the replacing note names it
  and is not named by it, and only when the title says the replacement.  Or a note whose title
  or description says it retired (removed, dropped, replaced, renamed, reverted, deprecated) a
  named thing — an identifier such as ``surface-card`` or ``IDLE_CAP``, or a quoted one, among
  the :data:`THING_WORDS` words beside the cue — and an older note (at most
  :data:`REPLACE_DAYS` before, the same day included) that brought it in: the thing is named by
  at most :data:`INTRODUCERS` other notes, in the older one's title or description, or in its
  text when their names share a word; the older note does not name the newer and does not
  itself say it retired that thing.

*Strong* proposals (started checked by the dream) are a declared one, a consolidation, a replacement said in
the name, and a checkpoint whose later note closes the item or is a new version; a checkpoint
whose later note only names the earlier is offered unchecked.  Reads the files it is given,
never the disk (but for the stat cache's kept facets and answers of a cached load, which are
about those very files).
"""

from __future__ import annotations

import re
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from datetime import datetime
from functools import cached_property
from typing import Any, Callable, Collection, Iterable, Iterator, Sequence

from ..model.index_marks import IndexMark
from ..model.safepath import check_stored_path
from ..model.snapshot import MemoryFile, Snapshot
from ..model.words import tokens
from ..stores.statcache import StatCache, cached
from .ages import frontmatter_date, name_date, stated_date
from .logs import name_family
from .simjoin import TokenSets, overlap
from .weights import DEFAULT_TUNING, Tuning, document_frequency, held

CHECKPOINT = "checkpoint"
CONSOLIDATED = "consolidated"
REPLACES = "replaces"
CONTAINED = "contained"
EXTENDS = "extends"
DECLARED = "declared"

CHAIN_DAYS = 2  # successive notes of one work item are at most this many days apart
RARE_NAMES = 25  # a shared name word held by more names than this says nothing of the item
RESTATES = 0.5  # the share of the earlier note's words the later one holds to restate it
VERSION_RESTATES = 0.2  # ... when the later is a new version of the earlier (v2 of a plan)
CONTAINED_RATIO = 3.0  # the later note this many times larger ...
CONTAINED_SHARE = 0.7  # ... holding this share of the earlier's words contains it
SAME_SUBJECT = 0.4  # the title + body overlap two notes of one subject have at least
REPLACE_DAYS = 30  # a replacement is looked for among notes at most this much older
EXTENDS_CHARS = 2000  # a note says it extends another near its start
THING_WORDS = 3  # the words either side of a retirement's cue that may name what is gone
INTRODUCERS = 4  # a retired thing named by more notes than this is no one note's

# Words of a name that say where the work stands, not what it is.  The number is the stage's
# order within one day (a plan comes before its execution, which comes before the close).
STAGES: dict[str, int] = {}
for _rank, _words in enumerate((
    "kickoff start started prep brainstorm investigation diagnosis recon draft drafted design "
    "spec plan plans planning proposal scope",
    "review reviewed codex handoff feedback rereview",
    "approved decision",
    "exec execution executing impl implement implemented implementation build built wired fix "
    "fixes fixed rework rebuild rewrite deploy deployed results",
    "verified verify verification proof proven test tests live",
    "done complete completed closed close shipped consolidated final landed merged",
)):
    for _word in _words.split():
        STAGES[_word] = _rank
CLOSING = max(STAGES.values())
REVIEW = STAGES["review"]
#: what answers a review: its approval, a verification, the close (or a new version)
ANSWERS = frozenset({STAGES["approved"], STAGES["verified"], CLOSING})
_PREFIXES = frozenset({"session", "project", "feedback", "decision", "reference", "user", "review",
                       "note", "notes", "log", "md"})
_NAME_DATE = re.compile(r"(?<!\d)(?:\d{4}[-_]\d{2}[-_]\d{2}|\d{8})(?!\d)")
_NAME_WORD = re.compile(r"[a-z0-9]+")
_VERSION = re.compile(r"v(\d{1,3})")
_CONSOLIDATES = re.compile(r"\b(?:consolidated|consolidation of|canonical merge)\b", re.IGNORECASE)
_RANGE = re.compile(r"(\d{4}-\d{2}-\d{2})\s*(?:\.\.|–|—|to|-)\s*(\d{2}-\d{2}|\d{4}-\d{2}-\d{2})")
_REPLACE_NAME = frozenset({"rename", "renamed", "replaces", "replaced", "replacement", "supersedes",
                           "instead", "migrated", "switched"})
#: substrings (lower case) a text holds when :data:`_CONSOLIDATES` or :data:`_REPLACE_CLAIM` can
#: match it: a cheap first test before the regular expression
_CONSOLIDATES_HINTS = ("consolidat", "canonical merge")
_REPLACE_HINTS = ("renamed", "replace", "instead of", "no longer", "supersede", "(was", "retired",
                  "reworked", "restyled", "rewritten", "reverted")


def _may_say(hints: tuple[str, ...], text: str) -> bool:
    """Whether the lower-cased text holds one of the hints."""
    lower = text.lower()
    return any(hint in lower for hint in hints)


_REPLACE_CLAIM = re.compile(
    r"\b(?:renamed|replaces|replaced|instead of|no longer|supersedes|superseded|retired|reworked|"
    r"restyled|rewritten|reverted)\b(?!-)|\(was\s",
    re.IGNORECASE,
)
#: "now" in a title: a replacement only of the notes its file links (``relates_to``)
_NOW = re.compile(r"\bnow\b", re.IGNORECASE)
#: a claim that a named thing is gone (:func:`_retirements`); not a word's part (``wrongly-dropped``)
_RETIRED_HINTS = ("retired", "removed", "dropped", "replaced", "renamed", "reverted", "deprecated")
_RETIRED = re.compile(r"(?<![\w-])(?:retired|removed|dropped|replaced|renamed|reverted|deprecated)(?![\w-])",
                      re.IGNORECASE)
#: where a cue's clause ends: a parenthesis, a comma, a semicolon, a colon, a line, a sentence
_CLAUSE_END = re.compile(r"[(),;:\n]|\.\s")
#: the words after a cue that begin what came in its place ("replaced with X", "renamed to X")
_NEW_THING = frozenset({"with", "to", "by", "for", "as", "into", "in"})
#: a named thing: quoted in backticks, or an identifier joined by ``-``, ``_`` or ``.``
_THING = re.compile(r"`([^`\n]{3,60})`|(?<![\w-])([A-Za-z][A-Za-z0-9]*(?:[-_.][A-Za-z0-9]+)+)(?![\w-])")


@dataclass(frozen=True)
class Supersession:
    """A proposal: fold ``old`` into ``new`` (``new`` supersedes ``old``)."""

    old: str
    new: str
    kind: str  # checkpoint | consolidated | replaces | contained
    evidence: tuple[str, ...]  # why, in words a person reads
    strong: bool  # the evidence suffices to start the item checked
    days: int  # days between the two notes' dates
    restated: float  # the share of old's words new holds (0 when a side has too few)

    @property
    def proposal(self) -> str:
        if self.kind == CONTAINED:
            return "contained in"
        if self.kind == EXTENDS:
            return "one rule stated twice: fold the extended into the extension"
        return "fold the earlier into the later"

    def to_json(self) -> dict[str, Any]:
        return {
            "old": self.old,
            "new": self.new,
            "kind": self.kind,
            "proposal": self.proposal,
            "evidence": list(self.evidence),
            "strong": self.strong,
            "days": self.days,
            "restated": round(self.restated, 4),
        }


@dataclass(frozen=True)
class _Note:
    """What the proposals read of one file."""

    index: int
    path: str
    stem: str  # the file name less ``.md``
    item: frozenset[str]  # the work item's words
    lead: tuple[str, ...]  # the name's words in order, less prefixes, versions and numbers
    version: int
    stage: int  # -1: no stage word
    words: tuple[str, ...]  # the name's words
    file: MemoryFile = field(compare=False, repr=False)
    tagged: bool = False  # the name carries a version tag (v2 …); untagged notes are version 1

    @cached_property
    def when(self) -> datetime:
        """The note's date (:func:`memtui.core.judge.ages.stated_date`), read when first asked."""
        return stated_date(self.file)[0]

    @cached_property
    def dated_name(self) -> bool:
        """Whether the note is dated by its name (it has no frontmatter date), read when first
        asked: only session logs are asked."""
        return name_date(self.path) is not None and frontmatter_date(self.file) is None


def name_words(path: str) -> list[str]:
    """A file name's words (lower case), its dates taken out."""
    name = path.rsplit("/", 1)[-1].lower()
    if name.endswith(".md"):
        name = name[:-3]
    return _NAME_WORD.findall(_NAME_DATE.sub(" ", name))


def _is_version(word: str) -> bool:
    """``v2``, ``v10`` …: a version tag (what :data:`_VERSION` matches whole)."""
    return word[0] == "v" and 1 < len(word) <= 4 and word[1:].isdigit()


def work_item(words: Iterable[str]) -> frozenset[str]:
    """The words of a name that say what the work is: less prefixes, stages, versions, numbers."""
    return frozenset(w for w in words if len(w) >= 2 and w not in _PREFIXES and w not in STAGES
                     and not w.isdigit() and not _is_version(w))


def _note(i: int, f: MemoryFile) -> _Note:
    words = name_words(f.path)
    versions = [int(w[1:]) for w in words if _is_version(w)]
    stages = [STAGES[w] for w in words if w in STAGES]
    item = work_item(words)
    return _Note(i, f.path, f.name[:-3] if f.name.endswith(".md") else f.name, item,
                 tuple(w for w in words if w not in _PREFIXES and not _is_version(w)
                       and not w.isdigit()), max(versions) if versions else 1,
                 stages[-1] if stages else -1, tuple(words), f, bool(versions))


def _order(n: _Note) -> tuple[Any, ...]:
    return (n.when.date(), n.version, n.stage, n.path)


def _new_version(old: _Note, new: _Note) -> bool:
    """Whether ``new`` is a later version of ``old``: its name carries a higher version tag than
    the earlier's, or the earlier is an untagged plan or draft (the first version of it).  A tag
    after an untagged note of another stage names a version of the product, not of the note."""
    return new.tagged and new.version > old.version and (old.tagged or old.stage == 0)


def _after(new: _Note, old: _Note) -> bool:
    """Whether ``new`` comes after ``old``: by date; then by version when both names carry one;
    then by the stage of the work when both names say one (a COMPLETE note without a version
    tag closes the ``v2`` plan it follows); then by version, stage and path."""
    if new.when.date() != old.when.date():
        return new.when.date() > old.when.date()
    if new.tagged and old.tagged and new.version != old.version:
        return new.version > old.version
    if new.stage != old.stage and min(new.stage, old.stage) >= 0:
        return new.stage > old.stage
    return _order(new) > _order(old)


def supersession_candidates(
    files: Sequence[MemoryFile], sets: Sequence[TokenSets] | None = None,
    rejected: Collection[tuple[str, str]] = (), *, tuning: Tuning = DEFAULT_TUNING,
    logs: Collection[str] | None = None, marks: Sequence[IndexMark] = (),
    df: Counter[str] | None = None,
) -> list[Supersession]:
    """Every supersession proposal among ``files`` (see the module docstring), sorted strong
    first, then by the newer file and the older.

    ``sets`` are the files' token sets (:func:`memtui.core.judge.consolidate.token_sets`, computed when
    not given); a pair in ``rejected`` (either order) is not proposed; ``logs``: which of the
    files are logs of work (:func:`memtui.core.judge.consolidate.root_logs`; the ``session_*``
    files when None); ``marks``: the index's SUPERSEDED marks (the author's word, as ``supersedes``);
    ``df``: the document frequency of ``sets``' title + body tokens, when the caller counted it.
    """
    if sets is None:
        from .consolidate import root_token_sets

        sets = root_token_sets(list(files))
    notes = [_note(i, f) for i, f in enumerate(files)]
    is_log = _log_test(logs)
    weights = Weights(sets, df)
    refused = {(a, b) if a <= b else (b, a) for a, b in rejected}
    found: dict[tuple[int, int], Supersession] = {}

    def add(old: _Note, new: _Note, proposal: Supersession) -> None:
        key = (old.index, new.index)
        pair = (old.path, new.path) if old.path <= new.path else (new.path, old.path)
        if pair in refused or (new.index, old.index) in found:
            return
        if key not in found or (proposal.strong and not found[key].strong):
            found[key] = proposal

    by_word: dict[str, list[_Note]] = defaultdict(list)
    for n in notes:
        for word in n.item:
            by_word[word].append(n)
    rare = {w for w, ns in by_word.items() if len(ns) <= RARE_NAMES}

    for old, new, proposal in _declared(files, sets, notes):
        add(old, new, proposal)
    for old, new, proposal in _marked(sets, notes, marks):
        add(old, new, proposal)
    for old, new, proposal in _consolidations(files, sets, notes, by_word):
        add(old, new, proposal)
    for old, new, proposal in _checkpoints(files, sets, notes, by_word, rare, is_log, weights, tuning):
        add(old, new, proposal)
    for old, new, proposal in _reports(sets, notes, is_log, weights, tuning):
        add(old, new, proposal)
    for old, new, proposal in _replacements(files, sets, notes, by_word, rare):
        add(old, new, proposal)
    for old, new, proposal in _retirements(files, sets, notes):
        add(old, new, proposal)
    for old, new, proposal in _extensions(files, sets, notes):
        # a rule that says it extends another and adds a rule of its own is two rules: folded
        # only when it holds the other's words (the labelled pairs of the corpora read so)
        if weights.held(old.index, new.index) >= tuning.merge_hold:
            add(old, new, proposal)
    out = list(found.values())
    out.sort(key=lambda s: (not s.strong, s.new, s.old))
    return out


def root_supersessions(snapshot: Snapshot, rejected: Collection[tuple[str, str]] = ()
                       ) -> tuple[Supersession, ...]:
    """The supersessions of a root for the dream: every consolidation candidate, session logs
    included (:func:`memtui.core.judge.consolidate.is_candidate`), less the ``rejected`` pairs.  Each
    proposal's :attr:`Supersession.strong` says whether it starts checked."""
    from .consolidate import is_candidate, root_logs, root_token_sets

    files = [f for f in snapshot.files.values() if is_candidate(f, True)]
    return tuple(supersession_candidates(files, root_token_sets(files), rejected, logs=root_logs(files)))


def root_supersessions_cached(snapshot: Snapshot, cache: StatCache,
                              rejected: Collection[tuple[str, str]] = ()) -> tuple[Supersession, ...]:
    """:func:`root_supersessions` of a snapshot ``cache`` loaded, answered whole from the cache
    when the root (listing, every stat key, the index) and the rejected pairs are what they
    were last time; computed (and kept) otherwise."""
    digest = cache.loaded_digest("successors", sorted((a, b) if a <= b else (b, a) for a, b in rejected))
    hit = cache.memo("successors", digest)
    if hit is not None:
        try:
            return _supersessions_of(hit, snapshot.files)
        except (TypeError, ValueError):
            pass  # not an answer about these files: computed again
    found = root_supersessions(snapshot, rejected)
    cache.set_memo("successors", digest, tuple(
        (s.old, s.new, s.kind, s.evidence, s.strong, s.days, s.restated) for s in found))
    return found


def _supersessions_of(plain: Any, names: Collection[str]) -> tuple[Supersession, ...]:
    """The proposals :func:`root_supersessions_cached` kept; a ValueError when one names a path
    that is not one of ``names`` or is not plain data of a proposal."""
    out = []
    for old, new, kind, evidence, strong, days, restated in plain:
        for path in (old, new):
            if check_stored_path(path) not in names:
                raise ValueError(f"cached supersession names {path!r}")
        if not (isinstance(kind, str) and isinstance(evidence, tuple)
                and all(isinstance(e, str) for e in evidence) and isinstance(strong, bool)
                and isinstance(days, int) and isinstance(restated, float)):
            raise ValueError("not a supersession")
        out.append(Supersession(old, new, kind, evidence, strong, days, restated))
    return tuple(out)


def _restated(sets: Sequence[TokenSets], old: int, new: int) -> float:
    """The share of ``old``'s title + body words that ``new`` holds (0 when too few)."""
    a, b = sets[old].full, sets[new].full
    if len(a) < 3 or len(b) < 3:
        return 0.0
    return len(a & b) / len(a)


def _names(f: MemoryFile, other: _Note) -> bool:
    """Whether ``f``'s text names the other note's file."""
    return other.stem in f.text  # a ``relates_to`` link counts: the author tied the two


def _is_log(path: str) -> bool:
    """Whether a file is a session log by its name alone (``session_*``/``session-*``)."""
    name = path.rsplit("/", 1)[-1].lower()
    return name.startswith(("session_", "session-"))


def _log_test(logs: Collection[str] | None) -> Callable[[str], bool]:
    """Whether a path is a log: one of ``logs``, or (when None) a ``session_*`` file."""
    if logs is None:
        return _is_log
    known = frozenset(logs)
    return known.__contains__


class Weights:
    """The weights of the files' title + body words (:mod:`.weights`), counted once for all."""

    def __init__(self, sets: Sequence[TokenSets], df: Counter[str] | None = None) -> None:
        self.sets = sets
        self.df = df if df is not None else document_frequency(sets)

    def held(self, old: int, new: int) -> float:
        """The share of ``old``'s weighted words ``new`` holds."""
        return held(self.sets[old].full - self.sets[old].title, self.sets[new].full, self.df, len(self.sets))


def _common_lead(a: tuple[str, ...], b: tuple[str, ...]) -> int:
    """How many leading words two names share."""
    n = 0
    for x, y in zip(a, b):
        if x != y:
            break
        n += 1
    return n


def _distinct(old: _Note, new: _Note, lead: int) -> bool:
    """Whether two notes of one work item are about different parts of it: past their common
    leading words (or their common item words) each name says something of its own besides
    stages, and nothing of it in common."""
    if lead:
        rest_old = {w for w in old.lead[lead:] if w not in STAGES}
        rest_new = {w for w in new.lead[lead:] if w not in STAGES}
    else:
        rest_old, rest_new = set(old.item - new.item), set(new.item - old.item)
    return bool(rest_old) and bool(rest_new) and not rest_old & rest_new


_PART = re.compile(r"(?:t|task|step|block|part|unit)\d+")
# a part named in a title: ``(Step 3)``, ``Steps 1-2``, ``Tasks 4–7``, ``Part 2``
_TITLE_PART = re.compile(r"\b(task|step|block|part|unit|phase)s?\s*#?(\d{1,3})(?:\s*(?:-|–|to)\s*(\d{1,3}))?\b",
                         re.IGNORECASE)


def title_parts(title: str) -> dict[str, set[int]]:
    """The numbered parts a title names, by kind: ``Model + renderer (Steps 1-2)`` →
    ``{"step": {1, 2}}`` (a range counts every number in it)."""
    out: dict[str, set[int]] = {}
    for kind, first, last in _TITLE_PART.findall(title):
        a, b = int(first), int(last or first)
        if a <= b <= a + 50:
            out.setdefault(kind.lower(), set()).update(range(a, b + 1))
    return out


def _part(old: _Note, new: _Note, lead: int, titles: tuple[str, str] = ("", "")) -> bool:
    """Whether the later note is about one part of the earlier's work: past the words the names
    share it names a task, step, block or unit (``t11``, ``task2``, ``block1``) the earlier does
    not; or the two titles name parts of one kind and none in common (``(Steps 1-2)`` then
    ``(Step 3)``)."""
    rest = set(new.lead[lead:]) - set(old.lead)
    if any(_PART.fullmatch(w) for w in rest):
        return True
    old_parts, new_parts = title_parts(titles[0]), title_parts(titles[1])
    return any(kind in old_parts and not numbers & old_parts[kind] for kind, numbers in new_parts.items())


# a title that gives a review's negative verdict: ``P1 plan verification - NEEDS-FIXES``
_FAULTED = re.compile(r"\b(?:needs?[- ]fix(?:es)?|changes requested|rejected)\b", re.IGNORECASE)


def faulted(title: str) -> bool:
    """Whether a title gives a review's negative verdict (needs fixes, changes requested,
    rejected): the note judges the work, it does not restate or close it."""
    return _FAULTED.search(title) is not None


def review_and_subject(a: str, b: str, logs: Collection[str] | None = None) -> bool:
    """Whether two session logs are a review and the work it reviews: their names share a word
    of the work item, and one of them (only) is of the review stage (``review``, ``codex``,
    ``handoff`` …) — a review's log restates what it reviews, round by round, yet the two are no
    merge of equals."""
    is_log = _log_test(logs)
    if not (is_log(a) and is_log(b)):
        return False
    words_a, words_b = name_words(a), name_words(b)
    if not work_item(words_a) & work_item(words_b):
        return False
    review_a, review_b = (any(STAGES.get(w) == REVIEW for w in words) for words in (words_a, words_b))
    return review_a != review_b


def _checkpoints(files: Sequence[MemoryFile], sets: Sequence[TokenSets], notes: list[_Note],
                 by_word: dict[str, list[_Note]], rare: set[str], is_log: Callable[[str], bool],
                 weights: Weights, tuning: Tuning) -> Iterable[tuple[_Note, _Note, Supersession]]:
    """Each dated note linked to the nearest later note of its work item that restates it.

    One work item: the names start with the same two words (or one rare word), or one name's
    item words are contained in the other's and they share a rare one.  Among the later notes of
    its item, a note's successor is the one whose name shares the most leading words, then the
    nearest."""
    logs = [n for n in notes if is_log(n.path) and n.dated_name]
    by_lead = _by_first_lead(logs)
    for old in logs:
        if not old.item:
            continue
        best: tuple[tuple[Any, ...], _Note] | None = None
        for new in _dated_logs_near(old, by_lead, by_word, rare, is_log):
            key = _checkpoint_rank(files, sets, old, new, rare, weights, tuning)
            if key is not None and (best is None or key < best[0]):
                best = (key, new)
        if best is not None:
            yield old, best[1], _checkpoint(files, sets, old, best[1])


def _by_first_lead(notes: list[_Note]) -> dict[str, list[_Note]]:
    """The notes by the first leading word of their names (none for a name without one)."""
    by_lead: dict[str, list[_Note]] = defaultdict(list)
    for n in notes:
        if n.lead:
            by_lead[n.lead[0]].append(n)
    return by_lead


def _dated_logs_near(old: _Note, by_lead: dict[str, list[_Note]], by_word: dict[str, list[_Note]],
                     rare: set[str], is_log: Callable[[str], bool]) -> Iterator[_Note]:
    """The logs dated by their names that may be of ``old``'s work item, each once: those whose
    names start with its first word, then those that share a rare word of its item."""
    seen: set[int] = {old.index}
    pool = [*(by_lead.get(old.lead[0], ()) if old.lead else ()),
            *(n for word in old.item & rare for n in by_word[word])]
    for new in pool:
        if new.index in seen or not is_log(new.path) or not new.dated_name:
            continue
        seen.add(new.index)
        yield new


def _checkpoint_rank(files: Sequence[MemoryFile], sets: Sequence[TokenSets], old: _Note, new: _Note,
                     rare: set[str], weights: Weights, tuning: Tuning) -> tuple[Any, ...] | None:
    """How near a successor of ``old`` the later ``new`` is (the lowest nearest: the most leading
    words shared, then the earliest, then the most restated), or None when it is none."""
    days = (new.when.date() - old.when.date()).days
    if not 0 <= days <= CHAIN_DAYS or not _after(new, old):
        return None
    lead = _common_lead(old.lead, new.lead)
    versioned = _new_version(old, new)
    named = _names(files[new.index], old)
    contained = (old.item <= new.item or new.item <= old.item) and bool(old.item & new.item & rare)
    if not _one_item(old, lead, rare, contained, versioned and named):
        return None
    if _other_work(files, old, new, lead):
        return None
    restated = _restated(sets, old.index, new.index)
    if not (_restates_closing(old, new, lead, restated, versioned, contained)
            or (named and weights.held(old.index, new.index) >= tuning.named_hold)):
        return None
    return (-lead, _order(new)[:3], -_restated(sets, old.index, new.index), new.path)


def _one_item(old: _Note, lead: int, rare: set[str], contained: bool, named_version: bool) -> bool:
    """Whether a later note is of ``old``'s work item: their names share two leading words (or
    one rare word), one's item words hold the other's and a rare one, or it is a later version
    naming ``old`` with a leading word in common."""
    return (lead >= 2 or (lead == 1 and old.lead[0] in rare) or contained
            or (named_version and lead >= 1))


def _other_work(files: Sequence[MemoryFile], old: _Note, new: _Note, lead: int) -> bool:
    """Whether a later note of no higher version is other work than ``old``: a distinct item or
    a part of it, a review, a note of a fault, or anything but an answer to ``old``'s review."""
    titles = (files[old.index].title, files[new.index].title)
    return new.version <= old.version and (_distinct(old, new, lead) or _part(old, new, lead, titles)
                                           or new.stage == REVIEW or faulted(titles[1])
                                           or (old.stage == REVIEW and new.stage not in ANSWERS))


def _restates_closing(old: _Note, new: _Note, lead: int, restated: float, versioned: bool,
                      contained: bool) -> bool:
    """Whether ``new`` closes the item or is a later version of it and restates enough of ``old``."""
    closes = new.stage == CLOSING > old.stage or new.version > old.version
    return (closes and restated >= RESTATES) or (
        versioned and (contained or lead >= 2) and restated >= VERSION_RESTATES)


def _checkpoint(files: Sequence[MemoryFile], sets: Sequence[TokenSets], old: _Note,
                new: _Note) -> Supersession:
    share = _restated(sets, old.index, new.index)
    named = _names(files[new.index], old)
    evidence = [f"one work item ({', '.join(sorted(old.item & new.item))})",
                f"{(new.when.date() - old.when.date()).days} day(s) later"]
    closes = new.stage == CLOSING and old.stage < CLOSING
    versioned = new.version > old.version
    if closes:
        evidence.append("the later note closes the item")
    if versioned:
        evidence.append(f"a later version (v{old.version} → v{new.version})")
    if named:
        evidence.append(f"the later note names {old.stem}")
    evidence.append(f"the later note holds {share:.0%} of the earlier's words")
    kind = CHECKPOINT
    small, large = len(sets[old.index].full), len(sets[new.index].full)
    if small and large >= CONTAINED_RATIO * small and share >= CONTAINED_SHARE:
        kind = CONTAINED
    strong = closes or versioned
    return Supersession(old.path, new.path, kind, tuple(evidence), strong,
                        (new.when.date() - old.when.date()).days, share)


def _declared(files: Sequence[MemoryFile], sets: Sequence[TokenSets], notes: list[_Note],
              ) -> Iterable[tuple[_Note, _Note, Supersession]]:
    """The author's own word: a note whose ``supersedes`` names another candidate of the root
    (the older one carries no ``superseded_by`` yet, or it would be no candidate)."""
    by_path = {n.path: n for n in notes}
    for new in notes:
        for name in files[new.index].frontmatter.names("supersedes"):
            old = by_path.get(name)
            if old is None or old.index == new.index:
                continue
            evidence = (f"{new.stem} says it supersedes {old.stem} (supersedes: in its frontmatter)",
                        f"the later note holds {_restated(sets, old.index, new.index):.0%} of the earlier's words")
            yield old, new, Supersession(old.path, new.path, DECLARED, evidence, True,
                                         (new.when.date() - old.when.date()).days,
                                         _restated(sets, old.index, new.index))


def _marked(sets: Sequence[TokenSets], notes: list[_Note], marks: Sequence[IndexMark],
            ) -> Iterable[tuple[_Note, _Note, Supersession]]:
    """The author's word in the index: an entry that marks its file SUPERSEDED by another
    candidate's (:func:`memtui.core.model.index_marks.index_marks`); a partial mark decides nothing."""
    by_path = {n.path: n for n in notes}
    for mark in marks:
        old, new = by_path.get(mark.path), by_path.get(mark.successor or "")
        if mark.partial or old is None or new is None or old.index == new.index:
            continue
        share = _restated(sets, old.index, new.index)
        evidence = (f"MEMORY.md line {mark.line} marks it superseded: \u201c{mark.words}\u201d",
                    f"the later note holds {share:.0%} of the earlier's words")
        yield old, new, Supersession(old.path, new.path, DECLARED, evidence, True,
                                     (new.when.date() - old.when.date()).days, share)


def _reports(sets: Sequence[TokenSets], notes: list[_Note], is_log: Callable[[str], bool],
             weights: Weights, tuning: Tuning) -> Iterable[tuple[_Note, _Note, Supersession]]:
    """Successive reports of one series: logs of one dated family (:func:`.logs.name_family`:
    ``project_status_2026-05-03_morning`` then ``…_evening``), each linked to the next one of its
    family when the next holds :attr:`Tuning.log_hold` of its weighted words — a status report
    restated by the one after it.  Offered unchecked: the later may drop what was durable."""
    families: dict[str, list[_Note]] = defaultdict(list)
    for n in notes:
        family = name_family(n.path)
        if family is not None and is_log(n.path) and n.dated_name:
            families[family].append(n)
    for members in families.values():
        members.sort(key=_series_order)
        for old, new in zip(members, members[1:]):
            if _series_order(old)[:2] == _series_order(new)[:2]:
                continue  # the same moment: no order between them
            share = weights.held(old.index, new.index)
            if share < tuning.log_hold:
                continue
            days = (new.when.date() - old.when.date()).days
            evidence = (f"one series of reports ({old.stem} \u2192 {new.stem})",
                        f"{days} day(s) later" if days else "later the same day",
                        f"the later report holds {share:.0%} of the earlier's weighted words")
            yield old, new, Supersession(old.path, new.path, CHECKPOINT, evidence, False, days,
                                         _restated(sets, old.index, new.index))


#: the order of the parts of a day a report's name may carry
_DAYPARTS = {"morning": 1, "sabah": 1, "manha": 1, "manhã": 1, "mañana": 1, "am": 1, "sod": 1,
             "midday": 2, "noon": 2, "ogle": 2, "öğle": 2, "afternoon": 3, "tarde": 3, "pm": 3,
             "evening": 4, "aksam": 4, "akşam": 4, "eod": 4, "night": 5, "gece": 5, "noite": 5, "noche": 5}
_CLOCK = re.compile(r"(?<!\d)([01]\d|2[0-3])[-_:h.]?([0-5]\d)(?!\d)")


def _series_order(n: _Note) -> tuple[Any, ...]:
    """When a report of a series was written: its date, then the part of the day or the time its
    name gives (``morning`` before ``evening``, ``0930`` before ``1415``), then its sequence."""
    rest = _NAME_DATE.sub(" ", n.stem.lower())
    part = next((rank for w in re.findall(r"[^\W\d_]+", rest) if (rank := _DAYPARTS.get(w))), 0)
    clock = _CLOCK.search(rest)
    minute = int(clock.group(1)) * 60 + int(clock.group(2)) if clock else -1
    return (n.when.date(), part * 10_000 + minute, n.version, n.path)


def _consolidations(files: Sequence[MemoryFile], sets: Sequence[TokenSets], notes: list[_Note],
                    by_word: dict[str, list[_Note]],
                    ) -> Iterable[tuple[_Note, _Note, Supersession]]:
    """The notes a consolidating file says it consolidates: its work item, within its range."""
    for new in notes:
        f = files[new.index]
        if not new.item:
            continue
        name, claim = f.name.replace("-", " ").replace("_", " "), f.title + "\n" + f.description
        if not _may_say(_CONSOLIDATES_HINTS, name + "\n" + claim) or not (
                _CONSOLIDATES.search(name) or _CONSOLIDATES.search(claim)):
            continue
        span = _RANGE.search(claim + "\n" + f.body[:1500])
        if span is None:
            continue
        start = span[1]
        end = span[2] if len(span[2]) == 10 else start[:5] + span[2]
        members = set.intersection(*({n.index for n in by_word[w]} for w in new.item))
        for i in sorted(members):
            old = notes[i]
            if i == new.index or not start <= old.when.date().isoformat() <= end:
                continue
            if files[i].type != f.type:  # "39 project beats": a lesson of the item stays
                continue
            share = _restated(sets, i, new.index)
            evidence = (f"{new.stem} consolidates {', '.join(sorted(new.item))} "
                        f"from {start} to {end}", f"the consolidation holds {share:.0%} of its words")
            yield old, new, Supersession(old.path, new.path, CONSOLIDATED, evidence, True,
                                         (new.when.date() - old.when.date()).days, share)


def _replacements(files: Sequence[MemoryFile], sets: Sequence[TokenSets], notes: list[_Note],
                  by_word: dict[str, list[_Note]], rare: set[str],
                  ) -> Iterable[tuple[_Note, _Note, Supersession]]:
    """Older notes of the subject a note says it replaces."""
    by_path = {n.path: n for n in notes}
    for new in notes:
        f = files[new.index]
        in_name = not _REPLACE_NAME.isdisjoint(new.words)
        claim = f.title + "\n" + f.description
        cue = _REPLACE_CLAIM.search(claim) if _may_say(_REPLACE_HINTS, claim) else None
        now = not in_name and cue is None and _NOW.search(f.title) is not None
        if not in_name and cue is None and not now:
            continue
        seen: set[int] = set()
        # a title that says it replaces (or a claim that says what is now), and the notes it
        # links (``relates_to``): the author's tie stands in for a shared name word
        titled = now or _REPLACE_CLAIM.search(f.title) is not None
        linked = [by_path[p] for p in f.frontmatter.names("relates_to") if p in by_path] if titled else []
        tied_to = {n.index for n in linked}
        subject = _replaced_subject(new) if in_name else new.item
        named = [] if now else [n for word in subject & rare for n in by_word[word]]
        for old in named + linked:
            if old.index == new.index or old.index in seen:
                continue
            seen.add(old.index)
            days = (new.when.date() - old.when.date()).days
            if not (0 < days <= REPLACE_DAYS or (days == 0 and titled and _same_day_successor(old, new))):
                continue
            if not in_name and len(old.item & new.item) < 2 and old.index not in tied_to:
                continue  # a cue in the claim alone: the names must share two words
            same = overlap(sets[old.index].full, sets[new.index].full)
            tied = in_name and _names(f, old)  # the name says so and the note links the older
            if same is None or (same < SAME_SUBJECT and not tied):
                continue
            said = "its name" if in_name else f"'{cue[0].strip()}'" if cue else ""
            shared = ", ".join(sorted(old.item & new.item))
            what = f"something named {shared}" if shared else f"{old.stem}, which it links"
            evidence = (f"{new.stem} says it replaces ({said}) {what}",
                        f"{days} day(s) later", f"the two share {same:.0%} of their words")
            yield old, new, Supersession(old.path, new.path, REPLACES, evidence, in_name,
                                         days, _restated(sets, old.index, new.index))


def _replaced_subject(note: _Note) -> frozenset[str]:
    """What a name that says a replacement names as replaced: its work item's words before the
    cue (``postgres-migrated-to-neon`` → postgres; ``endow_to_justify_rename`` → endow, to,
    justify), not the words after it, which say where it happened (``beats-rename-claude-md``
    renamed something *to* beats in CLAUDE.md: a note on CLAUDE.md is not what it replaces).
    A name that begins with its cue (``rename-offers-to-endow``) names it after: all its words."""
    cue = next(i for i, word in enumerate(note.words) if word in _REPLACE_NAME)
    before = note.item.intersection(note.words[:cue])
    return before or note.item


def retired_things(claim: str) -> set[str]:
    """The named things (lower case) a title or description says are gone: an identifier or a
    backticked name among the :data:`THING_WORDS` words either side of a cue, in its clause
    (``(surface-card token retired)`` → ``surface-card``; ``removed justify-go shim`` →
    ``justify-go``).  What follows "replaced with", "renamed to" … is the new thing, not the gone."""
    if not _may_say(_RETIRED_HINTS, claim):
        return set()
    out = set()
    for cue in _RETIRED.finditer(claim):
        start = max((m.end() for m in _CLAUSE_END.finditer(claim, 0, cue.start())), default=0)
        end_match = _CLAUSE_END.search(claim, cue.end())
        before = claim[start:cue.start()].split()[-THING_WORDS:]
        after: list[str] = []
        for word in claim[cue.end():end_match.start() if end_match else len(claim)].split():
            if word.lower() in _NEW_THING or len(after) == THING_WORDS:
                break
            after.append(word)
        for thing in _THING.finditer(" ".join(before) + " " + " ".join(after)):
            out.add((thing[1] or thing[2]).lower())
    return out


def _retirements(files: Sequence[MemoryFile], sets: Sequence[TokenSets], notes: list[_Note],
                 ) -> Iterable[tuple[_Note, _Note, Supersession]]:
    """Older notes that brought in a thing a newer note says it retired (see the module
    docstring).  A note names a thing in its title, description or body where the thing stands
    whole (``IDLE_CAP`` is not named by ``IDLE_CAP_MS``, ``flag-1`` not by ``flag-10``); only
    the notes holding every word of it (:func:`memtui.core.model.words.tokens`) are read for it."""
    claims = [(new, things) for new in notes
              if (things := retired_things(files[new.index].title + "\n" + files[new.index].description))]
    if not claims:
        return
    words = {thing: tokens(thing) for _, things in claims for thing in things}
    wanted = frozenset().union(*words.values())
    texts = [f.title + "\n" + f.description + "\n" + f.body for f in files]
    holding: dict[str, set[int]] = defaultdict(set)  # a word of a thing -> the notes holding it
    for n in notes:
        for word in wanted & tokens(texts[n.index]):
            holding[word].add(n.index)
    everyone = {n.index for n in notes}
    low: dict[int, str] = {}

    def lowered(i: int) -> str:
        if i not in low:
            low[i] = texts[i].lower()
        return low[i]

    by_index = {n.index: n for n in notes}
    for new, things in claims:
        for thing in sorted(things):
            alone = _whole(thing)
            # no word to look for (``a-b``, stop words): every note is read
            maybe = set.intersection(*(holding[w] for w in words[thing])) if words[thing] else everyone
            others = [by_index[i] for i in sorted(maybe - {new.index})
                      if thing in lowered(i) and alone.search(texts[i])]
            if len(others) > INTRODUCERS:
                continue  # a thing many notes name: not one note's
            for old in others:
                head = files[old.index].title + "\n" + files[old.index].description
                if thing in retired_things(head) or _names(files[old.index], new):
                    continue  # the older note retires it too, or it names the newer: it came after
                in_head = alone.search(head) is not None
                if not in_head and not old.item & new.item:
                    continue  # in the text only: their names must share a word
                days = (new.when.date() - old.when.date()).days
                if not 0 <= days <= REPLACE_DAYS:
                    continue
                evidence = (f"{new.stem} says {thing} is gone (retired, removed or replaced)",
                            f"{old.stem} brought it in ({'its title or description' if in_head else 'its text'})",
                            f"{days} day(s) later")
                yield old, new, Supersession(old.path, new.path, REPLACES, evidence, False,
                                             days, _restated(sets, old.index, new.index))


def _whole(thing: str) -> re.Pattern[str]:
    """``thing`` where it stands whole: no letter, digit, ``_`` or ``-`` either side."""
    return re.compile(r"(?<![\w-])" + re.escape(thing) + r"(?![\w-])", re.IGNORECASE)


_EXTENDS = re.compile(r"\b(?:extends|extension of|restates|builds on|same (?:rule|lesson) as|"
                      r"refines|generali[sz]es)\b", re.IGNORECASE)
#: what a body holds when :data:`_EXTENDS` can match (a case-sensitive, cheaper first test)
_HINT = re.compile("xten|XTEN|estate|ESTATE|uilds on|UILDS ON|efine|EFINE|enerali|ENERALI|"
                   "ame rule|ame lesson|AME RULE|AME LESSON")
_QUOTED = re.compile(r"\"([^\"\n]{3,120})\"|“([^”\n]{3,120})”|\[\[([^\]\n]{3,160})\]\]|`([^`\n]{3,160})`")
_SEP = re.compile(r"[\s_\-]+")


def _phrase(text: str) -> str:
    """A name, title or quoted phrase folded for comparison: lower case, separators as spaces,
    ``.md`` and a type prefix taken off."""
    text = text.strip().lower()
    if text.endswith(".md"):
        text = text[:-3]
    text = text.rsplit("/", 1)[-1]
    words = _SEP.sub(" ", text).strip().split(" ")
    if words and words[0] in _PREFIXES:
        words = words[1:]
    return " ".join(words)


#: the types of a standing rule (as :data:`memtui.core.judge.staleness.RULE_TYPES`): what "one rule
#: stated twice" is about
RULE_TYPES = frozenset({"user", "feedback", "decision", "value"})


def is_rule(f: MemoryFile) -> bool:
    """Whether a file states a standing rule: its ``type`` is one of :data:`RULE_TYPES`, or,
    without a type, its name starts with one (``feedback_…``)."""
    declared = f.frontmatter.get("type").strip().lower()
    if declared:
        return declared in RULE_TYPES
    return f.name.lower().startswith(tuple(f"{t}_" for t in RULE_TYPES) + tuple(f"{t}-" for t in RULE_TYPES))


def _cue_in_head(f: MemoryFile) -> bool:
    return _HINT.search(f.body[:EXTENDS_CHARS]) is not None


def extends_cue(f: MemoryFile) -> bool:
    """Whether the start of a file's body (:data:`EXTENDS_CHARS`) may say it extends another (a
    first test before :data:`_EXTENDS`), kept in the stat cache for files of a cached load: a
    warm run reads only the bodies that may."""
    return cached(f, "scan/extends-cue", _cue_in_head)


def _same_day_successor(old: _Note, new: _Note) -> bool:
    """Whether ``new``, of the same day as ``old``, came after it and is about the same part of
    the work: it names the older note and is not named by it, and their names are not about
    different parts of one item (:func:`_distinct`, :func:`_part`).  A replacement of the same
    day is looked for only when the title says it: a description's "replaced X with Y" is most
    often about the code, not about the older note."""
    if not _names(new.file, old) or _names(old.file, new):  # the one naming the other came after
        return False
    lead = _common_lead(old.lead, new.lead)
    return not (_distinct(old, new, lead) or _part(old, new, lead, (old.file.title, new.file.title)))


def _extensions(files: Sequence[MemoryFile], sets: Sequence[TokenSets], notes: list[_Note],
                ) -> Iterable[tuple[_Note, _Note, Supersession]]:
    """Rules stated twice: a rule (:func:`is_rule`) saying it extends (restates, refines …)
    another rule it names — by file name or title, quoted or linked in the sentence of the cue —
    whatever their sizes.  A reference or a project note that extends another adds to it: two
    notes to keep."""
    cued = [(n, f.body[:EXTENDS_CHARS]) for n, f in zip(notes, files) if is_rule(f) and extends_cue(f)]
    named: dict[str, int] = {}
    if cued:
        for n, f in zip(notes, files):
            for phrase in (_phrase(f.name), _phrase(f.title)):
                if len(phrase) >= 8:
                    named.setdefault(phrase, n.index)
    for new, body in cued:  # the start of the body
        for cue in _EXTENDS.finditer(body):
            start = max(body.rfind("\n", 0, cue.start()), body.rfind(". ", 0, cue.start()))
            end = min((k for k in (body.find("\n", cue.end()), body.find(". ", cue.end())) if k >= 0),
                      default=len(body))
            for quoted in _QUOTED.finditer(body[start + 1 : end]):
                target = named.get(_phrase(next(g for g in quoted.groups() if g)))
                if target is None or target == new.index:
                    continue
                old = notes[target]
                if not is_rule(files[target]):
                    continue
                evidence = (f"{new.stem} says it {cue[0].lower()} {old.stem}",
                            f"the two share {overlap(sets[old.index].full, sets[new.index].full) or 0:.0%} "
                            "of their words")
                yield old, new, Supersession(old.path, new.path, EXTENDS, evidence, False,
                                             (new.when.date() - old.when.date()).days,
                                             _restated(sets, old.index, new.index))
