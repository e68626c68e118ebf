"""Benchmark the Claude Code hooks as whole processes, the way Claude Code runs them.

Each sample starts ``memtui hook …`` (the installed console script) as a new process with the
hook JSON on stdin and waits for it to exit.  The floor is a bare ``python -c pass`` measured in
the same run with the same interpreter.  Bytecode caching is on for the children, as it is for
an installed memtui, and so is memtui's stat cache (``MEMTUI_CACHE_DIR`` under the bench
folder); the warm-up run fills both.  The "no cache" rows run with ``MEMTUI_NO_CACHE=1``.  Targets: a path outside every memory root < 40 ms
median (about twice the floor), ``hook pre`` on a 1k-file root < 120 ms, on a 10k-file root
< 400 ms, ``hook stop`` on a project with a 1k-file root < 80 ms (with the session's baseline:
session-start takes it in the warm-up).

``--before REF`` (default ``main``) measures the same cases, in the same run and on the same
roots, with memtui as it is at that git commit (``git archive`` of its ``memtui/`` package): both
trees run through the same command with ``PYTHONPATH`` naming the tree, from a folder outside
both (so the folder the bench is started in never decides which memtui runs), one sample of
each in turn, so a change in the machine's load hits both alike; ``--before ''`` measures this
tree alone.

    .venv/bin/python bench/bench_hooks.py [--samples 21] [--keep DIR] [--before REF]
"""

from __future__ import annotations

import argparse
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import make_root  # noqa: E402

TARGETS_MS = {"outside": 40.0, "1k": 120.0, "10k": 400.0, "stop": 80.0}
REPO = Path(__file__).resolve().parent.parent


def memtui_command() -> list[str]:
    script = Path(sys.executable).parent / "memtui"
    return [str(script)] if script.is_file() else [sys.executable, "-m", "memtui"]


