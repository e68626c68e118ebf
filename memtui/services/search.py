"""Fuzzy filtering for the lists (rapidfuzz), shared by every view.

A query is words, matched in any order (``shim v1`` finds "Registry v1 catalog shim"): every word
must match the item's text — as a substring, or for words of three letters or more as a close
fuzzy match (rapidfuzz's partial ratio) so a typo still finds the file — and so must each of its
beginnings (``rel``, ``rela``, ``relas`` for ``relase``): typing a letter more never brings a row
back, so each keystroke narrows the list the one before it left instead of reading every row again
(a typo in a word's first three letters is therefore not forgiven).  Items are ranked by how well
the words match, best first: a substring above a fuzzy match, whole words and word starts first; a
fuzzy match scores as well as the text's closest word (rapidfuzz's ratio: "relase" is nearer
"release" than "releases").  Ties go to the matches nearer the start of the text (a title before a
hook), then keep list order.  The ranking is made when the list is first read, and the items only
as they are read (:class:`Ranked`): a screen of a hundred thousand matches costs a screen.
"""

from __future__ import annotations

from array import array
from collections import OrderedDict
from collections.abc import Iterator
from dataclasses import dataclass
from itertools import compress
from typing import TYPE_CHECKING, Callable, Generic, Sequence, TypeVar, overload

from rapidfuzz import fuzz, process, utils

if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

T = TypeVar("T")

#: a fuzzy word match must score at least this (0–100)
CUTOFF = 75
#: extra score for a word found at a word start, and as a whole word
_WORD_START, _WHOLE_WORD = 10.0, 5.0

#: the matches of this many queries a :class:`SearchKeys` keeps (typing, backspacing)
_MEMO_QUERIES = 48
#: matches up to this many are ranked by a plain sort; more, by one sort of arrays (numpy)
SORT_IN_ARRAYS = 2_000


class _Matches:
    """The texts matching a query's words: their positions in the list, in list order, with the
    summed score and place of the words before the last, and the last word's own."""

    __slots__ = ("words", "at", "before", "before_at", "last", "last_at")

    def __init__(self, words: tuple[str, ...], at: array[int], before: array[float],
                 before_at: array[int], last: array[float], last_at: array[int]) -> None:
        self.words = words
        self.at = at
        self.before, self.before_at = before, before_at
        self.last, self.last_at = last, last_at

    def totals(self) -> tuple[array[float], array[int]]:
        """Each match's summed score and place over every word."""
        return (array("d", map(float.__add__, self.before, self.last)),
                array("q", map(int.__add__, self.before_at, self.last_at)))


class SearchKeys:
    """The processed search text of each item of a list, computed once per list (not per key).

    It also keeps the matches of the last few queries: a query that adds a letter to the one
    before is matched among that one's matches only, and a backspace finds its query's kept.
    """

    def __init__(self, items: Sequence[T], key: Callable[[T], str]) -> None:
        self.items = items
        self.texts = [utils.default_process(key(item)) for item in items]
        # processed texts hold no whitespace but " ": a word start is " word" in " text "
        self.padded = [f" {text} " for text in self.texts]
        self._memo: OrderedDict[tuple[str, ...], _Matches] = OrderedDict()

    def matches(self, words: tuple[str, ...]) -> _Matches:
        """The items matching every word (each distinct, in order): from the kept matches of the
        query one letter shorter, or of the words before the last one."""
        found = self._memo.get(words)
        if found is not None:
            self._memo.move_to_end(words)
            return found
        if not words:
            n = len(self.texts)
            zeros, none = array("d", bytes(8 * n)), array("q", bytes(8 * n))
            found = _Matches((), array("q", range(n)), zeros, none, zeros, none)
        else:
            *head, last = words
            shorter = last[:-1]
            if shorter and shorter not in head:  # the last word one letter shorter first
                parent = self.matches((*head, shorter))
                before, before_at = parent.before, parent.before_at
            else:  # a new word (or its beginning is an earlier word: its matches already hold)
                parent = self.matches(tuple(head))
                before, before_at = parent.totals()
            found = self._narrowed(words, parent, before, before_at)
        self._memo[words] = found
        if len(self._memo) > _MEMO_QUERIES:
            self._memo.popitem(last=False)
        return found

    def _narrowed(self, words: tuple[str, ...], parent: _Matches, before: array[float],
                  before_at: array[int]) -> _Matches:
        """Which of ``parent``'s matches the last word matches too, with its score there."""
        kept, scores = _word_scores(words[-1], parent.at, self)
        return _Matches(words, array("q", compress(parent.at, kept)), array("d", compress(before, kept)),
                        array("q", compress(before_at, kept)), array("d", (s for s, _ in scores)),
                        array("q", (at for _, at in scores)))


#: a word's match in one text: its score and where in the text it is
Hit = tuple[float, int]


