"""An agent's append between memtui's last look at a file and the rename that replaces it is
never lost (DESIGN §3 step 6), and the crash sweeps of the changes that rewrite many files at
once — dream, a bulk archive, a promotion across two roots — still end before or after.

The gap (0.1–1.4 ms in real runs) is widened through the writer's fault-injection seam
(:data:`memtui.core.write.fs.disk`): just before the k-th rename of a memory file, a line is
appended to it the way an agent writes (open, append, close).
"""

from __future__ import annotations

import errno
import shutil
from datetime import date
from pathlib import Path
from typing import Any, Callable

import pytest

from memtui.core import write
from memtui.core.dream import plan as dream
from memtui.core.model.journal import list_records
from memtui.core.read.store import load_root
from memtui.core.verbs import lifecycle as verbs
from memtui.core.verbs.bulk import bulk
from memtui.core.verbs.promote import promotion
from memtui.core.write import commit_group, plan_group
from memtui.core.write.fs import disk
from tests.support.roots import copy_demo_to
from tests.support.writer import VALID_ROOT, Crash, Faults, commit_mark, tree

NOW = date(2026, 11, 30)
LINE = b"- appended by the agent between the check and the rename\n"


def make(folder: Path, files: dict[str, str | bytes]) -> Path:
    folder.mkdir(parents=True)
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(text.encode() if isinstance(text, str) else text)
    return folder


class Appender:
    """``disk.replace`` with an agent's append to the target just before the ``at``-th rename
    of a memory file (temp file over a ``.md``); counts those renames."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch, root: Path, at: int | None) -> None:
        self.count, self.at, self.root, self.hit = 0, at, root, ""
        real = disk.replace

        def replace(src: str, dst: str) -> None:
            if dst.endswith(".md") and "/.memtui/" not in dst and Path(src).name.endswith(".tmp"):
                self.count += 1
                if self.count == self.at:
                    with open(dst, "ab") as handle:  # the agent: open, append, close
                        handle.write(LINE)
                    self.hit = str(Path(dst).relative_to(self.root))
            real(src, dst)

        monkeypatch.setattr(disk, "replace", replace)


# ---------------------------------------------------------------- the changes


def _pin(root: Path) -> Any:
    s = load_root(root)
    return write.plan(s, verbs.pin(s, "alpha.md"))


def _archive(root: Path) -> Any:
    s = load_root(root)
    return write.plan(s, bulk(s, "archive", ["alpha.md", "beta.md", "lesson_one.md"]).changeset)


def _dream(root: Path) -> Any:
    found = dream.plan_dream(load_root(root), NOW)
    return dream.preview(found, found.default)


def _undo(root: Path) -> Any:
    return write.undo_plan(load_root(root))


CHANGES: dict[str, tuple[Callable[[Path], Any], str]] = {
    "pin": (_pin, "valid"), "bulk-archive": (_archive, "valid"), "dream": (_dream, "demo"),
    "undo": (_undo, "undo")}


def fresh(kind: str, folder: Path) -> Path:
    if kind == "demo":
        return copy_demo_to(folder)
    root = make(folder, VALID_ROOT)
    if kind == "undo":  # a change to take back: a rebuild rewrites MEMORY.md, archive/… moves
        write.run(load_root(root), verbs.compose(load_root(root), [
            lambda t: verbs.pin(t, "alpha.md"), lambda t: verbs.decay(t, "beta.md")]))
    return root


def renames(name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> int:
    build, kind = CHANGES[name]
    root = fresh(kind, tmp_path / f"probe-{name}")
    counter = Appender(monkeypatch, root, None)
    write.commit(build(root))
    monkeypatch.undo()
    shutil.rmtree(root)  # not a sibling of the trials' roots (a sibling root changes a dream's plan)
    return counter.count


@pytest.mark.parametrize("name", sorted(CHANGES))
def test_an_append_in_the_gap_before_any_rename_survives(
        name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    build, kind = CHANGES[name]
    total = renames(name, tmp_path, monkeypatch)
    assert total >= 1
    for k in range(1, total + 1):
        root = fresh(kind, tmp_path / f"{name}-{k}")
        before = tree(root)
        preview = build(root)
        agent = Appender(monkeypatch, root, k)
        with pytest.raises(write.ChangedOnDisk, match="written by another program"):
            write.commit(preview)  # before: applied, and the appended line gone for good
        monkeypatch.undo()
        after, where = tree(root), f"{name}: append before rename {k} of {total} ({agent.hit})"
        if agent.hit in before:
            assert after == {**before, agent.hit: (before[agent.hit] or b"") + LINE}, where
        else:  # a file this change created and then rewrote: kept as the agent left it
            assert (after.pop(agent.hit) or b"").endswith(LINE), where
            assert after == before, where
        assert [r.state for r in list_records(root)][-1] == "rolled-back"
        shutil.rmtree(root)


def test_an_append_in_the_gap_of_a_promotion_survives_in_both_roots(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for k in (1, 2, 3):
        local = make(tmp_path / f"local-{k}", VALID_ROOT)
        shared = make(tmp_path / f"shared-{k}", {"MEMORY.md": "# Shared\n\n## Recent\n"})
        before = (tree(local), tree(shared))
        source, target = load_root(local), load_root(shared)
        group = plan_group(list(zip((source, target), promotion(source, "alpha.md", target))))
        agent = Appender(monkeypatch, tmp_path, k)
        try:
            commit_group(group)
        except write.ChangedOnDisk:
            pass
        monkeypatch.undo()
        if not agent.hit:
            assert k > 1  # fewer renames than k: nothing appended, the promotion landed
            continue
        where = local if agent.hit.startswith(local.name) else shared
        rel = str(Path(agent.hit).relative_to(where.name))
        expected = dict(before[0] if where == local else before[1])
        expected[rel] = (expected[rel] or b"") + LINE
        assert tree(where) == expected
        other = shared if where == local else local
        assert tree(other) == (before[1] if where == local else before[0])


def test_a_crash_after_the_agent_bytes_are_kept_recovers_them(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The pending record holds the agent's bytes before the rollback starts: a crash in the
    rollback, then recovery, still ends with the appended line."""
    root = make(tmp_path / "root", VALID_ROOT)
    before = tree(root)
    preview = _pin(root)
    agent = Appender(monkeypatch, root, 1)
    from memtui.core.write import rootcommit

    def crash(*args: Any) -> Any:
        raise Crash()

    monkeypatch.setattr(rootcommit, "rollback", crash)
    with pytest.raises(Crash):
        write.commit(preview)
    monkeypatch.undo()
    assert any(r.state == "pending" for r in list_records(root))
    write.recover(root)
    expected = dict(before)
    expected[agent.hit] = (before.get(agent.hit) or b"") + LINE  # a file the change creates, too
    assert tree(root) == expected


