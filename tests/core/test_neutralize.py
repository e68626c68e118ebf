"""What Claude Code 2.1.332 changes in the loaded MEMORY.md: invisible characters by Unicode 17.0,
tags imitating its markup escaped (each case measured against the binary's loads), after the
cut, on its warning too, then trimmed again; a subagent's index loads unstripped."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.model.index import parse_index
from memtui.core.model.snapshot import AGENT_LOADER, BudgetConfig, encode_text
from memtui.core.read.store import load_root
from memtui.core.rules import neutralize
from memtui.core.rules.budget import loaded_index_text, measure, sent_warning
from memtui.core.rules.validate import neutralized_findings, validate

ESCAPED = [
    ("<command-name>x</command-name>", "<\\command-name>x<\\/command-name>"),
    ("< system-reminder>", "<\\ system-reminder>"),
    ("<<system-reminder>>", "<<\\system-reminder>>"),
    ("<function_results>", "<\\function_results>"),
    ("<command_name>", "<\\command_name>"),
    ("<SYSTEM_REMINDER>", "<\\SYSTEM_REMINDER>"),
    ("<system\u2014reminder>", "<\\system\u2014reminder>"),
    ("\uff1csystem-reminder>", "<\\system-reminder>"),  # a look-alike opener becomes ASCII
    ("\u2039system-reminder>", "<\\system-reminder>"),
    ("\u3008system-reminder>", "<\\system-reminder>"),
    ("\u226asystem-reminder>", "<\\system-reminder>"),
    ("<s\u0443stem-reminder>", "<\\s\u0443stem-reminder>"),  # Cyrillic u
    ("<sys\u200btem-reminder>", "<\\system-reminder>"),  # stripped first, then matched
    ("<sys\u0301tem-reminder>", "<\\sys\u0301tem-reminder>"),  # a combining mark between letters
    ("<\n\nsystem-reminder>", "<\\\n\nsystem-reminder>"),  # the filler spans line breaks
    ("<\u4e2dtick>", "<\\\u4e2dtick>"),
    ("<tick/>", "<\\tick/>"),
    ("a <command-name", "a <\\command-name"),  # at the end of the text
    ("<bash-exit-code>", "<\\bash-exit-code>"),
    ("<teammate-message>", "<\\teammate-message>"),
    ("<artifact-stored-declaration>", "<\\artifact-stored-declaration>"),
    ('<channel source="x">', '<\\channel source="x">'),
    ('<channel name="a" source="b">', '<\\channel name="a" source="b">'),
    ("<channel/source=y>", "<\\channel/source=y>"),
    ("<channel\nsource=y>", "<\\channel\nsource=y>"),
    ("<channel source\uff1dy>", "<\\channel source\uff1dy>"),
    ("<antml" + ":invoke>", "<\\antml" + ":invoke>"),
    ("</antml" + ":invoke>", "<\\/antml" + ":invoke>"),
    ("<antml" + '\uff1aparameter name="x">', "<\\antml" + '\uff1aparameter name="x">'),
]

LEFT = ["<function_calls>", "<invoke>", "<parameter>", "<post-tool-use-hook>", "<user-memory-input>",
        "<ide_selection>", "<summary>", "<thinking>", "<br>", "<details>",
        "&lt;system-reminder&gt;", "<system reminder>", "<system--reminder>", "<command-names>",
        "<command-name2>", "<command-name_x>", "<ticket>", "<ticks>", "<_tick>", "<-tick>",
        "<!--tick", "<!-- tick", "1 < 2 tick", "<channel>", "</channel>", "<channel src=x>",
        "<channel data-source=x>", "<channels source=x>", "<channel " + "x" * 130 + " source=y>",
        "<antml>", "<antml_invoke>", "<antml :x>", "<antmlx:y>", "<\\system-reminder>"]


@pytest.mark.parametrize(("text", "loads"), ESCAPED)
def test_escaped_as_claude_code_escapes(text: str, loads: str) -> None:
    assert neutralize.neutralize(text) == loads
    assert neutralize.neutralize(loads) == loads  # escaping twice changes nothing


@pytest.mark.parametrize("text", LEFT)
def test_left_as_claude_code_leaves_it(text: str) -> None:
    assert neutralize.neutralize(text) == text


def test_the_tables_are_the_binarys() -> None:
    assert neutralize.version() == ("2.1.332", "17.0")
    names = neutralize.tag_names()
    assert len(names) == 36 and "channel" in names and "antml:" in names
    assert {"function_calls", "post-tool-use-hook", "user-memory-input"}.isdisjoint(names)
    assert {"system-reminder", "system_reminder", "tick", "bash-exit-code"} <= set(names)


@pytest.mark.parametrize(("cp", "kept"), [
    (0x1E4D0, True), (0x2FFC, True), (0x1C89, True), (0xA7CB, True), (0x10D40, True),
    (0x20C1, True), (0x10940, True), (0x11DB0, True), (0x16EA0, True),  # Unicode 15.0-17.0
    (0x0378, False), (0x1FAFF, False),  # unassigned in 17.0
    (0x200B, False), (0x00AD, False), (0xFFF0, False), (0x0085, False), (0xE000, False),
    (0x200C, True), (0x200D, True), (0xFE0F, True), (0x00A0, True), (0x3000, True), (0xFFFD, True),
])
def test_invisible_characters_by_unicode_17(cp: int, kept: bool) -> None:
    assert neutralize.strip(f"a{chr(cp)}b") == (f"a{chr(cp)}b" if kept else "ab")


def test_many_lines_are_stripped_as_each_alone() -> None:
    """The strip set is asked once for all the lines' characters; each line loses what it alone
    would (the characters another line holds are no loss of its own)."""
    lines = ["a\u200bb — c", "plain", "x\u2028\u200by", "\u00adé\r", "", "\u200b", "— only a dash"]
    assert neutralize.strip_lines(lines) == [neutralize.strip(line) for line in lines]
    assert neutralize.strip_lines(["— a", "b"]) == ["— a", "b"]
    assert neutralize.strip_lines([]) == []


def text_of(text: str) -> str:
    return loaded_index_text(parse_index(encode_text(text)), BudgetConfig())


def test_lines_emptied_by_the_strip_are_trimmed_off_the_ends() -> None:
    assert text_of("\u200b\n\u200b\n- a\n- b\n\u200b\n") == "- a\n- b"


def test_escaping_after_the_cut_and_on_the_warning() -> None:
    lines = [f"- [F{n}](f{n}.md) \u2014 fact {n} <tick>" for n in range(200)]
    index = parse_index(encode_text("\n".join([*lines, "<system-reminder> injected \u200b here", ""])))
    budget = measure(index, BudgetConfig())
    loaded = loaded_index_text(index, BudgetConfig())
    assert loaded.count("<\\tick>") == 200 and "<tick>" not in loaded
    warning = sent_warning(budget)
    assert warning is not None and '("<\\system-reminder> injected  here")' in warning
    assert "\u200b" not in warning and '("<system-reminder> injected \u200b here")' in budget.warning()


def test_the_warning_names_exactly_what_changes(tmp_path: Path) -> None:
    index = parse_index(encode_text(
        "# Memory\n- [A](a.md) \u2014 a\u200b fact <command-name> and <function_calls>\n"
        "- [B](b.md) \u2014 b <\uff1ctick> \u0378\n- [C](c.md) \u2014 c <invoke> plain\n"))
    found = neutralized_findings(index, frozenset())
    assert [(f.line, f.message) for f in found] == [
        (2, "Claude Code changes this line before loading: it removes 1 invisible character "
            "(U+200B ZERO WIDTH SPACE) and escapes the markup tag 'command-name' (its '<' loads "
            "as '<\\'), so the agent reads other text than the file holds; remove it or write it "
            "out in plain words"),
        (3, "Claude Code changes this line before loading: it removes 1 invisible character "
            "(U+0378 an unassigned code point) and escapes the markup tag 'tick' (its look-alike "
            "opener '\uff1c', U+FF1C, loads as '<\\'), so the agent reads other text than the file "
            "holds; remove it or write it out in plain words")]


AGENT_INDEX = "---\nname: idx\n---\n<!-- block comment -->\n# Memory\n- [F](f.md) \u2014 fact <tick>\n<!--\nmulti\n-->\n"


def test_a_subagents_index_loads_with_its_frontmatter_and_comments(tmp_path: Path) -> None:
    agent = tmp_path / "proj" / ".claude" / "agent-memory" / "researcher"
    agent.mkdir(parents=True)
    (agent / "MEMORY.md").write_text(AGENT_INDEX, encoding="utf-8")
    (agent / "f.md").write_text("---\nname: f\ndescription: f\ntype: project\n---\nF\n")
    snapshot = load_root(agent)
    assert snapshot.config.loader == AGENT_LOADER
    assert loaded_index_text(snapshot.index, snapshot.config) == AGENT_INDEX.strip().replace(
        "<tick>", "<\\tick>")
    budget = measure(snapshot.index, snapshot.config)
    assert (budget.lines, budget.stripped) == (9, ())  # nothing stripped
    main = tmp_path / "mem"
    main.mkdir()
    (main / "MEMORY.md").write_text(AGENT_INDEX, encoding="utf-8")
    (main / "f.md").write_text((agent / "f.md").read_text())
    plain = load_root(main)
    assert plain.config.loader == "claude-code"
    assert loaded_index_text(plain.index, plain.config) == "# Memory\n- [F](f.md) \u2014 fact <\\tick>"
    rules = {f.rule for f in validate(snapshot)}
    assert "neutralized-text" in rules
