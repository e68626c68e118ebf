"""Kept staleness facts of a root with a project: a warm run equals a cold run and a run without
the cache, whatever happened to the project in between (files added, removed, renamed, rewritten
in place at the same size, commits, branches, checkouts)."""

from __future__ import annotations

import os
import subprocess
import time
from datetime import date
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from memtui.core.judge.stalecache import stale_facts_root
from memtui.core.judge.staleness import row_json, rows_at, score_root
from memtui.core.model.snapshot import BudgetConfig
from memtui.core.read.project import ProjectIndex, find_project
from memtui.core.read.store import load_root
from memtui.core.stores.statcache import StatCache
from tests.support.roots import topic

NOW = date(2026, 11, 30)
HOUR_NS = 3600 * 10**9
GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}
#: source files of one size, each defining other names (a rewrite of one by another is same-size)
SOURCES = ("def fooBar(): return barQux\n", "def fooBaz(): return barQux\n",
           "def fooBar(): return bazQux\n")
MEMORY = {
    "MEMORY.md": "# Memory\n\n- [a](a.md)\n- [b](b.md)\n- [c](c.md)\n",
    "a.md": topic("a", updated="2026-06-01",
                  body="See `src/a.py`, `src/b.py` and `fooBar()`; work on branch `feature/x`.\n"),
    "b.md": topic("b", updated="2026-03-01",
                  body="`fooBaz` lives in `src/new/thing.py`, `bazQux` in `src/c.py`.\n"),
    "c.md": topic("c", body="Undated: its age is its last commit. Uses `barQux` and `src/a.py`.\n"),
}


def aged() -> int:
    """A clock an hour ahead: every file on disk is long past the racy window."""
    return time.time_ns() + HOUR_NS


def git(top: Path, *args: str, check: bool = True) -> None:
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": "2026-01-01T00:00:00+00:00"}
    env["GIT_COMMITTER_DATE"] = env["GIT_AUTHOR_DATE"]
    subprocess.run(["git", "-C", str(top), *args], check=check, capture_output=True, env=env)


#: a second root that names only paths (so no identifier is read: its answer rests on the
#: tracked files and the listings alone)
PATHS_ONLY = {
    "MEMORY.md": "# Memory\n\n- [p](p.md)\n",
    "p.md": topic("p", updated="2026-05-01", body="Files: `src/a.py`, `src/b.py`, `src/c.py`, `docs/guide.md`.\n"),
}


def make_project(top: Path) -> Path:
    """A committed git project holding two memory roots (``memory/`` and ``notes/``, which
    names only paths); returns the first."""
    (top / "src").mkdir(parents=True)
    (top / "src" / "a.py").write_text(SOURCES[0])
    (top / "README.md").write_text("# project\n")
    root = top / "memory"
    root.mkdir()
    for name, text in MEMORY.items():
        (root / name).write_text(text)
    (top / "notes").mkdir()
    for name, text in PATHS_ONLY.items():
        (top / "notes" / name).write_text(text)
    git(top, "init", "-q", "-b", "main")
    commit(top, 1)
    return root


def commit(top: Path, day: int, *flags: str) -> None:
    """Commit everything at a date of its own (so an undated memory file's age moves); ``flags``
    (``--amend --no-edit``) commit only what is staged."""
    if not flags:
        git(top, "add", "-A")
    stamp = f"2026-{1 + day // 28 % 12:02d}-{1 + day % 28:02d}T00:00:00+00:00"
    env = {**os.environ, **GIT_ENV, "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp}
    subprocess.run(["git", "-C", str(top), "commit", "-q", "--allow-empty", "-m", f"day {day}",
                    *flags], check=True, capture_output=True, env=env)


def full_stat(path: Path) -> tuple[int, ...] | None:
    try:
        st = os.stat(path)
    except OSError:
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns, st.st_dev)


def stale_json(root: Path, clock: Any) -> dict[str, object]:
    facts = stale_facts_root(root, BudgetConfig(), clock=clock)
    return facts.header(NOW) | {"files": [row_json(r) for r in rows_at(facts.files, NOW)]}


NAMES = st.sampled_from(["a", "b", "c"])
WRITE = st.tuples(st.just("write"), NAMES, st.integers(0, len(SOURCES) - 1), st.booleans())
MEMORY_EDIT = st.tuples(st.just("memory"), st.integers(0, 2))
COMMIT = st.tuples(st.just("commit"))
# writes, memory edits and commits weigh more: what a kept answer could miss is a content
# change alone, or a commit that moves an undated file's age with the memory unchanged
edit = st.one_of(
    WRITE, WRITE, WRITE, MEMORY_EDIT, MEMORY_EDIT, COMMIT, COMMIT,
    st.tuples(st.just("remove"), NAMES),
    st.tuples(st.just("rename"), NAMES, NAMES),
    st.tuples(st.just("branch"), st.sampled_from(["feature/x", "fix-y"])),
    st.tuples(st.just("unbranch"), st.sampled_from(["feature/x", "fix-y"])),
    st.tuples(st.just("checkout"), st.sampled_from(["main", "feature/x", "fix-y"])),
    st.tuples(st.just("untracked")),
    st.tuples(st.just("untrack"), NAMES),  # the index alone changes
    st.tuples(st.just("amend")),  # HEAD and maybe an undated file's date move, nothing else
)


