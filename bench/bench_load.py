"""Benchmark: load + validate of synthetic roots (1k, 10k, 100k files) against a floor.

The floor is a plain loop that lists the folder and reads every file's bytes — the least any
loader must do.  Prints median time, peak memory and the ratio to the floor, measured in the
same run.  Targets: 10k within 3× the floor and under 0.5 s; 100k under 10 s.

    python bench/bench_load.py [--sizes 1000,10000,100000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import tempfile
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import make_root  # noqa: E402

from memtui.core.read.store import load_root  # noqa: E402
from memtui.core.rules.validate import validate  # noqa: E402


def floor(root: Path) -> int:
    total = 0
    stack = [str(root)]
    while stack:
        with os.scandir(stack.pop()) as it:
            for entry in it:
                if entry.is_dir():
                    stack.append(entry.path)
                else:
                    with open(entry.path, "rb") as handle:
                        total += len(handle.read())
    return total


def load_and_validate(root: Path) -> int:
    return len(validate(load_root(root)))


def median_time(fn, arg, repeat: int) -> float:  # type: ignore[no-untyped-def]
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn(arg)
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def peak_mib(fn, arg) -> float:  # type: ignore[no-untyped-def]
    tracemalloc.start()
    fn(arg)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1000,10000,100000")
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(f"{'files':>7} {'floor s':>8} {'load+validate s':>16} {'ratio':>6} {'peak MiB':>9} {'findings':>9}")
    with tempfile.TemporaryDirectory() as tmp:
        for n in (int(x) for x in args.sizes.split(",")):
            root = make_root(Path(tmp) / f"root{n}", n)
            floor(root)  # warm the page cache for both sides
            repeat = args.repeat if n <= 10_000 else max(1, args.repeat // 2)
            t_floor = median_time(floor, root, repeat)
            t_load = median_time(load_and_validate, root, repeat)
            peak = peak_mib(load_and_validate, root)
            findings = load_and_validate(root)
            print(f"{n:>7} {t_floor:>8.3f} {t_load:>16.3f} {t_load / t_floor:>6.2f} {peak:>9.1f} {findings:>9}")
            sys.stdout.flush()


if __name__ == "__main__":
    main()
