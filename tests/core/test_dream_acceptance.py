"""The hand-read acceptance set of the dream (``data/dream_acceptance.tsv``) matches what dream proposes.

Each row is what a careful curator said of one item of one corpus root's dream: ``before`` for the
code this change replaced, ``after`` for this one.  The rows must stay true to the code: the
``after`` kinds of a root are exactly the kinds its dream checks today (``none`` when nothing).
"""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memtui.core.dream import plan as dream
from memtui.core.read.store import load_root
from tests.support.roots import CORPORA

TSV = Path(__file__).parent / "data" / "dream_acceptance.tsv"
NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)


def rows() -> list[dict[str, str]]:
    lines = [line.rstrip("\n") for line in TSV.read_text(encoding="utf-8").splitlines() if not line.startswith("#")]
    head = lines[0].split("\t")
    return [dict(zip(head, line.split("\t"))) for line in lines[1:]]


def test_the_set_is_well_formed_and_covers_twenty_roots() -> None:
    found = rows()
    assert all(set(r) == {"root", "side", "kind", "verdict", "reason"} and r["verdict"] in ("accept", "reject")
               and r["side"] in ("before", "after") and r["reason"] for r in found)
    for side in ("before", "after"):
        assert len({r["root"] for r in found if r["side"] == side}) >= 20


AFTER_ROOTS = sorted({r["root"] for r in rows() if r["side"] == "after"})


@pytest.mark.parametrize("name", AFTER_ROOTS)
def test_the_after_rows_are_what_dream_proposes(name: str) -> None:
    source = CORPORA / name
    if not source.is_dir():
        pytest.skip(f"corpus {name} not available at {CORPORA}")
    plan = dream.plan_dream(load_root(source), NOW)
    proposed = Counter(item.kind for item in plan.items if item.checked) or Counter({"none": 1})
    written = Counter(r["kind"] for r in rows() if r["side"] == "after" and r["root"] == name)
    assert proposed == written
