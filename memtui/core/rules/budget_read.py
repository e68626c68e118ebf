"""What the loader takes of one index and what falls past its cut, as ``memtui loaded`` shows it:
from an index read with :func:`memtui.core.model.index_read.read_index` (only the lines that load
are parsed in full) or from a parsed one, alike."""

from __future__ import annotations

from dataclasses import dataclass

from ..model.index_read import PastEntries, ReadIndex, past_entry
from ..model.snapshot import CLAUDE_LOADERS, BudgetConfig, Index, LineKind, encode_text
from .budget import (
    Budget,
    claude_budget,
    counted_text,
    index_loaded_text,
    lines_past_cut,
    loaded_file_bytes,
    measure,
    raw_budget,
    sent_text,
    sizes_of,
)


@dataclass(frozen=True)
class Loaded:
    """One index as its loader takes it."""

    budget: Budget
    text: bytes  # what the loader takes (:func:`memtui.core.rules.budget.index_loaded_text`)
    file_bytes: bytes  # the file's own bytes of the lines that load (``--raw``)
    stripped: tuple[tuple[int, str], ...]  # the lines the profile does not count: number, text
    past_lines: int  # how many lines never load
    past: PastEntries  # the entries and region pointers among them


def _first_past(budget: Budget, lines: int) -> int:
    """The first line that does not load (a first line cut mid-line loads its start)."""
    if budget.cut_line is None:
        return lines + 1
    return budget.cut_line + (1 if budget.cut_chars is not None else 0)


def loaded_of(index: Index | ReadIndex, config: BudgetConfig) -> Loaded:
    """What the loader takes of ``index`` under ``config``: a :class:`ReadIndex` is measured
    from its lines' texts and parsed only where it loads, a parsed :class:`Index` as it is."""
    if isinstance(index, ReadIndex):
        return _loaded_read(index, config)
    budget = measure(index, config)
    past = lines_past_cut(index, budget)
    raws = {line.number: line.raw for line in index.lines} if budget.stripped else {}
    return Loaded(budget, index_loaded_text(index, budget) if index.exists else b"",
                  loaded_file_bytes(index, budget) if index.exists else b"",
                  tuple((n, raws[n]) for n in budget.stripped), len(past),
                  PastEntries.of(past_entry(line) for line in past if line.kind in _SHOWN))


_SHOWN = (LineKind.ENTRY, LineKind.REGION)


def _loaded_read(read: ReadIndex, config: BudgetConfig) -> Loaded:
    if not read.exists:
        budget = Budget(0, config.max_lines, 0, config.max_bytes, None, 0, config.loader)
        return Loaded(budget, b"", b"", (), 0, PastEntries())
    raws, lines = read.raws, len(read.raws)
    if config.loader in CLAUDE_LOADERS:
        counted = counted_text(raws, read.endings, config.loader)
        budget = claude_budget(lines, read.size, config, counted)
    else:
        budget = raw_budget(sizes_of(raws, read.endings, read.bom), read.bom, config)
    first_past = _first_past(budget, lines)
    file_bytes = loaded_file_bytes(read.head(first_past - 1), budget)
    text = encode_text(sent_text(budget, counted)) if config.loader in CLAUDE_LOADERS else file_bytes
    return Loaded(budget, text, file_bytes, tuple((n, raws[n - 1]) for n in budget.stripped),
                  lines - first_past + 1, read.past_entries(first_past))
