"""Dream: one reviewed maintenance pass, planned as items and written as one change (DESIGN §10)."""

from __future__ import annotations

import json
import os
import shutil
import stat
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core import write
from memtui.core.dream import plan as dream
from memtui.core.dream.plan import HISTORY_NAME, comment_blocks, move_history, plan_dream
from memtui.core.judge.consolidate import scan
from memtui.core.judge.staleness import StalenessClass, score_root
from memtui.core.model.changeset import apply_to_snapshot, unified_diff
from memtui.core.model.journal import list_records
from memtui.core.model.snapshot import Snapshot
from memtui.core.read.store import load_root
from memtui.core.rules.validate import validate
from tests.support.dream_plans import OLD, STALE_BODY, sweeper_files, sweeper_project, two_closed_sprints
from tests.support.roots import CORPORA, MakeRoot, topic
from tests.support.writer import tree

DEMO = Path(__file__).resolve().parents[2] / "memtui" / "demo"
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
CORPUS_ROOTS = (
    "markus41__claude__agent-memory/researcher",
    "jonahscohen__improv__claude-memory-2026-06-01",
    "4444J99__application-pipeline__claude-memory",
    "Inpacchi__mission-control__agent-memory/ui-ux-designer",
    "1000ssam__claude-config__memory",
)
HISTORY_BLOCKS = (
    "<!-- session 2026-11-02: moved GC notes into topic files\n"
    "     and dropped the old webpack entries -->\n",
    "<!-- last reviewed 2026-11-20 -->\n",
)


def files_only(root: Path) -> dict[str, bytes]:
    return {path: data for path, data in tree(root).items() if data is not None}


def error_keys(snapshot: Snapshot) -> set[tuple[str, str, str]]:
    return {f.key for f in validate(snapshot) if f.severity == "error"}


def check_rules(snapshot: Snapshot, plan: dream.DreamPlan, repo: Path | None = None) -> None:
    """Every item of the plan is right by the rules of DESIGN §10."""
    stale = score_root(snapshot, NOW, repo)
    found = scan(snapshot)
    pairs = {(p.a, p.b) for p in found.pairs}
    seen: set[str] = set()
    for item in plan.items:
        if item.kind in ("archive", "merge", "supersede"):
            assert not seen & set(item.paths), f"{item.paths} claimed twice"
            seen.update(item.paths)
        pinned = [p for p in item.paths if p in snapshot.files and snapshot.files[p].pinned]
        if item.kind == "archive":
            result = stale.get(item.paths[0])
            assert result is not None and result.cls is StalenessClass.FULLY_STALE
            assert result.guards == () and not pinned
        elif item.kind == "merge":
            members = set(item.paths)
            assert any(a in members and b in members for a, b in pairs)
            assert not (item.checked and pinned), "a cluster holding a pinned file is checked"
            if pinned:
                assert item.note.startswith("needs review: pinned")
        elif item.kind == "supersede":
            (found_c,) = [c for c in found.contradictions if (c.old, c.new) == item.paths]
            assert found_c.ordered, "a contradiction of unknown order has no direction to propose"
            assert not (item.checked and snapshot.files[found_c.old].pinned)
        elif item.kind == "history":
            assert comment_blocks(snapshot.index)


def dream_and_check(root: Path, repo: Path | None = None) -> dream.DreamPlan:
    """Plan, check the rules, apply the checked items, check the result, dream again, undo."""
    original = files_only(root)
    snapshot = load_root(root)
    plan = plan_dream(snapshot, NOW, repo=repo)
    check_rules(snapshot, plan, repo)
    assert plan.default, "the plan has nothing checked"
    preview = dream.preview(plan, plan.default)
    assert preview.accepted, preview.refusal_message()
    write.commit(preview)
    assert len(list_records(root)) == 1  # one change: one journal record
    after = load_root(root)
    assert error_keys(after) <= error_keys(snapshot)
    blocks = comment_blocks(snapshot.index)
    if blocks:
        history = (root / HISTORY_NAME).read_bytes()
        for first, last in blocks:
            block = "".join(ln.raw + ln.ending for ln in snapshot.index.lines[first:last + 1]).encode()
            assert block in history
        assert not comment_blocks(after.index)
    again = plan_dream(after, NOW, repo=repo)
    assert not again.default, [item.kind for item in again.items if item.checked]
    waited = {(i.kind, i.paths) for i in plan.waiting}
    assert {(i.kind, i.paths) for i in again.items} <= waited
    write.undo(after)
    assert files_only(root) == original
    return plan


# ---------------------------------------------------------------- history out of the index


