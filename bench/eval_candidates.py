"""Precision and recall of the consolidation candidates against the hand-labelled pairs.

    .venv/bin/python bench/eval_candidates.py                 # corpora (when present) + synthetic
    .venv/bin/python bench/eval_candidates.py --threshold 0.7
    .venv/bin/python bench/eval_candidates.py --unlabelled    # also list proposals nobody labelled

The labels are ``tests/core/data/candidate_labels.tsv`` (pairs of real files under
``../shared/corpora``, each read by hand) and ``tests/core/data/candidate_synthetic.json``
(small roots in other scripts, a dated family, a 50x size ratio; built in memory).  A labelled
pair counts as proposed when ``scan`` lists it, as a duplicate or as "contained in".
Precision = proposed TRUE / proposed; recall = proposed TRUE / TRUE.  Proposals nobody labelled
are counted per root so the numbers cannot hide them.

Two modes: **default** — ``scan`` as it runs by default (``session_*`` files left out), over the
labelled pairs without a session file; **sessions** — ``scan --include-sessions`` over every
labelled pair.  Pairs with a file that is no candidate at all (``superseded_by``, archived) are
counted as out of scope.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass, field
from pathlib import Path

from memtui.core.consolidate import DEFAULT_THRESHOLD, ScanResult, is_candidate, is_session, scan
from memtui.core.frontmatter import parse_frontmatter
from memtui.core.index import parse_index
from memtui.core.model import ARCHIVE_INDEX_NAME, INDEX_NAME, Index, MemoryFile, Snapshot

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "core" / "data"
LABELS = DATA / "candidate_labels.tsv"
SYNTHETIC = DATA / "candidate_synthetic.json"
CORPORA = Path(os.environ.get("MEMTUI_CORPORA", REPO.parent / "shared" / "corpora"))


@dataclass(frozen=True)
class Label:
    """One hand-labelled pair of a root."""

    root: str
    a: str
    b: str
    true: bool
    reason: str

    @property
    def key(self) -> tuple[str, str]:
        return (self.a, self.b) if self.a <= self.b else (self.b, self.a)


@dataclass
class RootScore:
    """Counts for one root."""

    root: str
    labelled: int = 0
    tp: int = 0
    fp: int = 0
    fn: int = 0
    proposed: int = 0
    out_of_scope: int = 0  # labelled pairs with a file that is no candidate (superseded, archived)
    unlabelled: list[str] = field(default_factory=list)
    wrong: list[str] = field(default_factory=list)


@dataclass
class Report:
    """Precision and recall over a set of roots."""

    roots: list[RootScore]

    def total(self, name: str) -> int:
        return sum(getattr(r, name) for r in self.roots)

    @property
    def precision(self) -> float:
        proposed = self.total("tp") + self.total("fp")
        return self.total("tp") / proposed if proposed else 1.0

    @property
    def recall(self) -> float:
        true = self.total("tp") + self.total("fn")
        return self.total("tp") / true if true else 1.0


def read_labels(path: Path = LABELS) -> list[Label]:
    """The corpus labels (comment lines start with ``#``)."""
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        root, a, b, label, reason = line.split("\t")
        if label not in ("TRUE", "FALSE"):
            raise ValueError(f"{path}: label must be TRUE or FALSE, not {label!r}")
        out.append(Label(root, a, b, label == "TRUE", reason))
    return out


def synthetic_roots(path: Path = SYNTHETIC) -> tuple[dict[str, Snapshot], list[Label]]:
    """The synthetic roots as in-memory snapshots, and their labels."""
    data = json.loads(path.read_text(encoding="utf-8"))
    snapshots = {name: snapshot_of(Path(f"/synthetic/{name}"), files) for name, files in data["roots"].items()}
    labels = [Label(root, a, b, label == "TRUE", reason) for root, a, b, label, reason in data["pairs"]]
    return snapshots, labels


def snapshot_of(root: Path, texts: dict[str, str]) -> Snapshot:
    """A snapshot of a root made of the given texts (no disk)."""
    files = {
        path: MemoryFile(path, len(text.encode("utf-8")), 0.0, text, parse_frontmatter(text))
        for path, text in texts.items()
        if path not in (INDEX_NAME, ARCHIVE_INDEX_NAME)
    }
    index = parse_index(texts.get(INDEX_NAME, "").encode("utf-8"))
    return Snapshot(root=root, index=index, archive_index=Index(ARCHIVE_INDEX_NAME, exists=False), files=files)


def score_root(name: str, snapshot: Snapshot, result: ScanResult, labels: list[Label]) -> RootScore:
    """Compare one root's proposals with its labels."""
    got = {(p.a, p.b): p for p in result.pairs}
    out = RootScore(name, labelled=len(labels), proposed=len(got))
    keys = set()
    for label in labels:
        keys.add(label.key)
        if not all(is_candidate(snapshot.files[path], True) for path in label.key):
            out.out_of_scope += 1
            continue
        hit = label.key in got
        if hit and label.true:
            out.tp += 1
        elif hit:
            out.fp += 1
            out.wrong.append(f"proposed but FALSE: {label.a} · {label.b} ({label.reason})")
        elif label.true:
            out.fn += 1
            out.wrong.append(f"missed TRUE: {label.a} · {label.b} ({label.reason})")
    out.unlabelled = [f"{a} · {b} ({got[(a, b)].kind}, {got[(a, b)].evidence})" for a, b in got if (a, b) not in keys]
    return out


def evaluate_corpora(
    threshold: float = DEFAULT_THRESHOLD, corpora: Path = CORPORA, *, sessions: bool = False
) -> Report | None:
    """The corpus labels scored against ``scan`` of each labelled root (None without corpora).

    Without ``sessions``, the default scan over the pairs without a session file.
    """
    from memtui.core.discover import roots_under
    from memtui.core.store import load_root

    if not corpora.is_dir():
        return None
    labels = [lab for lab in read_labels() if sessions or not (is_session(lab.a) or is_session(lab.b))]
    # every root, so that proposals in roots nobody labelled show up as unlabelled
    by_root: dict[str, list[Label]] = {str(root.relative_to(corpora)): [] for root in roots_under(corpora)}
    for label in labels:
        by_root.setdefault(label.root, []).append(label)
    scores = []
    for name, group in sorted(by_root.items()):
        snapshot = load_root(corpora / name)
        result = scan(snapshot, threshold, include_sessions=sessions)
        scores.append(score_root(name, snapshot, result, group))
    return Report(scores)


def evaluate_synthetic(threshold: float = DEFAULT_THRESHOLD, *, sessions: bool = False) -> Report:
    """The synthetic labels scored against ``scan`` of each synthetic root."""
    snapshots, labels = synthetic_roots()
    scores = []
    for name, snapshot in snapshots.items():
        result = scan(snapshot, threshold, include_sessions=sessions)
        scores.append(score_root(name, snapshot, result, [lab for lab in labels if lab.root == name]))
    return Report(scores)


def _print(title: str, report: Report, unlabelled: bool) -> None:
    print(f"{title}")
    print(f"  {'root':62} {'labelled':>8} {'out':>4} {'TP':>3} {'FP':>3} {'FN':>3} {'proposed':>8} "
          f"{'unlabelled':>10}")
    for r in report.roots:
        if not r.labelled and not r.proposed:
            continue
        print(f"  {r.root[-62:]:62} {r.labelled:8d} {r.out_of_scope:4d} {r.tp:3d} {r.fp:3d} {r.fn:3d} "
              f"{r.proposed:8d} {len(r.unlabelled):10d}")
        for line in r.wrong:
            print(f"      {line}")
        if unlabelled:
            for line in r.unlabelled:
                print(f"      unlabelled: {line}")
    true = report.total("tp") + report.total("fn")
    print(f"  pairs {report.total('labelled')} ({true} TRUE) · precision {report.precision:.3f} · "
          f"recall {report.recall:.3f}\n")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--unlabelled", action="store_true", help="list proposals nobody labelled")
    args = parser.parse_args()
    print(f"threshold {args.threshold}; python {sys.version.split()[0]}\n")
    summary = []
    for sessions in (False, True):
        mode = "sessions included" if sessions else "default (session files left out)"
        corpus = evaluate_corpora(args.threshold, sessions=sessions)
        if corpus is None:
            print(f"corpora not found at {CORPORA}: corpus labels skipped\n")
        else:
            _print(f"corpora, {mode}", corpus, args.unlabelled)
        synthetic = evaluate_synthetic(args.threshold, sessions=sessions)
        _print(f"synthetic, {mode}", synthetic, args.unlabelled)
        both = Report((corpus.roots if corpus else []) + synthetic.roots)
        summary.append(f"{mode:34} precision {both.precision:.3f} · recall {both.recall:.3f} "
                       f"({both.total('tp') + both.total('fn')} TRUE, "
                       f"{both.total('tp') + both.total('fp')} proposed)")
    print("\n".join(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
