"""The dream's last mile (issue 36): trims that pay for themselves, rules that stay where they
load, repairs that stay inside the tree, memtui's own lines known from the author's.

Each test builds a folder in the shape of a real one (the corpora it is named after), written
here from scratch: an index over its lines only, one that loads in full with informal pins and a
CRITICAL rule, live rules with no entry, a successor with none, a tree beside a copy of itself,
an index copied without its files, a prose dump with memtui's own Regions, a task log of giant
bullets, a stale competing index, and merges named by their sources.
"""

from __future__ import annotations

import os
from collections import Counter
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core.dream import plan as dream
from memtui.core.model.changeset import Changeset, apply_to_snapshot
from memtui.core.model.snapshot import BudgetConfig, LineKind, Snapshot
from memtui.core.read.store import load_root
from memtui.core.rules.budget import measure
from memtui.core.rules.validate import validate
from memtui.core.tidy.lines import HISTORY_NAME
from memtui.core.tidy.trim import operative_words, short_text
from memtui.core.verbs import lifecycle as verbs
from memtui.core.verbs.merge import merge
from memtui.core.write import plan as gate
from tests.support.roots import MakeRoot, topic
from tests.support.writer import tree

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)


def result(snapshot: Snapshot, changeset: Changeset) -> Snapshot:
    return apply_to_snapshot(snapshot, changeset.ops).snapshot


def text(snapshot: Snapshot, name: str = "MEMORY.md") -> str:
    index = snapshot.index if name == "MEMORY.md" else snapshot.archive_index
    return index.render().decode("utf-8")


def checked(plan: dream.DreamPlan) -> Counter[str]:
    return Counter(item.kind for item in plan.items if item.checked)


def after_default(plan: dream.DreamPlan) -> Snapshot:
    return result(plan.snapshot, dream.compose(plan, plan.default))


def errors(snapshot: Snapshot) -> Counter[str]:
    return Counter(f.rule for f in validate(snapshot) if f.severity == "error")


# ---------------------------------------------------------------- trims that pay for themselves

#: an author's hooks in the shape of 1000ssam's: Korean, status flags, commands, dates
KOREAN_HOOKS = [
    "🚩 main push≠프로덕션. 머지 후 반드시 `vercel --prod --yes` 실행해야 반영. DB는 `supabase db push` 별도. "
    "게시판 카테고리(board_categories)+클린탭 레이아웃 라이브(2026-06-09). 다음=staff 입력 UI, 권한모델 정리",
    "Maily 대체, AWS SES+Notion+Vercel. 라이브·Turnstile·SES프로덕션승인✅. 웹UX/캐싱/단계발송 전부 main 머지·배포"
    "(2026-05-28). 🚩다음=발송도메인 apex→서브도메인 전환(별도SES ID검증 필요). 가이드=notes/newsletter.md",
]


def over_lines_root(make_root: MakeRoot) -> Snapshot:
    """An index over its lines (24 of a 20-line cap) at a fraction of its characters."""
    lines = ["# Memory", ""]
    files: dict[str, str | bytes] = {}
    for i in range(22):
        hook = KOREAN_HOOKS[i % 2] if i < 2 else f"짧은 메모 {i}"
        lines.append(f"- [P{i}](project_p{i}.md) — {hook}")
        files[f"project_p{i}.md"] = topic(f"P{i}", f"프로젝트 {i} 설명", type_="project", updated=f"2026-05-{i + 1:02d}")
    files["MEMORY.md"] = "\n".join(lines) + "\n"
    return load_root(make_root(files), BudgetConfig(max_lines=20, max_bytes=25_000))


def test_an_index_over_its_lines_only_is_never_shortened(make_root: MakeRoot) -> None:
    """1000ssam: 249 lines at 19,232 of 25,000 characters. A shorter line is still a line: no
    shorten item at all, the author's flagged hooks stay word for word, and the decay brings the
    lines within the cap."""
    snapshot = over_lines_root(make_root)
    budget = measure(snapshot.index, snapshot.config)
    assert budget.over_lines and budget.bytes < 0.8 * budget.max_bytes
    plan = dream.plan_dream(snapshot, NOW)
    assert not any(item.kind in ("shorten", "compact") for item in plan.items)
    assert checked(plan)["decay"] == 1
    after = after_default(plan)
    whole = text(after) + text(after, "MEMORY-archive.md")
    for hook in KOREAN_HOOKS:
        assert hook in whole  # in the index, or decayed whole into the archive: never cut
    assert not measure(after.index, after.config).over_lines


