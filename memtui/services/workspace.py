"""One root as the app shows it: the snapshot plus everything derived from it, built off the UI thread.

Loading happens in two passes so the working set paints at once on a huge root: a *quick* pass
reads only the indexes and the files they list (what the next session loads), then the *full*
pass scans every file and validates.  Both give a :class:`Workspace`; ``complete`` says which.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Iterable, Mapping

from memtui.core.judge.consolidate import ScanResult
from memtui.core.judge.staleness import StalenessReport
from memtui.core.judge.usage import Usage
from memtui.core.model.journal import list_records, stacks
from memtui.core.model.snapshot import (
    INDEX_NAME,
    BudgetConfig,
    Finding,
    Index,
    IndexLine,
    LineKind,
    MemoryFile,
    Snapshot,
)
from memtui.core.read.store import load_indexed
from memtui.core.rules.budget import Budget, budget_of
from memtui.core.rules.incremental import FindingsCache, findings_cache
from memtui.core.rules.validate import DOCUMENT, SCOPE, TEAM, Reach, reach_of, region_globs
from memtui.core.stores.pressure import read_pressure

PINNED = "pinned"
RECENT = "recent"
REGIONS = "regions"
PANES = (PINNED, RECENT, REGIONS)


@dataclass(frozen=True)
class EntryRow:
    """One line of the working set: an entry or a region pointer of ``MEMORY.md``."""

    number: int  # line number in MEMORY.md
    pane: str
    title: str
    hook: str
    target: str = ""  # the link as written
    path: str | None = None  # root-relative path of the memory file, when it exists
    type: str = ""
    pinned: bool = False
    loaded: bool = True  # before the loader's cut
    missing: bool = False  # the link points at no file
    scope: str = ""
    glob: str = ""  # region pointers only
    covers: int | None = None  # files a region pointer matches (None until the full scan)


@dataclass(frozen=True)
class WorkingSet:
    """The three panes of the main screen, each in index order."""

    pinned: tuple[EntryRow, ...] = ()
    recent: tuple[EntryRow, ...] = ()
    regions: tuple[EntryRow, ...] = ()
    cut_line: int | None = None

    def pane(self, name: str) -> tuple[EntryRow, ...]:
        return {PINNED: self.pinned, RECENT: self.recent, REGIONS: self.regions}[name]

    @property
    def not_loaded(self) -> int:
        return sum(1 for pane in PANES for row in self.pane(pane) if not row.loaded)


@dataclass(frozen=True)
class Coverage:
    """Which region glob covers each file (the first, in index order) and how many each matches:
    the core's reachability model (:class:`memtui.core.rules.validate.Reach`) seen from the regions."""

    globs: tuple[str, ...] = ()  # valid globs, in index order, each once
    region_of: Mapping[str, str] = field(default_factory=dict)
    counts: Mapping[str, int] = field(default_factory=dict)


def coverage_of(snapshot: Snapshot, cache: FindingsCache | None = None) -> Coverage:
    """Region coverage of every memory file, from the findings cache's reachability (computed
    when ``cache`` is not this snapshot's)."""
    reach = _reach(snapshot, cache)
    counts = {line.glob: reach.region_hits[line.number]
              for line in snapshot.index.regions if line.number in reach.region_hits}
    return Coverage(region_globs(snapshot.index), reach.region, counts)


def _reach(snapshot: Snapshot, cache: FindingsCache | None) -> Reach:
    return cache.reach if cache is not None and cache.snapshot is snapshot else reach_of(snapshot)


@dataclass(frozen=True)
class FileRow:
    """One memory file as the Files view lists it."""

    path: str
    title: str
    type: str
    reach: str  # one of memtui.core.rules.validate.REACH_WAYS ('orphan': the orphan rule's files)
    pinned: bool
    archived: bool
    size: int
    search_key: str  # what the fuzzy filter matches against


@dataclass(frozen=True)
class History:
    """How many of the journal's changes can be undone now, and redone."""

    undoable: int = 0
    redoable: int = 0


def history_of(root: Path | str) -> History:
    """The root's undo and redo stacks as its journal holds them (nothing when it has none)."""
    st = stacks(list_records(root))
    return History(len(st.done), len(st.redo))


