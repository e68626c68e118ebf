"""Benchmark: full staleness with reference checks on a 10k-file memory root beside a 5k-file
git project, against a naive baseline that searches the project once per symbol.

Run: ``.venv/bin/python bench/bench_staleness.py [--memory 10000] [--project 5000] [--runs 5]``.

``--whole`` times whole processes instead, as a user runs them (from ``.pyc``, run from the
temporary folder): ``memtui stale --json ROOT`` and ``memtui stale ROOT`` (piped) on the generated
root and on ``memtui demo``'s, each variant in turn (alternation), median of ``--runs``: cold (an
empty cache folder), warm (the cache of the previous run), after a project edit (one project
source file rewritten just before: its answer cannot be kept; the bench then waits out the racy
window before the next cold run), and each
``--peer 'COMMAND {root} {args}'`` (a shell command; ``{args}`` is the memtui arguments).

Everything is generated in a temporary folder (removed afterwards): the project is committed
with git so ``git ls-files`` works, and the memory root lives inside it at ``.claude/memory``
(so ``git log`` dates and the identifier index's memory exclusion are exercised too).  The timed
run is :func:`memtui.core.judge.staleness.score_root` on a loaded snapshot with a fresh project cache
each run (so the identifier index is rebuilt every time); loading the snapshot is timed apart,
and so is scoring the same files again from their kept facts (:func:`rows_at`).

The baseline does what a naive checker would: for every distinct symbol, one ``git grep -w -F``
over the project (multithreaded, and usually faster than reading the files again from Python).
Running it for every symbol would take minutes, so it is timed on a random sample of symbols
and extrapolated linearly to all of them; the output says so.  The baseline leaves out
everything else the full run does (extraction, dates, paths, branches), which favours it.
"""

from __future__ import annotations

import argparse
import os
import random
import shlex
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memtui.core.judge.staleness import facts_of, rows_at, score_root  # noqa: E402
from memtui.core.read.project import ProjectCache  # noqa: E402
from memtui.core.read.references import RefKind, extract_references  # noqa: E402
from memtui.core.read.store import load_root  # noqa: E402

NOW = date(2026, 11, 29)
TYPES = ("project", "feedback", "reference", "user", "value", "unknown")
WORDS = ("the", "cache", "service", "request", "token", "retry", "config", "worker", "queue",
         "session", "index", "schema", "migration", "handler", "build", "deploy", "test", "user",
         "policy", "store", "client", "server", "event", "stream", "batch", "limit", "timeout")
PROSE = [
    "We decided to keep the {w1} {w2} small because the {w3} path was slow under load.",
    "When the {w1} fails, check the {w2} logs first; most failures come from the {w3} layer.",
    "The {w1} owner asked that {w2} changes go through review before the {w3} freeze.",
    "Measured on staging: the {w1} {w2} took twice as long once the {w3} grew past 10k rows.",
    "Keep the {w1} and the {w2} in the same transaction, or the {w3} sees half a change.",
]
DIRECTIVES = ["Never skip the {w1} step.", "Do not mock the {w1} {w2} in tests.",
              "Avoid touching the {w1} by hand."]
BRANCHES = ("main", "develop", "feature/fast-index", "release-2.5")


def camel(parts: list[str]) -> str:
    return parts[0] + "".join(p.capitalize() for p in parts[1:])


