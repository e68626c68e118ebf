"""The agent's door: what each of ``memtui mcp``'s tools does, in plain Python (no SDK here).

:class:`Door` serves the memory roots it was opened on, and nothing else: a path outside them is
refused before anything is read.  Each root is kept loaded between calls
(:class:`~memtui.core.stores.warm.WarmRoot`: every memory file's stat key checked, what others
changed read and judged with) and has its duplicate index
(:class:`~memtui.core.judge.duplicates.DuplicateIndex`).

Every change is the same verb the CLI and the app run (:mod:`memtui.core.verbs`), built and
gated by :func:`memtui.core.write.attempt` under the root's lock, journaled with the agent as
its author (:class:`~memtui.core.model.journal.Author`: the Claude Code session and the tool
call), so the person's Inbox and ``memtui changes`` list it with its diff and ``memtui undo``
takes it back.  Before its first change to a root the door makes sure memtui has a baseline of
it (:func:`memtui.core.stores.seen.ensure_baseline`), so even that change is news.

A method returns the short text the model reads; a refusal raises :class:`Refusal`, whose text
carries the validator's findings and what to do instead (the server turns it into the SDK's
``ToolError``).  Paths in answers are relative to their root; with several roots each answer
names the root's folder too.  Writes go to a path's own root; ``remember`` goes to the first
root unless it is told another.
"""

from __future__ import annotations

import gc
import os
import threading
from contextlib import contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable, Iterator, Sequence

from memtui.core import write
from memtui.core.judge.duplicates import DuplicateIndex, Near
from memtui.core.judge.search import Folded
from memtui.core.judge.search import search as search_roots
from memtui.core.model.changeset import AlreadyDone, Changeset, ChangesetError, Move, VerbError
from memtui.core.model.journal import Author
from memtui.core.model.snapshot import BudgetConfig, Finding, Snapshot
from memtui.core.read.store import RootError
from memtui.core.rules.budget import Budget, budget_of, entries_past_cut, loaded_index_text
from memtui.core.rules.incremental import FindingsCache
from memtui.core.stores import seen
from memtui.core.stores.warm import WarmRoot
from memtui.core.verbs import lifecycle as verbs
from memtui.core.verbs.merge import merge as merge_verb

#: how long a change waits for another memtui's lock before it says "busy"
LOCK_TIMEOUT = 5.0
#: findings listed in one answer (then a count)
SHOWN_FINDINGS = 12
TYPES = ("user", "feedback", "project", "reference", "value")
#: the frozen heap may grow by this share (cyclic garbage frozen with it) before it is collected
FROZEN_GROWTH = 0.25
#: calls between two looks at the frozen heap's size (a look walks every frozen object)
FROZEN_LOOK = 32


class Refusal(Exception):
    """A call the door refuses: the text says why and what to do instead."""


@dataclass
class _Root:
    path: Path
    warm: WarmRoot
    duplicates: DuplicateIndex
    baseline: bool = False  # memtui's baseline of it is known to exist
    #: the folder did not exist when the door opened (a project whose first note is still to come)
    to_make: bool = False

    @property
    def unmade(self) -> bool:
        """A folder still to be made by the first note (not one that went while served)."""
        return self.to_make and not os.path.lexists(self.path)


