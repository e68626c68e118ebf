"""Regenerate ``screenshots/*.svg`` by driving the real app (never drawn by hand).

Run: ``.venv/bin/python scripts/screenshots.py [--out screenshots] [--size 140x42]``.

Each shot opens a fresh copy of the bundled demo (or a generated over-budget folder) in a temp
folder with a fixed clock, presses the keys a person would, waits for every worker and saves
the screen with ``App.save_screenshot``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Awaitable, Callable

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from memtui.app import MemtuiApp  # noqa: E402
from memtui.core.read.demo import copy_demo  # noqa: E402

NOW = datetime(2026, 11, 29, 12, 0, tzinfo=timezone.utc)


async def settle(pilot: Any) -> None:
    for _ in range(3):
        await pilot.app.workers.wait_for_complete()
        await pilot.pause()


def demo_copy(folder: Path) -> Path:
    """The demo as ``memtui --demo`` opens it: the project with its history, and its memory."""
    return copy_demo(folder / "harbor")


def over_budget(folder: Path) -> Path:
    """An index past its cap (the loader cuts it) and one loose lesson file to promote."""
    root = folder / "memory"
    root.mkdir()
    lines = ["# Memory", "", "## Recent"]
    for i in range(215):
        (root / f"note_{i:03d}.md").write_text(
            f"---\nname: Note {i}\ndescription: fact {i}\ntype: project\n"
            f"updated: 2026-{(i % 11) + 1:02d}-01\n---\n\nFact {i}.\n", encoding="utf-8")
        lines.append(f"- [Note {i}](note_{i:03d}.md) — fact {i} about the build")
    lines += ["", "## Regions", "- region `lesson_*.md` → older lessons; grep the memory dir"]
    (root / "lesson_flaky_ci.md").write_text(
        "---\nname: Flaky CI\ndescription: retry once\ntype: feedback\n---\n\nRetry once.\n",
        encoding="utf-8")
    (root / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


async def shoot(root: Path, out: Path, size: tuple[int, int],
                steps: Callable[[Any], Awaitable[None]]) -> None:
    app = MemtuiApp([root], now=NOW, watch=False)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await steps(pilot)
        await settle(pilot)
        await pilot.pause(0.2)
        app.save_screenshot(filename=out.name, path=str(out.parent))
    print(f"wrote {out}")


def keys(*names: str) -> Callable[[Any], Awaitable[None]]:
    async def press(pilot: Any) -> None:
        for name in names:
            await pilot.press(name)
            await settle(pilot)

    return press


async def refused(pilot: Any) -> None:
    pilot.app.main.show_view("files")
    await settle(pilot)
    pilot.app.main.view("files").select_path("lesson_flaky_ci.md")
    await settle(pilot)
    await pilot.press("P")


async def inbox(pilot: Any) -> None:
    """An outside edit, a new file and a rename since the first look, then the Inbox view."""
    root = pilot.app.root
    lessons = root / "feedback_small_prs.md"
    lessons.write_bytes(lessons.read_bytes() + b"Also: one reviewer per PR, two for migrations.\n")
    (root / "lesson_minio_etag_quirk.md").rename(root / "lesson_minio_etags.md")
    (root / "lesson_registry_mirror_auth.md").write_text(
        "---\nname: Registry mirror auth\ndescription: mirrors need a robot token\ntype: project\n---\n\n"
        "Pull-through mirrors authenticate with a robot token, not the admin session.\n", encoding="utf-8")
    for key in ("ctrl+r", "6", "down"):
        await pilot.press(key)
        await settle(pilot)


#: shots taken at another terminal size than ``--size``
SIZES = {"narrow-80x24.svg": (80, 24)}

SHOTS: list[tuple[str, Callable[[Path], Path], Callable[[Any], Awaitable[None]]]] = [
    ("main.svg", demo_copy, keys()),
    ("marks.svg", demo_copy, keys("tab", "space", "j", "space", "j", "space", "j")),
    ("narrow-80x24.svg", demo_copy, keys("4")),
    ("staleness.svg", demo_copy, keys("4")),
    ("merge-review.svg", demo_copy, keys("5", "m")),
    ("refused-change.svg", over_budget, refused),
    ("inbox.svg", demo_copy, inbox),
    ("dream.svg", demo_copy, keys("D", "down")),
]


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", default=str(Path(__file__).resolve().parents[1] / "screenshots"))
    parser.add_argument("--size", default="140x42", help="terminal WIDTHxHEIGHT")
    parser.add_argument("--only", nargs="*", metavar="NAME", help="only these shots (e.g. inbox.svg)")
    args = parser.parse_args()
    width, height = (int(n) for n in args.size.lower().split("x"))
    out = Path(args.out)
    out.mkdir(parents=True, exist_ok=True)
    os.environ["MEMTUI_NO_PRESSURE"] = "1"
    for name, make, steps in SHOTS:
        if args.only and name not in args.only:
            continue
        with tempfile.TemporaryDirectory(prefix="memtui-shot-") as tmp:
            cwd = os.getcwd()
            os.chdir(tmp)  # the status line shows the root relative to here: "memory"
            try:
                root = make(Path(tmp))
                asyncio.run(shoot(root, out / name, SIZES.get(name, (width, height)), steps))
            finally:
                os.chdir(cwd)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
