"""The judgment's tuned constants, chosen leave-one-folder-out, and the figures they give.

    .venv/bin/python bench/tune_pairs.py            # LOFO figures, per group and pooled, and the pick on all groups
    .venv/bin/python bench/tune_pairs.py --quick    # a coarser grid

Each constant of :class:`memtui.core.judge.weights.Tuning` is picked from a grid by the same rule
every time: among the values whose proposals keep the kind's precision target over the labelled
pairs of the groups it may see (0.9 for merges, 0.85 for logs: the figures the judgment must
reach) even with one wrong proposal more than they made (``--margin``: a precision measured on
a dozen proposals must survive the next folder's first mistake), the one with the most right
proposals, then the fewest wrong; ties go to the median of the tied values.  (The merge block is
judged on merge pairs; the log block on log pairs and on merge pairs too, since what is a log
decides which merges are proposed.)  For each author group (:func:`bench.eval_folders.group_of`) the pick is made on
every *other* group and scored on that one: the held-out figures.  The defaults memtui ships are
the pick on all groups (printed last); a figure on a group a value was picked on is printed only
beside, as "in sample".

The grid is searched in two blocks that barely touch each other — the merge constants
(``merge_hold``, ``rare_cosine``) with the log constants at their defaults, then the log constants
(``log_hold``, ``named_hold``) with the merge constants at the block's pick — each block scored on
both kinds.  Every grid point scans every corpus folder once; the picks are arithmetic on those
scores.
"""

from __future__ import annotations

import argparse
import pickle
import statistics
import sys
import time
from dataclasses import replace
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.eval_folders import (  # noqa: E402
    CORPORA,
    Score,
    by_group,
    evaluate,
)
from memtui.core.judge.consolidate import scan  # noqa: E402
from memtui.core.judge.weights import DEFAULT_TUNING, Tuning  # noqa: E402
from memtui.core.model.snapshot import Snapshot  # noqa: E402

PRECISION = {"merge": 0.9, "log": 0.85}
GRID = {
    "merge_hold": (0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9),
    "rare_cosine": (0.4, 0.5, 0.6, 0.7),
    "log_hold": (0.6, 0.7, 0.8, 0.9),
    "named_hold": (0.0, 0.1, 0.15, 0.2, 0.25, 0.3, 0.35),
}
QUICK = {"merge_hold": (0.65, 0.75, 0.85), "rare_cosine": (0.5, 0.7), "log_hold": (0.7, 0.9),
         "named_hold": (0.0, 0.2, 0.3)}
BLOCKS = (("merge_hold", "rare_cosine"), ("log_hold", "named_hold"))
#: the kinds the log block is judged on
LOG_BLOCK = ("log", "merge")

GroupScores = dict[str, dict[str, Score]]


def scores_of(tuning: Tuning) -> GroupScores:
    """Every group's scores (by kind) with ``tuning``."""
    def scan_fn(snapshot: Snapshot, include_sessions: bool):  # type: ignore[no-untyped-def]
        return scan(snapshot, include_sessions=include_sessions, tuning=tuning)
    return by_group(evaluate(CORPORA, scan_fn, tuning=tuning))


def totals(scores: GroupScores, groups: set[str], kind: str) -> Score:
    total = Score()
    for group in groups:
        total.add(scores[group][kind])
    return total


#: wrong proposals a pick must be able to add and still keep its precision target (``--margin``)
MARGIN = 1


def rank(scores: GroupScores, groups: set[str], kinds: tuple[str, ...]) -> tuple[float, ...]:
    """How good a grid point is on ``groups`` for ``kinds``, best highest: first whether each
    kind keeps its precision target — with :data:`MARGIN` more wrong proposals than it made —
    then the right proposals, then the wrong ones fewer."""
    kept = right = wrong = 0
    for kind in kinds:
        s = totals(scores, groups, kind)
        made = s.tp + s.fp
        kept += made == 0 or s.tp / (made + MARGIN) >= PRECISION[kind] - 1e-9
        right += s.tp
        wrong += s.fp
    return (kept, right, -wrong)


