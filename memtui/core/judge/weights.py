"""How much a word says in its root, and the judgment's constants chosen from hand-read pairs.

A word's weight is its rarity among the candidate files of the root, ``ln((n + 1) / df)`` (``n``
at least :data:`MIN_FILES`): a word
every note holds says nothing of any one, a word two notes alone hold says they are about one
thing.  :func:`held` is the share of one note's weighted words another holds — what a fold of the
one into the other would keep; a note whose rare words the other lacks has facts of its own.
"""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass
from itertools import chain
from typing import Sequence

from .simjoin import TokenSets


@dataclass(frozen=True)
class Tuning:
    """The constants of the judgment chosen from hand-read pairs rather than fixed by design:
    ``bench/tune_pairs.py`` picks each on every author group of the corpora but the one it is
    measured on (leave one folder out); these defaults are its pick on all of them.

    - ``merge_hold``: the share of the smaller note's weighted words the larger holds, which a
      merge of equals, a containment or one rule stated twice needs besides its own rule;
    - ``rare_cosine``: the weighted cosine two notes sharing rare words need to be a candidate on
      those words alone, whatever the overlap of all their words;
    - ``log_hold``: the share of an earlier log's weighted words a later log of its family holds to
      restate it (a status report the next one supersedes);
    - ``named_hold``: the share a later log that only names an earlier one of its work item (it
      neither closes the item nor is a new version of it) holds of the earlier's weighted words,
      to be proposed as its checkpoint.
    """

    merge_hold: float = 0.8
    rare_cosine: float = 0.5
    log_hold: float = 0.8
    named_hold: float = 0.15


DEFAULT_TUNING = Tuning()


def document_frequency(sets: Sequence[TokenSets]) -> Counter[str]:
    """How many of the files hold each title + body word."""
    return Counter(chain.from_iterable(s.full for s in sets))


#: a root of fewer files says little of how rare a word is: its words are weighed as if among this many
MIN_FILES = 20


def held(own: frozenset[str], other: frozenset[str], df: Counter[str], n: int) -> float:
    """The share of ``own``'s weighted words that ``other`` holds (0 when ``own`` has none), the
    weights taken among at least :data:`MIN_FILES` files."""
    log_n = math.log(max(n, MIN_FILES) + 1)
    total = kept = 0.0
    for tok in own:
        w = log_n - math.log(df[tok] or 1)
        total += w
        if tok in other:
            kept += w
    return kept / total if total > 0 else 0.0
