"""Consolidation candidates (DESIGN §6): near-duplicate pairs, their clusters, and contradictions.

Pure: :func:`scan` reads a snapshot (and the rejected pairs it is given) and never the disk; the
pairs a person rejected are kept by :mod:`memtui.core.stores.rejections`.

Decisions the design leaves open, made here:
- Candidates are the memory files outside ``archive/`` whose ``status`` is neither ``archived``
  nor ``superseded`` and that name no ``superseded_by`` or ``folded_into`` (they have already
  left the working set), less the folder's own documents
  (:func:`~memtui.core.model.folder_docs.folder_document`: a README, a licence, a second index such as
  ``INDEX.md`` or ``SCOPE.md``, an unfilled template) and, unless asked for, the root's logs of
  work (:func:`root_logs`: hand-offs, status reports, session notes — :mod:`.logs`).
- The stop words include the polarity words (use, avoid, always, never, don't, not, prefer): the
  overlap measures the topic, and the negation check measures the stance.
- Similarity is rapidfuzz's ``fuzz.ratio`` (0–1 here) of title + body, each cut to
  :data:`SIMILARITY_CHARS`; pairs are listed most similar first.
- Contradictions are found by :mod:`memtui.core.judge.contradictions`; the newer file is the
  successor.  Supersessions (a newer note replacing an older one: checkpoint chains,
  consolidations, replacements) by :mod:`memtui.core.judge.supersession`; a pair proposed as one is
  not also proposed as a merge of equals.  Rejected pairs are proposed as none of these.
"""

from __future__ import annotations

import math
import re
import time
from collections import Counter, defaultdict
from dataclasses import astuple, dataclass
from itertools import chain, combinations
from pathlib import Path
from typing import Any, Callable, Collection, Iterable, Sequence

from ..model.folder_docs import folder_document, is_unfilled
from ..model.gcpause import gc_paused
from ..model.index_marks import index_marks
from ..model.journal import pending_records
from ..model.safepath import check_stored_path
from ..model.snapshot import BudgetConfig, MemoryFile, Snapshot, pair_key
from ..model.words import STOP_WORDS as STOP_WORDS
from ..model.words import token_list, tokens
from ..read.store import list_root
from ..stores.statcache import StatCache, cached
from .contradictions import Contradiction, find_contradictions
from .logs import log_paths, name_family, opens_as_log
from .simjoin import MIN_TOKENS, TokenSets, check_threshold, overlap, pair_score, qualifies, similar_pairs
from .supersession import Supersession, review_and_subject, supersession_candidates
from .textsim import SIMILARITY_CHARS as SIMILARITY_CHARS
from .textsim import similarity
from .weights import DEFAULT_TUNING, Tuning
from .weights import held as weighted_held

DEFAULT_THRESHOLD = 0.8
OVERSIZED = 6
CHAINED_DENSITY = 0.6
SHARED_SHOWN = 5

# The precision stage (see :class:`_Judge`).  Measured against tests/core/data/candidate_labels.tsv
# (``bench/eval_candidates.py``); they are not tied to the threshold on purpose.
COMMON_MIN_FILES = 10  # a root this large has tokens "most files share" (dropped)
COMMON_SHARE = 0.5  # ... held by more than this share of titles (or of titles + bodies)
RECALL_BODY = 0.6  # the title + body overlap the recall stage joins at (at most the threshold)
SUPPORT = 0.4  # the title + body overlap a title match needs
INFORMATIVE_TITLE = 4  # a title of fewer tokens also needs BODY_COSINE
BODY_COSINE = 0.3  # the TF-IDF cosine an overlap match needs: the shared words must weigh
CONTENT_COSINE = 0.55  # the cosine that proposes a pair on its own (with RECALL_BODY overlap)
NEAR_COPY = 0.8  # the cosine a pair of one dated family needs (besides the threshold overlap)
CONTAINED_RATIO = 3.0  # a file this many times larger (in tokens) contains the other
CONTAINED_OVERLAP = 0.7  # the share of the smaller file's tokens found in the larger one
MAX_RATIO = 10.0  # past this ratio token containment means nothing: a big log holds every word
VERBATIM_SHARE = 0.8  # ... unless this share of the smaller file's lines are in the larger one
VERBATIM_LINE = 20  # characters a body line needs to count as content
LOG_COSINE = 0.6  # the cosine any overlap rule needs between two dated session files
RARE_DF = 6  # a word held by at most this many candidate files is rare: two notes sharing rare words meet
RARE_SHARED = 2  # ... at least this many of them


