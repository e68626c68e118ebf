"""Judgment measured by folder: merge, log and contradiction pairs, leave-one-folder-out.

    .venv/bin/python bench/eval_folders.py              # every label, per folder and pooled
    .venv/bin/python bench/eval_folders.py --wrong      # also every wrong verdict and unread proposal

The labels are every pair read by hand in ``tests/core/data/labels/<folder>.pairs.tsv`` (the
standard is that folder's README) and the older ``tests/core/data/candidate_labels.tsv``; where
both label one pair of one kind, the per-folder file wins (it was read against the stricter
standard).  An older row's kind is ``log`` when both files are logs (session files, or a file a
reader marked ``log`` in ``<folder>.files.tsv``), else ``merge``.

**Folders, not pairs.**  Pairs of one folder share an author's style, so a figure is reported per
*group*: the corpus folders of one author (``jonahscohen__improv__*`` are copies of one memory and
its nested roots: one group).  Every constant the scan uses is a fixed part of memtui; where one
is chosen from labels (:mod:`bench.tune_pairs`), it is chosen on the other groups and measured on
the one left out.

A merge or log pair counts as proposed when the scan lists it as a fold of any kind (a duplicate,
"contained in", a supersession); a contradiction pair only when it is listed as a contradiction,
and a contradiction is scored as that alone (it asks a person to read two sentences, and claims
no fold).  Pairs that cross two roots of one folder are scored against the cross-root scan
(:func:`memtui.core.judge.layers.cross_layer_duplicates`).  Proposals nobody labelled are counted per
folder, so a figure cannot hide them.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.eval_candidates import read_labels  # noqa: E402
from memtui.core.judge.consolidate import ScanResult, is_candidate, is_session, scan  # noqa: E402
from memtui.core.judge.layers import cross_layer_duplicates  # noqa: E402
from memtui.core.judge.weights import DEFAULT_TUNING, Tuning  # noqa: E402
from memtui.core.model.snapshot import Snapshot  # noqa: E402
from memtui.core.read.store import load_root  # noqa: E402
from memtui.core.roots.discover import roots_under  # noqa: E402

LABELS_DIR = REPO / "tests" / "core" / "data" / "labels"
CORPORA = Path(os.environ.get("MEMTUI_CORPORA", REPO.parent / "shared" / "corpora"))
KINDS = ("merge", "log", "contradiction")
ROLES = ("log", "folder-doc", "standing")


@dataclass(frozen=True)
class PairLabel:
    """One pair read by hand: paths relative to the corpora folder, ``a < b``."""

    folder: str
    a: str
    b: str
    kind: str
    true: bool
    reason: str
    source: str  # "folder" (tests/core/data/labels) or "candidates" (candidate_labels.tsv)

    @property
    def key(self) -> tuple[str, str]:
        return (self.a, self.b)


def group_of(folder: str) -> str:
    """The author group of a corpus folder: its first ``__`` part."""
    return folder.split("__", 1)[0]


def _pair(root: str, a: str, b: str) -> tuple[str, str]:
    x, y = f"{root}/{a}", f"{root}/{b}"
    return (x, y) if x <= y else (y, x)


def _rows(path: Path) -> Iterable[list[str]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            yield line.split("\t")


def read_roles(labels_dir: Path = LABELS_DIR) -> dict[str, str]:
    """Every file a reader gave a role (corpora-relative path -> role)."""
    out = {}
    for path in sorted(labels_dir.glob("*.files.tsv")):
        for row in _rows(path):
            root, rel, role = row[0], row[1], row[2]
            if role not in ROLES:
                raise ValueError(f"{path.name}: unknown role {role!r}")
            out[f"{root}/{rel}"] = role
    return out


def read_pair_labels(labels_dir: Path = LABELS_DIR, corpora: Path = CORPORA) -> list[PairLabel]:
    """Every labelled pair, the per-folder files over the older table (see the module docstring)."""
    roles = read_roles(labels_dir)
    out: dict[tuple[str, str, str], PairLabel] = {}
    for old in read_labels():
        a, b = _pair(old.root, old.a, old.b)
        log = all(is_session(p.rsplit("/", 1)[-1]) or roles.get(p) == "log" for p in (a, b))
        kind = "log" if log else "merge"
        folder = old.root.split("/", 1)[0]
        out[(kind, a, b)] = PairLabel(folder, a, b, kind, old.true, old.reason, "candidates")
    for path in sorted(labels_dir.glob("*.pairs.tsv")):
        for row in _rows(path):
            if len(row) != 6:
                raise ValueError(f"{path.name}: a row needs 6 fields, not {len(row)}: {row[:3]}")
            root, ra, rb, kind, label, reason = row
            if kind not in KINDS or label not in ("TRUE", "FALSE"):
                raise ValueError(f"{path.name}: bad kind or label: {row[:5]}")
            a, b = _pair(root, ra, rb)
            folder = root.split("/", 1)[0]
            if corpora.is_dir():
                for p in (a, b):
                    if not (corpora / p).is_file():
                        raise ValueError(f"{path.name}: no such file {p}")
            if kind in ("merge", "log"):  # a stricter re-read replaces the older row of either kind
                out.pop(("merge", a, b), None)
                out.pop(("log", a, b), None)
            out[(kind, a, b)] = PairLabel(folder, a, b, kind, label == "TRUE", reason, "folder")
    return sorted(out.values(), key=lambda lab: (lab.folder, lab.kind, lab.a, lab.b))


@dataclass
class Proposals:
    """What a scan proposed in one corpus folder, by pair (corpora-relative paths)."""

    folds: dict[tuple[str, str], str] = field(default_factory=dict)  # merge/fold pair -> its kind
    contradictions: dict[tuple[str, str], str] = field(default_factory=dict)  # pair -> the cue
    candidates: set[str] = field(default_factory=set)  # the files the scan considers at all


ScanFn = Callable[[Snapshot, bool], ScanResult]


def default_scan(snapshot: Snapshot, include_sessions: bool) -> ScanResult:
    return scan(snapshot, include_sessions=include_sessions)


def folder_proposals(corpora: Path, folder: str, scan_fn: ScanFn = default_scan, *,
                     include_sessions: bool = True, tuning: Tuning = DEFAULT_TUNING) -> Proposals:
    """Every proposal of every root of one corpus folder, and of the roots taken together."""
    out = Proposals()
    base = corpora / folder
    roots = roots_under(base)
    snapshots = []
    for root in roots:
        rel = str(root.relative_to(corpora))
        snapshot = load_root(root)
        snapshots.append((rel, snapshot))
        result = scan_fn(snapshot, include_sessions)
        out.candidates.update(f"{rel}/{f.path}" for f in snapshot.files.values() if is_candidate(f, True))
        for p in result.pairs:
            out.folds.setdefault(_pair(rel, p.a, p.b), p.kind)
        for s in result.supersessions:
            out.folds.setdefault(_pair(rel, s.old, s.new), s.kind)
        for c in result.contradictions:
            key = _pair(rel, c.old, c.new)
            out.contradictions.setdefault(key, c.negation)
    if len(snapshots) > 1:
        by_root = {str(s.root): rel for rel, s in snapshots}
        for d in cross_layer_duplicates([s for _, s in snapshots], tuning=tuning):
            out.folds.setdefault(_pair_cross(by_root[d.root_a], d.a, by_root[d.root_b], d.b), "cross-root")
    return out


def _pair_cross(ra: str, a: str, rb: str, b: str) -> tuple[str, str]:
    x, y = f"{ra}/{a}", f"{rb}/{b}"
    return (x, y) if x <= y else (y, x)


@dataclass
class Score:
    tp: int = 0
    fp: int = 0
    fn: int = 0
    tn: int = 0
    out_of_scope: int = 0  # labelled pairs with a file the scan never considers (an index, an archived file)

    def add(self, other: Score) -> None:
        self.tp += other.tp
        self.fp += other.fp
        self.fn += other.fn
        self.tn += other.tn
        self.out_of_scope += other.out_of_scope

    @property
    def precision(self) -> float | None:
        return self.tp / (self.tp + self.fp) if self.tp + self.fp else None

    @property
    def recall(self) -> float | None:
        return self.tp / (self.tp + self.fn) if self.tp + self.fn else None

    def text(self) -> str:
        def f(x: float | None) -> str:
            return "  -  " if x is None else f"{x:.3f}"
        scope = f", {self.out_of_scope} out of scope" if self.out_of_scope else ""
        return f"P {f(self.precision)} R {f(self.recall)} (TP {self.tp} FP {self.fp} FN {self.fn} TN {self.tn}{scope})"


@dataclass
class FolderResult:
    folder: str
    scores: dict[str, Score] = field(default_factory=lambda: {k: Score() for k in KINDS})
    wrong: list[str] = field(default_factory=list)
    unlabelled_folds: list[str] = field(default_factory=list)
    unlabelled_contradictions: list[str] = field(default_factory=list)


def score_folder(folder: str, labels: list[PairLabel], got: Proposals) -> FolderResult:
    out = FolderResult(folder)
    labelled: dict[str, set[tuple[str, str]]] = defaultdict(set)
    for lab in labels:
        labelled[lab.kind].add(lab.key)
        if not (lab.a in got.candidates and lab.b in got.candidates):
            out.scores[lab.kind].out_of_scope += 1
            continue
        found = got.contradictions if lab.kind == "contradiction" else got.folds
        hit = lab.key in found
        s = out.scores[lab.kind]
        if hit and lab.true:
            s.tp += 1
        elif hit:
            s.fp += 1
            out.wrong.append(f"{lab.kind}: proposed ({found[lab.key]}) but FALSE: {lab.a} · {lab.b} — {lab.reason}")
        elif lab.true:
            s.fn += 1
            out.wrong.append(f"{lab.kind}: missed TRUE: {lab.a} · {lab.b} — {lab.reason}")
        else:
            s.tn += 1
    folds_known = labelled["merge"] | labelled["log"] | labelled["contradiction"]
    out.unlabelled_folds = [f"{a} · {b} ({k})" for (a, b), k in sorted(got.folds.items()) if (a, b) not in folds_known]
    out.unlabelled_contradictions = [f"{a} · {b} ({k})" for (a, b), k in sorted(got.contradictions.items())
                                     if (a, b) not in labelled["contradiction"]]
    return out


def evaluate(corpora: Path = CORPORA, scan_fn: ScanFn = default_scan,
             folders: Iterable[str] | None = None, tuning: Tuning = DEFAULT_TUNING) -> list[FolderResult]:
    """Every corpus folder's labels scored against its proposals."""
    labels = read_pair_labels(corpora=corpora)
    by_folder: dict[str, list[PairLabel]] = defaultdict(list)
    for lab in labels:
        by_folder[lab.folder].append(lab)
    names = sorted(folders) if folders is not None else sorted(
        p.name for p in corpora.iterdir() if p.is_dir())
    out = []
    for folder in names:
        got = folder_proposals(corpora, folder, scan_fn, tuning=tuning)
        out.append(score_folder(folder, by_folder.get(folder, []), got))
    return out


