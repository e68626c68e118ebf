"""Benchmark: what scopes, layers and the handoff state cost, each against a same-run baseline.

- *handoff*: ``load_root`` of a root inside a git project with a ``.claude/session-state.md``
  (read + one ``git rev-list``) against the same root with no state file;
- *applies*: :func:`memtui.core.judge.scopes.applicability` (staleness not scored) against
  ``validate`` of the same snapshot;
- *promote*: a two-root promotion (plan both, commit both, one undo in both) against a one-root
  archive of the same file (plan, commit, undo).

    python bench/bench_layers.py [--files 10000] [--repeat 5]
"""

from __future__ import annotations

import argparse
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import make_root  # noqa: E402

from memtui.core import write  # noqa: E402
from memtui.core.judge.scopes import applicability  # noqa: E402
from memtui.core.read.handoff import state_for_root  # noqa: E402
from memtui.core.read.store import load_root  # noqa: E402
from memtui.core.rules.validate import validate  # noqa: E402
from memtui.core.verbs import lifecycle as verbs  # noqa: E402
from memtui.core.verbs.promote import promotion  # noqa: E402
from memtui.core.write import commit_group, plan_group  # noqa: E402


def median(fn: Callable[[], object], repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="memtui-bench-layers-") as tmp:
        project = Path(tmp) / "proj"
        project.mkdir()
        subprocess.run(["git", "init", "-q", str(project)], check=True)
        root = make_root(project / "memory", args.files)
        base = median(lambda: load_root(root), args.repeat)
        (project / ".claude").mkdir()
        (project / ".claude" / "session-state.md").write_text("## Handoff: 2026-11-01\n## Working On\n- x\n")
        with_state = median(lambda: load_root(root), args.repeat)
        alone = median(lambda: state_for_root(root), args.repeat)
        print(f"handoff  reading the state alone (find the project, read, one git call): "
              f"{alone * 1000:.1f} ms")
        print(f"handoff  load_root {args.files} files: {base * 1000:8.1f} ms without a state file, "
              f"{with_state * 1000:8.1f} ms with one (+{(with_state - base) * 1000:.1f} ms, "
              f"×{with_state / base:.3f})")

        snapshot = load_root(root)
        v = median(lambda: validate(snapshot), args.repeat)
        a = median(lambda: applicability(snapshot, str(project)), args.repeat)
        print(f"applies  {args.files} files: {a * 1000:8.1f} ms; validate {v * 1000:8.1f} ms "
              f"(×{a / v:.3f} of validate)")

        other = Path(tmp) / "shared"
        shutil.copytree(root, other)
        name = next(p for p, f in snapshot.files.items()
                    if "/" not in p and p in {ln.resolved for ln in snapshot.index.entries}
                    and not f.pinned)
        target = next(p for p in load_root(other).files if "/" not in p)
        (other / target).rename(other / f"moved-{target}")  # keep the target's index valid enough

        def one_root() -> None:
            s = load_root(root)
            write.run(s, verbs.archive(s, name))
            write.undo(load_root(root))

        def two_roots() -> None:
            s, t = load_root(root), load_root(other)
            out_of, into = promotion(s, name, t)
            commit_group(plan_group([(s, out_of), (t, into)]))
            write.undo(load_root(root))

        single = median(one_root, args.repeat)
        double = median(two_roots, args.repeat)
        print(f"promote  {args.files}-file roots: {double * 1000:8.1f} ms for promote + undo over "
              f"two roots; {single * 1000:8.1f} ms for archive + undo in one (×{double / single:.2f})")


if __name__ == "__main__":
    main()
