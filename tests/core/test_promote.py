"""Layers (DESIGN §11): the layers `memtui list` shows, and the same fact in two layers."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core.discover import encode_project_path
from memtui.core.layers import cross_layer_duplicates, layer_of
from memtui.core.store import load_root
from tests.conftest import topic
from tests.core.writer_support import VALID_ROOT

SHARED_INDEX = "# Team memory\n\n## Recent\n- [Build](build.md) — how the build runs\n"
SHARED = {"MEMORY.md": SHARED_INDEX, "build.md": topic("Build", "how the build runs")}


@pytest.fixture
def layers(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A project (a git work tree with a shared ``memory/`` and one agent's memory) and its
    machine-local Claude Code folder under a fake home: (local, shared, agent)."""
    project = tmp_path / "work" / "proj"
    project.mkdir(parents=True)
    subprocess.run(["git", "init", "-q", str(project)], check=True)
    local = tmp_path / "home" / ".claude" / "projects" / encode_project_path(project) / "memory"
    shared = project / "memory"
    agent = project / ".claude" / "agent-memory" / "reviewer"
    for root, files in ((local, VALID_ROOT), (shared, SHARED),
                        (agent, {"MEMORY.md": "# Reviewer\n- [Style](style.md) — review style\n",
                                 "style.md": topic("Style", "review style")})):
        root.mkdir(parents=True)
        for rel, text in files.items():
            (root / rel).write_bytes(text.encode() if isinstance(text, str) else text)
    return local, shared, agent


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


FACT = ("Staging deploys run from the release branch only; the pipeline refuses tags pushed "
        "from feature branches, and the smoke suite must pass before promotion to production.\n")


def test_the_same_fact_in_two_layers_is_found(layers: tuple[Path, Path, Path], tmp_path: Path,
                                              capsys) -> None:
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
    assert main(["list", str(tmp_path)]) == 0
    assert "1 fact kept in two layers" in capsys.readouterr().out


def test_files_within_one_root_are_never_cross_layer_duplicates(make_root) -> None:
    root = make_root({"MEMORY.md": "- [A](a.md) — x\n- [B](b.md) — x\n",
                      "a.md": topic("Same", "same words here"), "b.md": topic("Same", "same words here")})
    assert cross_layer_duplicates([load_root(root)]) == []
