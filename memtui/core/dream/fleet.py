"""The fleet view (DESIGN §14): every root at once, each with what says it needs a look.

:func:`fleet_row` gives one root's row — its budget (lines and characters against the caps, and
where the loader cuts), its errors and warnings, the peaks of its pressure log, the agent's last
change, and how many items a dream would check — and :func:`needs_attention` the reasons it needs
a person (errors, an index the loader cuts, pressure, an interrupted change), in words, so a
screen or a table marks them with a glyph and a word, never by colour alone.

What a row costs: the validation is the stat cache's whole-root answer when nothing changed
(:func:`memtui.core.stores.statcache.validate_root`: one ``stat`` per file); the files are read
through the stat cache (nothing is read that did not change); the agent's last change comes from
Claude Code's transcripts (their own cache, :mod:`memtui.core.stores.transcripts`), else from the
files' modification times unless those carry no age (a copy:
:func:`memtui.core.judge.ages.mtime_burst`); and the dream's count is kept in the stat cache as a
whole-root answer (``memo-dream``) for the same files, the same day, the same rejected pairs and
fill target — a kept count costs the stat of every file, a new one a whole dream plan
(:func:`memtui.core.dream.plan.plan_dream`: staleness, the consolidation scan, the repairs), and
``dream=False`` leaves it out.  A reference into the project that broke since (a file the
repository removed) moves a kept count only the next day.
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import date, datetime, timezone
from pathlib import Path

from ..model.snapshot import BudgetConfig

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover  (the command line's parser imports this module: kept light)
    from ..model.snapshot import Snapshot
    from ..rules.budget import Budget
    from ..stores.statcache import StatCache

#: the columns a fleet can be sorted by (:func:`sort_fleet`)
SORT_COLUMNS = ("root", "layer", "files", "lines", "chars", "use", "cut", "errors", "warnings",
                "pressure", "agent", "dream", "attention")


@dataclass(frozen=True)
class FleetRow:
    """One root of the fleet (``budget`` None when it could not be read: ``problem`` says why)."""

    root: Path
    layer: str
    found_as: str  # why it is listed (the machine root's label), "" when given
    files: int
    budget: Budget | None
    errors: int
    warnings: int
    interrupted: bool
    pressure_days: int  # days the pressure log holds (each at ≥ 90%)
    pressure_peak: float | None  # the highest utilisation it holds
    pressure_last: str | None  # the day of its newest line
    agent_change: datetime | None  # the newest write the agent made (or the newest file time)
    agent_source: str  # "transcript", "file time", or "" (unknown: the times are a copy's)
    dream_checked: int | None  # items a dream would check (None: not asked, or it failed)
    dream_waiting: int | None  # items it would leave for a person
    dream_kept: bool  # the count came from the stat cache's kept answer
    problem: str = ""

    @property
    def attention(self) -> tuple[str, ...]:
        """Why this root needs a person, in words (empty: nothing does)."""
        return needs_attention(self)

    def sort_value(self, column: str) -> tuple[object, ...]:
        """This row's value in one of :data:`SORT_COLUMNS` (a row without a value sorts last)."""
        budget = self.budget
        values: dict[str, object] = {
            "root": str(self.root), "layer": self.layer, "files": self.files,
            "lines": budget.lines if budget else None, "chars": budget.bytes if budget else None,
            "use": budget.utilization if budget else None,
            "cut": budget.cut_line is not None if budget else None,
            "errors": self.errors, "warnings": self.warnings,
            "pressure": self.pressure_peak, "dream": self.dream_checked,
            "agent": self.agent_change.timestamp() if self.agent_change else None,
            "attention": len(self.attention),
        }
        value = values[column]
        return (value is None, value if value is not None else 0)

    def to_json(self) -> dict[str, object]:
        return {
            "root": str(self.root), "layer": self.layer, "found_as": self.found_as,
            "files": self.files, "budget": self.budget.to_json() if self.budget else None,
            "errors": self.errors, "warnings": self.warnings, "interrupted": self.interrupted,
            "pressure": {"days": self.pressure_days, "peak": self.pressure_peak,
                         "last": self.pressure_last},
            "agent_change": {"at": self.agent_change.isoformat() if self.agent_change else None,
                             "source": self.agent_source or None},
            "dream": {"checked": self.dream_checked, "waiting": self.dream_waiting,
                      "kept": self.dream_kept},
            "attention": list(self.attention), "problem": self.problem or None,
        }


def needs_attention(row: FleetRow) -> tuple[str, ...]:
    """The reasons a root needs a person: it cannot be read, a change to it was interrupted, it
    has error findings, the loader cuts its index, or its index is at the pressure mark."""
    from ..rules.budget import PRESSURE_THRESHOLD

    out = []
    if row.problem:
        out.append("unreadable")
    if row.interrupted:
        out.append("interrupted change")
    if row.errors:
        out.append(f"{row.errors} error{'s' * (row.errors != 1)}")
    budget = row.budget
    if budget is not None and budget.cut_line is not None:
        out.append("index cut")
    elif budget is not None and budget.utilization >= PRESSURE_THRESHOLD:
        out.append("pressure")
    return tuple(out)


def sort_fleet(rows: Sequence[FleetRow], column: str, descending: bool = False) -> list[FleetRow]:
    """The rows by one of :data:`SORT_COLUMNS` (ties by root); rows without a value go last."""
    if column not in SORT_COLUMNS:
        raise ValueError(f"cannot sort by {column!r}: one of {', '.join(SORT_COLUMNS)}")
    ordered = sorted(rows, key=lambda r: str(r.root))
    with_value = [r for r in ordered if not r.sort_value(column)[0]]
    without = [r for r in ordered if r.sort_value(column)[0]]
    return sorted(with_value, key=lambda r: _orderable(r.sort_value(column)[1]),
                  reverse=descending) + without


