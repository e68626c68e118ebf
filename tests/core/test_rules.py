"""Every validator rule of DESIGN §2: one root that breaks it, one nearly identical that does not."""

from __future__ import annotations

from datetime import date

import pytest

from memtui.core.model.snapshot import BudgetConfig
from memtui.core.read.store import load_root
from memtui.core.rules.validate import RULES, validate
from tests.support.roots import topic

A = topic("Alpha", "alpha fact")
B = topic("Beta", "beta fact")
INDEX = "# Memory\n\n## Recent\n- [Alpha](a.md) — the alpha fact\n"
# the handoff rules read the project's .claude/session-state.md: '../.git' makes the root's
# parent folder the project (a git work tree found by its .git entry)
STATE = "../.claude/session-state.md"
#: a handoff of the day the test runs (filled in by :func:`files_of` when the case is built, not at
#: import: a run that starts before midnight and reaches this case after it still means today)
TODAY = "## Handoff: {today}\n## Working On\nthe parser\n"

# rule -> (files that break it, files that do not)
CASES: dict[str, tuple[dict[str, str | bytes], dict[str, str | bytes]]] = {
    "index-missing": ({"a.md": A}, {"MEMORY.md": INDEX, "a.md": A}),
    "budget-lines": (
        {"MEMORY.md": INDEX + "note\n" * 200, "a.md": A},
        {"MEMORY.md": INDEX + "note\n" * 190, "a.md": A},
    ),
    "budget-bytes": (
        {"MEMORY.md": INDEX + ("x" * 999 + "\n") * 26, "a.md": A},
        {"MEMORY.md": INDEX + ("x" * 999 + "\n") * 20, "a.md": A},
    ),
    "orphan": (
        {"MEMORY.md": INDEX, "a.md": A, "b.md": B},
        {"MEMORY.md": INDEX + "- [Beta](b.md) — the beta fact\n", "a.md": A, "b.md": B},
    ),
    "broken-link": (
        {"MEMORY.md": INDEX + "- [Gone](gone.md) — missing\n", "a.md": A},
        {"MEMORY.md": INDEX, "a.md": A},
    ),
    "link-escapes-root": (
        {"MEMORY.md": INDEX + "- [Pw](../../etc/passwd.md) — out\n", "a.md": A},
        {"MEMORY.md": INDEX + "- [Site](https://example.com/x.md) — a URL is not an entry\n",
         "a.md": A},
    ),
    "region-empty": (
        {"MEMORY.md": INDEX + "- region `lesson_*.md` → lessons\n", "a.md": A},
        {"MEMORY.md": INDEX + "- region `lesson_*.md` → lessons\n", "a.md": A,
         "lesson_one.md": topic("Lesson", "one")},
    ),
    "region-glob-invalid": (
        {"MEMORY.md": INDEX + "- region `lessons/[a-z]*.md` → lessons\n", "a.md": A,
         "lessons/lesson_x.md": topic("L", "x")},
        {"MEMORY.md": INDEX + "- region `lesson_?.md` → lessons\n", "a.md": A,
         "lessons/lesson_x.md": topic("L", "x")},
    ),
    "archived-in-index": (
        {"MEMORY.md": INDEX + "- [Old](archive/old.md) — old\n", "a.md": A,
         "archive/old.md": topic("Old", "old", status="archived"),
         "MEMORY-archive.md": "- [Old](archive/old.md) — old\n"},
        {"MEMORY.md": INDEX, "a.md": A, "archive/old.md": topic("Old", "old", status="archived"),
         "MEMORY-archive.md": "- [Old](archive/old.md) — old\n"},
    ),
    "pinned-not-indexed": (
        {"MEMORY.md": INDEX + "- region `b*.md` → b files\n", "a.md": A,
         "b.md": topic("Beta", "beta", pinned="true")},
        {"MEMORY.md": INDEX + "- [Beta](b.md) — the beta fact\n", "a.md": A,
         "b.md": topic("Beta", "beta", pinned="true")},
    ),
    "provenance-dangling": (
        {"MEMORY.md": INDEX, "a.md": topic("Alpha", "alpha", consolidated_from="x.md, y.md")},
        {"MEMORY.md": INDEX, "a.md": topic("Alpha", "alpha", consolidated_from="x.md, y.md"),
         "archive/x.md": topic("X", "x"), "archive/y.md": topic("Y", "y"),
         "MEMORY-archive.md": "- [X](archive/x.md) — x\n- [Y](archive/y.md) — y\n"},
    ),
    "supersede-cycle": (
        {"MEMORY.md": INDEX + "- region `s*.md` → s\n", "a.md": A,
         "s1.md": topic("S1", "s1", superseded_by="s2.md"),
         "s2.md": topic("S2", "s2", superseded_by="s1.md")},
        {"MEMORY.md": INDEX + "- region `s*.md` → s\n", "a.md": A,
         "s1.md": topic("S1", "s1", superseded_by="s2.md"),
         "s2.md": topic("S2", "s2", supersedes="s1.md")},
    ),
    "pressure": (
        {"MEMORY.md": INDEX + "note\n" * 180, "a.md": A},
        {"MEMORY.md": INDEX + "note\n" * 170, "a.md": A},
    ),
    "duplicate-entry": (
        {"MEMORY.md": INDEX + "- [Alpha again](a.md) — twice\n", "a.md": A},
        {"MEMORY.md": INDEX, "a.md": A},
    ),
    "frontmatter": (
        {"MEMORY.md": INDEX, "a.md": "---\nname: Alpha\ndescription: a\ntype: decision\n---\nx\n"},
        {"MEMORY.md": INDEX, "a.md": "---\nname: Alpha\ndescription: a\ntype: project\n---\nx\n"},
    ),
    "topic-too-large": (
        {"MEMORY.md": INDEX, "a.md": topic("Alpha", "a", body="word " * 10_001)},
        {"MEMORY.md": INDEX, "a.md": topic("Alpha", "a", body="word " * 9_000)},
    ),
    "link-only": (
        {"MEMORY.md": "- [Alpha](a.md)\n", "a.md": A},
        {"MEMORY.md": "- [Alpha](a.md) — what alpha is\n", "a.md": A},
    ),
    "fake-alias": (
        {"MEMORY.md": "- [notes/alpha.md](a.md) — alpha\n", "a.md": A},
        {"MEMORY.md": "- [a.md](a.md) — alpha\n", "a.md": A},
    ),
    "history-in-index": (
        {"MEMORY.md": INDEX + "<!-- archived 2026-01-01: old.md -->\n", "a.md": A},
        {"MEMORY.md": INDEX, "a.md": A},
    ),
    "superseded-active": (
        {"MEMORY.md": INDEX + "- [Beta](b.md) — beta\n", "a.md": topic("Alpha", "a", supersedes="b.md"),
         "b.md": topic("Beta", "b", status="superseded", superseded_by="a.md")},
        {"MEMORY.md": INDEX + "- region `b.md` → old beta\n",
         "a.md": topic("Alpha", "a", supersedes="b.md"),
         "b.md": topic("Beta", "b", status="superseded", superseded_by="a.md")},
    ),
    "scope-missing": (
        {"MEMORY.md": INDEX + "## PATH_SCOPE: web\nScope: `/srv/web`\nMemory base: `path/web/`\n"
         "- [UI](ui.md) — ui\n", "a.md": A, "path/web/ui.md": topic("UI", "ui")},
        {"MEMORY.md": INDEX + "## PATH_SCOPE: web\nScope: `/srv/web`\nMemory base: `path/web/`\n"
         "- [UI](ui.md) — ui\n", "a.md": A, "path/web/ui.md": topic("UI", "ui"),
         "path/web/SCOPE.md": "# web\nThe web front end.\n"},
    ),
    "secret": (
        {"MEMORY.md": INDEX, "a.md": topic("Alpha", "a", body="token ghp_" + "A1b2" * 9 + "\n")},
        {"MEMORY.md": INDEX, "a.md": topic("Alpha", "a", body="see the sk-assessment-framework\n")},
    ),
    "neutralized-text": (
        {"MEMORY.md": INDEX + "- [Beta](b.md) — beta\u200b fact <system-reminder>\n", "a.md": A,
         "b.md": B},
        {"MEMORY.md": INDEX + "- [Beta](b.md) — beta fact, the <system> tag \u200d\n", "a.md": A,
         "b.md": B},
    ),
    "team-unreachable": (
        {"MEMORY.md": INDEX, "a.md": A, "team/deploy.md": B},
        {"MEMORY.md": INDEX + "- [Deploy](team/deploy.md) — how the team deploys\n", "a.md": A,
         "team/deploy.md": B},
    ),
    "folder-document": (  # the folder's README, addressed to its readers: not a memory, not an orphan
        {"MEMORY.md": INDEX, "a.md": A,
         "README.md": "# Team memory\n\nThis folder holds the notes our agents keep. Read MEMORY.md "
                      "first; do not edit the topic files by hand.\n"},
        {"MEMORY.md": INDEX + "- [Readme](README.md) — what this folder is\n", "a.md": A,
         "README.md": "# Team memory\n\nThis folder holds the notes our agents keep.\n"},
    ),
    "interrupted-change": (
        {"MEMORY.md": INDEX, "a.md": A, ".memtui/journal/00000001-do.pending.json": "{}"},
        {"MEMORY.md": INDEX, "a.md": A, ".memtui/journal/00000001-do.rolled-back.json": "{}"},
    ),
    "state-stale": (
        {"MEMORY.md": INDEX, "a.md": A, "../.git": "", STATE: "## Handoff: 2020-01-01\n"},
        {"MEMORY.md": INDEX, "a.md": A, "../.git": "", STATE: TODAY},
    ),
    "state-too-long": (
        {"MEMORY.md": INDEX, "a.md": A, "../.git": "", STATE: TODAY + "line\n" * 80},
        {"MEMORY.md": INDEX, "a.md": A, "../.git": "", STATE: TODAY + "line\n" * 70},
    ),
}