@dataclass(frozen=True)
class Workspace:
    """Everything the app shows about one root at one moment."""

    root: Path
    snapshot: Snapshot
    budget: Budget
    working_set: WorkingSet
    findings: tuple[Finding, ...] = ()
    files: tuple[FileRow, ...] = ()
    coverage: Coverage | None = None  # None until the full scan
    pressure: tuple[Mapping[str, object], ...] = ()
    complete: bool = False
    staleness: StalenessReport | None = None  # once scored
    candidates: ScanResult | None = None  # once scanned
    fingerprint: int | None = None  # services.watch.fingerprint of the folder before it was read
    # (None: not taken yet; after memtui's own change the watcher takes it as the new baseline)
    cache: FindingsCache | None = None  # lets the gate re-check only a change
    mentions: Mapping[str, int] = field(default_factory=dict)  # file -> loaded index line naming it
    usage: Usage | None = None  # evidence of use from Claude Code's transcripts, once read
    history: History = History()  # what u and U would take back now

    @property
    def errors(self) -> int:
        return sum(1 for f in self.findings if f.severity == "error")

    @property
    def warnings(self) -> int:
        return sum(1 for f in self.findings if f.severity != "error")

    @property
    def has_index(self) -> bool:
        return self.snapshot.index.exists

    @property
    def is_empty(self) -> bool:
        """No index and no memory files at all: a folder waiting for its first memory."""
        return not self.has_index and not self.snapshot.files and self.complete

    def file(self, path: str | None) -> MemoryFile | None:
        return self.snapshot.files.get(path) if path else None

    def with_staleness(self, report: StalenessReport | None) -> Workspace:
        return replace(self, staleness=report)

    def with_candidates(self, report: ScanResult | None) -> Workspace:
        return replace(self, candidates=report)

    def with_usage(self, usage: Usage | None) -> Workspace:
        return replace(self, usage=usage)

    def reachability(self, path: str) -> list[str]:
        """How a file is reached from the indexes, one plain sentence per way."""
        out: list[str] = []
        cut = self.budget.cut_line
        for line in self.snapshot.index.entries:
            if line.resolved == path:
                if cut is not None and line.number >= cut:
                    out.append(
                        f"entry on line {line.number} of {INDEX_NAME} — past the loader's cut "
                        f"(line {cut}), NOT LOADED"
                    )
                else:
                    out.append(f"entry on line {line.number} of {INDEX_NAME} — loaded every session")
        for line in self.snapshot.archive_index.entries:
            if line.resolved == path:
                out.append(f"archive index line {line.number} ({self.snapshot.archive_index.path})")
        if path in self.mentions:
            out.append(f"mention on line {self.mentions[path]} of {INDEX_NAME} — reached by a "
                       "mention in the loaded part (not an entry of its own)")
        if self.coverage is not None and path in self.coverage.region_of:
            glob = self.coverage.region_of[path]
            out.append(f"region `{glob}` — found by grepping the memory folder")
        how = self.cache.reach.how(path) if not out and self.cache is not None else None
        if how == SCOPE:
            out.append("the SCOPE.md of a path scope — part of the layout, it needs no entry")
        elif how == TEAM:
            out.append("unreachable team memory — no entry, archive entry or region covers it "
                       "(team-unreachable: left to the team)")
        elif how == DOCUMENT:
            out.append("the folder's own document, not a memory (folder-document) — nothing needs "
                       "to reach it; list it only if the agent should read it")
        if not out:
            out.append("unreachable — no entry, archive entry or region covers it (orphan)"
                       if self.complete else "scanning…")
        return out


def _pane_of(line: IndexLine, files: Mapping[str, MemoryFile]) -> str:
    if line.kind is LineKind.REGION:
        return REGIONS
    if "pinned" in line.section.lower():
        return PINNED
    target = files.get(line.resolved or "")
    if target is not None and target.pinned:
        return PINNED
    return RECENT


