"""A project's memory in three layers (machine-local, shared, one agent's) and a fact worth
finding in two of them."""

from __future__ import annotations

import subprocess
from pathlib import Path

from memtui.core.roots.discover import encode_project_path
from tests.support.roots import topic
from tests.support.writer import VALID_ROOT

SHARED_INDEX = "# Team memory\n\n## Recent\n- [Build](build.md) — how the build runs\n"
SHARED = {"MEMORY.md": SHARED_INDEX, "build.md": topic("Build", "how the build runs")}


def make_layers(tmp_path: Path) -> tuple[Path, Path, Path]:
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


FACT = ("Staging deploys run from the release branch only; the pipeline refuses tags pushed "
        "from feature branches, and the smoke suite must pass before promotion to production.\n")