def make_project(top: Path, n_files: int, rng: random.Random) -> tuple[list[str], list[str]]:
    """A git project of ``n_files`` source files; returns (file paths, defined symbols)."""
    paths: list[str] = []
    symbols: list[str] = []
    packages = max(1, n_files // 50)
    for i in range(n_files):
        pkg = f"pkg{i % packages:03d}"
        ext = ".py" if i % 2 else ".ts"
        rel = f"src/{pkg}/{rng.choice(WORDS)}_{i:05d}{ext}"
        lines = []
        for j in range(rng.randint(6, 14)):
            name = camel([rng.choice(WORDS), rng.choice(WORDS), f"n{i}x{j}"])
            cls = f"{rng.choice(WORDS).capitalize()}{rng.choice(WORDS).capitalize()}{i}X{j}"
            snake = f"{rng.choice(WORDS)}_{rng.choice(WORDS)}_{i}_{j}"
            symbols.extend((name, cls, snake))
            if ext == ".py":
                lines += [f"class {cls}:", f"    def {name}(self, {snake}: int) -> int:",
                          f"        # {rng.choice(PROSE).format(w1='a', w2='b', w3='c')}",
                          f"        return {snake} * {j} + len(str(self))", ""]
            else:
                lines += [f"export class {cls} {{", f"  {name}({snake}: number): number {{",
                          f"    // {rng.choice(PROSE).format(w1='a', w2='b', w3='c')}",
                          f"    return {snake} * {j} + this.toString().length;", "  }", "}", ""]
        path = top / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("\n".join(lines) + "\n")
        paths.append(rel)
    (top / "README.md").write_text("# bench project\n")
    (top / "pyproject.toml").write_text("[project]\nname = 'bench'\n")
    return paths, symbols


def make_memory(root: Path, n_files: int, paths: list[str], symbols: list[str],
                rng: random.Random) -> None:
    """``n_files`` topic files of 1–2 KB: prose, real and vanished paths and symbols, branches,
    URLs, out-of-project paths; most dated in frontmatter, some left to git or mtime."""
    root.mkdir(parents=True, exist_ok=True)
    index = ["# Memory", ""]
    for i in range(n_files):
        type_ = TYPES[i % len(TYPES)]
        name = f"{type_}_{rng.choice(WORDS)}_{i:05d}.md"
        words = lambda: {"w1": rng.choice(WORDS), "w2": rng.choice(WORDS), "w3": rng.choice(WORDS)}  # noqa: E731
        body = [f"# {rng.choice(WORDS).capitalize()} {rng.choice(WORDS)} note {i}", ""]
        for _ in range(rng.randint(3, 6)):
            body.append(" ".join(rng.choice(PROSE).format(**words()) for _ in range(2)))
        refs = []
        for _ in range(rng.randint(1, 3)):
            refs.append(f"`{rng.choice(symbols)}`")
        if rng.random() < 0.3:
            refs.append(f"`{camel(['gone', rng.choice(WORDS), str(i)])}()`")
        refs.append(f"`{rng.choice(paths)}`")
        if rng.random() < 0.3:
            refs.append(f"src/pkg999/removed_{i}.py")
        if rng.random() < 0.3:
            refs.append("`~/.claude/settings.json`")
        if rng.random() < 0.2:
            refs.append(f"https://docs.example.org/{rng.choice(WORDS)}/{i}")
        body.append("See " + ", ".join(refs) + ".")
        if rng.random() < 0.15:
            body.append(f"Work happens on branch `{rng.choice(BRANCHES)}` until the freeze.")
        if rng.random() < 0.3:
            body.append(rng.choice(DIRECTIVES).format(**words()))
        body.append("")
        body.append("**Why:** " + rng.choice(PROSE).format(**words()))
        body.append("**How to apply:** " + rng.choice(PROSE).format(**words()))
        fm = ["---", f"name: note {i}", f"description: {rng.choice(WORDS)} note", f"type: {type_}"]
        if i % 5:
            fm.append(f"updated: 2026-{rng.randint(1, 11):02d}-{rng.randint(1, 28):02d}")
        (root / name).write_text("\n".join(fm + ["---", ""] + body) + "\n")
        if i < 120:
            index.append(f"- [note {i}]({name}) — a note")
    index.append("- region `*.md` → everything else; grep the memory dir")
    (root / "MEMORY.md").write_text("\n".join(index) + "\n")


def git(top: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(top), *args], check=True, capture_output=True,
                   env={**os.environ, "GIT_AUTHOR_NAME": "bench", "GIT_AUTHOR_EMAIL": "b@e",
                        "GIT_COMMITTER_NAME": "bench", "GIT_COMMITTER_EMAIL": "b@e"})


def naive_seconds_per_symbol(top: Path, sample: list[str]) -> float:
    start = time.perf_counter()
    for symbol in sample:
        subprocess.run(["git", "-C", str(top), "grep", "-q", "-w", "-F", "-e", symbol],
                       capture_output=True, check=False)
    return (time.perf_counter() - start) / len(sample)