class Door:
    """The tools' behaviour over a fixed set of roots (see the module docstring)."""

    def __init__(self, roots: Sequence[Path | str], *, session: str = "",
                 config: BudgetConfig | None = None, lock_timeout: float = LOCK_TIMEOUT,
                 freeze_heap: bool = False) -> None:
        if not roots:
            raise ValueError("a door needs at least one memory root")
        self.config = config if config is not None else BudgetConfig()
        self.roots = [_Root(Path(r).absolute(), WarmRoot(r, self.config), DuplicateIndex(),
                            to_make=not os.path.lexists(r)) for r in roots]
        self.session = session
        self.lock_timeout = lock_timeout
        self._folded = Folded()  # the search's folded bodies, kept while their files are
        self._lock = threading.Lock()  # one call at a time: the SDK runs tools on worker threads
        #: after each call, the objects alive (the warm roots) are frozen out of the cyclic
        #: collector's walks (:func:`gc.freeze`): a process that is only this door, as
        #: ``memtui mcp`` is, then collects what one call leaves, not the 10k files kept
        self.freeze_heap = freeze_heap
        self._frozen = 0  # how many objects were frozen after the last collection of them all
        self._calls = 0  # calls since the frozen heap's size was looked at

    @contextmanager
    def _calling(self) -> Iterator[None]:
        """One call: the door's lock held, and the heap frozen after it (``freeze_heap``)."""
        with self._lock:
            try:
                yield
            finally:
                if self.freeze_heap:
                    self._freeze()

    def _freeze(self) -> None:
        """Freeze what is alive now; once the frozen objects grew by :data:`FROZEN_GROWTH` since
        they were last collected (a reference cycle frozen stays until then; looked at every
        :data:`FROZEN_LOOK` calls), collect them all first."""
        self._calls += 1
        if not self._frozen or (self._calls >= FROZEN_LOOK and self._grown()):
            gc.unfreeze()
            gc.collect()
            gc.freeze()
            self._frozen = max(gc.get_freeze_count(), 1)
            self._calls = 0
        else:
            gc.freeze()

    def _grown(self) -> bool:
        self._calls = 0
        return gc.get_freeze_count() > self._frozen * (1 + FROZEN_GROWTH)

    # ---------------------------------------------------------------- paths

    def _name(self, root: _Root, rel: str) -> str:
        return rel if len(self.roots) == 1 else f"{rel} (in {root.path})"

    def resolve(self, path: str) -> tuple[_Root, str]:
        """The root and root-relative path of ``path``: absolute inside a served root, or
        relative to one (the root that has it; the first when none does)."""
        given = path.strip()
        if not given:
            raise Refusal("give the path of a memory file (e.g. project_deploys.md)")
        if "\0" in given:
            raise Refusal("a path cannot hold a NUL character")
        served = ", ".join(str(r.path) for r in self.roots)
        if os.path.isabs(given) or given.startswith("~"):
            absolute = os.path.normpath(os.path.expanduser(given))
            real = os.path.realpath(absolute)
            for root in self.roots:
                for base in (str(root.path), os.path.realpath(root.path)):
                    for candidate in (absolute, real):
                        if candidate.startswith(base.rstrip(os.sep) + os.sep):
                            return root, os.path.relpath(candidate, base).replace(os.sep, "/")
            raise Refusal(f"{given} is outside the memory folders this server serves ({served}); "
                          "memtui reads and writes only those")
        rel = os.path.normpath(given).replace(os.sep, "/")
        if rel == ".." or rel.startswith("../") or rel == ".":
            raise Refusal(f"{given} leaves the memory folder; give a path inside it ({served})")
        if len(self.roots) == 1:
            return self.roots[0], rel
        having = [r for r in self.roots if os.path.lexists(os.path.join(r.path, rel))]
        if len(having) > 1:
            raise Refusal(f"{rel} is in more than one memory folder ({', '.join(str(r.path) for r in having)}); "
                          "give its absolute path")
        return (having[0] if having else self.roots[0]), rel

    def _root_named(self, name: str | None) -> _Root:
        if not name:
            return self.roots[0]
        for root in self.roots:
            if name in (str(root.path), os.path.realpath(root.path)) or os.path.realpath(
                    os.path.expanduser(name)) == os.path.realpath(root.path):
                return root
        raise Refusal(f"{name} is not a memory folder this server serves "
                      f"({', '.join(str(r.path) for r in self.roots)})")

    def _now(self, root: _Root) -> Snapshot:
        return self._warm(root)[0]

    def _warm(self, root: _Root) -> tuple[Snapshot, FindingsCache]:
        if root.unmade:
            raise Refusal(f"{root.path} holds no memory yet (the folder does not exist); "
                          "memory_remember writes the first note and MEMORY.md")
        try:
            return root.warm.now()
        except RootError as exc:
            raise Refusal(f"the memory folder cannot be read: {exc}") from None

    # ---------------------------------------------------------------- reads

    def search(self, query: str, limit: int = 10) -> str:
        """Ranked hits for ``query`` over every served root."""
        with self._calling():
            if not query.strip():
                raise Refusal("give a few words to search for")
            limit = max(1, min(int(limit), 50))
            snapshots = [self._now(r) for r in self.roots if not r.unmade]
            if not snapshots:
                raise Refusal("no memory yet: memory_remember writes the first note and MEMORY.md")
            hits = search_roots(query, snapshots, limit, folded=self._folded)
            total = sum(len(s.files) for s in snapshots)
            if not hits:
                return (f"no note holds every word of {query!r} ({total:,} notes searched). "
                        "Try fewer or other words; memory_loaded lists what loads.")
            out = [f"{len(hits)} note{'s match' if len(hits) != 1 else ' matches'} {query!r} "
                   f"({total:,} searched):"]
            by_root = {str(r.path): r for r in self.roots}
            for n, hit in enumerate(hits, start=1):
                name = self._name(by_root[hit.root], hit.path)
                hook = f" — {hit.hook}" if hit.hook else ""
                out.append(f"{n}. {name}: {hit.title}{hook} [{hit.standing}]")
                if hit.why:
                    out.append(f"   matched {'; '.join(hit.why)}")
            out.append("Read one with memory_read(path).")
            return "\n".join(out)

    def read(self, path: str) -> str:
        """A memory file's text, after one line saying where it stands."""
        with self._calling():
            root, rel = self.resolve(path)
            snapshot = self._now(root)
            f = snapshot.files.get(rel)
            if f is None:
                names = sorted(p for p in snapshot.files if p.rsplit("/", 1)[-1] == rel.rsplit("/", 1)[-1])
                hint = f"; did you mean {', '.join(names[:3])}?" if names else \
                    "; memory_search finds notes by their words"
                if rel in (snapshot.index.path, snapshot.archive_index.path) and (
                        snapshot.index.exists or snapshot.archive_index.exists):
                    index = snapshot.index if rel == snapshot.index.path else snapshot.archive_index
                    return f"{self._name(root, rel)} ({len(index.lines)} lines):\n" + index.render().decode(
                        "utf-8", errors="replace")
                raise Refusal(f"no memory file {self._name(root, rel)}{hint}")
            from memtui.core.judge.search import _Standing

            place, hook = _Standing(snapshot).of(f)
            head = f"{self._name(root, rel)} ({f.size:,} bytes; {place}"
            head += f"; its entry: {hook})" if hook else ")"
            return head + "\n" + f.text

    def loaded(self, show_text: bool = False) -> str:
        """What loads at session start from each root's MEMORY.md, and where it cuts."""
        with self._calling():
            out = []
            for root in self.roots:
                label = "MEMORY.md" if len(self.roots) == 1 else f"{root.path}/MEMORY.md"
                if root.unmade:
                    out.append(f"{label}: no memory folder yet — nothing loads at session start; "
                               "memory_remember writes the first note")
                    continue
                snapshot = self._now(root)
                if not snapshot.index.exists:
                    out.append(f"{label}: missing — nothing loads at session start")
                    continue
                budget = budget_of(snapshot)
                out.append(f"{label}: {_size(budget)}.")
                if budget.cut_line is None:
                    out.append("Everything in it loads at session start.")
                else:
                    past = [ln for ln in entries_past_cut(snapshot.index, budget)]
                    out.append(f"The loader cuts it at {budget.cut_where()}: {len(past)} entr"
                               f"{'y' if len(past) == 1 else 'ies'} past the cut never load"
                               + (":" if past else "."))
                    out += [f"  - line {ln.number}: {ln.raw.strip()[:160]}" for ln in past[:SHOWN_FINDINGS]]
                    if len(past) > SHOWN_FINDINGS:
                        out.append(f"  … and {len(past) - SHOWN_FINDINGS} more")
                regions, entries = len(snapshot.index.regions), len(snapshot.index.entries)
                out.append(f"{entries} entr{'y' if entries == 1 else 'ies'} and {regions} region "
                           f"pointer{'s' * (regions != 1)} for {len(snapshot.files):,} "
                           f"note{'s' * (len(snapshot.files) != 1)}.")
                if show_text:
                    out.append("--- the text that loads ---")
                    out.append(loaded_index_text(snapshot.index, snapshot.config))
            return "\n".join(out)

    def validate(self) -> str:
        """The validator's findings for every root."""
        with self._calling():
            out = []
            for root in self.roots:
                snapshot, found = self._warm(root)
                findings = list(found.findings)
                label = "" if len(self.roots) == 1 else f"{root.path}: "
                errors = [f for f in findings if f.severity == "error"]
                warnings = [f for f in findings if f.severity != "error"]
                budget = budget_of(snapshot)
                out.append(f"{label}{len(errors)} error{'s' * (len(errors) != 1)}, {len(warnings)} "
                           f"warning{'s' * (len(warnings) != 1)}; MEMORY.md {_size(budget)}.")
                out += [f"- {_finding(f)}" for f in (errors + warnings)[:SHOWN_FINDINGS]]
                if len(findings) > SHOWN_FINDINGS:
                    out.append(f"… and {len(findings) - SHOWN_FINDINGS} more (the person sees all of "
                               "them with `memtui validate`)")
            return "\n".join(out)

    # ---------------------------------------------------------------- changes

    def remember(self, title: str, body: str, type_: str = "project", hook: str | None = None,
                 root: str | None = None, *, tool_use: str = "") -> str:
        """A new topic file with its index entry — unless a note on the same thing exists."""
        with self._calling():
            target = self._root_named(root)
            kind = (type_ or "project").strip().lower()
            if kind not in TYPES:
                raise Refusal(f"type {type_!r} is not one of {', '.join(TYPES)}: user (who the person "
                              "is), feedback (how to work), project (facts of this work), reference "
                              "(where things are), value")
            if not title.strip():
                raise Refusal("give the note a title (a few words saying what it holds)")
            if target.unmade:  # a project's first note: its folder, as Claude Code makes it
                try:
                    write.make_root(target.path)
                except OSError as exc:
                    raise Refusal(f"{target.path} cannot be made: {write.describe_os_error(exc)}") from None
            snapshot = self._now(target)
            target.duplicates.follow(snapshot)
            near = target.duplicates.near(title, body, kind, hook or "")
            if near:
                raise Refusal(_duplicate_text(self, target, near))

            def build(s: Snapshot) -> Changeset:
                return verbs.remember(s, title, body, kind, hook or "")

            applied = self._change(target, build, "memory_remember", tool_use, snapshot)
            path = next(op.path for op in applied.preview.changeset.ops if not isinstance(op, Move)
                        and op.path != applied.snapshot.index.path)
            entry = next((ln.raw.strip() for ln in applied.snapshot.index.entries if ln.resolved == path), "")
            return (f"Remembered as {self._name(target, path)}, with its entry in MEMORY.md: {entry}\n"
                    f"MEMORY.md is now {_size(budget_of(applied.snapshot))}." + _warnings(applied))

    def update(self, path: str, body: str | None = None, hook: str | None = None, *,
               tool_use: str = "") -> str:
        """A note's new body and/or its entry's new hook."""
        with self._calling():
            root, rel = self.resolve(path)
            applied = self._change(root, lambda s: verbs.update(s, rel, body, hook), "memory_update", tool_use)
            return f"Updated {self._name(root, rel)}: {applied.preview.changeset.description}." + _warnings(applied)

    def supersede(self, old: str, new: str, *, tool_use: str = "") -> str:
        """Mark ``old`` obsolete in favour of ``new``."""
        with self._calling():
            root, old_rel = self.resolve(old)
            root_new, new_rel = self.resolve(new)
            if root_new is not root:
                raise Refusal("both notes must be in the same memory folder; remember the successor "
                              "there first (memory_remember), then supersede")
            applied = self._change(root, lambda s: verbs.supersede(s, old_rel, new_rel), "memory_supersede",
                                   tool_use)
            return (f"{self._name(root, old_rel)} is superseded by {new_rel}: it left the working set and "
                    f"stays reachable (status: superseded)." + _warnings(applied))

    def archive(self, path: str, *, tool_use: str = "") -> str:
        """Move a note into ``archive/`` (its entry goes to the archive index)."""
        with self._calling():
            root, rel = self.resolve(path)
            applied = self._change(root, lambda s: verbs.archive(s, rel), "memory_archive", tool_use)
            return f"Archived: {applied.preview.changeset.description.removeprefix('archive ')}." + _warnings(applied)

    def restore(self, path: str, *, tool_use: str = "") -> str:
        """Move an archived note back, with an entry in Recent."""
        with self._calling():
            root, rel = self.resolve(path)
            applied = self._change(root, lambda s: verbs.restore(s, rel), "memory_restore", tool_use)
            return f"Restored: {applied.preview.changeset.description.removeprefix('restore ')}." + _warnings(applied)

    def merge(self, paths: Sequence[str], title: str | None = None, body: str | None = None, *,
              tool_use: str = "") -> str:
        """Fold notes into one gist; the sources move to ``archive/``."""
        with self._calling():
            resolved = [self.resolve(p) for p in paths]
            if len({rel for _, rel in resolved}) < 2:
                raise Refusal("give two or more different notes to merge")
            root = resolved[0][0]
            if any(r is not root for r, _ in resolved):
                raise Refusal("the notes to merge must be in the same memory folder")
            rels = [rel for _, rel in resolved]
            applied = self._change(root, lambda s: merge_verb(s, rels, body=body, title=title),
                                   "memory_merge", tool_use)
            return f"Merged: {applied.preview.changeset.description.removeprefix('merge ')}." + _warnings(applied)

    def _author(self, tool: str, tool_use: str) -> Author:
        return Author(session=self.session, tool=tool, tool_use=tool_use)

    def _change(self, root: _Root, build: Callable[[Snapshot], Changeset], tool: str,
                tool_use: str, fresh: Snapshot | None = None) -> write.Applied:
        """Build, gate and commit one change as the agent's; :class:`Refusal` says why not.
        ``fresh``: the root as this call already looked at it."""
        if fresh is None:
            fresh = self._now(root)  # others' changes seen: what this call's change is built on
        if not root.baseline:
            try:
                seen.ensure_baseline(fresh)
                root.baseline = True
            except Exception:  # noqa: BLE001 - the Inbox seeds its own at the person's first look
                pass
        author = self._author(tool, tool_use)
        loads = [fresh]

        def load(path: Path, config: BudgetConfig) -> Snapshot:
            """This call's snapshot first; looked at again when the change is planned once more
            (another memtui committed while this one waited for the lock)."""
            return loads.pop() if loads else root.warm.now()[0]

        def planner(snapshot: Snapshot) -> write.Preview:
            changeset = replace(build(snapshot), by=author)
            return write.plan(snapshot, changeset, root.warm.findings_for(snapshot))

        try:
            outcome = write.attempt(root.path, planner, config=self.config, load=load,
                                    timeout=self.lock_timeout)
        except AlreadyDone as exc:
            raise Refusal(f"nothing to do: {exc}") from None
        except VerbError as exc:
            raise Refusal(str(exc)) from None
        except write.Busy as exc:
            raise Refusal(f"busy: {exc}. Nothing was changed; call again in a moment.") from None
        except write.ChangedOnDisk as exc:
            root.warm.forget()
            raise Refusal(f"changed on disk: {exc}. Nothing was changed and nothing was lost; read "
                          "the note again (memory_read) and call again.") from None
        except (write.TxnError, ChangesetError, RootError) as exc:
            root.warm.forget()
            raise Refusal(f"not changed: {exc}") from None
        if not outcome.accepted or outcome.applied is None:
            raise Refusal(_refusal_text(outcome.preview))
        applied = outcome.applied
        changeset = applied.preview.changeset
        touched = list(changeset.paths)
        root.warm.committed(applied.snapshot, applied.cache, touched)
        return applied


