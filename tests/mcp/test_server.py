"""``memtui mcp`` through the SDK's own client: every tool's success and refusal, paths outside
the served roots, the duplicate refusal, a write racing another memtui's change, the journal's
author, the Inbox, and ``memtui undo`` of the agent's write."""

from __future__ import annotations

import gc
import json
import os
import shutil
import sys
import threading
from pathlib import Path
from typing import Any, Callable, Iterator

import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from memtui.cli.main import main
from memtui.core import write
from memtui.core.model.journal import list_records, read_record
from memtui.core.read.store import load_root
from memtui.core.stores import seen
from memtui.core.verbs import lifecycle
from memtui.mcp.door import FROZEN_GROWTH, FROZEN_LOOK, Door
from memtui.mcp.server import build_server

INDEX = """# Memory

## Recent
- [Deploys](project_deploys.md) — deploy on Tuesdays only, never on Fridays
- [Lint](feedback_lint.md) — run ruff and mypy before every commit
- [Old build](project_old_build.md) — the build ran on Jenkins
"""

FILES = {
    "MEMORY.md": INDEX,
    "project_deploys.md": "---\nname: Deploys\ndescription: deploy on Tuesdays only\ntype: project\n---\n\n"
                          "We deploy on Tuesdays only, after the release freeze lifts at noon. "
                          "Never deploy on Fridays: nobody is around to roll back.\n",
    "feedback_lint.md": "---\nname: Lint before commit\ndescription: run ruff and mypy\ntype: feedback\n---\n\n"
                        "Run ruff and mypy --strict before every commit; CI rejects warnings.\n",
    "project_old_build.md": "---\nname: Old build\ndescription: Jenkins\ntype: project\n---\n\n"
                            "The build ran on Jenkins at build.internal.\n",
}

SESSION = "5f0c2d7e-0000-4000-8000-0123456789ab"


@pytest.fixture
def root(make_root: Callable[..., Path]) -> Path:
    return make_root(dict(FILES), name="memory")


def door_of(*roots: Path, **kw: Any) -> Door:
    return Door(list(roots), session=SESSION, **kw)


async def call(door: Door, tool: str, **args: Any) -> tuple[bool, str]:
    """One tool call through the SDK's client (in process): (is_error, text)."""
    async with Client(build_server(door)) as client:
        result = await client.call_tool(tool, args, meta={"claudecode/toolUseId": "toolu_test_1"})
    assert len(result.content) == 1
    return bool(result.is_error), result.content[0].text  # type: ignore[union-attr]


def refused(text: str, tool: str) -> str:
    """The model's words after the SDK's prefix (what a ToolError reads as)."""
    prefix = f"Error executing tool {tool}: "
    assert text.startswith(prefix), text
    return text[len(prefix):]


def records(root: Path) -> list[dict[str, Any]]:
    return [read_record(root, r) for r in list_records(root) if r.state == "committed"]


# ---------------------------------------------------------------- the tools as the client sees them


async def test_the_ten_tools_are_listed_with_their_descriptions(root: Path) -> None:
    async with Client(build_server(door_of(root))) as client:
        tools = (await client.list_tools()).tools
    names = [t.name for t in tools]
    assert names == ["memory_search", "memory_read", "memory_loaded", "memory_validate", "memory_remember",
                     "memory_update", "memory_supersede", "memory_archive", "memory_restore", "memory_merge"]
    assert all(t.description and len(t.description) > 40 for t in tools)
    assert all(t.output_schema is None for t in tools)  # plain text, not {"result": …} JSON
    remember = next(t for t in tools if t.name == "memory_remember")
    assert remember.input_schema["required"] == ["title", "body"]
    assert "ctx" not in remember.input_schema["properties"]


async def test_search_ranks_the_title_first_and_says_what_loads(root: Path) -> None:
    error, text = await call(door_of(root), "memory_search", query="deploy")
    assert not error
    lines = text.splitlines()
    assert lines[0] == "1 note matches 'deploy' (3 searched):"
    assert lines[1] == ("1. project_deploys.md: Deploys — deploy on Tuesdays only, never on Fridays "
                        "[loads at session start]")
    assert lines[2] == "   matched title: 'deploy'"
    error, text = await call(door_of(root), "memory_search", query="jenkins build")
    assert not error and "project_old_build.md" in text
    error, text = await call(door_of(root), "memory_search", query="kubernetes")
    assert not error and text.startswith("no note holds every word of 'kubernetes'")


