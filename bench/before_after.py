"""Run one bench script against a baseline checkout and against this tree, in one run, and print
each figure before and after with its ratio.

    .venv/bin/python bench/before_after.py /work/base bench/bench_writer.py [--rounds 2] -- [ARGS]

The baseline runs its own copy of the script (``BASE/bench/…``, with ``PYTHONPATH=BASE``), this
tree runs its copy; the two alternate ``--rounds`` times, so a change in the machine's load hits
both.  Each run gets its own temp folder (a script that writes to its root, as the app bench's
pin does, never sees the other tree's records).  Lines are paired by their text with the
numbers (and the spaces padding them) taken out, the n-th such line with the n-th; each number
is the median over the rounds, shown as ``before → after (×after/before)``.  Lines whose text differs between the two trees are printed as they are.
"""

from __future__ import annotations

import argparse
import os
import re
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parents[1]
NUMBER = re.compile(r"(?<![\w.])\d[\d,]*(?:\.\d+)?")


def run(tree: Path, script: str, args: list[str], temp: Path) -> list[str]:
    """The script's output lines, run from ``tree`` with ``tree`` first on the import path (an
    exit status other than 0 is kept: the benches exit 1 when they miss a target)."""
    env = dict(os.environ, PYTHONPATH=str(tree), TMPDIR=str(temp))
    # as installed, modules load from .pyc: with PYTHONDONTWRITEBYTECODE a tree whose checkout is
    # newer than its bytecode compiles its changed modules again in every process it starts
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    done = subprocess.run([sys.executable, str(tree / script), *args], cwd=tree, env=env,
                          capture_output=True, text=True, check=False)
    if done.returncode != 0 and not done.stdout.strip():  # a missed target exits 1 after printing
        raise SystemExit(f"{script} failed in {tree}:\n{done.stderr[-2000:]}")
    return [line for line in done.stdout.splitlines() if line.strip()]


def shape(line: str) -> str:
    """A line's text with its numbers taken out (and runs of spaces, which pad them, as one)."""
    return " ".join(NUMBER.sub("#", line).split())


def keyed(lines: list[str]) -> list[tuple[str, int]]:
    """Each line's key: its shape (:func:`shape`) and how many lines of that shape came before it
    in the run — two rows of one table that differ only in their numbers (the 10k row and the
    100k row) are two figures, not one."""
    count: dict[str, int] = {}
    out = []
    for line in lines:
        key = shape(line)
        out.append((key, count.get(key, 0)))
        count[key] = count.get(key, 0) + 1
    return out


def figures(runs: list[list[str]]) -> dict[tuple[str, int], list[float]]:
    """Per line key (:func:`keyed`): the median of each of its numbers over runs."""
    seen: dict[tuple[str, int], list[list[float]]] = {}
    for lines in runs:
        for key, line in zip(keyed(lines), lines):
            numbers = [float(n.replace(",", "")) for n in NUMBER.findall(line)]
            seen.setdefault(key, []).append(numbers)
    return {key: [statistics.median(column) for column in zip(*values)] for key, values in seen.items()
            if len({len(v) for v in values}) == 1}


def pair(key: str, before: list[float], after: list[float]) -> str:
    parts = iter(key.split("#"))
    out = [next(parts)]
    for b, a, rest in zip(before, after, parts):
        ratio = f" (×{a / b:.2f})" if b and a != b else ""
        out.append(f"{b:g} → {a:g}{ratio}" if a != b else f"{a:g}")
        out.append(rest)
    return "".join(out)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("base", type=Path, help="the baseline checkout")
    parser.add_argument("script", help="the bench script, relative to either tree")
    parser.add_argument("--rounds", type=int, default=2)
    argv = sys.argv[1:]
    script_args = argv[argv.index("--") + 1:] if "--" in argv else []
    options = parser.parse_args(argv[:argv.index("--")] if "--" in argv else argv)
    options.args = script_args
    print(f"load average at start: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    base_runs: list[list[str]] = []
    new_runs: list[list[str]] = []
    with tempfile.TemporaryDirectory(prefix="memtui-before-after-") as temp:
        for name in ("base", "new"):
            (Path(temp) / name).mkdir()
        for _ in range(options.rounds):
            base_runs.append(run(options.base.resolve(), options.script, options.args, Path(temp) / "base"))
            new_runs.append(run(HERE, options.script, options.args, Path(temp) / "new"))
    before, after = figures(base_runs), figures(new_runs)
    print(f"{options.script} {' '.join(options.args)}: before ({options.base}) → after ({HERE}), "
          f"median of {options.rounds} alternating rounds")
    for key, line in zip(keyed(new_runs[-1]), new_runs[-1]):
        if key in before and key in after and len(before[key]) == len(after[key]):
            print(pair(key[0], before[key], after[key]))
        else:
            print(f"{line}    [after only]")
    print(f"load average at end: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