def test_history_moves_byte_for_byte(make_root: MakeRoot) -> None:
    index = (
        "\ufeff# Memory\r\n"
        "<!-- session 1: set up the repo\r\n"
        "  notes kept here -->\r\n"
        "\r\n"
        "## Recent\r\n"
        "- [A](a.md) — the fact <!-- inline: stays -->\r\n"
        "<!-- two --> <!-- three -->\r\n"
        "```\r\n"
        "<!-- in a fence: stays -->\r\n"
        "```\r\n"
        "<!-- last, without a newline -->"
    )
    root = make_root({"MEMORY.md": index.encode(), "a.md": topic("A")})
    snapshot = load_root(root)
    assert [(a + 1, b + 1) for a, b in comment_blocks(snapshot.index)] == [(2, 3), (7, 7), (11, 11)]
    write.run(snapshot, move_history(snapshot))
    kept = (root / "MEMORY.md").read_bytes()
    history = (root / HISTORY_NAME).read_bytes()
    moved = [b"<!-- session 1: set up the repo\r\n  notes kept here -->\r\n",
             b"<!-- two --> <!-- three -->\r\n", b"<!-- last, without a newline -->"]
    assert all(block in history for block in moved)
    # the index lost exactly the moved lines, and the history holds each of them byte for byte
    original = index.encode().splitlines(keepends=True)
    moved_lines = {2, 3, 7, 11}
    assert kept == b"".join(line for n, line in enumerate(original, 1) if n not in moved_lines)
    assert b"".join(line for n, line in enumerate(original, 1) if n in moved_lines) == b"".join(moved)
    after = load_root(root)
    assert "history-in-index" not in {f.rule for f in validate(after) if f.line in (2, 3, 7, 11)}
    assert any(line.resolved == HISTORY_NAME for line in after.archive_index.entries)
    assert not any(line.resolved == HISTORY_NAME for line in after.index.entries)  # never loaded


