"""Benchmark the dream plan (and the inbox) on a synthetic root written by ``bench/synth.py``.

    .venv/bin/python bench/bench_dream.py                 # 10,000 files
    .venv/bin/python bench/bench_dream.py --files 2000

The root gets a few HTML-comment history blocks in its index and a handful of planted
near-duplicate pairs, so every kind of item is built.  Printed, each the best of ``--repeat``
runs: loading the root, one full validation, the consolidation scan and the staleness scores
(the same-run baselines), then the whole dream plan (which does all of those, builds every item
and gates each on the ones before it) and the gate of the default selection as one change —
with the plan's ratio to one validation.  Then the inbox: seeding the baseline, and a look after
ten outside edits.  The target is a plan under 3 s at 10,000 files.
"""

from __future__ import annotations

import argparse
import os
import random
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import make_root  # noqa: E402

from memtui.core import dream, seen  # noqa: E402
from memtui.core.consolidate import scan  # noqa: E402
from memtui.core.staleness import score_root  # noqa: E402
from memtui.core.store import load_root  # noqa: E402
from memtui.core.validate import validate  # noqa: E402

T = TypeVar("T")
NOW = datetime(2026, 11, 30, tzinfo=timezone.utc)


def best(repeat: int, fn: Callable[[], T]) -> tuple[float, T]:
    times, value = [], None
    for _ in range(repeat):
        start = time.perf_counter()
        value = fn()
        times.append(time.perf_counter() - start)
    return min(times), value  # type: ignore[return-value]


def _vocabulary_body(rng: random.Random, words: list[str], size: int) -> str:
    """A body of about ``size`` bytes drawn from a Zipf-like vocabulary (realistic overlap)."""
    out, length = [], 0
    while length < size:
        word = words[min(len(words) - 1, int(rng.paretovariate(0.9)) - 1)]
        if rng.random() < 0.7:
            word = rng.choice(words)
        out.append(word)
        length += len(word) + 1
    return " ".join(out) + "\n"


def prepare(dest: Path, n: int) -> Path:
    """``synth.make_root`` with each body re-drawn from a 20,000-word vocabulary.

    synth's bodies use 60 words, so every pair of files overlaps and the consolidation scan
    alone proposes ~290,000 pairs at 1,000 files — a measure of that corner, not of dream."""
    root = make_root(dest, n)
    rng = random.Random(11)
    words = [f"w{i:05d}x" for i in range(20_000)]
    for path in sorted(root.rglob("*.md")):
        if path.name.startswith("MEMORY"):
            continue
        text = path.read_text()
        head, sep, body = text.partition("---\n\n")
        path.write_text(head + sep + _vocabulary_body(rng, words, len(body)))
    index = root / "MEMORY.md"
    text = index.read_text()
    head, _, rest = text.partition("\n")
    history = "".join(f"<!-- session {i}: notes kept in the index -->\n" for i in range(5))
    index.write_text(head + "\n" + history + rest)
    for i in range(5):  # planted near-duplicates, indexed under the regions
        body = f"Shard rebalancing run {i}: move replicas off node {i} before the upgrade window.\n"
        for suffix in ("a", "b"):
            (root / f"decision_dup{i}_{suffix}.md").write_text(
                f"---\nname: Shard rebalancing procedure {i} {suffix}\ndescription: how\n"
                f"type: project\nupdated: 2026-11-0{i + 1}\n---\n\n{body}")
    return root


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memtui-bench-dream-") as tmp:
        os.environ["MEMTUI_CACHE_DIR"] = str(Path(tmp) / "cache")
        root = prepare(Path(tmp) / "root", args.files)
        t_load, snapshot = best(args.repeat, lambda: load_root(root))
        t_validate, _ = best(args.repeat, lambda: validate(snapshot))
        t_scan, _ = best(args.repeat, lambda: scan(snapshot))
        t_stale, _ = best(args.repeat, lambda: score_root(snapshot, NOW))
        t_plan, plan = best(args.repeat, lambda: dream.plan_dream(snapshot, NOW))
        t_gate, verdict = best(args.repeat, lambda: dream.preview(plan, plan.default))
        kinds = {kind: sum(1 for item in plan.items if item.kind == kind) for kind in dream.KINDS}
        print(f"root: {len(snapshot.files):,} files; items: {kinds}; default set accepted: {verdict.accepted}")
        print(f"load        {t_load * 1000:8.0f} ms")
        print(f"validate    {t_validate * 1000:8.0f} ms   (baseline)")
        print(f"scan        {t_scan * 1000:8.0f} ms")
        print(f"staleness   {t_stale * 1000:8.0f} ms")
        print(f"dream plan  {t_plan * 1000:8.0f} ms   {t_plan / t_validate:5.1f}× validate   "
              f"target < 3000 ms: {'ok' if t_plan < 3 else 'MISSED'}")
        print(f"gate of the default set {t_gate * 1000:5.0f} ms")
        start = time.perf_counter()
        seen.inbox(snapshot)
        t_seed = time.perf_counter() - start
        names = sorted(p for p in snapshot.files if not p.startswith("archive/"))[:10]
        for name in names:
            with open(root / name, "a") as handle:
                handle.write("edited outside\n")
        fresh = load_root(root)
        t_look, look = best(args.repeat, lambda: seen.inbox(fresh))
        print(f"inbox seed  {t_seed * 1000:8.0f} ms   look {t_look * 1000:6.0f} ms "
              f"({len(look.changes)} changes)")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
