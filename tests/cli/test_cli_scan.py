"""``memtui scan``: JSON shape, several roots, sessions, rejected pairs, the tables, bad options."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core.stores.rejections import remember_rejected
from tests.support.roots import MakeRoot, topic

SHARED = "Garbage collection marks every referenced blob and then sweeps the unreferenced ones"


@pytest.fixture
def root(make_root: MakeRoot) -> Path:
    return make_root({
        "MEMORY.md": "- [gc](gc_runbook.md) — gc\n",
        "gc_runbook.md": topic("GC runbook for blob sweeps", body=SHARED + " nightly.\n"),
        "gc_operations.md": topic("GC runbook for blob sweeps, operations", body=SHARED + ".\n"),
        "session_2026-01-01.md": topic("GC runbook for blob sweeps", body=SHARED + ".\n"),
        "mock_store.md": topic("Always mock the store in handler unit tests", type_="feedback",
                               updated="2026-08-19", body="Always mock the database layer.\n"),
        "real_postgres.md": topic("Never mock Postgres in tests that exercise queries",
                                  type_="feedback", updated="2026-10-30",
                                  body="Never mock the database; use testcontainers.\n"),
    })


def run_json(capsys: pytest.CaptureFixture[str], *argv: str) -> object:
    assert main(["scan", *argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def test_json_shape(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, str(root))
    assert isinstance(data, dict)
    assert {"root", "threshold", "pairs", "clusters", "contradictions"} <= set(data)
    assert data["root"] == str(root) and data["threshold"] == 0.8
    assert [(p["a"], p["b"]) for p in data["pairs"]] == [("gc_operations.md", "gc_runbook.md")]
    pair = data["pairs"][0]
    assert {"a", "b", "score", "similarity", "title_score", "body_score", "shared"} <= set(pair)
    assert pair["score"] == 1.0 and 0 < pair["similarity"] <= 1
    assert data["clusters"] == [{"files": ["gc_operations.md", "gc_runbook.md"], "pairs": 1,
                                 "possible": 1, "oversized": False, "chained": False}]
    [contra] = data["contradictions"]
    assert (contra["old"], contra["new"], contra["negation"], contra["proposal"]) == (
        "mock_store.md", "real_postgres.md", "always/never", "supersede")


def test_include_sessions_and_threshold(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = run_json(capsys, str(root), "--include-sessions", "--threshold", "0.95")
    assert data["threshold"] == 0.95  # type: ignore[index]
    names = {name for p in data["pairs"] for name in (p["a"], p["b"])}  # type: ignore[index]
    assert "session_2026-01-01.md" in names


def test_rejected_pairs_are_left_out(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    remember_rejected(root, "gc_runbook.md", "gc_operations.md")
    data = run_json(capsys, str(root))
    assert data["pairs"] == []  # type: ignore[index]


def test_several_roots_give_a_list(make_root: MakeRoot, capsys: pytest.CaptureFixture[str]) -> None:
    make_root({"MEMORY.md": "", "a.md": topic("a")}, name="top/one")
    make_root({"MEMORY.md": "", "b.md": topic("b")}, name="top/two")
    data = run_json(capsys, str(Path(make_root({}, name="top"))))
    assert isinstance(data, list) and len(data) == 2
    assert all(d["pairs"] == [] for d in data)


def test_tables(root: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the tables a terminal shows (piped: tab-separated)
    assert main(["scan", str(root)]) == 0
    out = capsys.readouterr().out
    assert "1 pair: 1 at overlap ≥ 0.80" in out and "1 contradiction" in out
    assert "1 pairs" not in out and "1 contradictions" not in out
    assert "Near-duplicates" in out and "gc_operations.md" in out and "shared words" in out
    assert "Contradictions" in out and "always/never" in out
    assert "--include-sessions" in out


def test_limit_says_showing_n_of_m(root: Path, capsys: pytest.CaptureFixture[str],
                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["scan", str(root), "--include-sessions", "--limit", "1"]) == 0
    assert "showing 1 of 3" in capsys.readouterr().out


def test_plain_tables_have_every_row_unless_limited(root: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Piped, the near-duplicates are not cut at the terminal's 40 without a word: every row,
    or the --limit asked for."""
    assert main(["scan", str(root), "--include-sessions"]) == 0
    pairs = capsys.readouterr().out.split("\n\n")[0].splitlines()
    assert pairs[0].startswith("#\tfile\t") and len(pairs) == 1 + 3
    assert main(["scan", str(root), "--include-sessions", "--limit", "1"]) == 0
    assert len(capsys.readouterr().out.split("\n\n")[0].splitlines()) == 1 + 1


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--threshold", "1.5"], "out of range"),
        (["--threshold", "0"], "out of range"),
        (["--threshold", "nan"], "out of range"),
        (["--threshold", "abc"], "not a number"),
        (["--limit", "-1"], "--limit"),
    ],
)
def test_bad_options_one_line_exit_2(root: Path, capsys: pytest.CaptureFixture[str], argv: list[str],
                                     message: str) -> None:
    assert main(["scan", str(root), *argv]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_missing_folder_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", str(tmp_path / "nope")]) == 2
    assert "no such folder" in capsys.readouterr().err