_DATE_IN_NAME = re.compile(r"(?<!\d)(?:\d{4}([-_])\d{2}\1\d{2}(?:-\d{2})?|\d{8})(?!\d)")
_DIGITS = re.compile(r"\d+")


def name_template(path: str) -> str | None:
    """A file name with its date taken out and other numbers made ``#``; None without a date.

    Files whose templates are equal form a *dated family* (``project_session_2026-03-25.md``,
    ``project_session_2026-03-31.md``): their titles agree by construction, so they are never
    paired on the title, and on the body only as near copies.
    """
    name = path.rsplit("/", 1)[-1].lower()
    if not _DATE_IN_NAME.search(name):
        return None
    return _DIGITS.sub("#", _DATE_IN_NAME.sub("", name))


def is_session(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    return name.startswith(("session_", "session-"))


def _unfilled(f: MemoryFile) -> bool:
    """:func:`~memtui.core.model.folder_docs.is_unfilled` of a file's body, kept in the stat cache (a
    kept answer reads no text)."""
    return cached(f, "scan/unfilled", lambda g: is_unfilled(g.body), int, bool)


def root_logs(files: Iterable[MemoryFile]) -> frozenset[str]:
    """The files among ``files`` that are logs of work (:func:`.logs.log_paths`, whose reading of
    each file's opening the stat cache keeps), ``session_*`` files always among them."""
    files = list(files)
    found = log_paths(files, _opens_as_log)
    return found | {f.path for f in files if is_session(f.path)}


def _opens_as_log(f: MemoryFile) -> bool:
    return cached(f, "scan/opens-as-log", opens_as_log, int, bool)


def is_candidate(f: MemoryFile, include_sessions: bool = False, logs: Collection[str] | None = None) -> bool:
    """Whether a file takes part in consolidation (see the module docstring); ``logs``: the
    root's logs (:func:`root_logs`) when known, else the ``session_*`` files are its logs."""
    if f.archived or f.status == "superseded" or folder_document(f.path, f, _unfilled) is not None:
        return False
    if f.frontmatter.names("superseded_by") or f.frontmatter.names("folded_into"):
        return False
    if include_sessions:
        return True
    return f.path not in logs if logs is not None else not is_session(f.path)


#: the tokenizer's version: bump it when :func:`tokens` or :func:`token_sets` change what they give
#: (the stat cache keeps token sets under it; any change to memtui's core source also resets it)
TOKENIZER_VERSION = 1
#: the judgment's version: bump it when a rule changes what a scan proposes from the same tokens,
#: so that no memo kept by an older memtui answers for it
JUDGMENT_VERSION = 3


def cached_token_sets(f: MemoryFile, canon: dict[str, str] | None = None) -> TokenSets:
    """:func:`token_sets`, kept in the stat cache for files of a cached load."""
    return cached(
        f, f"scan/tokens-{TOKENIZER_VERSION}", lambda g: token_sets(g, canon),
        lambda s: (_joined(s.title), _joined(s.full), s.group),
        lambda p: TokenSets(_split(p[0]), _split(p[1]), p[2]),
    )


def _joined(words: frozenset[str]) -> str | frozenset[str]:
    """A token set as one NUL-joined string for the cache: marshal writes one string ~40× faster
    than a set of thousands of small ones (the set itself if a token held a NUL)."""
    if not words:
        return ""
    text = "\0".join(words)
    return text if text and text.count("\0") == len(words) - 1 else words


def _split(kept: str | frozenset[str]) -> frozenset[str]:
    """The token set :func:`_joined` kept."""
    if isinstance(kept, str):
        return frozenset(kept.split("\0")) if kept else frozenset()
    return frozenset(kept)


def token_sets(f: MemoryFile, canon: dict[str, str] | None = None) -> TokenSets:
    """The title tokens and the title + body tokens of a file, grouped by its type.

    The title + body set is one pass over ``title + "\n" + body`` (the newline keeps a run from
    spanning the two), not the union of two sets.  ``canon``: as for :func:`tokens`.
    """
    title = f.title
    return TokenSets(tokens(title, canon), tokens(_full_text(f, title), canon), f.type)


def _full_text(f: MemoryFile, title: str | None = None) -> str:
    return (f.title if title is None else title) + "\n" + f.body


def common_tokens(
    sets: list[TokenSets], full_df: Counter[str] | None = None
) -> tuple[frozenset[str], frozenset[str]]:
    """Tokens most titles of a root share, and tokens most of its files share: they weigh nothing.

    Empty for a root of fewer than :data:`COMMON_MIN_FILES` files, where "most" means little.
    ``full_df`` is the document frequency of the title + body tokens when already counted.
    """
    n = len(sets)
    if n < COMMON_MIN_FILES:
        return frozenset(), frozenset()
    limit = COMMON_SHARE * n
    titles = Counter(chain.from_iterable(s.title for s in sets))
    full = full_df if full_df is not None else Counter(chain.from_iterable(s.full for s in sets))
    return (
        frozenset(tok for tok, count in titles.items() if count > limit),
        frozenset(tok for tok, count in full.items() if count > limit),
    )


def root_token_sets(files: list[MemoryFile]) -> list[TokenSets]:
    """:func:`token_sets` of a root's files less the root's :func:`common_tokens`."""
    return cleaned_token_sets(files)[0]


def cleaned_token_sets(files: list[MemoryFile]) -> tuple[list[TokenSets], Counter[str]]:
    """:func:`root_token_sets`, and the document frequency of their title + body tokens."""
    canon: dict[str, str] = {}  # one copy of each token of the root (see :func:`tokens`)
    sets = [cached_token_sets(f, canon) for f in files]
    df = Counter(chain.from_iterable(s.full for s in sets))
    common_title, common_full = common_tokens(sets, df)
    if common_title or common_full:
        # in place: each file's old sets are freed as its new ones are made, so a large root never
        # holds both (half a gigabyte at 100k files)
        for k, s in enumerate(sets):
            sets[k] = TokenSets(s.title - common_title, s.full - common_full, s.group)
        for tok in common_full:
            del df[tok]
    return sets, df


# ------------------------------------------------------------------------------ results

DUPLICATE = "duplicate"
CONTAINED = "contained"


@dataclass(frozen=True)
class Candidate:
    """A proposed near-duplicate pair (``a < b``)."""

    a: str
    b: str
    score: float  # the larger of the two coefficients
    title_score: float | None  # None when a title has fewer than 3 tokens
    body_score: float | None  # title + body
    similarity: float  # rapidfuzz ratio of the texts, 0–1
    shared: tuple[str, ...]  # shared tokens, rarest first
    shared_count: int
    kind: str = DUPLICATE  # or CONTAINED: the smaller file is contained in ``contained_in``
    contained_in: str | None = None
    cosine: float = 0.0  # TF-IDF cosine of the titles + bodies
    evidence: str = "body"  # which rule proposed it: body, title, content, contained, near-copy, rare words
    held: float = 0.0  # the share of the smaller note's weighted words the larger one holds

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "score": round(self.score, 4),
            "similarity": round(self.similarity, 4),
            "title_score": None if self.title_score is None else round(self.title_score, 4),
            "body_score": None if self.body_score is None else round(self.body_score, 4),
            "cosine": round(self.cosine, 4),
            "kind": self.kind,
            "contained_in": self.contained_in,
            "evidence": self.evidence,
            "held": round(self.held, 4),
            "shared": list(self.shared),
            "shared_count": self.shared_count,
        }


