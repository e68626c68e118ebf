"""The import nevers: a table of arrows the house never draws, checked over every module of
``memtui`` (``pkgutil.walk_packages``, so sub-packages such as ``core/write`` count), every import
statement in it (at the top, in a function, under ``TYPE_CHECKING``), and what importing a layer
actually loads."""

from __future__ import annotations

import ast
import importlib.util
import pkgutil
import subprocess
import sys
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

import pytest

import memtui

#: the writer's modules that code outside it may read from (stored state, read side)
WRITER_READ_SIDE = ("memtui.core.write.journal", "memtui.core.write.safepath")
#: every layer above the core
ABOVE_CORE = ("memtui.app", "memtui.actions", "memtui.commands", "memtui.services", "memtui.widgets",
              "memtui.screens", "memtui.cli")


@lru_cache(maxsize=1)
def modules() -> dict[str, Path]:
    """Every module of memtui (packages too) -> its source file."""
    out = {"memtui": Path(memtui.__file__)}
    for info in pkgutil.walk_packages(memtui.__path__, "memtui."):
        spec = importlib.util.find_spec(info.name)
        assert spec is not None and spec.origin is not None, info.name
        out[info.name] = Path(spec.origin)
    return out


def _under(name: str, prefixes: tuple[str, ...]) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


@cache
def imports_of(module: str) -> frozenset[str]:
    """The modules one module's import statements name, wherever they are in it: for
    ``from X import n`` that is X, and X.n too when n is a module of memtui."""
    path = modules()[module]
    package = module if path.name == "__init__.py" else module.rpartition(".")[0]
    known = modules()
    out: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), str(path))):
        if isinstance(node, ast.Import):
            out.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parent = ".".join(parts[: len(parts) - node.level + 1])
                base = f"{parent}.{base}" if base else parent
            out.add(base)
            out.update(f"{base}.{alias.name}" for alias in node.names if f"{base}.{alias.name}" in known)
    return frozenset(out)


@dataclass(frozen=True)
class Never:
    """Modules under ``sources`` (less ``exempt``) never import modules under ``forbidden``
    (less ``allowed``)."""

    name: str
    sources: tuple[str, ...]
    forbidden: tuple[str, ...]
    exempt: tuple[str, ...] = ()
    allowed: tuple[str, ...] = ()

    def violations(self) -> list[str]:
        out = []
        for module in modules():
            if not _under(module, self.sources) or _under(module, self.exempt):
                continue
            for target in sorted(imports_of(module)):
                if _under(target, self.forbidden) and not _under(target, self.allowed):
                    out.append(f"{module} imports {target}")
        return out


NEVERS = [
    pytest.param(Never("the writer's private modules are reached only from inside it", ("memtui",),
                       ("memtui.core.write",), exempt=("memtui.core.write",),
                       allowed=("memtui.core.write",) + WRITER_READ_SIDE),
                 id="writer-sealed"),
    pytest.param(Never("the pure judges never import the writer", ("memtui.core.budget", "memtui.core.consolidate",
                                                                    "memtui.core.validate"),
                       ("memtui.core.write",), allowed=WRITER_READ_SIDE),
                 id="judges-write-nothing"),
    pytest.param(Never("the core never imports Textual", ("memtui.core",), ("textual",)), id="core-no-textual"),
    pytest.param(Never("the core imports nothing above it", ("memtui.core",), ABOVE_CORE), id="core-no-upward"),
    pytest.param(Never("services never import Textual", ("memtui.services",), ("textual",)),
                 id="services-no-textual"),
    pytest.param(Never("services never import the app's layers", ("memtui.services",),
                       ("memtui.app", "memtui.actions", "memtui.commands", "memtui.widgets", "memtui.screens",
                        "memtui.cli")),
                 id="services-no-upward"),
    pytest.param(Never("widgets never import the CLI", ("memtui.widgets",), ("memtui.cli",)), id="widgets-no-cli",
                 marks=pytest.mark.xfail(strict=True, reason="widgets/index_text.py takes plain() from "
                                         "cli/common.py until it moves to a module both can import")),
    pytest.param(Never("widgets never import the command registry", ("memtui.widgets",), ("memtui.commands",)),
                 id="widgets-no-commands",
                 marks=pytest.mark.xfail(strict=True, reason="widgets/consolidate_view.py reads a key from "
                                         "commands.BY_NAME until the view is given it")),
    pytest.param(Never("widgets never import the app", ("memtui.widgets",), ("memtui.app", "memtui.actions")),
                 id="widgets-no-app"),
]


@pytest.mark.parametrize("never", NEVERS)
def test_never(never: Never) -> None:
    assert never.violations() == [], never.name


def test_the_table_reads_every_module() -> None:
    """The walk includes sub-packages and their modules, and the import reader finds both
    top-level and deferred imports (a table over nothing would pass whatever the code did)."""
    found = modules()
    assert {"memtui.core.write", "memtui.core.write.fs", "memtui.cli.main", "memtui.widgets.index_text"} <= set(found)
    assert "memtui.core.write.fs" in imports_of("memtui.core.write.rootcommit")
    assert "memtui.core.write" in imports_of("memtui.core.pressure")
    assert "memtui.core.pressure" in imports_of("memtui.core.budget")  # inside a function


#: ``os`` calls that replace or link a path: only the writer's filesystem seam makes them
RENAMING_CALLS = {"replace", "link", "rename", "renames"}


def renaming_calls(path: Path) -> list[str]:
    """Each ``os.replace``/``os.link``/``os.rename`` call (or such a name imported from os) in a file."""
    tree = ast.parse(path.read_text(encoding="utf-8"), str(path))
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Attribute) and node.attr in RENAMING_CALLS \
                and isinstance(node.value, ast.Name) and node.value.id == "os":
            out.append(f"{path.name}:{node.lineno} os.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            out.extend(f"{path.name}:{node.lineno} from os import {a.name}" for a in node.names
                       if a.name in RENAMING_CALLS)
    return out


def test_the_renaming_reader_finds_the_seam() -> None:
    assert renaming_calls(modules()["memtui.core.write.fs"])


@pytest.mark.xfail(strict=True, reason="the stat cache (core/statcache.py), the seen store (core/seen_store.py) "
                   "and the Claude Code settings writer (core/hooks_install.py) replace their own files outside "
                   "any memory root with os.replace, not through the writer's seam")
def test_only_the_writer_seam_replaces_or_links_files() -> None:
    seam = modules()["memtui.core.write.fs"]
    found = [call for module, path in modules().items() if path != seam for call in renaming_calls(path)]
    assert found == []


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
    loaded = loaded_by("memtui.core")
    assert not {m for m in loaded if _under(m, ABOVE_CORE)}


def test_the_test_helpers_have_one_import_path() -> None:
    """``conftest`` is one module under both names tests import it by, and its helpers are
    :mod:`tests.support.roots`'s own objects."""
    import conftest
    from tests.conftest import corpus_roots, topic
    from tests.support import roots

    assert sys.modules["tests.conftest"] is sys.modules["conftest"] is conftest
    assert topic is conftest.topic is roots.topic and corpus_roots is roots.corpus_roots
