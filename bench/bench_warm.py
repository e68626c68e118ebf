"""Benchmark: the commands a person or the agent's hook runs most, cold and warm, before and after.

Builds the synthetic roots of ``bench/synth.py`` (``--sizes``, default 10k and 100k files) and a
root whose ``MEMORY.md`` has ``--lines`` lines (default 300k), waits until every file is older
than the stat cache's racy window, then times whole processes (bytecode cached, as installed),
each variant in turn, median of ``--repeat`` (``--big-repeat`` at 100k files and more):

- ``dream --dry-run`` and ``rebuild --dry-run``, cold (an empty cache folder) and warm;
- ``validate --quiet --no-record`` warm, ``loaded`` warm and ``hook pre`` (a Write of a new topic
  file into the root) warm, after one untimed call (the session's baseline);
- ``hook pre landed``, last: an Edit of a topic file judged, then written to disk before the
  next one is judged, as Claude Code does;
- the long index's ``dream --dry-run`` plan (cold and warm).

Every command runs with this tree's memtui and with ``--base`` (default ``/work/base``, a
checkout of memtui before these changes: run with ``PYTHONPATH`` set to it, from it), in the same
run on the same roots, so the table shows before and after side by side.  Printed: wall seconds,
the load average at start and end, and the ratios dream warm ÷
cold, rebuild warm ÷ cold, loaded ÷ validate warm, hook pre ÷ validate warm, after ÷ before.
``--cases`` runs only the cases it names.
A base run slower than ``--timeout`` seconds is cut there and shown as ``>T``.

    python bench/bench_warm.py [--sizes 10000,100000] [--lines 300000] [--repeat 3]
        [--big-repeat 1] [--base /work/base] [--timeout 300] [--keep DIR] [--cases A,B]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import WORDS, make_root  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
RACY_WAIT = 2.2  # seconds: the stat cache trusts only files older than 2 s
TOPIC = ("---\nname: bench new fact\ndescription: a fact the agent writes\ntype: project\n---\n\n"
         "The registry sweeper runs nightly.\n")

def make_long_index(dest: Path, lines: int, files: int = 1000, seed: int = 5) -> Path:
    """A root of ``files`` topic files whose ``MEMORY.md`` has ``lines`` lines: headings, one
    entry per file, and prose bullets."""
    rng = random.Random(seed)
    make_root(dest, files, seed)
    names = sorted(p.name for p in dest.glob("*.md") if p.name != "MEMORY.md")
    out = ["# Memory", ""]
    entries = iter(names)
    while len(out) < lines:
        if len(out) % 200 == 2:
            out += ["", f"## Section {len(out) // 200}"]
            continue
        name = next(entries, None)
        if name is not None and rng.random() < 0.5:
            out.append(f"- [{name[:-3]}]({name}) — {rng.choice(WORDS)} {rng.choice(WORDS)} fact")
        else:
            out.append(f"- {' '.join(rng.choice(WORDS) for _ in range(rng.randint(4, 10)))}")
    (dest / "MEMORY.md").write_text("\n".join(out[:lines]) + "\n")
    return dest


def run(command: list[str], env: dict[str, str], cwd: Path, stdin: bytes = b"",
        timeout: float | None = None) -> float:
    """Wall seconds of one whole process; ``inf`` when it was stopped at ``timeout``.

    The wait blocks until the process ends (a timer kills it at ``timeout``):
    ``subprocess.run(timeout=…)`` waits by polling, with sleeps growing to 50 ms, so every time
    it measured was rounded up to the poll after the exit (0.065, 0.115, 0.165 … s)."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, env=env, cwd=cwd, stdin=subprocess.PIPE,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    stopped = threading.Event()

    def stop() -> None:
        stopped.set()
        proc.kill()

    timer = threading.Timer(timeout, stop) if timeout is not None else None
    if timer is not None:
        timer.start()
    try:
        assert proc.stdin is not None
        try:
            proc.stdin.write(stdin)
            proc.stdin.close()
        except BrokenPipeError:  # it ended without reading all of it
            pass
        proc.wait()
    finally:
        if timer is not None:
            timer.cancel()
    return float("inf") if stopped.is_set() else time.perf_counter() - start