ACTIVE = ("- [** ACTIVE ** Sprint 9 exec](session_2026-06-30_sprint9.md) — 2026-06-30: 14 of 16 tasks DONE, "
          "p95 latency 212ms → 88ms; next: T15 migration, T16 rollout; branch `sprint9-exec`, PR #412 open; "
          "blocked on the staging DB quota (ticket OPS-77) until 2026-07-02")
CRITICAL = ("- [Wallet setup](feedback_wallet_setup.md) — CRITICAL: always create the wallet with an ed25519 "
            "signature (never secp256k1); the allowance is 2,500 units per day and must be set before the first "
            "transfer; the key stays in the OS keychain, never in .env or the repo")
PROJECT = ("- [Newsletter send](project_newsletter_send.md) — First bulk send done 2026-06-16 ✅ (1033 recipients, "
           "bounce 3.5%); the idempotency log lives in two places (CLI = local file, button = GH cache) so mixing "
           "them sends twice; never press the button for a letter the CLI sent; Upstash dedup hardening on hold")


def pinned_root(make_root: MakeRoot, max_bytes: int) -> Snapshot:
    """improv's shape: informal pins with their results and dates, a CRITICAL rule, long
    project hooks, and short filler up to the characters the test needs."""
    lines = ["# Memory", "", "## Active", ACTIVE, "", "## Rules", CRITICAL, "", "## Projects", PROJECT]
    files: dict[str, str | bytes] = {
        "session_2026-06-30_sprint9.md": topic("Sprint 9", "sprint 9 execution log", type_="project"),
        "feedback_wallet_setup.md": topic("Wallet setup", "how to set up a wallet", type_="feedback"),
        "project_newsletter_send.md": topic("Newsletter send", "newsletter sending", type_="project"),
    }
    for i in range(8):
        hook = (f"Filler note {i}: the staging cluster runs job {i} nightly; see runbook section {i}; "
                f"owner team {i}; rotated 2026-05-{i + 1:02d}; dashboards under ops/{i}")
        lines.append(f"- [Note {i}](project_note_{i}.md) — {hook}")
        files[f"project_note_{i}.md"] = topic(f"Note {i}", f"note {i}", type_="project")
    files["MEMORY.md"] = "\n".join(lines) + "\n"
    return load_root(make_root(files, f"pinned{max_bytes}"), BudgetConfig(max_lines=200, max_bytes=max_bytes))


def test_an_index_that_loads_in_full_is_offered_its_trims_unchecked(make_root: MakeRoot) -> None:
    """improv fits (22,887 of 25,000 characters): shortening only buys headroom, so the item waits
    for a person, saying so; and even then its diff leaves the ** ACTIVE ** entry and the
    CRITICAL rule as the author wrote them."""
    size = len(pinned_root(make_root, 25_000).index.render().decode())
    snapshot = pinned_root(make_root, int(size / 0.9))  # at 90%: past the target, loading in full
    budget = measure(snapshot.index, snapshot.config)
    assert budget.cut_line is None and budget.bytes > 0.8 * budget.max_bytes
    plan = dream.plan_dream(snapshot, NOW)
    shorten = [k for k, item in enumerate(plan.items) if item.kind == "shorten"]
    assert len(shorten) == 1 and not plan.items[shorten[0]].checked
    assert "loads in full" in plan.items[shorten[0]].note
    assert not plan.default  # nothing checked: the index needs nothing
    offered = result(snapshot, plan.items[shorten[0]].build(snapshot))
    assert ACTIVE in text(offered) and CRITICAL in text(offered)


def test_a_shortened_hook_keeps_its_status_dates_and_rule(make_root: MakeRoot) -> None:
    """Past the cap, a project note's long hook is cut to its own operative clauses: its ✅ and
    date, its rule ("never press the button…"), its numbers as they fit — never a generic
    description; pins and rules are never shortened."""
    size = len(pinned_root(make_root, 25_000).index.render().decode())
    snapshot = pinned_root(make_root, int(size * 0.95))  # over the cap: it does not load in full
    plan = dream.plan_dream(snapshot, NOW)
    assert checked(plan)["shorten"] == 1
    after = after_default(plan)
    index = text(after)
    assert ACTIVE in index and CRITICAL in index  # a pin's and a rule's entries stay whole
    line = next(ln.raw for ln in after.index.entries if ln.resolved == "project_newsletter_send.md")
    assert len(line) < len(PROJECT)
    for word in ("2026-06-16", "✅", "never press the button for a letter the CLI sent"):
        assert word in line, line
    assert "newsletter sending" not in line  # the description is no substitute for the hook
    assert PROJECT in after.files[HISTORY_NAME].text
    assert not measure(after.index, after.config).over_bytes