@dataclass(frozen=True)
class Cluster:
    """A connected component of proposed pairs."""

    files: tuple[str, ...]
    pairs: int
    oversized: bool  # more than 6 files
    chained: bool  # proposed pairs fewer than 60% of the possible ones

    @property
    def possible(self) -> int:
        n = len(self.files)
        return n * (n - 1) // 2

    @property
    def review_pairwise(self) -> bool:
        return self.oversized or self.chained

    def to_json(self) -> dict[str, Any]:
        return {
            "files": list(self.files),
            "pairs": self.pairs,
            "possible": self.possible,
            "oversized": self.oversized,
            "chained": self.chained,
        }


@dataclass(frozen=True)
class ScanResult:
    """What :func:`scan` proposes for one root."""

    root: str
    threshold: float
    considered: int  # files that took part
    pairs: tuple[Candidate, ...]
    clusters: tuple[Cluster, ...]
    contradictions: tuple[Contradiction, ...]
    rejected_skipped: int = 0  # proposals withheld because a person rejected them
    include_sessions: bool = False  # session files (session_*, session-*) took part
    session_files: int = 0  # session files that take part when included (left out by default)
    supersessions: tuple[Supersession, ...] = ()  # fold the earlier into the later (not a merge)

    def to_json(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "threshold": self.threshold,
            "considered": self.considered,
            "pairs": [p.to_json() for p in self.pairs],
            "clusters": [c.to_json() for c in self.clusters],
            "contradictions": [c.to_json() for c in self.contradictions],
            "supersessions": [s.to_json() for s in self.supersessions],
        }


# ------------------------------------------------------------------------------ the scan


