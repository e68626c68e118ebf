"""The negated-claim constants chosen leave-one-author-group-out, and their held-out precision/recall.

    .venv/bin/python bench/tune_contradictions.py             # per-group and pooled, held out and in sample
    .venv/bin/python bench/tune_contradictions.py --unread    # also every proposal nobody judged yet
    .venv/bin/python bench/tune_contradictions.py --all       # … and the judged ones

The candidates of every root of every corpus folder are collected once at the loosest settings
(:data:`memtui.core.judge.negations.LOOSEST`).  A pair is proposed when the fixed base rule
(:data:`memtui.core.judge.negations.BASE`, not tuned) or the extension (a :class:`Settings`: cue
families, slot windows, how rare the negated word must be, whether it must look like a name, how
much of the negated phrase the other note repeats, shared words, overlap) keeps one of its
candidates, and it is proposed on its best candidate, as the scan picks it.  The lexicon is fixed
prior knowledge and is not tuned.

A proposal is judged as a reader would judge it: by its pair's label (``tests/core/data/labels``)
and, for a TRUE pair, by its quoted sentences (``contradiction-evidence.tsv``: a TRUE pair proposed
on sentences that do not show why is a wrong proposal, and the pair counts as missed).  A proposal
nobody has judged counts as wrong and is listed with ``--unread``, so a figure cannot hide it.

For each author group (:func:`bench.eval_folders.group_of`) the extension is chosen on the *other*
groups — the one whose own proposals (those the base rule does not make) are right at precision
:data:`TARGET` or above, the most of them, then the tightest — and measured, with the base rule, on
the group left out.  The figures printed per group and pooled are those held-out ones; the base
rule alone, and the extension chosen on every group (the one memtui ships, compare
:data:`memtui.core.judge.negations.SETTINGS`) measured on every group (in sample), are printed beside
them, and last what memtui's scan itself proposes, judged the same way.

The cue-pair rule's contradictions (same type, overlap in [0.4, 0.6), use/avoid …) are fixed and
counted with every setting.
"""

from __future__ import annotations

import argparse
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from itertools import combinations, product
from pathlib import Path
from typing import Iterable

import numpy as np

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.eval_folders import CORPORA, LABELS_DIR, _pair, group_of, read_pair_labels  # noqa: E402
from memtui.core.judge.consolidate import cleaned_token_sets, is_candidate  # noqa: E402
from memtui.core.judge.contradictions import contradicting_pairs, find_contradictions  # noqa: E402
from memtui.core.judge.negations import (  # noqa: E402
    BASE,
    FAMILIES,
    LABELS,
    LOOSEST,
    SETTINGS,
    NegatedPair,
    Settings,
    _rank,
    negated_pairs,
)
from memtui.core.judge.simjoin import pair_score  # noqa: E402
from memtui.core.read.store import load_root  # noqa: E402
from memtui.core.roots.discover import roots_under  # noqa: E402

TARGET = 0.85  # the precision an extension's own proposals keep on the groups it is chosen on (the goal is 0.8)

GRID = {
    "neg_window": (1, 2, 3),
    "pos_window": (1, 2, 3),
    "max_df": (2, 3, 5, 8),
    "named": (True, False),
    "span_unnamed": (2, 99),
    "min_score": (0.0, 0.2),
    "context": (0, 1),
    "max_phrase": (1, 2, 99),
    "min_span": (1, 2),
    "status_affirms": (True, False),
}


@dataclass(frozen=True)
class Found:
    """One candidate: a negated pair of one root, with its pair score and corpora-relative key."""

    folder: str
    key: tuple[str, str]
    root: str  # the memory root, relative to the corpora folder
    pair: NegatedPair
    score: float
    neg_path: str
    pos_path: str


@dataclass
class Collected:
    found: list[Found] = field(default_factory=list)
    fixed: dict[str, set[tuple[str, str]]] = field(default_factory=lambda: defaultdict(set))  # cue-pair rule
    # what the scan proposes with memtui's SETTINGS: (folder, pair) -> (subject word or "", the two sentences)
    shipped: dict[tuple[str, tuple[str, str]], tuple[tuple[str, ...], tuple[str, str]]] = field(default_factory=dict)


