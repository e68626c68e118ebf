"""Contradictions (DESIGN §6): two notes on one subject where one says the opposite of the other.

Two kinds are found, one pair at most per two files:

- **cue pairs**: both files have the same type, their pair score (the larger overlap coefficient,
  as for near-duplicates) is in ``[0.4, 0.6)``, and one file's claim — title, description and the
  start of the body's first paragraph — says one side of a cue pair (use/avoid, always/never,
  do/don't, prefer/don't prefer) about the same subject as a sentence of the other's claim saying
  the other side.  The *subject* of a cue is the first few informative words after it ("never
  use **raw hex colours**"): the two must share at least one, and at least half of the shorter.
- **negated claims** (:mod:`memtui.core.judge.negations`): one note negates, replaces or removes a name
  the other says is in use ("uses the Chainlink oracle" / "NOT Chainlink, Pyth"); both sentences
  are quoted and the proposal says its evidence.

A direction (the newer file supersedes the older) is proposed only when the two files' dates
(:func:`stated_day`: frontmatter ``modified``/``updated``/``date``/``created``, else a date in
the file name, else one its body states, else the modification time) fall on different days;
otherwise the order is unknown and the pair is offered for review.  Every contradiction is
evidence a person reads: the dream proposes none checked.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from collections import Counter
from dataclasses import dataclass
from itertools import chain
from typing import Any, Collection, Hashable, Sequence

from ..model.snapshot import MemoryFile
from ..model.words import token_list
from ..stores.statcache import cached
from .ages import stated_date
from .negations import LABELS, RULES, STATUS, NegatedPair, Settings, _rank, cover, negated_pairs, shared_run
from .simjoin import TokenSets, brute_force_pairs, pair_score
from .textsim import similarity

SUBJECT_TOKENS = 6  # informative words after a cue that make its subject
#: words that stand for a thing named elsewhere: a cue followed by one ("use it", "avoid them")
#: has no subject of its own, and the words after it are about something else (where, how)
PRONOUNS = frozenset("it its this that these those them they one ones which".split())

CONTRADICTION_RANGE = (0.4, 0.6)


@dataclass(frozen=True)
class Contradiction:
    """Two same-type files on one topic where one negates the other: supersede ``old`` by ``new``."""

    old: str
    new: str
    type: str
    score: float
    similarity: float
    negation: str  # the cue pair, e.g. "always/never"
    ordered: bool = True  # False: the dates do not tell which is newer (old/new by path)
    subject: tuple[str, ...] = ()  # the words both cues are about
    sentences: tuple[str, str] = ("", "")  # the two cue sentences (old's, new's)
    evidence: str = ""  # what the proposal rests on, in words

    @property
    def direction(self) -> str:
        return "newer supersedes older" if self.ordered else "order unknown"

    def to_json(self) -> dict[str, Any]:
        return {
            "old": self.old,
            "new": self.new,
            "type": self.type,
            "score": round(self.score, 4),
            "similarity": round(self.similarity, 4),
            "negation": self.negation,
            "subject": list(self.subject),
            "sentences": list(self.sentences),
            "evidence": self.evidence,
            "direction": self.direction,
            "proposal": "supersede" if self.ordered else "review",
        }


USE, ALWAYS, DO, PREFER = "use/avoid", "always/never", "do/don't", "prefer/don't prefer"
CUE_PAIRS = (USE, ALWAYS, DO, PREFER)
_NOT = r"(?P<neg>don't|dont|do\s+not|never|not)"
# Every alternative starts with one of "adnpu": the look-ahead changes no match, but lets ``re``
# reject most positions after one character test instead of trying nine alternatives (about
# three times faster over a whole root); tested before the word boundary, it rejects them
# sooner (a fifth faster again).
_CUE = re.compile(
    rf"(?=[adnpu])\b(?:{_NOT}\s+(?P<verb>use|prefer)"
    r"|(?P<dont>don't|dont|do\s+not)|(?P<avoid>avoid(?:s|ed|ing)?)|(?P<never>never)"
    r"|(?P<always>always)|(?P<use>use[sd]?)|(?P<prefer>prefer(?:s|red)?)|(?P<do>do))\b"
)
CLAIM_CHARS = 600


@dataclass(frozen=True)
class Cue:
    """One side of a cue pair said in a claim sentence, with the subject it is about."""

    pair: str  # a member of CUE_PAIRS
    sign: str  # '+' or '-'
    subject: frozenset[str]
    sentence: str


def _signs(m: re.Match[str]) -> list[tuple[str, str]]:
    """The (cue pair, sign) a cue match says."""
    kind = m.lastgroup
    if kind == "verb":
        neg = m["neg"]
        out = [(USE if m["verb"] == "use" else PREFER, "-")]
        if neg == "never":
            out.append((ALWAYS, "-"))
        elif neg != "not":
            out.append((DO, "-"))
        return out
    return {
        "dont": [(DO, "-")], "avoid": [(USE, "-")], "never": [(ALWAYS, "-")],
        "always": [(ALWAYS, "+")], "use": [(USE, "+")], "prefer": [(PREFER, "+")], "do": [(DO, "+")],
    }.get(kind or "", [])


_SENTENCE_END = re.compile(r"[.!?;](?=\s)|\n")


def cached_cues(f: MemoryFile) -> tuple[Cue, ...]:
    """:func:`cues`, kept in the stat cache for files of a cached load."""
    return cached(
        f, "scan/cues", cues,
        lambda found: tuple((c.pair, c.sign, c.subject, c.sentence) for c in found),
        lambda plain: tuple(Cue(pair, sign, frozenset(subject), sentence)
                            for pair, sign, subject, sentence in plain),
    )


def cues(f: MemoryFile) -> tuple[Cue, ...]:
    """Every cue the file's claim says, each with the subject words that follow it.

    Negative forms: "avoid"; "never"; "don't"/"do not"; "don't/do not/never/not use" and
    "… prefer" (which also count for "never" and "don't").  Positive: "use", "always", "do",
    "prefer" outside those phrases.  A cue's subject runs from the cue to the next cue or the
    end of its sentence.
    """
    claim = headline(f)
    text = claim.lower().replace("\u2019", "'")
    matches = list(_CUE.finditer(text))
    if not matches:
        return ()
    # the sentence ends, found only as far as the cues need them (a claim's cues come early)
    more = chain((end.end() for end in _SENTENCE_END.finditer(text)), (len(text),))
    ends = [next(more)]
    out: list[Cue] = []
    for k, m in enumerate(matches):
        while ends[-1] < m.end():
            ends.append(next(more))
        stop = ends[bisect_left(ends, m.end())]
        start = ends[bisect_left(ends, m.start()) - 1] if bisect_left(ends, m.start()) else 0
        if k + 1 < len(matches):
            stop = min(stop, matches[k + 1].start())
        after = text[m.end() : stop]
        first = after.split(maxsplit=1)[:1]
        if first and first[0].strip("`*_,.;:()") in PRONOUNS:
            continue  # "uses it inside a useEffect": what is used was named before, not here
        subject = frozenset(token_list(after)[:SUBJECT_TOKENS])
        if not subject:
            continue
        sentence_end = ends[bisect_left(ends, m.end())]
        sentence = claim[start:sentence_end].strip(" \n.;!?")
        for pair, sign in _signs(m):
            out.append(Cue(pair, sign, subject, sentence))
    return tuple(out)


def stance(f: MemoryFile) -> dict[str, str]:
    """Cue pair → ``+`` or ``-`` for each cue pair the file's claim uses on one side only."""
    signs: dict[str, set[str]] = {}
    for cue in cues(f):
        signs.setdefault(cue.pair, set()).add(cue.sign)
    return {pair: next(iter(s)) for pair, s in signs.items() if len(s) == 1}


