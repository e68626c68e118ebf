"""``memtui used``: the JSON shape, one file's line, the table, and errors for bad options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli.main import main
from tests.support.usage import S1, S2, install_fixtures


@pytest.fixture
def recorded(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.delenv("CLAUDE_CONFIG_DIR", raising=False)
    return install_fixtures(tmp_path)


def test_json_shape(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["used", str(recorded), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"root", "transcripts", "window", "sessions", "total_sessions", "lines",
                         "skipped_lines", "unreadable", "files", "active", "dead", "missing",
                         "hallucinated", "note"}
    assert (data["dead"], data["missing"]) == (["deploy_notes.md"], ["scratch_idea.md"])
    assert data["hallucinated"] == [{"path": "old_api.md", "sessions": [S1], "index": "MEMORY.md",
                                     "line": 4, "last": data["hallucinated"][0]["last"]}]
    by_path = {f["path"]: f for f in data["files"]}
    assert by_path["build_steps.md"]["sessions"] == [S2, S1]
    assert by_path["build_steps.md"]["status"] == "active"
    assert by_path["code_style.md"]["writers"] == [S2]


def test_one_file(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["used", str(recorded / "code_style.md")]) == 0
    out = capsys.readouterr().out
    assert "code_style.md: read in 1 of the last 3 sessions, last 2026-12-01" in out


def test_table_and_window(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["used", str(recorded), "--sessions", "2"]) == 0
    out = capsys.readouterr().out
    assert "the last 2 sessions (of 3)" in out
    assert "deploy_notes.md dead" in out and "hallucinated" not in out.split("\n", 1)[1]


def test_no_transcripts(make_root, capsys: pytest.CaptureFixture[str], tmp_path: Path,  # type: ignore[no-untyped-def]
                        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    root = make_root({"MEMORY.md": "- [A](a.md) — a\n", "a.md": "a\n"})
    assert main(["used", str(root)]) == 0
    assert "no Claude Code transcripts found" in capsys.readouterr().out


def test_bad_transcripts_folder(recorded: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["used", str(recorded), "--transcripts", str(recorded / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err