async def test_search_refuses_an_empty_query(root: Path) -> None:
    error, text = await call(door_of(root), "memory_search", query="   ")
    assert error and refused(text, "memory_search") == "give a few words to search for"


async def test_read_gives_the_text_and_where_it_stands(root: Path) -> None:
    error, text = await call(door_of(root), "memory_read", path="feedback_lint.md")
    assert not error
    head, body = text.split("\n", 1)
    size = len(FILES["feedback_lint.md"].encode())
    assert head == (f"feedback_lint.md ({size} bytes; loads at session start; its entry: run ruff and mypy "
                    "before every commit)")
    assert body == FILES["feedback_lint.md"]
    error, text = await call(door_of(root), "memory_read", path=str(root / "project_deploys.md"))
    assert not error and "Never deploy on Fridays" in text


@pytest.mark.parametrize("path", ["/etc/passwd", "../outside.md", "~/notes.md"])
async def test_a_path_outside_the_served_roots_is_refused(root: Path, path: str) -> None:
    (root.parent / "outside.md").write_text("secret\n")
    for tool, args in (("memory_read", {"path": path}), ("memory_archive", {"path": path}),
                       ("memory_update", {"path": path, "body": "x"})):
        error, text = await call(door_of(root), tool, **args)
        assert error
        said = refused(text, tool)
        assert "outside the memory folders" in said or "leaves the memory folder" in said
    assert not list_records(root)


async def test_read_of_a_missing_note_suggests_search(root: Path) -> None:
    error, text = await call(door_of(root), "memory_read", path="nope.md")
    assert error and refused(text, "memory_read") == \
        "no memory file nope.md; memory_search finds notes by their words"


async def test_loaded_says_where_the_loader_cuts(make_root: Callable[..., Path]) -> None:
    long = make_root({"MEMORY.md": "# Memory\n" + "".join(f"- line {i} of prose\n" for i in range(204))
                      + "- [Deploys](project_deploys.md) — past the cut\n",
                      "project_deploys.md": FILES["project_deploys.md"]}, name="long")
    error, text = await call(door_of(long), "memory_loaded")
    assert not error
    assert text.splitlines()[0].startswith("MEMORY.md: 206 of 200 lines, ")
    assert "The loader cuts it at line 201: 1 entry past the cut never load:" in text
    assert "  - line 206: - [Deploys](project_deploys.md) — past the cut" in text


async def test_loaded_and_validate_refuse_a_folder_that_went(root: Path) -> None:
    door = door_of(root)
    assert not (await call(door, "memory_validate"))[0]
    for f in root.iterdir():
        f.unlink() if f.is_file() else None
    root.rmdir() if not any(root.iterdir()) else None
    for tool in ("memory_loaded", "memory_validate"):
        error, text = await call(door, tool)
        assert error and "memory folder cannot be read" in refused(text, tool)


async def test_validate_lists_the_findings(root: Path) -> None:
    (root / "stray.md").write_text("---\nname: Stray\ndescription: d\ntype: project\n---\n\nunreached\n")
    error, text = await call(door_of(root), "memory_validate")
    assert not error
    assert text.splitlines()[0].startswith("1 error, 0 warnings; MEMORY.md 6 of 200 lines, ")
    assert text.splitlines()[1].startswith("- error orphan stray.md — ")


# ---------------------------------------------------------------- remember


async def test_remember_writes_the_note_and_its_entry_as_the_agents_change(root: Path) -> None:
    error, text = await call(door_of(root), "memory_remember", title="Release notes live in docs",
                             body="The release notes are written in docs/releases/, one file a version.",
                             type="reference", hook="release notes: docs/releases/, one file a version")
    assert not error, text
    # the folder names its files by type (feedback_…, project_…): so does the new one
    first, second = text.splitlines()
    assert first == ("Remembered as reference_release_notes_live_in_docs.md, with its entry in MEMORY.md: "
                     "- [Release notes live in docs](reference_release_notes_live_in_docs.md) — release notes: "
                     "docs/releases/, one file a version")
    assert second.startswith("MEMORY.md is now 7 of 200 lines, ")
    note = (root / "reference_release_notes_live_in_docs.md").read_text()
    assert "type: reference" in note and note.endswith("one file a version.\n")
    [record] = records(root)
    assert record["verb"] == "remember"
    assert record["by"] == {"kind": "agent", "via": "mcp", "session": SESSION, "tool": "memory_remember",
                            "tool_use": "toolu_test_1"}


