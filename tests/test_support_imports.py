"""The tests' shared helpers have one import path, ``tests.support``: no test imports
``conftest`` (pytest's hooks and fixtures only), another test module, or a helper by a bare
name that only a ``sys.path`` entry makes importable."""

from __future__ import annotations

import ast
from pathlib import Path

TESTS = Path(__file__).resolve().parent


def imported_modules(path: Path) -> set[str]:
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and not node.level and node.module:
            names.add(node.module)
    return names


def wrong_imports(path: Path) -> list[str]:
    """What ``path`` imports other than memtui, the standard library, third parties and
    ``tests.support``: conftest, a test module, a bare helper name, another tests package."""
    local = {p.stem for p in TESTS.rglob("*.py")}
    out = []
    for name in sorted(imported_modules(path)):
        last = name.rpartition(".")[2]
        if (name in ("conftest", "tests.conftest") or last.startswith("test_") or name in local
                or name.startswith("tests.") and not name.startswith("tests.support")):
            out.append(name)
    return out


def test_helpers_come_from_tests_support() -> None:
    broken = [f"{path.relative_to(TESTS.parent)} imports {name}"
              for path in sorted(TESTS.rglob("*.py")) for name in wrong_imports(path)]
    assert not broken, "\n".join(broken)


def test_the_check_sees_a_wrong_import(tmp_path: Path) -> None:
    assert wrong_imports(TESTS / "conftest.py") == []  # it imports tests.support.roots
    bad = tmp_path / "test_probe.py"
    bad.write_text("from conftest import topic\nfrom tests.core.test_escapes import x\nimport roots\n"
                   "from tests.core import writer_support\nfrom tests.support.roots import topic\n",
                   encoding="utf-8")
    assert wrong_imports(bad) == ["conftest", "roots", "tests.core", "tests.core.test_escapes"]
