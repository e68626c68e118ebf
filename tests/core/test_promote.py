"""Layers and promotion across them (DESIGN §11): the layers `memtui list` shows, the same fact in
two layers, and `promote FILE --to ROOT` — both roots gated, one record, one undo, crash-safe."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core import write
from memtui.core.judge.layers import cross_layer_duplicates, layer_of
from memtui.core.model.journal import list_records
from memtui.core.read.store import load_root
from memtui.core.rules.validate import errors, validate
from memtui.core.verbs.promote import Collision, promotion
from memtui.core.write import commit_group, plan_group
from memtui.core.write import fs as write_fs
from tests.support.layers import FACT, SHARED, SHARED_INDEX
from tests.support.roots import topic
from tests.support.writer import Crash, Faults, tree


def files(root: Path) -> dict[str, bytes | None]:
    """Every file's bytes and every folder under a root (``.memtui/`` left out)."""
    return tree(root)


def _error_keys(root: Path) -> set[tuple[str, str, str]]:
    return {f.key for f in errors(validate(load_root(root)))}


def _promote(local: Path, shared: Path, path: str = "alpha.md"):  # type: ignore[no-untyped-def]
    source, target = load_root(local), load_root(shared)
    out_of, into = promotion(source, path, target)
    return commit_group(plan_group([(source, out_of), (target, into)]))


# ---------------------------------------------------------------- layers


def test_layer_of_reads_the_path(layers: tuple[Path, Path, Path], tmp_path: Path) -> None:
    local, shared, agent = layers
    assert [layer_of(r) for r in layers] == ["machine-local", "shared", "agents"]
    assert layer_of(tmp_path) == "other"