def collect(corpora: Path = CORPORA, folders: list[str] | None = None) -> Collected:
    out = Collected()
    names = folders or sorted(p.name for p in corpora.iterdir() if p.is_dir())
    for folder in names:
        for root in roots_under(corpora / folder):
            rel = str(root.relative_to(corpora))
            snapshot = load_root(root)
            files = [f for f in snapshot.files.values() if is_candidate(f, True)]
            sets, _ = cleaned_token_sets(files)
            for i, j, _, _ in contradicting_pairs(files, sets):
                out.fixed[folder].add(_pair(rel, files[i].path, files[j].path))
            for found in find_contradictions(files, sets):
                subject = found.subject if found.negation in LABELS.values() else ()
                out.shipped[(folder, _pair(rel, found.old, found.new))] = (subject, found.sentences)
            for p in negated_pairs(files, [s.full for s in sets], LOOSEST, every=True):
                out.found.append(Found(folder, _pair(rel, files[p.neg].path, files[p.pos].path), rel, p,
                                       pair_score(sets[p.neg], sets[p.pos]),
                                       f"{rel}/{files[p.neg].path}", f"{rel}/{files[p.pos].path}"))
    return out


FAMILY_SETS = [frozenset(c) for n in range(1, len(FAMILIES) + 1) for c in combinations(FAMILIES, n)]


def settings_grid() -> list[Settings]:
    keys = list(GRID)
    return [Settings(families=f, **dict(zip(keys, values))) for f in FAMILY_SETS for values in product(*GRID.values())]


@dataclass
class Tally:
    tp: int = 0
    fp: int = 0  # labelled FALSE
    unread: int = 0  # proposed, not labelled
    fn: int = 0

    def add(self, o: Tally) -> None:
        self.tp += o.tp
        self.fp += o.fp
        self.unread += o.unread
        self.fn += o.fn

    @property
    def precision(self) -> float | None:
        n = self.tp + self.fp + self.unread
        return self.tp / n if n else None

    @property
    def recall(self) -> float | None:
        n = self.tp + self.fn
        return self.tp / n if n else None

    def text(self) -> str:
        def f(x: float | None) -> str:
            return "  -  " if x is None else f"{x:.3f}"
        return (f"P {f(self.precision)} R {f(self.recall)} "
                f"(TP {self.tp} FP {self.fp} unread {self.unread} FN {self.fn})")


def contradiction_labels() -> dict[str, dict[tuple[str, str], bool]]:
    out: dict[str, dict[tuple[str, str], bool]] = defaultdict(dict)
    for lab in read_pair_labels():
        if lab.kind == "contradiction":
            out[lab.folder][lab.key] = lab.true
    return out


