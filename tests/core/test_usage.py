"""Evidence of use from Claude Code transcripts (DESIGN §12).

The fixtures in ``data/transcripts`` were written by Claude Code 2.1.332 (``VERSION``), run
headless against a loopback stand-in for the Messages API by ``scripts/cc_transcripts.py``:
session 1 reads ``build_steps.md``, follows the index's pointer to ``old_api.md`` (absent) and
reads the unindexed ``scratch_idea.md``; session 2 reads ``build_steps.md`` and
``code_style.md``, edits ``code_style.md`` and writes ``release_train.md``; session 3 reads
nothing.  ``deploy_notes.md`` is indexed and never read.
"""

from __future__ import annotations

import io
import json
import os
import tracemalloc
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memtui.core.judge.usage import evidence, transcripts_folder, usage_of
from memtui.core.model import claude_settings
from memtui.core.read.store import load_root
from memtui.core.stores.transcripts import load_sessions, read_transcript, read_transcript_file
from tests.support.usage import DATA, S1, S2, S3, install_fixtures


@pytest.fixture
def recorded(tmp_path: Path) -> Path:
    return install_fixtures(tmp_path)


def test_fixtures_are_from_a_real_build() -> None:
    assert (DATA / "VERSION").read_text().startswith("2.1.332 (Claude Code)")


def test_each_transcript_read_once_with_its_touches() -> None:
    got = {}
    for n in (1, 2, 3):
        s = read_transcript_file(DATA / f"session{n}.jsonl")
        got[s.session_id] = sorted((t.kind, t.path.rsplit("/", 1)[-1], t.tool) for t in s.touches)
        assert s.skipped == 0 and s.lines > 20 and s.started <= s.ended
    assert got == {
        S1: [("absent", "old_api.md", ""), ("read", "build_steps.md", ""), ("read", "scratch_idea.md", "")],
        S2: [("read", "build_steps.md", ""), ("read", "code_style.md", ""),
             ("write", "code_style.md", "Edit"), ("write", "release_train.md", "Write")],
        S3: [],
    }


def test_each_evidence_kind_found_exactly(recorded: Path) -> None:
    usage = usage_of(load_root(recorded), env={}, home=recorded.parents[3])
    assert usage.folder == recorded.parent
    assert (usage.sessions, usage.total_sessions, usage.skipped) == (3, 3, 0)
    assert usage.active == ("build_steps.md", "code_style.md", "scratch_idea.md")
    assert usage.dead == ("deploy_notes.md",)
    assert usage.missing == ("scratch_idea.md",)
    assert [(h.path, h.sessions, h.index, h.line) for h in usage.hallucinated] == \
        [("old_api.md", (S1,), "MEMORY.md", 4)]
    build = usage.of("build_steps.md")
    assert build is not None and build.read_in == 2 and build.sessions == (S2, S1)
    assert build.last_read.startswith("2026-12-01T09:19:38")
    assert usage.of("release_train.md").writers == (S2,)  # type: ignore[union-attr]
    assert usage.of("release_train.md").read_in == 0  # type: ignore[union-attr]
    assert usage.status("release_train.md") == ""  # written, not indexed, never read
    assert usage.describe("build_steps.md") == "read in 2 of the last 3 sessions, last 2026-12-01"
    assert usage.describe("deploy_notes.md") == "never read in the last 3 sessions — indexed but unused"


def test_the_window_counts_only_the_last_sessions(recorded: Path) -> None:
    usage = usage_of(load_root(recorded), env={}, home=recorded.parents[3], window=2)
    assert usage.sessions == 2 and usage.total_sessions == 3
    assert usage.of("build_steps.md").read_in == 1  # type: ignore[union-attr]
    assert usage.of("scratch_idea.md").read_in == 0  # type: ignore[union-attr]
    assert usage.hallucinated == ()  # session 1 fell out of the window
    assert usage.dead == ("deploy_notes.md",)
    assert usage.describe("scratch_idea.md") == "not read in the last 2 sessions, last 2026-12-01"


def test_read_recently_is_the_dreams_guard(recorded: Path) -> None:
    usage = usage_of(load_root(recorded), env={}, home=recorded.parents[3])
    soon = datetime(2026, 12, 10, tzinfo=timezone.utc)
    later = datetime(2026, 12, 16, tzinfo=timezone.utc)
    assert usage.read_recently("build_steps.md", soon) and not usage.read_recently("build_steps.md", later)
    assert not usage.read_recently("deploy_notes.md", soon)
    assert usage.recently_read(soon) == {"build_steps.md", "code_style.md", "scratch_idea.md"}