def headline(f: MemoryFile) -> str:
    """The file's claim: title, description and the start of the body's first paragraph."""
    para: list[str] = []
    size = 0
    for line in f.body.splitlines():
        stripped = line.strip()
        if not stripped:
            if para:
                break
            continue
        if stripped.startswith("#") or stripped == "---":
            continue
        para.append(stripped)
        size += len(stripped)
        if size >= CLAIM_CHARS:
            break
    return "\n".join([f.title, f.description, " ".join(para)[:CLAIM_CHARS]])


def same_subject(a: frozenset[str], b: frozenset[str]) -> frozenset[str]:
    """The words two cue subjects share, when that is at least half of the shorter (else none)."""
    shared = a & b
    if shared and 2 * len(shared) >= min(len(a), len(b)):
        return shared
    return frozenset()


def clash(a: tuple[Cue, ...], b: tuple[Cue, ...]) -> tuple[Cue, Cue, frozenset[str]] | None:
    """The first pair of opposite cues about the same subject (a's cue, b's cue, subject)."""
    for name in CUE_PAIRS:
        for x in a:
            if x.pair != name:
                continue
            for y in b:
                if y.pair == name and y.sign != x.sign:
                    shared = same_subject(x.subject, y.subject)
                    if shared:
                        return x, y, shared
    return None