def test_history_is_appended_to_on_the_next_dream(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": "# Memory\n<!-- one -->\n- [A](a.md) — fact\n", "a.md": topic("A")})
    snapshot = load_root(root)
    write.run(snapshot, move_history(snapshot))
    with (root / "MEMORY.md").open("a") as handle:
        handle.write("<!-- two -->\n")
    snapshot = load_root(root)
    write.run(snapshot, move_history(snapshot))
    history = (root / HISTORY_NAME).read_text()
    assert history.index("<!-- one -->") < history.index("<!-- two -->")
    assert (root / "MEMORY.md").read_text() == "# Memory\n- [A](a.md) — fact\n"


# ---------------------------------------------------------------- the rules on a made-up root


@pytest.fixture
def rules_root(make_root: MakeRoot, tmp_path: Path) -> tuple[Path, Path]:
    project = sweeper_project(tmp_path)
    base = sweeper_files()
    files = {p: base[p] for p in ("project_gone.md", "feedback_gone.md")}
    files["project_pinned_gone.md"] = topic("Pinned sweeper", body=STALE_BODY, pinned="true", **OLD)
    files["project_directive_gone.md"] = base["project_directive_gone.md"]
    files["project_recent_gone.md"] = topic("Recent sweeper", body=STALE_BODY, updated="2026-11-25")
    files.update(base)  # the rest in their order
    files.update({
        "cache_a.md": topic("Redis cache eviction policy notes", updated="2026-10-03",
                            body="Redis cache eviction uses allkeys-lru with maxmemory 2gb on every node.\n"),
        "cache_b.md": topic("Redis cache eviction policy", updated="2026-10-04",
                            body="Redis cache eviction uses allkeys-lru with maxmemory 2gb on every node, "
                                 "checked weekly.\n"),
    })
    pinned = [p for p, t in files.items() if "pinned: true" in str(t)]
    lines = ["# Memory", "", "## Pinned"] + [f"- [{p}]({p}) — pinned fact" for p in pinned]
    lines += ["", "## Recent"] + [f"- [{p}]({p}) — a fact" for p in files if p not in pinned]
    files["MEMORY.md"] = "\n".join(lines) + "\n" + "".join(HISTORY_BLOCKS)
    return make_root(files), project


def test_plan_follows_the_rules(rules_root: tuple[Path, Path]) -> None:
    root, project = rules_root
    plan = plan_dream(load_root(root), NOW, repo=project)
    by_kind = {(item.kind, item.paths): item for item in plan.items}
    assert [p for kind, p in by_kind if kind == "archive"] == [("project_gone.md",)]  # guards hold the rest
    pinned_merge = by_kind[("merge", ("pool_copy.md", "pool_pinned.md"))]
    assert not pinned_merge.checked and pinned_merge.note == "needs review: pinned (pool_pinned.md)"
    assert by_kind[("merge", ("cache_a.md", "cache_b.md"))].checked
    assert by_kind[("history", ("MEMORY.md", HISTORY_NAME))].checked
    # within its fill target and with nothing to repair, the index is left as the author wrote it
    assert not {"repair", "shorten", "decay", "pointers"} & {item.kind for item in plan.items}
    dream_and_check(root, project)


def test_selected_items_compose_into_one_change(rules_root: tuple[Path, Path]) -> None:
    root, project = rules_root
    plan = plan_dream(load_root(root), NOW, repo=project)
    merge_at = next(i for i, item in enumerate(plan.items) if item.kind == "merge" and item.checked)
    selected = plan.default - {merge_at}
    preview = dream.preview(plan, selected)
    assert preview.accepted and preview.changeset.verb == "dream"
    write.commit(preview)
    assert (root / "cache_a.md").exists() and (root / "cache_b.md").exists()  # the untoggled merge
    assert (root / "archive" / "project_gone.md").exists() and (root / HISTORY_NAME).exists()
    assert len(list_records(root)) == 1
    write.undo(load_root(root))
    assert not (root / HISTORY_NAME).exists() and (root / "project_gone.md").exists()


def test_the_plan_s_own_changesets_compose_as_a_fresh_build(rules_root: tuple[Path, Path]) -> None:
    """The default selection (or a start of it) reuses the changesets the plan built and gated:
    the same operations as building every item again, in order, on the results before it."""
    root, project = rules_root
    plan = plan_dream(load_root(root), NOW, repo=project)
    default = sorted(plan.default)
    assert len(default) >= 3 and all(plan.items[i].built is not None for i in default)
    waiting = next(i for i, item in enumerate(plan.items) if not item.checked)
    for selected in (default, default[:2], default[:1] + default[2:], sorted(default + [waiting])):
        fresh = dream.compose_items(plan.snapshot, [plan.items[i] for i in selected])
        assert dream.compose(plan, selected) == fresh, selected


def test_each_items_diff_in_turn_is_its_diff_built_afresh(rules_root: tuple[Path, Path]) -> None:
    """:func:`dream.item_diffs` applies each selected item once on the way; every item's diff is
    still the one built on a fresh state of the selected items before it (and, on the default
    selection, the plan's own)."""
    root, project = rules_root
    plan = plan_dream(load_root(root), NOW, repo=project)
    default = sorted(plan.default)
    waiting = next(i for i, item in enumerate(plan.items) if not item.checked)

    def afresh(position: int, selected: list[int]) -> str:
        state = plan.snapshot
        for i in selected:
            if i < position:
                state = apply_to_snapshot(state, plan.items[i].build(state).ops).snapshot
        return unified_diff(state, plan.items[position].build(state))

    for selected in (default, default[1:], sorted(default + [waiting]), []):
        diffs = list(dream.item_diffs(plan, selected))
        assert len(diffs) == len(plan.items)
        for position, diff in enumerate(diffs):
            assert diff == afresh(position, selected), (selected, position)
            assert dream.item_diff(plan, position, selected) == diff


def test_checking_a_pinned_cluster_merges_it_and_keeps_the_gist_pinned(rules_root: tuple[Path, Path]) -> None:
    root, project = rules_root
    plan = plan_dream(load_root(root), NOW, repo=project)
    pinned_at = next(i for i, item in enumerate(plan.items) if "pool_pinned.md" in item.paths)
    assert plan.items[pinned_at].note.startswith("needs review: pinned")
    preview = dream.preview(plan, plan.default | {pinned_at})
    assert preview.accepted
    write.commit(preview)
    gists = [f for f in load_root(root).files.values() if "pool_pinned.md" in f.frontmatter.names("consolidated_from")]
    assert len(gists) == 1 and gists[0].pinned


# ---------------------------------------------------------------- real folders


def test_dream_on_the_demo_with_history(tmp_path: Path) -> None:
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    index = (root / "MEMORY.md").read_text()
    title_end = index.index("\n") + 1
    (root / "MEMORY.md").write_text(index[:title_end] + HISTORY_BLOCKS[0] + index[title_end:] + HISTORY_BLOCKS[1])
    plan = dream_and_check(root)
    assert {"history", "merge"} <= {item.kind for item in plan.items}


@pytest.mark.parametrize("name", CORPUS_ROOTS)
def test_dream_on_corpus_roots(name: str, tmp_path: Path) -> None:
    source = CORPORA / name
    if not source.is_dir():
        pytest.skip(f"corpus {name} not available at {CORPORA}")
    root = tmp_path / "root"
    shutil.copytree(source, root, symlinks=True)
    for folder, _, names in os.walk(root):  # the corpora are read-only; their copies are not
        Path(folder).chmod(Path(folder).stat().st_mode | stat.S_IWUSR)  # (memtui writes in no
        for name in names:  # folder without a write bit, whoever runs it)
            path = Path(folder, name)
            if not path.is_symlink():
                path.chmod(path.stat().st_mode | stat.S_IWUSR)
    snapshot = load_root(root)
    plan = plan_dream(snapshot, NOW)
    check_rules(snapshot, plan)
    if plan.default:
        dream_and_check(root)


# ---------------------------------------------------------------- the command line


def test_cli_dream_json_dry_run_yes_and_undo(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    root = tmp_path / "demo"
    shutil.copytree(DEMO, root)
    original = files_only(root)
    assert main(["dream", str(root), "--json", "--now", "2026-11-30"]) == 0
    value = json.loads(capsys.readouterr().out)
    assert set(value) >= {"root", "items", "accepted", "findings"} and value["accepted"] is True
    assert all(set(item) >= {"kind", "paths", "reason", "checked"} for item in value["items"])
    assert main(["dream", str(root), "--dry-run", "--now", "2026-11-30"]) == 0
    assert "+++ b/MEMORY.md" in capsys.readouterr().out
    assert files_only(root) == original and not (root / ".memtui").exists()
    assert main(["dream", str(root), "--yes", "--now", "2026-11-30"]) == 0
    assert "applied: dream:" in capsys.readouterr().out
    assert len(list_records(root)) == 1
    assert main(["dream", str(root), "--now", "2026-11-30"]) == 0
    again = capsys.readouterr().out  # nothing checked: at most headroom for the person
    assert "nothing to do" in again or "nothing to apply" in again and "[x]" not in again
    assert main(["undo", str(root)]) == 0
    assert files_only(root) == original


def test_supersede_items_only_for_a_known_direction(make_root: MakeRoot) -> None:
    """Contradictions come from the scan; dream proposes the ordered ones, every one unchecked
    (a contradiction is evidence a person reads), a pinned one saying so."""
    from types import SimpleNamespace

    from memtui.core.dream.plan import _supersede_items
    from memtui.core.judge.consolidate import Contradiction

    root = make_root({
        "MEMORY.md": "# Memory\n\n## Recent\n- [a](a.md) — a\n- [b](b.md) — b\n- [c](c.md) — c\n"
                     "- [d](d.md) — d\n",
        "a.md": topic("A", updated="2026-01-01"), "b.md": topic("B", updated="2026-06-01"),
        "c.md": topic("C", updated="2026-01-01", pinned="true"), "d.md": topic("D", updated="2026-06-01"),
    })
    snapshot = load_root(root)
    found = SimpleNamespace(contradictions=(
        Contradiction("a.md", "b.md", "project", 0.5, 0.5, "always/never", ordered=True),
        Contradiction("a.md", "d.md", "project", 0.5, 0.5, "use/avoid", ordered=False),
        Contradiction("c.md", "d.md", "project", 0.5, 0.5, "use/avoid", ordered=True),
    ))
    items = _supersede_items(snapshot, found)
    assert [(i.paths, i.checked, i.note) for i in items] == [
        (("a.md", "b.md"), False, "needs review: a contradiction, read both sentences"),
        (("c.md", "d.md"), False, "needs review: pinned (c.md)")]
    write.run(snapshot, items[0].build(snapshot))
    assert "superseded_by: b.md" in (root / "a.md").read_text()


def test_dream_leaves_team_memory_alone(make_root: MakeRoot) -> None:
    body = ("Postgres connection pooling: pgbouncer in transaction mode, pool size 40 per replica, "
            "server idle timeout 600 seconds, prepared statements disabled for the pooler.\n")
    root = make_root({
        "MEMORY.md": "# Memory\n\n## Notes\n- [Mine](mine.md) — my note\n- [Lost](team/lost.md) — a lesson "
                     "kept only here, long enough to be worth a file of its own\n",
        "mine.md": topic("Mine"),
        "team/pool_a.md": topic("Postgres connection pooling settings", body=body, updated="2026-10-01"),
        "team/pool_b.md": topic("Postgres connection pooling settings (copy)", body=body, updated="2026-10-02"),
        "team/old.md": topic("Old", superseded_by="team/pool_a.md"),
    })
    snapshot = load_root(root)
    assert any(p.a.startswith("team/") for p in scan(snapshot).pairs)  # there is something to do ...
    plan = plan_dream(snapshot, NOW)
    touched = {p for item in plan.items if item.checked for p in item.paths}
    assert not {p for p in touched if p.startswith("team/")}  # ... and no item does it
    if plan.default:
        changeset = dream.compose(plan, plan.default)
        assert not [op for op in changeset.ops if getattr(op, "path", "").startswith("team/")
                    or getattr(op, "src", "").startswith("team/")]


def test_dream_folds_a_closed_work_item_s_earlier_logs_and_leaves_decisions_to_a_person(make_root: MakeRoot) -> None:
    body = ("Sprint two builds the landing composition data, the copywriting handler and the flow registry "
            "wiring, with tests for each handler and a review of the registry.\n")
    root = make_root({
        "MEMORY.md": "# Memory\n\n## Sessions\n- [Plan](session_2026-05-24_sprint2_plan.md) — sprint 2 plan\n"
                     "- [Why](session_2026-05-24_sprint2_registry-decision.md) — why the registry\n",
        "session_2026-05-24_sprint2_plan.md": topic("Sprint 2 plan", body=body, type_="project"),
        "session_2026-05-24_sprint2_registry-decision.md": topic("Sprint 2 registry decision", body=body,
                                                                 type_="project"),
        "session_2026-05-24_sprint2_closed.md": topic(
            "Sprint 2 closed", type_="project",
            body="Closed. " + body + "Follows session_2026-05-24_sprint2_plan.md.\n"),
    })
    snapshot = load_root(root)
    plan = plan_dream(snapshot, NOW)
    folds = [item for item in plan.items if item.kind == "successor"]
    checked = [item for item in folds if item.checked]
    assert len(checked) == 1 and "session_2026-05-24_sprint2_plan.md" in checked[0].paths
    assert "session_2026-05-24_sprint2_registry-decision.md" not in checked[0].paths
    assert all(item.note.startswith("needs review") for item in folds if not item.checked)
    write.run(snapshot, dream.compose(plan, plan.default))
    after = load_root(root)
    assert "archive/session_2026-05-24_sprint2_plan.md" in after.files
    assert "superseded_by: session_2026-05-24_sprint2_closed.md" in \
        after.files["archive/session_2026-05-24_sprint2_plan.md"].text
    index = after.index.render().decode()
    assert "(session_2026-05-24_sprint2_closed.md)" in index  # the successor takes the entry's place
    assert "(session_2026-05-24_sprint2_registry-decision.md)" in index
    assert not plan_dream(after, NOW).default



def test_the_strong_successors_item_splits_into_one_fold_a_note(make_root: MakeRoot) -> None:
    root = make_root(two_closed_sprints())
    snapshot = load_root(root)
    plan = plan_dream(snapshot, NOW)
    [at] = [i for i, item in enumerate(plan.items) if item.kind == "successor" and item.parts]
    whole = plan.items[at]
    parted = dream.split(plan, at)
    parts = parted.items[at:at + len(whole.parts)]
    assert len(parts) == 2 and all(p.checked and p.kind == "successor" and len(p.paths) == 2 for p in parts)
    assert [p.paths for p in parts] == [("session_2026-05-22_sprint2_plan.md", "session_2026-05-22_sprint2_closed.md"),
                                        ("session_2026-05-23_sprint3_plan.md", "session_2026-05-23_sprint3_closed.md")]
    assert parted.items[:at] == plan.items[:at] and parted.items[at + 2:] == plan.items[at + 1:]
    assert dream.split(parted, at) is parted  # a part splits no further
    refused = dream.DreamPlan(plan.snapshot, plan.items[:at] + (dream._with(whole, checked=False, note="refused"),)
                              + plan.items[at + 1:])
    assert [(p.checked, p.note) for p in dream.split(refused, at).items[at:at + 2]] == [(False, "refused")] * 2
    # checked together the parts change what the whole item changed, byte for byte
    def result(p: dream.DreamPlan) -> tuple[dict[str, str], bytes, bytes]:
        after = dream.preview(p, p.default).after
        return ({k: f.text for k, f in after.files.items()}, after.index.render(),
                after.archive_index.render())

    assert result(parted) == result(plan)
    # one part left out: its earlier note stays where it is, the other is folded
    write.run(snapshot, dream.compose(parted, parted.default - {at}))
    after = load_root(root)
    assert "session_2026-05-22_sprint2_plan.md" in after.files
    assert "archive/session_2026-05-23_sprint3_plan.md" in after.files