def pick(table: dict[Tuning, GroupScores], groups: set[str], kinds: tuple[str, ...]) -> Tuning:
    """The grid point of best :func:`rank` over ``groups``; ties: the median tied point (by the
    order of the grid)."""
    points = list(table)
    ranks = [rank(table[t], groups, kinds) for t in points]
    best = max(ranks)
    tied = [t for t, r in zip(points, ranks) if r == best]
    return tied[(len(tied) - 1) // 2]


def main() -> int:
    global MARGIN
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="a coarser grid")
    parser.add_argument("--grid", action="append", default=[], metavar="NAME=V1,V2",
                        help="the values of one constant to search (repeatable; the others keep the grid's)")
    parser.add_argument("--table", type=Path, metavar="FILE",
                        help="keep the scanned grid points in FILE and read them back on the next run "
                             "(the picks are arithmetic on them; delete FILE after a judgment change)")
    parser.add_argument("--margin", type=int, default=MARGIN, metavar="N",
                        help=f"a pick keeps the precision target with N more wrong proposals (default {MARGIN})")
    args = parser.parse_args()
    MARGIN = args.margin
    if not CORPORA.is_dir():
        print(f"no corpora at {CORPORA}")
        return 0
    grid = dict(QUICK if args.quick else GRID)
    for spec in args.grid:
        name, _, values = spec.partition("=")
        if name not in grid:
            parser.error(f"--grid: no constant {name!r} (one of {', '.join(grid)})")
        grid[name] = tuple(float(v) for v in values.split(","))
    started = time.perf_counter()
    table: dict[Tuning, GroupScores] = {}
    if args.table and args.table.exists():
        with args.table.open("rb") as f:
            table.update(pickle.load(f))

    def fill(points: list[Tuning]) -> None:
        for t in points:
            if t not in table:
                table[t] = scores_of(t)
                if args.table:
                    with args.table.open("wb") as f:
                        pickle.dump(table, f)
                print(f"  scanned {len(table)} grid points ({time.perf_counter() - started:.0f} s)",
                      file=sys.stderr, flush=True)

    base = DEFAULT_TUNING
    first = [replace(base, merge_hold=m, rare_cosine=r) for m in grid["merge_hold"] for r in grid["rare_cosine"]]
    fill(first)
    groups = set(next(iter(table.values())))
    # per held-out group: the merge block's pick on the others, then the log block around it
    held_out: dict[str, Tuning] = {}
    for g in sorted(groups):
        others = groups - {g}
        m = pick({t: table[t] for t in first}, others, ("merge",))
        second = [replace(m, log_hold=lh, named_hold=nh) for lh in grid["log_hold"] for nh in grid["named_hold"]]
        fill(second)
        held_out[g] = pick({t: table[t] for t in second}, others, LOG_BLOCK)
    m_all = pick({t: table[t] for t in first}, groups, ("merge",))
    second_all = [replace(m_all, log_hold=lh, named_hold=nh) for lh in grid["log_hold"] for nh in grid["named_hold"]]
    fill(second_all)
    chosen = pick({t: table[t] for t in second_all}, groups, LOG_BLOCK)

    print(f"{len(table)} grid points scanned in {time.perf_counter() - started:.0f} s\n")
    for kind in PRECISION:
        print(f"== {kind}: held out (the pick made on the other groups)      in sample (the pick on all)")
        pooled, inside = Score(), Score()
        for g in sorted(groups):
            s, s_in = table[held_out[g]][g][kind], table[chosen][g][kind]
            pooled.add(s)
            inside.add(s_in)
            if s.tp + s.fp + s.fn:
                print(f"  {g:22} {s.text():58} {s_in.text()}")
        print(f"  {'POOLED':22} {pooled.text():58} {inside.text()}\n")
    print("picks per held-out group:")
    for g in sorted(groups):
        t = held_out[g]
        print(f"  {g:22} merge_hold {t.merge_hold} rare_cosine {t.rare_cosine} log_hold {t.log_hold} "
              f"named_hold {t.named_hold}")
    print(f"\nthe pick on all groups (memtui's defaults): {chosen}")
    spread = {name: statistics.pstdev(getattr(t, name) for t in held_out.values()) for name in grid}
    print("how much the pick moves between folds (std. dev.): "
          + ", ".join(f"{k} {v:.3f}" for k, v in spread.items()))
    if chosen != DEFAULT_TUNING:
        fill([DEFAULT_TUNING])
        same = table[DEFAULT_TUNING] == table[chosen]
        print(f"NOTE: memtui's DEFAULT_TUNING is {DEFAULT_TUNING}, not the pick"
              + (" — a tie: the same figures on every group and kind" if same else ""))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