def test_no_transcripts_means_nothing_is_dead(tmp_path: Path, make_root) -> None:  # type: ignore[no-untyped-def]
    root = make_root({"MEMORY.md": "- [A](a.md) — a\n", "a.md": "a\n"})
    usage = usage_of(load_root(root), env={}, home=tmp_path / "nohome")
    assert usage.folder is None and usage.dead == () and usage.total_sessions == 0
    assert usage.describe("a.md") == "no Claude Code sessions found for this folder"


def test_a_line_of_unknown_shape_is_skipped_and_counted() -> None:
    good = (DATA / "session1.jsonl").read_bytes()
    bad = b"\n".join([
        b"not json at all",
        b'{"type":"assistant","message":{"content":[{"type":"tool_use"',  # cut mid-line
        b'{"type":"assistant","message":{"content":[{"type":"tool_use","name":"Read","input":{"file_path":7}}]}}',
        b'["tool_use"]',
        b"",
    ])
    session = read_transcript(io.BytesIO(bad + good), "mixed.jsonl")
    assert session.skipped == 4
    assert session.lines == good.count(b"\n") + 4
    assert sorted(t.path.rsplit("/", 1)[-1] for t in session.touches) == \
        ["build_steps.md", "old_api.md", "scratch_idea.md"]


def test_recall_records_count_as_reads() -> None:
    lines = [
        {"type": "attachment", "timestamp": "2026-11-28T10:00:00Z", "sessionId": "s",
         "attachment": {"type": "relevant_memories", "memories": [{"path": "/m/a.md", "content": "x"}]}},
        {"type": "system", "subtype": "memory_recall", "timestamp": "2026-11-28T10:01:00Z",
         "memories": [{"path": "/m/b.md", "scope": "personal"}]},
        {"type": "system", "subtype": "memory_saved", "timestamp": "2026-11-28T10:02:00Z",
         "writtenPaths": ["/m/c.md"]},
    ]
    data = "".join(json.dumps(v) + "\n" for v in lines).encode()
    session = read_transcript(io.BytesIO(data), "s.jsonl")
    assert sorted((t.kind, t.path, t.tool) for t in session.touches) == [
        ("recall", "/m/a.md", ""), ("recall", "/m/b.md", ""), ("write", "/m/c.md", "memory_saved")]
    assert (session.session_id, session.started, session.ended) == \
        ("s", "2026-11-28T10:00:00Z", "2026-11-28T10:02:00Z")


def test_a_refused_write_is_not_a_write() -> None:
    lines = [
        {"type": "assistant", "timestamp": "2026-11-28T10:00:00Z", "message": {"content": [
            {"type": "tool_use", "id": "t1", "name": "Write", "input": {"file_path": "/m/a.md", "content": "x"}}]}},
        {"type": "user", "timestamp": "2026-11-28T10:00:01Z", "message": {"content": [
            {"type": "tool_result", "tool_use_id": "t1", "is_error": True, "content": "denied by hook"}]}},
    ]
    data = "".join(json.dumps(v) + "\n" for v in lines).encode()
    assert read_transcript(io.BytesIO(data)).touches == ()


def _age(folder: Path, seconds: int = 60, pattern: str = "*.jsonl") -> None:
    """Put transcripts' modification times in the past (younger ones are never cached)."""
    for p in folder.glob(pattern):
        st = p.stat()
        os.utime(p, ns=(st.st_atime_ns, st.st_mtime_ns - seconds * 10**9))


def test_evidence_is_cached_by_size_and_mtime(recorded: Path) -> None:
    folder = recorded.parent
    assert load_sessions(folder, [recorded]).from_cache == 0
    assert load_sessions(folder, [recorded]).from_cache == 0  # just written: not cached yet
    _age(folder)
    first = load_sessions(folder, [recorded])
    assert first.from_cache == 0 and len(first.sessions) == 3
    assert not any(p.name.startswith(".memtui") for p in recorded.iterdir())  # nothing in the root
    again = load_sessions(folder, [recorded])
    assert again.from_cache == 3 and again.sessions == first.sessions
    grown = folder / "session3.jsonl"
    with grown.open("a", encoding="utf-8") as out:
        out.write(json.dumps({"type": "assistant", "timestamp": "2026-12-02T00:00:00Z", "message": {
            "content": [{"type": "tool_use", "id": "x", "name": "Read",
                         "input": {"file_path": str(recorded / "deploy_notes.md")}}]}}) + "\n")
    _age(folder, 30, grown.name)
    third = load_sessions(folder, [recorded])
    assert third.from_cache == 2
    assert usage_of(load_root(recorded), folder).dead == ()


def test_a_cache_inside_the_root_is_never_used(recorded: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(recorded / "cache"))
    load_sessions(recorded.parent, [recorded])
    assert not (recorded / "cache").exists()


