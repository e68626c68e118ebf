"""Consolidation candidates (DESIGN §6): near-duplicate pairs, their clusters, and contradictions.

Pure: :func:`scan` reads a snapshot (and the rejected pairs it is given) and never the disk.  The
one exception in this module is :func:`remember_rejected`, which writes
``<root>/.memtui/rejected.json`` — memtui's own bookkeeping, never a memory file.

Decisions the design leaves open, made here:
- Candidates are the memory files outside ``archive/`` whose ``status`` is neither ``archived``
  nor ``superseded`` (they have already left the working set), less index-like files
  (``INDEX.md``, ``MEMORY_INDEX.md``, ``MEMORY-INDEX.md``, ``SCOPE.md``, any case) and, unless
  asked for, ``session_*``/``session-*`` files.
- The stop words include the polarity words (use, avoid, always, never, don't, not, prefer): the
  overlap measures the topic, and the negation check measures the stance.
- Similarity is rapidfuzz's ``fuzz.ratio`` (0–1 here) of title + body, each cut to
  :data:`SIMILARITY_CHARS`; pairs are listed most similar first.
- Contradictions are found by :mod:`memtui.core.contradictions`; the newer file is the
  successor.  Rejected pairs are proposed neither as duplicates nor as contradictions.
"""

from __future__ import annotations

import json
import string
from collections import Counter
from dataclasses import dataclass
from itertools import chain, product
from pathlib import Path
from sys import intern
from typing import Any, Collection, Iterable

from .model import MemoryFile, Snapshot
from .safepath import check_stored_path, read_private_file
from .contradictions import Contradiction, contradicting_pairs, freshness
from .gcpause import gc_paused
from .simjoin import TokenSets, check_threshold, overlap, pair_score, similar_pairs

DEFAULT_THRESHOLD = 0.8
OVERSIZED = 6
CHAINED_DENSITY = 0.6
SIMILARITY_CHARS = 8_000
SHARED_SHOWN = 5
REJECTED_FILE = ".memtui/rejected.json"

STOP_WORDS = frozenset(
    """
    about above after again against all also and any are aren because been before being below
    between both but can cannot could couldn did didn does doesn doing down during each few for
    from further had hadn has hasn have haven having her here hers herself him himself his how
    into isn its itself just let more most mustn myself nor now off once only other ought our
    ours ourselves out over own same shan she should shouldn some such than that the their theirs
    them themselves then there these they this those through too under until very was wasn were
    weren what when where which while who whom why will with won would wouldn you your yours
    yourself yourselves via per etc get got one two may might must shall
    use uses used using avoid avoids avoided avoiding always never don dont not prefer prefers
    preferred preferring
    """.split()
)

_INDEX_LIKE = frozenset({"index.md", "memory_index.md", "memory-index.md", "scope.md"})

# Tokenising without a regular expression (``[a-z0-9]{3,}`` over the lower-cased text, which is
# what this computes, is several times slower in ``re``): encode the lower-cased text to ASCII with
# every other code point (surrogates too) replaced by ``?``, map every byte outside ``[a-z0-9]`` to
# a space with one ``bytes.translate``, and split on the spaces.  The runs shorter than 3 come out
# of the same set difference as the stop words — there are only 36 + 36² of them.
_TOKEN_CHARS = string.ascii_lowercase + string.digits
_SEPARATE = bytes(c if chr(c) in _TOKEN_CHARS else ord(" ") for c in range(256))
_SHORT = frozenset(_TOKEN_CHARS) | frozenset(a + b for a, b in product(_TOKEN_CHARS, repeat=2))
_DROPPED = STOP_WORDS | _SHORT


def tokens(text: str) -> frozenset[str]:
    """Lower-case runs of ``[a-z0-9]`` of length ≥ 3, less the stop words, as a set.

    Tokens are interned, so a large root holds one copy of each word however many files use it
    (interning every run before the set is built is cheaper than building a set first: an
    interned string's hash is already known).  The frozenset is made from a finished set, which
    sizes its table once: a quarter less memory than one grown token by token.
    """
    runs = text.lower().encode("ascii", "replace").translate(_SEPARATE).decode("ascii").split()
    return frozenset(set(map(intern, runs)) - _DROPPED)


def is_session(path: str) -> bool:
    name = path.rsplit("/", 1)[-1].lower()
    return name.startswith(("session_", "session-"))


def is_candidate(f: MemoryFile, include_sessions: bool = False) -> bool:
    """Whether a file takes part in consolidation (see the module docstring)."""
    if f.archived or f.status == "superseded" or f.name.lower() in _INDEX_LIKE:
        return False
    return include_sessions or not is_session(f.path)


def token_sets(f: MemoryFile) -> TokenSets:
    """The title tokens and the title + body tokens of a file, grouped by its type.

    The title + body set is one pass over ``title + "\n" + body`` (the newline keeps a run from
    spanning the two), not the union of two sets.
    """
    title = f.title
    return TokenSets(tokens(title), tokens(title + "\n" + f.body), f.type)