def run_once(argv: list[str], payload: bytes, env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall-clock and CPU (user + system) milliseconds of one run.  CPU time says what a run
    costs when other processes share the cores."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, input=payload, capture_output=True, env=env, check=False, cwd=cwd)
    elapsed = (time.perf_counter() - start) * 1000
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{argv} exited {done.returncode}: {done.stderr.decode()[:300]}")
    return elapsed, (after.ru_utime + after.ru_stime - before.ru_utime - before.ru_stime) * 1000


def sample(runs: list[tuple[list[str], dict[str, str]]], payload: bytes, n: int,
           cwd: Path) -> list[tuple[list[float], list[float]]]:
    """Wall-clock and CPU milliseconds of ``n`` runs of each ``(argv, env)`` of ``runs``, taken
    in turn (the order swapped every round; one warm-up round first, not counted)."""
    out: list[tuple[list[float], list[float]]] = [([], []) for _ in runs]
    for i in range(n + 1):
        order = range(len(runs)) if i % 2 else range(len(runs) - 1, -1, -1)
        for k in order:
            wall, cpu = run_once(runs[k][0], payload, runs[k][1], cwd)
            if i:
                out[k][0].append(wall)
                out[k][1].append(cpu)
    return out


def pre_payload(path: Path, cwd: Path, tool: str = "Write", **tool_input: object) -> bytes:
    return json.dumps({
        "session_id": "bench", "transcript_path": "/tmp/bench.jsonl", "cwd": str(cwd),
        "hook_event_name": "PreToolUse", "permission_mode": "default", "tool_name": tool,
        "tool_use_id": "toolu_bench", "tool_input": {"file_path": str(path), **tool_input},
    }).encode()


TOPIC = "---\nname: bench fact\ndescription: a new fact\ntype: project\n---\n\nA new fact.\n"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--samples", type=int, default=21)
    parser.add_argument("--keep", type=Path, help="build the roots here and keep them")
    parser.add_argument("--before", default="main", metavar="REF",
                        help="also measure memtui at this git commit ('' for none; default main)")
    args = parser.parse_args()
    base = args.keep or Path(tempfile.mkdtemp(prefix="memtuibench"))
    try:
        before = extract(args.before, base / "before") if args.before else None
        return run(base, args.samples, before)
    finally:
        if args.keep is None:
            shutil.rmtree(base, ignore_errors=True)


def extract(ref: str, dest: Path) -> Path:
    """``memtui/`` as it is at ``ref``, unpacked under ``dest`` (the folder to put on PYTHONPATH)."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    archive = subprocess.run(["git", "-C", str(REPO), "archive", ref, "memtui"], capture_output=True,
                             check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(dest)], input=archive, check=True)
    return dest


def run(base: Path, n: int, before: Path | None = None) -> int:
    project = base / "project"
    (project / "src").mkdir(parents=True, exist_ok=True)
    config = base / "config"
    env = {**os.environ, "CLAUDE_CONFIG_DIR": str(config), "MEMTUI_CACHE_DIR": str(base / "cache")}
    env.pop("MEMTUI_NO_CACHE", None)
    cold = {**env, "MEMTUI_NO_CACHE": "1"}
    env.pop("CLAUDE_PROJECT_DIR", None)
    # an installed memtui has its bytecode cached (pip compiles it); let the warm-up write it
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    roots = {}
    built = False
    for label, count in (("1k", 1_000), ("10k", 10_000)):
        root = base / f"root{label}"
        if not (root / "MEMORY.md").is_file():
            make_root(root, count)
            built = True
        roots[label] = root
    if built:  # the stat cache trusts only files older than 2 s (its racy-write rule)
        time.sleep(2.5)
    memtui = memtui_command()
    cases: list[tuple[str, list[str], bytes, str | None, dict[str, str]]] = [
        ("bare python -c pass", [sys.executable, "-c", "pass"], b"", None, env),
        ("pre, outside: src/main.py", [*memtui, "hook", "pre"],
         pre_payload(project / "src" / "main.py", project, content="print()\n"), "outside", env),
        ("pre, outside: README.md", [*memtui, "hook", "pre"],
         pre_payload(project / "README.md", project, content="# readme\n"), "outside", env),
    ]
    for label, root in roots.items():
        index = (root / "MEMORY.md").read_text()
        first = index.splitlines()[0] + "\n"
        topic = pre_payload(root / "bench_new_fact.md", project, content=TOPIC)
        edit = pre_payload(root / "MEMORY.md", project, "Edit", old_string=first,
                           new_string=first + "Reviewed today.\n", replace_all=False)
        cases += [
            (f"pre, {label} root: new topic file, no cache", [*memtui, "hook", "pre"], topic, None,
             cold),
            (f"pre, {label} root: new topic file", [*memtui, "hook", "pre"], topic, label, env),
            (f"pre, {label} root: Edit MEMORY.md", [*memtui, "hook", "pre"], edit, label, env),
        ]
    # stop and session-start read the project's auto memory: point it at the 1k root
    from memtui.core.model.claude_settings import encode_project_path

    old_name = project.as_posix().replace("/", "-").replace(".", "-")  # before: same when no "_"
    for name in {encode_project_path(str(project)), old_name}:
        auto = config / "projects" / name / "memory"
        auto.parent.mkdir(parents=True, exist_ok=True)
        if not auto.exists():
            auto.symlink_to(roots["1k"])
    stop = json.dumps({"session_id": "bench", "cwd": str(project), "hook_event_name": "Stop",
                       "stop_hook_active": False}).encode()
    start = json.dumps({"session_id": "bench", "cwd": str(project),
                        "hook_event_name": "SessionStart", "source": "startup"}).encode()
    agent = project / ".claude" / "agent-memory" / "reviewer"
    if not agent.exists():
        agent.parent.mkdir(parents=True, exist_ok=True)
        agent.symlink_to(roots["1k"])
    subagent = json.dumps({"session_id": "bench", "cwd": str(project),
                           "hook_event_name": "SubagentStop", "stop_hook_active": False,
                           "agent_type": "reviewer"}).encode()
    # the session's baseline exists before the samples (as after a real SessionStart)
    for tree, cache_suffix in ((REPO, ""), (before, "-before")):
        if tree is not None:
            subprocess.run([*memtui, "hook", "session-start"], input=start, capture_output=True,
                           env={**env, "PYTHONPATH": str(tree),
                                "MEMTUI_CACHE_DIR": env["MEMTUI_CACHE_DIR"] + cache_suffix},
                           check=False, cwd=base)
    cases += [
        ("stop, project with a 1k root", [*memtui, "hook", "stop"], stop, "stop", env),
        ("subagent-stop, a 1k agent memory", [*memtui, "hook", "subagent-stop"], subagent, None, env),
        ("session-start, project with a 1k root", [*memtui, "hook", "session-start"], start, None,
         env),
    ]
    results = []
    floor = None
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{n} samples per case (after one warm-up); {os.cpu_count()} cores; load average {load}; "
          f"Python {sys.version.split()[0]}")
    if before is not None:
        print(f"before: memtui at the commit given by --before, from {before}; after: {REPO}; "
              f"both through {' '.join(memtui)}, samples alternating")
    print(f"{'case':46} {'before':>9} {'cpu':>9} {'median':>9} {'p90':>9} {'× floor':>8} "
          f"{'cpu':>9} {'× floor':>8} {'cpu a/b':>8} {'target':>8}")
    cpu_floor = None
    for name, argv, payload, target, case_env in cases:
        count = n if "10k" not in name else max(5, n // 2)
        then = then_cpu = ratio = "-"
        runs = [(argv, {**case_env, "PYTHONPATH": str(REPO)})]
        if before is not None and argv[:len(memtui)] == memtui and "subagent" not in name:
            old_env = {**case_env, "PYTHONPATH": str(before),
                       "MEMTUI_CACHE_DIR": case_env.get("MEMTUI_CACHE_DIR", "") + "-before"}
            runs.append((argv, old_env))
        measured = sample(runs, payload, count, base)
        times, cpu = measured[0]
        median, cpu_median = statistics.median(times), statistics.median(cpu)
        if len(measured) > 1:
            old_times, old_cpu = measured[1]
            then = f"{statistics.median(old_times):7.1f}ms"
            then_cpu = f"{statistics.median(old_cpu):7.1f}ms"
            ratio = f"{cpu_median / (statistics.median(old_cpu) or 1.0):7.2f}×"
        p90 = statistics.quantiles(times, n=10)[-1] if len(times) >= 10 else max(times)
        floor = floor or median
        cpu_floor = cpu_floor or cpu_median or 1.0
        limit = TARGETS_MS.get(target or "")
        verdict = "" if limit is None else f"<{limit:.0f} " + ("ok" if median < limit else "MISS")
        results.append((name, median, p90, median / floor, verdict))
        print(f"{name:46} {then:>9} {then_cpu:>9} {median:7.1f}ms {p90:7.1f}ms {median / floor:7.1f}× "
              f"{cpu_median:7.1f}ms {cpu_median / cpu_floor:7.1f}× {ratio:>8} {verdict:>8}")
    print("targets are wall-clock medians on an unloaded machine; on a shared one the cpu column "
          "(user + system time of the process) is what a run costs; 'cpu a/b' is this tree's CPU "
          "over the commit's")
    return 0 if all("MISS" not in r[4] for r in results) else 1


if __name__ == "__main__":
    raise SystemExit(main())
