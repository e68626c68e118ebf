"""Precision and recall of the consolidation candidates against the hand-labelled pairs.

    .venv/bin/python bench/eval_candidates.py                 # corpora (when present) + synthetic
    .venv/bin/python bench/eval_candidates.py --threshold 0.7
    .venv/bin/python bench/eval_candidates.py --unlabelled    # also list proposals nobody labelled

The labels are ``tests/core/data/candidate_labels.tsv`` (pairs of real files under
``../shared/corpora``, each read by hand) and ``tests/core/data/candidate_synthetic.json``
(small roots in other scripts, a dated family, a 50x size ratio; built in memory).  A labelled
pair counts as proposed when ``scan`` lists it in any kind: a duplicate, "contained in", a
contradiction, or a supersession (declared, checkpoint, consolidated, replaces, extends,
contained).
Precision = proposed TRUE / proposed; recall = proposed TRUE / TRUE.  Proposals nobody labelled
are counted per root so the numbers cannot hide them.

**Two halves.**  Every corpus label belongs to the *tune* or the *held-out* half by a fixed rule
(:func:`half_of`: the CRC-32 of root, a and b, even = tune), written in the file's last column and
checked against the rule.  Constants are chosen on the tune half only; both are printed.

**The authors' own marks.**  ``superseded_by``/``supersedes`` stripped from an in-memory copy of
every corpus root that has them; the supersessions ``scan --include-sessions`` proposes on the
copy are compared with the author's pairs (split in halves the same way, on old and new), and
the proposals the author did not make are counted against the verdicts read by hand in
``tests/core/data/supersession_unmarked.tsv`` (unread ones are listed as such).  The corpora
hold copies of one folder taken at different dates, so one pair of file names can be a tune mark
in one copy and a held-out mark in another: the held-out figure is also printed without those
("held-out, not in tune").

**The label bias.**  Each block of the labels says where its pairs came from (``#@ source:``):
an independent reading, memtui's own proposals (read, then labelled: recall on them flatters
memtui), the authors' marks, or a fixed sample not drawn from the proposals.  Every half is also
reported on the pairs not drawn from proposals alone.

Two modes: **default** — ``scan`` as it runs by default (``session_*`` files left out), over the
labelled pairs without a session file; **sessions** — ``scan --include-sessions`` over every
labelled pair.  Pairs with a file that is no candidate at all (``superseded_by``, archived) are
counted as out of scope.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import sys
import zlib
from dataclasses import dataclass, field
from itertools import product
from pathlib import Path

from memtui.core.judge.consolidate import DEFAULT_THRESHOLD, ScanResult, is_candidate, is_session, scan
from memtui.core.model.frontmatter import parse_frontmatter
from memtui.core.model.index import parse_index
from memtui.core.model.snapshot import ARCHIVE_INDEX_NAME, INDEX_NAME, Index, MemoryFile, Snapshot

REPO = Path(__file__).resolve().parents[1]
DATA = REPO / "tests" / "core" / "data"
LABELS = DATA / "candidate_labels.tsv"
UNMARKED = DATA / "supersession_unmarked.tsv"
TUNE, HELD_OUT = "tune", "held-out"
SOURCES = ("reader", "proposals", "marks", "sample")
PROPOSALS = "proposals"
KINDS = ("duplicate", "contained", "contradiction", "checkpoint", "consolidated", "replaces", "extends",
         "declared")
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
    half: str = TUNE
    source: str = "reader"  # reader | proposals | marks | sample: where the pair came from

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
    kinds: dict[str, list[int]] = field(default_factory=dict)  # kind -> [TP, FP] of labelled proposals


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


def half_of(root: str, a: str, b: str) -> str:
    """The half a pair belongs to: the CRC-32 of ``root``, and the pair in path order, even = tune."""
    x, y = (a, b) if a <= b else (b, a)
    return TUNE if zlib.crc32(f"{root}\t{x}\t{y}".encode()) % 2 == 0 else HELD_OUT


def read_labels(path: Path = LABELS) -> list[Label]:
    """The corpus labels (comment lines start with ``#``; a ``#@ source: <name>`` line names where
    the rows below it came from); a ValueError when a row's half is not the one :func:`half_of`
    gives."""
    out = []
    source = "reader"
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#@ source:"):
            source = line.split(":", 1)[1].strip()
            if source not in SOURCES:
                raise ValueError(f"{path}: unknown source {source!r}")
            continue
        if not line.strip() or line.startswith("#"):
            continue
        root, a, b, label, reason, half = line.split("\t")
        if label not in ("TRUE", "FALSE"):
            raise ValueError(f"{path}: label must be TRUE or FALSE, not {label!r}")
        if half != half_of(root, a, b):
            raise ValueError(f"{path}: {a} · {b} belongs to the {half_of(root, a, b)} half, not {half!r}")
        out.append(Label(root, a, b, label == "TRUE", reason, half, source))
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


def proposals(result: ScanResult) -> dict[tuple[str, str], tuple[str, str]]:
    """Every proposal of a scan by its pair (in path order): its kind and evidence."""
    got: dict[tuple[str, str], tuple[str, str]] = {}
    for p in result.pairs:
        got[(p.a, p.b)] = (p.kind, p.evidence)
    for c in result.contradictions:
        got.setdefault(_key(c.old, c.new), ("contradiction", c.negation))
    for s in result.supersessions:
        got.setdefault(_key(s.old, s.new), (s.kind, s.evidence[0]))
    return got


def _key(a: str, b: str) -> tuple[str, str]:
    return (a, b) if a <= b else (b, a)


def score_root(name: str, snapshot: Snapshot, result: ScanResult, labels: list[Label]) -> RootScore:
    """Compare one root's proposals with its labels."""
    got = proposals(result)
    out = RootScore(name, labelled=len(labels), proposed=len(got))
    keys = set()
    for label in labels:
        keys.add(label.key)
        if not all(is_candidate(snapshot.files[path], True) for path in label.key):
            out.out_of_scope += 1
            continue
        hit = label.key in got
        if hit:
            out.kinds.setdefault(got[label.key][0], [0, 0])[0 if label.true else 1] += 1
        if hit and label.true:
            out.tp += 1
        elif hit:
            out.fp += 1
            out.wrong.append(f"proposed ({got[label.key][0]}) but FALSE: {label.a} · {label.b} "
                             f"({label.reason})")
        elif label.true:
            out.fn += 1
            out.wrong.append(f"missed TRUE: {label.a} · {label.b} ({label.reason})")
    out.unlabelled = [f"{a} · {b} ({got[(a, b)][0]}, {got[(a, b)][1]})" for a, b in got if (a, b) not in keys]
    return out


