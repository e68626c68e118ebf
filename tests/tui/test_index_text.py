"""Issue 9 in the app: the index text with the loader's cut, the session toggle, contained pairs,
contradictions without an order, and mentions in the preview."""

from __future__ import annotations

import json
import shutil
import stat
from pathlib import Path

import pytest

from memtui.core.model.snapshot import BudgetConfig
from memtui.screens.confirm import ConfirmChange
from memtui.screens.index_text import IndexTextScreen
from memtui.screens.pick_file import PickFileScreen
from memtui.services.scoring import Contradiction
from memtui.widgets.consolidate_view import ConsolidateView, contradiction_words
from memtui.widgets.index_text import IndexText
from memtui.widgets.preview import Preview
from memtui.widgets.working_set_view import WorkingSetView, mention_summary
from tests.support.app import digest, make_app, notice_hook, press, settle
from tests.support.roots import CORPORA, freeze_mtimes, topic

SYNTHETIC = Path(__file__).resolve().parents[1] / "core" / "data" / "candidate_synthetic.json"


def shown(text: IndexText) -> list[str]:
    """The rows the index text draws now, as plain text (what is on screen)."""
    return [text.render_line(y).text.rstrip() for y in range(text.scrollable_content_region.height)]


def over_budget_index(tmp_path: Path) -> Path:
    """An index with 4 lines of frontmatter, a 3-line comment and 230 entries."""
    root = tmp_path / "memory"
    root.mkdir()
    lines = ["---", "name: Memory", "description: the index", "---",
             "<!-- history:", "2026-11-01 rebuilt", "-->", "# Memory", "", "## Recent"]
    for i in range(230):
        name = f"note_{i:03d}.md"
        (root / name).write_text(f"---\nname: Note {i}\ndescription: fact {i}\ntype: project\n---\n"
                                 f"\nFact number {i}.\n", encoding="utf-8")
        lines.append(f"- [Note {i}]({name}) — fact {i}")
    (root / "MEMORY.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return root


@pytest.mark.parametrize("loader, cut", [("claude-code", 208), ("raw", 201)])
async def test_the_index_text_draws_the_cut_at_the_loaders_line(
        tmp_path: Path, loader: str, cut: int) -> None:
    """claude-code strips 7 lines (frontmatter + comment) before the 200-line cut: the cut falls on
    line 208; raw counts them, so it falls on line 201."""
    root = over_budget_index(tmp_path)
    app = make_app(root, read_only=True, config=BudgetConfig(loader=loader))
    async with app.run_test(size=(100, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "3", "i")  # from any view
        assert isinstance(app.screen, IndexTextScreen)
        text = app.screen.query_one(IndexText)
        top = shown(text)
        assert top[0].startswith("   1 ")
        if loader == "claude-code":
            assert top[0].endswith("---  ← stripped, not loaded (claude-code: frontmatter)")
            assert top[4].endswith("<!-- history:  ← stripped, not loaded (claude-code: comment)")
            assert top[1].startswith("   2 · name: Memory")  # greyed, marked in the gutter
            assert "stripped" not in top[1] and "stripped" not in top[7]
        else:
            assert not any("stripped" in row for row in top)
        await press(pilot, "c")
        rows = shown(text)
        rule = next(i for i, row in enumerate(rows) if "✂ loader cut" in row)
        assert f"line {cut} " in rows[rule]
        assert f"{240 - cut + 1} lines below not loaded" in rows[rule]
        assert rows[rule - 1].startswith(f"{cut - 1:>4} │")  # the last line that loads
        assert rows[rule + 1].startswith(f"{cut:>4} ✂")  # the first one cut
        assert f"cut at line {cut}" in str(text.border_subtitle)
        await press(pilot, "escape")
        assert not isinstance(app.screen, IndexTextScreen)
        assert app.main.active_view_name == "files"


async def test_an_index_with_no_recognised_entries_shows_its_text(tmp_path: Path) -> None:
    """Entries written as ``- **File**: `name.md` `` are not entries: the working set shows the
    index text instead of three empty panes, and the file is reached by a mention."""
    root = tmp_path / "memory"
    root.mkdir()
    (root / "drawio.md").write_text("---\nname: Drawio\ndescription: d\ntype: reference\n---\n\n"
                                    "Shapes.\n", encoding="utf-8")
    (root / "MEMORY.md").write_text("# Researcher\n\n## Knowledge\n\n- **File**: `drawio.md`\n"
                                    "- **Topic**: diagrams\n", encoding="utf-8")
    app = make_app(root, read_only=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        view = app.main.query_one(WorkingSetView)
        assert view.index_text.display
        assert not any(pane.display for pane in view.pane_widgets())
        assert app.focused is view.index_text
        rows = shown(view.index_text)
        assert rows[4].startswith("   5 │ - **File**: `drawio.md`")
        assert "all of it loads" in str(view.index_text.border_subtitle)
        said = " ".join(" ".join(view.query_one("#ws-preview", Preview).render_line(y).text.split())
                        for y in range(6))
        assert "1 of its 1 topic file is named in the loaded part and reached by that mention" in said
        await press(pilot, "3")
        app.main.view("files").select_path("drawio.md")
        await settle(pilot)
        preview = app.main.query_one("#files-preview", Preview)
        drawn = " ".join(" ".join(preview.render_line(y).text.split()) for y in range(8))
        assert "mention on line 5 of MEMORY.md — reached by a mention in the loaded part" in drawn
        assert "orphan" not in drawn


def test_the_index_text_note_counts_the_folders_topic_files() -> None:
    """What the note under an index without entries says of the topic files: none in the folder,
    none named, or how many of how many the loaded part names."""
    assert mention_summary(0, 0) == "The folder holds no topic file besides it."
    assert mention_summary(0, 3) == "None of its 3 topic files is named in the loaded part (Files tab, 3)."
    assert mention_summary(2, 3).startswith("2 of its 3 topic files are named in the loaded part")


async def test_a_recognised_index_keeps_its_panes(demo_root: Path) -> None:
    app = make_app(demo_root, read_only=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        view = app.main.query_one(WorkingSetView)
        assert not view.index_text.display
        assert all(pane.display for pane in view.pane_widgets())


async def test_the_index_text_key_says_why_without_an_index(tmp_path: Path) -> None:
    root = tmp_path / "memory"
    root.mkdir()
    (root / "a.md").write_text("---\nname: A\ndescription: a\ntype: user\n---\n", encoding="utf-8")
    app = make_app(root, read_only=True)
    notices: list[str] = []
    async with app.run_test(size=(100, 30), message_hook=notice_hook(notices)) as pilot:
        await settle(pilot)
        await press(pilot, "i")
        assert not isinstance(app.screen, IndexTextScreen)
        assert any("no MEMORY.md" in m for m in notices)


def session_root(tmp_path: Path) -> Path:
    """Two session logs that are near copies (one line differs), and two unrelated notes."""
    root = tmp_path / "memory"
    root.mkdir()
    body = "\n".join(f"- step {word}: checked the {word} pipeline and wrote down the outcome"
                     for word in ("ingest", "parser", "scheduler", "exporter", "renderer",
                                  "indexer", "uploader", "notifier"))
    for day, extra in (("24", "- the retry budget stays at three"), ("25", "- the retry budget is four")):
        (root / f"session_2026-05-{day}_sidecoach.md").write_text(
            f"---\nname: Sidecoach session\ndescription: the pipeline walk\ntype: project\n---\n\n"
            f"{body}\n{extra}\n", encoding="utf-8")
    (root / "deploy.md").write_text("---\nname: Deploy\ndescription: tag then push\ntype: reference\n"
                                    "---\n\nTag the release, then push the image.\n", encoding="utf-8")
    (root / "style.md").write_text("---\nname: Style\ndescription: short commits\ntype: feedback\n"
                                   "---\n\nKeep commit subjects under fifty characters.\n",
                                   encoding="utf-8")
    (root / "MEMORY.md").write_text("# Memory\n\n## Recent\n- [Deploy](deploy.md) — tag, push\n"
                                    "- [Style](style.md) — short commits\n", encoding="utf-8")
    return root


async def test_the_session_toggle_rescans_and_says_how_many_are_left_out(tmp_path: Path) -> None:
    app = make_app(session_root(tmp_path), read_only=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "5")
        note = app.main.query_one("#sessions-note")
        assert note.display
        assert str(note.render()) == "2 logs of work left out — press S to include"
        assert app.workspace.candidates.pairs == ()
        assert "no candidates among 2 files" in app.main.query_one(ConsolidateView).candidate_list.empty_text
        await press(pilot, "S")
        scan = app.workspace.candidates
        assert scan.include_sessions and scan.considered == 4
        # one series of logs: the later folds the earlier in, not a merge of equals
        assert scan.pairs == ()
        assert [(s.old, s.new) for s in scan.supersessions] == [
            ("session_2026-05-24_sidecoach.md", "session_2026-05-25_sidecoach.md")]
        assert str(note.render()) == "2 logs of work included — press S to leave them out"
        assert "Consolidate 1" in str(app.main.query_one("#views").get_tab("consolidate").label)
        await press(pilot, "S")
        assert app.workspace.candidates.pairs == ()
        assert str(note.render()) == "2 logs of work left out — press S to include"


async def test_the_session_key_applies_only_in_consolidate(tmp_path: Path) -> None:
    app = make_app(session_root(tmp_path), read_only=True)
    notices: list[str] = []
    async with app.run_test(size=(120, 30), message_hook=notice_hook(notices)) as pilot:
        await settle(pilot)
        await press(pilot, "S")
        assert not app.include_sessions
        assert any("Consolidate view" in m for m in notices)


async def test_a_root_without_sessions_has_no_note(demo_root: Path) -> None:
    for path in [*demo_root.glob("session_*.md"), *demo_root.glob("*_status.md")]:  # its logs
        path.unlink()
    app = make_app(demo_root, read_only=True)
    async with app.run_test(size=(120, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "5")
        assert not app.main.query_one("#sessions-note").display


async def test_a_contained_pair_is_shown_as_contained_in(tmp_path: Path) -> None:
    """The synthetic 50× case: a note pasted into a large log is "contained in" it."""
    root = tmp_path / "memory"
    root.mkdir()
    for name, text in json.loads(SYNTHETIC.read_text(encoding="utf-8"))["roots"]["ratio"].items():
        (root / name).write_text(text, encoding="utf-8")
    app = make_app(root, read_only=True)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "5")
        view = app.main.query_one(ConsolidateView)
        candidate_list = view.candidate_list
        rows = [candidate_list.render_line(y).text for y in range(4)]
        assert any("webhook_retries.md  ⊂  review_log.md" in row and "contained in" in row
                   for row in rows)
        detail = str(view.query_one("#candidate-detail").render())
        assert "webhook_retries.md is contained in review_log.md" in detail


async def test_a_contradiction_without_an_order_asks_which_file_is_current(tmp_path: Path) -> None:
    """Two files of one day that clash: the list and the detail say "order unknown", and enter
    asks which file is current before showing the supersede of the other."""
    root = tmp_path / "memory"
    root.mkdir()
    (root / "MEMORY.md").write_text("", encoding="utf-8")
    (root / "b_mock.md").write_text(topic(
        "Always mock the store in handler unit tests", type_="feedback",
        body="Always mock the database layer in handler unit tests with gomock.\n"), encoding="utf-8")
    (root / "a_real.md").write_text(topic(
        "Never mock Postgres in tests that exercise queries", type_="feedback",
        body="Never mock the database for queries; use testcontainers.\n"), encoding="utf-8")
    freeze_mtimes(root)
    before = digest(root)
    app = make_app(root)
    async with app.run_test(size=(140, 30)) as pilot:
        await settle(pilot)
        await press(pilot, "5")
        view = app.main.query_one(ConsolidateView)
        rows = [view.candidate_list.render_line(y).text for y in range(3)]
        assert any("a_real.md  ⇄  b_mock.md  · order unknown" in row for row in rows)
        detail = str(view.query_one("#candidate-detail").render())
        assert "order unknown: the two files carry the same date" in detail
        assert "proposal: supersede" not in detail
        await press(pilot, "enter")
        assert isinstance(app.screen, PickFileScreen)
        assert app.screen.title_text == "Order unknown — which one is current?"
        assert app.screen.choices == ["a_real.md", "b_mock.md"]
        await press(pilot, "down", "enter")  # b_mock.md is current: a_real.md is superseded
        assert isinstance(app.screen, ConfirmChange)
        assert app.screen.plan.description == "supersede a_real.md by b_mock.md"
        await press(pilot, "escape")
    assert digest(root) == before


def test_a_contradiction_without_an_order_says_so() -> None:
    ordered = Contradiction("a.md", "b.md", "feedback", 0.9, 0.5, "always/never")
    unordered = Contradiction("a.md", "b.md", "feedback", 0.9, 0.5, "always/never", ordered=False)
    assert contradiction_words(ordered) == "a.md  →  superseded by  b.md"
    assert contradiction_words(unordered) == "a.md  ⇄  b.md  · order unknown"


MARKUS = "markus41__claude__agent-memory/researcher"


@pytest.mark.skipif(not (CORPORA / MARKUS).is_dir(), reason="the corpora are absent")
async def test_markus41_researchers_index_is_shown_as_text(tmp_path: Path) -> None:
    """Its 427-line index has no entries memtui recognises: the working set shows the text, with
    the claude-code cut (frontmatter stripped first) drawn."""
    root = tmp_path / "researcher"
    shutil.copytree(CORPORA / MARKUS, root, ignore=shutil.ignore_patterns(".memtui"))
    for path in [root, *root.rglob("*")]:
        path.chmod(path.stat().st_mode | stat.S_IWUSR)
    app = make_app(root, read_only=True)
    async with app.run_test(size=(120, 36)) as pilot:
        await settle(pilot)
        budget = app.workspace.budget
        assert budget.cut_line is not None and budget.file_lines == 427
        view = app.main.query_one(WorkingSetView)
        assert view.index_text.display
        await press(pilot, "c")
        rows = shown(view.index_text)
        rule = next(row for row in rows if "✂ loader cut" in row)
        assert f"line {budget.cut_line} " in rule
        assert f"{427 - budget.cut_line + 1} lines below not loaded" in rule


async def test_the_detail_of_a_contradiction_quotes_what_each_note_says(tmp_path: Path) -> None:
    """A negated claim in the Consolidate view: the detail names the subject, quotes each file's
    sentence under its path and says what the proposal rests on."""
    root = tmp_path / "memory"
    root.mkdir()
    (root / "MEMORY.md").write_text("", encoding="utf-8")
    (root / "pricing_service.md").write_text(topic(
        "Pricing service", updated="2026-03-01",
        body="The pricing service uses the Chainlink oracle for ETH/USD quotes.\n"), encoding="utf-8")
    (root / "oracle_choice.md").write_text(topic(
        "Oracle choice", updated="2026-05-10",
        body="Price feeds: NOT Chainlink, Pyth. Its pull model costs less gas per update.\n"), encoding="utf-8")
    freeze_mtimes(root)
    before = digest(root)
    app = make_app(root)
    async with app.run_test(size=(140, 36)) as pilot:
        await settle(pilot)
        await press(pilot, "5")
        view = app.main.query_one(ConsolidateView)
        rows = [view.candidate_list.render_line(y).text for y in range(3)]
        assert any("pricing_service.md  →  superseded by  oracle_choice.md" in row for row in rows)
        detail = " ".join(str(view.query_one("#candidate-detail").render()).split())
        assert "one says uses/NOT of the other" in detail and "about: chainlink" in detail
        assert ("pricing_service.md: \u201cThe pricing service uses the Chainlink oracle for ETH/USD quotes.\u201d"
                in detail)
        assert "oracle_choice.md: \u201cPrice feeds: NOT Chainlink, Pyth.\u201d" in detail
        assert "evidence: oracle_choice.md says 'NOT' of 'chainlink'" in detail
    assert digest(root) == before