def _orderable(value: object) -> float | str:
    """A sort value as something ``<`` compares (numbers and flags as floats)."""
    return value if isinstance(value, str) else float(value)  # type: ignore[arg-type]


# ---------------------------------------------------------------- one root


def fleet_row(root: Path | str, config: BudgetConfig = BudgetConfig(), *, found_as: str = "",
              now: datetime | None = None, dream: bool = True,
              target_lines: int | None = None, clock: Callable[[], int] = time.time_ns) -> FleetRow:
    """One root's row (see the module docstring); a root that cannot be read is a row with its
    ``problem`` said (``clock``: the stat cache's, for its racy rule)."""
    from ..judge.layers import layer_of
    from ..model.journal import pending_records
    from ..read.store import RootError
    from ..rules.validate import errors as error_findings
    from ..stores.pressure import read_pressure
    from ..stores.statcache import load_cached, validate_root

    root = Path(root).absolute()
    now = now or datetime.now(timezone.utc)
    layer = layer_of(root)
    try:
        validation = validate_root(root, config, clock)
        snapshot, cache = load_cached(root, config, clock)
    except (RootError, OSError) as exc:
        return FleetRow(root, layer, found_as, 0, None, 0, 0, False, 0, None, None, None, "", None,
                        None, False, str(exc))
    errors = len(error_findings(validation.findings))
    samples = read_pressure(root)
    peaks = [float(value) for value in (s.get("utilization") for s in samples)
             if isinstance(value, (int, float))]
    days = sorted(str(s["date"]) for s in samples if isinstance(s.get("date"), str))
    at, source = agent_change(snapshot)
    checked = waiting = None
    kept = False
    if dream:
        checked, waiting, kept = dream_count(snapshot, cache, now, target_lines)
    cache.save()
    return FleetRow(root, layer, found_as, validation.files, validation.budget, errors,
                    len(validation.findings) - errors, bool(pending_records(root)), len(samples),
                    max(peaks) if peaks else None, days[-1] if days else None, at, source,
                    checked, waiting, kept)


def agent_change(snapshot: Snapshot) -> tuple[datetime | None, str]:
    """When the agent last wrote this root: the newest write of a memory file in Claude Code's
    transcripts; else the newest modification time of its files and index — unless those are a
    copy's (all within minutes of each other: no evidence), then unknown."""
    from ..judge.ages import index_mtime, mtime_burst
    from ..judge.usage import usage_of

    try:
        usage = usage_of(snapshot)
    except (OSError, ValueError):
        usage = None
    written = [use.last_written for use in (usage.files.values() if usage is not None else ())
               if use.last_written]
    if written:
        try:
            newest = max(datetime.fromisoformat(stamp.replace("Z", "+00:00")) for stamp in written)
            return (newest if newest.tzinfo else newest.replace(tzinfo=timezone.utc)), "transcript"
        except ValueError:
            pass
    index_time = index_mtime(snapshot.root)
    if not snapshot.files and index_time is None:
        return None, ""
    if mtime_burst(snapshot.files, index_time) is not None:
        return None, ""
    times = [f.mtime for f in snapshot.files.values()] + ([index_time] if index_time else [])
    return datetime.fromtimestamp(max(times), timezone.utc), "file time"


def dream_count(snapshot: Snapshot, cache: StatCache | None, now: datetime | date,
                target_lines: int | None = None) -> tuple[int | None, int | None, bool]:
    """How many items a dream of the root would check and leave for a person, and whether the
    count was kept (``cache``: the stat cache that loaded ``snapshot``)."""
    from ..stores.rejections import read_rejected
    from ..tidy.lines import configured_target_lines
    from .plan import plan_dream

    today = now.date() if isinstance(now, datetime) else now
    if target_lines is None:
        target_lines = configured_target_lines()
    rejected = read_rejected(snapshot.root)
    extra = ("dream-count", today.isoformat(), target_lines, sorted(rejected))
    digest = cache.loaded_digest(*extra) if cache is not None else None
    if cache is not None:
        hit = cache.memo("dream", digest)
        if (isinstance(hit, tuple) and len(hit) == 2 and all(type(v) is int for v in hit)):
            return hit[0], hit[1], True
    try:
        plan = plan_dream(snapshot, now, rejected=rejected, target_lines=target_lines)
    except (OSError, ValueError):
        return None, None, False
    checked = len(plan.default)
    waiting = len(plan.items) - checked
    if cache is not None:
        cache.set_memo("dream", digest, (checked, waiting))
    return checked, waiting, False


def fleet(roots: Sequence[tuple[Path, str]], config: BudgetConfig = BudgetConfig(), *,
          now: datetime | None = None, dream: bool = True,
          each: Callable[[FleetRow], None] | None = None) -> list[FleetRow]:
    """A row for each ``(root, found_as)``, in order (``each`` is told every row as it is made)."""
    out = []
    for root, found_as in roots:
        row = fleet_row(root, config, found_as=found_as, now=now, dream=dream)
        out.append(row)
        if each is not None:
            each(row)
    return out


def ago(when: datetime | None, now: datetime) -> str:
    """How long before ``now`` a time was, in its largest unit (``3d ago``; ``?`` unknown)."""
    if when is None:
        return "?"
    seconds = max(0.0, (now - when).total_seconds())
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60)):
        if seconds >= size:
            return f"{int(seconds // size)}{unit} ago"
    return "now"


def home_short(path: Path | str) -> str:
    """A path with the home folder written ``~``."""
    text = str(path)
    home = os.path.expanduser("~")
    if home and home != "/" and (text == home or text.startswith(home.rstrip("/") + "/")):
        return "~" + text[len(home.rstrip("/")):]
    return text