# ---------------------------------------------------------------- words


def _size(budget: Budget) -> str:
    return (f"{budget.lines} of {budget.max_lines} lines, {budget.bytes:,} of {budget.max_bytes:,} "
            f"{budget.unit} ({budget.utilization:.0%})")


def _finding(f: Finding) -> str:
    where = f"{f.path}:{f.line}" if f.line else f.path
    return f"{f.severity} {f.rule} {where} — {f.message}"


def _warnings(applied: write.Applied) -> str:
    found = [f for f in applied.preview.new_findings if f.severity != "error"]
    if not found:
        return ""
    return "\nIt added " + "; ".join(_finding(f) for f in found[:SHOWN_FINDINGS])


BUDGET_ADVICE = ("Make room first: archive a note that no longer holds (memory_archive), supersede "
                 "one by a newer note (memory_supersede), merge near-duplicates (memory_merge), or "
                 "shorten long hooks (memory_update with hook=…); or add this to an existing note "
                 "with memory_update instead of a new entry.")


def _refusal_text(preview: write.Preview) -> str:
    """Why the gate refused, and what to do instead."""
    lines = write.refusal_lines(preview.gate)
    said = [f"refused by memtui's validator — {preview.changeset.description}; nothing was written:"]
    said += [f"- {line}" for line in lines[:SHOWN_FINDINGS]]
    if len(lines) > SHOWN_FINDINGS:
        said.append(f"- … and {len(lines) - SHOWN_FINDINGS} more")
    rules = {line.rule for line in lines}
    if rules & {"budget", "budget-lines", "budget-bytes"} or preview.gate.reason:
        said.append(BUDGET_ADVICE)
    elif rules & {"broken-link", "provenance-dangling"}:
        said.append("Name notes that exist (memory_search finds them).")
    elif rules & {"erased-text"}:
        said.append("memtui never drops a line of an index; move it with the verbs instead.")
    elif rules & {"orphan"}:
        said.append("Every note needs a way in from MEMORY.md; remember it with memory_remember, "
                    "which writes its entry.")
    return "\n".join(said)


def _duplicate_text(door: Door, root: _Root, near: list[Near]) -> str:
    first = near[0]
    name = door._name(root, first.path)
    said = [f"not remembered: {name} ('{first.title}') already holds this "
            f"({_how(first)}). Update {first.path} instead (memory_update with the new body), "
            "or supersede it with memory_supersede if the new note replaces it."]
    for other in near[1:]:
        said.append(f"Also close: {door._name(root, other.path)} ('{other.title}', {_how(other)}).")
    said.append("If it is a different fact, say in the title and the text what differs.")
    return " ".join(said)


def _how(near: Near) -> str:
    if near.kind == "contained":
        side = "holds most of its words" if near.larger == "existing" else "is mostly in the new text"
        return f"it {side}; overlap {near.score:.0%}"
    return f"{near.score:.0%} of the words shared, {near.similarity:.0%} alike"