def working_set_of(
    index: Index, files: Mapping[str, MemoryFile], budget: Budget, coverage: Coverage | None
) -> WorkingSet:
    """Split the active index into Pinned / Recent / Regions rows, in index order."""
    panes: dict[str, list[EntryRow]] = {PINNED: [], RECENT: [], REGIONS: []}
    cut = budget.cut_line
    for line in index.lines:
        if line.kind not in (LineKind.ENTRY, LineKind.REGION):
            continue
        loaded = cut is None or line.number < cut
        pane = _pane_of(line, files)
        if line.kind is LineKind.REGION:
            hook = line.raw.split("→", 1)[-1] if "→" in line.raw else line.raw.split("->", 1)[-1]
            covers = None
            if coverage is not None:
                covers = coverage.counts.get(line.glob, 0)
            panes[REGIONS].append(
                EntryRow(line.number, REGIONS, line.glob, hook.strip(), loaded=loaded,
                         glob=line.glob, covers=covers, scope=line.scope)
            )
            continue
        memory_file = files.get(line.resolved or "")
        title = line.title or (memory_file.title if memory_file else "") or line.target
        panes[pane].append(
            EntryRow(
                number=line.number,
                pane=pane,
                title=title,
                hook=line.hook,
                target=line.target,
                path=line.resolved if memory_file is not None else None,
                type=memory_file.type if memory_file is not None else "",
                pinned=bool(memory_file and memory_file.pinned),
                loaded=loaded,
                missing=memory_file is None,
                scope=line.scope,
            )
        )
    return WorkingSet(tuple(panes[PINNED]), tuple(panes[RECENT]), tuple(panes[REGIONS]), cut)


def _row(path: str, memory_file: MemoryFile, how: str) -> FileRow:
    title = memory_file.title
    return FileRow(
        path=path,
        title=title,
        type=memory_file.type,
        reach=how,
        pinned=memory_file.pinned,
        archived=memory_file.archived,
        size=memory_file.size,
        search_key=f"{path} {title}",
    )


def _direct_lines(snapshot: Snapshot) -> dict[str, int]:
    direct: dict[str, int] = {}
    for line in snapshot.index.entries:
        if line.resolved is not None:
            direct.setdefault(line.resolved, line.number)
    return direct


def file_rows(snapshot: Snapshot, reach: Reach, cut_line: int | None) -> tuple[FileRow, ...]:
    """Every memory file with how it is reached (:meth:`Reach.how`), in path order."""
    return tuple(_row(path, f, reach.how(path, cut_line)) for path, f in snapshot.files.items())


def quick_workspace(root: Path | str, config: BudgetConfig = BudgetConfig()) -> Workspace:
    """The working set from the indexes and the files they list (the loader's quick mode)."""
    snapshot = load_indexed(root, config)
    budget = budget_of(snapshot)
    return Workspace(
        root=snapshot.root,
        snapshot=snapshot,
        budget=budget,
        working_set=working_set_of(snapshot.index, snapshot.files, budget, None),
        pressure=tuple(read_pressure(snapshot.root)),
        complete=False,
        history=history_of(snapshot.root),
    )


def workspace_of(
    snapshot: Snapshot, pressure: tuple[Mapping[str, object], ...] = (),
    cache: FindingsCache | None = None,
) -> Workspace:
    """Everything derived from a full snapshot (validation, reachability, rows).

    ``cache`` is the core's findings cache for this snapshot when the caller has one (after a
    change the writer returns it); otherwise one is built.
    """
    if cache is None or cache.snapshot is not snapshot:
        cache = findings_cache(snapshot)
    budget = budget_of(snapshot)
    coverage = coverage_of(snapshot, cache)
    return _complete(snapshot, budget, coverage, file_rows(snapshot, cache.reach, budget.cut_line),
                     cache, pressure, cache.mentions)


def _complete(snapshot: Snapshot, budget: Budget, coverage: Coverage, rows: tuple[FileRow, ...],
              cache: FindingsCache | None, pressure: tuple[Mapping[str, object], ...],
              mentions: Mapping[str, int]) -> Workspace:
    """A complete workspace from its parts; the findings come from ``cache`` (built if stale)."""
    if cache is None or cache.snapshot is not snapshot:
        cache = findings_cache(snapshot)
    return Workspace(
        root=Path(snapshot.root),
        snapshot=snapshot,
        budget=budget,
        working_set=working_set_of(snapshot.index, snapshot.files, budget, coverage),
        findings=tuple(cache.findings),
        files=rows,
        coverage=coverage,
        pressure=pressure,
        complete=True,
        cache=cache,
        mentions=mentions,
        history=history_of(snapshot.root),
    )


