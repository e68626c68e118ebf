"""Contradictions (DESIGN §6): same-type files on one topic where one negates the other.

A pair qualifies when both files have the same type, their pair score (the larger overlap
coefficient, as for near-duplicates) is in ``[0.4, 0.6)``, and their stances disagree on one cue
pair: use/avoid, always/never, do/don't, prefer/don't prefer.  A file's stance is read from its
claim — title, description and the start of the body's first paragraph — and holds a cue pair
only when the claim says one side of it (a file that says both "always" and "never" takes no
side).  The newer file (:func:`freshness`) is proposed as the successor of the older.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Sequence

from .model import MemoryFile
from .simjoin import TokenSets, brute_force_pairs, pair_score, similar_pairs

CONTRADICTION_RANGE = (0.4, 0.6)
_DATE = re.compile(r"^(\d{4})-(\d{2})-(\d{2})")


@dataclass(frozen=True)
class Contradiction:
    """Two same-type files on one topic where one negates the other: supersede ``old`` by ``new``."""

    old: str
    new: str
    type: str
    score: float
    similarity: float
    negation: str  # the cue pair, e.g. "always/never"

    def to_json(self) -> dict[str, Any]:
        return {
            "old": self.old,
            "new": self.new,
            "type": self.type,
            "score": round(self.score, 4),
            "similarity": round(self.similarity, 4),
            "negation": self.negation,
            "proposal": "supersede",
        }


USE, ALWAYS, DO, PREFER = "use/avoid", "always/never", "do/don't", "prefer/don't prefer"
CUE_PAIRS = (USE, ALWAYS, DO, PREFER)
_NOT = r"(?P<neg>don't|dont|do\s+not|never|not)"
# Every alternative starts with one of "adnpu": the look-ahead changes no match, but lets ``re``
# reject most word boundaries after one character test instead of trying nine alternatives
# (about three times faster over a whole root).
_CUE = re.compile(
    rf"\b(?=[adnpu])(?:{_NOT}\s+(?P<verb>use|prefer)"
    r"|(?P<dont>don't|dont|do\s+not)|(?P<avoid>avoid(?:s|ed|ing)?)|(?P<never>never)"
    r"|(?P<always>always)|(?P<use>use[sd]?)|(?P<prefer>prefer(?:s|red)?)|(?P<do>do))\b"
)
CLAIM_CHARS = 600


def stance(f: MemoryFile) -> dict[str, str]:
    """Cue pair → ``+`` or ``-`` for each cue pair the file's claim uses on one side only.

    Negative forms: "avoid"; "never"; "don't"/"do not"; "don't/do not/never/not use" and
    "… prefer" (which also count for "never" and "don't").  Positive: "use", "always", "do",
    "prefer" outside those phrases.
    """
    text = headline(f).lower().replace("\u2019", "'")
    signs: dict[str, set[str]] = {}

    def say(cue: str, sign: str) -> None:
        signs.setdefault(cue, set()).add(sign)

    for m in _CUE.finditer(text):
        kind = m.lastgroup
        if kind == "verb":
            neg = m["neg"]
            say(USE if m["verb"] == "use" else PREFER, "-")
            if neg == "never":
                say(ALWAYS, "-")
            elif neg != "not":
                say(DO, "-")
        elif kind == "dont":
            say(DO, "-")
        elif kind == "avoid":
            say(USE, "-")
        elif kind == "never":
            say(ALWAYS, "-")
        elif kind == "always":
            say(ALWAYS, "+")
        elif kind == "use":
            say(USE, "+")
        elif kind == "prefer":
            say(PREFER, "+")
        elif kind == "do":
            say(DO, "+")
    return {cue: next(iter(s)) for cue, s in signs.items() if len(s) == 1}


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
    whose stances disagree, ``i < j``, sorted.

    For each cue pair, the files saying only its positive are joined against those saying only
    its negative (same type, score ≥ 0.4) — exact, since a contradiction needs such a pair;
    ``brute_force`` compares every pair instead, as the reference for the tests.
    """
    low, high = CONTRADICTION_RANGE
    stances = [stance(f) for f in files]
    found: set[tuple[int, int]] = set()
    if brute_force:
        found.update(
            brute_force_pairs(
                sets, low, same_group=True, allowed=lambda i, j: bool(negation(stances[i], stances[j]))
            )
        )
    else:
        for name in CUE_PAIRS:
            members = [i for i, s in enumerate(stances) if name in s]
            sides = [0 if stances[i][name] == "+" else 1 for i in members]
            if len(set(sides)) < 2:
                continue
            sub = [sets[i] for i in members]
            for i, j in similar_pairs(sub, low, same_group=True, sides=sides):
                a, b = members[i], members[j]
                found.add((a, b) if a < b else (b, a))
    out = []
    for i, j in sorted(found):
        score = pair_score(sets[i], sets[j])
        if score < high:
            out.append((i, j, score, negation(stances[i], stances[j])))
    return out


def freshness(f: MemoryFile) -> float:
    """When a file was last true: ``updated``, ``date`` or ``created`` (UTC midnight), else mtime."""
    for key in ("updated", "date", "created"):
        match = _DATE.match(f.frontmatter.get(key).strip())
        if match:
            try:
                day = datetime(int(match[1]), int(match[2]), int(match[3]), tzinfo=timezone.utc)
            except ValueError:
                continue
            return day.timestamp()
    return f.mtime
