"""Review of the agent's writes: revert through the gate, the writing session, the unseen count.

The folder is the one the Claude Code 2.1.332 harness started from (``memory-before.json``),
seen by memtui, then changed to what the agent left (``memory-after.json``: ``code_style.md``
edited, ``release_train.md`` written, both with Claude Code's ``originSessionId``).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core import write
from memtui.core.model.changeset import Refusal
from memtui.core.model.journal import list_records
from memtui.core.read.store import load_root
from memtui.core.stores import seen
from memtui.core.verbs import review

DATA = Path(__file__).parent / "data" / "transcripts"
AGENT = "fd15f464-5cc2-4836-b6ae-97af12d431c7"


@pytest.fixture
def root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The harness's starting folder, seen by memtui, then written by the agent."""
    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(tmp_path / "cache"))
    root = tmp_path / "memory"
    root.mkdir()
    for name, text in json.loads((DATA / "memory-before.json").read_text()).items():
        (root / name).write_text(text, encoding="utf-8")
    seen.inbox(load_root(root))  # the first look
    for name, text in json.loads((DATA / "memory-after.json").read_text()).items():
        if (root / name).is_file() and (root / name).read_text(encoding="utf-8") == text:
            continue
        (root / name).write_text(text, encoding="utf-8")
    return root


def before(name: str) -> bytes:
    return json.loads((DATA / "memory-before.json").read_text())[name].encode()


def after(name: str) -> bytes:
    return json.loads((DATA / "memory-after.json").read_text())[name].encode()


def test_the_inbox_lists_the_agents_two_writes_with_their_session(root: Path) -> None:
    snapshot = load_root(root)
    inbox = review.with_sessions(seen.inbox(snapshot), snapshot)
    assert sorted((c.kind, c.path, c.session) for c in inbox.changes) == [
        ("added", "release_train.md", AGENT), ("changed", "code_style.md", AGENT)]


def test_the_session_comes_from_the_transcript_when_the_file_does_not_say(root: Path) -> None:
    (root / "code_style.md").write_bytes(before("code_style.md") + b"More.\n")  # no originSessionId
    snapshot = load_root(root)
    inbox = review.with_sessions(seen.inbox(snapshot), snapshot, {"code_style.md": ("s-new", "s-old")})
    assert {c.path: c.session for c in inbox.changes}["code_style.md"] == "s-new"


def test_reverting_an_edit_restores_the_seen_bytes_in_one_undoable_change(root: Path) -> None:
    records = len(list_records(root))
    snapshot = write.open_root(root)
    preview = write.plan(snapshot, review.revert(snapshot, "code_style.md"))
    assert preview.accepted
    write.commit(preview)
    assert (root / "code_style.md").read_bytes() == before("code_style.md")
    assert len(list_records(root)) == records + 1
    assert [c.path for c in seen.inbox(load_root(root)).changes] == ["release_train.md"]
    write.undo(write.open_root(root))
    assert (root / "code_style.md").read_bytes() == after("code_style.md")


def test_reverting_an_added_file_moves_it_to_the_archive(root: Path) -> None:
    snapshot = write.open_root(root)
    preview = write.plan(snapshot, review.revert(snapshot, "release_train.md"))
    assert preview.accepted, preview.refusal_message()
    write.commit(preview)
    assert not (root / "release_train.md").exists()
    assert (root / "archive" / "release_train.md").read_bytes() == after("release_train.md")
    assert "archive/release_train.md" in (root / "MEMORY-archive.md").read_text()


def test_a_revert_the_gate_refuses_says_why(root: Path) -> None:
    """The agent indexed its new file; taking the index back would leave that file an orphan."""
    index = root / "MEMORY.md"
    index.write_bytes(index.read_bytes() + b"- [Release](release_train.md) \xe2\x80\x94 weekly release\n")
    snapshot = load_root(root)
    seen.mark_seen(snapshot, ["release_train.md"])
    snapshot = write.open_root(root)
    preview = write.plan(snapshot, review.revert(snapshot, "MEMORY.md"))
    assert not preview.accepted
    assert [(f.rule, f.path) for f in preview.gate.refusing] == [("orphan", "release_train.md")]
    assert "release_train.md" in preview.refusal_message()
    with pytest.raises(write.Refused):
        write.commit(preview)
    assert b"release_train.md" in index.read_bytes()  # nothing written


