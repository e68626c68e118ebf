"""Benchmark ``memtui mcp``'s tools, warm, beside ``memtui hook pre`` on the same roots, in one run.

For a 1k-file and a 10k-file synthetic root (bench/synth.py), one server (the door over the root,
behind the SDK's ``MCPServer``) is connected to the SDK's own client in process, as Claude Code
keeps one connection for a session; after one warm-up call per tool (the first call loads the root
through the stat cache), each tool is called ``--samples`` times and the median wall-clock and CPU
milliseconds of a call are printed (CPU: the whole process, the SDK's worker thread included).
Every call sees other writers' changes first (each memory file's stat key is checked), so these are
what an agent waits for per call.  The writes are real: each sample of a change tool is a different
note (remember: a new one; update: a new hook; archive then restore; supersede and merge: fresh
pairs), journaled and gated as the agent's.

The baseline, in the same run on the same root: ``memtui hook pre`` as Claude Code runs it for a
Write of a new topic file (a new process, the hook JSON on stdin, its stat cache warm).  Target:
every tool < 100 ms warm on the 10k root.

    .venv/bin/python bench/bench_mcp.py [--samples 21] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import make_root  # noqa: E402

TARGET_MS = 100.0
TOPIC = "---\nname: bench fact\ndescription: a new fact\ntype: project\n---\n\nA new fact.\n"


def memtui_command() -> list[str]:
    script = Path(sys.executable).parent / "memtui"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "memtui"]


def hook_pre(root: Path, project: Path, env: dict[str, str], n: int) -> tuple[float, float]:
    """Median wall and CPU ms of ``memtui hook pre`` judging a Write of a new topic file in ``root``."""
    payload = json.dumps({
        "session_id": "bench", "transcript_path": "/tmp/bench.jsonl", "cwd": str(project),
        "hook_event_name": "PreToolUse", "permission_mode": "default", "tool_name": "Write",
        "tool_use_id": "toolu_bench",
        "tool_input": {"file_path": str(root / "bench_new_fact.md"), "content": TOPIC},
    }).encode()
    times, cpu = [], []
    for i in range(n + 1):
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        start = time.perf_counter()
        done = subprocess.run([*memtui_command(), "hook", "pre"], input=payload, capture_output=True,
                              env=env, check=False)
        elapsed = (time.perf_counter() - start) * 1000
        after = resource.getrusage(resource.RUSAGE_CHILDREN)
        if done.returncode != 0:
            raise SystemExit(f"hook pre exited {done.returncode}: {done.stderr.decode()[:300]}")
        if i:
            times.append(elapsed)
            cpu.append((after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000)
    return statistics.median(times), statistics.median(cpu)


def word(i: int, j: int) -> str:
    """An invented word of its own for sample ``i``, position ``j`` (no two samples share one)."""
    n, out = i * 16 + j + 1000, ""
    while n:
        n, r = divmod(n, 26)
        out += "bcdfghjklmnpqrstvwxzaeiouy"[r]
    return "q" + out + "x"


def plans(files: list[str], n: int) -> dict[str, list[dict[str, Any]]]:
    """The arguments of each tool's samples (the warm-up first), each change on other notes."""
    k = n + 1
    pool = [p for p in files if not p.startswith("archive/")]
    return {
        "memory_search": [{"query": q} for q in (["webhook retry", "canary rollback", "quota tenant"] * k)[:k]],
        "memory_read": [{"path": pool[i * 7]} for i in range(k)],
        "memory_loaded": [{}] * k,
        "memory_validate": [{}] * k,
        "memory_remember": [{"title": f"{word(i, 0)} {word(i, 1)} {word(i, 2)}",
                             "body": " ".join(word(i, j) for j in range(3, 12)) + "."} for i in range(k)],
        "memory_update": [{"path": pool[i], "hook": f"reviewed in bench pass {i}"} for i in range(k)],
        "memory_archive": [{"path": pool[200 + i]} for i in range(k)],
        "memory_restore": [{"path": f"archive/{pool[200 + i]}"} for i in range(k)],
        "memory_supersede": [{"old": pool[400 + 2 * i], "new": pool[401 + 2 * i]} for i in range(k)],
        "memory_merge": [{"paths": [pool[600 + 2 * i], pool[601 + 2 * i]]} for i in range(k)],
    }


async def measure_tools(root: Path, n: int) -> dict[str, tuple[float, float, int]]:
    """Median wall and CPU ms of each tool over ``n`` warm calls (and how many were refused)."""
    from mcp import Client

    from memtui.core.read.store import list_root
    from memtui.mcp.door import Door
    from memtui.mcp.server import build_server

    files = sorted(rel for rel, _ in list_root(root).memory)
    door = Door([root], session="bench", freeze_heap=True)  # as `memtui mcp` opens it
    out: dict[str, tuple[float, float, int]] = {}
    async with Client(build_server(door)) as client:
        for tool, samples in plans(files, n).items():
            times, cpu, errors = [], [], 0
            for i, args in enumerate(samples):
                start, start_cpu = time.perf_counter(), time.process_time()
                result = await client.call_tool(tool, args)
                elapsed = (time.perf_counter() - start) * 1000
                spent = (time.process_time() - start_cpu) * 1000
                if result.is_error:
                    errors += 1
                    if errors == 1:
                        print(f"  ({tool} refused: {result.content[0].text[:160]!r})")  # type: ignore[union-attr]
                if i:
                    times.append(elapsed)
                    cpu.append(spent)
            out[tool] = (statistics.median(times), statistics.median(cpu), errors)
    return out


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=21)
    parser.add_argument("--keep", type=Path, help="build the roots here and keep them")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="memtuibench-mcp"))
    try:
        return run(base, args.samples)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


def run(base: Path, n: int) -> int:
    project = base / "project"
    project.mkdir(parents=True, exist_ok=True)
    os.environ["MEMTUI_CACHE_DIR"] = str(base / "cache")
    os.environ.pop("MEMTUI_NO_CACHE", None)
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(base / "config")}
    env.pop("CLAUDE_PROJECT_DIR", None)
    roots = {}
    for label, count in (("1k", 1_000), ("10k", 10_000)):
        root = base / f"root{label}"
        shutil.rmtree(root, ignore_errors=True)  # the writes change it: a fresh one each run
        make_root(root, count)
        roots[label] = root
    time.sleep(2.5)  # the stat cache trusts only files older than 2 s (its racy-write rule)
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{n} warm calls per tool (after one warm-up); {os.cpu_count()} cores; load average {load}; "
          f"Python {sys.version.split()[0]}")
    ok = True
    for label, root in roots.items():
        pre_wall, pre_cpu = hook_pre(root, project, env, max(5, n // 2))
        tools = asyncio.run(measure_tools(root, n))
        print(f"\n{label} root ({label.replace('k', ',000')} files)   target < {TARGET_MS:.0f} ms warm")
        print(f"{'':22} {'median':>9} {'cpu':>9} {'× hook pre':>11} {'refused':>8}")
        print(f"{'memtui hook pre':22} {pre_wall:7.1f}ms {pre_cpu:7.1f}ms {1.0:10.2f}× {'':>8}")
        for tool, (wall, cpu, errors) in tools.items():
            miss = "" if wall < TARGET_MS else "  MISS"
            ok = ok and (wall < TARGET_MS or label != "10k")
            print(f"{tool:22} {wall:7.1f}ms {cpu:7.1f}ms {wall / pre_wall:10.2f}× {errors:8d}{miss}")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
