"""Applicability (DESIGN §11): which memories of a root apply to the work done at one path.

Pure: it reads a snapshot and the staleness verdicts the caller computed, never the disk.  The
rules, most specific first:

- an entry under a ``## PATH_SCOPE`` whose ``Scope:`` is PATH or an ancestor of PATH applies; when
  several scopes match, the deeper one is listed first;
- a scope *below* PATH (PATH is an umbrella folder over several projects) does not apply unless
  asked for (``include_below``); a scope beside PATH (a sibling) never applies;
- ``## GLOBAL`` entries apply everywhere, and so does memory outside any PATH_SCOPE section (a
  root that does not use the governance dialect is global as a whole); they are listed after the
  scoped ones;
- archived (in ``archive/``, ``status: archived`` or listed only in the archive index),
  superseded (``status: superseded`` or ``superseded_by``) and stale (staleness action *prune*)
  files never apply, whatever their scope, and are listed apart with the reason.

A file's scope is the PATH_SCOPE section of its first active entry; a file with no active entry
takes the scope whose ``Memory base:`` holds it (the deepest base), else it is unscoped.  Paths are
compared component by component after ``~`` expansion and normalisation (no symlink resolution:
the caller passes the path as the user means it).  ``SCOPE.md`` files are layout, not memories,
and are left out.
"""

from __future__ import annotations

import os
import posixpath
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import TYPE_CHECKING, Mapping

from ..model.snapshot import ARCHIVE_DIR, SCOPE_FILE, LineKind, MemoryFile, ScopeSection, Snapshot

if TYPE_CHECKING:
    from .staleness import StalenessReport

GLOBAL = "GLOBAL"

# why a file does not apply, as a short code (the app and JSON carry it beside the words)
ARCHIVED, SUPERSEDED, STALE = "archived", "superseded", "stale"
BELOW, SIBLING, NO_SCOPE_PATH = "below", "sibling", "no-scope-path"


@dataclass(frozen=True)
class Applies:
    """A memory file that applies at the path, with the scope that brings it in and why."""

    path: str
    scope: str | None  # the PATH_SCOPE name, ``GLOBAL``, or None for memory outside any section
    why: str
    depth: int = -1  # components of the matching scope path (-1 for global)

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "scope": self.scope, "why": self.why}


@dataclass(frozen=True)
class Excluded:
    """A memory file that does not apply at the path, and why (``reason`` is a short code)."""

    path: str
    why: str
    reason: str
    scope: str | None = None

    def to_json(self) -> dict[str, object]:
        return {"path": self.path, "why": self.why, "reason": self.reason, "scope": self.scope}