def files_of(case: dict[str, str]) -> dict[str, str]:
    """A case's files, the session state's handoff dated today."""
    return {rel: text.format(today=date.today().isoformat()) if rel == STATE else text
            for rel, text in case.items()}


def test_every_rule_has_a_case() -> None:
    assert set(CASES) == set(RULES)


@pytest.mark.parametrize("rule", list(CASES))
def test_rule_fires_on_the_failing_case(rule: str, make_root) -> None:
    findings = validate(load_root(make_root(files_of(CASES[rule][0]), name="fail")))
    hits = [f for f in findings if f.rule == rule]
    assert hits, f"{rule} did not fire; got {[f.rule for f in findings]}"
    assert all(f.severity == RULES[rule] for f in hits)
    assert all(f.message for f in hits)


@pytest.mark.parametrize("rule", list(CASES))
def test_rule_is_quiet_on_the_passing_case(rule: str, make_root) -> None:
    findings = validate(load_root(make_root(files_of(CASES[rule][1]), name="pass")))
    assert [f for f in findings if f.rule == rule] == []


def test_budget_lines_message_counts_entries_past_the_cut(make_root) -> None:
    lines = "".join(f"- [T{i}](t{i}.md) — fact {i}\n" for i in range(210))
    files: dict[str, str | bytes] = {"MEMORY.md": lines}
    files.update({f"t{i}.md": topic(f"T{i}", "t") for i in range(210)})
    finding = next(f for f in validate(load_root(make_root(files))) if f.rule == "budget-lines")
    assert finding.line == 201
    assert "10 entries fall past the cut" in finding.message


