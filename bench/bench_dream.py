"""Benchmark the dream plan (and the inbox) on a synthetic root written by ``bench/synth.py``.

    .venv/bin/python bench/bench_dream.py                 # 10,000 files
    .venv/bin/python bench/bench_dream.py --files 2000

The root gets a few HTML-comment history blocks in its index and a handful of planted
near-duplicate pairs, so every kind of item is built.  Printed, each the best of ``--repeat``
runs: loading the root, one full validation, the consolidation scan and the staleness scores
(the same-run baselines), then the whole dream plan (which does all of those, builds every item
and gates each on the ones before it) and the gate of the default selection as one change —
with the plan's ratio to one validation.  Then the inbox: seeding the baseline, and a look after
ten outside edits.  The target is a plan under 3 s at 10,000 files.  ``--index-lines 300000``
also times a root whose index is a 300,000-line rot (rebuild and the dream plan, which must stay
linear), and ``--compare ../other-checkout`` times the same roots with another memtui (the
code before a change) in the same run.

``--long-index 10000 50000 100000 300000`` times the dream plan alone on such rotted indexes of
each length, each in a fresh process (wall and CPU seconds: on a shared machine the CPU time is
the steadier number), with the time per thousand lines (constant when the plan is linear in the
index), the gate of the plan's default selection (``+gate``: ``dream`` plans, then gates) and,
with ``--compare``, the same for the other checkout, the ratios, and whether both printed the
same plan (a digest of ``dream --json``'s items and verdict).  The target is the
300,000-line plan under 10 s.  ``--long-prose`` does the same on indexes of prose (a content
dump, which the dream turns into pointers).

``--hostile`` times ``memtui dream`` on the hostile shapes (issue 33): a chain of N ``SUPERSEDED by``
marks in the index (``--chain``), the longest also as ``superseded_by`` fields and ending in a
circle, a single-line ``MEMORY.md`` of links (``--line-mb``) and a long index with the plain
``--dry-run`` beside ``--json`` (``--dry-lines``), each command in a fresh process (CPU seconds of
the child), and with ``--compare`` the other checkout's, with the ratio.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path
from typing import Callable, TypeVar

sys.path.insert(0, str(Path(__file__).resolve().parent))
from synth import make_root  # noqa: E402

from memtui.core.dream import plan as dream  # noqa: E402
from memtui.core.judge.consolidate import scan  # noqa: E402
from memtui.core.judge.staleness import score_root  # noqa: E402
from memtui.core.read.store import load_root  # noqa: E402
from memtui.core.rules.validate import validate  # noqa: E402
from memtui.core.stores import seen  # noqa: E402

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


def big_index(dest: Path, lines: int, files: int = 1_000) -> Path:
    """A root of ``files`` topic files whose index has ``lines`` lines: a section heading every
    thousand lines, every third line an entry (so each file is listed many times), the rest
    inline facts — a rotted index far past any cap."""
    root = make_root(dest, files)
    index = root / "MEMORY.md"
    names = sorted(p.name for p in root.glob("*.md") if not p.name.startswith("MEMORY"))
    out = [index.read_text().rstrip("\n")]
    for i in range(lines):
        if i % 1000 == 0:
            out.append(f"## Part {i // 1000}")
        name = names[i % len(names)]
        out.append(f"- [{name}]({name}) — fact {i} about the registry" if i % 3 == 0
                   else f"- inline fact {i}: the sweeper runs nightly")
    index.write_text("\n".join(out) + "\n")
    return root


def prose_index(dest: Path, lines: int, files: int = 1_000) -> Path:
    """A root of ``files`` topic files whose index is ``lines`` lines of prose: a section every
    twenty lines (most of the same title), each of notes that name no file — a content dump,
    which the dream turns into pointers."""
    root = make_root(dest, files)
    out = ["# Memory", ""]
    for i in range(lines):
        if i % 20 == 0:
            out += ["", f"## {'Notes' if i % 60 else f'Topic {i // 60}'}"]
        else:
            out.append(f"- fact {i}: the sweeper runs nightly and the registry keeps its blobs")
    (root / "MEMORY.md").write_text("\n".join(out) + "\n")
    return root


def measure_root(root: Path, repeat: int, with_inbox: bool) -> dict[str, object]:
    """The timings of one root (seconds, best of ``repeat``), as a dict (``--json`` prints it)."""
    from memtui.core.verbs import lifecycle as verbs

    t_load, snapshot = best(repeat, lambda: load_root(root))
    t_validate, _ = best(repeat, lambda: validate(snapshot))
    out: dict[str, object] = {"files": len(snapshot.files), "index_lines": len(snapshot.index.lines),
                              "load": t_load, "validate": t_validate}
    if with_inbox:
        out["scan"] = best(repeat, lambda: scan(snapshot))[0]
        out["staleness"] = best(repeat, lambda: score_root(snapshot, NOW))[0]

    def rebuild() -> object:
        try:
            return verbs.rebuild(snapshot)
        except verbs.NothingToRebuild:
            return None

    out["rebuild"] = best(repeat, rebuild)[0]
    t_plan, plan = best(repeat, lambda: dream.plan_dream(snapshot, NOW))
    out["plan"] = t_plan
    out["items"] = dict(sorted({item.kind: sum(1 for i in plan.items if i.kind == item.kind)
                                for item in plan.items}.items()))
    if plan.default:
        t_gate, verdict = best(repeat, lambda: dream.preview(plan, plan.default))
        out["gate"], out["accepted"] = t_gate, verdict.accepted
    return out


def compare(src: str, root: Path, repeat: int) -> dict[str, object] | None:
    """:func:`measure_root` run by the memtui at ``src`` (another checkout), on the same root."""
    env = dict(os.environ, PYTHONPATH=src)
    done = subprocess.run([sys.executable, __file__, "--measure", str(root), "--repeat", str(repeat)],
                          env=env, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"baseline at {src} failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(done.stdout)


def measure_plan(root: Path) -> dict[str, object]:
    """One dream plan of ``root`` in this process: wall and CPU seconds, then the gate of its
    default selection, and a digest of what ``dream --json`` prints of both."""
    import hashlib

    snapshot = load_root(root)
    wall, cpu = time.perf_counter(), time.process_time()
    plan = dream.plan_dream(snapshot, NOW)
    out: dict[str, object] = {"plan": time.perf_counter() - wall, "plan_cpu": time.process_time() - cpu,
                              "index_lines": len(snapshot.index.lines)}
    wall = time.perf_counter()
    verdict = dream.preview(plan, plan.default) if plan.default else None
    out["gate"] = time.perf_counter() - wall
    shown = dream.plan_json(plan, verdict)
    out["items"] = [item["kind"] for item in shown["items"]]  # type: ignore[attr-defined]
    out["digest"] = hashlib.sha256(json.dumps(shown, sort_keys=True, default=str).encode()).hexdigest()[:16]
    return out


def plan_in_child(src: str | None, root: Path) -> dict[str, object] | None:
    """:func:`measure_plan` in a fresh process, with the memtui at ``src`` (None: this one)."""
    env = dict(os.environ, PYTHONPATH=src) if src else dict(os.environ)
    done = subprocess.run([sys.executable, __file__, "--measure-plan", str(root)],
                          env=env, capture_output=True, text=True)
    if done.returncode != 0:
        print(f"plan at {src or 'this checkout'} failed: {done.stderr.strip().splitlines()[-1:]}")
        return None
    return json.loads(done.stdout)


def long_indexes(tmp: Path, sizes: list[int], src: str | None, shape: str = "rotted") -> None:
    """The dream plan on long indexes of each length (``rotted``: :func:`big_index`; ``prose``:
    :func:`prose_index`): ours, and the other checkout's."""
    make = big_index if shape == "rotted" else prose_index
    print(f"the dream plan on a long {shape} index (1,000 files; each size in a fresh process):")
    print(f"  {'lines':>8} {'plan s':>8} {'cpu s':>7} {'cpu ms/1k lines':>16} {'+gate s':>8}"
          + (f" {'baseline s':>11} {'cpu s':>7} {'cpu ms/1k lines':>16} {'+gate s':>8} {'× faster (cpu)':>15}"
             f" {'× (plan+gate)':>14} same plan" if src else ""))
    for size in sizes:
        root = make(tmp / f"{shape}{size}", size)
        ours = plan_in_child(None, root)
        base = plan_in_child(src, root) if src else None
        if ours is None:
            continue
        lines = float(ours["index_lines"])  # type: ignore[arg-type]
        cpu = float(ours["plan_cpu"])  # type: ignore[arg-type]
        gate = float(ours["gate"])  # type: ignore[arg-type]
        row = (f"  {size:>8,} {float(ours['plan']):>8.2f} {cpu:>7.2f} {cpu * 1e6 / lines:>16.1f}"  # type: ignore[arg-type]
               f" {gate:>8.2f}")
        if base is not None:
            base_cpu, base_gate = float(base["plan_cpu"]), float(base["gate"])  # type: ignore[arg-type]
            both = (float(base["plan"]) + base_gate) / (float(ours["plan"]) + gate)  # type: ignore[arg-type]
            row += (f" {float(base['plan']):>11.2f} {base_cpu:>7.2f} {base_cpu * 1e6 / lines:>16.1f}"  # type: ignore[arg-type]
                    f" {base_gate:>8.2f} {base_cpu / cpu:>15.1f} {both:>14.1f}"
                    f" {'yes' if base['digest'] == ours['digest'] else 'NO'}")
        print(row + f"   items {ours['items']}")
        if size >= 300_000 and shape == "rotted":
            print(f"  {size:,}-line plan target < 10 s: {'ok' if float(ours['plan']) < 10 else 'MISSED'} "  # type: ignore[arg-type]
                  f"(wall {float(ours['plan']):.1f} s, cpu {cpu:.1f} s; with the gate of its default "
                  f"selection, as `dream` runs them: {float(ours['plan']) + gate:.1f} s)")  # type: ignore[arg-type]


