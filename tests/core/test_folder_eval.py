"""The judgment against the pairs read by hand in the corpus folders (``bench/eval_folders.py``).

The floors pin the figures measured with memtui's defaults on every label (in sample: the
defaults were picked on these labels by ``bench/tune_pairs.py``); the held-out figures, each
group scored with the constants picked on the others, are the tuner's output and too slow for a
test.  A change that makes a figure worse fails here; one that makes it better should raise the
floor.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from bench import eval_folders as ev  # noqa: E402
from tests.support.roots import CORPORA  # noqa: E402


def test_every_label_is_well_formed() -> None:
    labels = ev.read_pair_labels(corpora=CORPORA)  # raises on a bad row or a missing file
    assert len(labels) >= 600
    assert {lab.kind for lab in labels} == set(ev.KINDS)
    assert all(lab.reason.strip() and lab.a != lab.b for lab in labels)
    assert len({(lab.kind, lab.a, lab.b) for lab in labels}) == len(labels)
    groups = {ev.group_of(lab.folder) for lab in labels}
    assert len(groups) >= 15  # enough authors that leaving one out means something


@pytest.fixture(scope="module")
def results() -> list[ev.FolderResult]:
    if not CORPORA.is_dir():
        pytest.skip(f"corpora not available at {CORPORA}")
    return ev.evaluate(CORPORA)


@pytest.fixture(scope="module")
def pooled(results: list[ev.FolderResult]) -> dict[str, ev.Score]:
    return ev.pooled(results)


def _at_least(score: ev.Score, precision: float, recall: float) -> None:
    assert score.precision is not None and score.recall is not None, score.text()
    assert score.precision >= precision and score.recall >= recall, score.text()


def test_merges_on_real_folders(pooled: dict[str, ev.Score]) -> None:
    # measured with the defaults: P 0.923 R 0.632 (TP 12 FP 1 FN 7; leave-one-group-out 0.857 /
    # 0.632, the one more wrong pair mmffdev's, where the pick on the other groups is looser)
    _at_least(pooled["merge"], 0.9, 0.6)


def test_logs_on_real_folders(pooled: dict[str, ev.Score]) -> None:
    # measured with the defaults: P 0.905 R 0.887 (TP 134 FP 14 FN 17), nearly all of them one
    # author's (jonahscohen): the only group with logs read TRUE, so no held-out figure for logs
    # says more than this one
    _at_least(pooled["log"], 0.88, 0.85)


def test_every_proposal_outside_the_log_heavy_folders_was_read(results: list[ev.FolderResult]) -> None:
    # a merge or fold nobody read is a figure's blind spot; jonahscohen's hundreds of logs carry
    # a few (5 when this was written, read in tests/core/data/supersession_unmarked.tsv)
    unread = [f"{r.folder}: {line}" for r in results for line in r.unlabelled_folds
              if ev.group_of(r.folder) != "jonahscohen"]
    assert unread == []
    assert sum(len(r.unlabelled_folds) for r in results) <= 8