async def test_remember_refuses_a_near_duplicate_and_names_it(root: Path) -> None:
    error, text = await call(door_of(root), "memory_remember", title="Deploy days",
                             body="We deploy on Tuesdays only, after the release freeze lifts at noon. "
                                  "Never deploy on Fridays.")
    assert error
    said = refused(text, "memory_remember")
    assert said.startswith("not remembered: project_deploys.md ('Deploys') already holds this (")
    assert "Update project_deploys.md instead (memory_update with the new body)" in said
    assert sorted(p.name for p in root.iterdir()) == sorted(FILES)  # nothing written
    assert not list_records(root)


async def test_remember_refuses_an_over_budget_index_then_succeeds_after_room_is_made(
        make_root: Callable[..., Path]) -> None:
    lines = "".join(f"- [Note {i}](note_{i:03d}.md) — fact number {i} about topic {i}\n" for i in range(197))
    files: dict[str, str | bytes] = {"MEMORY.md": "# Memory\n\n## Recent\n" + lines}
    for i in range(197):
        files[f"note_{i:03d}.md"] = (f"---\nname: Note {i}\ndescription: fact {i}\ntype: project\n---\n\n"
                                     f"Fact number {i} about topic {i}.\n")
    full = make_root(files, name="full")
    door = door_of(full)
    args = {"title": "Cache warm-up", "body": "The cache warms up from the nightly snapshot at 02:00."}
    error, text = await call(door, "memory_remember", **args)
    assert error
    said = refused(text, "memory_remember")
    assert said.startswith("refused by memtui's validator — remember cache_warm_up.md; nothing was written:")
    assert "- budget-lines MEMORY.md:201 — 201 lines, over the loader's 200" in said
    assert "- budget: MEMORY.md would grow from 200 to 201 lines while over its 200-line cap" in said
    assert "Make room first: archive a note that no longer holds (memory_archive)" in said
    assert not (full / "cache_warm_up.md").exists() and not list_records(full)
    assert not (await call(door, "memory_archive", path="note_000.md"))[0]
    error, text = await call(door, "memory_remember", **args)
    assert not error, text
    assert (full / "cache_warm_up.md").is_file()


async def test_remember_refuses_an_unknown_type_and_an_empty_title(root: Path) -> None:
    error, text = await call(door_of(root), "memory_remember", title="X y z", body="b", type="decision")
    assert error and refused(text, "memory_remember").startswith("type 'decision' is not one of user, feedback")
    error, text = await call(door_of(root), "memory_remember", title="  ", body="b")
    assert error and "give the note a title" in text


# ---------------------------------------------------------------- the other changes


async def test_update_changes_the_body_and_the_hook_as_one_change(root: Path) -> None:
    error, text = await call(door_of(root), "memory_update", path="feedback_lint.md",
                             body="Run ruff, mypy --strict and lint-imports before every commit.",
                             hook="ruff, mypy --strict and lint-imports before every commit")
    assert not error, text
    assert text == "Updated feedback_lint.md: update feedback_lint.md (body and hook)."
    note = (root / "feedback_lint.md").read_text()
    assert note.startswith("---\nname: Lint before commit\ndescription: run ruff and mypy\ntype: feedback\nupdated: ")
    assert note.endswith("\n---\n\nRun ruff, mypy --strict and lint-imports before every commit.\n")
    assert "- [Lint](feedback_lint.md) — ruff, mypy --strict and lint-imports before every commit\n" in \
        (root / "MEMORY.md").read_text()
    assert len(records(root)) == 1


async def test_update_refuses_nothing_to_change_and_an_archived_note(root: Path) -> None:
    error, text = await call(door_of(root), "memory_update", path="feedback_lint.md")
    assert error and refused(text, "memory_update") == "give the new body, the new hook, or both"
    assert not (await call(door_of(root), "memory_archive", path="project_old_build.md"))[0]
    error, text = await call(door_of(root), "memory_update", path="archive/project_old_build.md", body="x")
    assert error and "is archived; restore it first (memory_restore)" in refused(text, "memory_update")