def _topic(name: str, extra: str = "") -> str:
    return f"---\nname: {name}\ndescription: the {name} fact\ntype: project\n{extra}---\n{name}.\n"


def hostile_roots(tmp: Path, chains: list[int], line_mb: float, dry_lines: int) -> list[tuple[str, Path, list[str]]]:
    """The hostile shapes, each a root and the ``memtui`` arguments run on it."""
    out: list[tuple[str, Path, list[str]]] = []
    for n in chains:  # n0 → n1 → … → n(n), each marked in the index
        root = tmp / f"marks{n}"
        root.mkdir()
        lines = ["# Memory", ""]
        for k in range(n + 1):
            (root / f"n{k}.md").write_text(_topic(f"note {k}"))
            lines.append(f"- [Note {k}](n{k}.md) — SUPERSEDED by n{k + 1}.md" if k < n
                         else f"- [Note {k}](n{k}.md) — the current note")
        (root / "MEMORY.md").write_text("\n".join(lines) + "\n")
        out.append((f"{n:,} SUPERSEDED-by marks in the index, dream --dry-run", root, ["dream", "--dry-run"]))
    n = max(chains)
    root = tmp / f"fields{n}"  # the same chain by superseded_by fields
    root.mkdir()
    for k in range(n + 1):
        (root / f"n{k}.md").write_text(_topic(f"note {k}", f"superseded_by: n{k + 1}.md\n" if k < n else ""))
    (root / "MEMORY.md").write_text("# Memory\n\n" + "".join(f"- [Note {k}](n{k}.md) — note {k}\n"
                                                             for k in range(n + 1)))
    out.append((f"{n:,} superseded_by fields in a chain, dream --dry-run", root, ["dream", "--dry-run"]))
    root = tmp / f"circle{n}"
    root.mkdir()
    for k in range(n):  # the same chain, its second half going round
        (root / f"n{k}.md").write_text(_topic(f"note {k}", f"superseded_by: n{k + 1 if k + 1 < n else n // 2}.md\n"))
    (root / "MEMORY.md").write_text("# Memory\n\n" + "".join(f"- [Note {k}](n{k}.md) — note {k}\n" for k in range(n)))
    out.append((f"{n:,} superseded_by fields ending in a circle, validate", root, ["validate"]))
    if line_mb:
        root = tmp / "oneline"
        root.mkdir()
        for k in range(100):
            (root / f"n{k}.md").write_text(_topic(f"note {k}"))
        unit = "".join(f"[Note {k}](n{k}.md) see n{k}.md; " for k in range(100))
        (root / "MEMORY.md").write_text(unit * max(1, int(line_mb * 1e6 / len(unit))))
        out.append((f"a {line_mb:g} MB one-line index, dream --dry-run", root, ["dream", "--dry-run"]))
    if dry_lines:
        root = big_index(tmp / f"dry{dry_lines}", dry_lines)
        out.append((f"a {dry_lines:,}-line index, dream --dry-run", root, ["dream", "--dry-run"]))
        out.append((f"a {dry_lines:,}-line index, dream --dry-run --json", root, ["dream", "--dry-run", "--json"]))
    return out