def test_list_groups_a_projects_roots_by_layer(layers: tuple[Path, Path, Path], tmp_path: Path,
                                               capsys) -> None:
    local, shared, agent = layers
    assert main(["list", str(tmp_path), "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [(Path(o["root"]), o["layer"]) for o in data] == [
        (local, "machine-local"), (shared, "shared"), (agent, "agents")]
    assert {o["project"] for o in data} == {str(tmp_path / "work" / "proj")}
    assert main(["list", str(tmp_path)]) == 0
    out = capsys.readouterr().out
    assert out.index("machine-local") < out.index("shared") < out.index("agents")


def test_the_same_fact_in_two_layers_is_found(layers: tuple[Path, Path, Path], tmp_path: Path,
                                              capsys, monkeypatch) -> None:
    local, shared, _ = layers
    (local / "deploy_rule.md").write_text(topic("Staging deploy rule", "release branch only", body=FACT))
    with open(local / "MEMORY.md", "a") as index:
        index.write("- [Staging deploy rule](deploy_rule.md) — release branch only\n")
    (shared / "staging.md").write_text(topic("Staging deploys", "from release",
                                             body=FACT.replace("only;", "only —")))
    (shared / "MEMORY.md").write_text(SHARED_INDEX + "- [Staging](staging.md) — from release\n")
    found = cross_layer_duplicates([load_root(local), load_root(shared)])
    assert [(d.a, d.b) for d in found] == [("deploy_rule.md", "staging.md")]
    assert found[0].root_a == str(local) and found[0].root_b == str(shared)
    assert found[0].similarity > 0.9
    assert main(["list", str(tmp_path), "--json"]) == 0
    data = {o["layer"]: o for o in json.loads(capsys.readouterr().out)}
    assert data["machine-local"]["duplicates_across_layers"] == data["shared"]["duplicates_across_layers"]
    assert len(data["shared"]["duplicates_across_layers"]) == 1
    assert data["agents"]["duplicates_across_layers"] == []
    assert main(["list", str(tmp_path)]) == 0  # piped: the rows on stdout, the note on stderr
    captured = capsys.readouterr()
    assert "1 fact kept in two layers" in captured.err and "deploy_rule.md" in captured.err
    assert "kept in two layers" not in captured.out and captured.out.startswith("layer\troot\t")
    monkeypatch.setenv("COLUMNS", "200")  # the table a terminal shows, the note below it
    assert main(["list", str(tmp_path)]) == 0
    assert "1 fact kept in two layers" in capsys.readouterr().out


def test_files_within_one_root_are_never_cross_layer_duplicates(make_root) -> None:
    root = make_root({"MEMORY.md": "- [A](a.md) — x\n- [B](b.md) — x\n",
                      "a.md": topic("Same", "same words here"), "b.md": topic("Same", "same words here")})
    assert cross_layer_duplicates([load_root(root)]) == []


# ---------------------------------------------------------------- promotion


def test_promote_local_to_shared(layers: tuple[Path, Path, Path]) -> None:
    local, shared, _ = layers
    before_errors = (_error_keys(local), _error_keys(shared))
    original = load_root(local).files["alpha.md"]
    applied = _promote(local, shared)
    assert len(applied.record_ids) == 2
    # both roots validate with no new error
    assert (_error_keys(local), _error_keys(shared)) == before_errors == (set(), set())
    moved = load_root(shared).files["alpha.md"]
    assert moved.body == original.body and moved.data.endswith(original.body.encode())
    assert moved.frontmatter.get("promoted_from") == str(local / "alpha.md")
    assert moved.text.replace(f"promoted_from: {local / 'alpha.md'}\n", "") == original.text
    shared_index = (shared / "MEMORY.md").read_text()
    assert shared_index.index("(alpha.md)") < shared_index.index("(build.md)")  # top of Recent
    # the source keeps it reachable: archived intact, and the archive index points at the new home
    assert "alpha.md" not in (local / "MEMORY.md").read_text()
    assert (local / "archive" / "alpha.md").read_bytes() == original.data
    archive_line = (local / "MEMORY-archive.md").read_text().splitlines()[-1]
    assert archive_line.startswith("- [Alpha](archive/alpha.md) — promoted to the shared layer on ")
    assert f"[new home]({(shared / 'alpha.md').as_uri()})" in archive_line


def test_one_undo_from_either_root_restores_both_byte_for_byte(layers: tuple[Path, Path, Path]) -> None:
    local, shared, _ = layers
    for undo_from in (local, shared):
        trees = (files(local), files(shared))
        _promote(local, shared)
        assert (files(local), files(shared)) != trees
        write.undo(write.open_root(undo_from))
        assert (files(local), files(shared)) == trees
    # and redo, from the other root, brings the promotion back in both
    write.redo(write.open_root(shared))
    assert (shared / "alpha.md").exists() and (local / "archive" / "alpha.md").exists()


def test_undo_refuses_while_the_other_root_has_a_newer_change(layers: tuple[Path, Path, Path]) -> None:
    local, shared, _ = layers
    from memtui.core.verbs import lifecycle as verbs

    _promote(local, shared)
    snapshot = load_root(shared)
    write.run(snapshot, verbs.pin(snapshot, "build.md"))
    trees = (tree(local), tree(shared))
    with pytest.raises(write.NothingToUndo, match="newer change"):
        write.undo(write.open_root(local))
    assert (tree(local), tree(shared)) == trees


def test_a_promotion_the_target_gate_refuses_changes_neither_root(layers: tuple[Path, Path, Path]) -> None:
    local, shared, _ = layers
    full = SHARED_INDEX + "".join(f"note {i}\n" for i in range(196))
    (shared / "MEMORY.md").write_text(full)
    assert len(full.splitlines()) == 200
    trees = (tree(local, include_memtui=True), tree(shared, include_memtui=True))
    source, target = load_root(local), load_root(shared)
    group = plan_group([(source, *promotion(source, "alpha.md", target)[:1]),
                        (target, promotion(source, "alpha.md", target)[1])])
    assert not group.accepted and group.refused is not None
    assert str(group.refused.before.root) == str(shared)
    assert any(f.rule == "budget-lines" for f in group.refused.gate.refusing)
    with pytest.raises(write.Refused):
        commit_group(group)
    assert (tree(local, include_memtui=True), tree(shared, include_memtui=True)) == trees


def test_a_name_taken_in_the_target_refuses_before_anything(layers: tuple[Path, Path, Path]) -> None:
    local, shared, _ = layers
    (shared / "alpha.md").write_text(topic("Other alpha"))
    with pytest.raises(Collision, match="already holds 'alpha.md'"):
        promotion(load_root(local), "alpha.md", load_root(shared))


def test_a_file_reached_by_a_region_promotes_and_the_region_keeps_its_match(make_root) -> None:
    local = make_root({"MEMORY.md": "# M\n- region `only_*.md` → the one\n",
                       "only_one.md": topic("Only")}, name="src")
    shared = make_root(SHARED, name="dst")
    source, target = load_root(local), load_root(shared)
    commit_group(plan_group(list(zip((source, target), promotion(source, "only_one.md", target)))))
    assert _error_keys(local) == set() and _error_keys(shared) == set()
    assert (local / "archive" / "only_one.md").exists() and (shared / "only_one.md").exists()


@pytest.fixture
def no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(write_fs.os, "fsync", lambda fd: None)


def test_a_crash_at_any_step_is_recovered_to_before_or_after_in_both(
        layers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch, no_fsync: None,
        tmp_path: Path) -> None:
    import shutil

    local, shared, _ = layers
    pristine = tmp_path / "pristine"
    shutil.copytree(tmp_path / "home", pristine / "home")
    shutil.copytree(tmp_path / "work", pristine / "work")
    before = (tree(local), tree(shared))
    counter = Faults(monkeypatch)
    _promote(local, shared)
    steps, after = counter.count, (tree(local), tree(shared))
    monkeypatch.undo()
    monkeypatch.setattr(write_fs.os, "fsync", lambda fd: None)
    outcomes = []
    for k in range(1, steps + 1):
        for name in ("home", "work"):
            shutil.rmtree(tmp_path / name)
            shutil.copytree(pristine / name, tmp_path / name)
        source, target = load_root(local), load_root(shared)
        group = plan_group(list(zip((source, target), promotion(source, "alpha.md", target))))
        faults = Faults(monkeypatch, fail_at=k, error=Crash)
        with pytest.raises(Crash):
            commit_group(group)
        applied_local = tree(local) != before[0]
        applied_shared = tree(shared) != before[1]
        for first in ((local, shared) if k % 2 else (shared, local)):  # either root opened first
            write.recover(first)
        state = (tree(local), tree(shared))
        assert state in (before, after), f"crash at step {k} ({faults.calls[-1]}) left a mix"
        assert not any(r.state == "pending" for root in (local, shared) for r in list_records(root))
        outcomes.append((state == after, applied_local != applied_shared))
        monkeypatch.undo()
        monkeypatch.setattr(write_fs.os, "fsync", lambda fd: None)
    assert outcomes[-1][0] and not outcomes[0][0]
    # some crash fell between the two roots' writes (one root changed on disk, the other not)
    assert any(between for _, between in outcomes)


@pytest.mark.parametrize("kind", ["undo", "redo"])
def test_a_crash_at_any_step_of_the_undo_or_redo_of_a_promotion_ends_before_or_after_in_both(
        layers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch, no_fsync: None,
        tmp_path: Path, kind: str) -> None:
    """The archive/ folder the promotion made in the source is part of the change: an undo
    removes it (empty) before its commit mark, a redo makes it again, and a crash anywhere in
    either leaves it exactly as one of the two states has it — never an empty archive/ beside
    the undone promotion."""
    import shutil

    local, shared, _ = layers
    before = (tree(local), tree(shared))
    assert "archive/" not in before[0]
    _promote(local, shared)
    promoted = (tree(local), tree(shared))
    assert "archive/" in promoted[0]
    if kind == "redo":
        write.undo(write.open_root(local))
        assert (tree(local), tree(shared)) == before
    replay = write.undo if kind == "undo" else write.redo
    start, end = (promoted, before) if kind == "undo" else (before, promoted)
    pristine = tmp_path / "pristine"
    for name in ("home", "work"):
        shutil.copytree(tmp_path / name, pristine / name)
    counter = Faults(monkeypatch)
    replay(write.open_root(local))
    steps = counter.count
    monkeypatch.undo()
    monkeypatch.setattr(write_fs.os, "fsync", lambda fd: None)
    assert (tree(local), tree(shared)) == end
    ends = []
    for k in range(1, steps + 1):
        for name in ("home", "work"):
            shutil.rmtree(tmp_path / name)
            shutil.copytree(pristine / name, tmp_path / name)
        snapshot = write.open_root(local)
        with monkeypatch.context() as patch:
            faults = Faults(patch, fail_at=k, error=Crash)
            with pytest.raises(Crash):
                replay(snapshot)
        for first in ((local, shared) if k % 2 else (shared, local)):  # either root opened first
            write.recover(first)
        state = (tree(local), tree(shared))
        assert state in (start, end), f"{kind}: crash at step {k} of {steps} ({faults.calls[-1]}) left a mix"
        ends.append(state == end)
    assert ends[-1] and not ends[0]


def test_recovering_one_root_alone_follows_the_coordinator(
        layers: tuple[Path, Path, Path], monkeypatch: pytest.MonkeyPatch) -> None:
    local, shared, _ = layers
    before = (tree(local), tree(shared))
    source, target = load_root(local), load_root(shared)
    group = plan_group(list(zip((source, target), promotion(source, "alpha.md", target))))
    first, second = (Path(p.before.root) for p in group.previews)
    real_mark = write_fs.mark_record

    def crash_after_the_decision(root: Path, rid: str, state: str) -> None:
        real_mark(root, rid, state)
        if Path(root) == first:
            raise Crash()

    monkeypatch.setattr(write_fs, "mark_record", crash_after_the_decision)
    with pytest.raises(Crash):
        commit_group(group)
    monkeypatch.undo()
    assert [r.state for r in list_records(second)] == ["pending"]
    write.recover(second)  # the coordinator committed: the other half is finished, not undone
    assert [r.state for r in list_records(second)] == ["committed"]
    assert (tree(local), tree(shared)) != before and (shared / "alpha.md").exists()


@pytest.mark.parametrize("group", [
    None, "nonsense", {"coordinator": "relative/root", "members": [{"root": "relative/root",
                                                                    "record": "00000001-do"}]},
    {"coordinator": "/elsewhere", "members": [{"root": "/elsewhere", "record": "../../x"}]},
    {"coordinator": "/elsewhere", "members": []},
])
def test_a_malformed_group_never_finishes_a_pending_half(group: object) -> None:
    from memtui.core.write.recovery import resolve_pending

    assert resolve_pending({"group": group}) in (None, False)
    assert resolve_pending({}) is None


# ---------------------------------------------------------------- the command line


def test_cli_promote_to_root_and_undo(layers: tuple[Path, Path, Path], capsys) -> None:
    local, shared, _ = layers
    trees = (files(local), files(shared))
    code = main(["promote", str(local / "alpha.md"), "--to", str(shared), "--dry-run", "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 0 and data["accepted"] and data["dry_run"] and data["ids"] == []
    assert [Path(r["root"]) for r in data["roots"]] == sorted([local, shared], key=os.path.realpath)
    assert (files(local), files(shared)) == trees
    code = main(["promote", str(local / "alpha.md"), "--to", str(shared)])
    out = capsys.readouterr().out
    assert code == 0 and "applied" in out and (shared / "alpha.md").exists()
    assert main(["undo", str(shared)]) == 0
    capsys.readouterr()
    assert (files(local), files(shared)) == trees


def test_cli_promote_refusals_and_mistakes(layers: tuple[Path, Path, Path], capsys) -> None:
    local, shared, agent = layers
    (agent / "alpha.md").write_text(topic("Taken"))
    code = main(["promote", str(local / "alpha.md"), "--to", str(agent)])
    assert code == 1 and "already holds 'alpha.md'" in capsys.readouterr().err
    assert main(["promote", str(local / "alpha.md"), "--to", str(local.parent)]) == 2
    assert "no MEMORY.md there" in capsys.readouterr().err
    assert main(["promote", str(local / "alpha.md"), str(local / "beta.md"), "--to", str(shared)]) == 2
    assert "one file at a time" in capsys.readouterr().err


def test_cli_promote_into_a_path_the_target_cannot_hold(layers: tuple[Path, Path, Path],
                                                        capsys) -> None:
    local, shared, _ = layers
    (local / "sub").mkdir()
    (local / "sub" / "x.md").write_text(topic("X"))
    with open(local / "MEMORY.md", "a") as index:
        index.write("- [X](sub/x.md) — x\n")
    (shared / "sub").mkdir()
    (shared / "sub" / "MEMORY.md").write_text("# nested\n")  # another root inside the target
    trees = (tree(local), tree(shared))
    assert main(["promote", str(local / "sub" / "x.md"), "--to", str(shared)]) == 2
    assert "nested root" in capsys.readouterr().err
    assert (tree(local), tree(shared)) == trees