async def test_supersede_and_its_refusal(root: Path) -> None:
    error, text = await call(door_of(root), "memory_supersede", old="project_old_build.md", new="project_deploys.md")
    assert not error, text
    assert "status: superseded" in (root / "project_old_build.md").read_text()
    assert "superseded_by: project_deploys.md" in (root / "project_old_build.md").read_text()
    error, text = await call(door_of(root), "memory_supersede", old="feedback_lint.md", new="feedback_lint.md")
    assert error and refused(text, "memory_supersede") == "a file cannot supersede itself"


async def test_archive_restore_and_their_refusals(root: Path) -> None:
    door = door_of(root)
    error, text = await call(door, "memory_archive", path="project_old_build.md")
    assert not error and text == "Archived: project_old_build.md → archive/project_old_build.md."
    assert (root / "archive/project_old_build.md").is_file()
    error, text = await call(door, "memory_archive", path="archive/project_old_build.md")
    assert error and refused(text, "memory_archive") == \
        "nothing to do: 'archive/project_old_build.md' is already archived"
    error, text = await call(door, "memory_restore", path="archive/project_old_build.md")
    assert not error and text == "Restored: archive/project_old_build.md → project_old_build.md."
    error, text = await call(door, "memory_restore", path="project_old_build.md")
    assert error and refused(text, "memory_restore") == "'project_old_build.md' is not archived"


async def test_merge_and_its_refusal(root: Path) -> None:
    error, text = await call(door_of(root), "memory_merge", paths=["project_deploys.md", "project_old_build.md"],
                             title="Deploys and the build")
    assert not error, text
    assert text.startswith("Merged: project_deploys.md, project_old_build.md → ")
    gist = text.split(" → ")[1].rstrip(".")
    assert "name: Deploys and the build" in (root / gist).read_text()
    assert (root / "archive/project_deploys.md").is_file()
    error, text = await call(door_of(root), "memory_merge", paths=["feedback_lint.md", "feedback_lint.md"])
    assert error and refused(text, "memory_merge") == "give two or more different notes to merge"


# ---------------------------------------------------------------- others' changes, races, undo


async def test_a_change_made_by_another_writer_is_seen_before_the_next_call(root: Path) -> None:
    door = door_of(root)
    assert "0 errors" in (await call(door, "memory_validate"))[1]
    (root / "project_deploys.md").write_text(FILES["project_deploys.md"] + "Also Mondays since May.\n")
    (root / "stray.md").write_text("---\nname: Stray\ndescription: d\ntype: project\n---\n\nunreached\n")
    error, text = await call(door, "memory_read", path="project_deploys.md")
    assert not error and text.endswith("Also Mondays since May.\n")
    assert "- error orphan stray.md" in (await call(door, "memory_validate"))[1]


async def test_busy_when_another_memtui_holds_the_lock_and_nothing_is_written(root: Path) -> None:
    door = door_of(root, lock_timeout=0.2)
    held, done = threading.Event(), threading.Event()

    def app() -> None:
        with write.root_lock(root):
            held.set()
            done.wait(30)

    thread = threading.Thread(target=app)
    thread.start()
    held.wait(30)
    try:
        error, text = await call(door, "memory_remember", title="Cache warm-up", body="Warms at 02:00 nightly.")
    finally:
        done.set()
        thread.join()
    assert error and refused(text, "memory_remember").startswith("busy: ")
    assert "Nothing was changed; call again in a moment." in text
    assert not (root / "project_cache_warm_up.md").exists() and not list_records(root)