def scan(
    snapshot: Snapshot,
    threshold: float = DEFAULT_THRESHOLD,
    *,
    include_sessions: bool = False,
    rejected: Collection[tuple[str, str]] = (),
    tuning: Tuning = DEFAULT_TUNING,
) -> ScanResult:
    """Near-duplicate pairs at ``threshold``, their clusters, and contradictions for one root."""
    check_threshold(threshold)
    with gc_paused():
        return _scan(snapshot, threshold, include_sessions, rejected, tuning)


def scan_cached(
    snapshot: Snapshot,
    cache: StatCache,
    threshold: float = DEFAULT_THRESHOLD,
    *,
    include_sessions: bool = False,
    rejected: Collection[tuple[str, str]] = (),
) -> ScanResult:
    """:func:`scan` of a snapshot ``cache`` loaded, answered whole from the cache when the root
    (listing, every stat key, the index) and the arguments are what they were last time."""
    check_threshold(threshold)
    digest = cache.loaded_digest(*_question(threshold, include_sessions, rejected))
    hit = cache.memo("scan", digest)
    if hit is not None:
        try:
            return _scan_of(hit, str(snapshot.root), snapshot.files, threshold, include_sessions)
        except (TypeError, ValueError):
            pass  # not a scan of these files: computed again
    result = scan(snapshot, threshold, include_sessions=include_sessions, rejected=rejected)
    cache.set_memo("scan", digest, (
        result.considered, tuple(map(astuple, result.pairs)), tuple(map(astuple, result.clusters)),
        tuple(map(astuple, result.contradictions)), result.rejected_skipped, result.session_files,
        tuple(map(astuple, result.supersessions)),
    ))
    return result


def scan_root(
    root: Path | str,
    config: BudgetConfig,
    threshold: float = DEFAULT_THRESHOLD,
    *,
    include_sessions: bool = False,
    rejected: Collection[tuple[str, str]] = (),
    clock: Callable[[], int] = time.time_ns,
) -> tuple[ScanResult, tuple[str, ...]]:
    """:func:`scan` of a root through its stat cache, without reading it when its kept answer
    still holds; with the root's interrupted changes (pending journal records)."""
    check_threshold(threshold)
    cache = StatCache.open(root, clock)
    listing = list_root(root)
    hit = cache.memo_unread(listing, config, "scan", _question(threshold, include_sessions, rejected))
    if hit is not None:
        try:
            names = {rel for rel, _ in listing.memory}
            return (_scan_of(hit, str(listing.root), names, threshold, include_sessions),
                    pending_records(listing.root))
        except (TypeError, ValueError):
            pass
    snapshot = cache.load(listing, config)
    result = scan_cached(snapshot, cache, threshold, include_sessions=include_sessions,
                         rejected=rejected)
    cache.save()
    return result, snapshot.interrupted


def _question(threshold: float, include_sessions: bool,
              rejected: Collection[tuple[str, str]]) -> tuple[Any, ...]:
    """Everything but the files a scan's answer depends on (part of its memo's key)."""
    return ("scan", TOKENIZER_VERSION, JUDGMENT_VERSION, astuple(DEFAULT_TUNING), threshold,
            include_sessions, sorted(_key(a, b) for a, b in rejected))


def _scan_of(
    plain: tuple[Any, ...], root: str, names: Collection[str], threshold: float,
    include_sessions: bool,
) -> ScanResult:
    """The scan result :func:`scan_cached` kept; a ValueError when it names a path that is not
    one of ``names`` (the listing's memory files)."""
    considered, pairs, clusters, contradictions, skipped, sessions, supersessions = plain

    def known(path: str | None) -> None:
        if path is not None and check_stored_path(path) not in names:
            raise ValueError(f"cached scan names {path!r}")

    result = ScanResult(
        root=root,
        threshold=threshold,
        considered=considered,
        pairs=tuple(Candidate(*p) for p in pairs),
        clusters=tuple(Cluster(*c) for c in clusters),
        contradictions=tuple(Contradiction(*c) for c in contradictions),
        rejected_skipped=skipped,
        include_sessions=include_sessions,
        session_files=sessions,
        supersessions=tuple(Supersession(*s) for s in supersessions),
    )
    named = [path for p in result.pairs for path in (p.a, p.b, p.contained_in)]
    named += [path for c in result.clusters for path in c.files]
    named += [path for found in result.contradictions for path in (found.old, found.new)]
    named += [path for superseded in result.supersessions for path in (superseded.old, superseded.new)]
    for path in named:
        known(path)
    return result


