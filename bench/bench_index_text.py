"""Benchmark: opening the index text (``i``) on a 1,000- and a 10,000-line MEMORY.md.

Run: ``.venv/bin/python bench/bench_index_text.py [--lines 1000 10000] [--repeat 10]``.

The app runs headless (Textual's Pilot).  Each sample presses ``i`` (the index text, drawn
through the Line API), ``c`` (jump to the loader's cut), then ``esc``, and waits until the
screen has painted after each key.  The same-run baseline is ``?`` then ``esc`` (the help
screen, a fixed-size table) on the same app: the ratio says what the index text costs beyond
opening any screen.  Prints the median milliseconds of each.
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memtui.app import MemtuiApp  # noqa: E402
from memtui.screens.index_text import IndexTextScreen  # noqa: E402

NOW = datetime(2026, 11, 29, 12, tzinfo=timezone.utc)


def make_index(root: Path, lines: int) -> None:
    """An index of ``lines`` lines written as ``- **File**: `name.md` `` (no recognised entries),
    frontmatter and a comment on top, and a file for every tenth line."""
    root.mkdir(parents=True)
    out = ["---", "name: Index", "description: bench", "---", "<!-- history", "rebuilt", "-->",
           "# Research index", ""]
    for i in range(lines - len(out)):
        if i % 10 == 0:
            name = f"topic_{i:05d}.md"
            (root / name).write_text(f"---\nname: Topic {i}\ndescription: t\ntype: reference\n"
                                     f"---\n\nBody {i}.\n", encoding="utf-8")
            out.append(f"- **File**: `{name}`")
        else:
            out.append(f"  - Coverage {i}: installation, configuration, data binding and theming")
    (root / "MEMORY.md").write_text("\n".join(out) + "\n", encoding="utf-8")


async def settle(pilot: object) -> None:
    app = pilot.app  # type: ignore[attr-defined]
    for _ in range(50):
        await app.workers.wait_for_complete()
        await pilot.pause(0)  # type: ignore[attr-defined]
        if not any(worker.is_running for worker in app.workers):
            return


async def timed(pilot: object, *keys: str) -> float:
    start = time.perf_counter()
    for key in keys:
        await pilot.press(key)  # type: ignore[attr-defined]
        await pilot.pause(0)  # type: ignore[attr-defined]
    return time.perf_counter() - start


async def run(root: Path, repeat: int) -> tuple[list[float], list[float]]:
    app = MemtuiApp([root], read_only=True, now=NOW, watch=False)
    app.animation_level = "none"
    text: list[float] = []
    base: list[float] = []
    async with app.run_test(size=(120, 40)) as pilot:
        await settle(pilot)
        await pilot.press("3")  # from a view whose own list does not hold the index text
        await settle(pilot)
        for _ in range(repeat):
            text.append(await timed(pilot, "i", "c", "escape"))
            base.append(await timed(pilot, "question_mark", "escape"))
        await pilot.press("i")
        await pilot.pause(0)
        assert isinstance(app.screen, IndexTextScreen)
    return text, base


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--lines", type=int, nargs="+", default=[1000, 10000])
    parser.add_argument("--repeat", type=int, default=10)
    args = parser.parse_args()
    print(f"{'lines':>7} {'i, c, esc (ms)':>15} {'?, esc baseline (ms)':>21} {'ratio':>6}")
    with tempfile.TemporaryDirectory() as tmp:
        for lines in args.lines:
            root = Path(tmp) / f"index_{lines}"
            make_index(root, lines)
            text, base = asyncio.run(run(root, args.repeat))
            t, b = statistics.median(text) * 1000, statistics.median(base) * 1000
            print(f"{lines:>7} {t:>15.1f} {b:>21.1f} {t / b:>6.2f}")


if __name__ == "__main__":
    main()