class Table:
    """Every setting of the grid, tallied per author group: one pass over the candidates per
    setting of the constants, all the family subsets at once."""

    def __init__(self, c: Collected, labels: dict[str, dict[tuple[str, str], bool]], groups: list[str],
                 evidence: dict[tuple[str, str, str], bool]):
        self.groups = groups
        pairs = sorted({(f.folder, f.key) for f in c.found} | {(d, k) for d, keys in c.fixed.items() for k in keys})
        index = {p: n for n, p in enumerate(pairs)}
        g_of = {g: n for n, g in enumerate(groups)}
        self.n_pairs = len(pairs)
        self.pair_group = np.array([g_of[group_of(d)] for d, _ in pairs], dtype=np.int64)
        self.true_total = np.zeros(len(groups), dtype=np.int64)
        for d, keys in labels.items():
            self.true_total[g_of[group_of(d)]] += sum(keys.values())
        # the cue-pair rule's proposals: always made, judged by their pair's label
        self.fixed = np.zeros(self.n_pairs, dtype=bool)
        fixed_outcome = np.full(self.n_pairs, UNREAD, dtype=np.int64)
        for d, keys in c.fixed.items():
            for k in keys:
                n = index[(d, k)]
                self.fixed[n] = True
                label = labels.get(d, {}).get(k)
                fixed_outcome[n] = UNREAD if label is None else (RIGHT if label else WRONG)
        self.fixed_counts = np.bincount(self.pair_group[self.fixed] * 3 + fixed_outcome[self.fixed],
                                        minlength=len(groups) * 3).reshape(len(groups), 3)
        # candidates in the order the scan prefers them: by pair, then by rank
        found = sorted(c.found, key=lambda f: (index[(f.folder, f.key)], _rank(f.pair)))
        self.cand_pair = np.array([index[(f.folder, f.key)] for f in found], dtype=np.int64)
        self.cand_family = np.array([FAMILIES.index(f.pair.family) for f in found], dtype=np.int64)
        self.outcome = np.array([outcome(f, labels, evidence) for f in found], dtype=np.int64)
        self.neg_d = np.array([f.pair.neg_distance for f in found])
        self.pos_d = np.array([f.pair.pos_distance for f in found])
        self.df = np.array([f.pair.df for f in found])
        self.named = np.array([f.pair.named for f in found], dtype=bool)
        self.score = np.array([f.score for f in found])
        self.context = np.array([f.pair.context for f in found])
        self.phrase = np.array([f.pair.phrase for f in found])
        self.span = np.array([f.pair.span for f in found])
        self.pos_status = np.array([f.pair.pos_status and f.pair.family != "status" for f in found], dtype=bool)
        self.order = np.arange(len(found), dtype=np.int64)
        # the fixed base rule's candidates: proposed whatever the extension
        base_ok = np.array([f.pair.passes(BASE, f.score) for f in found], dtype=bool)
        self.first_base = np.full(self.n_pairs, len(found), dtype=np.int64)
        np.minimum.at(self.first_base, self.cand_pair[base_ok], self.order[base_ok])
        self.base_counts = self._tally_best(self.first_base)
        self.masks = [sum(1 << FAMILIES.index(fam) for fam in fs) for fs in FAMILY_SETS]
        self.settings: list[Settings] = []
        blocks = []
        keys = list(GRID)
        for values in product(*GRID.values()):
            kw = dict(zip(keys, values))
            blocks.append(self._counts(**kw))
            self.settings.extend(Settings(families=fs, **kw) for fs in FAMILY_SETS)
        self.counts = np.concatenate(blocks)  # (settings, groups, 3): right, wrong, unread proposals

    def _counts(self, neg_window: int, pos_window: int, max_df: int, named: bool, span_unnamed: int,
                min_score: float, context: int, max_phrase: int, min_span: int,
                status_affirms: bool) -> np.ndarray:
        ok = ((self.neg_d < neg_window) & (self.pos_d < pos_window) & (self.df <= max_df)
              & (self.named | (not named) | (self.span >= span_unnamed)) & (self.score >= min_score)
              & (self.context >= context) & (self.phrase <= max_phrase) & (self.span >= min_span)
              & (status_affirms | ~self.pos_status))
        none = len(self.order)
        first = []  # per family: the first (best) passing candidate of each pair, or ``none``
        for f in range(len(FAMILIES)):
            best = np.full(self.n_pairs, none, dtype=np.int64)
            sel = ok & (self.cand_family == f)
            np.minimum.at(best, self.cand_pair[sel], self.order[sel])
            first.append(best)
        best_of: dict[int, np.ndarray] = {}
        out = np.zeros((len(FAMILY_SETS), len(self.groups), 3), dtype=np.int64)
        for n, mask in enumerate(self.masks):
            low = mask & -mask
            rest = mask ^ low
            fam = low.bit_length() - 1
            best = first[fam] if not rest else np.minimum(best_of[rest], first[fam])
            best_of[mask] = best
            out[n] = self._tally_best(np.minimum(best, self.first_base))
        return out.astype(np.int16)

    def _tally_best(self, best: np.ndarray) -> np.ndarray:
        """(groups, 3) counts of right, wrong and unread proposals, each pair proposed on its best
        candidate ``best`` (``len(candidates)``: none), the cue-pair rule's pairs added."""
        outcome = np.append(self.outcome, UNREAD)
        hit = (best < len(self.order)) & ~self.fixed
        out = np.bincount(self.pair_group[hit] * 3 + outcome[best[hit]],
                          minlength=len(self.groups) * 3).reshape(len(self.groups), 3)
        return out + self.fixed_counts

    def tally(self, k: int, groups: Iterable[int]) -> Tally:
        """Setting ``k``'s figures on ``groups`` (-1: the base rule alone)."""
        t = Tally()
        for g in groups:
            tp, fp, unread = (int(x) for x in (self.counts[k, g] if k >= 0 else self.base_counts[g]))
            t.add(Tally(tp, fp, unread, int(self.true_total[g]) - tp))
        return t

    def choose(self, groups: list[int]) -> int:
        """The extension whose own proposals (those the base rule does not make) are right at
        precision ≥ TARGET on ``groups``, the most of them (fewest wrong or unread ones, then the
        tightest, on a tie); -1 (the base rule alone) when none adds a right one at that precision."""
        c = self.counts[:, groups, :].sum(axis=1)
        base = self.base_counts[groups].sum(axis=0)
        tp, wrong = c[:, 0] - base[0], (c[:, 1] + c[:, 2]) - (base[1] + base[2])
        ok = (tp > 0) & (tp >= TARGET * (tp + wrong))
        if not ok.any():
            return -1
        tight = np.array([_tightness(s) for s in self.settings], dtype=float)
        order = np.lexsort((tight, wrong, -tp))
        return int(next(k for k in order if ok[k]))