def test_an_index_that_loads_in_full_gives_standing_rules_the_room_its_episodic_entries_take(
        make_root: MakeRoot) -> None:
    """improv loads in full (22,887 characters) with 11 standing rules nothing reaches: live
    standing rules get entries before episodic notes keep theirs — the oldest project entries
    move, byte for byte, into the archive index to make the room, only as many as the cap needs;
    the informal pin, the CRITICAL rule and every hook of the author's stay as written (shorten
    waits, unchecked), and the index still loads in full."""
    size = len(pinned_root(make_root, 25_000).index.render().decode())
    snapshot = pinned_root(make_root, int(size / 0.82))  # room for a few more lines
    root = Path(snapshot.root)
    for i in range(5):
        (root / f"feedback_standing_{i}.md").write_text(topic(
            f"Standing rule {i}", f"STANDING directive {i}: stop when told; restore the last working state",
            type_="feedback"), encoding="utf-8")
    snapshot = load_root(root, snapshot.config)
    assert measure(snapshot.index, snapshot.config).cut_line is None
    plan = dream.plan_dream(snapshot, NOW)
    assert checked(plan)["repair"] == 1 and checked(plan)["decay"] == 1 and not checked(plan)["shorten"], [
        (item.kind, item.evidence[:3]) for item in plan.items]
    after = after_default(plan)
    index = text(after)
    listed = {ln.resolved for ln in after.index.entries}
    assert all(f"feedback_standing_{i}.md" in listed for i in range(5)) and "`feedback_*.md`" not in index
    gone = {ln.resolved for ln in snapshot.index.entries} - listed
    assert gone and all(p.startswith("project_note_") for p in gone), gone  # episodic, the oldest
    assert len(gone) < 8  # only as many as the cap needs
    archive = text(after, "MEMORY-archive.md")
    for line in snapshot.index.entries:
        if line.resolved in gone:
            assert line.raw in archive  # moved whole, not lost
    assert ACTIVE in index and CRITICAL in index
    budget = measure(after.index, after.config)
    assert budget.cut_line is None and not budget.over_bytes and not errors(after)


@pytest.mark.parametrize(("hook", "kept"), [
    ("Sprint 7 closed 2026-05-24; 32 tests green; the flaky e2e quarantined; see `ci/flaky.md` for the list",
     ["2026-05-24"]),
    ("ACTIVE - migration of the billing tables; runs nightly; DONE for 3 of 5 shards - do not run it by hand",
     ["ACTIVE", "DONE", "do not run it by hand"]),
    ("배포 파이프라인 정리. 스테이징 먼저 확인. 절대 프로덕션 DB를 직접 수정하지 말 것", ["절대 프로덕션 DB를 직접 수정하지 말 것"]),
])
def test_short_text_keeps_every_operative_word(hook: str, kept: list[str]) -> None:
    short = short_text(hook, 80)
    if short is None:  # the operative clauses alone do not fit: the hook stays whole
        assert sum(len(w) for w in operative_words(hook)) > 40
        return
    assert len(short) < len(hook)
    for word in kept:
        assert word in short


# ---------------------------------------------------------------- rules where they load


def test_live_standing_rules_get_entries_before_episodic_notes_get_a_region(make_root: MakeRoot) -> None:
    """improv: 11 live feedback rules ("a STANDING directive") reached by nothing got a region
    pointer ("grep the memory dir"); they get entries beside their family, while the session
    logs nothing reaches get the region."""
    lines = ["# Memory", "", "## Rules", "- [Be brief](feedback_brief.md) — answer first", "",
             "## Sessions", "- [S0](session_2026-05-01_s0.md) — the first session"]
    files: dict[str, str | bytes] = {
        "feedback_brief.md": topic("Be brief", "answer first", type_="feedback"),
        "session_2026-05-01_s0.md": topic("S0", "the first session", type_="project"),
    }
    for i in range(8):
        files[f"feedback_rule_{i}.md"] = topic(f"Rule {i}", f"STANDING directive {i}: stop when told", type_="feedback")
        files[f"session_2026-05-{i + 2:02d}_s{i + 1}.md"] = topic(f"S{i + 1}", f"session {i + 1}", type_="project")
    files["MEMORY.md"] = "\n".join(lines) + "\n"
    snapshot = load_root(make_root(files))
    plan = dream.plan_dream(snapshot, NOW)
    after = after_default(plan)
    index = text(after)
    listed = {ln.resolved for ln in after.index.entries}
    assert all(f"feedback_rule_{i}.md" in listed for i in range(8))
    assert index.index("feedback_rule_0.md") < index.index("## Sessions")  # beside their family
    assert "`session_*.md`" in index and "`feedback_*.md`" not in index
    assert not errors(after)


