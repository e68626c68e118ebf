"""The core never imports Textual, and the CLI does not import heavy modules it does not need."""

from __future__ import annotations

import subprocess
import sys


def modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def test_core_does_not_import_textual() -> None:
    loaded = modules_after(
        "import importlib, pkgutil, memtui.core\n"
        "for m in pkgutil.iter_modules(memtui.core.__path__):\n"
        "    importlib.import_module('memtui.core.' + m.name)"
    )
    assert not {m for m in loaded if m == "textual" or m.startswith("textual.")}


def test_cli_parser_does_not_import_textual() -> None:
    loaded = modules_after("from memtui.cli.main import build_parser\nbuild_parser()")
    assert "textual" not in loaded


def test_core_imports_nothing_above_it() -> None:
    """The arrow of dependency runs one way: nothing in the core imports the app's layers."""
    loaded = modules_after(
        "import importlib, pkgutil, memtui.core\n"
        "for m in pkgutil.iter_modules(memtui.core.__path__):\n"
        "    importlib.import_module('memtui.core.' + m.name)"
    )
    upward = ("memtui.app", "memtui.actions", "memtui.commands", "memtui.services",
              "memtui.widgets", "memtui.screens", "memtui.cli")
    assert not {m for m in loaded if m.startswith(upward)}
