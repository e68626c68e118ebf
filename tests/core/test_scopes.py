"""Applicability (DESIGN §11): which memories apply at a path, and why the others do not."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core.judge.scopes import applicability, normalize, relation
from memtui.core.read.store import load_root
from tests.support.roots import topic

#: a root with GLOBAL and three scopes: an umbrella (/w), a project under it (/w/app), and a
#: sub-package of that project (/w/app/pkg); plus a sibling project (/w/other)
INDEX = """# Memory
## GLOBAL
- [Style](global/style.md) — house style everywhere
- [Old style](global/old.md) — superseded style
- [Stale fact](global/stale.md) — a prune candidate
## PATH_SCOPE: umbrella
Scope: `/w`
Memory base: `path/umbrella/`
- `u.md` — about every project under /w
## PATH_SCOPE: app
Scope: `/w/app`
Memory base: `path/app/`
- `a1.md` — app fact one
- `a2.md` — app fact two
## PATH_SCOPE: pkg
Scope: `/w/app/pkg`
Memory base: `path/pkg/`
- `p.md` — pkg fact
## PATH_SCOPE: other
Scope: `/w/other`
Memory base: `path/other/`
- `o.md` — other project fact
"""

FILES = {
    "MEMORY.md": INDEX,
    "MEMORY-archive.md": "# Archive\n- [Gone](archive/gone.md) — an archived app fact\n",
    "global/style.md": topic("Style"),
    "global/old.md": topic("Old style", superseded_by="global/style.md"),
    "global/stale.md": topic("Stale"),
    "path/umbrella/SCOPE.md": "# umbrella\n",
    "path/umbrella/u.md": topic("U"),
    "path/app/SCOPE.md": "# app\n",
    "path/app/a1.md": topic("A1"),
    "path/app/a2.md": topic("A2"),
    "path/app/b.md": topic("B", status="archived"),
    "path/pkg/SCOPE.md": "# pkg\n",
    "path/pkg/p.md": topic("P"),
    "path/other/SCOPE.md": "# other\n",
    "path/other/o.md": topic("O"),
    "archive/gone.md": topic("Gone"),
}
STALE = {"global/stale.md": "stale: score 90 (prune)"}


@pytest.fixture
def root(make_root) -> Path:
    return make_root(FILES)


def _applies(root: Path, path: str, **kw: object) -> list[tuple[str, str | None]]:
    answer = applicability(load_root(root), path, STALE, **kw)  # type: ignore[arg-type]
    return [(a.path, a.scope) for a in answer.applies]


def _excluded(root: Path, path: str) -> dict[str, str]:
    return {e.path: e.reason for e in applicability(load_root(root), path, STALE).excluded}


def test_exact_scope_applies_before_its_ancestors_then_global(root: Path) -> None:
    assert _applies(root, "/w/app") == [
        ("path/app/a1.md", "app"), ("path/app/a2.md", "app"),
        ("path/umbrella/u.md", "umbrella"), ("global/style.md", "GLOBAL")]


def test_work_below_a_scope_gets_all_matching_scopes_deepest_first(root: Path) -> None:
    assert _applies(root, "/w/app/pkg/sub") == [
        ("path/pkg/p.md", "pkg"), ("path/app/a1.md", "app"), ("path/app/a2.md", "app"),
        ("path/umbrella/u.md", "umbrella"), ("global/style.md", "GLOBAL")]


def test_umbrella_path_does_not_take_the_scopes_below_it(root: Path) -> None:
    assert _applies(root, "/w") == [("path/umbrella/u.md", "umbrella"), ("global/style.md", "GLOBAL")]
    excluded = _excluded(root, "/w")
    assert excluded["path/app/a1.md"] == "below" and excluded["path/pkg/p.md"] == "below"
    assert excluded["path/other/o.md"] == "below"


def test_umbrella_takes_scopes_below_when_asked(root: Path) -> None:
    got = _applies(root, "/w", include_below=True)
    assert ("path/app/a1.md", "app") in got and ("path/other/o.md", "other") in got
    assert got[-1] == ("global/style.md", "GLOBAL")


def test_sibling_scope_never_applies(root: Path) -> None:
    answer = applicability(load_root(root), "/w/other", STALE, include_below=True)
    assert [a.path for a in answer.applies] == ["path/other/o.md", "path/umbrella/u.md",
                                                "global/style.md"]
    why = {e.path: e for e in answer.excluded}
    assert why["path/app/a1.md"].reason == "sibling" and "/w/app" in why["path/app/a1.md"].why
    assert why["path/pkg/p.md"].reason == "sibling"


def test_outside_every_scope_only_global_applies(root: Path) -> None:
    assert _applies(root, "/elsewhere") == [("global/style.md", "GLOBAL")]


@pytest.mark.parametrize("where", ["/w", "/w/app", "/w/app/pkg", "/w/other", "/elsewhere"])
def test_superseded_archived_and_stale_never_apply_and_say_why(root: Path, where: str) -> None:
    answer = applicability(load_root(root), where, STALE)
    why = {e.path: (e.reason, e.why) for e in answer.excluded}
    assert why["global/old.md"] == ("superseded", "superseded by global/style.md")
    assert why["global/stale.md"] == ("stale", "stale: score 90 (prune)")
    assert why["archive/gone.md"][0] == "archived" and "archive/" in why["archive/gone.md"][1]
    assert why["path/app/b.md"] == ("archived", "archived: status: archived")
    applied = {a.path for a in answer.applies}
    assert not applied & {"global/old.md", "global/stale.md", "archive/gone.md", "path/app/b.md"}
    assert not any(p.endswith("SCOPE.md") for p in applied | set(why))


def test_every_memory_file_is_either_applied_or_excluded(root: Path) -> None:
    answer = applicability(load_root(root), "/w/app", STALE)
    listed = [a.path for a in answer.applies] + [e.path for e in answer.excluded]
    memories = [p for p in FILES if p.endswith(".md") and not p.startswith("MEMORY")
                and not p.endswith("SCOPE.md")]
    assert sorted(listed) == sorted(memories)


def test_a_root_without_scopes_applies_everywhere(make_root) -> None:
    root = make_root({"MEMORY.md": "# M\n- [A](a.md) — a\n", "a.md": topic("A")}, name="plain")
    answer = applicability(load_root(root), "/anything")
    assert [(a.path, a.scope) for a in answer.applies] == [("a.md", None)]
    assert "applies everywhere" in answer.applies[0].why


def test_scope_without_scope_line_is_excluded_with_reason(make_root) -> None:
    index = "## PATH_SCOPE: x\nMemory base: `path/x/`\n- `x.md` — x\n"
    root = make_root({"MEMORY.md": index, "path/x/SCOPE.md": "#\n", "path/x/x.md": topic("X")},
                     name="noscope")
    answer = applicability(load_root(root), "/w")
    assert answer.excluded[0].reason == "no-scope-path" and "no Scope:" in answer.excluded[0].why


def test_unindexed_file_takes_the_scope_of_its_memory_base(make_root) -> None:
    files = dict(FILES)
    files["path/pkg/extra.md"] = topic("Extra")  # reached by nothing: an orphan still has a scope
    root = make_root(files, name="extra")
    assert ("path/pkg/extra.md", "pkg") in _applies(root, "/w/app/pkg")
    assert _excluded(root, "/w/other")["path/pkg/extra.md"] == "sibling"


@pytest.mark.parametrize(("scope", "path", "kind"), [
    ("/w/app", "/w/app", "same"), ("/w", "/w/app", "above"), ("/w/app", "/w", "below"),
    ("/w/app", "/w/apple", "sibling"), ("/w/app", "/w/other", "sibling"), ("/", "/w", "above"),
])
def test_relation_compares_whole_components(scope: str, path: str, kind: str) -> None:
    assert relation(scope, path) == kind


def test_normalize_expands_home_and_refuses_relative(root: Path) -> None:
    assert normalize("~/p/../q/", home="/home/u") == "/home/u/q"
    assert normalize("rel/path") == ""
    with pytest.raises(ValueError, match="not an absolute path"):
        applicability(load_root(root), "w/app")


def test_cli_applies_json_shape(root: Path, capsys) -> None:
    code = main(["applies", "/w/app/pkg", str(root), "--json", "--no-stale"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and set(data) == {"path", "root", "applies", "excluded"}
    assert data["path"] == "/w/app/pkg" and data["root"] == str(root)
    assert [a["path"] for a in data["applies"]][:2] == ["path/pkg/p.md", "path/app/a1.md"]
    assert set(data["applies"][0]) == {"path", "scope", "why"}
    assert {"path", "why"} <= set(data["excluded"][0])
    # without staleness scoring the stale file counts as current
    assert "global/stale.md" in [a["path"] for a in data["applies"]]


def test_cli_applies_scores_staleness(make_root, capsys) -> None:
    files = dict(FILES)
    files["global/stale.md"] = topic("Stale", updated="2020-01-01")
    root = make_root(files, name="scored")
    code = main(["applies", "/w/app", str(root), "--json", "--now", "2026-11-30"])
    data = json.loads(capsys.readouterr().out)
    excluded = {e["path"]: e for e in data["excluded"]}
    assert code == 0 and excluded["global/stale.md"]["reason"] == "stale"
    assert excluded["global/stale.md"]["why"].startswith("stale: score")


def test_cli_applies_human_output_and_usage_errors(root: Path, capsys) -> None:
    assert main(["applies", "/w/app", str(root), "--no-stale"]) == 0
    out = capsys.readouterr().out
    assert "path/app/a1.md" in out and "does not apply" in out and "sibling" not in out
    assert "elsewhere" in out
    assert main(["applies", "/no/such/dir/anywhere"]) == 2
    assert "no such folder" in capsys.readouterr().err
    assert main(["applies", "/w", str(root / "missing")]) == 2