def test_a_successor_takes_the_place_of_the_note_it_supersedes(make_root: MakeRoot) -> None:
    """improv: decision_improv_renamed_to_endow.md is archived as superseded, and the note that
    supersedes it — the name in force, decayed earlier into the archive index — gets its entry
    in what loads."""
    files: dict[str, str | bytes] = {
        "MEMORY.md": "# Memory\n\n## Decisions\n- [Renamed to endow](decision_renamed_to_endow.md) — improv is now endow\n"
                     "- [Brief](feedback_brief.md) — answer first\n",
        "MEMORY-archive.md": "# Memory archive\n\n## Decisions\n"
                             "- [Endow to justify](session_2026-05-29_endow_to_justify.md) — the final rename\n",
        "decision_renamed_to_endow.md": topic("Renamed to endow", "improv is now endow", type_="decision",
                                              superseded_by="session_2026-05-29_endow_to_justify.md"),
        "session_2026-05-29_endow_to_justify.md": topic("Endow to justify", "endow is now justify, once and for all",
                                                        type_="project",
                                                        supersedes="decision_renamed_to_endow.md"),
        "feedback_brief.md": topic("Brief", type_="feedback"),
    }
    snapshot = load_root(make_root(files))
    plan = dream.plan_dream(snapshot, NOW)
    assert checked(plan)["supersede-declared"] == 1
    after = after_default(plan)
    index = text(after)
    assert "decision_renamed_to_endow.md" not in index
    assert "- [Endow to justify](session_2026-05-29_endow_to_justify.md) — endow is now justify, once and for all" \
        in index
    assert index.index("## Decisions") < index.index("session_2026-05-29_endow_to_justify.md") < index.index("[Brief]")
    assert "session_2026-05-29_endow_to_justify.md) — the final rename" not in text(after, "MEMORY-archive.md")
    assert "- [Endow to justify](session_2026-05-29_endow_to_justify.md) — the final rename" in \
        after.files[HISTORY_NAME].text  # the archive line it had, kept byte for byte
    assert not errors(after)
    assert gate(snapshot, dream.compose(plan, plan.default)).accepted


# ---------------------------------------------------------------- repairs inside the tree


def copy_pair(base: Path) -> tuple[Path, Path]:
    """A memory folder and a copy of the whole of it beside it (``cp -r c_dry c_yes``): the copy
    holds the file the folder's dangling pointer names."""
    index = ("# Memory\n\n## Sessions\n- [Fix](session_2026-05-21_fix.md) — Wired the orchestrator into the detector; "
             "all 5 methods exposed\n- [Brief](feedback_brief.md) — answer first\n")
    roots = []
    for name in ("c_dry", "c_yes"):
        root = base / name
        root.mkdir(parents=True)
        (root / "MEMORY.md").write_text(index, encoding="utf-8")
        (root / "feedback_brief.md").write_text(topic("Brief", type_="feedback"), encoding="utf-8")
        roots.append(root)
    (roots[1] / "session_2026-05-21_fix.md").write_text(topic("Fix", "the fix"), encoding="utf-8")
    return roots[0], roots[1]


def test_a_repoint_never_reaches_a_copy_of_the_tree_beside_it(tmp_path: Path) -> None:
    """A fresh copy's dream repointed 7 dangling pointers to ``../../c_yes/…``, a copy of the whole
    tree beside it: a repoint target lies inside the root's own memory tree."""
    from memtui.core.tidy.targets import _tree_roots

    dry, _ = copy_pair(tmp_path / "w")
    _tree_roots.cache_clear()
    plan = dream.plan_dream(load_root(dry), NOW)
    changed = b"".join(getattr(op, "data", b"") for item in plan.items if item.checked
                       for op in item.build(load_root(dry)).ops)
    assert b"c_yes" not in changed


def test_a_repoint_finds_a_sibling_root_of_the_same_project(tmp_path: Path) -> None:
    """The nested roots of one project (a git work tree) are one tree: a dangling pointer whose
    file is in another root of it is named there."""
    from memtui.core.tidy.targets import _tree_roots, tree_top

    project = tmp_path / "w" / "improv"
    (project / ".git").mkdir(parents=True)
    main_memory = project / ".claude" / "memory"
    site = project / "marketing-site" / ".claude" / "memory"
    for root in (main_memory, site):
        root.mkdir(parents=True)
    (main_memory / "MEMORY.md").write_text("- [Shades](session_shades.md) — the shade system\n", encoding="utf-8")
    (main_memory / "session_shades.md").write_text(topic("Shades"), encoding="utf-8")
    (site / "MEMORY.md").write_text("# Site\n- [Shades](session_shades.md) — the shade decision\n", encoding="utf-8")
    _tree_roots.cache_clear()
    assert tree_top(site) == project.resolve()
    after = result(load_root(site), verbs.rebuild(load_root(site)))
    assert "`../../../.claude/memory/session_shades.md`" in text(after)
    lone = tmp_path / "w2" / "marketing-site" / ".claude" / "memory"  # no work tree: its project only
    assert tree_top(lone) == lone.parent.parent.resolve()