def token_sets_of(files: Iterable[MemoryFile]) -> list[TokenSets]:
    """:func:`token_sets` of many files (with the garbage collector paused, which is faster)."""
    with gc_paused():
        return [token_sets(f) for f in files]


@dataclass(frozen=True)
class Verdict:
    """Why the precision stage proposes a pair: its kind and the rule that fired."""

    kind: str
    evidence: str
    cosine: float
    held: float = 0.0


class _Judge:
    """The precision stage: whether a pair the recall stage found is one a careful reader accepts.

    A pair is proposed when one of these holds (``B``: title + body overlap, ``T``: title overlap,
    ``cos``: TF-IDF cosine of the titles + bodies, ``r``: how many times more tokens the larger
    file has):
    - *body*: ``B ≥ threshold``, and when ``r ≥ 3`` also ``cos ≥ 0.3`` and ``r ≤ 10`` (a larger file
      holds more of any vocabulary);
    - *contained*: ``3 ≤ r ≤ 10``, ``B ≥ 0.7``, ``cos ≥ 0.3`` (the small file's words are in the
      large one);
    - *title*: ``T ≥ threshold`` on at least 3 shared title tokens, ``B ≥ 0.4``, and a title of
      fewer than 4 tokens also needs ``cos ≥ 0.3``;
    - *content*: ``cos ≥ 0.55`` and ``B ≥ 0.5``;
    - *verbatim*: ``r ≥ 3``, ``B ≥ threshold`` and 80% of the smaller file's body lines (of 20
      characters or more) are lines of the larger one, at any ratio;
    - files of one dated family (:func:`name_template`) only as *near copies*: ``B ≥ threshold``
      and ``cos ≥ 0.8``;
    - two dated session files (a log: successive beats of one piece of work share titles and
      words by construction) need ``cos ≥ 0.6`` for every rule above but *verbatim*.
    A pair with ``r ≥ 3`` is shown as "contained in" the larger file, not as a merge of equals.
    Every rule needs ``T ≥ threshold`` or ``B ≥ min(threshold, 0.5)``: the recall stage's join.
    """

    def __init__(
        self, files: list[MemoryFile], sets: list[TokenSets], threshold: float, df: Counter[str] | None = None,
        tuning: Tuning = DEFAULT_TUNING, logs: frozenset[str] | None = None,
    ) -> None:
        self.files = files
        self.sets = sets
        self.threshold = threshold
        self.tuning = tuning
        self.logs = logs if logs is not None else root_logs(files)
        n = len(sets)
        self.df = df if df is not None else Counter(chain.from_iterable(s.full for s in sets))
        self._log_n = math.log(n + 1)
        self._vectors: dict[int, tuple[dict[str, float], float]] = {}
        self._templates: dict[int, str | None] = {}
        self._lines: dict[int, frozenset[str]] = {}

    def lines(self, i: int) -> frozenset[str]:
        """A file's body lines of :data:`VERBATIM_LINE` characters or more, whitespace folded."""
        found = self._lines.get(i)
        if found is None:
            found = self._lines[i] = frozenset(
                folded for folded in (" ".join(line.split()) for line in self.files[i].body.splitlines())
                if len(folded) >= VERBATIM_LINE
            )
        return found

    def verbatim(self, small: int, large: int) -> bool:
        """Whether most content lines of ``small`` are lines of ``large``."""
        own = self.lines(small)
        return bool(own) and len(own & self.lines(large)) >= VERBATIM_SHARE * len(own)

    @property
    def recall_body(self) -> float:
        return min(self.threshold, RECALL_BODY)

    def _vector(self, i: int) -> tuple[dict[str, float], float]:
        """The TF-IDF weights of a file's tokens (``(1 + ln tf) · ln((n + 1) / df)``) and their norm."""
        cached = self._vectors.get(i)
        if cached is None:
            keep = self.sets[i].full
            counts = Counter(token_list(_full_text(self.files[i])))  # counted in C, then kept
            log_n, df = self._log_n, self.df
            weights = {tok: (1.0 + math.log(c)) * (log_n - math.log(df[tok]))
                       for tok, c in counts.items() if tok in keep}
            cached = self._vectors[i] = (weights, math.sqrt(sum(w * w for w in weights.values())))
        return cached

    def held(self, i: int, j: int) -> float:
        """The share of ``i``'s weighted body words that ``j`` holds (:func:`.weights.held`): a
        title's wording is no fact a fold could lose."""
        return weighted_held(self.sets[i].full - self.sets[i].title, self.sets[j].full, self.df, len(self.sets))

    def joins(self, i: int, j: int) -> bool:
        """Whether the recall stage's overlap join pairs ``i`` and ``j``."""
        return qualifies(self.sets[i], self.sets[j], self.threshold, self.recall_body)

    def cosine(self, i: int, j: int) -> float:
        """TF-IDF cosine similarity of two files' titles + bodies (0–1)."""
        (wa, na), (wb, nb) = self._vector(i), self._vector(j)
        if not na or not nb:
            return 0.0
        if len(wb) < len(wa):
            wa, wb = wb, wa
        dot = sum(w * wb.get(tok, 0.0) for tok, w in wa.items())
        return min(1.0, dot / (na * nb))

    def is_log(self, i: int) -> bool:
        """Whether a file is a dated log (a beat of a log: a log whose name carries its date)."""
        path = self.files[i].path
        return path in self.logs and name_template(path) is not None

    def excerpt_of_log(self, small: int, large: int) -> bool:
        """Whether ``small``, a note that is no log, is "contained in" ``large``, a log of work: a
        curated fact a long log only retells is kept (the standard of DESIGN §6: a small excerpt
        of a much larger log is no merge; folding the note into the log would bury the fact in
        an episode)."""
        return self.files[large].path in self.logs and self.files[small].path not in self.logs

    def template(self, i: int) -> str | None:
        if i not in self._templates:
            self._templates[i] = name_template(self.files[i].path)
        return self._templates[i]

    def verdict(self, i: int, j: int) -> Verdict | None:
        """The verdict on the pair (i, j), or None when it is not proposed: a rule of
        :meth:`_rule` fired, and the larger note holds :attr:`Tuning.merge_hold` of the smaller's
        weighted words (a near copy and a verbatim containment hold theirs by construction)."""
        found = self._rule(i, j)
        if found is None:
            return None
        small, large = (i, j) if len(self.sets[i].full) <= len(self.sets[j].full) else (j, i)
        if found.kind == CONTAINED and self.excerpt_of_log(small, large):
            return None
        held = self.held(small, large)
        if found.evidence not in ("near-copy", "verbatim") and held < self.tuning.merge_hold:
            return None
        return Verdict(found.kind, found.evidence, found.cosine, held)

    def rare_verdict(self, i: int, j: int) -> Verdict | None:
        """The verdict on a pair that shares rare words (:func:`rare_pairs`): their weighted cosine
        reaches :attr:`Tuning.rare_cosine` and the larger holds :attr:`Tuning.merge_hold` of the
        smaller; two logs of one dated family only as near copies (as for :meth:`_rule`)."""
        family = self.template(i)
        if family is not None and family == self.template(j):
            return None
        small, large = (i, j) if len(self.sets[i].full) <= len(self.sets[j].full) else (j, i)
        held = self.held(small, large)  # before the cosine: a set sum, no text read again
        if held < self.tuning.merge_hold:
            return None
        cos = self.cosine(i, j)
        if cos < self.tuning.rare_cosine or (cos < LOG_COSINE and self.is_log(i) and self.is_log(j)):
            return None
        ratio = len(self.sets[large].full) / max(1, len(self.sets[small].full))
        if ratio >= CONTAINED_RATIO and self.excerpt_of_log(small, large):
            return None
        return Verdict(CONTAINED if ratio >= CONTAINED_RATIO else DUPLICATE, "rare words", cos, held)

    def _rule(self, i: int, j: int) -> Verdict | None:
        """Which overlap rule proposes the pair (i, j), if any (the class docstring)."""
        a, b = self.sets[i], self.sets[j]
        t = self.threshold
        full = overlap(a.full, b.full)
        if full is None:
            return None
        title = overlap(a.title, b.title)
        title_hit = title is not None and title >= t
        if not title_hit and full < self.recall_body:
            return None
        small, large = sorted((len(a.full), len(b.full)))
        ratio = large / small
        kind = CONTAINED if ratio >= CONTAINED_RATIO else DUPLICATE
        cos = self.cosine(i, j)
        family = self.template(i)
        if family is not None and family == self.template(j):
            if full >= t and cos >= NEAR_COPY:
                return Verdict(kind, "near-copy", cos)
            return None
        if ratio >= CONTAINED_RATIO and full >= t:
            small_i, large_i = (i, j) if len(a.full) <= len(b.full) else (j, i)
            if self.verbatim(small_i, large_i):
                return Verdict(kind, "verbatim", cos)
        if cos < LOG_COSINE and self.is_log(i) and self.is_log(j):
            return None
        if ratio < CONTAINED_RATIO and full >= t:
            return Verdict(kind, "body", cos)
        if CONTAINED_RATIO <= ratio <= MAX_RATIO and cos >= BODY_COSINE:
            if full >= t:
                return Verdict(kind, "body", cos)
            if full >= CONTAINED_OVERLAP:
                return Verdict(kind, "contained", cos)
        if (
            title_hit
            and len(a.title & b.title) >= MIN_TOKENS
            and full >= SUPPORT
            and (min(len(a.title), len(b.title)) >= INFORMATIVE_TITLE or cos >= BODY_COSINE)
        ):
            return Verdict(kind, "title", cos)
        if cos >= CONTENT_COSINE and full >= RECALL_BODY:
            return Verdict(kind, "content", cos)
        return None


