"""Staleness through the stat cache: a root's clock-free staleness (:class:`StaleFacts`) kept
whole for the next run, with what it was made from, and used only while all of that holds.

The judgment itself is :mod:`memtui.core.judge.staleness` (plain functions of the snapshot; the
per-file facets it reads keep their own memo, :mod:`memtui.core.judge.facets`).  This module is
its edge: the key of the kept answer (the listing and every stat key, the project, online or
not: :func:`_question`), what it was made from (:data:`Consulted`: the project's identifiers,
the root's git history, the sessions' transcripts, each checked again before the answer is
used), and the entry points a command or the dream calls with a root or its stat cache.
"""

from __future__ import annotations

import time
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Callable, Collection

from ..model.gcpause import gc_paused
from ..model.journal import pending_records
from ..model.snapshot import BudgetConfig, Snapshot
from ..read.project import Project, ProjectCache, find_project
from ..read.project import State as ProjectState
from ..read.store import list_root
from ..stores.statcache import StatCache
from . import ages
from .ages import SessionTimes
from .staleness import FACTS_LENGTH, Facts, Scored, StaleFacts, facts_of, row_json, rows_at, score_root


def stale_facts_cached(snapshot: Snapshot, stat_cache: StatCache, repo: Path | str | None = None,
                       online: bool = False, *, cache: ProjectCache | None = None,
                       reuse: bool = True) -> StaleFacts:
    """The facts of every file of a loaded root, kept whole in the stat cache for the same files
    and project with what they were made from (:data:`Consulted`): used (unless ``reuse`` is
    False: the caller found they no longer hold) only while that still holds.  Never kept when
    URLs were fetched (``online`` and some file has a reference)."""
    with gc_paused():
        cache = cache if cache is not None else ProjectCache()
        project = find_project(snapshot.root, Path(repo) if repo is not None else None)
        digest = stat_cache.loaded_digest(*_question(online, project))
        hit = stat_cache.memo("stale", digest) if reuse else None
        if hit is not None:
            try:
                files, documents = _kept(hit, snapshot.files, snapshot.root, project, cache)
                return StaleFacts(snapshot.root, project, online, files, snapshot.interrupted,
                                  documents)
            except (TypeError, ValueError, KeyError, IndexError):
                pass  # not facts about these files, or what they were made from changed
        logs: list[tuple[object, ...] | None] = []
        index = None if project is None else cache.get(project)
        # identifiers another root of this run read before this cache's clock: the racy rule
        # cannot vouch for them (kept by the next run, which reads them afresh or not at all)
        early = index is not None and index.read_identifiers
        now = datetime.now(timezone.utc)  # any moment: facts do not depend on it
        sessions = SessionTimes(snapshot.root)
        report = score_root(snapshot, now, repo, online, cache=cache, project=project, logs=logs,
                            sessions=sessions)
        facts = [facts_of(r) for r in report.results]
        state = None if index is None or early else index.state(stat_cache.trusted)
        if ((project is None or state is not None) and None not in logs
                and not (online and any(r.references for r in report.results))):
            consulted = (state, logs[0] if logs else None, sessions.state())
            stat_cache.set_memo("stale", digest, (consulted, facts, report.documents))
        return StaleFacts(snapshot.root, project, online, facts, snapshot.interrupted,
                          report.documents)


def scored_cached(snapshot: Snapshot, stat_cache: StatCache, now: datetime | date,
                  repo: Path | str | None = None) -> list[Scored]:
    """``score_root(snapshot, now, repo).results`` (offline, archived files left out) from
    :func:`stale_facts_cached`: the same order, paths, scores, ages, classes, guards, modifiers
    and missing references."""
    return [Scored(row) for row in rows_at(stale_facts_cached(snapshot, stat_cache, repo).files, now)]


#: What kept stale facts were made from besides the memory files: the project's
#: :meth:`~memtui.core.read.project.ProjectIndex.state` (None: no project),
#: :func:`~memtui.core.judge.ages.git_log_state` of the root (None: git's dates were not asked for) and
#: :meth:`~memtui.core.judge.ages.SessionTimes.state` (None: no session's transcript was asked for).
Consulted = tuple["ProjectState | None", "tuple[object, ...] | None", "tuple[object, ...] | None"]
#: the folder's own documents of a root, as kept: (path, what)
Documents = tuple[tuple[str, str], ...]


def _kept(hit: tuple[Consulted, list[Facts], Documents], names: Collection[str], root: Path,
          project: Project | None, cache: ProjectCache) -> tuple[list[Facts], Documents]:
    """Kept facts and documents when what they were made from still holds; a ValueError
    otherwise."""
    (state, log, sessions), files, documents = hit
    files = _checked(files, names)
    if type(documents) is not tuple or any(type(d) is not tuple or len(d) != 2 or d[0] not in names
                                           for d in documents):
        raise ValueError("kept documents name another file")
    if (state is None) != (project is None):
        raise ValueError("kept for another project")
    if log is not None and ages.git_log_state(root) != log:
        raise ValueError("the root's git history moved")
    if sessions is not None and not ages.sessions_hold(root, sessions):
        raise ValueError("the sessions' transcripts changed")
    if project is not None and (state is None or not cache.get(project).holds(state)):
        raise ValueError("the project changed")
    return files, tuple((str(p), str(w)) for p, w in documents)


def stale_facts_root(root: Path | str, config: BudgetConfig, repo: Path | str | None = None,
                     online: bool = False, *, cache: ProjectCache | None = None,
                     clock: Callable[[], int] = time.time_ns) -> StaleFacts:
    """:func:`stale_facts_cached` of a root, without reading it when its kept facts still hold;
    with the root's interrupted changes (pending journal records)."""
    cache = cache if cache is not None else ProjectCache()
    stat_cache = StatCache.open(root, clock)
    listing = list_root(root)
    project = find_project(listing.root, Path(repo) if repo is not None else None)
    hit = stat_cache.memo_unread(listing, config, "stale", _question(online, project))
    if hit is not None:
        try:
            names = {rel for rel, _ in listing.memory}
            files, documents = _kept(hit, names, listing.root, project, cache)
            return StaleFacts(listing.root, project, online, files, pending_records(listing.root),
                              documents)
        except (TypeError, ValueError, KeyError, IndexError):
            pass
    snapshot = stat_cache.load(listing, config)
    facts = stale_facts_cached(snapshot, stat_cache, repo, online, cache=cache,
                               reuse=hit is None)  # checked once is enough
    stat_cache.save()
    return facts


def stale_json_cached(snapshot: Snapshot, stat_cache: StatCache, now: datetime | date,
                      repo: Path | str | None = None, online: bool = False, *,
                      cache: ProjectCache | None = None) -> dict[str, object]:
    """``score_root(...).to_json()`` from :func:`stale_facts_cached`."""
    facts = stale_facts_cached(snapshot, stat_cache, repo, online, cache=cache)
    return facts.header(now) | {"files": [row_json(row) for row in rows_at(facts.files, now)]}


def _question(online: bool, project: Project | None) -> tuple[object, ...]:
    """Everything but the files kept stale facts depend on (part of their memo's key)."""
    return ("stale-facts", online,
            None if project is None else (str(project.path), project.source))


def _checked(kept: list[Facts], names: Collection[str]) -> list[Facts]:
    """Kept facts, each one a file of ``names`` (the listing's memory files: plain relative
    paths inside the root); a ValueError otherwise."""
    if type(kept) is not list:
        raise ValueError("not kept facts")
    for f in kept:
        if type(f) is not tuple or len(f) != FACTS_LENGTH or f[0] not in names:
            raise ValueError("cached staleness names another file")
    return kept