def cli_cpu(src: str | None, argv: list[str]) -> tuple[float, int]:
    """CPU seconds of ``memtui ARGV`` in a fresh process (memtui at ``src``; None: this one), and
    the bytes it printed."""
    tree = src or str(Path(__file__).resolve().parents[1])
    env = dict(os.environ, PYTHONPATH=tree)
    before = os.times()
    when = ["--now", "2026-11-30"] if argv[0] == "dream" else []
    # run from the tree: ``-m`` puts the current folder first on the import path
    done = subprocess.run([sys.executable, "-m", "memtui", *argv, *when], env=env, cwd=tree,
                          capture_output=True, check=False)
    after = os.times()
    if done.returncode not in (0, 1):
        raise SystemExit(f"memtui {' '.join(argv)} at {src or 'this checkout'} failed: {done.stderr[-500:]!r}")
    return (after.children_user - before.children_user + after.children_system - before.children_system,
            len(done.stdout))


def hostile(tmp: Path, chains: list[int], line_mb: float, dry_lines: int, src: str | None) -> None:
    print("dream on hostile shapes (CPU s of one fresh process each; output bytes):")
    for label, root, argv in hostile_roots(tmp, chains, line_mb, dry_lines):
        cpu, size = cli_cpu(None, [*argv, str(root)])
        row = f"  {label}: {cpu:.2f} s cpu, {size:,} bytes"
        if src:
            base_cpu, base_size = cli_cpu(src, [*argv, str(root)])
            row += f"; baseline {base_cpu:.2f} s cpu, {base_size:,} bytes; ×{cpu / base_cpu:.3f} of the baseline"
        print(row)