def rare_pairs(sets: Sequence[TokenSets], df: Counter[str]) -> list[tuple[int, int]]:
    """Every pair ``(i, j)``, ``i < j``, whose title + body words share at least
    :data:`RARE_SHARED` words held by at most :data:`RARE_DF` of the files: an inverted index of
    the rare words alone (each lists at most :data:`RARE_DF` files, so the pairs it yields are
    bounded by the words, not by the files squared)."""
    rare = frozenset(tok for tok, n in df.items() if n <= RARE_DF)
    postings: dict[str, list[int]] = defaultdict(list)
    for k, s in enumerate(sets):
        for tok in s.full & rare:  # one intersection a file, not a lookup a word
            postings[tok].append(k)
    shared: Counter[tuple[int, int]] = Counter()
    for ids in postings.values():
        if len(ids) > 1:
            shared.update(combinations(ids, 2))
    return sorted(pair for pair, n in shared.items() if n >= RARE_SHARED)


def brute_force_rare(sets: Sequence[TokenSets], df: Counter[str]) -> list[tuple[int, int]]:
    """Reference for :func:`rare_pairs`: every pair compared."""
    rare = [frozenset(tok for tok in s.full if df[tok] <= RARE_DF) for s in sets]
    return [(i, j) for i in range(len(sets)) for j in range(i + 1, len(sets))
            if len(rare[i] & rare[j]) >= RARE_SHARED]


