"""The dream's last mile (issue 36): trims that pay for themselves, rules that stay where they
load, repairs that stay inside the tree, memtui's own lines known from the author's.

Each test builds a folder in the shape of a real one (the corpora it is named after), written
here from scratch: an index over its lines only, one that loads in full with informal pins and a
CRITICAL rule, live rules with no entry, a successor with none, a tree beside a copy of itself,
an index copied without its files, a prose dump with memtui's own Regions, a task log of giant
bullets, a stale competing index, and merges named by their sources.
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core.dream import plan as dream
from memtui.core.model.changeset import Changeset, apply_to_snapshot
from memtui.core.model.snapshot import BudgetConfig, Snapshot
from memtui.core.read.store import load_root
from memtui.core.rules.validate import validate
from memtui.core.verbs import lifecycle as verbs
from tests.support.roots import topic
from tests.support.writer import tree

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)


def result(snapshot: Snapshot, changeset: Changeset) -> Snapshot:
    return apply_to_snapshot(snapshot, changeset.ops).snapshot


def text(snapshot: Snapshot, name: str = "MEMORY.md") -> str:
    index = snapshot.index if name == "MEMORY.md" else snapshot.archive_index
    return index.render().decode("utf-8")


def checked(plan: dream.DreamPlan) -> Counter[str]:
    return Counter(item.kind for item in plan.items if item.checked)


def after_default(plan: dream.DreamPlan) -> Snapshot:
    return result(plan.snapshot, dream.compose(plan, plan.default))


def errors(snapshot: Snapshot) -> Counter[str]:
    return Counter(f.rule for f in validate(snapshot) if f.severity == "error")


# ---------------------------------------------------------------- repairs inside the tree


def copy_pair(base: Path) -> tuple[Path, Path]:
    """A memory folder and a copy of the whole of it beside it (``cp -r c_dry c_yes``): the copy
    holds the file the folder's dangling pointer names."""
    index = ("# Memory\n\n## Sessions\n- [Fix](session_2026-05-21_fix.md) — Wired the orchestrator into the detector; "
             "all 5 methods exposed\n- [Brief](feedback_brief.md) — answer first\n")
    roots = []
    for name in ("c_dry", "c_yes"):
        root = base / name
        root.mkdir(parents=True)
        (root / "MEMORY.md").write_text(index, encoding="utf-8")
        (root / "feedback_brief.md").write_text(topic("Brief", type_="feedback"), encoding="utf-8")
        roots.append(root)
    (roots[1] / "session_2026-05-21_fix.md").write_text(topic("Fix", "the fix"), encoding="utf-8")
    return roots[0], roots[1]


def test_a_repoint_never_reaches_a_copy_of_the_tree_beside_it(tmp_path: Path) -> None:
    """A fresh copy's dream repointed 7 dangling pointers to ``../../c_yes/…``, a copy of the whole
    tree beside it: a repoint target lies inside the root's own memory tree."""
    from memtui.core.tidy.targets import _tree_roots

    dry, _ = copy_pair(tmp_path / "w")
    _tree_roots.cache_clear()
    plan = dream.plan_dream(load_root(dry), NOW)
    changed = b"".join(getattr(op, "data", b"") for item in plan.items if item.checked
                       for op in item.build(load_root(dry)).ops)
    assert b"c_yes" not in changed


def test_a_repoint_finds_a_sibling_root_of_the_same_project(tmp_path: Path) -> None:
    """The nested roots of one project (a git work tree) are one tree: a dangling pointer whose
    file is in another root of it is named there."""
    from memtui.core.tidy.targets import _tree_roots, tree_top

    project = tmp_path / "w" / "improv"
    (project / ".git").mkdir(parents=True)
    main_memory = project / ".claude" / "memory"
    site = project / "marketing-site" / ".claude" / "memory"
    for root in (main_memory, site):
        root.mkdir(parents=True)
    (main_memory / "MEMORY.md").write_text("- [Shades](session_shades.md) — the shade system\n", encoding="utf-8")
    (main_memory / "session_shades.md").write_text(topic("Shades"), encoding="utf-8")
    (site / "MEMORY.md").write_text("# Site\n- [Shades](session_shades.md) — the shade decision\n", encoding="utf-8")
    _tree_roots.cache_clear()
    assert tree_top(site) == project.resolve()
    after = result(load_root(site), verbs.rebuild(load_root(site)))
    assert "`../../../.claude/memory/session_shades.md`" in text(after)
    lone = tmp_path / "w2" / "marketing-site" / ".claude" / "memory"  # no work tree: its project only
    assert tree_top(lone) == lone.parent.parent.resolve()


def test_dry_run_then_yes_on_an_unchanged_tree_apply_the_same_bytes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan is a pure function of the roots it reads: what ``--dry-run`` shows is what
    ``--yes`` writes, even when a sibling copy is dreamt in between (its new files are not this
    tree's)."""
    from memtui.core.stores.statcache import cached_loader
    from memtui.core.tidy.targets import _tree_roots

    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(tmp_path / "cache"))
    dry, yes = copy_pair(tmp_path / "w")
    for i in range(6):  # something for the dream to do: live notes nothing reaches
        (dry / f"session_2026-05-{i + 1:02d}_n{i}.md").write_text(topic(f"N{i}", f"note {i}"), encoding="utf-8")
    _tree_roots.cache_clear()
    shown = dream.plan_dream(cached_loader(texts=False)(dry, BudgetConfig()), NOW)
    planned = apply_to_snapshot(load_root(dry), dream.compose(shown, shown.default).ops).snapshot
    expected = {**{p: f.data for p, f in planned.files.items()},
                "MEMORY.md": planned.index.render(), "MEMORY-archive.md": planned.archive_index.render()}
    assert main(["dream", str(dry), "--dry-run", "--now", "2026-12-01"]) == 0
    assert main(["dream", str(yes), "--yes", "--now", "2026-12-01"]) == 0  # the copy, dreamt in between
    assert main(["dream", str(dry), "--yes", "--now", "2026-12-01"]) == 0
    capsys.readouterr()
    written = {path: data for path, data in tree(dry).items() if data is not None}
    assert written == {path: data for path, data in expected.items() if path in written or data}
