"""Supersession candidates (DESIGN §6): checkpoint chains of session logs, consolidations, rules
stated twice and replacements — each a "fold the earlier into the later" proposal, not a merge."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.judge.consolidate import scan
from memtui.core.judge.supersession import (
    CHECKPOINT,
    CONSOLIDATED,
    CONTAINED,
    DECLARED,
    EXTENDS,
    REPLACES,
    retired_things,
    root_supersessions,
    supersession_candidates,
)
from memtui.core.model.frontmatter import parse_frontmatter
from memtui.core.model.snapshot import Index, MemoryFile, Snapshot
from tests.support.roots import CORPORA, topic

SHARED = ("The collector wires renderUrl into the lane engine, adds a Playwright browser cache path, "
          "isolates HOME for tests, and keeps four browser rules gated by the allowlist. ")


def snapshot(texts: dict[str, str]) -> Snapshot:
    files = {p: MemoryFile(p, len(t), 0.0, t, parse_frontmatter(t)) for p, t in texts.items()}
    return Snapshot(Path("/synthetic"), Index("MEMORY.md", exists=False),
                    Index("MEMORY-archive.md", exists=False), files)


def found(texts: dict[str, str]) -> dict[tuple[str, str], object]:
    snap = snapshot(texts)
    return {(s.old, s.new): s for s in supersession_candidates(list(snap.files.values()))}


def test_a_checkpoint_chain_links_each_note_to_the_next() -> None:
    got = found({
        "session_2026-06-14_p4b2-kickoff.md": topic("P4b-2 kickoff", body=SHARED),
        "session_2026-06-14_p4b2-plan-approved.md": topic("P4b-2 plan approved",
                                                          body=SHARED + "Follows session_2026-06-14_p4b2-kickoff."),
        "session_2026-06-14_p4b2-COMPLETE.md": topic("P4b-2 COMPLETE", body=SHARED + "Merged."),
    })
    assert set(got) == {
        ("session_2026-06-14_p4b2-kickoff.md", "session_2026-06-14_p4b2-plan-approved.md"),
        ("session_2026-06-14_p4b2-plan-approved.md", "session_2026-06-14_p4b2-COMPLETE.md"),
    }
    named = got[("session_2026-06-14_p4b2-kickoff.md", "session_2026-06-14_p4b2-plan-approved.md")]
    closing = got[("session_2026-06-14_p4b2-plan-approved.md", "session_2026-06-14_p4b2-COMPLETE.md")]
    assert named.kind == closing.kind == CHECKPOINT  # type: ignore[attr-defined]
    assert not named.strong and closing.strong  # type: ignore[attr-defined]  # naming alone: unchecked
    assert "closes" in " ".join(closing.evidence)  # type: ignore[attr-defined]


def test_parts_of_one_item_reviews_and_far_dates_are_not_chained() -> None:
    got = found({
        # different parts past the shared words
        "session_2026-06-13_lane-p1-task4-scoring.md": topic("Task 4", body=SHARED),
        "session_2026-06-13_lane-p1-task5-decision-flow-COMPLETE.md": topic("Task 5", body=SHARED),
        # a review does not replace what it reviews
        "session_2026-06-13_p3-plan-drafted.md": topic("P3 plan", body=SHARED),
        "session_2026-06-13_p3-codex-review.md": topic("P3 review", body=SHARED + "session_2026-06-13_p3-plan-drafted"),
        # ten days apart
        "session_2026-05-01_sprint9_execution.md": topic("Sprint 9", body=SHARED),
        "session_2026-05-11_sprint9_closed.md": topic("Sprint 9 closed", body=SHARED),
    })
    assert got == {}


def test_a_much_larger_closing_note_contains_the_earlier() -> None:
    got = found({
        "session_2026-05-24_sprint3_execution.md": topic("Sprint 3 execution", body=SHARED),
        "session_2026-05-24_sprint3_closed.md": topic(
            "Sprint 3 closed", body=SHARED + " ".join(f"word{k}x" for k in range(200))),
    })
    [(pair, proposal)] = got.items()
    assert pair == ("session_2026-05-24_sprint3_execution.md", "session_2026-05-24_sprint3_closed.md")
    assert proposal.kind == CONTAINED and proposal.proposal == "contained in"  # type: ignore[attr-defined]


def test_a_consolidation_folds_its_items_notes_of_its_type_within_its_range() -> None:
    got = found({
        "session_2026-06-05_tilt-lab-consolidated.md": topic(
            "tilt-lab - consolidated", description="Canonical merge of tilt-lab beats (2026-05-29..06-04)",
            body=SHARED),
        "session_2026-05-30_tilt-lab-tooltips.md": topic("tooltips", body=SHARED),
        "session_2026-05-20_tilt-lab-early.md": topic("too early", body=SHARED),
        "session_2026-05-31_tilt-lab-lesson.md": topic("a lesson", type_="feedback", body=SHARED),
    })
    assert set(got) == {("session_2026-05-30_tilt-lab-tooltips.md", "session_2026-06-05_tilt-lab-consolidated.md")}
    assert next(iter(got.values())).kind == CONSOLIDATED  # type: ignore[attr-defined]


def test_a_rule_that_says_it_extends_another_is_folded_only_when_it_holds_the_other() -> None:
    # the shape of 4444J99's never-defer pair, read as two rules (the later adds running commands
    # to "never defer grunt work"): the later's word is no fold when it drops the earlier's words
    older = topic("Never defer grunt work to the human", type_="feedback",
                  body="The human is the conductor: do the chores yourself, never hand them back.\n")
    texts = {
        "feedback_never_defer_to_human.md": older,
        "feedback_never_defer_commands.md": topic("Run commands automatically", type_="feedback",
                                                  body='Run them. This extends the existing "never defer '
                                                       'to human" feedback.\n'),
    }
    assert found(texts) == {}
    # restating the earlier rule while it extends it: one rule stated twice, the later kept
    texts["feedback_never_defer_commands.md"] = topic(
        "Run commands automatically", type_="feedback",
        body='The human is the conductor: do the chores yourself, never hand them back; run the '
             'commands too. This extends the existing "never defer to human" feedback.\n')
    [(pair, proposal)] = found(texts).items()
    assert pair == ("feedback_never_defer_to_human.md", "feedback_never_defer_commands.md")
    assert proposal.kind == EXTENDS  # type: ignore[attr-defined]


def test_a_reference_that_extends_another_adds_to_it_and_is_no_rule_stated_twice() -> None:
    got = found({
        "reference_chrome_host.md": topic("Chrome may run on another machine", type_="reference",
                                          body="The browser is not on the Claude Code host.\n"),
        "reference_chrome_lan.md": topic("Reach it over the LAN", type_="reference",
                                         body='Use the LAN address. This extends "Chrome may run on '
                                              'another machine".\n'),
        "feedback_short.md": topic("Keep replies short", type_="feedback", body="Short.\n"),
        "project_notes.md": topic("Notes", body='This extends the "Keep replies short" rule.\n'),
    })
    assert got == {}


def test_titles_naming_other_steps_or_a_failed_review_are_not_chained() -> None:
    got = found({
        # steps 1-2 then step 3 of one plan: two parts, named in the titles only
        "session_2026-06-18_panel-renderer.md": topic("Panel - model + renderer (Steps 1-2)", body=SHARED),
        "session_2026-06-18_panel-wired.md": topic("Panel wired into the engine (Step 3)",
                                                   body=SHARED + "session_2026-06-18_panel-renderer"),
        # the verification finds faults: it judges the plan, it does not restate it
        "session_2026-06-13_p1-plan-delivered.md": topic("P1 plan delivered", body=SHARED),
        "session_2026-06-13_p1-plan-verification.md": topic(
            "P1 plan verification - NEEDS-FIXES", body=SHARED + "session_2026-06-13_p1-plan-delivered"),
    })
    assert got == {}
    kept = found({  # overlapping steps are one part: the later closes it
        "session_2026-05-23_phase1_tasks_456.md": topic("Phase 1 Tasks 4-6 Progress", body=SHARED),
        "session_2026-05-23_phase1_tasks_4-7_complete.md": topic("Phase 1 Tasks 4-7 Complete", body=SHARED),
    })
    assert set(kept) == {("session_2026-05-23_phase1_tasks_456.md", "session_2026-05-23_phase1_tasks_4-7_complete.md")}


def test_a_note_whose_name_says_it_replaces_an_older_one() -> None:
    got = found({
        "decision_tool_named_endow.md": topic("Tool named endow", type_="project", body=SHARED, updated="2026-05-26"),
        "session_2026-05-29_endow_to_justify_rename.md": topic("Rename endow to justify", body=SHARED),
    })
    assert [(k, v.kind, v.strong) for k, v in got.items()] == [  # type: ignore[attr-defined]
        (("decision_tool_named_endow.md", "session_2026-05-29_endow_to_justify_rename.md"), REPLACES, True)]


def test_a_rename_name_replaces_what_it_names_before_its_cue_not_where_it_happened() -> None:
    # "beats-rename-claude-md": something renamed to beats, in CLAUDE.md; a plan for CLAUDE.md is
    # not what it replaces, however many words the two share
    plan = topic("Plan - CLAUDE.md slim-core split", type_="project", body=SHARED, updated="2026-05-19")
    rename = topic("beats rename - CLAUDE.md and hook strings", body=SHARED)
    assert found({"plan_claude_md_split.md": plan,
                  "session_2026-05-27_beats-rename-claude-md.md": rename}) == {}
    # the thing named before the cue is what is replaced
    setup = topic("Postgres setup", type_="project", body=SHARED, updated="2026-05-19")
    moved = topic("Postgres migrated to Neon", body=SHARED)
    got = found({"project_postgres_setup.md": setup, "session_2026-05-27_postgres-migrated-to-neon.md": moved})
    assert [(k, v.kind) for k, v in got.items()] == [  # type: ignore[attr-defined]
        (("project_postgres_setup.md", "session_2026-05-27_postgres-migrated-to-neon.md"), REPLACES)]


def test_a_renaming_note_that_links_the_older_replaces_it_whatever_their_overlap() -> None:
    old = topic("improv renamed to endow (2026-05-26)", type_="decision",
                body="The tool previously known as improv is endow. Fonts, namespace and site follow.\n")
    unlinked = topic("endow to justify rename", body="Justify once and for all: dist bundles rebuilt, "
                                                     "install script, marketing page and hooks swept.\n")
    linked = topic("endow to justify rename", relates_to="[decision_improv_renamed_to_endow.md]",
                   body="Justify once and for all: dist bundles rebuilt, install script, marketing page "
                        "and hooks swept.\n")
    assert found({"decision_improv_renamed_to_endow.md": old,
                  "session_2026-05-29_endow_to_justify_rename.md": unlinked}) == {}
    got = found({"decision_improv_renamed_to_endow.md": old,
                 "session_2026-05-29_endow_to_justify_rename.md": linked})
    # dated by its title (no other date): three days older than the rename
    assert [(k, v.kind, v.days) for k, v in got.items()] == [  # type: ignore[attr-defined]
        (("decision_improv_renamed_to_endow.md", "session_2026-05-29_endow_to_justify_rename.md"), REPLACES, 3)]


def test_a_title_that_says_it_replaces_a_note_it_links_needs_no_shared_name_word() -> None:
    old = topic("Homepage alternating contrast system", body=SHARED)
    new = "Shade alternation replaces flipped-contrast system"
    texts = {
        "session_2026-06-10_homepage-alternating-contrast.md": old,
        "session_2026-06-11_shade-alternation-system.md": topic(
            new, relates_to="[session_2026-06-10_homepage-alternating-contrast.md]", body=SHARED),
    }
    [(pair, proposal)] = found(texts).items()
    assert pair == ("session_2026-06-10_homepage-alternating-contrast.md", "session_2026-06-11_shade-alternation-system.md")
    assert proposal.kind == REPLACES and not proposal.strong  # type: ignore[attr-defined]
    assert "which it links" in proposal.evidence[0]  # type: ignore[attr-defined]
    texts["session_2026-06-11_shade-alternation-system.md"] = topic(new, body=SHARED)  # no link
    assert found(texts) == {}


def test_a_same_day_replacement_said_in_the_title_follows_the_note_it_links() -> None:
    # the improv log's tooltips: the restyle names the first tooltip note, which does not name it
    old, new = "session_2026-05-30_tilt-lab-tooltips.md", "session_2026-05-30_tilt-lab-tooltips-justify.md"
    texts = {
        old: topic("tilt-lab styled tooltips on icon-only buttons", body=SHARED),
        new: topic("tilt-lab tooltips restyled to match Justify (pill + instant fade)",
                   relates_to=f"[{old}]", body=SHARED),
    }
    [(pair, proposal)] = found(texts).items()
    assert pair == (old, new) and proposal.kind == REPLACES and proposal.days == 0  # type: ignore[attr-defined]
    # said only in the description ("replaced X with Y" is about the code): no proposal that day
    texts[new] = topic("tilt-lab tooltips to match Justify", "Restyled the pill and replaced the delay",
                       relates_to=f"[{old}]", body=SHARED)
    assert found(texts) == {}
    # each names the other: which came first is not known, no replacement is said
    texts[new] = topic("tilt-lab tooltips restyled to match Justify", relates_to=f"[{old}]", body=SHARED)
    texts[old] = topic("tilt-lab styled tooltips on icon-only buttons", body=SHARED + f"See {new}.\n")
    assert all(v.kind != REPLACES for v in found(texts).values())  # type: ignore[attr-defined]


def test_now_in_a_title_replaces_only_the_note_it_links() -> None:
    old = "session_2026-05-31_node-options-shim-fix.md"
    new = "session_2026-06-11_node-shim-self-heal.md"
    other = "session_2026-06-01_node-shim-notes.md"
    texts = {
        old: topic("fix - cmux NODE_OPTIONS restore shim deleted by temp cleanup", body=SHARED),
        other: topic("node shim notes", body=SHARED),
        new: topic("cmux NODE_OPTIONS shim now self-healing", relates_to=f"[{old}]", body=SHARED),
    }
    assert [(k, v.kind) for k, v in found(texts).items()] == [((old, new), REPLACES)]  # type: ignore[attr-defined]
    texts[new] = topic("cmux NODE_OPTIONS shim now self-healing", body=SHARED)  # no link
    assert found(texts) == {}


def test_a_retired_compound_word_is_no_replacement_claim() -> None:
    old = "session_2026-06-24_sidecoach-convergence-plan.md"
    new = "session_2026-06-25_sidecoach-convergence-commit.md"
    texts = {old: topic("sidecoach convergence plan", body=SHARED),
             new: topic("sidecoach convergence commit", "finding 2 (retired-domain handler coupling) is next",
                        body=SHARED)}
    assert found(texts) == {}
    texts[new] = topic("sidecoach convergence commit", "the old handler retired", body=SHARED)
    assert [(k, v.kind) for k, v in found(texts).items()] == [((old, new), REPLACES)]  # type: ignore[attr-defined]


def test_the_things_a_claim_says_are_gone_are_those_beside_its_cue() -> None:
    assert retired_things("Tool cards flipped to thematic inverse (surface-card token retired)") == {"surface-card"}
    assert retired_things("removed the ~50min idle cap (JUSTIFY_WATCH_IDLE_CAP retired)") == {"justify_watch_idle_cap"}
    assert retired_things("/justify is THE one command (removed justify-go shim; in-session loop)") == {"justify-go"}
    assert retired_things("dropped `legacy mode` for good") == {"legacy mode"}
    # what came in its place, a thing far from the cue, another clause, a cue inside a word
    assert retired_things("footer span replaced with the theme-swapped and-dev wordmark") == set()
    assert retired_things("Three-prompt batch - lede last sentence removed; dots gone") == set()
    assert retired_things("api-drift hook blocked. The sig 'has been removed' was a false positive") == set()
    assert retired_things("4 wrongly-dropped effects rebuilt, fidelity-audit done") == set()
    assert retired_things("surface-card token added") == set()


def test_a_note_that_retires_a_thing_replaces_the_older_note_that_brought_it_in() -> None:
    # the improv log's tool cards: the hour-old surface-card token retired by the inverse cards
    old = "session_2026-06-10_toolkit-grain-stronger-card-contrast.md"
    new = "session_2026-06-10_tool-cards-thematic-inverse.md"
    other = "session_2026-06-09_palette-notes.md"
    texts = {
        old: topic("Toolkit grain raised + surface-card token for card contrast", body="Cards now contrast. "),
        new: topic("Tool cards flipped to thematic inverse (surface-card token retired)",
                   body="The cards use surface-inverse now. "),
        other: topic("palette notes", body="Colours of the site. "),
    }
    [(pair, proposal)] = found(texts).items()
    assert pair == (old, new) and proposal.kind == REPLACES and not proposal.strong  # type: ignore[attr-defined]
    # in the older note's text only: their names must share a word
    texts[old] = topic("Toolkit grain raised", body="A new surface-card token for the cards. ")
    assert found(texts) == {}
    moved = {k: v for k, v in texts.items() if k != old}
    moved["session_2026-06-10_tool-cards-contrast.md"] = texts[old]
    assert list(found(moved)) == [("session_2026-06-10_tool-cards-contrast.md", new)]
    # a thing five other notes name is no one note's; an older note naming the newer came after it
    texts[old] = topic("Toolkit grain raised + surface-card token for card contrast", body="Cards. ")
    crowd = {f"session_2026-06-0{d}_{subject}.md": topic(f"{subject} pass", body="the surface-card token. ")
             for d, subject in enumerate(("palette", "spacing", "motion", "icons", "forms"), 1)}
    assert found({**texts, **crowd}) == {}
    texts[old] = topic("Toolkit grain raised + surface-card token for card contrast",
                       body="Later: session_2026-06-10_tool-cards-thematic-inverse. ")
    assert found(texts) == {}


def test_a_retired_thing_is_named_where_it_stands_whole() -> None:
    old, new = "session_2026-05-01_timeouts.md", "session_2026-05-03_cleanup.md"
    texts = {old: topic("timeouts", "adds the IDLE_CAP_MS knob", body="Knobs. "),
             new: topic("cleanup", "IDLE_CAP retired", body="Gone. ")}
    assert found(texts) == {}  # IDLE_CAP_MS is another thing
    texts[old] = topic("timeouts", "adds the IDLE_CAP knob (ms)", body="Knobs. ")
    assert list(found(texts)) == [(old, new)]
    # flag-1 is named by one note, though five more name flag-10, flag-11 …
    crowd = {f"session_2026-04-2{d}_{subject}.md": topic(f"{subject} flags", body=f"the flag-1{d} switch. ")
             for d, subject in enumerate(("billing", "search", "export", "upload", "sharing"))}
    texts = {old: topic("timeouts", "adds the flag-1 switch", body="Knobs. "),
             new: topic("cleanup", "flag-1 retired", body="Gone. "), **crowd}
    assert list(found(texts)) == [(old, new)]


def test_scan_lists_a_supersession_once_and_withholds_rejected_ones() -> None:
    texts = {
        "session_2026-05-24_sprint3_execution.md": topic("Sprint 3 log", body=SHARED * 3),
        "session_2026-05-24_sprint3_closed.md": topic("Sprint 3 log closed", body=SHARED * 3 + "Closed."),
    }
    snap = snapshot(texts)
    result = scan(snap, include_sessions=True)
    assert [(s.old, s.new) for s in result.supersessions] == [
        ("session_2026-05-24_sprint3_execution.md", "session_2026-05-24_sprint3_closed.md")]
    assert result.pairs == ()  # not also a merge of equals
    assert result.to_json()["supersessions"][0]["proposal"] == "fold the earlier into the later"
    assert scan(snap).supersessions == ()  # session logs left out by default
    rejected = [("session_2026-05-24_sprint3_closed.md", "session_2026-05-24_sprint3_execution.md")]
    assert scan(snap, include_sessions=True, rejected=rejected).supersessions == ()
    assert root_supersessions(snap, rejected) == ()


def test_a_reviews_log_and_the_plan_it_reviews_are_no_merge_of_equals() -> None:
    plan = topic("Evolution plan draft", body=SHARED * 3)
    texts = {
        "session_2026-06-23_sidecoach-evolution-plan-draft.md": plan,
        "session_2026-06-23_sidecoach-plan-codex-log.md": topic("Evolution plan - review log", body=SHARED * 3),
    }
    assert scan(snapshot(texts), include_sessions=True).pairs == ()
    twins = {  # two logs of one stage stay a pair
        "session_2026-06-23_sidecoach-evolution-plan-draft.md": plan,
        "session_2026-06-23_sidecoach-plan-notes.md": topic("Evolution plan - notes", body=SHARED * 3),
    }
    assert len(scan(snapshot(twins), include_sessions=True).pairs) == 1


def test_the_issues_checkpoint_chains_on_the_improv_log() -> None:
    root = CORPORA / "jonahscohen__improv__claude-memory"
    if not root.is_dir():
        pytest.skip("corpus not available")
    from memtui.core.read.store import load_root

    got = {(s.old, s.new): s for s in root_supersessions(load_root(root))}
    for old, new in [("session_2026-05-24_sprint3_proper_execution.md", "session_2026-05-24_sprint3_proper_closed.md"),
                     ("session_2026-05-28_tier1-build-team.md", "session_2026-05-28_tier1-shipped.md")]:
        assert (old, new) in got and got[(old, new)].strong, (old, new)


PLAN = ("Loop execution walks the verb steps once per iteration, the iteration boundary runs the "
        "required validators, convergence is persisted with a stable signature, and ralph becomes "
        "the convergence loop. ")
REVIEWED = ("Codex closed the stall and cap findings; coverage preflight per record; typed errors for "
            "a throwing validator; advisory outcomes persisted; committing and executing next. ")


def test_a_new_version_of_a_plan_replaces_it_though_it_restates_little() -> None:
    # the v2 plan shares a fifth of the drafted plan's words and does not name it
    got = found({
        "session_2026-06-14_lane-p4c-plan.md": topic("Lane P4c plan drafted", body=PLAN),
        "session_2026-06-14_p4c-v2-approved.md": topic("P4c v2 approved", body=PLAN[:48] + REVIEWED),
    })
    [proposal] = got.values()
    assert (proposal.old, proposal.new) == (  # type: ignore[attr-defined]
        "session_2026-06-14_lane-p4c-plan.md", "session_2026-06-14_p4c-v2-approved.md")
    assert 0.2 <= proposal.restated < 0.5  # type: ignore[attr-defined]


def test_a_version_tag_after_a_note_of_another_stage_is_the_products_version() -> None:
    # the same texts as above, but the earlier note is no plan or draft: "v2" names the product's
    # next version, not a version of the earlier note, and a fifth of its words restates nothing
    got = found({
        "session_2026-06-14_lane-p4c-tier5-completion.md": topic("Lane P4c tier 5", body=PLAN),
        "session_2026-06-14_p4c-v2-approved.md": topic("P4c v2 approved", body=PLAN[:48] + REVIEWED),
    })
    assert got == {}


def test_an_untagged_close_follows_the_v2_plan_it_closes() -> None:
    got = found({
        "session_2026-06-13_p4a2-v2-approved.md": topic("P4a-2 v2 approved", body=PLAN + REVIEWED),
        "session_2026-06-13_p4a2-COMPLETE.md": topic("P4a-2 COMPLETE", body=PLAN + REVIEWED + "Merged to main."),
    })
    assert set(got) == {("session_2026-06-13_p4a2-v2-approved.md", "session_2026-06-13_p4a2-COMPLETE.md")}


def test_the_authors_supersedes_is_proposed_whatever_the_names_and_words() -> None:
    got = found({
        "session_2026-06-18_content-guard-spinner-allowlist.md": topic("Spinner glyph allowlist", body=PLAN),
        "session_2026-06-18_content-guard-emoji-presentation.md": topic(
            "Emoji-presentation model", body=REVIEWED,
            supersedes="session_2026-06-18_content-guard-spinner-allowlist.md"),
        "feedback_other.md": topic("Other", body=REVIEWED, supersedes="feedback_missing.md"),  # names no file
    })
    [proposal] = got.values()
    assert (proposal.old, proposal.new, proposal.kind) == (  # type: ignore[attr-defined]
        "session_2026-06-18_content-guard-spinner-allowlist.md",
        "session_2026-06-18_content-guard-emoji-presentation.md", DECLARED)
    assert proposal.strong  # type: ignore[attr-defined]
