"""Fuzzy filtering for the lists (rapidfuzz), shared by every view.

A query is words, matched in any order (``shim v1`` finds "Registry v1 catalog shim"): every word
must match the item's text — as a substring, or for words of three letters or more as a close
fuzzy match (rapidfuzz's partial ratio) so a typo still finds the file.  Items are ranked by how
well the words match (whole words and word starts first), best first; ties keep list order.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Iterable, Sequence, TypeVar

from rapidfuzz import fuzz, process, utils

T = TypeVar("T")

#: a fuzzy word match must score at least this (0–100)
CUTOFF = 75
#: extra score for a word found at a word start, and as a whole word
_WORD_START, _WHOLE_WORD = 10.0, 5.0


#: words whose scores over the whole list a :class:`SearchKeys` keeps (typing, backspacing)
_MEMO_WORDS = 32


class SearchKeys:
    """The processed search text of each item of a list, computed once per list (not per key).

    It also keeps the last few words' scores over the whole list: a word's score on a text
    depends on nothing else, so ``lesson r`` reuses what ``lesson`` found.
    """

    def __init__(self, items: Sequence[T], key: Callable[[T], str]) -> None:
        self.items = items
        self.texts = [utils.default_process(key(item)) for item in items]
        # processed texts hold no whitespace but " ": a word start is " word" in " text "
        self.padded = [f" {text} " for text in self.texts]
        self._memo: dict[str, dict[int, float]] = {}

    def word_scores(self, word: str) -> dict[int, float]:
        """Index → score of every text ``word`` matches, over the whole list (memoised)."""
        scores = self._memo.pop(word, None)
        if scores is None:
            scores = _word_scores(word, range(len(self.texts)), self.texts, self.padded)
            if len(self._memo) >= _MEMO_WORDS:
                self._memo.pop(next(iter(self._memo), ""), None)
        self._memo[word] = scores  # most recent last
        return scores


def _word_scores(word: str, indices: Iterable[int], texts: Sequence[str],
                 padded: Sequence[str]) -> dict[int, float]:
    """Index → score of every text ``word`` matches (substring, else fuzzy for 3+ letters)."""
    scores: dict[int, float] = {}
    fuzzy = len(word) >= 3
    start, whole = f" {word}", f" {word} "
    rest: list[int] = []
    for i in indices:
        if word in texts[i]:
            text = padded[i]
            scores[i] = (100.0 + _WORD_START + (_WHOLE_WORD if whole in text else 0.0)
                         if start in text else 100.0)
        elif fuzzy:
            rest.append(i)
    if rest:
        others = [texts[i] for i in rest]
        for _, score, j in process.extract(word, others, scorer=fuzz.partial_ratio, processor=None,
                                           score_cutoff=CUTOFF, limit=None):
            scores[rest[j]] = float(score)
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
    total: dict[int, float] = {}
    for n, word in enumerate(dict.fromkeys(words)):
        if n == 0:
            total = dict(keys.word_scores(word))
        else:  # only the texts every earlier word matched
            scores = _word_scores(word, total, keys.texts, keys.padded)
            total = {i: total[i] + s for i, s in scores.items()}
        if not total:
            return []
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