def evaluate_corpora(
    threshold: float = DEFAULT_THRESHOLD, corpora: Path = CORPORA, *, sessions: bool = False,
    half: str | None = None, unbiased: bool = False,
) -> Report | None:
    """The corpus labels scored against ``scan`` of each labelled root (None without corpora).

    Without ``sessions``, the default scan over the pairs without a session file; ``half``: only
    the labels of that half (proposals nobody labelled are listed whatever the half);
    ``unbiased``: only the pairs not drawn from memtui's own proposals.
    """
    from memtui.core.read.store import load_root
    from memtui.core.roots.discover import roots_under

    if not corpora.is_dir():
        return None
    labels = [lab for lab in read_labels() if (sessions or not (is_session(lab.a) or is_session(lab.b)))
              and (half is None or lab.half == half) and not (unbiased and lab.source == PROPOSALS)]
    every = {(lab.root, lab.key) for lab in read_labels()}
    # every root, so that proposals in roots nobody labelled show up as unlabelled
    by_root: dict[str, list[Label]] = {str(root.relative_to(corpora)): [] for root in roots_under(corpora)}
    for label in labels:
        by_root.setdefault(label.root, []).append(label)
    scores = []
    for name, group in sorted(by_root.items()):
        snapshot = load_root(corpora / name)
        result = scan(snapshot, threshold, include_sessions=sessions)
        score = score_root(name, snapshot, result, group)
        score.unlabelled = [line for line in score.unlabelled  # labelled in the other half
                            if (name, _key(*line.split(" (", 1)[0].split(" · "))) not in every]
        scores.append(score)
    return Report(scores)