def proposed_pairs(
    files: list[MemoryFile], sets: list[TokenSets], threshold: float, df: Counter[str] | None = None,
    *, vectorised: bool | None = None, tuning: Tuning = DEFAULT_TUNING, logs: frozenset[str] | None = None,
) -> list[tuple[int, int, Verdict]]:
    """The recall stage (an exact join) then the precision stage: ``(i, j, verdict)``, ``i < j``.

    ``df``: the document frequency of the title + body tokens, when already counted;
    ``vectorised``: which join runs (as for :func:`~memtui.core.judge.simjoin.similar_pairs`).
    """
    judge = _Judge(files, sets, threshold, df, tuning, logs)
    found = similar_pairs(sets, threshold, full_doc_freq=judge.df, full_threshold=judge.recall_body,
                          vectorised=vectorised)
    out = []
    joined = set(found)
    for i, j in found:
        verdict = judge.verdict(i, j)
        if verdict is not None:
            out.append((i, j, verdict))
    for i, j in rare_pairs(sets, judge.df):
        if (i, j) not in joined:
            verdict = judge.rare_verdict(i, j)
            if verdict is not None:
                out.append((i, j, verdict))
    out.sort(key=lambda found: found[:2])
    return out


def brute_force_proposed(
    files: list[MemoryFile], sets: list[TokenSets], threshold: float, tuning: Tuning = DEFAULT_TUNING,
) -> list[tuple[int, int, Verdict]]:
    """Reference for :func:`proposed_pairs`: the precision stage on every pair, no join."""
    judge = _Judge(files, sets, threshold, tuning=tuning)
    rare = set(brute_force_rare(sets, judge.df))
    out = []
    for i in range(len(files)):
        for j in range(i + 1, len(files)):
            if judge.joins(i, j):
                verdict = judge.verdict(i, j)
            else:
                verdict = judge.rare_verdict(i, j) if (i, j) in rare else None
            if verdict is not None:
                out.append((i, j, verdict))
    return out