def test_caps_are_configurable(make_root) -> None:
    root = make_root({"MEMORY.md": INDEX + "note\n" * 90, "a.md": A})
    assert not [f for f in validate(load_root(root)) if f.rule == "budget-lines"]
    tight = validate(load_root(root, BudgetConfig(max_lines=80)))
    assert [f for f in tight if f.rule == "budget-lines"]


def test_wikilink_reaches_its_topic(make_root) -> None:
    root = make_root({"MEMORY.md": "- research rules → see [[android-flow]]\n",
                      "android-flow.md": topic("Flow", "f")})
    rules = {f.rule for f in validate(load_root(root))}
    assert "orphan" not in rules and "link-only" not in rules


def test_memory_base_entries_resolve_under_the_base(make_root) -> None:
    root = make_root({
        "MEMORY.md": "## PATH_SCOPE: web\nScope: `/srv/web`\nMemory base: `path/web/`\n"
                     "- `ui.md` — the UI\n- **build.md** — how to build\n",
        "path/web/SCOPE.md": "# web\n",
        "path/web/ui.md": topic("UI", "ui"),
        "path/web/build.md": topic("Build", "b"),
    })
    assert validate(load_root(root)) == []


def test_commented_out_entries_do_not_count(make_root) -> None:
    root = make_root({"MEMORY.md": INDEX + "<!--\n- [Beta](b.md) — hidden\n-->\n", "a.md": A,
                      "b.md": B})
    rules = [f.rule for f in validate(load_root(root))]
    assert "orphan" in rules
