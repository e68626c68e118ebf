"""Reachability beyond entries: mentions of ``name.md`` in the loaded part of the index, and every
link and wikilink on a line checked for ``broken-link``."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.model.changeset import Changeset, Write
from memtui.core.model.snapshot import BudgetConfig
from memtui.core.read.store import load_root
from memtui.core.rules.incremental import findings_cache, incremental_validate
from memtui.core.rules.validate import mention_map, reach_of, validate
from tests.support.roots import MakeRoot, corpus, topic


def rules_for(root: Path, path: str, config: BudgetConfig = BudgetConfig()) -> set[str]:
    return {f.rule for f in validate(load_root(root, config)) if f.path == path}


@pytest.mark.parametrize(
    "line",
    [
        "- **File**: `notes.md`",  # the markus41 researcher form
        "- Chart setup — see `notes.md` for the palette",  # backticked in a hook
        "- Chart setup — see notes.md for the palette",  # bare
        "Read notes.md before charts.",  # prose
        "- [charts](charts.md) — also [the palette](notes.md)",  # a second link on an entry line
        "- [charts](charts.md) — extends [[notes]]",  # a wikilink after the entry's link
    ],
)
def test_a_mention_in_the_loaded_index_reaches_the_file(make_root: MakeRoot, line: str) -> None:
    root = make_root({
        "MEMORY.md": f"# Memory\n- [charts](charts.md) — charts\n{line}\n",
        "charts.md": topic("charts"),
        "notes.md": topic("notes"),
    })
    snapshot = load_root(root)
    assert "notes.md" in reach_of(snapshot).mention
    assert "orphan" not in rules_for(root, "notes.md")
    assert not [f for f in validate(snapshot) if f.rule == "broken-link"]


def test_a_mention_finds_a_file_in_a_sub_folder_by_its_name(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": "# Memory\nsee `notes.md`\n", "feedback/notes.md": topic("notes")})
    assert mention_map(load_root(root)) == {"feedback/notes.md": 2}


def test_mentions_past_the_cut_or_in_stripped_comments_reach_nothing(make_root: MakeRoot) -> None:
    filler = "".join(f"- [f{k}](f{k}.md) — fact {k}\n" for k in range(200))
    files = {f"f{k}.md": topic(f"f{k}") for k in range(200)}
    root = make_root({
        **files,
        "MEMORY.md": "<!-- see hidden.md -->\n" + filler + "see late.md\n",
        "late.md": topic("late"),
        "hidden.md": topic("hidden"),
    })
    snapshot = load_root(root)
    mentioned = reach_of(snapshot).mention
    assert "late.md" not in mentioned and "hidden.md" not in mentioned
    assert "orphan" in rules_for(root, "late.md") and "orphan" in rules_for(root, "hidden.md")
    # with the cap raised, the line past the old cut loads and reaches its file
    assert "orphan" not in rules_for(root, "late.md", BudgetConfig(max_lines=300))


def test_every_link_on_a_line_is_checked(make_root: MakeRoot) -> None:
    root = make_root({
        "MEMORY.md": (
            "# Memory\n"
            "- [a](a.md) — see also [b](b.md) and [gone](gone.md)\n"  # the second link is fine
            "- [a](a.md) — Extends `[[feedback_clone_1to1]]`\n"  # the improv 2026-06-01 line 7
            "Prose linking [elsewhere](../outside.md).\n"
        ),
        "a.md": topic("a"),
        "b.md": topic("b"),
    })
    found = [(f.rule, f.line, f.subject) for f in validate(load_root(root))
             if f.rule in ("broken-link", "link-escapes-root")]
    assert sorted(found) == [
        ("broken-link", 2, "gone.md"),
        ("broken-link", 3, "feedback_clone_1to1.md"),
        ("link-escapes-root", 4, "../outside.md"),
    ]


def test_mentions_of_files_that_are_not_memory_files_are_no_error(make_root: MakeRoot) -> None:
    root = make_root({
        "MEMORY.md": "# Memory\n- [a](a.md) — see CLAUDE.md and `docs/README.md`, https://x.org/y.md\n",
        "a.md": topic("a"),
    })
    assert not [f for f in validate(load_root(root)) if f.severity == "error"]


def test_fenced_code_names_no_file(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": "# Memory\n```\ncat notes.md [x](gone.md)\n```\n", "notes.md": topic("n")})
    snapshot = load_root(root)
    assert mention_map(snapshot) == {} and "orphan" in rules_for(root, "notes.md")
    assert "broken-link" not in {f.rule for f in validate(snapshot)}


def test_incremental_validation_follows_mentions(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": "# Memory\n", "notes.md": topic("notes")})
    before = load_root(root)
    cache = findings_cache(before)
    old = before.index.render()
    for data in (old + b"see `notes.md`\n", old + b"- [x](missing.md) [[gone]]\n"):
        after, cached = incremental_validate(before, cache, Changeset("t", "", (Write("MEMORY.md", data, old),)))
        assert list(cached.findings) == validate(after)


def test_markus41_researcher_index_reaches_files_by_mention() -> None:
    snapshot = load_root(corpus("markus41__claude__agent-memory") / "researcher")
    mentioned = reach_of(snapshot).mention
    assert mentioned.get("syncfusion_blazor_comprehensive.md") == 14
    assert len(mentioned) >= 5  # the 427-line index is cut at 200: later mentions do not load


def test_improv_2026_06_01_line_7_wikilink_is_a_broken_link() -> None:
    snapshot = load_root(corpus("jonahscohen__improv__claude-memory-2026-06-01"))
    found = [(f.line, f.subject) for f in validate(snapshot) if f.rule == "broken-link"]
    assert (7, "feedback_clone_1to1.md") in found
    assert reach_of(snapshot).mention.get("session_2026-05-29_tilt-lab-recon-team.md") == 11


def past_cut_root(make_root: MakeRoot, where: int) -> Path:
    """An index of 230 lines that names ``notes.md`` on line ``where`` (the cut is at 201)."""
    lines = ["# Memory"] + [f"- line {n}" for n in range(2, 231)]
    lines[where - 1] = "- see `notes.md` for the palette"
    return make_root({"MEMORY.md": "\n".join(lines) + "\n", "notes.md": topic("notes")})


def test_a_file_named_only_past_the_cut_is_said_so(make_root: MakeRoot) -> None:
    snapshot = load_root(past_cut_root(make_root, 215))
    findings = validate(snapshot)
    orphan = next(f for f in findings if f.rule == "orphan" and f.path == "notes.md")
    assert orphan.message.startswith("named only past the loader's cut (line 215 of MEMORY.md")
    budget = next(f for f in findings if f.rule == "budget-lines")
    assert "0 entries fall past the cut, and 1 file is named only past it" in budget.message


def test_a_file_named_above_the_cut_is_not_named_only_past_it(make_root: MakeRoot) -> None:
    findings = validate(load_root(past_cut_root(make_root, 20)))
    assert not [f for f in findings if f.path == "notes.md"]
    budget = next(f for f in findings if f.rule == "budget-lines")
    assert "named only past it" not in budget.message


def test_incremental_validation_follows_names_past_the_cut(make_root: MakeRoot) -> None:
    before = load_root(past_cut_root(make_root, 20))
    cache = findings_cache(before)
    old = before.index.render()
    moved = old.replace(b"- see `notes.md` for the palette\n", b"- line 20\n", 1) + b"see notes.md\n"
    for data in (moved, old + b"see notes.md\n"):
        after, cached = incremental_validate(before, cache, Changeset("t", "", (Write("MEMORY.md", data, old),)))
        assert list(cached.findings) == validate(after)
