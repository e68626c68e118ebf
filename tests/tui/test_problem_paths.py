"""The Problems view's place column comes first: at 80 columns a finding's path is shown whole
when it fits, and a longer one keeps its start and its end with … in the middle."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from tests.support.app import make_app, press, screen_lines, settle
from tests.support.roots import topic

ORPHAN = "reference_harborctl_cheatsheet.md"  # the demo's orphan
LONG = "projects/platform/infrastructure/kubernetes/notes_on_cluster_autoscaler_tuning.md"


def finding_rows(app: Any) -> list[str]:
    """The lines of the Problems list that show a finding (not a rule's heading)."""
    return [line for line in screen_lines(app) if line.lstrip().startswith(("✖", "⚠"))]


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
async def test_the_path_of_a_finding_is_shown_whole_when_it_fits(
        demo_root: Path, size: tuple[int, int]) -> None:
    app = make_app(demo_root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        rows = finding_rows(app)
        assert any(ORPHAN in row for row in rows), rows
        broken = next(row for row in rows if "MEMORY.md:20" in row)
        assert "'project_helm_chart" in broken  # the message still has room beside the place


@pytest.mark.parametrize("size", [(80, 24), (200, 50)], ids=["80x24", "200x50"])
async def test_a_long_path_keeps_its_start_and_its_end(
        make_root: Any, size: tuple[int, int]) -> None:
    root = make_root({"MEMORY.md": "# Memory\n\n## Recent\n- [A](a.md) — a\n", "a.md": topic("A"),
                      LONG: topic("Autoscaler tuning")})  # an orphan deep in folders
    app = make_app(root)
    async with app.run_test(size=size) as pilot:
        await settle(pilot)
        await press(pilot, "2")
        row = next(row for row in finding_rows(app) if "✖" in row)
        if size[0] >= 200:
            assert LONG in row, row
        else:
            shown = row.split("✖", 1)[1].split()[0]
            head, _, tail = shown.partition("…")
            assert tail, row  # cut in the middle, not at its end
            assert LONG.startswith(head) and LONG.endswith(tail), row
            assert tail.endswith("_tuning.md") and len(shown) >= 40, row
