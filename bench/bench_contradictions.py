"""Benchmark the contradiction pass of the scan on the synthetic root of bench_consolidate.

    .venv/bin/python bench/bench_contradictions.py              # 10k files
    .venv/bin/python bench/bench_contradictions.py --sizes 1000 10000
    .venv/bin/python bench/before_after.py BASE bench/bench_contradictions.py -- --sizes 10000

The root is :func:`bench.bench_consolidate.synthetic_snapshot` (its descriptions start with
directive verbs, so cue pairs occur).  Its candidate files are tokenised as the scan does
(``cleaned_token_sets``, not timed), then :func:`find_contradictions` runs once as the scan calls
it, timed: the cue pairs and, where the tree has them, the negated claims.  One call per process (each size in its
own child), so no in-process cache of an earlier call helps it; run it under before_after.py for
a before/after in one run.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.bench_consolidate import synthetic_snapshot  # noqa: E402
from memtui.core.judge.consolidate import cleaned_token_sets, is_candidate  # noqa: E402
from memtui.core.judge.contradictions import find_contradictions  # noqa: E402


def measure(n: int) -> dict[str, object]:
    snapshot, _ = synthetic_snapshot(n)
    files = [f for f in snapshot.files.values() if is_candidate(f, False)]
    sets, _ = cleaned_token_sets(files)
    t0, c0 = time.perf_counter(), time.process_time()
    found = find_contradictions(files, sets)  # as the scan calls it
    return {"files": len(files), "wall_s": time.perf_counter() - t0, "cpu_s": time.process_time() - c0,
            "contradictions": len(found)}


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000])
    parser.add_argument("--child", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        print(json.dumps(measure(args.child)))
        return 0
    print(f"{'files':>7} {'wall s':>8} {'cpu s':>8} {'found':>6}")
    for n in args.sizes:
        done = subprocess.run([sys.executable, __file__, "--child", str(n)], capture_output=True, text=True,
                              check=True)
        r = json.loads(done.stdout.strip().splitlines()[-1])
        print(f"{r['files']:>7} {r['wall_s']:>8.3f} {r['cpu_s']:>8.3f} {r['contradictions']:>6}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