def test_the_transcripts_folder_of_a_repository_root(tmp_path: Path) -> None:
    repo = tmp_path / "my_repo"
    (repo / ".git").mkdir(parents=True)
    root = repo / "memory"
    root.mkdir()
    config = tmp_path / "cfg"
    encoded = claude_settings.project_dir_name(str(repo))  # discover's naming, tested with it
    (config / "projects" / encoded).mkdir(parents=True)
    env = {"CLAUDE_CONFIG_DIR": str(config)}
    assert transcripts_folder(root, env=env) == config / "projects" / encoded


def test_a_50_mb_transcript_streams_in_bounded_memory(tmp_path: Path) -> None:
    """Every line is a Read of one of 50 files, or filler the size of a system prompt."""
    big = tmp_path / "big.jsonl"
    filler = json.dumps({"type": "attachment", "timestamp": "2026-11-28T10:00:00Z",
                         "attachment": {"type": "prompt_snapshot", "systemPrompt": ["x" * 200_000]}})
    with big.open("w", encoding="utf-8") as out:
        n = 0
        while out.tell() < 50 << 20:
            for i in range(200):
                n += 1
                out.write(json.dumps({"type": "assistant", "timestamp": f"2026-11-28T10:{i % 60:02d}:00Z",
                                      "message": {"content": [{"type": "tool_use", "id": f"t{n}", "name": "Read",
                                                               "input": {"file_path": f"/m/f{n % 50}.md"}}]}}) + "\n")
                out.write(json.dumps({"type": "user", "message": {"content": [
                    {"type": "tool_result", "tool_use_id": f"t{n}", "content": "1\tbody " * 200}]}}) + "\n")
            out.write(filler + "\n")
    assert os.path.getsize(big) >= 50 << 20
    tracemalloc.start()
    try:
        session = read_transcript_file(big)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert len(session.touches) == 50 and sum(t.count for t in session.touches) == n
    assert peak < 8 << 20, f"peak {peak / 1e6:.1f} MB while reading a 50 MB transcript"


def test_evidence_is_pure(recorded: Path) -> None:
    snapshot = load_root(recorded)
    sessions = [read_transcript_file(p) for p in sorted(recorded.parent.glob("*.jsonl"))]
    sessions.sort(key=lambda s: s.ended)
    usage = evidence(snapshot, sessions, [str(recorded)])
    assert usage.dead == ("deploy_notes.md",) and usage.missing == ("scratch_idea.md",)


def test_consulted_recently_names_the_read_and_when(recorded: Path) -> None:
    from memtui.core.judge.usage import consulted_recently

    usage = usage_of(load_root(recorded), env={}, home=recorded.parents[3])
    assert consulted_recently(usage, datetime(2026, 12, 10, tzinfo=timezone.utc)) == {
        "build_steps.md": "read 2026-12-01, in 2 of the last 3 sessions",
        "code_style.md": "read 2026-12-01, in 1 of the last 3 sessions",
        "scratch_idea.md": "read 2026-12-01, in 1 of the last 3 sessions",
    }
    assert consulted_recently(usage, datetime(2026, 12, 20, tzinfo=timezone.utc)) == {}


def test_the_dream_never_archives_a_file_read_in_the_last_14_days(tmp_path: Path,
                                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    """``project_gone.md`` is fully stale with no guard: archived, unless a session read it."""
    from memtui.core.dream.plan import plan_dream

    project = tmp_path / "project"
    (project / "internal").mkdir(parents=True)
    (project / "internal" / "here.go").write_text("package internal\n")
    config = tmp_path / "config"
    root = config / "projects" / "-p" / "memory"
    root.mkdir(parents=True)
    body = "Lives in `internal/gone/sweeper.go` next to `internal/gone/marker.go`.\n"
    (root / "project_gone.md").write_text(
        f"---\nname: gone\ndescription: d\ntype: project\nupdated: 2025-01-10\n---\n{body}")
    (root / "MEMORY.md").write_text("- [Gone](project_gone.md) — the sweeper\n")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    now = datetime(2026, 11, 29, tzinfo=timezone.utc)

    def archived() -> list[tuple[str, ...]]:
        return [i.paths for i in plan_dream(load_root(root), now, repo=project).items if i.kind == "archive"]

    assert archived() == [("project_gone.md",)]
    read = {"type": "assistant", "timestamp": "2026-11-20T09:00:00Z", "sessionId": "s1", "message": {
        "content": [{"type": "tool_use", "id": "t", "name": "Read",
                     "input": {"file_path": str(root / "project_gone.md")}}]}}
    (root.parent / "s1.jsonl").write_text(json.dumps(read) + "\n")
    assert archived() == []
    stale = dict(read, timestamp="2026-11-01T09:00:00Z")  # read 28 days ago: no longer a guard
    (root.parent / "s1.jsonl").write_text(json.dumps(stale) + "\n")
    assert archived() == [("project_gone.md",)]