def test_dry_run_then_yes_on_an_unchanged_tree_apply_the_same_bytes(
        tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    """The plan is a pure function of the roots it reads: what ``--dry-run`` shows is what
    ``--yes`` writes, even when a sibling copy is dreamt in between (its new files are not this
    tree's)."""
    from memtui.core.stores.statcache import cached_loader
    from memtui.core.tidy.targets import _tree_roots

    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(tmp_path / "cache"))
    dry, yes = copy_pair(tmp_path / "w")
    for i in range(6):  # something for the dream to do: live notes nothing reaches
        (dry / f"session_2026-05-{i + 1:02d}_n{i}.md").write_text(topic(f"N{i}", f"note {i}"), encoding="utf-8")
    _tree_roots.cache_clear()
    shown = dream.plan_dream(cached_loader(texts=False)(dry, BudgetConfig()), NOW)
    planned = apply_to_snapshot(load_root(dry), dream.compose(shown, shown.default).ops).snapshot
    expected = {**{p: f.data for p, f in planned.files.items()},
                "MEMORY.md": planned.index.render(), "MEMORY-archive.md": planned.archive_index.render()}
    assert main(["dream", str(dry), "--dry-run", "--now", "2026-12-01"]) == 0
    assert main(["dream", str(yes), "--yes", "--now", "2026-12-01"]) == 0  # the copy, dreamt in between
    assert main(["dream", str(dry), "--yes", "--now", "2026-12-01"]) == 0
    capsys.readouterr()
    written = {path: data for path, data in tree(dry).items() if data is not None}
    assert written == {path: data for path, data in expected.items() if path in written or data}


# ---------------------------------------------------------------- an index copied from elsewhere


def test_an_index_whose_files_are_mostly_missing_is_said_so_and_nothing_is_checked(make_root: MakeRoot) -> None:
    """An index copied from another machine (all but two of its 14 targets missing) wrote a
    one-line topic file for every hook: now the dream says what it sees and checks nothing."""
    lines = ["# Memory", "", "## Sessions"]
    for i in range(12):
        lines.append(f"- [Phase {i}](session_2026-05-21_phase{i}.md) — Built the flow {i} handlers and wired "
                     f"them into the detector; {i + 3} methods exposed")
    lines += ["- [Kept](project_kept.md) — here", "- [Brief](feedback_brief.md) — answer first"]
    snapshot = load_root(make_root({"MEMORY.md": "\n".join(lines) + "\n", "project_kept.md": topic("Kept"),
                                    "feedback_brief.md": topic("Brief", type_="feedback")}))
    plan = dream.plan_dream(snapshot, NOW)
    lesson = [item for item in plan.items if item.kind == "lesson"]
    assert len(lesson) == 1 and not lesson[0].checked
    assert "names 12 files this folder does not hold — copied from elsewhere?" in lesson[0].reason
    assert not plan.default


def test_a_lesson_is_recovered_only_from_a_hook_that_holds_one(make_root: MakeRoot) -> None:
    """A dangling feedback pointer whose hook is a rule becomes its topic file; a session log's
    progress note does not: its link goes, its words stay where they load (no file made up)."""
    index = ("# Memory\n\n- [Never force-push](feedback_no_force_push.md) — never force-push a shared branch; "
             "ask first\n- [Phase 5](session_2026-05-21_phase5.md) — Wired the orchestrator into the detector; "
             "all 5 methods exposed\n- [Kept](project_kept.md) — here\n")
    snapshot = load_root(make_root({"MEMORY.md": index, "project_kept.md": topic("Kept")}))
    plan = dream.plan_dream(snapshot, NOW)
    assert checked(plan)["lesson"] == 1
    after = after_default(plan)
    assert "feedback_no_force_push.md" in after.files and "session_2026-05-21_phase5.md" not in after.files
    assert "- Phase 5 — Wired the orchestrator into the detector; all 5 methods exposed\n" in text(after)
    assert "- [Phase 5](session_2026-05-21_phase5.md) — Wired" in after.files[HISTORY_NAME].text
    assert not errors(after)


# ---------------------------------------------------------------- memtui's own lines


