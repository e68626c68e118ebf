"""Benchmark a bulk change: archive 1,000 marked files of a generated 10k-file root as one changeset.

Prints the time to build the one changeset (every file's archive in one pass), to render its whole
diff (what the confirm dialog shows), to gate it, to apply it (one journal record) and to undo it,
next to the same run's baselines: one full validation of the root and a one-file archive
(build + gate + apply).  Then the app (headless, Textual's Pilot): the 1,000 files marked, the
time from pressing ``a`` to the confirm dialog on screen, and from ``y`` to the folder shown again.
Targets (issue 11): confirm dialog open < 1 s, apply < 2 s.

    .venv/bin/python bench/bench_bulk.py [--files 10000] [--marked 1000] [--keep DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import shutil
import sys
import tempfile
import time
from pathlib import Path

from bench_writer import generate

from memtui.core import write
from memtui.core.model.changeset import unified_diff
from memtui.core.model.journal import list_records
from memtui.core.read.store import load_root
from memtui.core.rules.incremental import findings_cache
from memtui.core.rules.validate import validate
from memtui.core.verbs import lifecycle as verbs
from memtui.core.verbs.bulk import bulk


def seconds(start: float) -> float:
    return time.perf_counter() - start


async def app_times(root: Path, marked: list[str]) -> tuple[float, float, int]:
    """(seconds from ``a`` to the confirm dialog, seconds from ``y`` to the folder redrawn,
    journal records written) for the app with ``marked`` marked."""
    from memtui.app import MemtuiApp
    from memtui.screens.confirm import ConfirmChange

    app = MemtuiApp([root], watch=False)
    app.animation_level = "none"
    async with app.run_test(size=(140, 40)) as pilot:
        for _ in range(3):
            await app.workers.wait_for_complete()
            await pilot.pause(0)
        app.set_marks(frozenset(marked))
        await pilot.pause(0)
        records = len(list_records(root))
        t = time.perf_counter()
        await pilot.press("a")
        while not isinstance(app.screen, ConfirmChange):
            await app.workers.wait_for_complete()
            await pilot.pause(0)
        await pilot.pause(0)
        confirm_s = seconds(t)
        t = time.perf_counter()
        await pilot.press("y")
        while app.marks:
            await app.workers.wait_for_complete()
            await pilot.pause(0)
        await app.workers.wait_for_complete()
        await pilot.pause(0)
        apply_s = seconds(t)
        return confirm_s, apply_s, len(list_records(root)) - records


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=10_000)
    parser.add_argument("--marked", type=int, default=1_000)
    parser.add_argument("--keep", metavar="DIR", help="generate the root here and keep it")
    args = parser.parse_args(argv)

    workdir = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="memtui-bench-"))
    root = workdir / "root"
    try:
        if not (root / "MEMORY.md").exists():
            generate(root, args.files)
        snapshot = load_root(root)
        cache = findings_cache(snapshot)
        t = time.perf_counter()
        validate(snapshot)
        full_s = seconds(t)
        print(f"root: {len(snapshot.files):,} files · full validation {full_s * 1000:.0f} ms")

        # baseline: one file, the same verb, the same path through the writer
        listed = [line.resolved for line in snapshot.index.entries if line.resolved]
        t = time.perf_counter()
        one = write.plan(snapshot, verbs.archive(snapshot, listed[0]), cache)
        applied = write.commit(one)
        one_s = seconds(t)
        snapshot, cache = applied.snapshot, applied.cache
        print(f"baseline: archive of 1 file, build + gate + apply {one_s * 1000:.0f} ms")

        # the marked files: the Recent entries first, then region-covered session files
        listed_set = set(listed[1:])
        marked = listed[1:] + sorted(p for p in snapshot.files
                                     if p.startswith("session_") and p not in listed_set)
        marked = marked[: args.marked]
        t = time.perf_counter()
        changeset = bulk(snapshot, "archive", marked).changeset
        build_s = seconds(t)
        t = time.perf_counter()
        diff = unified_diff(snapshot, changeset)
        diff_s = seconds(t)
        t = time.perf_counter()
        preview = write.plan(snapshot, changeset, cache)
        gate_s = seconds(t)
        if not preview.accepted:
            raise SystemExit(f"refused: {preview.refusal_message()}")
        records = len(list_records(root))
        t = time.perf_counter()
        applied = write.commit(preview)
        apply_s = seconds(t)
        assert len(list_records(root)) == records + 1, "a bulk change must be one journal record"
        assert all((root / "archive" / Path(p).name).is_file() for p in marked)
        t = time.perf_counter()
        write.undo(applied.snapshot, applied.cache)
        undo_s = seconds(t)
        assert not any((root / "archive" / Path(p).name).exists() for p in marked)

        confirm_s = build_s + diff_s + gate_s
        app_confirm_s, app_apply_s, app_records = asyncio.run(app_times(root, marked))
        assert app_records == 1, "the app's bulk change must be one journal record"
        n = len(marked)
        print(f"\nbulk archive of {n:,} files as one changeset ({len(changeset.ops):,} operations, "
              f"diff {len(diff.splitlines()):,} lines):")
        print(f"  build   {build_s * 1000:8.0f} ms")
        print(f"  diff    {diff_s * 1000:8.0f} ms")
        print(f"  gate    {gate_s * 1000:8.0f} ms")
        print(f"  apply   {apply_s * 1000:8.0f} ms  (one journal record)")
        print(f"  undo    {undo_s * 1000:8.0f} ms")
        print(f"  per file, build + gate + apply: {(build_s + gate_s + apply_s) / n * 1000:.2f} ms "
              f"= {(build_s + gate_s + apply_s) / n / one_s:.2f}× the one-file baseline; "
              f"confirm work = {confirm_s / full_s:.1f}× one full validation")
        print(f"\nthe app, {n:,} files marked: a → confirm dialog on screen {app_confirm_s * 1000:.0f} ms · "
              f"y → applied and redrawn {app_apply_s * 1000:.0f} ms (one journal record)")
        ok = app_confirm_s < 1.0 and max(apply_s, app_apply_s) < 2.0
        print(f"\ntargets: confirm dialog open {app_confirm_s:.2f} s (< 1 s; core work before it "
              f"{confirm_s:.2f} s), apply {apply_s:.2f} s core / {app_apply_s:.2f} s in the app "
              f"(< 2 s) — {'OK' if ok else 'OVER'}")
        return 0 if ok else 1
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)


if __name__ == "__main__":
    sys.exit(main())
