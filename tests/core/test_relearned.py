"""The same lesson in many projects (:mod:`memtui.core.verbs.relearned`): found by the consolidation
scan's scoring across roots, promoted to the user layer with the other copies archived — one
change across every root, one undo, and ``memtui scan --all`` / ``promote --retire`` on top."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core import write
from memtui.core.model.changeset import VerbError
from memtui.core.model.journal import list_records
from memtui.core.read.store import load_root
from memtui.core.verbs.relearned import relearned_change, relearned_changes, relearned_notes, scan_machine
from tests.support.roots import topic
from tests.support.writer import tree

LESSON = ("Always run the database migrations in a transaction before deploying, and roll the "
          "migration back by hand when the deploy fails halfway through.\n")


def project(tmp_path: Path, name: str, lesson: str | None, mtime: float, extra: str = "") -> Path:
    """``<config>/projects/<name>/memory`` with a feedback lesson (or none), a project note and
    its index; the lesson's modification time set (the newest copy is the one kept)."""
    root = tmp_path / "claude" / "projects" / name / "memory"
    root.mkdir(parents=True)
    index = "# Memory\n\n## Recent\n- [Deploy notes](project_deploy.md) — how this one ships\n"
    (root / "project_deploy.md").write_text(topic("Deploy notes", "how this one ships", "project",
                                                  LESSON if lesson else "Ships by hand.\n"))
    if lesson is not None:
        index += "- [Migrations in a transaction](feedback_migrations.md) — migrate safely\n"
        (root / "feedback_migrations.md").write_text(
            topic("Migrations in a transaction", "migrate safely", "feedback", lesson + extra))
        os.utime(root / "feedback_migrations.md", (mtime, mtime))
    (root / "MEMORY.md").write_text(index)
    return root


@pytest.fixture
def fleet(tmp_path: Path) -> tuple[list[Path], Path]:
    """Three projects that learnt the same lesson, one that did not, and an empty user layer."""
    roots = [project(tmp_path, "-w-a", LESSON, 1_700_000_000),
             project(tmp_path, "-w-b", LESSON, 1_700_000_900, "Said again in March.\n"),
             project(tmp_path, "-w-c", LESSON, 1_700_000_500),
             project(tmp_path, "-w-d", None, 0)]
    user = tmp_path / "claude" / "memory"
    user.mkdir()
    (user / "MEMORY.md").write_text("# Memory\n\n## Recent\n")
    return roots, user


def test_a_lesson_in_three_projects_is_one_proposal(fleet) -> None:
    roots, user = fleet
    found = relearned_notes([load_root(r) for r in [*roots, user]], user_layer=user)
    assert len(found) == 1
    note = found[0]
    assert (note.kept.root, note.kept.path) == (roots[1], "feedback_migrations.md")  # the newest
    assert {c.root for c in note.retired} == {roots[0], roots[2]}
    # the project notes share the lesson's words but are project notes: they do not travel
    assert all(c.path == "feedback_migrations.md" for c in note.copies)


def test_two_layers_of_one_project_are_not_a_lesson_relearned(tmp_path: Path) -> None:
    repo = tmp_path / "work" / "proj"
    (repo / ".git").mkdir(parents=True)
    shared = repo / "memory"
    shared.mkdir()
    (shared / "MEMORY.md").write_text("# M\n- [M](feedback_migrations.md) — m\n")
    (shared / "feedback_migrations.md").write_text(topic("Migrations in a transaction", "m", "feedback", LESSON))
    agent = repo / ".claude" / "agent-memory" / "dev"
    agent.mkdir(parents=True)
    (agent / "MEMORY.md").write_text("# M\n- [M](feedback_migrations.md) — m\n")
    (agent / "feedback_migrations.md").write_text(topic("Migrations in a transaction", "m", "feedback", LESSON))
    assert relearned_notes([load_root(shared), load_root(agent)]) == []


def test_the_promotion_across_four_roots_is_one_change_and_one_undo(fleet) -> None:
    roots, user = fleet
    everything = [*roots[:3], user]
    before = {root: tree(root) for root in everything}
    snapshots = [load_root(r) for r in roots[:3]]
    note = relearned_notes(snapshots, user_layer=user)[0]
    group = write.plan_group(relearned_change(note, snapshots, load_root(user)))
    assert group.accepted, group.refusal_message()
    applied = write.commit_group(group)
    assert len(applied.record_ids) == 4
    promoted = (user / "feedback_migrations.md").read_text()
    assert "promoted_from: " in promoted and "Said again in March." in promoted
    assert "feedback_migrations.md" in (user / "MEMORY.md").read_text()
    for root in roots[:3]:
        assert not (root / "feedback_migrations.md").exists()
        assert (root / "archive" / "feedback_migrations.md").exists()
        archive = (root / "MEMORY-archive.md").read_text()
        assert f"({(user / 'feedback_migrations.md').as_uri()})" in archive
        assert "feedback_migrations.md" not in (root / "MEMORY.md").read_text()
        assert len(list_records(root)) == 1
    # the copies archived are byte-identical to what they were
    assert (roots[0] / "archive" / "feedback_migrations.md").read_bytes() == before[roots[0]]["feedback_migrations.md"]
    write.undo(write.open_root(roots[2]))  # one undo, from any of them
    assert {root: tree(root) for root in everything} == before