@dataclass(frozen=True)
class Applicability:
    """The answer for one root and one path: what applies (most specific first), what does not."""

    path: str
    root: str
    applies: tuple[Applies, ...]
    excluded: tuple[Excluded, ...]
    _why: dict[str, str] = field(default_factory=dict, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        self._why.update((e.path, e.why) for e in self.excluded)

    def excluded_reason(self, path: str) -> str | None:
        """Why ``path`` does not apply (the words), or None when it applies or is unknown."""
        return self._why.get(path)

    def to_json(self) -> dict[str, object]:
        return {
            "path": self.path,
            "root": self.root,
            "applies": [a.to_json() for a in self.applies],
            "excluded": [e.to_json() for e in self.excluded],
        }


def normalize(path: str, home: str | None = None) -> str:
    """An absolute, normalised posix path (``~`` expanded against ``home``); '' when relative."""
    value = path.strip().replace("\\", "/")
    if value == "~" or value.startswith("~/"):
        base = home if home is not None else os.path.expanduser("~")
        value = base.rstrip("/") + value[1:]
    if not value.startswith("/"):
        return ""
    return posixpath.normpath(value).replace("//", "/")


def relation(scope_path: str, path: str) -> str:
    """How a scope's path relates to PATH: ``same``, ``above``, ``below`` or ``sibling``."""
    scope_parts, parts = PurePosixPath(scope_path).parts, PurePosixPath(path).parts
    if scope_parts == parts:
        return "same"
    if parts[: len(scope_parts)] == scope_parts:
        return "above"
    if scope_parts[: len(parts)] == parts:
        return "below"
    return "sibling"


def _scope_of(snapshot: Snapshot, f: MemoryFile, first_entry: Mapping[str, tuple[int, str, str]],
              scopes: Mapping[str, ScopeSection]) -> tuple[ScopeSection | None, bool]:
    """The file's PATH_SCOPE section (or None) and whether it sits under ``## GLOBAL``."""
    entry = first_entry.get(f.path)
    if entry is not None:
        _, section, scope = entry
        if scope:
            return scopes.get(scope), False
        return None, section.strip().upper() == GLOBAL
    bases = sorted((s for s in snapshot.index.scopes if s.memory_base
                    and f.path.startswith(s.memory_base)), key=lambda s: -len(s.memory_base))
    if bases:
        return bases[0], False
    return None, f.path.startswith("global/")


def _not_current(snapshot: Snapshot, f: MemoryFile, active: bool, archive_listed: bool,
                 stale: Mapping[str, str]) -> tuple[str, str] | None:
    """(reason code, words) when a file is archived, superseded or stale, else None."""
    if f.path.startswith(ARCHIVE_DIR + "/"):
        return ARCHIVED, "archived: it lives in archive/"
    if f.status == "archived":
        return ARCHIVED, "archived: status: archived"
    if archive_listed and not active:
        return ARCHIVED, f"archived: listed in {snapshot.archive_index.path}"
    successors = f.frontmatter.names("superseded_by")
    if successors:
        return SUPERSEDED, f"superseded by {', '.join(successors)}"
    if f.status == "superseded":
        return SUPERSEDED, "superseded: status: superseded"
    if f.path in stale:
        return STALE, stale[f.path]
    return None


def stale_reasons(report: StalenessReport | None) -> dict[str, str]:
    """The files a staleness report says to prune, with the words saying why (for ``stale``)."""
    if report is None:
        return {}
    return {r.path: f"stale: score {r.score:.0f} (prune), {r.age.days:.0f} days old"
            for r in report.results if r.action.value == "prune"}


def applicability(snapshot: Snapshot, path: str, stale: Mapping[str, str] | None = None, *,
                  include_below: bool = False, home: str | None = None) -> Applicability:
    """Which memory files of ``snapshot`` apply at the absolute ``path`` (DESIGN §11).

    ``stale`` maps a file to the words saying why it is stale (the files whose staleness action
    is *prune*); ``include_below`` makes scopes below ``path`` apply too (umbrella work).
    """
    stale = stale or {}
    where = normalize(path, home)
    if not where:
        raise ValueError(f"'{path}' is not an absolute path")
    first_entry: dict[str, tuple[int, str, str]] = {}
    for line in snapshot.index.lines:
        if line.kind is LineKind.ENTRY and line.resolved is not None:
            first_entry.setdefault(line.resolved, (line.number, line.section, line.scope))
    structural = {f"{s.memory_base}{SCOPE_FILE}" for s in snapshot.index.scopes}
    scopes = {scope.name: scope for scope in snapshot.index.scopes}
    archive_listed = {line.resolved for line in snapshot.archive_index.entries}
    scoped: list[tuple[int, int, str, Applies]] = []
    unscoped: list[tuple[int, str, Applies]] = []
    excluded: list[Excluded] = []
    for f in snapshot.files.values():
        if f.path in structural:
            continue
        order = first_entry[f.path][0] if f.path in first_entry else 1 << 30
        scope, is_global = _scope_of(snapshot, f, first_entry, scopes)
        name = scope.name if scope is not None else (GLOBAL if is_global else None)
        gone = _not_current(snapshot, f, f.path in first_entry,
                            f.path in archive_listed, stale)
        if gone is not None:
            excluded.append(Excluded(f.path, gone[1], gone[0], name))
            continue
        if scope is None:
            why = "GLOBAL: applies everywhere" if is_global else \
                "outside every PATH_SCOPE section: applies everywhere"
            unscoped.append((order, f.path, Applies(f.path, name, why)))
            continue
        scope_path = normalize(scope.scope_path, home)
        if not scope_path:
            what = f"'{scope.scope_path}' is not an absolute path" if scope.scope_path \
                else "has no Scope: line"
            excluded.append(Excluded(f.path, f"PATH_SCOPE '{scope.name}' {what}",
                                     NO_SCOPE_PATH, name))
            continue
        kind = relation(scope_path, where)
        depth = len(PurePosixPath(scope_path).parts)
        if kind == "same":
            scoped.append((-depth, order, f.path,
                           Applies(f.path, name, f"scope {scope_path} is this path", depth)))
        elif kind == "above":
            scoped.append((-depth, order, f.path, Applies(
                f.path, name, f"scope {scope_path} holds this path", depth)))
        elif kind == "below" and include_below:
            scoped.append((depth, order, f.path, Applies(
                f.path, name, f"scope {scope_path} lies below this path (umbrella, included)",
                depth)))
        elif kind == "below":
            excluded.append(Excluded(
                f.path, f"scope {scope_path} lies below this path (an umbrella folder); "
                "scopes below apply only when asked for", BELOW, name))
        else:
            excluded.append(Excluded(
                f.path, f"scope {scope_path} is elsewhere (not this path or above it)",
                SIBLING, name))
    scoped.sort(key=lambda item: item[:3])
    unscoped.sort(key=lambda item: item[:2])
    applies = tuple(item[3] for item in scoped) + tuple(item[2] for item in unscoped)
    return Applicability(where, str(snapshot.root), applies, tuple(excluded))