def report(label: str, ours: dict[str, object], base: dict[str, object] | None) -> None:
    print(f"{label}: {ours['files']:,} files, {ours['index_lines']:,} index lines; items {ours['items']}"
          + (f"; default set accepted: {ours['accepted']}" if "accepted" in ours else ""))
    if base is not None:
        print(f"  baseline items {base['items']}")
    for key in ("load", "validate", "scan", "staleness", "rebuild", "plan", "gate"):
        if key not in ours:
            continue
        value = float(ours[key])  # type: ignore[arg-type]
        line = f"  {key:<10}{value * 1000:10.0f} ms   {value / float(ours['validate']):5.1f}× validate"  # type: ignore[arg-type]
        if base is not None and key in base:
            before = float(base[key])  # type: ignore[arg-type]
            line += f"   baseline {before * 1000:10.0f} ms   ({before / value:5.1f}× faster now)" if value else ""
        print(line)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--index-lines", type=int, default=0, metavar="N",
                        help="also time a root whose index has N lines (e.g. 300000)")
    parser.add_argument("--compare", metavar="SRC", help="another memtui checkout to time on the same roots")
    parser.add_argument("--long-index", type=int, nargs="+", default=[], metavar="N",
                        help="time the dream plan alone on indexes of these many lines (each in a fresh process)")
    parser.add_argument("--long-prose", type=int, nargs="+", default=[], metavar="N",
                        help="the same on indexes of N lines of prose (a content dump: the pointers item)")
    parser.add_argument("--hostile", action="store_true", help="time dream on the hostile shapes of issue 33")
    parser.add_argument("--chain", type=int, nargs="+", default=[400, 800, 1_600], metavar="N")
    parser.add_argument("--line-mb", type=float, default=4.0, metavar="MB")
    parser.add_argument("--dry-lines", type=int, default=30_000, metavar="N")
    parser.add_argument("--no-root", action="store_true", help="skip the synthetic root of --files files")
    parser.add_argument("--measure", metavar="ROOT", help=argparse.SUPPRESS)
    parser.add_argument("--measure-plan", metavar="ROOT", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:  # the child of --compare: one root, as JSON
        print(json.dumps(measure_root(Path(args.measure), args.repeat, with_inbox=False)))
        return 0
    if args.measure_plan:  # the child of --long-index: one plan, as JSON
        print(json.dumps(measure_plan(Path(args.measure_plan))))
        return 0
    with tempfile.TemporaryDirectory(prefix="memtui-bench-dream-") as tmp:
        os.environ["MEMTUI_CACHE_DIR"] = str(Path(tmp) / "cache")
        if args.long_index:
            long_indexes(Path(tmp), args.long_index, args.compare)
        if args.long_prose:
            long_indexes(Path(tmp), args.long_prose, args.compare, "prose")
        if args.hostile:
            hostile(Path(tmp), args.chain, args.line_mb, args.dry_lines, args.compare)
        if args.no_root:
            return 0
        root = prepare(Path(tmp) / "root", args.files)
        ours = measure_root(root, args.repeat, with_inbox=True)
        base = compare(args.compare, root, args.repeat) if args.compare else None
        report("synthetic root", ours, base)
        print(f"  dream plan target < 3000 ms: {'ok' if float(ours['plan']) < 3 else 'MISSED'}")  # type: ignore[arg-type]
        snapshot = load_root(root)
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
        if args.index_lines:
            big = big_index(Path(tmp) / "big", args.index_lines)
            ours = measure_root(big, 1, with_inbox=False)
            base = compare(args.compare, big, 1) if args.compare else None
            report(f"a {args.index_lines:,}-line index", ours, base)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
