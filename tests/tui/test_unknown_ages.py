"""The Staleness view and the preview of a copied folder: an unknown age is shown as unknown,
with its reason, never as "0 days"; the folder's README is counted apart, not scored."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path

from rich.console import Console

from memtui.core.judge.staleness import score_root
from memtui.core.read.store import load_root
from memtui.widgets.preview import staleness_table
from tests.support.app import make_app, press, screen_lines, settle
from tests.support.roots import MakeRoot, topic

COPIED = datetime(2026, 12, 1, 9, tzinfo=timezone.utc).timestamp()


def copied(make_root: MakeRoot) -> Path:
    root = make_root({
        "MEMORY.md": "# Memory\n\n" + "".join(f"- [Note {c}](note_{c}.md) — the {c} worker\n" for c in "abcdef"),
        **{f"note_{c}.md": topic(f"Note {c}", body=f"The {c} worker drains the queue.\n") for c in "abcdef"},
        "README.md": "# Team memory\n\nWhat this folder is, for people who open it.\n",
    })
    for path in root.iterdir():
        os.utime(path, (COPIED, COPIED))
    return root


def test_the_preview_says_the_age_is_unknown_and_why(make_root: MakeRoot) -> None:
    result = score_root(load_root(copied(make_root)), datetime(2026, 12, 2, tzinfo=timezone.utc)).results[0]
    console = Console(width=200, record=True)
    console.print(staleness_table(result))
    text = " ".join(console.export_text().split())
    assert ("age unknown — all 7 files were written within a second on 2026-12-01: a copy, clone or "
            "restore; no date in the file") in text
    assert "an unknown age scores as one half-life → base 50" in text and "0 days" not in text


async def test_the_staleness_view_marks_unknown_ages_and_counts_the_readme_apart(make_root: MakeRoot) -> None:
    app = make_app(copied(make_root))
    async with app.run_test(size=(160, 40)) as pilot:
        await settle(pilot)
        await press(pilot, "4")
        lines = screen_lines(app)
        header = next(line for line in lines if "files ·" in line)
        assert "6 files" in header and "6 ages unknown" in header and "1 folder document" in header
        rows = [line for line in lines if line.lstrip().startswith("note_")]
        assert len(rows) == 6 and all("    ?" in row and " 0d" not in row for row in rows)