# ------------------------------------------------------------------------------ results


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

    def to_json(self) -> dict[str, Any]:
        return {
            "a": self.a,
            "b": self.b,
            "score": round(self.score, 4),
            "similarity": round(self.similarity, 4),
            "title_score": None if self.title_score is None else round(self.title_score, 4),
            "body_score": None if self.body_score is None else round(self.body_score, 4),
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

    def to_json(self) -> dict[str, Any]:
        return {
            "root": self.root,
            "threshold": self.threshold,
            "considered": self.considered,
            "pairs": [p.to_json() for p in self.pairs],
            "clusters": [c.to_json() for c in self.clusters],
            "contradictions": [c.to_json() for c in self.contradictions],
        }


# ------------------------------------------------------------------------------ the scan


def scan(
    snapshot: Snapshot,
    threshold: float = DEFAULT_THRESHOLD,
    *,
    include_sessions: bool = False,
    rejected: Collection[tuple[str, str]] = (),
) -> ScanResult:
    """Near-duplicate pairs at ``threshold``, their clusters, and contradictions for one root."""
    check_threshold(threshold)
    with gc_paused():
        return _scan(snapshot, threshold, include_sessions, rejected)


def token_sets_of(files: Iterable[MemoryFile]) -> list[TokenSets]:
    """:func:`token_sets` of many files (with the garbage collector paused, which is faster)."""
    with gc_paused():
        return [token_sets(f) for f in files]


def _scan(
    snapshot: Snapshot, threshold: float, include_sessions: bool, rejected: Collection[tuple[str, str]]
) -> ScanResult:
    files = [f for f in snapshot.files.values() if is_candidate(f, include_sessions)]
    sets = [token_sets(f) for f in files]
    refused = {_key(a, b) for a, b in rejected}
    skipped = 0

    # how many files hold each token: orders the shared tokens shown, and the join's probing
    df = Counter(chain.from_iterable(s.full for s in sets))
    found = similar_pairs(sets, threshold, full_doc_freq=df)

    pairs: list[Candidate] = []
    for i, j in found:
        a, b = sorted((files[i], files[j]), key=lambda f: f.path)
        sa, sb = (sets[i], sets[j]) if a is files[i] else (sets[j], sets[i])
        if (a.path, b.path) in refused:
            skipped += 1
            continue
        shared = sorted(sa.full & sb.full, key=lambda tok: (df[tok], tok))
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
            )
        )
    pairs.sort(key=lambda p: (-p.similarity, -p.score, p.a, p.b))

    contradictions = []
    for i, j, score, cue in contradicting_pairs(files, sets):
        old, new = sorted((files[i], files[j]), key=lambda f: (freshness(f), f.path))
        if _key(old.path, new.path) in refused:
            skipped += 1
            continue
        contradictions.append(
            Contradiction(old.path, new.path, files[i].type, score, similarity(old, new), cue)
        )
    contradictions.sort(key=lambda c: (-c.score, c.old, c.new))

    return ScanResult(
        root=str(snapshot.root),
        threshold=threshold,
        considered=len(files),
        pairs=tuple(pairs),
        clusters=tuple(clusters_of((p.a, p.b) for p in pairs)),
        contradictions=tuple(contradictions),
        rejected_skipped=skipped,
    )


def similarity(a: MemoryFile, b: MemoryFile) -> float:
    """Character-level similarity of two files' title + body (rapidfuzz ``ratio``, 0–1)."""
    from rapidfuzz import fuzz

    return float(fuzz.ratio(_similarity_text(a), _similarity_text(b))) / 100.0


def _similarity_text(f: MemoryFile) -> str:
    return (f.title + "\n" + f.body.strip())[:SIMILARITY_CHARS]


def diff_opcodes(a: str, b: str) -> list[tuple[str, int, int, int, int]]:
    """Character edit operations turning ``a`` into ``b`` — for side-by-side highlighting."""
    from rapidfuzz.distance import Indel

    return [(op.tag, op.src_start, op.src_end, op.dest_start, op.dest_end) for op in Indel.opcodes(a, b)]


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


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def parse_rejected(data: bytes) -> frozenset[tuple[str, str]]:
    """The pairs in a ``rejected.json`` text; a ValueError when it is not that file's shape."""
    value = json.loads(data.decode("utf-8"))
    if not isinstance(value, dict) or not isinstance(value.get("pairs"), list):
        raise ValueError("expected an object with a 'pairs' list")
    out = set()
    for item in value["pairs"]:
        if not (isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)):
            raise ValueError(f"not a pair of file names: {item!r}")
        for name in item:
            check_stored_path(name)  # an UnsafePath is a ValueError
        out.add(_key(item[0], item[1]))
    return frozenset(out)


def read_rejected(root: Path | str) -> frozenset[tuple[str, str]]:
    """The pairs a person rejected for this root (none when the file is absent or unreadable)."""
    try:
        return parse_rejected(read_private_file(root, REJECTED_FILE))
    except (OSError, ValueError, UnicodeDecodeError):  # UnsafePath is a ValueError
        return frozenset()


def remember_rejected(root: Path | str, a: str, b: str) -> None:
    """Record that a person rejected the pair (a, b), so it is not proposed again.

    This is the module's only write: ``<root>/.memtui/rejected.json``, replaced atomically under
    the root's lock by :func:`memtui.core.txn.write_side_file` (never through a symlink).  It
    never touches a memory file.  An existing file that cannot be read as a rejected list (or
    names a path that is not a plain path inside the root) raises ValueError rather than being
    overwritten.
    """
    from .txn import TxnError

    try:
        _remember_rejected(root, a, b)
    except TxnError as exc:  # busy, or a symlinked .memtui/: the callers' one error for "not kept"
        raise ValueError(str(exc)) from None


def _remember_rejected(root: Path | str, a: str, b: str) -> None:
    from .txn import root_lock, write_side_file  # txn's gate imports this package's validator

    with root_lock(root):
        try:
            pairs = set(parse_rejected(read_private_file(root, REJECTED_FILE)))
        except FileNotFoundError:
            pairs = set()
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"{REJECTED_FILE}: not a rejected-pairs file ({exc}); move it aside "
                             "first") from None
        pairs.add(_key(check_stored_path(a), check_stored_path(b)))
        data = json.dumps({"version": 1, "pairs": [list(p) for p in sorted(pairs)]}, indent=2) + "\n"
        write_side_file(root, REJECTED_FILE, data.encode("utf-8"))
