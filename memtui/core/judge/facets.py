"""What the judgments read of one file's body, each a plain function of the file, with the stat
cache's memo around it — in this one place, one :class:`Facet` each:

- :data:`BODY_FACTS` — its references, its first directive word and whether it is an unfilled
  template (what staleness scores, :func:`read_body_facts`);
- :data:`STANDING` — the standing rule or decision it states
  (:func:`~memtui.core.model.standing.standing_reason`, what holds a note from age pruning);
- :data:`BODY_DATES` — the dates its body and description state for themselves
  (:func:`~memtui.core.judge.dates.body_dates`, what dates a note).

A facet of a file of a cached load (:class:`~memtui.core.stores.statcache.CachedFile`) is the
cache's when its stat key is unchanged, else computed and kept for the next run; of any other
file it is computed.  Either way it is the plain function's value (a test checks warm against
cold for every facet), so the judgments above — :mod:`.staleness`, :mod:`.ages` — read a facet
as a plain function of the file and never consult the cache themselves.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Callable, Generic, TypeVar

from ..model.folder_docs import is_unfilled
from ..model.snapshot import MemoryFile
from ..model.standing import directive_word, standing_reason
from ..read.references import RefKind, reference_keys
from ..stores.statcache import cached
from .dates import BodyDate, body_dates

T = TypeVar("T")


@dataclass(frozen=True)
class Facet(Generic[T]):
    """One per-file judgment and its memo: ``facet(f)`` is ``compute(f)``, kept in the stat cache
    under ``name`` (``"section/name"``) as the marshal-able ``plain(value)`` and read back by
    ``restore``."""

    name: str
    compute: Callable[[MemoryFile], T]
    plain: Callable[[T], Any]
    restore: Callable[[Any], T]

    def __call__(self, memory_file: MemoryFile) -> T:
        return cached(memory_file, self.name, self.compute, self.plain, self.restore)


#: what scoring reads from a body: its references, its directive word and whether it is an
#: unfilled template (:func:`~memtui.core.model.folder_docs.is_unfilled`)
BodyFacts = tuple[tuple[tuple[RefKind, str], ...], "str | None", bool]

_KINDS = {kind.value: kind for kind in RefKind}


def read_body_facts(memory_file: MemoryFile) -> BodyFacts:
    """:data:`BodyFacts` of a file, read from its body."""
    body = memory_file.body
    lowered = body.lower()
    return reference_keys(body, lowered), directive_word(body, lowered), is_unfilled(body)


def read_body_dates(memory_file: MemoryFile) -> tuple[BodyDate, ...]:
    """:func:`~memtui.core.judge.dates.body_dates` of a file's body and description."""
    return body_dates(memory_file.body, memory_file.frontmatter.get("description"))


BODY_FACTS: Facet[BodyFacts] = Facet(
    "stale/body", read_body_facts,
    lambda v: (tuple((kind.value, text) for kind, text in v[0]), v[1] or "", v[2]),
    lambda p: (tuple((_KINDS[kind], text) for kind, text in p[0]), p[1] or None, bool(p[2])),
)
STANDING: Facet[str | None] = Facet(
    "stale/standing", standing_reason, lambda v: v or "", lambda p: str(p) or None,
)
BODY_DATES: Facet[tuple[BodyDate, ...]] = Facet(
    "stale/body-dates", read_body_dates,
    lambda v: tuple((tier, int(day.timestamp()), source) for tier, day, source in v),
    lambda p: tuple((int(tier), datetime.fromtimestamp(int(s), timezone.utc), str(source))
                    for tier, s, source in p),
)

#: every facet of this module (what the warm-equals-cold test walks)
FACETS: tuple[Facet[Any], ...] = (BODY_FACTS, STANDING, BODY_DATES)