def test_a_refusal_in_one_root_changes_none(fleet) -> None:
    roots, user = fleet
    (user / "MEMORY.md").write_text("# Memory\n\n## Recent\n" + "".join(f"line {i}\n" for i in range(197)))
    everything = [*roots[:3], user]
    before = {root: tree(root, include_memtui=True) for root in everything}
    snapshots = [load_root(r) for r in roots[:3]]
    note = relearned_notes(snapshots, user_layer=user)[0]
    group = write.plan_group(relearned_change(note, snapshots, load_root(user)))
    assert not group.accepted and str(group.refused.before.root) == str(user)
    with pytest.raises(write.Refused):
        write.commit_group(group)
    assert {root: tree(root, include_memtui=True) for root in everything} == before


def test_scan_all_proposes_and_promote_retire_applies(fleet, tmp_path, monkeypatch, capsys) -> None:
    roots, user = fleet
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    assert main(["scan", "--all", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert data["user_layer"] == str(user) and data["user_layer_exists"]
    [note] = data["relearned"]
    assert note["kept"]["root"] == str(roots[1])
    command = note["command"].split()
    assert command[:2] == ["memtui", "promote"] and "--retire" in command
    before = {root: tree(root) for root in [*roots[:3], user]}
    assert main([*command[1:], "--dry-run"]) == 0
    assert "the validator accepts" in capsys.readouterr().out
    assert {root: tree(root) for root in [*roots[:3], user]} == before
    assert main(command[1:]) == 0
    assert "one change in all 4 roots" in capsys.readouterr().out
    assert (user / "feedback_migrations.md").exists()
    assert main(["undo", str(roots[0])]) == 0
    assert {root: tree(root) for root in [*roots[:3], user]} == before


OTHER = ("Never force-push to a shared branch: open a revert commit instead, so that nobody's "
         "history is rewritten under them.\n")


def test_two_notes_in_the_same_roots_are_one_change_with_each_root_once(fleet) -> None:
    roots, user = fleet
    for root in roots[:2]:
        (root / "feedback_force_push.md").write_text(topic("No force-push", "revert", "feedback", OTHER))
        with (root / "MEMORY.md").open("a") as index:
            index.write("- [No force-push](feedback_force_push.md) — revert instead\n")
    everything = [*roots[:3], user]
    before = {root: tree(root) for root in everything}
    snapshots = [load_root(r) for r in roots[:3]]
    notes = relearned_notes(snapshots, user_layer=user)
    assert sorted(n.kept.path for n in notes) == ["feedback_force_push.md", "feedback_migrations.md"]
    parts = relearned_changes(notes, snapshots, load_root(user))
    assert sorted(str(s.root) for s, _ in parts) == sorted(str(r) for r in everything)
    group = write.plan_group(parts)
    assert group.accepted, group.refusal_message()
    write.commit_group(group)
    assert {"feedback_force_push.md", "feedback_migrations.md"} <= set(os.listdir(user))
    for root in roots[:2]:
        assert len(list_records(root)) == 1  # both notes in one record of each root
        assert not (root / "feedback_force_push.md").exists()
    write.undo(write.open_root(user))
    assert {root: tree(root) for root in everything} == before


def test_no_note_chosen_is_nothing_to_do(fleet) -> None:
    _, user = fleet
    with pytest.raises(VerbError, match="nothing to do"):
        relearned_changes([], [], load_root(user))


def test_the_machine_scan_reads_every_root_and_says_how_far_it_is(fleet, tmp_path, monkeypatch) -> None:
    roots, user = fleet
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(tmp_path / "claude"))
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    seen: list[tuple[int, int]] = []
    scan = scan_machine(progress=lambda done, total: seen.append((done, total)))
    assert {str(s.root) for s in scan.snapshots} == {str(r) for r in [*roots, user]}
    assert seen[0] == (0, 5) and seen[-1] == (5, 5)
    assert scan.user_layer == user and scan.layer_ready
    assert [n.kept.root for n in scan.notes] == [roots[1]]
    stopped = scan_machine(cancelled=lambda: True)
    assert stopped.snapshots == () and stopped.notes == ()
