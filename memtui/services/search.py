"""Fuzzy filtering for the lists (rapidfuzz), shared by every view.

A query is words, matched in any order (``shim v1`` finds "Registry v1 catalog shim"): every word
must match the item's text — as a substring, or for words of three letters or more as a close
fuzzy match (rapidfuzz's partial ratio) so a typo still finds the file.  Items are ranked by how
well the words match, best first: a substring above a fuzzy match, whole words and word starts
first; a fuzzy match scores as well as the text's closest word (rapidfuzz's ratio: "relase" is
nearer "release" than "releases").  Ties go to the matches nearer the start of the text (a title
before a hook), then keep list order.
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


#: a word's match in one text: its score and where in the text it is
Hit = tuple[float, int]


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
        self._memo: dict[str, dict[int, Hit]] = {}
        self._vocabulary: list[str] | None = None

    def closest_words(self, word: str) -> list[tuple[str, float]]:
        """Every word of the list's texts within the cutoff of ``word`` by rapidfuzz's ratio,
        closest first (one call over the list's distinct words, gathered on first use)."""
        if self._vocabulary is None:
            self._vocabulary = sorted(set(" ".join(self.texts).split()))
        return [(w, float(score)) for w, score, _ in process.extract(
            word, self._vocabulary, scorer=fuzz.ratio, processor=None, score_cutoff=CUTOFF,
            limit=None)]

    def word_scores(self, word: str) -> dict[int, Hit]:
        """Index → (score, position) of every text ``word`` matches, over the whole list
        (memoised)."""
        scores = self._memo.pop(word, None)
        if scores is None:
            scores = _word_scores(word, range(len(self.texts)), self)
            if len(self._memo) >= _MEMO_WORDS:
                self._memo.pop(next(iter(self._memo), ""), None)
        self._memo[word] = scores  # most recent last
        return scores


def _word_scores(word: str, indices: Iterable[int], keys: SearchKeys) -> dict[int, Hit]:
    """Index → (score, position) of every text ``word`` matches (substring, else fuzzy for 3+
    letters)."""
    texts, padded = keys.texts, keys.padded
    scores: dict[int, Hit] = {}
    fuzzy = len(word) >= 3
    start, whole = f" {word}", f" {word} "
    rest: list[int] = []
    for i in indices:
        at = texts[i].find(word)
        if at >= 0:
            text = padded[i]
            scores[i] = (100.0 + _WORD_START + (_WHOLE_WORD if whole in text else 0.0)
                         if start in text else 100.0, at)
        elif fuzzy:
            rest.append(i)
    if rest:
        others = [texts[i] for i in rest]
        hits = process.extract(word, others, scorer=fuzz.partial_ratio, processor=None,
                               score_cutoff=CUTOFF, limit=None)
        closest = [(f" {w} ", ratio) for w, ratio in keys.closest_words(word)] if hits else []
        for _, partial, j in hits:
            i = rest[j]
            # as good as the text's closest word, when that beats the partial ratio; placed
            # where that word first stands (a word not close by itself: after every other)
            text = padded[i]
            hit: Hit = (float(partial), len(texts[i]))
            for near, ratio in closest:
                if ratio <= partial:
                    break
                at = text.find(near)
                if at >= 0:
                    hit = (ratio, at)
                    break
            scores[i] = hit
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
    total: dict[int, Hit] = {}  # index → (summed score, summed position)
    for n, word in enumerate(dict.fromkeys(words)):
        if n == 0:
            total = dict(keys.word_scores(word))
        else:  # only the texts every earlier word matched
            scores = _word_scores(word, total, keys)
            total = {i: (total[i][0] + s, total[i][1] + at) for i, (s, at) in scores.items()}
        if not total:
            return []
    ranked = sorted(total.items(), key=lambda kv: (-kv[1][0], kv[1][1], kv[0]))
    return [(items[i], score) for i, (score, _) in ranked]


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
