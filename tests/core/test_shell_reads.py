"""The memory files a Bash command reads and writes, from the command as Claude Code 2.1.332
records it verbatim (quotes, globs, a leading ``cd`` kept; CLAUDE-CODE.md "Bash reads")."""

from __future__ import annotations

import pytest

from memtui.core.stores.shell_reads import shell_paths

M = "/cfg/projects/-proj/memory"


@pytest.mark.parametrize(("command", "reads", "writes"), [
    # the five commands of one measured turn, exactly as the transcript holds them
    (f"head -n 3 {M}/MEMORY.md", [f"{M}/MEMORY.md"], []),
    (f"sed -n '1,2p' '{M}/project_deploys.md'", [f"{M}/project_deploys.md"], []),
    (f"grep -n Tuesday {M}/*.md", [f"{M}/*.md"], []),  # the glob is matched by the caller
    (f"cd {M} && cat MEMORY.md", [f"{M}/MEMORY.md"], []),
    (f'cat "{M}/project_deploys.md" | wc -l', [f"{M}/project_deploys.md"], []),
    # writes
    (f"printf x >> {M}/a.md", [], [f"{M}/a.md"]),
    (f"echo x | tee -a {M}/a.md", [], [f"{M}/a.md"]),
    (f"sed -i 's/a/b/' {M}/a.md", [], [f"{M}/a.md"]),
    (f"cat >> {M}/a.md <<'EOF'\n- [B](b.md) — see c.md\nEOF", [], [f"{M}/a.md"]),
    (f"cd {M}\ncat <<-EOF > a.md\n\tb.md\n\tEOF\nhead b.md", [f"{M}/b.md"], [f"{M}/a.md"]),
    # nothing: not Markdown, a pattern, a here-string, an unbalanced quote, no program of note
    (f"cat {M}/notes.txt", [], []),
    ("grep -rn notes.md src/", [], []),
    ("grep x <<< a.md", [], []),
    (f"cat '{M}/a.md", [], []),
    (f"ls {M}/a.md", [], []),
])
def test_shell_paths(command: str, reads: list[str], writes: list[str]) -> None:
    assert shell_paths(command, "/proj") == (reads, writes)


def test_a_relative_path_is_made_absolute_against_the_working_folder() -> None:
    assert shell_paths("cat notes.md && cd sub; head ../x.md", "/proj") == (
        ["/proj/notes.md", "/proj/x.md"], [])
    assert shell_paths("cat notes.md", None) == ([], [])