def negation(a: dict[str, str], b: dict[str, str]) -> str:
    """The first cue pair on which the two stances disagree ('' when none)."""
    for name in CUE_PAIRS:
        if name in a and name in b and a[name] != b[name]:
            return name
    return ""


def contradicting_pairs(
    files: Sequence[MemoryFile], sets: Sequence[TokenSets], *, brute_force: bool = False
) -> list[tuple[int, int, float, str]]:
    """``(i, j, score, cue pair)`` for same-type files whose pair score is in [0.4, 0.6) and
    whose claims say opposite cues about one subject, ``i < j``, sorted.

    The fast path starts from the cues, not the files: a clash needs a ``+`` cue and a ``-`` cue
    of one cue pair whose subjects share a word, so each ``+`` cue counts, through an index of
    the ``-`` cues' subject words (per cue pair and type), how many words it shares with each
    ``-`` cue — exactly the size of the two subjects' intersection — and keeps the files whose
    cues :func:`same_subject` accepts; only those pairs are scored (score ≥ 0.4).  This is exact;
    ``brute_force`` compares every pair instead, as the reference for the tests.
    """
    low, high = CONTRADICTION_RANGE
    said = [cached_cues(f) for f in files]
    found: set[tuple[int, int]] = set()
    if brute_force:
        found.update(brute_force_pairs(
            sets, low, same_group=True,
            allowed=lambda i, j: clash(said[i], said[j]) is not None,
        ))
    else:
        found.update(
            (i, j) for i, j in _clashing_pairs(said, [s.group for s in sets])
            if pair_score(sets[i], sets[j]) >= low
        )
    out = []
    for i, j in sorted(found):
        score = pair_score(sets[i], sets[j])
        hit = clash(said[i], said[j])
        if score < high and hit is not None:
            out.append((i, j, score, hit[0].pair))
    return out


def _clashing_pairs(said: Sequence[tuple[Cue, ...]], groups: Sequence[Hashable]) -> set[tuple[int, int]]:
    """The pairs ``i < j`` of one group whose cues :func:`clash` (see :func:`contradicting_pairs`).

    Two subjects of ``a`` and ``b`` words are the same when they share ``t = ceil(min(a, b) / 2)``
    words or more (at least one).  With every subject's words in one order (rarest in all the
    subjects first), two subjects sharing ``t`` words share a word among the first ``a - t + 1``
    of one and the first ``b - t + 1`` of the other: a ``-`` cue of ``b`` words is indexed, for
    each ``t`` it can meet, under those first words only, and a ``+`` cue looks up its own first
    words — so the commonest words, which most subjects hold, are seldom looked at.  A ``-`` cue's
    entries at its own ``t = ceil(b / 2)`` are its *own* level (partners at least as long); at a
    lower ``t`` they serve only partners shorter than it.  Every pair found is then checked
    exactly, so this finds the same pairs as comparing every ``+`` cue with every ``-`` cue.
    """
    freq: Counter[str] = Counter(w for cs in said for cue in cs for w in cue.subject)

    def ordered(words: frozenset[str]) -> list[str]:
        return sorted(words, key=lambda w: (freq[w], w))

    # (cue pair, group, t, own level?, word) -> the '-' cues (file, cue) indexed under it
    negative: dict[tuple[str, Hashable, int, bool, str], list[tuple[int, int]]] = {}
    for j, cs in enumerate(said):
        group = groups[j]
        for k, cue in enumerate(cs):
            if cue.sign != "-":
                continue
            words = ordered(cue.subject)
            b = len(words)
            own = (b + 1) // 2
            for t in range(1, own + 1):
                for word in words[: b - t + 1]:
                    negative.setdefault((cue.pair, group, t, t == own, word), []).append((j, k))
    out: set[tuple[int, int]] = set()
    if not negative:
        return out
    for i, cs in enumerate(said):
        group = groups[i]
        for cue in cs:
            if cue.sign != "+":
                continue
            words = ordered(cue.subject)
            a = len(words)
            top = (a + 1) // 2
            seen: set[tuple[int, int]] = set()
            for t in range(1, top + 1):
                # below its own level, a '+' cue meets only shorter '-' cues (at their own level)
                levels = (True, False) if t == top else (True,)
                for word in words[: a - t + 1]:
                    for own in levels:
                        for found in negative.get((cue.pair, group, t, own, word), ()):
                            if found in seen:
                                continue
                            seen.add(found)
                            j, k = found
                            if j == i:
                                continue
                            other = said[j][k].subject
                            shared = len(cue.subject & other)
                            if shared and 2 * shared >= min(a, len(other)):
                                out.add((i, j) if i < j else (j, i))
    return out