def _scan(
    snapshot: Snapshot, threshold: float, include_sessions: bool, rejected: Collection[tuple[str, str]],
    tuning: Tuning = DEFAULT_TUNING,
) -> ScanResult:
    every = [f for f in snapshot.files.values() if is_candidate(f, True)]
    logs = root_logs(every)
    files = every if include_sessions else [f for f in every if f.path not in logs]
    sessions = len(logs)
    sets, df = cleaned_token_sets(files)
    refused = {_key(a, b) for a, b in rejected}
    skipped = 0

    pairs: list[Candidate] = []
    for i, j, verdict in proposed_pairs(files, sets, threshold, df, tuning=tuning, logs=logs):
        a, b = sorted((files[i], files[j]), key=lambda f: f.path)
        sa, sb = (sets[i], sets[j]) if a is files[i] else (sets[j], sets[i])
        if (a.path, b.path) in refused:
            skipped += 1
            continue
        shared = sorted(sa.full & sb.full, key=lambda tok: (df[tok], tok))
        larger = a if len(sa.full) >= len(sb.full) else b
        pairs.append(
            Candidate(
                a=a.path,
                b=b.path,
                score=pair_score(sa, sb),
                title_score=overlap(sa.title, sb.title),
                body_score=overlap(sa.full, sb.full),
                similarity=similarity(a, b),
                shared=tuple(shared[:SHARED_SHOWN]),
                shared_count=len(shared),
                kind=verdict.kind,
                contained_in=larger.path if verdict.kind == CONTAINED else None,
                cosine=verdict.cosine,
                evidence=verdict.evidence,
                held=verdict.held,
            )
        )
    supersessions = tuple(supersession_candidates(files, sets, refused, tuning=tuning, logs=logs,
                                                  marks=index_marks(snapshot), df=df))
    folded = {_key(s.old, s.new) for s in supersessions}
    # a series of reports folded each into the next: no two of its reports are a merge of equals
    series = {family for s in supersessions
              if (family := name_family(s.old)) is not None and family == name_family(s.new)}
    # a successor, a report of a folded series, or a review and its subject: not a merge of equals
    pairs = [p for p in pairs if (p.a, p.b) not in folded and not review_and_subject(p.a, p.b, logs)
             and not (series and (family := name_family(p.a)) in series and family == name_family(p.b))]
    pairs.sort(key=lambda p: (-p.similarity, -p.score, p.a, p.b))

    contradictions = []
    for found in find_contradictions(files, sets):
        if _key(found.old, found.new) in refused:
            skipped += 1
            continue
        contradictions.append(found)
    contradictions.sort(key=lambda c: (-c.score, c.old, c.new))

    return ScanResult(
        root=str(snapshot.root),
        threshold=threshold,
        considered=len(files),
        pairs=tuple(pairs),
        clusters=tuple(clusters_of((p.a, p.b) for p in pairs)),
        contradictions=tuple(contradictions),
        rejected_skipped=skipped,
        include_sessions=include_sessions,
        session_files=sessions,
        supersessions=supersessions,
    )


def clusters_of(pairs: Iterable[tuple[str, str]]) -> list[Cluster]:
    """Connected components of the pairs, largest first, each flagged oversized/chained."""
    parent: dict[str, str] = {}

    def find(x: str) -> str:
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    edges = list(pairs)
    for a, b in edges:
        ra, rb = find(a), find(b)
        if ra != rb:
            parent[max(ra, rb)] = min(ra, rb)
    members: dict[str, list[str]] = {}
    for x in list(parent):
        members.setdefault(find(x), []).append(x)
    counts: Counter[str] = Counter(find(a) for a, _ in edges)
    out = []
    for root, files in members.items():
        n = len(files)
        count = counts[root]
        out.append(
            Cluster(
                files=tuple(sorted(files)),
                pairs=count,
                oversized=n > OVERSIZED,
                chained=count < CHAINED_DENSITY * (n * (n - 1) // 2),
            )
        )
    out.sort(key=lambda c: (-len(c.files), c.files))
    return out


# ------------------------------------------------------------------------------ rejected pairs


_key = pair_key


def pairs_summary(pairs: Collection[Candidate], threshold: float) -> str:
    """What proposed the pairs, in words: "7 pairs: 2 at overlap ≥ 0.80, 5 by content".

    Not every pair reaches the overlap threshold (a near-copy, a contained file, similar
    content or titles propose one too), so a count "at ≥ threshold" alone would misdescribe
    the rows below it."""
    at = sum(1 for p in pairs if p.score >= threshold)
    other: dict[str, int] = {}
    for p in pairs:
        if p.score < threshold:
            other[p.evidence] = other.get(p.evidence, 0) + 1
    parts = [f"{at} at overlap ≥ {threshold:.2f}"] if at else []
    parts += [f"{n} by {why}" for why, n in sorted(other.items(), key=lambda kv: (-kv[1], kv[0]))]
    count = len(pairs)
    return f"{count} pair{'s' if count != 1 else ''}: " + ", ".join(parts)