def prose_dump(make_root: MakeRoot) -> Snapshot:
    """researcher's shape: a knowledge-base dump past its cap whose sections each name a file,
    an instruction to the agent, and a family of notes nothing reaches."""
    detail = "".join(f"- finding {i}: the pattern holds under load, measured at {i * 10} rps with p99 "
                      f"under {i + 20} ms\n" for i in range(12))
    parts = ["# Researcher Memory Index\n\nWhat the research found.\n\n## Knowledge Bases\n"]
    files: dict[str, str | bytes] = {}
    for name in ("blazor", "maui", "azure"):
        parts.append(f"\n### {name.title()} research\n- **File**: `{name}_research.md`\n" + detail)
        files[f"{name}_research.md"] = topic(f"{name.title()} research", f"{name} patterns", type_="reference")
    parts.append("\n## How to Use This Memory\n\nWhen researching, check `blazor_research.md` first.\n")
    for i in range(7):
        files[f"session_2026-03-{i + 1:02d}_notes.md"] = topic(f"Notes {i}", f"research notes {i}")
    files["MEMORY.md"] = "".join(parts)
    return load_root(make_root(files), BudgetConfig(max_lines=40, max_bytes=25_000))


def test_rebuild_of_a_prose_dump_keeps_its_own_regions_in_the_index(make_root: MakeRoot) -> None:
    """``memtui rebuild`` on researcher wrote a ``## Regions`` section in its repair step, then its
    prose step moved that section into a new topic file ``regions.md``: 14 orphan errors until a
    second rebuild.  The prose step knows memtui's own lines: one rebuild, no error, and the
    next one has nothing to do."""
    snapshot = prose_dump(make_root)
    after = result(snapshot, verbs.rebuild(snapshot))
    assert not any(path.startswith("regions") for path in after.files)
    assert "`session_*.md`" in text(after)
    assert "When researching, check `blazor_research.md` first." in text(after)  # an instruction stays
    assert not errors(after), errors(after)
    with pytest.raises(verbs.NothingToRebuild):
        verbs.rebuild(after)


GIANT = ("- **T{n} (PR #{pr}, ✓ PASS bağımsız validator 2026-05-0{d}):** Timeout scheduling — "
         + "`Skinora.Transactions/Application/Timeouts/` 4 servis, outbox event, CK_Transactions_FreezePassive, " * 12
         + "870 test PASS.")


def task_log(make_root: MakeRoot) -> Snapshot:
    """Skinora's shape: under 200 lines, four times its characters, one giant bullet per task
    (naming one note in passing) above the lists of rules and notes that never load today."""
    lines = ["# Skinora Project Memory", "", "## Project Overview", "- **Name:** Skinora — an escrow platform", "",
             "## Current Status (2026-05-04)"]
    lines += [GIANT.format(n=30 + i, pr=60 + i, d=1 + i % 4) for i in range(60)]
    lines += ["- **Next:** T56 Çoklu hesap tespiti (merge akışı: `project_flow.md`)", "", "## Feedback"]
    files: dict[str, str | bytes] = {}
    for i in range(10):
        lines.append(f"- [feedback_rule_{i}.md](feedback_rule_{i}.md) — Kural {i}: onay verildikten sonra ara onay isteme")
        files[f"feedback_rule_{i}.md"] = topic(f"Rule {i}", f"kural {i}", type_="feedback")
    lines += ["", "## Project", "- [project_flow.md](project_flow.md) — Validator merge akışı"]
    files["project_flow.md"] = topic("Flow", "validator merge flow", type_="project")
    files["MEMORY.md"] = "\n".join(lines) + "\n"
    return load_root(make_root(files))


def test_a_task_status_log_becomes_pointers_in_one_dream(make_root: MakeRoot) -> None:
    """Skinora: a 120 KB task log under 200 lines got its rules decayed and, on a second dream,
    'pointers', and the log that names one note became that note's entry (its text left only in
    MEMORY-history.md). One dream moves the log into a topic file and keeps every rule where it
    loads, and the note it names keeps its own entry; a second proposes nothing checked."""
    snapshot = task_log(make_root)
    budget = measure(snapshot.index, snapshot.config)
    assert not budget.over_lines and budget.bytes > 2 * budget.max_bytes
    plan = dream.plan_dream(snapshot, NOW)
    assert checked(plan)["pointers"] == 1 and not checked(plan)["decay"]
    after = after_default(plan)
    index = text(after)
    for i in range(10):
        assert f"- [feedback_rule_{i}.md](feedback_rule_{i}.md) — Kural {i}: onay verildikten" in index
    moved = [p for p in after.files if p not in snapshot.files and p != HISTORY_NAME]
    assert len(moved) == 1 and GIANT.format(n=30, pr=60, d=1) in after.files[moved[0]].text
    assert "- [project_flow.md](project_flow.md) — Validator merge akışı" in index
    assert measure(after.index, after.config).cut_line is None
    again = dream.plan_dream(after, NOW)
    assert not again.default, [(item.kind, item.evidence[:2]) for item in again.items if item.checked]


