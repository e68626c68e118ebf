"""The run is sealed off from the user's folders and from other tests' folders: the user's cache,
config and home are never reached (not even after a test undoes its own monkeypatching), and a
memory root's sibling roots are looked for only inside its own test's ``tmp_path``."""

from __future__ import annotations

import os
import pwd
import shutil
from datetime import date
from pathlib import Path

import pytest

from memtui.core.dream import plan as dream
from memtui.core.read.store import load_root
from memtui.core.read.user_config import config_path
from memtui.core.stores.statcache import user_cache_dir
from memtui.core.tidy.targets import _tree_roots
from tests.support.roots import copy_demo_to, topic

REAL_HOME = Path(pwd.getpwuid(os.getuid()).pw_dir)


def _outside_the_real_home(path: Path) -> bool:
    return not path.resolve().is_relative_to(REAL_HOME.resolve())


def test_the_cache_and_the_config_are_not_the_users(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.undo()  # as a test that undoes its own patches (the private stat cache's too)
    monkeypatch.delenv("MEMTUI_CACHE_DIR", raising=False)
    assert _outside_the_real_home(Path.home())
    assert _outside_the_real_home(user_cache_dir())
    assert _outside_the_real_home(config_path())


def test_sibling_roots_are_looked_for_only_in_the_tests_own_folder(
        tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    """A demo copy's broken link (``project_helm_chart_values.md``) is repointed at a sibling root
    holding that name: one in another test's folder must not change this test's dream."""
    first = copy_demo_to(tmp_path / "first")
    alone = _dream_ops(first)
    neighbour = tmp_path_factory.mktemp("neighbour")  # another test's folder, beside this one
    try:
        (neighbour / "MEMORY.md").write_text("# Memory\n- [Helm](project_helm_chart_values.md) — values\n")
        (neighbour / "project_helm_chart_values.md").write_text(topic("Helm chart values"))
        second = copy_demo_to(tmp_path / "second")
        assert all(root.is_relative_to(tmp_path) for root in _tree_roots(str(second)))
        assert _dream_ops(second) == alone
    finally:  # kept by pytest, it would be every later run's neighbour on this machine
        shutil.rmtree(neighbour)


def _dream_ops(root: Path) -> tuple[object, ...]:
    """The operations of the default dream on a root (its paths are relative to the root)."""
    found = dream.plan_dream(load_root(root), date(2026, 11, 30))
    return tuple(dream.preview(found, found.default).changeset.ops)