async def test_the_apps_change_committed_while_the_agents_waits_is_kept(root: Path,
                                                                        monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent's change is planned, then another memtui (the app) commits before it takes the
    lock: it is planned again on the app's result, and both changes are there."""
    planned, go = threading.Event(), threading.Event()
    real_plan = write.plan
    calls = []

    def plan(snapshot: Any, changeset: Any, *args: Any, **kw: Any) -> Any:
        calls.append(changeset.verb)
        preview = real_plan(snapshot, changeset, *args, **kw)
        if len(calls) == 1 and changeset.verb == "remember":
            planned.set()
            go.wait(30)
        return preview

    monkeypatch.setattr(write, "plan", plan)

    def app() -> None:
        planned.wait(30)
        outcome = write.attempt(root, lambda s: real_plan(s, lifecycle.pin(s, "feedback_lint.md")))
        assert outcome.record_id is not None
        go.set()

    thread = threading.Thread(target=app)
    thread.start()
    try:
        error, text = await call(door_of(root), "memory_remember", title="Cache warm-up",
                                 body="The cache warms up from the nightly snapshot at 02:00.")
    finally:
        go.set()
        thread.join()
    assert not error, text
    assert calls == ["remember", "remember"]  # planned again under the lock
    index = (root / "MEMORY.md").read_text()
    assert "## Pinned\n- [Lint](feedback_lint.md)" in index  # the app's pin
    assert "(project_cache_warm_up.md)" in index  # and the agent's note
    assert [r.get("by", {}).get("kind") for r in records(root)] == [None, "agent"]


async def test_a_file_changed_on_disk_meanwhile_is_refused_and_nothing_is_lost(
        root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Another program (the agent's own plain Write) rewrites the note between the agent's
    plan and its commit: the change is refused as changed on disk, the other bytes stay."""
    real_update = lifecycle.update
    theirs = FILES["feedback_lint.md"] + "Written by someone else meanwhile.\n"

    def update(*args: Any, **kw: Any) -> Any:
        changeset = real_update(*args, **kw)
        (root / "feedback_lint.md").write_text(theirs)
        return changeset

    monkeypatch.setattr(lifecycle, "update", update)
    error, text = await call(door_of(root), "memory_update", path="feedback_lint.md", body="New body.")
    assert error
    said = refused(text, "memory_update")
    assert said.startswith("changed on disk: ") and "nothing was lost" in said
    assert (root / "feedback_lint.md").read_text() == theirs
    assert not records(root)


async def test_the_agents_write_is_in_the_inbox_and_memtui_undo_takes_it_back(
        root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {p.name: p.read_bytes() for p in root.iterdir() if p.is_file()}
    error, text = await call(door_of(root), "memory_remember", title="Cache warm-up",
                             body="The cache warms up from the nightly snapshot at 02:00.")
    assert not error, text
    inbox = seen.inbox(load_root(root))
    assert sorted((c.kind, c.path) for c in inbox.changes) == [("added", "project_cache_warm_up.md"),
                                                                ("changed", "MEMORY.md")]
    assert all(c.by is not None and c.by.session == SESSION and c.record == "00000001-do" for c in inbox.changes)
    assert main(["changes", str(root), "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)["changes"]
    assert {c["by"]["kind"] for c in listed} == {"agent"} and all("+++ b/" in c["diff"] for c in listed)
    assert main(["undo", str(root)]) == 0
    assert "undo: remember project_cache_warm_up.md" in capsys.readouterr().out
    assert {p.name: p.read_bytes() for p in root.iterdir() if p.is_file()} == before
    assert seen.inbox(load_root(root)).changes == ()


# ---------------------------------------------------------------- over stdio, as Claude Code starts it


async def test_memtui_mcp_serves_over_stdio(root: Path, tmp_path: Path) -> None:
    params = StdioServerParameters(command=sys.executable, args=["-m", "memtui", "mcp", str(root)],
                                   env={**os.environ, "CLAUDE_CODE_SESSION_ID": SESSION}, cwd=str(tmp_path))
    async with Client(params) as client:
        result = await client.call_tool("memory_remember", {"title": "Cache warm-up",
                                                            "body": "Warms up from the nightly snapshot."})
    assert not result.is_error, result.content
    [record] = records(root)
    assert record["by"]["session"] == SESSION


def test_memtui_mcp_refuses_a_folder_that_is_not_a_root(tmp_path: Path,
                                                        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["mcp", str(tmp_path)]) == 2
    assert "not a memory root (no MEMORY.md there)" in capsys.readouterr().err


def test_without_roots_it_serves_the_projects_memory_from_claude_project_dir(tmp_path: Path) -> None:
    from memtui.cli.mcp import default_roots
    from memtui.core.model.claude_settings import encode_project_path

    project, config = tmp_path / "project", tmp_path / "config"
    (project / "sub").mkdir(parents=True)
    (project / ".git").mkdir()  # the launch folder's repository: the auto memory is named after it
    env = {"HOME": str(tmp_path / "home"), "CLAUDE_CONFIG_DIR": str(config),
           "CLAUDE_PROJECT_DIR": str(project)}
    auto = config / "projects" / encode_project_path(str(project)) / "memory"
    assert default_roots(env) == [auto]  # no memory yet: the folder the first note makes
    assert default_roots({**env, "CLAUDE_CODE_DISABLE_AUTO_MEMORY": "1"}) == []  # and nowhere to write
    auto.mkdir(parents=True)
    (auto / "MEMORY.md").write_text("- [A](a.md) — a\n")
    shared = project / ".claude" / "memory"
    shared.mkdir(parents=True)
    (shared / "MEMORY.md").write_text("- [B](b.md) — b\n")
    assert default_roots(env) == [auto, shared]  # the auto memory first, then the layers


async def test_a_projects_first_note_makes_its_memory_folder(tmp_path: Path) -> None:
    folder = tmp_path / "projects" / "-work-app" / "memory"  # not made yet, nor its parents
    door = door_of(folder)
    error, text = await call(door, "memory_loaded")
    assert not error and "no memory folder yet" in text
    error, text = await call(door, "memory_search", query="deploy")
    assert error and "no memory yet" in refused(text, "memory_search")
    assert not folder.parent.exists()  # a read makes nothing
    error, text = await call(door, "memory_remember", title="Deploys are blue-green",
                             body="We deploy by switching the load balancer between two pools.",
                             type="project")
    assert not error and text.startswith("Remembered as deploys_are_blue_green.md"), text
    assert (folder / "MEMORY.md").read_text().count("deploys_are_blue_green.md") == 1
    assert [r["by"]["kind"] for r in records(folder)] == ["agent"]
    error, text = await call(door, "memory_loaded")
    assert not error and "Everything in it loads at session start" in text


async def test_a_served_folder_that_went_is_not_made_again(root: Path) -> None:
    door = door_of(root)
    assert not (await call(door, "memory_loaded"))[0]
    shutil.rmtree(root)
    error, text = await call(door, "memory_remember", title="A new fact", body="Something new.",
                             type="project")
    assert error and "memory folder cannot be read" in refused(text, "memory_remember")
    assert not root.exists()


@pytest.fixture
def thawed() -> Iterator[None]:
    """The collector as it was: a test that freezes the heap unfreezes it after."""
    yield
    gc.unfreeze()


async def test_a_door_that_freezes_its_heap_answers_as_one_that_does_not(root: Path, tmp_path: Path,
                                                                         thawed: None) -> None:
    plain_root = tmp_path / "plain"
    shutil.copytree(root, plain_root)
    frozen, plain = door_of(root, freeze_heap=True), door_of(plain_root)
    gc.unfreeze()
    for tool, args in (("memory_validate", {}), ("memory_remember", {
            "title": "Release notes live in docs", "body": "One file a version, in docs/releases/.",
            "type": "reference"}), ("memory_archive", {"path": "project_old_build.md"}),
            ("memory_search", {"query": "deploy"})):
        assert await call(frozen, tool, **args) == await call(plain, tool, **args)
        assert gc.get_freeze_count() > 0  # what the call left alive is out of the collector's walks
    assert (root / "MEMORY.md").read_text() == (plain_root / "MEMORY.md").read_text()


def test_the_frozen_heap_is_collected_once_it_grew(root: Path, thawed: None) -> None:
    door = door_of(root, freeze_heap=True)
    door.validate()
    frozen = door._frozen
    assert 0 < gc.get_freeze_count() <= frozen
    cycles = []
    for _ in range(int(frozen * FROZEN_GROWTH) + 10):  # garbage the collector never sees while frozen
        cycle: list[Any] = []
        cycle.append(cycle)
        cycles.append(cycle)
    gc.freeze()
    del cycles, cycle
    assert gc.get_freeze_count() > frozen * (1 + FROZEN_GROWTH)
    for _ in range(FROZEN_LOOK - 1):  # looked at once in so many calls
        door.validate()
    assert gc.get_freeze_count() > frozen * (1 + FROZEN_GROWTH)
    door.validate()  # grown past its share: collected, and frozen again
    assert gc.get_freeze_count() <= frozen * (1 + FROZEN_GROWTH)