def by_group(results: list[FolderResult]) -> dict[str, dict[str, Score]]:
    groups: dict[str, dict[str, Score]] = defaultdict(lambda: {k: Score() for k in KINDS})
    for r in results:
        for kind, s in r.scores.items():
            groups[group_of(r.folder)][kind].add(s)
    return dict(groups)


def pooled(results: list[FolderResult]) -> dict[str, Score]:
    total = {k: Score() for k in KINDS}
    for r in results:
        for kind, s in r.scores.items():
            total[kind].add(s)
    return total


def print_report(results: list[FolderResult], *, wrong: bool = False) -> None:
    groups = by_group(results)
    for kind in KINDS:
        print(f"\n== {kind}")
        for group, scores in sorted(groups.items()):
            s = scores[kind]
            if s.tp + s.fp + s.fn + s.tn:
                print(f"  {group:24} {s.text()}")
        print(f"  {'POOLED':24} {pooled(results)[kind].text()}")
    folds = sum(len(r.unlabelled_folds) for r in results)
    contra = sum(len(r.unlabelled_contradictions) for r in results)
    print(f"\nunlabelled proposals: {folds} folds, {contra} contradictions")
    for r in results:
        if wrong and (r.wrong or r.unlabelled_folds or r.unlabelled_contradictions):
            print(f"\n-- {r.folder}")
            for line in r.wrong:
                print("   " + line)
            for line in r.unlabelled_contradictions:
                print("   unread contradiction: " + line)
            for line in r.unlabelled_folds[:40]:
                print("   unread fold: " + line)
            if len(r.unlabelled_folds) > 40:
                print(f"   … {len(r.unlabelled_folds) - 40} more unread folds")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--wrong", action="store_true", help="list every wrong verdict and unread proposal")
    parser.add_argument("--folder", action="append", help="only this corpus folder (repeatable)")
    args = parser.parse_args()
    if not CORPORA.is_dir():
        print(f"no corpora at {CORPORA}")
        return 0
    results = evaluate(CORPORA, folders=args.folder)
    print_report(results, wrong=args.wrong)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
