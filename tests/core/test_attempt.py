"""The writer's one protocol, ``write.attempt``: each step once, and a second plan only when
another memtui committed between the plan and the lock."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Callable

import pytest

from memtui.cli.main import main
from memtui.core import write
from memtui.core.model.journal import list_records
from memtui.core.model.snapshot import Snapshot
from memtui.core.verbs import lifecycle as verbs
from tests.support.roots import MakeRoot
from tests.support.writer import VALID_ROOT


@pytest.fixture
def root(make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("COLUMNS", "250")
    return make_root(dict(VALID_ROOT))


def counting(monkeypatch: pytest.MonkeyPatch, owner: Any, name: str, calls: dict[str, int]) -> None:
    """Count the calls of ``owner.name`` in ``calls[name]`` (the original still runs)."""
    original: Callable[..., Any] = getattr(owner, name)

    def counted(*args: Any, **kwargs: Any) -> Any:
        calls[name] = calls.get(name, 0) + 1
        return original(*args, **kwargs)

    monkeypatch.setattr(owner, name, counted)


def test_the_cli_pin_recovers_loads_builds_and_gates_once(
        root: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    import memtui.core.verbs.bulk
    import memtui.core.write.preview
    import memtui.core.write.protocol

    calls: dict[str, int] = {}
    counting(monkeypatch, memtui.core.write.protocol, "recover_seen", calls)
    counting(monkeypatch, memtui.core.write.protocol, "load_root", calls)
    counting(monkeypatch, memtui.core.verbs.bulk, "bulk", calls)
    counting(monkeypatch, memtui.core.write.preview, "gate", calls)
    assert main(["pin", str(root / "alpha.md")]) == 0
    assert calls == {"recover_seen": 1, "load_root": 1, "bulk": 1, "gate": 1}
    assert b"pinned: true" in (root / "alpha.md").read_bytes()
    assert "applied: pin alpha.md" in capsys.readouterr().out


def journal_listings(monkeypatch: pytest.MonkeyPatch, root: Path) -> list[str]:
    """Each listing of ``root``'s journal folder from now on, by the function that asked."""
    import os
    import sys

    folder = os.path.realpath(root / ".memtui" / "journal")
    seen: list[str] = []
    for name in ("listdir", "scandir"):
        original: Callable[..., Any] = getattr(os, name)

        def listing(path: Any = ".", *, _original: Callable[..., Any] = original) -> Any:
            if isinstance(path, (str, Path)) and os.path.realpath(path) == folder:
                caller = sys._getframe(1)
                while caller.f_code.co_name in ("journal_names", "list_records"):
                    caller = caller.f_back  # type: ignore[assignment]
                seen.append(caller.f_code.co_name)
            return _original(path)

        monkeypatch.setattr(os, name, listing)
    return seen


@pytest.mark.parametrize("verb", ["pin", "archive", "remember"])
def test_a_change_lists_the_journal_four_times(root: Path, monkeypatch: pytest.MonkeyPatch,
                                               verb: str) -> None:
    for name in ("alpha.md", "beta.md"):  # a journal with records in it
        write.attempt(root, lambda s, name=name: write.plan(s, verbs.pin(s, name)))
    build = {"pin": lambda s: verbs.pin(s, "gamma.md"), "archive": lambda s: verbs.archive(s, "gamma.md"),
             "remember": lambda s: verbs.remember(s, "Delta", "The delta fact.")}[verb]
    listed = journal_listings(monkeypatch, root)
    outcome = write.attempt(root, lambda s: write.plan(s, build(s)))
    assert outcome.applied is not None
    assert listed == [
        "recover_seen",  # before the plan: anything to recover, and the newest record
        "pending_records",  # the load: whether a change is interrupted
        "attempt",  # under the lock: the newest record again, recovery, the next record's number
        "commit_root",  # after the commit: the old versions it kept, and the pruning
    ]


def test_a_dry_run_reads_only(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    outcome = write.attempt(root, lambda s: write.plan(s, verbs.pin(s, "alpha.md")), dry_run=True)
    assert outcome.accepted and outcome.applied is None and outcome.record_id is None
    assert not (root / ".memtui").exists()


def test_a_refused_change_touches_nothing(root: Path) -> None:
    from memtui.core.model.changeset import Changeset, Create
    from tests.support.writer import tree

    before = tree(root, include_memtui=True)
    orphan = Changeset("remember", "an unreachable file", (Create("orphan.md", b"# Orphan\n"),))
    outcome = write.attempt(root, lambda s: write.plan(s, orphan))
    assert not outcome.accepted and outcome.applied is None
    assert [f.rule for f in outcome.preview.gate.refusing] == ["orphan"]
    assert tree(root, include_memtui=True) == before  # no lock, no .memtui/: nothing at all


def test_another_commit_between_the_plan_and_the_lock_is_planned_again(root: Path) -> None:
    plans: list[Snapshot] = []

    def planner(snapshot: Snapshot) -> write.Preview:
        plans.append(snapshot)
        if len(plans) == 1:  # another memtui pins beta.md after this plan was made
            other = write.open_root(root)
            write.run(other, verbs.pin(other, "beta.md"))
        return write.plan(snapshot, verbs.pin(snapshot, "alpha.md"))

    outcome = write.attempt(root, planner)
    assert len(plans) == 2 and outcome.applied is not None
    assert b"pinned: true" in (root / "alpha.md").read_bytes()
    assert b"pinned: true" in (root / "beta.md").read_bytes()  # the other change is kept
    assert [r.kind for r in list_records(root)] == ["do", "do"]


def test_undo_goes_through_attempt_too(root: Path) -> None:
    write.attempt(root, lambda s: write.plan(s, verbs.pin(s, "alpha.md")))
    outcome = write.attempt(root, write.undo_plan)
    assert outcome.applied is not None and b"pinned: true" not in (root / "alpha.md").read_bytes()


def test_nobody_outside_the_writer_takes_the_lock() -> None:
    """``root_lock`` is the writer's: every other module goes through ``attempt`` or a side-file call."""
    package = Path(write.__file__).parent
    memtui = package.parents[1]
    users = sorted(str(path.relative_to(memtui)) for path in memtui.rglob("*.py")
                   if package not in path.parents and "root_lock" in path.read_text(encoding="utf-8"))
    assert users == []