# ---------------------------------------------------------------- crash sweeps


@pytest.fixture
def no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skip the fsync system call (every step that calls it still runs and counts)."""
    import os

    monkeypatch.setattr(os, "fsync", lambda fd: None)


SWEPT = {"dream": ("demo", _dream), "bulk-archive": ("valid", _archive)}
TRIALS: dict[str, int] = {}


@pytest.mark.parametrize("name", sorted(SWEPT))
@pytest.mark.parametrize("fault", ["kill", "eio"])
def test_a_fault_at_every_step_ends_before_or_after(
        name: str, fault: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, no_fsync: None) -> None:
    kind, build = SWEPT[name]
    probe = fresh(kind, tmp_path / "probe")
    with monkeypatch.context() as patch:  # the faults only: the run's fixtures stay in force
        counter = Faults(patch)
        write.commit(build(probe))
    steps, after, mark = counter.count, tree(probe), commit_mark(counter.calls)
    # each trial's root alone in its folder, as the probe's was: a sibling root changes what the
    # dream plans (the demo's broken link is repointed at a sibling root holding that name, and
    # the probe's dream creates it)
    shutil.rmtree(probe)
    assert steps >= 6
    for k in range(1, steps + 1):
        root = fresh(kind, tmp_path / f"{k}")
        before = tree(root)
        preview = build(root)
        error: Callable[[], BaseException] = Crash if fault == "kill" else (
            lambda: OSError(errno.EIO, "I/O error"))
        with monkeypatch.context() as patch:
            Faults(patch, fail_at=k, error=error)
            try:
                write.commit(preview)
            except (Crash, write.WriteFailed):
                pass
        write.recover(root)
        state = tree(root)
        assert state in (before, after), f"{name}: {fault} at step {k} of {steps} left a mix"
        assert not any(r.state == "pending" for r in list_records(root))
        if fault == "eio" and k <= mark:
            assert state == before
        shutil.rmtree(root)
    TRIALS[f"{name}-{fault}"] = steps
