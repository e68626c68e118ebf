"""The loader's cut, utilisation, tokens and pressure sampling."""

from __future__ import annotations

import json
from datetime import date

import pytest

from memtui.core.model.index import parse_index
from memtui.core.model.snapshot import BudgetConfig
from memtui.core.read.store import load_root
from memtui.core.rules.budget import budget_of, loaded_text, measure
from memtui.core.stores.pressure import read_pressure, record_pressure


@pytest.mark.parametrize(
    ("text", "config", "lines", "cut"),
    [
        ("a\nb\nc\n", BudgetConfig(2, 1000, "raw"), 3, 3),
        ("a\nb\nc", BudgetConfig(3, 1000, "raw"), 3, None),
        ("a\nb\n", BudgetConfig(2, 1000, "raw"), 2, None),
        ("aaaa\nbbbb\n", BudgetConfig(10, 7, "raw"), 2, 2),
        ("aaaa\nbbbb\n", BudgetConfig(10, 10, "raw"), 2, None),
        ("", BudgetConfig(1, 1, "raw"), 0, None),
    ],
)
def test_cut_is_the_first_line_past_either_cap(text: str, config: BudgetConfig, lines: int,
                                               cut: int | None) -> None:
    budget = measure(parse_index(text.encode()), config)
    assert (budget.lines, budget.cut_line) == (lines, cut)
    assert budget.bytes == len(text.encode()) and budget.unit == "bytes"


@pytest.mark.parametrize(
    ("text", "config", "lines", "cut"),
    [
        ("a\nb\nc\n", BudgetConfig(2, 1000), 3, 3),
        ("a\nb\nc", BudgetConfig(3, 1000), 3, None),
        ("aaaa\nbbbb\n", BudgetConfig(10, 8), 2, 2),  # "aaaa\nbbbb" is 9 characters
        ("aaaa\nbbbb\n", BudgetConfig(10, 9), 2, None),  # the final line break is trimmed
        ("", BudgetConfig(1, 1), 0, None),
    ],
)
def test_claude_code_counts_trimmed_characters(text: str, config: BudgetConfig, lines: int,
                                               cut: int | None) -> None:
    budget = measure(parse_index(text.encode()), config)
    assert (budget.lines, budget.cut_line) == (lines, cut)
    assert budget.bytes == len(text.strip()) and budget.unit == "characters"


def test_loaded_text_stops_at_the_cut(make_root) -> None:
    root = make_root({"MEMORY.md": "one\ntwo\nthree\n"})
    snapshot = load_root(root, BudgetConfig(max_lines=2, loader="raw"))
    assert loaded_text(snapshot) == b"one\ntwo\n"
    budget = budget_of(snapshot)
    assert budget.utilization == pytest.approx(1.5)
    assert budget.tokens == len(b"one\ntwo\n") // 4


def test_pressure_is_sampled_once_a_day_when_over_ninety_percent(make_root) -> None:
    root = make_root({"MEMORY.md": "x\n" * 185})
    snapshot = load_root(root)
    assert record_pressure(snapshot, date(2026, 11, 29))
    assert not record_pressure(snapshot, date(2026, 11, 29))
    assert record_pressure(snapshot, date(2026, 11, 30))
    samples = read_pressure(root)
    assert [s["date"] for s in samples] == ["2026-11-29", "2026-11-30"]
    assert samples[0] == {"date": "2026-11-29", "lines": 185, "max_lines": 200, "bytes": 369,  # characters, trimmed
                          "max_bytes": 25000, "utilization": 0.93}
    assert ".memory-pressure.jsonl" not in {p for p in load_root(root).files}


def test_no_pressure_sample_below_ninety_percent(make_root) -> None:
    root = make_root({"MEMORY.md": "x\n" * 100})
    assert not record_pressure(load_root(root), date(2026, 11, 29))
    assert read_pressure(root) == []


def test_unreadable_pressure_lines_are_skipped(make_root) -> None:
    root = make_root({"MEMORY.md": "x\n", ".memory-pressure.jsonl": "not json\n" + json.dumps({"date": "d"}) + "\n"})
    assert read_pressure(root) == [{"date": "d"}]
