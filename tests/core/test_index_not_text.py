"""A ``MEMORY.md`` that is not an index file says what it is: a folder, or binary bytes."""

from __future__ import annotations

import random

import pytest

from memtui.cli.main import main
from memtui.core.read.store import load_root
from memtui.core.rules.validate import validate
from tests.support.roots import MakeRoot, topic

A = topic("Alpha", "alpha fact")


def noise(size: int = 3000) -> bytes:
    """Bytes as a binary file holds them (fixed seed: the same every run)."""
    return random.Random(24).randbytes(size)


def test_a_memory_md_folder_is_called_a_folder(make_root: MakeRoot,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    root = make_root({"a.md": A, "MEMORY.md/notes.md": A})
    [finding] = [f for f in validate(load_root(root)) if f.rule == "index-missing"]
    assert finding.message.startswith("MEMORY.md is a folder, not a file")
    assert main(["loaded", str(root)]) == 0
    assert "MEMORY.md not read (a folder, not a file)" in capsys.readouterr().out


def test_a_memory_md_of_random_bytes_is_not_text(make_root: MakeRoot,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    root = make_root({"MEMORY.md": noise()})
    findings = validate(load_root(root))
    assert [f.rule for f in findings] == ["index-missing"]  # one error, no warning per line
    assert findings[0].message.startswith("MEMORY.md is not text: ")
    assert main(["validate", str(root)]) == 1
    assert "ok" not in capsys.readouterr().out.split()


@pytest.mark.parametrize("text", [
    "# Memory\n\n- [Alpha](a.md) — the alpha fact\n",
    "# Memory\n\n- [Alpha](a.md) - caf\xe9 in Latin-1\n",  # one stray byte is not a binary file
    "# Memory\n\n- [Alpha](a.md) — a bell \x07 rings\n",
])
def test_an_index_with_a_stray_character_is_still_text(make_root: MakeRoot, text: str) -> None:
    data = text.encode("latin-1") if "caf" in text else text.encode("utf-8")
    root = make_root({"MEMORY.md": data, "a.md": A})
    assert not [f for f in validate(load_root(root)) if f.rule == "index-missing"]
