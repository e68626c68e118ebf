"""The same lesson in many projects (DESIGN §14): find it, and promote one copy to the user layer
with the other copies archived — one change across every root it touches, one undo.

:func:`relearned_notes` runs the consolidation scan across roots
(:func:`memtui.core.judge.layers.cross_layer_duplicates`, its scoring unchanged) and keeps the
pairs whose two roots belong to different projects (two layers of one project are the list's
"kept in two layers", not a lesson re-learned); the pairs form groups by connected components.
Only lessons and preferences travel (type ``feedback``, ``user`` or ``reference``, or a name
starting ``feedback``): a ``project`` note is about its project.  A group is proposed when it
spans at least two projects with one copy in each (two near-copies inside one root are that
root's own merge); the copy kept is the newest (then the longest), the others are archived.

:func:`relearned_change` builds the change through the promote verb
(:func:`memtui.core.verbs.promote.promotion`): the kept copy moves to the user layer with
``promoted_from:`` and a forwarding archive entry in its root; every other copy moves into its
root's ``archive/`` with the same forwarding entry (:func:`~memtui.core.verbs.promote.forwarded`)
pointing at the user layer's copy.  :func:`memtui.core.write.plan_group` gates every root's half
and :func:`memtui.core.write.commit_group` writes them as one change (one journal record per root,
one group; ``memtui undo`` on any of them takes it back in all); :func:`relearned_changes` does
the same for several notes at once, each root's changesets joined into one.

:func:`scan_machine` is the whole pass over this machine (every root
:func:`memtui.core.roots.machine.machine_roots` finds, read through its stat cache), the one both
``memtui scan --all`` and the app's review run.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from datetime import date
from pathlib import Path

from ..judge.layers import cross_layer_duplicates, layer_of, project_of
from ..model.changeset import Changeset, VerbError, apply_to_snapshot
from ..model.snapshot import ARCHIVE_DIR, INDEX_NAME, BudgetConfig, MemoryFile, Snapshot
from ..read.store import RootError
from ..roots.machine import machine_roots, user_layer
from ..stores.statcache import load_cached
from .lifecycle import hook_for
from .promote import forwarded, promotion

#: the types of note that apply beyond their project
TRAVELLING_TYPES = frozenset({"feedback", "user", "reference"})


@dataclass(frozen=True)
class Copy:
    """One copy of a re-learned note: its root, its path, its title and project."""

    root: Path
    path: str
    title: str
    project: str

    def to_json(self) -> dict[str, object]:
        return {"root": str(self.root), "path": self.path, "title": self.title,
                "project": self.project}


@dataclass(frozen=True)
class Relearned:
    """A note found again in several projects: ``copies[0]`` is the one kept."""

    copies: tuple[Copy, ...]
    score: float  # the best pair's overlap (the consolidation scan's)
    similarity: float

    @property
    def kept(self) -> Copy:
        return self.copies[0]

    @property
    def retired(self) -> tuple[Copy, ...]:
        return self.copies[1:]

    def to_json(self) -> dict[str, object]:
        return {"kept": self.kept.to_json(), "retired": [c.to_json() for c in self.retired],
                "score": round(self.score, 4), "similarity": round(self.similarity, 4)}


def travels(f: MemoryFile) -> bool:
    """Whether a note is a lesson or preference that applies beyond its project."""
    return (f.type in TRAVELLING_TYPES or f.name.lower().startswith("feedback")) and not f.archived \
        and not f.path.startswith(ARCHIVE_DIR + "/")


def _project_key(root: Path) -> str:
    found = project_of(root)
    return str(found) if found is not None else os.path.realpath(root)


def relearned_notes(snapshots: Sequence[Snapshot], *, user_layer: Path | str | None = None,
                    threshold: float | None = None) -> list[Relearned]:
    """The notes re-learned in several projects among these roots, best pairs first (the user
    layer's own root, when among them, is left out: what it holds is promoted already)."""
    user_real = os.path.realpath(user_layer) if user_layer is not None else None
    kept = [s for s in snapshots if os.path.realpath(s.root) != user_real]
    trimmed = [_only_travelling(s) for s in kept]
    by_root = {os.path.realpath(s.root): s for s in kept}
    projects = {real: _project_key(Path(s.root)) for real, s in by_root.items()}
    parent: dict[tuple[str, str], tuple[str, str]] = {}
    best: dict[tuple[str, str], tuple[float, float]] = {}

    def find(node: tuple[str, str]) -> tuple[str, str]:
        while parent.setdefault(node, node) != node:
            parent[node] = parent[parent[node]]
            node = parent[node]
        return node

    for pair in cross_layer_duplicates(trimmed, threshold):
        a = (os.path.realpath(pair.root_a), pair.a)
        b = (os.path.realpath(pair.root_b), pair.b)
        if projects.get(a[0]) == projects.get(b[0]):
            continue  # two layers of one project
        ra, rb = find(a), find(b)
        parent[ra] = rb
        for node in (a, b):
            best[node] = max(best.get(node, (0.0, 0.0)), (pair.score, pair.similarity))
    groups: dict[tuple[str, str], list[tuple[str, str]]] = {}
    for node in parent:
        groups.setdefault(find(node), []).append(node)
    out = []
    for nodes in groups.values():
        roots = [real for real, _ in nodes]
        if len(set(roots)) != len(roots) or len({projects[r] for r in roots}) < 2:
            continue  # two copies in one root, or one project only
        copies = sorted(nodes, key=lambda n: (-by_root[n[0]].files[n[1]].mtime,
                                              -by_root[n[0]].files[n[1]].size, n))
        score, similarity = max(best[n] for n in nodes)
        out.append(Relearned(tuple(Copy(Path(by_root[real].root), path, by_root[real].files[path].title,
                                        projects[real]) for real, path in copies), score, similarity))
    return sorted(out, key=lambda r: (-r.similarity, -len(r.copies), str(r.kept.root), r.kept.path))


def _only_travelling(snapshot: Snapshot) -> Snapshot:
    return replace(snapshot, files={p: f for p, f in snapshot.files.items() if travels(f)})


def relearned_change(found: Relearned, snapshots: Sequence[Snapshot], user_layer: Snapshot, *,
                     today: date | None = None) -> list[tuple[Snapshot, Changeset]]:
    """Every root's snapshot and changeset for one re-learned note: the kept copy promoted into
    ``user_layer``, each other copy archived with an entry pointing at it (what
    :func:`memtui.core.write.plan_group` takes)."""
    today = today or date.today()
    by_root = {os.path.realpath(s.root): s for s in snapshots}
    try:
        source = by_root[os.path.realpath(found.kept.root)]
    except KeyError:
        raise VerbError(f"{found.kept.root} is not among the roots read") from None
    out_of, into = promotion(source, found.kept.path, user_layer, today=today)
    new_home = Path(user_layer.root).absolute() / found.kept.path
    layer = "user" if layer_of(user_layer.root) == "other" else layer_of(user_layer.root)
    parts = [(source, out_of), (user_layer, into)]
    for copy in found.retired:
        snapshot = by_root.get(os.path.realpath(copy.root))
        if snapshot is None or copy.path not in snapshot.files:
            raise VerbError(f"no memory file '{copy.path}' in {copy.root}")
        hook = hook_for(snapshot, snapshot.files[copy.path])
        parts.append((snapshot, forwarded(snapshot, copy.path, new_home, layer, hook, today,
                                          out_of.description + f" (its copy in {copy.root} archived)")))
    return parts


def relearned_changes(found: Sequence[Relearned], snapshots: Sequence[Snapshot], user_layer: Snapshot, *,
                      today: date | None = None) -> list[tuple[Snapshot, Changeset]]:
    """:func:`relearned_change` for several notes as one change: each note built on the roots as
    the notes before it leave them, every root's changesets joined into one (each root once, in
    the order first touched, paired with the snapshot it was read as)."""
    if not found:
        raise VerbError("nothing to do: no note chosen")
    today = today or date.today()
    read = {os.path.realpath(s.root): s for s in [*snapshots, user_layer]}
    now = dict(read)  # each root as the notes so far leave it
    total: dict[str, Changeset] = {}
    layer_key = os.path.realpath(user_layer.root)
    for note in found:
        others = [s for key, s in now.items() if key != layer_key]
        for snapshot, changeset in relearned_change(note, others, now[layer_key], today=today):
            key = os.path.realpath(snapshot.root)
            total[key] = changeset if key not in total else total[key].then(changeset)
            now[key] = apply_to_snapshot(snapshot, changeset.ops).snapshot
    return [(read[key], changeset) for key, changeset in total.items()]


@dataclass(frozen=True)
class MachineScan:
    """What :func:`scan_machine` found: the roots read, the user layer, the notes re-learned, and
    the roots that could not be read (each with why)."""

    snapshots: tuple[Snapshot, ...]
    user_layer: Path
    notes: tuple[Relearned, ...]
    unreadable: tuple[tuple[Path, str], ...] = ()

    @property
    def layer_ready(self) -> bool:
        """Whether the user layer is a memory root already (holds its index)."""
        return (self.user_layer / INDEX_NAME).is_file()


def scan_machine(config: BudgetConfig = BudgetConfig(), threshold: float | None = None, *,
                 progress: Callable[[int, int], None] | None = None,
                 cancelled: Callable[[], bool] | None = None) -> MachineScan:
    """Every root on this machine read (through its stat cache, saved) and the notes re-learned
    among them.  ``progress(done, total)`` is called before the first root and after each;
    ``cancelled()`` true stops the reading early (the notes are then of the roots read).  A
    config whose ``"roots"`` is not JSON raises ValueError."""
    found = machine_roots()
    layer = user_layer()
    snapshots: list[Snapshot] = []
    unreadable: list[tuple[Path, str]] = []
    for done, root in enumerate(found):
        if progress is not None:
            progress(done, len(found))
        if cancelled is not None and cancelled():
            break
        try:
            snapshot, cache = load_cached(root.path, config)
        except (RootError, OSError) as exc:
            unreadable.append((root.path, str(exc)))
            continue
        cache.save()
        snapshots.append(snapshot)
    else:
        if progress is not None:
            progress(len(found), len(found))
    notes = relearned_notes(snapshots, user_layer=layer, threshold=threshold)
    return MachineScan(tuple(snapshots), layer, tuple(notes), tuple(unreadable))
