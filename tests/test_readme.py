"""The README's two commands stay true: CI runs exactly its test command."""

from __future__ import annotations

import re
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]


def shell_blocks() -> list[str]:
    text = (PROJECT / "README.md").read_text(encoding="utf-8")
    return [b.strip() for b in re.findall(r"```sh\n(.*?)```", text, re.S)]


def test_ci_runs_the_readme_test_command() -> None:
    blocks = shell_blocks()
    test_command = next(b for b in blocks if "pytest" in b)
    ci = (PROJECT / ".ci" / "run").read_text(encoding="utf-8")
    assert test_command in ci.splitlines()


def test_readme_demo_command_comes_first() -> None:
    first = shell_blocks()[0]
    assert "pip install -e ." in first and "memtui" in first.split("&&")[-1]


def test_readme_key_table_is_the_registry() -> None:
    from memtui.commands import key_table_markdown

    text = (PROJECT / "README.md").read_text(encoding="utf-8")
    table = text.split("<!-- keys:start -->\n", 1)[1].split("\n<!-- keys:end -->", 1)[0]
    assert table.strip() == key_table_markdown().strip()