def apply(top: Path, root: Path, op: tuple[Any, ...], day: int) -> tuple[Path | None, Any]:
    """Make one edit; returns the file written in place and its stat before, if any."""
    kind = op[0]
    if kind == "write":
        path = top / "src" / f"{op[1]}.py"
        before = full_stat(path)
        path.parent.mkdir(exist_ok=True)  # a checkout may have taken it away
        path.write_text(SOURCES[op[2]])
        if op[3] and before is not None:  # a same-size edit that keeps the mtime
            os.utime(path, ns=(before[1], before[1]))
        return path, before
    if kind == "remove":
        (top / "src" / f"{op[1]}.py").unlink(missing_ok=True)
    elif kind == "rename" and (top / "src" / f"{op[1]}.py").exists():
        os.replace(top / "src" / f"{op[1]}.py", top / "src" / f"{op[2]}.py")
    elif kind == "commit":
        commit(top, day)
    elif kind == "branch":
        git(top, "branch", op[1], check=False)
    elif kind == "unbranch":
        git(top, "branch", "-D", op[1], check=False)  # refused for the branch checked out
    elif kind == "checkout":
        git(top, "checkout", "-q", op[1], check=False)  # refused over conflicting changes
    elif kind == "untracked":
        (top / "src" / "new").mkdir(parents=True, exist_ok=True)
        (top / "src" / "new" / "thing.py").write_text("fooBaz = 1\n")
    elif kind == "untrack":
        git(top, "rm", "-q", "--cached", "--ignore-unmatch", f"src/{op[1]}.py")
    elif kind == "amend":  # the last commit again at another date: neither tree nor index moves
        commit(top, day, "--amend", "--no-edit")
    elif kind == "memory":
        path = root / "c.md"
        path.write_text(MEMORY["c.md"].replace("Uses", f"Uses `src/{'abc'[op[1]]}.py` and"))
    return None, None


@settings(max_examples=60, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])
@given(steps=st.lists(st.tuples(st.lists(edit, min_size=1, max_size=3),
                                st.sampled_from([True, True, False])),  # mostly kept answers
                      min_size=2, max_size=6))
def test_warm_equals_cold_over_random_project_edits(tmp_path_factory, steps) -> None:  # type: ignore[no-untyped-def]
    """After each step of random project, index, history and memory edits, ``stale`` through a
    warm cache (the real clock: the racy rule applies; or an aged one: everything trusted),
    through a cold one and without one give the same answer; the last warm run answers from the
    kept facts."""
    base = tmp_path_factory.mktemp("proj")
    os.environ["MEMTUI_CACHE_DIR"] = str(base / "cache")
    top = base / "project"
    root = make_project(top)
    day = 2
    for edits, is_aged in steps:
        for op in edits:
            path, before = apply(top, root, op, day)
            day += 1
            if is_aged and path is not None and before is not None:
                # an aged clock says the cache was written long after every change; an edit in
                # the same timestamp tick as the last one contradicts that story
                assume(full_stat(path) != before)
        clock = aged if is_aged else time.time_ns
        for memory in (root, top / "notes"):
            expected = score_root(load_root(memory), NOW).to_json()
            assert stale_json(memory, clock) == expected  # warm (or cold at the first step)
            assert stale_json(memory, clock) == expected  # warm, from what the first one kept
            os.environ["MEMTUI_CACHE_DIR"] = str(base / f"cold-{day}")
            assert stale_json(memory, clock) == expected  # cold
            os.environ["MEMTUI_CACHE_DIR"] = str(base / "cache")
    stale_json(root, aged)
    original = StatCache.load
    StatCache.load = lambda *a, **k: pytest.fail("the root was read")  # type: ignore[method-assign]
    try:
        assert stale_json(root, aged) == score_root(load_root(root), NOW).to_json()
    finally:
        StatCache.load = original  # type: ignore[method-assign]


