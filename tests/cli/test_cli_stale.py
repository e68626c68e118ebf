"""``memtui stale``: JSON shape, filters, the table, and one-line errors for bad options."""

from __future__ import annotations

import json
import subprocess
import sys
from datetime import date, timedelta
from pathlib import Path

import pytest

from memtui.cli.main import main
from tests.support.roots import MakeRoot, topic

NOW = date(2026, 11, 29)


def ago(days: int) -> str:
    return (NOW - timedelta(days=days)).isoformat()


@pytest.fixture
def root(make_root: MakeRoot) -> Path:
    return make_root({
        "MEMORY.md": "- [a](old.md) — old\n- [b](new.md) — new\n- [c](mid.md) — mid\n",
        "old.md": topic("old", type_="project", updated=ago(60)),
        "new.md": topic("new", type_="value", updated=ago(1)),
        "mid.md": topic("mid", type_="project", updated=ago(14)),
    })


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> object:
    assert main(["stale", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_shape_sorted_by_score(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, str(root), "--now", "2026-11-29")
    assert isinstance(data, dict)
    assert data["root"] == str(root) and data["now"] == "2026-11-29"
    files = data["files"]
    assert [f["path"] for f in files] == ["old.md", "mid.md", "new.md"]
    assert [f["action"] for f in files] == ["prune", "review", "keep"]
    for entry in files:
        assert {"path", "type", "age_days", "score", "action", "class", "modifiers", "missing",
                "guards"} <= set(entry)
    assert files[0]["score"] == 94.9 and files[0]["age_days"] == 60


def test_now_takes_a_datetime(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, str(root), "--now", "2026-11-29T12:00:00+00:00")
    assert data["now"] == "2026-11-29T12:00:00+00:00"  # type: ignore[index]
    assert data["files"][0]["age_days"] == 60.5  # type: ignore[index]


@pytest.mark.parametrize(("action", "paths"), [("prune", ["old.md"]), ("review", ["mid.md"]),
                                                ("keep", ["new.md"])])
def test_action_filter(root: Path, capsys: pytest.CaptureFixture[str], action: str,
                       paths: list[str]) -> None:
    data = run_json(capsys, str(root), "--now", "2026-11-29", "--action", action)
    assert [f["path"] for f in data["files"]] == paths  # type: ignore[index]


def test_several_roots_give_a_list(make_root: MakeRoot, capsys: pytest.CaptureFixture[str]) -> None:
    make_root({"MEMORY.md": "", "a.md": topic("a")}, name="top/one")
    make_root({"MEMORY.md": "", "b.md": topic("b")}, name="top/two")
    data = run_json(capsys, str(Path(make_root({}, name="top"))), "--now", "2026-11-29")
    assert isinstance(data, list)
    assert [Path(d["root"]).name for d in data] == ["one", "two"]


def test_repo_option_points_references_at_a_project(make_root: MakeRoot, tmp_path: Path,
                                                    capsys: pytest.CaptureFixture[str]) -> None:
    project = tmp_path / "code"
    (project / "src").mkdir(parents=True)
    (project / "src" / "app.py").write_text("def loadThing(): pass\n")
    root = make_root({"MEMORY.md": "", "a.md": topic("a", type_="value", updated=ago(1),
                                                     body="src/app.py src/gone.py `loadThing()`\n")})
    data = run_json(capsys, str(root), "--now", "2026-11-29", "--repo", str(project))
    (entry,) = data["files"]  # type: ignore[index]
    assert entry["class"] == "PARTIALLY_STALE"
    assert entry["missing"] == [{"kind": "path", "ref": "src/gone.py",
                                 "reason": "no such file in code"}]
    assert [m["kind"] for m in entry["modifiers"]] == ["missing-file"]


def test_table(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stale", str(root), "--now", "2026-11-29"]) == 0
    out = capsys.readouterr().out
    for heading in ("score", "action", "class", "type", "age", "guards", "file"):
        assert heading in out
    assert out.index("old.md") < out.index("mid.md") < out.index("new.md")
    assert "1 prune · 1 review · 1 keep" in out


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--now", "yesterday"], "--now: 'yesterday' is not a date"),
        (["--now", "2026-02-30"], "--now: '2026-02-30' is not a date"),
        (["--repo", "/no/such/folder"], "--repo: /no/such/folder: no such folder"),
    ],
)
def test_bad_options_are_one_line_errors(root: Path, capsys: pytest.CaptureFixture[str],
                                         argv: list[str], message: str) -> None:
    assert main(["stale", str(root), *argv]) == 2
    captured = capsys.readouterr()
    assert message in captured.err
    assert len(captured.err.strip().splitlines()) == 1
    assert captured.out == ""


def test_repo_that_is_a_file(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stale", str(root), "--repo", str(root / "old.md")]) == 2
    assert "is a file" in capsys.readouterr().err


def test_missing_path_is_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["stale", str(tmp_path / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err


def test_memory_folder_untouched(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    before = {p: p.read_bytes() for p in root.rglob("*")}
    main(["stale", str(root), "--now", "2026-11-29"])
    main(["stale", str(root), "--json"])
    assert {p: p.read_bytes() for p in root.rglob("*")} == before


def test_runs_as_a_command(root: Path) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "memtui", "stale", str(root), "--now", "2026-11-29", "--json"],
        capture_output=True, text=True, check=False,
    )
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["files"][0]["path"] == "old.md"
