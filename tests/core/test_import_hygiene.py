"""The import nevers: a table of arrows the house never draws, checked over every module of
``memtui`` (``pkgutil.walk_packages``, so sub-packages such as ``core/write`` count), every import
statement in it (at the top, in a function, under ``TYPE_CHECKING``), and what importing a layer
actually loads."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path


def modules_after(code: str) -> set[str]:
    out = subprocess.run([sys.executable, "-c", code + "\nimport sys\nprint('\\n'.join(sys.modules))"],
                         capture_output=True, text=True, check=True).stdout
    return set(out.split())


def loaded_by(package: str) -> set[str]:
    """What importing every module of a package (its sub-packages too) loads, in a fresh process."""
    return modules_after(
        f"import importlib, pkgutil, {package}\n"
        f"for m in pkgutil.walk_packages({package}.__path__, '{package}.'):\n"
        "    importlib.import_module(m.name)"
    )


def test_core_does_not_import_textual() -> None:
    loaded = loaded_by("memtui.core")
    assert "memtui.core.write.fs" in loaded  # the walk reached the sub-package
    assert not {m for m in loaded if m == "textual" or m.startswith("textual.")}


def test_services_do_not_load_textual() -> None:
    loaded = loaded_by("memtui.services")
    assert "memtui.services.workspace" in loaded
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


# ---------------------------------------------------------------- the app's arrows, as a table

PACKAGE = Path(__file__).resolve().parents[2] / "memtui"

#: (package, what it never imports, why) — every import statement counts, those under
#: ``if TYPE_CHECKING:`` too (a type-only arrow is still an arrow a reader follows)
APP_NEVERS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("memtui.widgets", ("memtui.cli", "memtui.commands", "memtui.app", "memtui.actions",
                        "memtui.screens"),
     "a widget draws and posts messages; it knows no screen, command, app or CLI"),
    ("memtui.commands", ("memtui.app", "memtui.actions", "memtui.cli"),
     "the commands see the app only as their CommandHost protocol"),
    ("memtui.screens", ("memtui.app", "memtui.actions", "memtui.cli"),
     "a screen posts messages up; it never calls the app"),
    ("memtui.services", ("textual", "memtui.widgets", "memtui.screens", "memtui.commands",
                         "memtui.app", "memtui.actions", "memtui.cli"),
     "services are plain Python under the app"),
    ("memtui.terminal_text", ("memtui", "textual", "rich"), "a leaf both the CLI and widgets use"),
)


def imported_names(path: Path) -> set[str]:
    """Every module an ``import`` or ``from … import`` in the file names (relative ones resolved)."""
    package = "memtui." + ".".join(path.relative_to(PACKAGE).with_suffix("").parts)
    if path.name == "__init__.py":
        package = package.removesuffix(".__init__") + ".__init__"
    names: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package.split(".")[: -node.level]
                module = ".".join(base + ([node.module] if node.module else []))
            else:
                module = node.module or ""
            names.add(module)
            names.update(f"{module}.{alias.name}" for alias in node.names)
    return names


def test_the_app_arrows_run_one_way() -> None:
    broken: list[str] = []
    for package, nevers, why in APP_NEVERS:
        base = PACKAGE.joinpath(*package.split(".")[1:])
        files = sorted(base.rglob("*.py")) if base.is_dir() else [base.with_suffix(".py")]
        assert files, package
        for path in files:
            for name in imported_names(path):
                if any(name == never or name.startswith(never + ".") for never in nevers):
                    broken.append(f"{path.relative_to(PACKAGE.parent)} imports {name} ({why})")
    assert not broken, "\n".join(broken)