def test_each_trim_is_listed_once_when_a_repair_grows_an_index_past_its_cap(make_root: MakeRoot) -> None:
    """A repair that grows an index already past its cap was held, the trims ran, the repair
    passed, and the trims ran again: 'shorten' listed twice.  The repair is carried and the trims
    after it pay for it, once."""
    lines = ["# Memory", "", "## Sessions"]
    files: dict[str, str | bytes] = {}
    for i in range(30):
        hook = (f"Sprint {i} closed 2026-04-{i % 28 + 1:02d}; {i + 10} tests green; the flaky suite {i} quarantined; "
                f"the runbook moved to ops/sprint{i}.md; the dashboards renamed for team {i}; the old alerts retired")
        lines.append(f"- [Sprint {i}](session_2026-04-{i % 28 + 1:02d}_sprint{i}.md) — {hook}")
        files[f"session_2026-04-{i % 28 + 1:02d}_sprint{i}.md"] = topic(f"Sprint {i}", f"sprint {i}")
    # three rules of their own (three notes with one body are near copies, and merged)
    for i, rule in enumerate(("commit small and often", "write the failing test first",
                              "ask a second reviewer for schema changes")):
        files[f"feedback_rule_{i}.md"] = topic(f"Rule {i}", rule, type_="feedback", body=f"Always {rule}.\n")
    files["MEMORY.md"] = "\n".join(lines) + "\n"
    snapshot = load_root(make_root(files), BudgetConfig(max_lines=200, max_bytes=6_000))
    assert measure(snapshot.index, snapshot.config).over_bytes
    plan = dream.plan_dream(snapshot, NOW)
    kinds = Counter(item.kind for item in plan.items)
    assert all(count == 1 for kind, count in kinds.items() if kind != "successor"), kinds
    assert checked(plan)["repair"] == 1
    assert gate(snapshot, dream.compose(plan, plan.default)).accepted
    after = after_default(plan)
    assert {f"feedback_rule_{i}.md" for i in range(3)} <= {ln.resolved for ln in after.index.entries}
    assert not dream.plan_dream(after, NOW).default


# ---------------------------------------------------------------- folder documents, merges


def test_a_stale_competing_index_is_offered_for_the_archive(make_root: MakeRoot) -> None:
    """researcher's INDEX.md still names the sources the same pass merges: a curator archives it;
    the dream proposes that, unchecked, instead of linking it as a knowledge base."""
    body = "Drawio: the diagram format, its XML, the embed and export options, the MCP servers. " * 12
    files: dict[str, str | bytes] = {
        "MEMORY.md": "# Memory\n\n- [Drawio](drawio-reference.md) — draw.io reference\n"
                     "- [Drawio research](reference_drawio.md) — draw.io research\n",
        "drawio-reference.md": topic("Drawio", "draw.io reference", type_="reference", body=body),
        "reference_drawio.md": topic("Drawio research", "draw.io research", type_="reference", body=body + "More."),
        "INDEX.md": "# Research index\n\n- `drawio-reference.md` — diagrams\n- `reference_drawio.md` — the same\n",
    }
    snapshot = load_root(make_root(files))
    plan = dream.plan_dream(snapshot, NOW)
    assert checked(plan)["merge"] == 1
    stale = [item for item in plan.items if item.kind == "documents" and item.paths == ("INDEX.md",)]
    assert len(stale) == 1 and not stale[0].checked and "gone stale" in stale[0].reason
    archived = result(snapshot, stale[0].build(snapshot))
    assert "archive/INDEX.md" in archived.files and "INDEX.md" not in archived.files
    assert not any(item.kind == "documents" and "INDEX.md" in item.paths and item is not stale[0]
                   for item in plan.items)


