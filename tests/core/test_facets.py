"""The per-file facets the judgments read (memtui.core.judge.facets) through the stat cache: a
warm run's facet of every file is the plain function's value, over random edits, and comes from
the cache when the file did not change."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.core.judge.facets import FACETS, Facet
from memtui.core.read.store import load_root
from memtui.core.stores.statcache import load_cached
from tests.support.roots import MakeRoot, topic

HOUR_NS = 3600 * 10**9

BODIES = (
    "Use `internal/gc/sweep.go` and `sweepBlobs()`; never force push.\n",
    "## 2026-03-16 — update\nAs of 2026-05-07 the queue drains nightly. See https://example.com/x\n",
    "_Captured: 2026-03-29_\n\nDo not change without review: the release train runs on Fridays.\n",
    "Date: 2026/05/12\n\n- [ ] TODO fill in\n- [ ] TODO\n",
    "2026年5月12日現在、branch `release/1.2` は凍結。\n",
    "",
)


def aged() -> int:
    """A clock an hour ahead: every file on disk is long past the racy window."""
    return time.time_ns() + HOUR_NS


def values(root: Path, facet: Facet[Any], clock: Any = None) -> dict[str, Any]:
    """``facet`` of every file of the root: through the stat cache (``clock`` given) or of a
    plain load."""
    if clock is None:
        snapshot = load_root(root)
        return {path: facet.compute(f) for path, f in snapshot.files.items()}
    snapshot, cache = load_cached(root, clock=clock)
    found = {path: facet(f) for path, f in snapshot.files.items()}
    cache.save()
    return found


@pytest.mark.parametrize("facet", FACETS, ids=[f.name for f in FACETS])
def test_a_warm_facet_is_the_cold_one_and_comes_from_the_cache(make_root: MakeRoot, facet: Facet[Any]) -> None:
    files = {f"n{i}.md": topic(f"note {i}", body=body, description="due 2026-04-01" if i % 2 else "a note")
             for i, body in enumerate(BODIES)}
    root = make_root({"MEMORY.md": "# Memory\n" + "".join(f"- [{n}]({n}) — x\n" for n in files), **files})
    cold = values(root, facet)
    assert values(root, facet, aged) == cold  # computed, then kept
    snapshot, cache = load_cached(root, clock=aged)
    assert {path: facet(f) for path, f in snapshot.files.items()} == cold  # from the cache
    assert all("text" not in f.__dict__ for f in snapshot.files.values())  # no file was read


@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(steps=st.lists(st.tuples(st.integers(0, 3), st.sampled_from(BODIES), st.booleans()), min_size=1,
                      max_size=6))
def test_warm_facets_equal_cold_over_random_edits(tmp_path_factory: pytest.TempPathFactory,
                                                 steps: list[tuple[int, str, bool]]) -> None:
    """After each edit (a body rewritten, with the real clock — the racy rule keeps young files
    out — or an aged one), every facet of every file through the cache is the plain value."""
    import os

    base = tmp_path_factory.mktemp("facets")
    os.environ["MEMTUI_CACHE_DIR"] = str(base / "cache")
    root = base / "root"
    root.mkdir()
    (root / "MEMORY.md").write_text("# Memory\n\n- [a](n0.md) — hook\n")
    for i in range(4):
        (root / f"n{i}.md").write_text(topic(f"note {i}", body=BODIES[i]))
    for which, body, is_aged in steps:
        path = root / f"n{which}.md"
        before = path.stat()
        path.write_text(topic(f"note {which}", body=body + f"\n{len(steps)}\n"))
        if is_aged and path.stat().st_mtime_ns == before.st_mtime_ns:
            continue  # an aged clock says the cache came after every change: not so in one tick
        for facet in FACETS:
            assert values(root, facet, aged if is_aged else time.time_ns) == values(root, facet)
