"""The fleet view (:mod:`memtui.core.dream.fleet`) and ``memtui list --all``: every root's budget,
errors, pressure peaks, the agent's last change and a dream's count, sortable, attention in words."""

from __future__ import annotations

import json
import os
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core.dream.fleet import SORT_COLUMNS, fleet_row, sort_fleet
from tests.support.roots import topic

NOW = datetime(2026, 12, 1, tzinfo=timezone.utc)


def later() -> int:
    """A clock ten seconds ahead: the files just written are old enough for their answers to be kept."""
    return time.time_ns() + 10_000_000_000


def healthy(make_root, name: str) -> Path:
    return make_root({"MEMORY.md": "# M\n- [A](a.md) — the alpha fact\n", "a.md": topic("A")}, name=name)


def over_budget(make_root, name: str) -> Path:
    entries = "".join(f"- [N{i}](n{i}.md) — note {i}\n" for i in range(230))
    files = {f"n{i}.md": topic(f"N{i}") for i in range(230)}
    return make_root({"MEMORY.md": "# M\n" + entries, **files}, name=name)


def broken(make_root, name: str) -> Path:
    return make_root({"MEMORY.md": "# M\n- [Gone](gone.md) — x\n- [A](a.md) — y\n", "a.md": topic("A"),
                      "lost.md": topic("Lost")}, name=name)


def test_a_row_holds_budget_cut_errors_and_a_dream_count(make_root) -> None:
    row = fleet_row(over_budget(make_root, "big"), now=NOW, clock=later)
    assert row.budget is not None and (row.budget.lines, row.budget.max_lines) == (231, 200)
    assert row.budget.cut_line == 201 and row.errors >= 1
    assert "index cut" in row.attention
    assert row.dream_checked is not None and row.dream_checked >= 1 and not row.dream_kept
    again = fleet_row(row.root, now=NOW, clock=later)
    assert again.dream_kept and (again.dream_checked, again.dream_waiting) == (row.dream_checked, row.dream_waiting)
    assert not fleet_row(healthy(make_root, "ok"), now=NOW).attention


def test_the_kept_dream_count_follows_the_files(make_root) -> None:
    root = broken(make_root, "b")
    first = fleet_row(root, now=NOW, clock=later)
    assert fleet_row(root, now=NOW, clock=later).dream_kept
    (root / "lost.md").unlink()
    after = fleet_row(root, now=NOW, clock=later)
    assert not after.dream_kept and after.errors < first.errors


def test_pressure_peaks_come_from_the_log(make_root) -> None:
    root = healthy(make_root, "p")
    lines = [{"date": "2026-11-2" + str(d), "lines": 190, "max_lines": 200, "bytes": 1, "max_bytes": 25000,
              "utilization": u} for d, u in ((1, 0.91), (2, 1.08), (3, 0.95))]
    (root / ".memory-pressure.jsonl").write_text("".join(json.dumps(x) + "\n" for x in lines))
    row = fleet_row(root, now=NOW, dream=False)
    assert (row.pressure_days, row.pressure_peak, row.pressure_last) == (3, 1.08, "2026-11-23")
    assert row.dream_checked is None


def test_the_agents_last_change_is_unknown_for_a_copy_and_a_file_time_otherwise(make_root) -> None:
    root = make_root({"MEMORY.md": "# M\n" + "".join(f"- [N{i}](n{i}.md) — n\n" for i in range(6)),
                      **{f"n{i}.md": topic(f"N{i}") for i in range(6)}}, name="copy")
    assert fleet_row(root, now=NOW, dream=False).agent_source == ""  # written within a second: a copy
    for i in range(6):
        when = datetime(2026, 10, 1 + i, tzinfo=timezone.utc).timestamp()
        os.utime(root / f"n{i}.md", (when, when))
    os.utime(root / "MEMORY.md", (when, when))
    row = fleet_row(root, now=NOW, dream=False)
    assert row.agent_source == "file time" and row.agent_change == datetime(2026, 10, 6, tzinfo=timezone.utc)


@pytest.mark.parametrize("column", SORT_COLUMNS)
def test_every_column_sorts(make_root, column: str) -> None:
    rows = [fleet_row(f(make_root, f.__name__), now=NOW) for f in (healthy, over_budget, broken)]
    ordered = sort_fleet(rows, column)
    values = [r.sort_value(column) for r in ordered]
    assert values == sorted(values, key=lambda v: (v[0], v[1]))
    assert sort_fleet(rows, column, descending=True)[0].sort_value(column)[1] == max(v[1] for v in values)


def test_list_all_shows_the_fleet(make_root, tmp_path, monkeypatch, capsys) -> None:
    config = tmp_path / "claude"
    for name, build in (("-w-ok", healthy), ("-w-big", over_budget), ("-w-broken", broken)):
        root = build(make_root, f"claude/projects/{name}/memory")
        assert root.is_dir()
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    (tmp_path / "cwd").mkdir()
    monkeypatch.chdir(tmp_path / "cwd")
    assert main(["list", "--all", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [Path(r["root"]).parent.name for r in data][:2] in (["-w-big", "-w-broken"], ["-w-broken", "-w-big"])
    assert Path(data[-1]["root"]).parent.name == "-w-ok" and data[-1]["attention"] == []
    assert set(data[0]) >= {"root", "layer", "files", "budget", "errors", "warnings", "pressure",
                            "agent_change", "dream", "attention"}
    monkeypatch.setenv("COLUMNS", "200")
    assert main(["list", "--all", "--sort", "lines", "--reverse"]) == 0
    wide = capsys.readouterr().out
    lines = [line for line in wide.splitlines() if "-w-" in line]
    assert "-w-big" in lines[0] and lines[0].startswith("!") and "index cut" in lines[0]
    assert all(column in wide for column in ("lines", "chars", "cut", "err", "peak", "agent", "dream"))
    monkeypatch.setenv("COLUMNS", "80")
    assert main(["list", "--all"]) == 0
    narrow = capsys.readouterr().out
    assert max(len(line) for line in narrow.splitlines() if line.startswith("    ")) <= 80
    assert sum(1 for line in narrow.splitlines() if line.startswith("! ")) == 2
