"""Benchmark ``memtui loaded`` on a rotted index beside a warm ``memtui validate`` of the same root.

Builds the synthetic roots of ``bench/synth.py`` (``--sizes``, default 10k and 100k files) and
rewrites each ``MEMORY.md`` to link every topic file outside ``archive/`` (at 100k files 90,002
lines, 6.8 MB: the index of a folder nobody trims), waits until every file is older than the
stat cache's racy window, fills the stat cache with one untimed run of each command, then times
whole processes in alternating rounds: ``validate --quiet --no-record``, ``loaded`` (piped),
``loaded --json``.  Printed per root: the median CPU seconds (user + system of the child, as the
machine is shared) and the peak memory (the child's maxrss) of each, and loaded ÷ validate.
``--base DIR`` runs a second memtui (a checkout's tree, on ``PYTHONPATH``) in the same rounds.

    python bench/bench_loaded.py [--sizes 10000,100000] [--rounds 5] [--base DIR] [--keep DIR]
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

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import make_root  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
RACY_WAIT = 2.2  # seconds: the stat cache trusts only files older than 2 s
CASES = {
    "validate": ("validate", "--quiet", "--no-record"),
    "loaded": ("loaded",),
    "loaded --json": ("loaded", "--json"),
}


def make_rotted(dest: Path, n_files: int) -> Path:
    """A synthetic root whose ``MEMORY.md`` links every topic file outside ``archive/``."""
    make_root(dest, n_files)
    names = sorted(p.name for p in dest.glob("*.md") if not p.name.startswith("MEMORY"))
    lines = ["# Memory", "", *(f"- [{name[:-3]}]({name}) — {name.split('_')[0]} fact"
                              for name in names)]
    (dest / "MEMORY.md").write_text("\n".join(lines) + "\n")
    return dest


def run(command: list[str], env: dict[str, str], cwd: Path) -> tuple[float, float]:
    """CPU seconds (user + system) and peak memory (MiB) of one whole process, started in
    ``cwd`` (``python -m`` imports from the folder it starts in: the tree's own)."""
    proc = subprocess.Popen(command, env=env, cwd=cwd, stdout=subprocess.PIPE,
                            stderr=subprocess.DEVNULL)
    assert proc.stdout is not None
    while proc.stdout.read(1 << 20):  # piped, as a script reads it
        pass
    _, status, usage = os.wait4(proc.pid, 0)
    if os.waitstatus_to_exitcode(status) not in (0, 1):
        raise SystemExit(f"{' '.join(command)} exited {status}")
    return usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="10000,100000")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--base", default="", help="a second memtui tree to run (before)")
    parser.add_argument("--keep", metavar="DIR", help="build the roots here and keep them")
    args = parser.parse_args()
    work = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memtui-loaded-"))
    trees = [("after", REPO)] + ([("before", Path(args.base))] if args.base else [])
    try:
        roots = []
        for n in [int(x) for x in args.sizes.split(",") if x]:
            root = work / f"rotted{n}"
            if not (root / "MEMORY.md").exists():
                make_rotted(root, n)
            roots.append((n, root))
        time.sleep(RACY_WAIT)
        load = os.getloadavg()
        print(f"python {sys.version.split()[0]} · {os.cpu_count()} cores · load average "
              f"{load[0]:.2f} at start · CPU seconds and peak MiB, median of {args.rounds} "
              "alternating rounds")
        for n, root in roots:
            lines = (root / "MEMORY.md").read_bytes().count(b"\n")
            print(f"\nrotted index, {n:,} files, MEMORY.md of {lines:,} lines")
            envs = {}
            for name, tree in trees:
                env = dict(os.environ, PYTHONPATH=str(tree), MEMTUI_NO_PRESSURE="1",
                           MEMTUI_CACHE_DIR=str(work / f"cache-{name}"))
                for key in ("PYTHONDONTWRITEBYTECODE", "MEMTUI_NO_CACHE", "CLAUDE_PROJECT_DIR"):
                    env.pop(key, None)
                envs[name] = env
                for case in CASES.values():  # bytecode written, the cache filled
                    run([sys.executable, "-m", "memtui", *case, str(root)], env, tree)
            found: dict[tuple[str, str], list[tuple[float, float]]] = {}
            for _ in range(args.rounds):
                for name, tree in trees:
                    for case, argv in CASES.items():
                        found.setdefault((name, case), []).append(
                            run([sys.executable, "-m", "memtui", *argv, str(root)], envs[name], tree))
            for name, _tree in trees:
                cpu = {case: statistics.median(c for c, _ in found[(name, case)]) for case in CASES}
                peak = {case: max(m for _, m in found[(name, case)]) for case in CASES}
                cells = " · ".join(f"{case} {cpu[case]:.3f} s {peak[case]:.0f} MiB" for case in CASES)
                print(f"  {name}: {cells}")
                print(f"  {name}: loaded/validate {cpu['loaded'] / cpu['validate']:.2f} · "
                      f"loaded --json/validate {cpu['loaded --json'] / cpu['validate']:.2f}")
    finally:
        if not args.keep:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