RACY_WAIT = 2.2  # seconds: the stat cache trusts only files older than 2 s
WHOLE_COMMANDS = ("stale --json", "stale")


def run_process(command: list[str] | str, env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """Wall and CPU seconds (user + system of the child) of one whole process."""
    start = time.perf_counter()
    proc = subprocess.Popen(command, shell=isinstance(command, str), env=env, cwd=cwd,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, _, usage = os.wait4(proc.pid, 0)
    return time.perf_counter() - start, usage.ru_utime + usage.ru_stime


def whole(base: Path, memory: Path, edited: Path, runs: int, peers: list[str]) -> None:
    """Whole-process ``stale`` on the generated root and the demo's: cold, warm, after an edit
    of ``edited`` (a project file), and each peer, in alternation."""
    repo = Path(__file__).resolve().parents[1]
    env = dict(os.environ, PYTHONPATH=str(repo), MEMTUI_NO_PRESSURE="1")
    env.pop("MEMTUI_NO_CACHE", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)  # as installed: modules load from .pyc
    demo = base / "demo"
    subprocess.run([sys.executable, "-m", "memtui", "demo", "--out", str(demo)], env=env, cwd=base,
                   check=True, capture_output=True)
    time.sleep(RACY_WAIT)  # every file older than the racy window, as a folder between runs is
    files = sum(1 for _ in memory.glob("*.md")) - 1
    roots = [(f"{files:,} files in a git project", memory, edited), ("demo", demo / "memory", None)]
    original = edited.read_bytes()
    load = os.getloadavg()
    print(f"whole processes · python {sys.version.split()[0]} · {os.cpu_count()} cores · load "
          f"{load[0]:.2f} at start · median of {runs} · wall s (cpu s)")
    for i, peer in enumerate(peers):
        print(f"  peer {i + 1}: {peer}")
    for args in WHOLE_COMMANDS:
        for label, root, edit in roots:
            cache = base / "cache"
            env["MEMTUI_CACHE_DIR"] = str(cache)
            memtui = [sys.executable, "-m", "memtui", *shlex.split(args), str(root)]
            commands = [peer.replace("{root}", shlex.quote(str(root))).replace("{args}", args)
                        for peer in peers]
            times: dict[str, list[tuple[float, float]]] = {"cold": [], "warm": []}
            if edit is not None:
                times["after an edit"] = []
            times.update((f"peer {i + 1}", []) for i in range(len(peers)))
            run_process(memtui, env, base)  # .pyc written, page cache warm
            for command in commands:
                run_process(command, env, base)
            for n in range(runs):
                shutil.rmtree(cache, ignore_errors=True)
                times["cold"].append(run_process(memtui, env, base))
                times["warm"].append(run_process(memtui, env, base))
                for i, command in enumerate(commands):
                    times[f"peer {i + 1}"].append(run_process(command, env, base))
                if edit is not None:
                    edit.write_bytes(original + f"# edit {n}\n".encode())
                    times["after an edit"].append(run_process(memtui, env, base))
                    edit.write_bytes(original)
                    time.sleep(RACY_WAIT)  # the next cold run may keep its answer again
            cells = []
            for name, values in times.items():
                wall = statistics.median(w for w, _ in values)
                cpu = statistics.median(c for _, c in values)
                cells.append(f"{name} {wall:.3f} ({cpu:.3f})")
            ratios = [f"warm/peer {i + 1} {statistics.median(w for w, _ in times['warm']) / statistics.median(w for w, _ in times[f'peer {i + 1}']):.2f}"
                      for i in range(len(peers))]
            print(f"memtui {args} · {label}: " + " · ".join(cells + ratios))
            sys.stdout.flush()
    load = os.getloadavg()
    print(f"load at end {load[0]:.2f}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--memory", type=int, default=10_000, help="memory files (default 10000)")
    parser.add_argument("--project", type=int, default=5_000, help="project files (default 5000)")
    parser.add_argument("--runs", type=int, default=5, help="timed runs (median reported)")
    parser.add_argument("--sample", type=int, default=40, help="symbols timed for the baseline")
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--whole", action="store_true",
                        help="time whole `memtui stale` processes (cold, warm, after an edit)")
    parser.add_argument("--peer", action="append", default=[], metavar="'COMMAND {root} {args}'",
                        help="with --whole: another command timed beside memtui")
    args = parser.parse_args()
    rng = random.Random(args.seed)

    with tempfile.TemporaryDirectory(prefix="memtui-bench-") as tmp:
        top = Path(tmp) / "project"
        top.mkdir()
        t0 = time.perf_counter()
        paths, symbols = make_project(top, args.project, rng)
        memory = top / ".claude" / "memory"
        make_memory(memory, args.memory, paths, symbols, rng)
        git(top, "init", "-q", "-b", "main")
        git(top, "add", "-A")
        git(top, "commit", "-q", "-m", "bench")
        for branch in ("develop", "feature/fast-index"):
            git(top, "branch", branch)
        if args.whole:
            whole(Path(tmp), memory, top / paths[0], args.runs, args.peer)
            return 0
        project_bytes = sum((top / p).stat().st_size for p in paths)
        memory_bytes = sum(p.stat().st_size for p in memory.iterdir())
        print(f"generated in {time.perf_counter() - t0:.1f}s: project {len(paths):,} files "
              f"({project_bytes / 1e6:.1f} MB), memory root {args.memory:,} files "
              f"({memory_bytes / 1e6:.1f} MB, {memory_bytes / args.memory / 1000:.1f} KB a file)")

        load_times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            snapshot = load_root(memory)
            load_times.append(time.perf_counter() - start)

        score_times = []
        cpu_times = []
        report = None
        for _ in range(args.runs):
            start, cpu_start = time.perf_counter(), time.process_time()
            report = score_root(snapshot, NOW, cache=ProjectCache())
            score_times.append(time.perf_counter() - start)
            cpu_times.append(time.process_time() - cpu_start)
        assert report is not None and len(report.results) == args.memory

        facts = [facts_of(r) for r in report.results]  # what a warm `stale` keeps of a root
        rows_times = []
        for _ in range(args.runs):
            start = time.perf_counter()
            rows = rows_at(facts, NOW)
            rows_times.append(time.perf_counter() - start)
        assert [row[:2] for row in rows] == [(r.score, r.path) for r in report.results]

        distinct = sorted({r.text for f in snapshot.files.values()
                           for r in extract_references(f.body) if r.kind is RefKind.SYMBOL})
        sample = random.Random(args.seed).sample(distinct, min(args.sample, len(distinct)))
        per_symbol = naive_seconds_per_symbol(top, sample)
        baseline = per_symbol * len(distinct)

        ours = statistics.median(score_times)
        checks = sum(len(r.references) for r in report.results)
        missing = sum(len(r.missing) for r in report.results)
        classes: dict[str, int] = {}
        for r in report.results:
            classes[r.cls.value] = classes.get(r.cls.value, 0) + 1
        print(f"references checked: {checks:,} ({missing:,} missing); distinct symbols "
              f"{len(distinct):,}; classes {classes}")
        print(f"load_root (not part of scoring): median {statistics.median(load_times):.3f}s")
        print(f"full staleness with reference checks: median {ours:.3f}s of {args.runs} runs "
              f"(min {min(score_times):.3f}s, max {max(score_times):.3f}s; CPU median "
              f"{statistics.median(cpu_times):.3f}s) — target < 1 s: "
              f"{'met' if ours < 1.0 else 'NOT met'}")
        print(f"the same scores from kept facts (rows_at: the clock's arithmetic only, what a warm "
              f"`stale` runs): median {statistics.median(rows_times):.3f}s")
        print(f"naive baseline (one `git grep -w -F` per symbol): {per_symbol * 1000:.1f} ms per "
              f"symbol, timed on {len(sample)} sampled symbols and extrapolated to "
              f"{len(distinct):,} → {baseline:.1f}s (symbol search only)")
        print(f"ratio baseline / ours: {baseline / ours:,.0f}x")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
