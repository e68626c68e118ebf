"""Fuzzy filtering for the lists (rapidfuzz), shared by every view.

A query is words, matched in any order (``shim v1`` finds "Registry v1 catalog shim"): every word
must match the item's text — as a substring, or for words of three letters or more as a close
fuzzy match (rapidfuzz's partial ratio) so a typo still finds the file.  Items are ranked by how
well the words match (whole words and word starts first), best first; ties keep list order.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable, Sequence, TypeVar

from rapidfuzz import fuzz, process, utils

T = TypeVar("T")

#: a fuzzy word match must score at least this (0–100)
CUTOFF = 75
#: extra score for a word found at a word start, and as a whole word
_WORD_START, _WHOLE_WORD = 10.0, 5.0


class SearchKeys:
    """The processed search text of each item of a list, computed once per list (not per key)."""

    def __init__(self, items: Sequence[T], key: Callable[[T], str]) -> None:
        self.items = items
        self.texts = [utils.default_process(key(item)) for item in items]


def _word_scores(word: str, texts: dict[int, str]) -> dict[int, float]:
    """Index → score of every text ``word`` matches (substring, else fuzzy for 3+ letters)."""
    scores: dict[int, float] = {}
    start = re.compile(r"(?:^|\s)" + re.escape(word))
    whole = re.compile(r"(?:^|\s)" + re.escape(word) + r"(?:\s|$)")
    for i, text in texts.items():
        if word in text:
            score = 100.0
            if start.search(text):
                score += _WORD_START
                if whole.search(text):
                    score += _WHOLE_WORD
            scores[i] = score
    if len(word) >= 3:
        rest = {i: text for i, text in texts.items() if i not in scores}
        for _, score, i in process.extract(word, rest, scorer=fuzz.partial_ratio, processor=None,
                                           score_cutoff=CUTOFF, limit=None):
            scores[i] = float(score)
    return scores


def fuzzy_filter(query: str, items: Sequence[T], key: Callable[[T], str],
                 keys: SearchKeys | None = None) -> list[T]:
    """Items matching every word of ``query`` in any order, best first; all items for no query.

    Pass ``keys`` (built once for ``items``) when filtering the same list keystroke after keystroke.
    """
    return [item for item, _ in fuzzy_scores(query, items, key, keys)]


def fuzzy_scores(query: str, items: Sequence[T], key: Callable[[T], str],
                 keys: SearchKeys | None = None) -> list[tuple[T, float]]:
    """:func:`fuzzy_filter` with each item's score (higher is better; 0 for no query)."""
    words = utils.default_process(query).split()
    if not words:
        return [(item, 0.0) for item in items]
    if keys is None or keys.items is not items:
        keys = SearchKeys(items, key)
    candidates = dict(enumerate(keys.texts))
    total: dict[int, float] = {}
    for n, word in enumerate(dict.fromkeys(words)):
        scores = _word_scores(word, candidates)
        total = scores if n == 0 else {i: total[i] + s for i, s in scores.items()}
        if not total:
            return []
        candidates = {i: keys.texts[i] for i in total}
    ranked = sorted(total.items(), key=lambda kv: (-kv[1], kv[0]))
    return [(items[i], score) for i, score in ranked]


@dataclass(frozen=True)
class FacetQuery:
    """A filter query split into known facets (``name:value``), free text, and unknown facets."""

    facets: dict[str, str]
    text: str
    unknown: tuple[str, ...]


def parse_facets(query: str, facets: Sequence[str]) -> FacetQuery:
    """Pull ``name:value`` words out of a query; names not in ``facets`` are reported unknown."""
    chosen: dict[str, str] = {}
    rest: list[str] = []
    unknown: list[str] = []
    for word in query.split():
        name, sep, value = word.partition(":")
        if sep and name and value and name.isidentifier():
            if name.lower() in facets:
                chosen[name.lower()] = value.lower()
            else:
                unknown.append(name)
        else:
            rest.append(word)
    return FacetQuery(chosen, " ".join(rest), tuple(unknown))


def split_facets(query: str, facets: Sequence[str]) -> tuple[dict[str, str], str]:
    """Pull ``name:value`` words for known facet names out of a query; the rest is free text."""
    parsed = parse_facets(query, facets)
    return parsed.facets, parsed.text
