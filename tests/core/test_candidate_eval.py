"""Precision and recall of the consolidation candidates against the hand-labelled pairs.

The labelled set is ``tests/core/data/candidate_labels.tsv`` (real pairs, read by hand) and
``candidate_synthetic.json`` (other scripts, a dated family, a 50x size ratio); the scoring is
``bench/eval_candidates.py``, which prints the same numbers.
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from tests.support.roots import CORPORA

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import eval_candidates as ev  # noqa: E402

from memtui.core.judge.consolidate import scan  # noqa: E402

PRECISION_FLOOR, RECALL_FLOOR = 0.85, 0.75  # the default mode's floors (targets 0.95 / 0.85)


def test_the_label_file_is_well_formed() -> None:
    labels = ev.read_labels()  # also checks every row's half against the fixed rule
    assert len(labels) >= 250 and len({lab.root for lab in labels}) >= 8
    assert sum(lab.true for lab in labels) >= 80
    assert sum(1 for lab in labels if ev.is_session(lab.a) or ev.is_session(lab.b)) >= 100
    for half in (ev.TUNE, ev.HELD_OUT):
        assert sum(1 for lab in labels if lab.half == half) >= 100
    assert all(lab.reason.strip() and lab.a != lab.b for lab in labels)
    assert len({(lab.root, lab.key) for lab in labels}) == len(labels)  # each pair once
    if CORPORA.is_dir():
        missing = [f"{lab.root}/{name}" for lab in labels for name in lab.key
                   if not (CORPORA / lab.root / name).is_file()]
        assert missing == []


@pytest.mark.parametrize("sessions", [False, True])
def test_synthetic_cases(sessions: bool) -> None:
    report = ev.evaluate_synthetic(sessions=sessions)
    assert report.precision == 1.0 and report.recall == 1.0, [r.wrong for r in report.roots]


def test_a_small_file_pasted_in_a_50x_larger_log_is_contained_in_it() -> None:
    snapshots, _ = ev.synthetic_roots()
    snapshot = snapshots["ratio"]
    big, small = snapshot.files["review_log.md"], snapshot.files["webhook_retries.md"]
    assert big.size > 50 * small.size
    [pair] = scan(snapshot).pairs
    assert (pair.kind, pair.contained_in, pair.evidence) == ("contained", "review_log.md", "verbatim")
    assert pair.to_json()["kind"] == "contained"


def test_other_scripts_pair_on_their_own_words() -> None:
    snapshots, _ = ev.synthetic_roots()
    for name, expected in [("zh", ("zh_db_pool.md", "zh_db_pool_notes.md")),
                           ("ko", ("ko_copy_scope.md", "ko_copy_scope_again.md")),
                           ("ru", ("ru_backup.md", "ru_backup_again.md"))]:
        assert [(p.a, p.b) for p in scan(snapshots[name]).pairs] == [expected]


def test_a_dated_family_pairs_only_near_copies() -> None:
    snapshots, _ = ev.synthetic_roots()
    pairs = scan(snapshots["dated"], include_sessions=True).pairs
    assert [(p.a, p.b, p.evidence) for p in pairs] == [
        ("standup_2026-04-01.md", "standup_2026-04-02.md", "near-copy")
    ]


def test_the_halves_are_fixed_by_the_rule() -> None:
    assert ev.half_of("r", "a.md", "b.md") == ev.half_of("r", "b.md", "a.md")
    halves = {ev.half_of("root", f"x{k}.md", "y.md") for k in range(20)}
    assert halves == {ev.TUNE, ev.HELD_OUT}


def _corpus_report(sessions: bool, half: str | None = None, unbiased: bool = False) -> ev.Report:
    report = ev.evaluate_corpora(sessions=sessions, corpora=CORPORA, half=half, unbiased=unbiased)
    if report is None:
        pytest.skip(f"corpora not available at {CORPORA}")
    return report


@pytest.mark.parametrize("half", [ev.TUNE, ev.HELD_OUT])
def test_precision_and_recall_on_real_folders_by_default(half: str) -> None:
    report = _corpus_report(sessions=False, half=half)
    wrong = [line for r in report.roots for line in r.wrong]
    assert report.precision >= PRECISION_FLOOR and report.recall >= RECALL_FLOOR, wrong
    assert not any(r.unlabelled for r in report.roots)  # every default proposal was read


def test_sessions_included_does_not_regress() -> None:
    # Successive notes of one work log: measured on the held-out half at precision 0.862 / recall
    # 0.910 (the wrong ones: checkpoint links between different parts of one work item; the
    # misses: mostly pairs sampled without looking at memtui's proposals, where it is 0.944 /
    # 0.708 — the proposals' own pairs flatter recall); pinned so a change that makes either
    # worse fails.
    report = _corpus_report(sessions=True, half=ev.HELD_OUT)
    assert report.precision >= 0.8 and report.recall >= 0.85
    assert not any(r.unlabelled for r in report.roots)
    honest = _corpus_report(sessions=True, half=ev.HELD_OUT, unbiased=True)
    assert honest.precision >= 0.85 and honest.recall >= 0.6


def test_labels_carry_where_they_came_from() -> None:
    labels = ev.read_labels()
    sources = {lab.source for lab in labels}
    assert sources == set(ev.SOURCES)
    # pairs not drawn from memtui's proposals: enough of them, in both halves, some TRUE
    honest = [lab for lab in labels if lab.source != ev.PROPOSALS]
    assert len(honest) >= 150 and sum(lab.true for lab in honest) >= 30
    assert {lab.half for lab in honest} == {ev.TUNE, ev.HELD_OUT}


def test_the_authors_stripped_marks_are_proposed_again() -> None:
    # measured: 76 of 97 marks (0.78; tune half 36/40, held-out 40/57 = 0.702, 37/54 = 0.685
    # without the pairs the tune half holds in another copy; 38 of 58 without the one
    # consolidation file), 0 reversed, and 0.93 of the proposals right (the authors' own and those
    # read); pinned so a change that makes it worse fails
    marks = ev.evaluate_marks(CORPORA)
    if marks is None:
        pytest.skip(f"corpora not available at {CORPORA}")
    found, n = sum(marks.recovered.values()), sum(marks.marks.values())
    assert n >= 90 and found / n >= 0.7 and marks.reversed == 0
    assert marks.recovered[ev.HELD_OUT] / marks.marks[ev.HELD_OUT] >= 0.65
    assert marks.independent[0] >= 50 and marks.independent[1] / marks.independent[0] >= 0.65
    read = marks.right + marks.wrong
    assert not marks.unread and (found + marks.right) / (found + read) >= 0.88