class Tree:
    """One memtui to run: this tree, or the base checkout (on PYTHONPATH, run from it)."""

    def __init__(self, name: str, path: Path, work: Path) -> None:
        self.name = name
        self.path = path
        self.cache = work / f"cache-{name}"
        self.env = dict(os.environ, PYTHONPATH=str(path), MEMTUI_CACHE_DIR=str(self.cache),
                        MEMTUI_NO_PRESSURE="1", CLAUDE_CONFIG_DIR=str(work / "claude-config"))
        self.env.pop("MEMTUI_NO_CACHE", None)
        self.env.pop("PYTHONDONTWRITEBYTECODE", None)
        self.env.pop("CLAUDE_PROJECT_DIR", None)

    def command(self, *args: str) -> list[str]:
        return [sys.executable, "-m", "memtui", *args]


def median(samples: list[float]) -> float:
    return statistics.median(samples)


def fmt(seconds: float) -> str:
    return ">T" if seconds == float("inf") else f"{seconds:.3f}"


def ratio(a: float, b: float) -> str:
    if a == float("inf") or b == float("inf") or not b:
        return "  —"
    return f"{a / b:.2f}"


def measure_root(root: Path, trees: list[Tree], project: Path, repeat: int, timeout: float,
                 only_dream: bool = False, only: frozenset[str] = frozenset()
                 ) -> dict[str, dict[str, float]]:
    """Median wall seconds of every case for every tree on one root (``only``: these cases)."""
    pre = json.dumps({
        "session_id": "bench", "cwd": str(project), "hook_event_name": "PreToolUse",
        "tool_name": "Write", "tool_use_id": "toolu_bench",
        "tool_input": {"file_path": str(root / "bench_new_fact.md"), "content": TOPIC},
    }).encode()
    found: dict[str, dict[str, list[float]]] = {t.name: {} for t in trees}
    cases = ["dream cold", "dream warm"] if only_dream else [
        "dream cold", "dream warm", "rebuild cold", "rebuild warm", "validate warm",
        "loaded warm", "hook pre warm", "hook pre landed"]
    if only:
        cases = [case for case in cases if case in only]
    for tree in trees:  # one untimed run each: bytecode written, page cache warm, cache filled
        run(tree.command("validate", "--quiet", "--no-record", str(root)), tree.env, tree.path,
            timeout=timeout)
        if "hook pre warm" in cases:  # and the hook's own first call (the session's baseline)
            run(tree.command("hook", "pre"), tree.env, project, pre, timeout)
    for _ in range(repeat):
        for tree in trees:
            samples = found[tree.name]

            def timed(case: str, command: list[str], stdin: bytes = b"", cwd: Path | None = None,
                      tree: Tree = tree, samples: dict[str, list[float]] = samples) -> None:
                samples.setdefault(case, []).append(
                    run(command, tree.env, cwd or tree.path, stdin, timeout))

            for verb in ("dream", "rebuild") if not only_dream else ("dream",):
                if f"{verb} cold" not in cases:
                    continue
                shutil.rmtree(tree.cache, ignore_errors=True)
                timed(f"{verb} cold", tree.command(verb, "--dry-run", str(root)))
                if samples[f"{verb} cold"][-1] == float("inf"):  # too slow: warm is not faster
                    samples.setdefault(f"{verb} warm", []).append(float("inf"))
                    continue
                timed(f"{verb} warm", tree.command(verb, "--dry-run", str(root)))
            if only_dream:
                continue
            if "validate warm" in cases:
                timed("validate warm", tree.command("validate", "--quiet", "--no-record", str(root)))
                timed("validate warm", tree.command("validate", "--quiet", "--no-record", str(root)))
            if "loaded warm" in cases:
                timed("loaded warm", tree.command("loaded", str(root)))
            if "hook pre warm" in cases:
                timed("hook pre warm", tree.command("hook", "pre"), pre, project)
    if "hook pre landed" in cases:  # last: these writes change the root
        landed(root, trees, project, repeat, timeout, found)
    return {tree: {case: median(samples[case]) for case in cases} for tree, samples in found.items()}