#: the families from the plainest statement of a negation to the loosest (a tie goes to the plainer)
STRENGTH = ("negated", "replaced", "no-longer", "removed", "status", "not", "absent")


def _tightness(s: Settings) -> float:
    """Smaller is tighter: fewer and plainer families, then smaller windows and frequencies, names only."""
    return (len(s.families) * 1e7 + sum(STRENGTH.index(f) for f in s.families) * 1e6
            + s.neg_window * 1e5 + s.pos_window * 1e4 + s.max_df * 1e2
            + (0 if s.named else 20) + (0 if s.span_unnamed > 9 else 10) + min(s.max_phrase, 9)
            - s.min_span - s.context * 0.1 - s.min_score * 0.01 + (0.5 if s.status_affirms else 0))


RIGHT, WRONG, UNREAD = 0, 1, 2


def outcome(f: Found, labels: dict[str, dict[tuple[str, str], bool]],
            evidence: dict[tuple[str, str, str], bool]) -> int:
    """What a reader says of one candidate proposed: its pair's label, and for a TRUE pair its
    evidence too (a TRUE pair proposed on sentences that do not show why is a wrong proposal)."""
    label = labels.get(f.folder, {}).get(f.key)
    if label is None:
        return UNREAD
    if not label:
        return WRONG
    verdict = evidence.get((f.key[0], f.key[1], f.pair.word))
    return UNREAD if verdict is None else (RIGHT if verdict else WRONG)


def read_evidence(path: Path = LABELS_DIR / "contradiction-evidence.tsv") -> dict[tuple[str, str, str], bool]:
    """(a, b, word) -> whether the proposal's quoted sentences about ``word`` show the contradiction."""
    out = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.strip() or line.startswith("#"):
            continue
        root, a, b, word, verdict, _ = line.split("\t")
        if verdict not in ("RIGHT", "WRONG"):
            raise ValueError(f"{path.name}: bad verdict {verdict!r}")
        x, y = _pair(root, a, b)
        out[(x, y, word)] = verdict == "RIGHT"
    return out


NOTHING = Settings(families=frozenset(), neg_window=1, pos_window=1, max_df=2, named=True, min_score=1.0)  # none


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--unread", action="store_true", help="list every held-out or shipped proposal not labelled")
    parser.add_argument("--all", action="store_true", help="list every shipped proposal with its label")
    args = parser.parse_args()
    if not CORPORA.is_dir():
        print(f"no corpora at {CORPORA}")
        return 0
    c = collect()
    labels = contradiction_labels()
    folders = sorted(p.name for p in CORPORA.iterdir() if p.is_dir())
    groups = sorted({group_of(f) for f in folders})
    evidence = read_evidence()
    table = Table(c, labels, groups, evidence)
    print(f"{len(c.found)} candidates at the loosest settings, {len(table.settings)} settings, {len(groups)} groups, "
          f"target precision {TARGET} on the groups a setting is chosen on\n")
    held = Tally()
    chosen: list[tuple[str, Settings]] = []
    print("held out (the base rule and the extension chosen on the other groups, measured on the one left out):")
    for g, name in enumerate(groups):
        k = table.choose([x for x in range(len(groups)) if x != g])
        s = NOTHING if k < 0 else table.settings[k]
        t = table.tally(k, [g])
        held.add(t)
        chosen.append((name, s))
        print(f"  {name:24} {t.text()}  ← {describe(s)}")
    print(f"  {'POOLED':24} {held.text()}")
    base = table.tally(-1, range(len(groups)))
    print(f"\nthe base rule alone (fixed, not tuned) on every group: {base.text()}\n  {describe(BASE)}")
    k = table.choose(list(range(len(groups))))
    final = NOTHING if k < 0 else table.settings[k]
    inside = table.tally(k, range(len(groups)))
    print(f"\nbase + the extension chosen on every group, measured on every group (in sample): {inside.text()}\n"
          f"  {describe(final)}")
    if final != SETTINGS:
        print(f"  memtui ships another: {describe(SETTINGS)}")
    shipped = Tally()
    for (folder, key), (word, _) in c.shipped.items():
        o = judge(folder, key, word, labels, evidence)
        shipped.add(Tally(*(int(o == x) for x in (RIGHT, WRONG, UNREAD)), 0))
    right = {(d, k) for (d, k), (w, _) in c.shipped.items() if judge(d, k, w, labels, evidence) == RIGHT}
    shipped.fn = sum(1 for d, keys in labels.items() for k, true in keys.items() if true and (d, k) not in right)
    print(f"memtui's proposals (scan, SETTINGS) on every folder: {shipped.text()}")
    if args.unread or args.all:
        show(c, labels, evidence, chosen, final, args.all)
    return 0


