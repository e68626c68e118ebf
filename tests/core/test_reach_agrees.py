"""One reachability model: the Files view's reach column, its region coverage, the verbs'
``region_covers`` and the ``orphan`` rule give the same answer for every file of every corpus root
and of the demo."""

from __future__ import annotations

from pathlib import Path

import pytest

from memtui.core.model.snapshot import LineKind
from memtui.core.read.store import load_root
from memtui.core.rules.validate import ORPHAN, REGION, SCOPE, TEAM, glob_matches, validate
from memtui.core.verbs.lifecycle import region_covers
from memtui.services.workspace import full_workspace
from tests.support.roots import MakeRoot, corpus_roots

ROOTS = corpus_roots()


def assert_one_reach(root: Path) -> None:
    workspace = full_workspace(root)
    snapshot = workspace.snapshot
    findings = validate(load_root(root))  # the validator's own, not the workspace's cache
    orphans = {f.path for f in findings if f.rule == "orphan"}
    team = {f.path for f in findings if f.rule == "team-unreachable"}
    shown = {row.path: row.reach for row in workspace.files}
    assert list(shown) == list(snapshot.files)
    if snapshot.index.exists:
        assert {path for path, how in shown.items() if how == ORPHAN} == orphans
        assert {path for path, how in shown.items() if how == TEAM} == team
    else:  # index-missing: every file is an orphan until an index exists (DESIGN §1.5)
        assert not orphans and set(shown.values()) <= {ORPHAN, TEAM}
    assert workspace.coverage is not None
    regions = snapshot.index.regions
    for path in snapshot.files:
        globs = [line.glob for line in regions if glob_matches(line.glob, path)]
        assert workspace.coverage.region_of.get(path) == (globs[0] if globs else None), path
        assert region_covers(snapshot.index, path) == bool(globs), path
        if shown[path] == REGION:
            assert globs, path
        said = workspace.reachability(path)
        assert ("(orphan)" in said[0]) == (shown[path] == ORPHAN), (path, said)
        assert (shown[path] == SCOPE) == ("SCOPE.md of a path scope" in said[0]), (path, said)
        assert (shown[path] == TEAM) == ("team-unreachable" in said[0]), (path, said)
    for line in regions:
        if line.kind is LineKind.REGION and line.glob in workspace.coverage.counts:
            assert workspace.coverage.counts[line.glob] == \
                sum(1 for path in snapshot.files if glob_matches(line.glob, path))


@pytest.mark.skipif(not ROOTS, reason="corpora not available")
@pytest.mark.parametrize("root", ROOTS, ids=[root.name for root in ROOTS])
def test_files_view_and_orphan_rule_agree_on_a_corpus_root(root: Path) -> None:
    assert_one_reach(root)


def test_files_view_and_orphan_rule_agree_on_the_demo(demo_root: Path) -> None:
    assert_one_reach(demo_root)


def test_a_scope_file_is_neither_an_orphan_nor_shown_as_one(make_root: MakeRoot) -> None:
    root = make_root({
        "MEMORY.md": "# Memory\n## PATH_SCOPE: api\nScope: `/srv/api`\nMemory base: `path/api/`\n"
                     "- [notes](path/api/notes.md) — the api notes\n",
        "path/api/SCOPE.md": "# api\n",
        "path/api/notes.md": "---\nname: notes\ndescription: d\ntype: project\n---\nBody.\n",
    })
    assert_one_reach(root)
    rows = {row.path: row.reach for row in full_workspace(root).files}
    assert rows["path/api/SCOPE.md"] == SCOPE


def test_an_unreached_team_file_is_shown_as_team_not_orphan(make_root: MakeRoot) -> None:
    root = make_root({
        "MEMORY.md": "# Memory\n- [notes](notes.md) — the notes\n",
        "notes.md": "---\nname: notes\ndescription: d\ntype: project\n---\nBody.\n",
        "team/shared.md": "---\nname: shared\ndescription: d\ntype: project\n---\nBody.\n",
    })
    assert_one_reach(root)
    rows = {row.path: row.reach for row in full_workspace(root).files}
    assert rows["team/shared.md"] == TEAM