def test_a_merge_gist_is_named_and_titled_by_its_sources(make_root: MakeRoot) -> None:
    """A merge on a copied folder named its gist after the merge day (``…_research_2026-12-02.md``)
    and gave a 30 KB gist the one-page cheat sheet's title: the modification times of a copy are
    no date, the guide that states its date is the newer, and the gist keeps its title and date."""
    guide = topic(".NET/Blazor Comprehensive Research", "Blazor Web Apps, microservices, component patterns",
                  type_="reference", body="# .NET/Blazor Comprehensive Documentation Research\n**Date**: 2026-03-29\n\n"
                  + "A long guide to the render modes, the forms, the state. " * 40)
    sheet = topic(".NET/Blazor Comprehensive Research", "One-page cheat sheet for common .NET/Blazor patterns",
                  type_="reference", body="# Quick Reference\n\n" + "A render mode table. " * 10)
    files: dict[str, str | bytes] = {
        "MEMORY.md": "- [Blazor](net_blazor_comprehensive_research.md) — guide\n- [Sheet](dotnet_quick.md) — sheet\n"
                     + "".join(f"- [N{i}](note_{i}.md) — n\n" for i in range(5)),
        "net_blazor_comprehensive_research.md": guide, "dotnet_quick.md": sheet,
        **{f"note_{i}.md": topic(f"N{i}") for i in range(5)},
    }
    root = make_root(files)
    stamp = datetime(2026, 12, 2, tzinfo=timezone.utc).timestamp()
    for path in root.iterdir():  # a copy: every file written in the same second
        os.utime(path, (stamp, stamp))
    snapshot = load_root(root)
    changeset = merge(snapshot, ["net_blazor_comprehensive_research.md", "dotnet_quick.md"],
                      today=datetime(2026, 12, 2).date())
    gist = changeset.ops[0]
    assert gist.path == "net_blazor_comprehensive_research_2026-03-29.md"  # type: ignore[union-attr]
    data = gist.data.decode()  # type: ignore[union-attr]
    assert "One-page cheat sheet" not in data.split("---")[1] and "Blazor Web Apps" in data


def test_the_index_of_a_rebuilt_dump_names_no_file_the_same_pass_archives(make_root: MakeRoot) -> None:
    """researcher: how_to_use_this_memory.md, written by the prose step, pointed at a source the
    same pass merged into a gist.  What the pass writes or keeps in the index names the gist."""
    snapshot = prose_dump(make_root)
    body = "Blazor: render modes, forms, state, the component lifecycle and its events. " * 12
    root = Path(snapshot.root)
    (root / "blazor_research.md").write_text(topic("Blazor research", "blazor patterns", type_="reference",
                                                   body=body), encoding="utf-8")
    (root / "blazor_guide.md").write_text(topic("Blazor guide", "blazor guide", type_="reference",
                                                body=body + "And the router."), encoding="utf-8")
    snapshot = load_root(root, snapshot.config)
    plan = dream.plan_dream(snapshot, NOW)
    assert checked(plan)["merge"] == 1 and checked(plan)["pointers"] == 1
    after = after_default(plan)
    archived = {p.removeprefix("archive/") for p in after.files if p.startswith("archive/")}
    assert archived
    born = [p for p in after.files if p not in snapshot.files and not p.startswith("archive/") and p != HISTORY_NAME]
    for line in after.index.lines:
        if line.kind is not LineKind.ENTRY:
            assert not any(name in line.raw for name in archived), line.raw
    for path in born:
        body_text = after.files[path].body
        assert not any(f"`{name}`" in body_text for name in archived), path


def test_a_second_index_whose_names_all_live_is_offered_for_the_archive_not_the_index(
        make_root: MakeRoot) -> None:
    """researcher's MEMORY_INDEX.md names notes that are all live and all entries of MEMORY.md:
    the dream offered to list it in MEMORY.md (an index in the index); a curator archives it.
    Offered unchecked, with how many of its names MEMORY.md holds; applying it moves the file to
    archive/ and the validator finds nothing new."""
    files: dict[str, str | bytes] = {
        "MEMORY.md": "# Memory\n\n- [Blazor](blazor.md) — render modes\n- [MUI](mui.md) — theming\n",
        "blazor.md": topic("Blazor", "render modes", type_="reference", body="Server, WASM, Auto.\n"),
        "mui.md": topic("MUI", "theming", type_="reference", body="Palette, typography.\n"),
        "MEMORY_INDEX.md": "---\nname: Research index\ndescription: Central index of research\ntype: reference\n"
                           "---\n\n# Research index\n\n- **File**: `blazor.md`\n- **File**: `mui.md`\n",
        "README.md": "# Team memory\n\nThis folder holds the notes our agents keep. Read MEMORY.md first.\n",
    }
    snapshot = load_root(make_root(files))
    plan = dream.plan_dream(snapshot, NOW)
    second = [item for item in plan.items if item.kind == "documents" and item.paths == ("MEMORY_INDEX.md",)]
    assert len(second) == 1 and not second[0].checked
    assert "second index" in second[0].reason and "archive it" in second[0].reason
    assert "names 2 memory files, 2 of them entries of MEMORY.md" in second[0].evidence[0]
    listing = [item for item in plan.items if item.kind == "documents" and item is not second[0]]
    assert all("MEMORY_INDEX.md" not in item.paths for item in listing)  # never offered to be listed
    assert any("README.md" in item.paths for item in listing)  # the README is still the person's call
    archived = result(snapshot, second[0].build(snapshot))
    assert "archive/MEMORY_INDEX.md" in archived.files and "MEMORY_INDEX.md" not in archived.files
    assert gate(snapshot, second[0].build(snapshot)).accepted
