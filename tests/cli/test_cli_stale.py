"""``memtui stale``: JSON shape, filters, the table, and one-line errors for bad options."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import date, datetime, timedelta, timezone
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


def test_table(root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the table a terminal shows (piped: tab-separated)
    assert main(["stale", str(root), "--now", "2026-11-29"]) == 0
    out = capsys.readouterr().out
    for heading in ("score", "action", "refs", "type", "age", "guards", "file"):
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


COPIED = datetime(2026, 12, 1, 9, tzinfo=timezone.utc).timestamp()  # when a copy wrote every file


@pytest.fixture
def copied(make_root: MakeRoot) -> Path:
    """A root as a clone or a backup leaves it: every file written at one moment, most undated,
    and the folder's README beside them."""
    root = make_root({
        "MEMORY.md": "# Memory\n",
        **{f"note_{c}.md": topic(f"Note {c}", body=f"The {c} worker drains the queue.\n") for c in "abcde"},
        "dated.md": topic("Dated", body="**Date**: 2026-03-04\n\nThe queue moved to Redis.\n"),
        "README.md": "# Team memory\n\nWhat this folder is, for people who open it.\n",
    })
    for path in root.iterdir():
        os.utime(path, (COPIED, COPIED))
    return root


def test_json_says_which_ages_are_unknown_and_why(copied: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The reason is the ``age_unknown`` field of each file; ``age_days`` and ``dated`` are null
    then (never 0); every other field of DESIGN §8's shape is there as before."""
    data = run_json(capsys, str(copied), "--now", "2026-12-02")
    assert isinstance(data, dict)
    files = {f["path"]: f for f in data["files"]}
    assert set(files) == {"dated.md", *(f"note_{c}.md" for c in "abcde")}
    assert data["documents"] == [{"path": "README.md", "what": "the folder's README"}]
    for entry in files.values():
        assert {"path", "type", "age_days", "score", "action", "class", "modifiers", "missing",
                "guards", "age_source", "dated", "age_unknown"} <= set(entry)
    dated = files.pop("dated.md")
    assert (dated["age_source"], dated["dated"], dated["age_unknown"]) == ("body Date:", "2026-03-04", None)
    for entry in files.values():
        assert entry["age_source"] == "unknown" and entry["age_days"] is None and entry["dated"] is None
        assert entry["age_unknown"] == ("all 7 files were written within a second on 2026-12-01: a copy, "
                                        "clone or restore; no date in the file")
        assert (entry["score"], entry["action"], entry["bucket"]) == (50.0, "review", "review")
        assert not any(g["kind"] == "recent" for g in entry["guards"])
    assert main(["stale", str(copied), "--now", "2026-12-02", "--json"]) == 0  # the kept answer
    assert json.loads(capsys.readouterr().out) == data


def test_the_table_says_which_ages_are_unknown_and_why(copied: Path, capsys: pytest.CaptureFixture[str],
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the legend is the table's (piped: left out)
    assert main(["stale", str(copied), "--now", "2026-12-02"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "5 ages unknown" in out and "never fresh" in out
    assert ("all 7 files were written within a second on 2026-12-01: a copy, clone or restore — 5 state "
            "no date of their own: note_a.md, note_b.md, note_c.md … (+2)") in out
    assert "0d" not in out and "mtime" not in out
    assert "the folder's own documents, not scored (not memories): README.md (the folder's README)" in out
