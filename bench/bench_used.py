"""Benchmark ``memtui used`` over many Claude Code transcripts: time and peak memory, cold and warm.

A scratch Claude config holds a memory root of 100 topic files and ``--transcripts`` session
transcripts of about ``--mb`` MB each, made of the real v2.1.332 lines in
``tests/core/data/transcripts`` (bookkeeping lines, reads, edits, writes) with their paths spread
over the root's files.  Each sample is a whole ``memtui used --json`` process; *cold* starts with
an empty memtui cache, *warm* runs again on the kept cache.  The baseline, in the same run, is a
process that parses every line of every transcript with ``json.loads`` (what a reader that parses
everything costs).  Peak memory is the process's resident high-water mark (``VmHWM``: Linux).

    .venv/bin/python bench/bench_used.py [--transcripts 200] [--mb 1] [--samples 3] [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

DATA = Path(__file__).resolve().parent.parent / "tests" / "core" / "data" / "transcripts"
RECORDED_ROOT = "/home/user/.claude/projects/-home-user-proj/memory"

_CHILD = """
import resource, sys, time
start = time.perf_counter()
{body}
wall = time.perf_counter() - start
use = resource.getrusage(resource.RUSAGE_SELF)
hwm = next(int(x.split()[1]) for x in open("/proc/self/status") if x.startswith("VmHWM:"))
sys.stderr.write(f"BENCH {{wall:.4f}} {{use.ru_utime + use.ru_stime:.4f}} {{hwm}}\\n")
"""
_USED = """
import contextlib, io
from memtui.cli.main import main
with contextlib.redirect_stdout(io.StringIO()):
    code = main(["used", sys.argv[1], "--json"])
assert code == 0, code
"""
_NAIVE = """
import json, os
folder = sys.argv[1]
n = 0
for name in sorted(os.listdir(folder)):
    if name.endswith(".jsonl"):
        with open(os.path.join(folder, name), "rb") as f:
            for line in f:
                json.loads(line); n += 1
"""


def build(base: Path, count: int, mb: float) -> tuple[Path, Path]:
    """A config with one project: its memory root and ``count`` transcripts of ``mb`` MB."""
    folder = base / ".claude" / "projects" / "-home-user-proj"
    root = folder / "memory"
    root.mkdir(parents=True, exist_ok=True)
    names = [f"topic_{i:03d}.md" for i in range(100)]
    (root / "MEMORY.md").write_text("".join(f"- [T{i}]({n}) — topic {i}\n" for i, n in enumerate(names[:90])))
    for n in names:
        (root / n).write_text(f"---\nname: {n[:-3]}\ndescription: d\ntype: project\n---\nbody\n")
    lines = []
    for transcript in sorted(DATA.glob("session*.jsonl")):
        lines += transcript.read_text(encoding="utf-8").replace(RECORDED_ROOT, str(root)).splitlines()
    target = int(mb * (1 << 20))
    for t in range(count):
        out, size, k = [], 0, 0
        while size < target:
            for line in lines:
                k += 1
                text = line.replace("build_steps.md", names[(t + k) % 100]).replace(
                    "code_style.md", names[(t * 7 + k) % 100])
                out.append(text)
                size += len(text) + 1
        day = 1 + t % 28
        body = "\n".join(out).replace("2026-12-01T", f"2026-11-{day:02d}T") + "\n"
        (folder / f"{t:08x}-0000-4000-8000-000000000000.jsonl").write_text(body, encoding="utf-8")
        stamp = time.time() - 3600 * (count - t)  # past sessions: old enough to be cached
        os.utime(folder / f"{t:08x}-0000-4000-8000-000000000000.jsonl", (stamp, stamp))
    return root, folder


def sample(code: str, arg: str, env: dict[str, str]) -> tuple[float, float, int]:
    done = subprocess.run([sys.executable, "-c", _CHILD.format(body=code), arg], env=env,
                          capture_output=True, text=True, check=True)
    line = next(x for x in done.stderr.splitlines() if x.startswith("BENCH "))
    _, wall, cpu, peak = line.split()
    return float(wall), float(cpu), int(peak)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--transcripts", type=int, default=200)
    parser.add_argument("--mb", type=float, default=1.0)
    parser.add_argument("--samples", type=int, default=3)
    parser.add_argument("--keep", help="build in this folder and keep it")
    args = parser.parse_args()
    base = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="bench-used-"))
    try:
        t0 = time.perf_counter()
        root, folder = build(base, args.transcripts, args.mb)
        total = sum(p.stat().st_size for p in folder.glob("*.jsonl"))
        print(f"{args.transcripts} transcripts, {total / 1e6:.0f} MB (built in {time.perf_counter() - t0:.1f} s)")
        cache = base / "cache"
        env = {**os.environ, "HOME": str(base), "MEMTUI_CACHE_DIR": str(cache)}
        env.pop("CLAUDE_CONFIG_DIR", None)
        rows = {"naive json.loads of every line": [], "memtui used, cold": [], "memtui used, warm": []}
        for _ in range(args.samples):
            rows["naive json.loads of every line"].append(sample(_NAIVE, str(folder), env))
            shutil.rmtree(cache, ignore_errors=True)
            rows["memtui used, cold"].append(sample(_USED, str(root), env))
            rows["memtui used, warm"].append(sample(_USED, str(root), env))
        base_cpu = statistics.median(c for _, c, _ in rows["naive json.loads of every line"])
        print(f"{'':32} {'wall s':>7} {'CPU s':>7} {'MB/CPU s':>9} {'peak RSS MB':>12} {'CPU vs naive':>13}")
        for name, got in rows.items():
            wall = statistics.median(w for w, _, _ in got)
            cpu = statistics.median(c for _, c, _ in got)
            peak = max(p for _, _, p in got) / 1024
            print(f"{name:32} {wall:7.3f} {cpu:7.3f} {total / 1e6 / cpu:9.0f} {peak:12.1f} {cpu / base_cpu:13.2f}")
        print("medians of the samples; wall from the child's first line (memtui's imports included, "
              "the interpreter's start not), CPU of the whole child process")
    finally:
        if not args.keep:
            shutil.rmtree(base, ignore_errors=True)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
