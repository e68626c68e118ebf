"""Reviewing a loose cluster pair by pair: each accepted merge is planned on the folder as it is now."""

from __future__ import annotations

from pathlib import Path

from textual.message import Message
from textual.notifications import Notify

from memtui.screens.merge_review import MergeReviewScreen
from tests.support.app import make_app, press, settle

WORDS = ("kestrel granite harbor lantern meadow nectar orchid pebble quartz raven saffron timber "
         "umber velvet walnut").split()
NAMES = ("alpha", "bravo", "charlie", "delta")


def chain_root(make_root) -> Path:
    """Four files whose bodies slide one word apart: a–b, b–c, c–d pair up, the rest do not,
    so the scan finds one chained cluster that must be reviewed pair by pair."""
    files = {}
    lines = ["# Memory", "", "## Recent"]
    for i, name in enumerate(NAMES):
        body = " ".join(WORDS[i:i + 12])  # each holds 86–91% of its neighbour's weighted words
        files[f"{name}.md"] = (f"---\nname: {name}zulu\ndescription: {name} fact\ntype: project\n"
                               f"---\n\n{body}\n")
        lines.append(f"- [{name}]({name}.md) — {name} hook")
    files["MEMORY.md"] = "\n".join(lines) + "\n"
    return make_root(files)


async def test_a_loose_cluster_merges_pair_by_pair(make_root) -> None:
    root = chain_root(make_root)
    posted: list[Message] = []
    app = make_app(root)
    async with app.run_test(size=(140, 40), message_hook=posted.append) as pilot:
        await settle(pilot)
        await press(pilot, "5")
        cluster = next(c for c in app.workspace.candidates.clusters if len(c.files) == 4)
        assert cluster.review_pairwise
        view = app.main.view("consolidate")
        assert view.candidate_list.select_key(("cluster", cluster.files))
        await press(pilot, "m")
        assert isinstance(app.screen, MergeReviewScreen)
        assert len(app.screen.queue) == 3
        await press(pilot, "ctrl+s")
        await press(pilot, "ctrl+s")
        # the last pair (bravo, charlie) now stands for the two gists they were folded into
        assert isinstance(app.screen, MergeReviewScreen), [
            m.notification.message for m in posted if isinstance(m, Notify)]
        # (each gist named after the larger of its pair: no date tells them apart)
        first, second = sorted(app.screen.group)
        assert first in ("alphazulu.md", "bravozulu.md") and second in ("charliezulu.md", "deltazulu.md")
        notes = [m.notification.message for m in posted if isinstance(m, Notify)]
        assert not [n for n in notes if "changed on disk" in n], notes
        for name in NAMES:  # both disjoint pairs were merged: every source is archived
            assert not (root / f"{name}.md").exists(), (name, notes)
            assert (root / "archive" / f"{name}.md").exists()
        errors = [f for f in app.workspace.findings if f.severity == "error"]
        assert not errors
        await press(pilot, "ctrl+s")  # the two gists fold into one: the whole cluster is merged
        assert not isinstance(app.screen, MergeReviewScreen)
        live = [p.name for p in root.glob("*.md") if p.name != "MEMORY.md" and p.name != "MEMORY-archive.md"]
        assert len(live) == 1
        assert "consolidated_from:" in (root / live[0]).read_text(encoding="utf-8")
