"""The order of a list view's rows: by one of its columns, either way round (``>`` and ``I``).

The first column a view names is its own order (the Files view's paths, the Staleness view's
scores, worst first): chosen again after the last, it gives the rows back as the view made them.
Rows whose value is unknown (no score yet, an unknown age) go after the others either way.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar

T = TypeVar("T")


@dataclass(frozen=True)
class SortKey(Generic[T]):
    """A column the rows can be ordered by: its title in the column header and its value of a
    row (None: unknown, ordered last; ``key`` None: the view's own order)."""

    title: str
    key: Callable[[T], Any] | None = None


class Sorting(Generic[T]):
    """Which column orders a list, and which way."""

    def __init__(self, keys: Sequence[SortKey[T]], *, own_descending: bool = False) -> None:
        """``own_descending``: the view's own order is its first column's highest first."""
        self.keys = tuple(keys)
        self.own_descending = own_descending
        self.index = 0
        self.descending = False

    @property
    def column(self) -> str:
        return self.keys[self.index].title

    @property
    def active(self) -> bool:
        """Whether the rows are in another order than the view's own."""
        return self.index != 0 or self.descending

    def cycle(self) -> None:
        """The next column (after the last: the view's own order again)."""
        self.index = (self.index + 1) % len(self.keys)

    def reverse(self) -> None:
        self.descending = not self.descending

    def apply(self, rows: Sequence[T]) -> Sequence[T]:
        """The rows in this order (the same sequence when it is the view's own)."""
        if not self.active:
            return rows
        key = self.keys[self.index].key
        if key is None:
            return list(reversed(rows))
        known, unknown = [], []
        for row in rows:
            value = key(row)
            if value is None:
                unknown.append(row)
            else:
                known.append((value, row))
        known.sort(key=lambda item: item[0], reverse=self.descending)  # stable: ties keep the view's order
        return [row for _, row in known] + unknown

    def title(self, text: str) -> str:
        """A column's title, marked ▲ or ▼ when it orders the rows."""
        if self.active and text == self.column:
            down = self.descending != (self.index == 0 and self.own_descending)
            return text + ("▼" if down else "▲")
        return text

    def words(self) -> str:
        """The order in words for a view's header line ("" when it is the view's own)."""
        if not self.active:
            return ""
        return f" · sorted by {self.column}{' (reversed)' if self.descending else ''}"
