"""Benchmark: the app on 10k- and 100k-file roots — time to first paint, key-to-paint latency.

Run: ``.venv/bin/python bench/bench_app.py [--sizes 10000 100000] [--keys 30] [--starts 3]``.

Roots come from :mod:`bench.synth` (cached under the temp folder between runs).  The app runs
headless in-process (Textual's Pilot), so what is timed is the app's own work up to a composited
frame; a real terminal adds its output time on top.

- *first paint*: from constructing the app to the first frame that shows the working set (the
  quick pass: the indexes and the files they list).  *full*: to the frame after the whole
  folder is scanned and validated (Files and Problems filled).  Staleness scoring continues in
  the background after that and is timed as *scored*.  (Roots this big are scanned for
  duplicates only when the Consolidate view is opened; that is not timed here.)
- *key-to-paint*: from posting a key to the first frame composited after it (the cursor moved,
  the filter narrowed the list, the pin shows).  The pin is timed to the frame after the change
  is written and the folder shown again; it is undone between samples.

Targets (issue 6): first paint < 1.0 s at 10k and < 2.5 s at 100k; each keystroke < 50 ms at 10k.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from datetime import datetime, timezone
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from synth import make_root  # noqa: E402

from memtui.app import MemtuiApp  # noqa: E402
from memtui.screens.main import MainScreen  # noqa: E402

NOW = datetime(2026, 11, 29, 12, tzinfo=timezone.utc)
SIZE = (160, 48)


class TimedApp(MemtuiApp):
    """The app, noting when frames are composited and when the workspace arrives."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)  # type: ignore[arg-type]
        self.t_start = time.perf_counter()
        self.paints: list[float] = []
        self.marks: dict[str, float] = {}
        self.stamp = 0.0  # when the work a key started was done (the paint after it counts)

    # Textual calls the base class's handler too (it walks the MRO): these only take the time.

    def on_memtui_app_loaded(self, message: MemtuiApp.Loaded) -> None:
        name = "full" if message.workspace.complete else "first"
        if name not in self.marks:
            self.call_after_refresh(lambda: self.marks.setdefault(name, time.perf_counter()))

    def on_memtui_app_applied(self, message: MemtuiApp.Applied) -> None:
        self.stamp = time.perf_counter()

    def on_memtui_app_scored(self, message: MemtuiApp.Scored) -> None:
        self.marks.setdefault("scored", time.perf_counter())


def _patch_paint_clock(app: TimedApp) -> None:
    """Record the time of every composited frame of the main screen."""
    screen = app.get_screen("main")
    original = screen._compositor_refresh  # type: ignore[attr-defined]

    def timed() -> None:
        original()
        app.paints.append(time.perf_counter())

    screen._compositor_refresh = timed  # type: ignore[method-assign]


async def settle(pilot: object) -> None:
    app = pilot.app  # type: ignore[attr-defined]
    for _ in range(3):
        await app.workers.wait_for_complete()
        await pilot.pause()  # type: ignore[attr-defined]


async def key_to_paint(pilot: object, key: str, stamped: bool = False) -> float:
    """Seconds from posting ``key`` to the first frame composited after its effect.

    With ``stamped``, the effect is done when ``app.stamp`` moves (the filter applied, the
    change written and shown); otherwise the first frame after the key counts.
    """
    app: TimedApp = pilot.app  # type: ignore[attr-defined]
    await settle(pilot)
    app.stamp = 0.0
    t0 = time.perf_counter()
    await pilot.press(key)  # type: ignore[attr-defined]
    deadline = t0 + 30
    while time.perf_counter() < deadline:
        done = app.stamp if stamped else t0
        after = [t for t in app.paints if t > done]
        if (not stamped or app.stamp) and after:
            return after[0] - t0
        await asyncio.sleep(0.0005)
    return float("nan")