def find_contradictions(
    files: Sequence[MemoryFile], sets: Sequence[TokenSets], rules: Sequence[Settings] = RULES,
    df: Collection[str] | None = None,
) -> list[Contradiction]:
    """The contradictions among files, unsorted: the cue pairs of the module docstring, and the
    negated claims of :mod:`memtui.core.judge.negations` (one pair at most per two files, the cue pair
    first).  ``df``: the tokens of the root's files, when the caller has them (a cue word none of
    them holds is not looked for)."""
    said = {}
    out = []
    seen: set[tuple[int, int]] = set()
    for i, j, score, pair in contradicting_pairs(files, sets):
        old, new, ordered = _direction(files, i, j)
        for k in (old, new):
            if k not in said:
                said[k] = cues(files[k])
        hit = clash(said[old], said[new])
        assert hit is not None
        x, y, subject = hit
        seen.add((i, j))
        out.append(Contradiction(
            files[old].path, files[new].path, files[i].type, score,
            similarity(files[old], files[new]), pair, ordered,
            tuple(sorted(subject)), (x.sentence, y.sentence),
            f"cue {pair} about {' '.join(sorted(subject))}, overlap {score:.2f}",
        ))
    best: dict[tuple[int, int], tuple[NegatedPair, float]] = {}
    for found in negated_pairs(files, [s.full for s in sets], cover(rules), every=len(rules) > 1, df=df):
        key = (found.neg, found.pos) if found.neg < found.pos else (found.pos, found.neg)
        if key in seen:
            continue
        score = pair_score(sets[found.neg], sets[found.pos])
        if not any(found.passes(rule, score) for rule in rules):
            continue
        if key not in best or _rank(found) < _rank(best[key][0]):
            best[key] = (found, score)
    for (i, j), (found, score) in sorted(best.items()):
        out.append(negated_contradiction(files, found, score, similarity(files[i], files[j])))
    return out


def negated_contradiction(files: Sequence[MemoryFile], found: NegatedPair, score: float,
                          similarity: float) -> Contradiction:
    """The proposal of a negated claim: both sentences quoted, the later file as the successor."""
    old, new, ordered = _direction(files, found.neg, found.pos)
    quote = {found.neg: found.neg_sentence, found.pos: found.pos_sentence}
    neg, pos = files[found.neg].path, files[found.pos].path
    run = shared_run(found.phrase_words, found.word, found.pos_words)
    subject = run if len(run) > 1 else (found.word,)
    said = "is done" if found.family == STATUS else "is in use"
    named = " ".join(subject)
    evidence = (f"{neg} says {found.cue!r} of {named!r}; {pos} says it {said}; "
                f"{found.word!r} is named in {found.df} files of the root; overlap {score:.2f}")
    return Contradiction(
        files[old].path, files[new].path, files[old].type, score, similarity, LABELS[found.family], ordered,
        subject, (quote[old], quote[new]), evidence,
    )


def _direction(files: Sequence[MemoryFile], i: int, j: int) -> tuple[int, int, bool]:
    """(older, newer, whether the dates say so): by path when the two fall on one day."""
    day_i, day_j = stated_day(files[i]), stated_day(files[j])
    if day_i != day_j:
        return (i, j, True) if day_i < day_j else (j, i, True)
    old, new = sorted((i, j), key=lambda k: files[k].path)
    return old, new, False


def stated_day(f: MemoryFile) -> str:
    """The day a file was last true (ISO), from :func:`memtui.core.judge.ages.stated_date`."""
    return stated_date(f)[0].date().isoformat()


def freshness(f: MemoryFile) -> float:
    """When a file was last true (seconds since the epoch), from
    :func:`memtui.core.judge.ages.stated_date`: a stated date is its UTC midnight."""
    return stated_date(f)[0].timestamp()