def landed(root: Path, trees: list[Tree], project: Path, repeat: int, timeout: float,
           found: dict[str, dict[str, list[float]]]) -> None:
    """``hook pre`` as the agent meets it: each judged Edit of a topic file lands on disk before
    the next one is judged (so the run after a write sees that file changed)."""
    target = sorted(p for p in root.glob("*.md") if not p.name.startswith("MEMORY"))[len(trees)]
    for _ in range(max(repeat, 3)):
        for tree in trees:
            text = target.read_text()
            old = text.splitlines(keepends=True)[-1]
            new = old.rstrip("\n") + " Again.\n"
            payload = json.dumps({
                "session_id": "bench", "cwd": str(project), "hook_event_name": "PreToolUse",
                "tool_name": "Edit", "tool_use_id": "toolu_bench",
                "tool_input": {"file_path": str(target), "old_string": old, "new_string": new},
            }).encode()
            found[tree.name].setdefault("hook pre landed", []).append(
                run(tree.command("hook", "pre"), tree.env, project, payload, timeout))
            target.write_text(text.replace(old, new, 1))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--lines", type=int, default=300_000, help="the long index's lines (0: none)")
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--big-repeat", type=int, default=1)
    parser.add_argument("--base", default="/work/base", help="memtui before ('' for none)")
    parser.add_argument("--timeout", type=float, default=300.0)
    parser.add_argument("--keep", metavar="DIR", help="build the roots here and keep them")
    parser.add_argument("--cases", default="", help="only these cases, comma-separated (e.g. "
                        "'validate warm,hook pre warm,hook pre landed')")
    args = parser.parse_args()
    only = frozenset(c.strip() for c in args.cases.split(",") if c.strip())

    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memtui-warm-"))
    try:
        trees = [Tree("after", REPO, work)]
        if args.base:
            trees.append(Tree("before", Path(args.base), work))
        project = work / "project"
        (project / "src").mkdir(parents=True, exist_ok=True)
        roots: list[tuple[str, Path, bool]] = []
        for n in [int(x) for x in args.sizes.split(",") if x]:
            root = work / f"synth{n}"
            if not (root / "MEMORY.md").exists():
                make_root(root, n)
            roots.append((f"synth {n:,} files", root, False))
        if args.lines:
            root = work / f"index{args.lines}"
            if not (root / "MEMORY.md").exists():
                make_long_index(root, args.lines)
            roots.append((f"MEMORY.md of {args.lines:,} lines", root, True))
        time.sleep(RACY_WAIT)
        load = os.getloadavg()
        print(f"python {sys.version.split()[0]} · {os.cpu_count()} cores · load average "
              f"{load[0]:.2f} {load[1]:.2f} {load[2]:.2f} at start · wall seconds, median of "
              f"{args.repeat} (of {args.big_repeat} at 100k files and for the long index)")
        for label, root, long_index in roots:
            big = long_index or sum(1 for _ in root.glob("*.md")) >= 50_000
            result = measure_root(root, trees, project, args.big_repeat if big else args.repeat,
                                  args.timeout, only_dream=long_index, only=only)
            print(f"\n{label}")
            cases = list(next(iter(result.values())))
            print(f"{'case':>16} | " + " | ".join(f"{t.name:>8}" for t in trees)
                  + (" | after/before" if len(trees) > 1 else ""))
            for case in cases:
                cells = [fmt(result[t.name][case]) for t in trees]
                line = f"{case:>16} | " + " | ".join(f"{c:>8}" for c in cells)
                if len(trees) > 1:
                    line += f" | {ratio(result['after'][case], result['before'][case]):>12}"
                print(line)
            for tree in trees:
                r = result[tree.name]
                pairs = [("dream warm/cold", "dream warm", "dream cold")]
                if not long_index:
                    pairs += [("rebuild warm/cold", "rebuild warm", "rebuild cold"),
                              ("loaded/validate warm", "loaded warm", "validate warm"),
                              ("hook pre/validate warm", "hook pre warm", "validate warm"),
                              ("hook pre landed/validate warm", "hook pre landed", "validate warm")]
                parts = [f"{label} {ratio(r[a], r[b])}" for label, a, b in pairs if a in r and b in r]
                print(f"  {tree.name}: " + " · ".join(parts))
            sys.stdout.flush()
        load = os.getloadavg()
        print(f"\nload average at end {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
