"""The gate: no new error (by rule, path and subject), no worse budget overflow."""

from __future__ import annotations

from memtui.core.read.store import load_root
from memtui.core.rules.validate import gate
from tests.support.roots import topic

A = topic("Alpha", "a")


def snap(make_root, name: str, files: dict[str, str]):  # type: ignore[no-untyped-def]
    return load_root(make_root(files, name=name))


def test_a_change_that_adds_an_error_is_refused(make_root) -> None:
    before = snap(make_root, "b", {"MEMORY.md": "- [A](a.md) — a\n", "a.md": A})
    after = snap(make_root, "a", {"MEMORY.md": "- [A](a.md) — a\n- [X](x.md) — x\n", "a.md": A})
    verdict = gate(before, after)
    assert not verdict.accepted
    assert [f.rule for f in verdict.refusing] == ["broken-link"]


def test_a_second_error_of_the_same_rule_and_file_is_still_new(make_root) -> None:
    index = "- [A](a.md) — a\n- [X](x.md) — x\n"
    before = snap(make_root, "b", {"MEMORY.md": index, "a.md": A})
    after = snap(make_root, "a", {"MEMORY.md": index + "- [Y](y.md) — y\n", "a.md": A})
    assert [f.subject for f in gate(before, after).refusing] == ["y.md"]


def test_a_broken_folder_can_be_improved_but_not_made_worse(make_root) -> None:
    broken = {"MEMORY.md": "- [A](a.md) — a\n- [X](x.md) — x\n", "a.md": A, "b.md": A}
    before = snap(make_root, "b", broken)
    fixed = snap(make_root, "f", {**broken, "MEMORY.md": "- [A](a.md) — a\n- [B](b.md) — b\n"})
    assert gate(before, fixed).accepted
    same = snap(make_root, "s", {**broken, "MEMORY.md": broken["MEMORY.md"] + "prose\n"})
    assert gate(before, same).accepted  # existing errors do not block an unrelated change


def test_budget_overflow_may_shrink_or_stay_but_not_grow(make_root) -> None:
    base = "- [A](a.md) — a\n" + "note\n" * 210
    before = snap(make_root, "b", {"MEMORY.md": base, "a.md": A})
    smaller = snap(make_root, "s", {"MEMORY.md": base[:-5], "a.md": A})
    bigger = snap(make_root, "g", {"MEMORY.md": base + "more\n", "a.md": A})
    assert gate(before, smaller).accepted
    assert gate(before, before).accepted
    verdict = gate(before, bigger)
    assert not verdict.accepted and "211 to 212 lines" in verdict.reason