def judge(folder: str, key: tuple[str, str], subject: tuple[str, ...],
          labels: dict[str, dict[tuple[str, str], bool]], evidence: dict[tuple[str, str, str], bool]) -> int:
    """:func:`outcome` of a proposal given by pair and subject words (the first judged word counts)."""
    label = labels.get(folder, {}).get(key)
    if label is None:
        return UNREAD
    if not label:
        return WRONG
    if not subject:  # the cue-pair rule: judged by its pair
        return RIGHT
    verdict = next((evidence[(key[0], key[1], w)] for w in subject if (key[0], key[1], w) in evidence), None)
    return UNREAD if verdict is None else (RIGHT if verdict else WRONG)


def best_proposals(c: Collected, s: Settings, folders: set[str] | None = None) -> dict[tuple[str, tuple[str, str]], Found]:
    """The candidate each pair is proposed on under a setting (the best passing one, as the scan picks)."""
    out: dict[tuple[str, tuple[str, str]], Found] = {}
    for f in c.found:
        if (folders is None or f.folder in folders) and f.pair.passes(s, f.score):
            key = (f.folder, f.key)
            if key not in out or _rank(f.pair) < _rank(out[key].pair):
                out[key] = f
    return out


def describe(s: Settings) -> str:
    fams = ",".join(f for f in FAMILIES if f in s.families) or "none"
    return (f"families {fams}; neg≤{s.neg_window} pos≤{s.pos_window} df≤{s.max_df} "
            f"{'named' if s.named else 'any word'}{f' or span≥{s.span_unnamed}' if s.named and s.span_unnamed < 9 else ''} "
            f"score≥{s.min_score} context≥{s.context} phrase≤{s.max_phrase} span≥{s.min_span}"
            f"{' done-affirms' if s.status_affirms else ''}")


def show(c: Collected, labels: dict[str, dict[tuple[str, str], bool]], evidence: dict[tuple[str, str, str], bool],
         held: list[tuple[str, Settings]], final: Settings, every: bool) -> None:
    """Every proposal of a held-out setting on its own group, of the in-sample setting and of
    memtui's scan, once per pair; with ``every`` the judged ones too (else only the unread)."""
    wanted: dict[tuple[str, tuple[str, str]], tuple[str, Found | None]] = {}
    for g, s in held:
        for key, f in best_proposals(c, s).items():
            if group_of(key[0]) == g:
                wanted.setdefault(key, ("held-out", f))
    for key, f in best_proposals(c, final).items():
        wanted.setdefault(key, ("in-sample", f))
    for key in c.shipped:
        wanted[key] = ("shipped", wanted.get(key, ("", None))[1])
    for (folder, key), (where, f) in sorted(wanted.items()):
        subject = c.shipped[(folder, key)][0] if where == "shipped" else (f.pair.word,) if f is not None else ()
        verdict = judge(folder, key, subject, labels, evidence)
        if verdict != UNREAD and not every:
            continue
        mark = ("RIGHT", "WRONG", "UNREAD")[verdict]
        print(f"\n[{mark}] ({where}) {folder}  {key[0][len(folder) + 1:]}  ·  {key[1][len(folder) + 1:]}  "
              f"about {' '.join(subject)!r}")
        if where == "shipped":
            for sentence in c.shipped[(folder, key)][1]:
                print(f"   {sentence}")
        elif f is not None:
            print(f"   NEG {f.neg_path}: {f.pair.neg_sentence}")
            print(f"   POS {f.pos_path}: {f.pair.pos_sentence}")


if __name__ == "__main__":
    raise SystemExit(main())