def new_file(path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text("x = 1\n")


def test_a_kept_answer_reads_neither_the_root_nor_the_project(tmp_path, monkeypatch) -> None:
    """While the project and its history are as they were, the kept facts answer without reading
    a memory file or a project file; each kind of project change is seen and answered afresh."""
    top = tmp_path / "project"
    root = make_project(top)
    git(top, "branch", "feature/x")
    expected = stale_json(root, aged)
    assert expected == score_root(load_root(root), NOW).to_json()

    def not_read(*args: object, **kwargs: object) -> None:
        raise AssertionError("read")

    changes = [
        lambda: (top / "src" / "b.py").write_text(SOURCES[1]),  # an untracked file appears
        lambda: git(top, "add", "-A"),  # the index changes: b.py is tracked
        lambda: (top / "src" / "a.py").write_text(SOURCES[2]),  # a same-size rewrite
        lambda: commit(top, 40),  # a new commit: the undated file's age moves
        lambda: git(top, "branch", "-D", "feature/x"),
        lambda: git(top, "checkout", "-q", "-b", "feature/x"),
        lambda: os.replace(top / "src" / "b.py", top / "src" / "c.py"),
        lambda: new_file(top / "src" / "new" / "thing.py"),  # a missing path appears
    ]
    for change in changes:
        with monkeypatch.context() as patched:
            patched.setattr(StatCache, "load", not_read)
            patched.setattr(ProjectIndex, "identifiers", property(not_read))
            assert stale_json(root, aged) == expected  # kept: nothing read
            change()
            with pytest.raises(AssertionError, match="read"):
                stale_json(root, aged)
        expected = stale_json(root, aged)
        assert expected == score_root(load_root(root), NOW).to_json()


def test_a_paths_only_answer_follows_the_tracked_files_and_the_top_level(tmp_path, monkeypatch) -> None:
    """A root naming only paths reads no identifier: its kept answer rests on the tracked files
    (a file tracked but deleted still counts) and the project's top-level names."""
    top = tmp_path / "project"
    make_project(top)
    notes = top / "notes"
    changes = [
        lambda: git(top, "add", new_path(top / "src" / "b.py")),  # tracked, found
        lambda: (top / "src" / "b.py").unlink(),  # tracked still: found still
        lambda: git(top, "rm", "-q", "--cached", "src/b.py"),  # the index alone changes: missing
        lambda: (top / "docs").mkdir(),  # docs/guide.md: unverifiable → missing
    ]
    expected = stale_json(notes, aged)
    answers = [expected]
    for change in changes:
        change()
        with monkeypatch.context() as patched:
            patched.setattr(StatCache, "load", lambda *a, **k: pytest.fail("read"))
            try:
                stale_json(notes, aged)
                kept = True
            except pytest.fail.Exception:
                kept = False
        found = stale_json(notes, aged)
        assert found == score_root(load_root(notes), NOW).to_json()
        assert not kept or found == answers[-1]
        answers.append(found)
    assert len({str(a) for a in answers}) == 3  # b.py found, then missing; docs/ seen


def new_path(path: Path) -> str:
    new_file(path)
    return str(path)


def test_a_young_project_file_keeps_nothing(tmp_path, monkeypatch) -> None:
    """A project file changed within the racy window (here: one the clock cannot yet trust)
    keeps the answer from being kept, as a young memory file does."""
    top = tmp_path / "project"
    root = make_project(top)
    young = os.stat(top / "src" / "a.py").st_ino
    trusted = StatCache.trusted
    monkeypatch.setattr(StatCache, "trusted", lambda self, key: key[2] != young and trusted(self, key))
    expected = stale_json(root, aged)
    monkeypatch.setattr(StatCache, "load", lambda *a, **k: pytest.fail("read"))
    with pytest.raises(pytest.fail.Exception, match="read"):
        stale_json(root, aged)
    monkeypatch.undo()
    assert expected == score_root(load_root(root), NOW).to_json()


def test_identifiers_read_for_an_earlier_root_of_the_run_are_not_vouched_for(tmp_path, monkeypatch) -> None:
    """Roots of one run share the project's index; a root whose cache clock was read after the
    identifiers were does not keep its answer (the racy rule needs the clock first), and the
    next run keeps it."""
    from memtui.core.read.project import ProjectCache

    top = tmp_path / "project"
    root = make_project(top)
    shared = ProjectCache()
    for memory in (root, top / "notes"):
        stale_facts_root(memory, BudgetConfig(), clock=aged, cache=shared)
    assert shared.get(find_project(root)).read_identifiers  # type: ignore[arg-type]

    def kept(memory: Path) -> bool:
        with monkeypatch.context() as patched:
            patched.setattr(StatCache, "load", lambda *a, **k: pytest.fail("read"))
            try:
                stale_json(memory, aged)
            except pytest.fail.Exception:
                return False
        return True

    assert kept(root) and not kept(top / "notes")
    assert stale_json(top / "notes", aged) == score_root(load_root(top / "notes"), NOW).to_json()
    assert kept(top / "notes")
