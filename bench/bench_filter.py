"""Benchmark: the Files view's filter function alone, per keystroke, at 100k rows.

    .venv/bin/python bench/bench_filter.py [--rows 100000] [--rounds 3]

The rows' search keys have the shape the Files view matches (``path title``, as the synthetic
roots of ``bench/synth.py`` name their files); the search keys are built once, as the view keeps
them.  The app bench's query is typed a letter at a time and backspaced again, ``--rounds``
times; each keystroke is the filter call and the reading of one screen of its rows (48), which is
what the view paints.  Printed: the median and the slowest keystroke (wall ms, and the CPU ms of
the whole typing), typing alone and backspacing alone.  Run it with ``bench/before_after.py``
for a ratio against a baseline.
"""

from __future__ import annotations

import argparse
import random
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import FAMILIES, WORDS  # noqa: E402

from memtui.services import search  # noqa: E402

QUERY = "lesson registry"  # as bench_app.py types
SCREEN = 48


def keys_of(rows: int) -> list[str]:
    rng = random.Random(7)
    out = []
    for i in range(rows):
        family = FAMILIES[i % len(FAMILIES)]
        out.append(f"{family}_{i:06d}_{rng.choice(WORDS)}.md {family} {i} {rng.choice(WORDS)}")
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rows", type=int, default=100_000)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args()
    rows = keys_of(args.rows)
    start = time.perf_counter()
    keys = search.SearchKeys(rows, str)
    built = time.perf_counter() - start
    ranked = getattr(search, "fuzzy_ranked", None)  # lazy where the tree has it

    def keystroke(query: str) -> tuple[float, int]:
        start = time.perf_counter()
        if ranked is not None:
            found = ranked(query, rows, str, keys)
        else:
            found = search.fuzzy_filter(query, rows, str, keys)
        screen = found[:SCREEN]
        elapsed = time.perf_counter() - start
        assert len(screen) <= SCREEN
        return elapsed, len(found)

    typing: list[float] = []
    erasing: list[float] = []
    counts: list[int] = []
    cpu = time.process_time()
    for _ in range(args.rounds):
        for n in range(1, len(QUERY) + 1):
            elapsed, count = keystroke(QUERY[:n])
            typing.append(elapsed)
            counts.append(count)
        for n in range(len(QUERY) - 1, -1, -1):
            erasing.append(keystroke(QUERY[:n])[0])
    cpu = time.process_time() - cpu
    both = typing + erasing
    print(f"{args.rows:,} rows; search keys built in {built * 1000:.0f} ms")
    print(f"  keystroke median {statistics.median(both) * 1000:.1f} ms, slowest {max(both) * 1000:.1f} ms")
    print(f"  typing median {statistics.median(typing) * 1000:.1f} ms, slowest {max(typing) * 1000:.1f} ms")
    print(f"  backspace median {statistics.median(erasing) * 1000:.1f} ms, slowest {max(erasing) * 1000:.1f} ms")
    print(f"  cpu per keystroke {cpu * 1000 / len(both):.1f} ms")
    print(f"  matches as typed: {' '.join(str(c) for c in counts[:len(QUERY)])}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