async def measure_start(root: Path) -> dict[str, float]:
    app = TimedApp([root], now=NOW, watch=False)
    async with app.run_test(size=SIZE) as pilot:
        deadline = time.perf_counter() + 600
        while "scored" not in app.marks and time.perf_counter() < deadline:
            await asyncio.sleep(0.01)
        await settle(pilot)
        return {k: v - app.t_start for k, v in app.marks.items()}


async def measure_keys(root: Path, samples: int) -> dict[str, list[float]]:
    app = TimedApp([root], now=NOW, watch=False)
    out: dict[str, list[float]] = {"cursor (files)": [], "cursor (working set)": [],
                                   "filter keystroke": [], "pin": []}
    async with app.run_test(size=SIZE) as pilot:
        while "scored" not in app.marks:
            await asyncio.sleep(0.01)
        await settle(pilot)
        _patch_paint_clock(app)
        main = app.get_screen("main")
        assert isinstance(main, MainScreen)
        # cursor in the working set
        main.show_view("working")
        await settle(pilot)
        main.view("working").pane_widgets()[1].focus()
        for i in range(samples):
            out["cursor (working set)"].append(await key_to_paint(pilot, "j" if i % 20 < 10 else "k"))
        # cursor in the Files list (every file)
        main.show_view("files")
        await settle(pilot)
        for i in range(samples):
            out["cursor (files)"].append(await key_to_paint(pilot, "j" if i % 20 < 10 else "k"))
        # filter keystrokes: to the frame showing the narrowed list
        files_view = main.view("files")
        apply = files_view._apply  # type: ignore[attr-defined]

        def stamped_apply(rows: object) -> None:
            apply(rows)
            app.stamp = time.perf_counter()

        files_view._apply = stamped_apply  # type: ignore[attr-defined]
        await key_to_paint(pilot, "slash")
        query = "lesson registry"
        for i in range(samples):
            key = query[i % len(query)]
            if i and i % len(query) == 0:
                for _ in range(len(query)):
                    await key_to_paint(pilot, "backspace")
            out["filter keystroke"].append(
                await key_to_paint(pilot, "space" if key == " " else key, stamped=True))
        await key_to_paint(pilot, "escape")
        # pin (applied at once) and undo, alternating
        main.show_view("working")
        await settle(pilot)
        recent = main.view("working").pane_widgets()[1]
        recent.focus()
        for i in range(max(3, samples // 5)):
            path = recent.rows[0].path if recent.rows else None
            if path is None:
                break
            main.view("working").select_path(path)
            out["pin"].append(await key_to_paint(pilot, "p", stamped=True))
            await key_to_paint(pilot, "u", stamped=True)
    return out


def ms(values: list[float]) -> str:
    if not values:
        return "—"
    return f"median {statistics.median(values) * 1000:7.1f} ms  (p90 {sorted(values)[int(len(values) * 0.9) - 1] * 1000:6.1f}, n={len(values)})"


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", type=int, nargs="+", default=[10_000, 100_000])
    parser.add_argument("--keys", type=int, default=30, help="samples per key kind")
    parser.add_argument("--starts", type=int, default=3, help="app starts per size")
    args = parser.parse_args()
    os.environ["MEMTUI_NO_PRESSURE"] = "1"
    cache = Path(tempfile.gettempdir()) / "memtui-bench-app"
    for size in args.sizes:
        root = cache / f"root-{size}"
        if not (root / "MEMORY.md").exists():
            print(f"generating a {size:,}-file root in {root} …", flush=True)
            make_root(root, size)
        starts = [asyncio.run(measure_start(root)) for _ in range(args.starts)]
        print(f"\n{size:,} files")
        for mark in ("first", "full", "scored"):
            values = [s[mark] for s in starts if mark in s]
            if values:
                print(f"  {mark:<22} median {statistics.median(values):6.2f} s  "
                      f"(runs: {', '.join(f'{v:.2f}' for v in values)})")
        keys = asyncio.run(measure_keys(root, args.keys))
        for name, values in keys.items():
            print(f"  {name:<22} {ms(values)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