def _word_scores(word: str, indices: Sequence[int], keys: SearchKeys) -> tuple[list[bool], list[Hit]]:
    """Whether ``word`` matches each text of ``indices`` (substring, else fuzzy for 3+ letters),
    and the (score, position) of each match, in order."""
    texts, padded = keys.texts, keys.padded
    chosen = texts if len(indices) == len(texts) else list(map(texts.__getitem__, indices))
    kept = [word in text for text in chosen]
    hits: dict[int, Hit] = {}
    start, whole = f" {word}", f" {word} "
    for k in compress(range(len(kept)), kept):
        text = padded[indices[k]]
        hits[k] = (100.0 + _WORD_START + (_WHOLE_WORD if whole in text else 0.0)
                   if start in text else 100.0, chosen[k].find(word))
    if len(word) >= 3:
        rest = [k for k, found in enumerate(kept) if not found]
        if rest:
            others = [chosen[k] for k in rest]
            fuzzy = process.extract(word, others, scorer=fuzz.partial_ratio, processor=None,
                                    score_cutoff=CUTOFF, limit=None)
            if fuzzy:
                _land(word, fuzzy, rest, chosen, [padded[indices[k]] for k in rest], hits, kept)
    return kept, [hits[k] for k in sorted(hits)]


def _land(word: str, fuzzy: list[tuple[str, float, int]], rest: list[int], chosen: list[str],
          padded: list[str], hits: dict[int, Hit], kept: list[bool]) -> None:
    """Each fuzzy match's score and place: as good as the text's closest word, when that beats
    the partial ratio, placed where that word first stands (a word not close by itself: after
    every other).  The closest words are looked for among the matched texts' words only."""
    vocabulary = sorted(set(" ".join(chosen[rest[j]] for _, _, j in fuzzy).split()))
    closest = [(f" {w} ", float(ratio)) for w, ratio, _ in process.extract(
        word, vocabulary, scorer=fuzz.ratio, processor=None, score_cutoff=CUTOFF, limit=None)]
    for _, partial, j in fuzzy:
        k = rest[j]
        text = padded[j]
        hit: Hit = (float(partial), len(chosen[k]))
        for near, ratio in closest:
            if ratio <= partial:
                break
            at = text.find(near)
            if at >= 0:
                hit = (ratio, at)
                break
        hits[k] = hit
        kept[k] = True


class Ranked(Sequence[T], Generic[T]):
    """The matches of a query, best first, made when first read: the order is computed on the
    first look, and an item is taken from the list only when its row is read."""

    def __init__(self, items: Sequence[T], positions: array[int] | range,
                 scores: array[float] | None = None, places: array[int] | None = None) -> None:
        self._items = items
        self._positions = positions
        self._scores = scores
        self._places = places
        self._order: npt.NDArray[np.intp] | range | list[int] | None = (
            None if scores is not None else range(len(positions)))

    def __len__(self) -> int:
        return len(self._positions)

    def rank(self) -> Ranked[T]:
        """Make the order now (in a worker, say), not on the first read."""
        self._ranked()
        return self

    def _ranked(self) -> npt.NDArray[np.intp] | range | list[int]:
        if self._order is None:
            scores, places = self._scores, self._places
            assert scores is not None and places is not None
            if len(scores) <= SORT_IN_ARRAYS:
                self._order = sorted(range(len(scores)), key=lambda k: (-scores[k], places[k], k))
            else:
                import numpy as np  # a long list's order: one sort of arrays, not of tuples

                self._order = np.lexsort((np.arange(len(scores)), np.frombuffer(places, dtype=np.int64),
                                          -np.frombuffer(scores, dtype=np.float64)))
        return self._order

    @overload
    def __getitem__(self, index: int) -> T: ...

    @overload
    def __getitem__(self, index: slice) -> list[T]: ...

    def __getitem__(self, index: int | slice) -> T | list[T]:
        order = self._ranked()
        if isinstance(index, slice):
            return [self._items[self._positions[int(k)]] for k in order[index]]
        return self._items[self._positions[int(order[index])]]

    def __iter__(self) -> Iterator[T]:
        items, positions = self._items, self._positions
        return (items[positions[int(k)]] for k in self._ranked())

    def score(self, index: int) -> float:
        """The score of the item at ``index`` (0 for no query)."""
        if self._scores is None:
            return 0.0
        return float(self._scores[int(self._ranked()[index])])


def fuzzy_ranked(query: str, items: Sequence[T], key: Callable[[T], str],
                 keys: SearchKeys | None = None) -> Ranked[T]:
    """Items matching every word of ``query`` in any order, best first, as a :class:`Ranked`
    read lazily; all items for no query.

    Pass ``keys`` (built once for ``items``) when filtering the same list keystroke after keystroke.
    """
    words = tuple(dict.fromkeys(utils.default_process(query).split()))
    if not words:
        return Ranked(items, range(len(items)))
    if keys is None or keys.items is not items:
        keys = SearchKeys(items, key)
    found = keys.matches(words)
    scores, places = found.totals()
    return Ranked(items, found.at, scores, places)


def fuzzy_filter(query: str, items: Sequence[T], key: Callable[[T], str],
                 keys: SearchKeys | None = None) -> list[T]:
    """:func:`fuzzy_ranked` as a list."""
    return list(fuzzy_ranked(query, items, key, keys))


def fuzzy_scores(query: str, items: Sequence[T], key: Callable[[T], str],
                 keys: SearchKeys | None = None) -> list[tuple[T, float]]:
    """:func:`fuzzy_filter` with each item's score (higher is better; 0 for no query)."""
    ranked = fuzzy_ranked(query, items, key, keys)
    return [(item, ranked.score(n)) for n, item in enumerate(ranked)]


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