def test_nothing_to_revert(root: Path) -> None:
    with pytest.raises(Refusal, match="has not changed outside memtui"):
        review.revert(load_root(root), "build_steps.md")


def test_unseen_count_and_the_session_start_message(root: Path) -> None:
    assert seen.unseen_count(load_root(root)) == 2
    assert seen.unseen_message([(root, 2)]) == \
        "the agent changed 2 memory files since you last looked — memtui changes"
    assert seen.unseen_message([(root, 0)]) is None
    seen.mark_seen(load_root(root))
    assert seen.unseen_count(load_root(root)) == 0


def test_cli_changes_revert(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["changes", str(root), "--revert", "code_style.md"]) == 0
    out = capsys.readouterr().out
    assert "revert code_style.md to the version last seen" in out and "undo with `memtui undo`" in out
    assert (root / "code_style.md").read_bytes() == before("code_style.md")
    assert main(["undo", str(root)]) == 0
    assert (root / "code_style.md").read_bytes() == after("code_style.md")


def test_cli_changes_revert_refused(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    index = root / "MEMORY.md"
    index.write_bytes(index.read_bytes() + b"- [Release](release_train.md) \xe2\x80\x94 weekly\n")
    seen.mark_seen(load_root(root), ["release_train.md"])
    assert main(["changes", str(root), "--revert", "MEMORY.md", "--json"]) == 1
    data = json.loads(capsys.readouterr().out)
    assert data["accepted"] is False and data["findings"][0]["rule"] == "orphan"
    assert main(["changes", str(root), "--revert", "build_steps.md"]) == 1
    assert "has not changed outside memtui" in capsys.readouterr().err


def test_session_start_tells_the_person_about_unseen_writes(tmp_path: Path) -> None:
    import io

    from memtui.cli.hook import run_hook
    from memtui.core.roots.discover import encode_project_path

    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "config")}
    project = tmp_path / "proj"
    project.mkdir()
    auto = tmp_path / "config" / "projects" / encode_project_path(str(project)) / "memory"
    auto.mkdir(parents=True)
    for name, text in json.loads((DATA / "memory-before.json").read_text()).items():
        if name != "MEMORY.md":
            (auto / name).write_text(text, encoding="utf-8")
    (auto / "MEMORY.md").write_text("".join(f"- [{n}]({n}) — {n}\n" for n in sorted(
        p.name for p in auto.iterdir())), encoding="utf-8")
    start = json.dumps({"session_id": "s", "transcript_path": "/tmp/t.jsonl", "cwd": str(project),
                        "hook_event_name": "SessionStart", "source": "startup"}).encode()

    def hook() -> str:
        out = io.StringIO()
        assert run_hook("session-start", False, io.BytesIO(start), out, io.StringIO(), env) == 0
        return out.getvalue()

    assert hook() == ""  # never looked: nothing to compare with, and nothing is written
    assert not (auto / ".memtui").exists()
    seen.inbox(load_root(auto))
    assert hook() == ""
    (auto / "code_style.md").write_bytes(after("code_style.md"))
    assert json.loads(hook()) == {
        "systemMessage": "the agent changed 1 memory file since you last looked — memtui changes"}


def test_a_refused_revert_says_which_to_do_first_or_both(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The agent wrote a topic file and indexed it: the index alone cannot go back (the file
    would be an orphan); the hint names the other revert, and both go as one change."""
    index = root / "MEMORY.md"
    index.write_bytes(index.read_bytes() + b"- [Release](release_train.md) \xe2\x80\x94 weekly release\n")
    seen.mark_seen(load_root(root), ["code_style.md"])
    assert main(["changes", str(root), "--revert", "MEMORY.md"]) == 1
    out = " ".join(capsys.readouterr().out.split())
    assert ("MEMORY.md cannot be reverted alone; revert release_train.md instead: taking it back "
            "takes its line out of MEMORY.md too, which is then as last seen: memtui changes "
            "--revert release_train.md") in out
    assert main(["changes", str(root), "--revert", "MEMORY.md", "--revert", "release_train.md"]) == 0
    assert index.read_bytes() == before("MEMORY.md")
    assert not (root / "release_train.md").exists() and (root / "archive" / "release_train.md").is_file()
    assert len(list_records(root)) == 1  # one change, one undo
