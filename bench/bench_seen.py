"""Benchmark ``memtui changes`` on a crafted, huge seen store (a hostile or a rotted baseline).

A two-file root gets a baseline naming ``--entries`` files that no longer exist (every one a
"removed" change).  Timed in one process, CPU seconds: ``changes --no-diff`` as it runs (a list
over ``LONG_LIST`` changes is written in one plain pass), against the same list printed through
Rich line by line (``LONG_LIST`` raised past it: the per-change output the command had for any
length) — the baseline, in the same run.  Then a store over the cap (``MAX_TRACKED`` entries):
refused in one line, how fast.

    .venv/bin/python bench/bench_seen.py [--entries 99000]
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path


def craft(root: Path, entries: int) -> None:
    """A baseline for ``root`` holding its own files and ``entries`` files that are gone."""
    from memtui.cli.main import main

    with contextlib.redirect_stdout(io.StringIO()):
        main(["changes", str(root), "--mark-seen"])
    state = root / ".memtui" / "seen" / "state.json"
    value = json.loads(state.read_bytes())
    for i in range(entries):
        value["files"][f"notes/f{i}.md"] = {"sha256": f"{i:064x}", "size": 10, "copy": False}
    state.write_text(json.dumps(value))


def timed(argv: list[str]) -> tuple[float, int, str]:
    """CPU seconds, exit code and stderr of one in-process ``memtui`` run (stdout discarded)."""
    from memtui.cli.main import main

    err = io.StringIO()
    start = time.process_time()
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(err):
        code = main(argv)
    return time.process_time() - start, code, err.getvalue()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--entries", type=int, default=99_000)
    args = parser.parse_args()
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
    from memtui.cli import changes
    from memtui.core.stores import seen_store

    work = Path(tempfile.mkdtemp(prefix="bench-seen-"))
    os.environ["MEMTUI_CACHE_DIR"] = str(work / "cache")
    try:
        root = work / "root"
        root.mkdir()
        (root / "MEMORY.md").write_text("# Memory\n\n- [a](a.md) — a fact\n")
        (root / "a.md").write_text("---\nname: a\ndescription: a fact\ntype: project\n---\n\nBody.\n")
        entries = min(args.entries, seen_store.MAX_TRACKED - 10)
        craft(root, entries)
        now, code, _ = timed(["changes", str(root), "--no-diff"])
        assert code == 0
        kept = changes.LONG_LIST
        changes.LONG_LIST = 10**9  # every change through Rich, as before the one-pass list
        try:
            before, code, _ = timed(["changes", str(root), "--no-diff"])
        finally:
            changes.LONG_LIST = kept
        assert code == 0
        print(f"{entries:,} removed entries: one pass {now:.2f} s CPU, Rich line by line "
              f"{before:.2f} s (baseline, same run): {before / now:.1f}x")
        over = seen_store.MAX_TRACKED + 1
        shutil.rmtree(root / ".memtui")
        craft(root, over)
        refused, code, err = timed(["changes", str(root)])
        print(f"{over:,} entries (over the cap): exit {code} in {refused:.2f} s CPU — {err.strip()[:100]}")
    finally:
        shutil.rmtree(work)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