def workspace_after(previous: Workspace, snapshot: Snapshot, cache: FindingsCache | None,
                    touched: Iterable[str]) -> Workspace:
    """The workspace after a change to ``touched`` paths, reusing what the change cannot affect.

    Rows are recomputed for the touched files and for every file with an entry before or after
    (the loader's cut may have moved); coverage is the writer's cache's.  The
    findings come from the writer's cache, so nothing is validated twice.
    """
    if not previous.complete or previous.coverage is None:
        return workspace_of(snapshot, previous.pressure, cache)
    before = previous.snapshot.files
    same_paths = list(before) == list(snapshot.files)  # the usual change: files edited in place
    added = set() if same_paths else {p for p in snapshot.files if p not in before}
    removed = set() if same_paths else {p for p in before if p not in snapshot.files}
    if cache is None or cache.snapshot is not snapshot:
        cache = _retimed(cache, snapshot) or findings_cache(snapshot)
    coverage = coverage_of(snapshot, cache)
    reach = cache.reach
    budget = budget_of(snapshot)
    mentions = cache.mentions  # the validator's, computed once for the change
    direct = _direct_lines(snapshot)
    archived = {line.resolved for line in snapshot.archive_index.entries if line.resolved}
    old_archived = {line.resolved for line in previous.snapshot.archive_index.entries if line.resolved}
    dirty = set(touched) | added | set(direct) | set(_direct_lines(previous.snapshot))
    dirty |= archived ^ old_archived
    dirty |= set(mentions) ^ set(previous.mentions)
    if previous.cache is not None:
        dirty |= reach.structural ^ previous.cache.reach.structural
    if coverage.globs != previous.coverage.globs:
        dirty = set(snapshot.files)
    fresh = {path: _row(path, snapshot.files[path], reach.how(path, budget.cut_line))
             for path in dirty if path in snapshot.files}
    if same_paths and len(previous.files) == len(before):  # a row per file, in the same order
        ordered = tuple([fresh.get(row.path, row) for row in previous.files] if fresh else
                        previous.files)
    else:
        rows = {row.path: row for row in previous.files if row.path not in removed}
        rows.update(fresh)
        ordered = tuple(rows[p] for p in snapshot.files if p in rows)
    after = _complete(snapshot, budget, coverage, ordered, cache, previous.pressure, mentions)
    return replace(after, root=previous.root, staleness=previous.staleness,
                   candidates=previous.candidates, usage=previous.usage)


def _retimed(cache: FindingsCache | None, snapshot: Snapshot) -> FindingsCache | None:
    """The writer's findings for a snapshot that differs from theirs only in files' modification
    times (an undo puts the old times back on the files it restores), else None.

    No finding depends on a modification time, so they hold as they are; validating the whole
    folder again instead took 60–100 ms at ten thousand files.
    """
    if cache is None:
        return None
    old = cache.snapshot
    if old.files.keys() != snapshot.files.keys():
        return None
    for path, new_file in snapshot.files.items():
        old_file = old.files[path]
        if old_file is not new_file and replace(old_file, mtime=new_file.mtime) != new_file:
            return None
    if replace(old, files=snapshot.files) != snapshot:
        return None
    return replace(cache, snapshot=snapshot)


def full_workspace(root: Path | str, config: BudgetConfig = BudgetConfig()) -> Workspace:
    """Scan and validate the whole root.  A look: the pressure log is sampled by ``memtui
    validate`` and the hooks, never by opening the app, which creates nothing in the folder
    (DESIGN §1.6).

    The root is read through its stat cache, every text read (changes are planned on it, as
    the CLI plans a commit): its files' findings, token sets and staleness facts, and the
    dream's and rebuild's kept whole-root answers (:func:`memtui.core.stores.statcache.cache_of`)
    come from what the last run learnt, as in the CLI."""
    from memtui.core.stores.statcache import load_cached

    snapshot, stat_cache = load_cached(root, config, texts=True)
    workspace = workspace_of(snapshot, tuple(read_pressure(snapshot.root)))
    stat_cache.save()  # what this load learnt, for the next
    return workspace