@dataclass
class MarkScore:
    """The authors' stripped marks against the supersessions proposed on the stripped copy."""

    marks: dict[str, int] = field(default_factory=dict)  # half -> marks
    recovered: dict[str, int] = field(default_factory=dict)  # half -> proposed again (same direction)
    reversed: int = 0  # proposed the other way round
    proposed: int = 0
    right: int = 0  # proposals the author did not make, read: right
    wrong: int = 0  # ... read: wrong
    unread: list[str] = field(default_factory=list)
    per_root: list[tuple[str, int, int, int]] = field(default_factory=list)  # root, marks, recovered, proposed
    without_consolidation: tuple[int, int] = (0, 0)  # marks and recovered, consolidations left out
    # held-out marks whose pair (same file names) is no tune mark in another copy of the folder:
    # the held-out figure no tune example stands behind (marks, recovered)
    independent: tuple[int, int] = (0, 0)


_MARK = re.compile(r"^(superseded_by|supersedes)\s*:.*$")


def strip_marks(text: str) -> str:
    """A file's text without its ``superseded_by``/``supersedes`` frontmatter lines."""
    if not text.startswith("---"):
        return text
    lines = text.split("\n")
    out = [lines[0]]
    k = 1
    while k < len(lines) and lines[k].strip() != "---":
        if not _MARK.match(lines[k]):
            out.append(lines[k])
        k += 1
    return "\n".join(out + lines[k:])


def author_marks(snapshot: Snapshot) -> set[tuple[str, str]]:
    """The (old, new) pairs the author declared: ``superseded_by`` or ``supersedes`` naming a file."""
    out = set()
    for path, f in snapshot.files.items():
        for name in f.frontmatter.names("superseded_by"):
            if name in snapshot.files and name != path:
                out.add((path, name))
        for name in f.frontmatter.names("supersedes"):
            if name in snapshot.files and name != path:
                out.add((name, path))
    return out


