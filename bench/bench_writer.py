"""Benchmark the writer: gate + apply for pin, decay and archive on a generated 10k-file root.

Prints, per verb, the median time to build the changeset, to gate it (incremental validation of
the after-snapshot plus the gate), and to apply it (lock, changed-on-disk check, journal, atomic
writes, fsyncs), and the ratio of gate + apply to one full validation of the same root.
Target: gate + apply under 30 ms median per verb.

    .venv/bin/python bench/bench_writer.py [--files 10000] [--samples 25] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

from memtui.core import write
from memtui.core.model.changeset import Changeset
from memtui.core.model.snapshot import Snapshot
from memtui.core.read.store import load_root
from memtui.core.rules.incremental import FindingsCache, findings_cache
from memtui.core.rules.validate import validate
from memtui.core.verbs import lifecycle as verbs

FAMILIES = ("session", "lesson", "feedback", "project", "reference")


def generate(root: Path, count: int, recent: int = 120) -> None:
    """A root of ``count`` topic files in five families: Pinned, Recent and one region per family."""
    root.mkdir(parents=True, exist_ok=True)
    names = []
    for i in range(count):
        family = FAMILIES[i % len(FAMILIES)]
        name = f"{family}_{i:05d}.md"
        names.append(name)
        (root / name).write_text(
            f"---\nname: {family} {i}\ndescription: fact number {i} about the {family}\n"
            f"type: project\ncreated: 2026-{1 + i % 12:02d}-{1 + i % 28:02d}\n---\n\n"
            f"Body of fact {i}: what happened, why it matters, and how to apply it.\n"
        )
    lines = ["# Memory", "", "Generated for the writer benchmark.", "", "## Pinned", "", "## Recent"]
    lines += [f"- [{n[:-3]}]({n}) — fact about {n[:-3]}" for n in names[-recent:]]
    lines += ["", "## Regions"]
    lines += [f"- region `{f}_*.md` → older {f} notes; grep the memory dir" for f in FAMILIES]
    (root / "MEMORY.md").write_text("\n".join(lines) + "\n")


def fsync_latency(folder: Path, samples: int = 15) -> float:
    """Median seconds to write and fsync a small file here: the floor under every apply, which
    fsyncs six or seven times (journal, each file, its folders, the commit mark)."""
    times = []
    for i in range(samples):
        path = folder / f".fsync-probe-{i}"
        t = time.perf_counter()
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.write(fd, b"x" * 4096)
        os.fsync(fd)
        os.close(fd)
        times.append(time.perf_counter() - t)
        os.unlink(path)
    return statistics.median(times)


def median_ms(values: list[float]) -> float:
    return statistics.median(values) * 1000


def bench_verb(
    root: Path, name: str, build: Callable[[Snapshot, str], Changeset], targets: list[str],
    snapshot: Snapshot, cache: FindingsCache,
) -> tuple[dict[str, list[float]], Snapshot, FindingsCache]:
    times: dict[str, list[float]] = {"build": [], "gate": [], "apply": []}
    for path in targets:
        t0 = time.perf_counter()
        changeset = build(snapshot, path)
        t1 = time.perf_counter()
        preview = write.plan(snapshot, changeset, cache)
        t2 = time.perf_counter()
        if not preview.accepted:
            raise SystemExit(f"{name} {path} refused: {preview.refusal_message()}")
        applied = write.commit(preview)
        t3 = time.perf_counter()
        times["build"].append(t1 - t0)
        times["gate"].append(t2 - t1)
        times["apply"].append(t3 - t2)
        snapshot, cache = applied.snapshot, applied.cache
    return times, snapshot, cache


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--samples", type=int, default=25)
    parser.add_argument("--keep", metavar="DIR", help="generate the root here and keep it")
    args = parser.parse_args(argv)

    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memtui-bench-"))
    root = workdir / "root"
    try:
        if not (root / "MEMORY.md").exists():
            generate(root, args.files)
        t = time.perf_counter()
        snapshot = load_root(root)
        load_s = time.perf_counter() - t
        full = []
        for _ in range(5):
            t = time.perf_counter()
            validate(snapshot)
            full.append(time.perf_counter() - t)
        t = time.perf_counter()
        cache = findings_cache(snapshot)
        cache_s = time.perf_counter() - t
        assert list(cache.findings) == validate(snapshot)
        full_ms = median_ms(full)
        probe = fsync_latency(root)
        print(f"root: {len(snapshot.files):,} files, MEMORY.md {snapshot.index.size:,} bytes / "
              f"{len(snapshot.index.lines)} lines")
        print(f"load {load_s * 1000:.0f} ms · full validation {full_ms:.1f} ms (median of 5) · "
              f"findings cache {cache_s * 1000:.0f} ms (once per load) · "
              f"fsync {probe * 1000:.2f} ms (median)")

        recent = [line.resolved for line in snapshot.index.entries if line.resolved]
        n = min(args.samples, len(recent) // 3)
        plans: list[tuple[str, Callable[[Snapshot, str], Changeset], list[str]]] = [
            ("pin", verbs.pin, recent[:n]),
            ("decay", verbs.decay, recent[n : 2 * n]),
            ("archive", verbs.archive, recent[2 * n : 3 * n]),
        ]
        print(f"\n{'verb':<8} {'build':>8} {'gate':>8} {'apply':>8} {'gate+apply':>11} {'÷ full':>7}"
              f"  (median ms, n={n})")
        worst = 0.0
        for name, build, targets in plans:
            times, snapshot, cache = bench_verb(root, name, build, targets, snapshot, cache)
            gate_apply = [g + a for g, a in zip(times["gate"], times["apply"], strict=True)]
            total = median_ms(gate_apply)
            worst = max(worst, total)
            print(f"{name:<8} {median_ms(times['build']):8.2f} {median_ms(times['gate']):8.2f} "
                  f"{median_ms(times['apply']):8.2f} {total:11.2f} {total / full_ms:7.2f}")
        assert list(cache.findings) == validate(load_root(root)), "incremental findings drifted"
        verdict = "OK" if worst < 30 else "OVER"
        print(f"\ntarget: gate + apply < 30 ms median per verb — {verdict} (worst {worst:.2f} ms)")
        return 0 if worst < 30 else 1
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
