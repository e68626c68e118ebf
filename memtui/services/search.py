"""Fuzzy filtering for the lists (rapidfuzz), shared by every view."""

from __future__ import annotations

from typing import Callable, Sequence, TypeVar

from rapidfuzz import fuzz, process, utils

T = TypeVar("T")

#: a match must score at least this (0–100) against the query
CUTOFF = 75


class SearchKeys:
    """The processed search text of each item of a list, computed once per list (not per key)."""

    def __init__(self, items: Sequence[T], key: Callable[[T], str]) -> None:
        self.items = items
        self.texts = [utils.default_process(key(item)) for item in items]


def fuzzy_filter(query: str, items: Sequence[T], key: Callable[[T], str],
                 keys: SearchKeys | None = None) -> list[T]:
    """Items matching ``query``, best first (ties keep their order); all items for no query.

    Queries of one or two characters match as plain substrings; longer ones use rapidfuzz's
    partial ratio, so a typo or a partial word still finds the file.  Pass ``keys`` (built once
    for ``items``) when filtering the same list keystroke after keystroke.
    """
    query = query.strip()
    if not query:
        return list(items)
    if keys is None or keys.items is not items:
        keys = SearchKeys(items, key)
    choices = keys.texts
    needle = utils.default_process(query)
    if len(query) <= 2:
        return [item for item, text in zip(items, choices) if needle in text]
    matches = process.extract(
        needle,
        choices,
        scorer=fuzz.partial_ratio,
        processor=None,
        score_cutoff=CUTOFF,
        limit=None,
    )
    matches.sort(key=lambda match: (-match[1], match[2]))
    return [items[index] for _, _, index in matches]


def split_facets(query: str, facets: Sequence[str]) -> tuple[dict[str, str], str]:
    """Pull ``name:value`` words for known facet names out of a query; the rest is free text."""
    chosen: dict[str, str] = {}
    rest: list[str] = []
    for word in query.split():
        name, sep, value = word.partition(":")
        if sep and name.lower() in facets and value:
            chosen[name.lower()] = value.lower()
        else:
            rest.append(word)
    return chosen, " ".join(rest)