def read_verdicts(path: Path = UNMARKED) -> dict[tuple[str, str], bool]:
    """The read verdicts on proposals the author did not make: (old, new) -> right."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or not line.strip():
            continue
        old, new, verdict = line.split("\t")
        out[(old, new)] = verdict == "RIGHT"
    return out


def evaluate_marks(corpora: Path = CORPORA) -> MarkScore | None:
    """:class:`MarkScore` over every corpus root with marks (None without corpora)."""
    from dataclasses import replace

    from memtui.core.read.store import load_root
    from memtui.core.roots.discover import roots_under

    if not corpora.is_dir():
        return None
    verdicts = read_verdicts()
    labelled = {(lab.root, lab.key): lab.true for lab in read_labels()}
    out = MarkScore({TUNE: 0, HELD_OUT: 0}, {TUNE: 0, HELD_OUT: 0})
    plain_marks = plain_found = 0
    held: list[tuple[tuple[str, str], bool]] = []  # held-out marks and whether recovered
    tuned: set[tuple[str, str]] = set()
    for root in roots_under(corpora):
        snapshot = load_root(root)
        marks = author_marks(snapshot)
        if not marks:
            continue
        name = str(root.relative_to(corpora))
        files = {}
        for path, f in snapshot.files.items():
            text = strip_marks(f.text)
            files[path] = MemoryFile(path, len(text.encode("utf-8")), f.mtime, text, parse_frontmatter(text))
        stripped = replace(snapshot, files=files)
        found = {(s.old, s.new) for s in scan(stripped, include_sessions=True).supersessions}
        for old, new in marks:
            half = half_of(name, old, new)
            out.marks[half] += 1
            out.recovered[half] += (old, new) in found
            out.reversed += (new, old) in found
            if half == TUNE:
                tuned.add((old, new))
            else:
                held.append(((old, new), (old, new) in found))
            if "consolidat" not in new:
                plain_marks += 1
                plain_found += (old, new) in found
        out.proposed += len(found)
        out.per_root.append((name, len(marks), len(marks & found), len(found)))
        for pair in sorted(found - marks):
            # read on the improv log's copy (same files in its earlier copies), else a corpus label
            verdict = verdicts.get(pair) if name.startswith("jonahscohen__improv__") else None
            if verdict is None:
                verdict = labelled.get((name, _key(*pair)))
            if verdict is None:
                out.unread.append(f"{name}: {pair[0]} -> {pair[1]}")
            elif verdict:
                out.right += 1
            else:
                out.wrong += 1
    out.without_consolidation = (plain_marks, plain_found)
    alone = [hit for pair, hit in held if pair not in tuned]
    out.independent = (len(alone), sum(alone))
    return out


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
          f"recall {report.recall:.3f} · {_kinds(report)}\n")


def kind_counts(report: Report) -> dict[str, list[int]]:
    """Labelled proposals per kind: kind -> [TP, FP]."""
    out: dict[str, list[int]] = {}
    for r in report.roots:
        for kind, (tp, fp) in r.kinds.items():
            counts = out.setdefault(kind, [0, 0])
            counts[0] += tp
            counts[1] += fp
    return out


def _kinds(report: Report) -> str:
    counts = kind_counts(report)
    return "by kind: " + (", ".join(f"{k} {tp} TP/{fp} FP" for k, (tp, fp) in sorted(counts.items()))
                          or "none proposed")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--threshold", type=float, default=DEFAULT_THRESHOLD)
    parser.add_argument("--unlabelled", action="store_true", help="list proposals nobody labelled")
    args = parser.parse_args()
    print(f"threshold {args.threshold}; python {sys.version.split()[0]}\n")
    summary = []
    for sessions in (False, True):
        mode = "sessions included" if sessions else "default (session files left out)"
        for half, unbiased in product((TUNE, HELD_OUT), (False, True)):
            corpus = evaluate_corpora(args.threshold, sessions=sessions, half=half, unbiased=unbiased)
            if corpus is None:
                if not unbiased:
                    print(f"corpora not found at {CORPORA}: corpus labels skipped\n")
                continue
            which = f"{half} half" + (", pairs not drawn from memtui's proposals" if unbiased else "")
            _print(f"corpora, {mode}, {which}", corpus, args.unlabelled and half == TUNE and not unbiased)
            summary.append(f"{mode:34} {half + (' (not proposals)' if unbiased else ''):24} precision "
                           f"{corpus.precision:.3f} · recall "
                           f"{corpus.recall:.3f} ({corpus.total('tp') + corpus.total('fn')} TRUE, "
                           f"{corpus.total('tp') + corpus.total('fp')} labelled proposed) · "
                           f"{_kinds(corpus)}")
        synthetic = evaluate_synthetic(args.threshold, sessions=sessions)
        _print(f"synthetic, {mode}", synthetic, args.unlabelled)
        summary.append(f"{mode:34} {'synth':24} precision {synthetic.precision:.3f} · recall "
                       f"{synthetic.recall:.3f}")
    marks = evaluate_marks()
    if marks is not None:
        print("the authors' marks (superseded_by/supersedes stripped from a copy):")
        for name, n, found, proposed in marks.per_root:
            print(f"  {name[-62:]:62} marks {n:3d} · proposed again {found:3d} · proposals {proposed:3d}")
        for half in (TUNE, HELD_OUT):
            n, found = marks.marks[half], marks.recovered[half]
            summary.append(f"{'authors marks':34} {half:24} recovered {found}/{n} = "
                           f"{found / n if n else 1:.3f}")
        n, found = marks.independent
        summary.append(f"{'authors marks':34} {'held-out, not in tune':24} recovered {found}/{n} = "
                       f"{found / n if n else 1:.3f} (a pair the tune half holds in another copy "
                       "of the folder left out)")
        n, found = sum(marks.marks.values()), sum(marks.recovered.values())
        read = marks.right + marks.wrong
        plain_n, plain_found = marks.without_consolidation
        summary.append(f"{'authors marks':34} {'both':24} recovered {found}/{n} = {found / n:.3f} "
                       f"(without the consolidation file's {n - plain_n}: {plain_found}/{plain_n}), "
                       f"{marks.reversed} reversed")
        summary.append(f"{'supersession proposals':34} {'':24} {marks.proposed}: {found} the authors', "
                       f"{read} read ({marks.right} right, {marks.wrong} wrong), "
                       f"{len(marks.unread)} unread · right {found + marks.right}/"
                       f"{found + read} = {(found + marks.right) / max(1, found + read):.3f}")
        for line in marks.unread:
            print(f"  unread: {line}")
        print()
    print("\n".join(summary))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
