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
    loaded = loaded_by("memtui.core")
    upward = ("memtui.app", "memtui.actions", "memtui.commands", "memtui.services",
              "memtui.widgets", "memtui.screens", "memtui.cli")
    assert not {m for m in loaded if m.startswith(upward)}


# ---------------------------------------------------------------- the nevers, as a table

PACKAGE = Path(__file__).resolve().parents[2] / "memtui"
ABOVE_CORE = ("memtui.app", "memtui.actions", "memtui.commands", "memtui.services", "memtui.widgets",
              "memtui.screens", "memtui.cli")

#: every module of the writer package but its face
WRITER_MODULES = tuple(sorted(f"memtui.core.write.{path.stem}" for path in (PACKAGE / "core" / "write").glob("*.py")
                              if path.stem != "__init__"))

#: (who, what it never imports, why) — every import statement counts, those in a function and
#: under ``if TYPE_CHECKING:`` too (a type-only arrow is still an arrow a reader follows); "who"
#: is a module or package of memtui, ``A - B`` every module of A outside B
NEVERS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("memtui.core", ("textual", *ABOVE_CORE),
     "the core is plain Python under every layer, and the only code that writes a memory folder"),
    ("memtui - memtui.core.write", WRITER_MODULES,
     "the writer is sealed: it is reached through its face, memtui.core.write"),
    ("memtui.core.model.journal", ("memtui.core.write",),
     "the journal's read side sits below the writer, so the loader can read it"),
    ("memtui.core.model.safepath", ("memtui", "textual"), "the safe-path checks are a leaf under the writer"),
    ("memtui.core.read.store", ("memtui.core.write",), "the loader reads a root without the gate"),
    ("memtui.core.rules.validate", ("memtui.core.write",), "the gate's rules are below the gate"),
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

#: (call, the one module that makes it, why)
CALL_NEVERS: tuple[tuple[str, str, str], ...] = (
    ("os.replace", "memtui.core.write.fs", "a file is put in place by one layer (fsync, temp file, checks)"),
    ("os.link", "memtui.core.write.fs", "a file is moved without replacing what is there by one layer"),
    ("os.rename", "memtui.core.write.fs", "os.replace's twin: the same one layer"),
)


def table() -> str:
    """The nevers as a reader sees them: one line each."""
    lines = [f"{who:<28} never imports {', '.join(nevers)}  ({why})" for who, nevers, why in NEVERS]
    lines += [f"{'memtui - ' + only:<28} never calls {call}  ({why})" for call, only, why in CALL_NEVERS]
    return "\n".join(lines)


def module_of(path: Path) -> str:
    """The dotted name of a file of the package (a package's ``__init__`` is the package)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def within(module: str, scope: str) -> bool:
    return module == scope or module.startswith(scope + ".")


def files_of(who: str) -> list[Path]:
    """The files ``who`` names (``A - B``: A's files outside B)."""
    inside, _, outside = (part.strip() for part in who.partition(" - "))
    return [path for path in sorted(PACKAGE.rglob("*.py"))
            if within(module_of(path), inside) and not (outside and within(module_of(path), outside))]


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


def calls_made(path: Path) -> set[str]:
    """Every ``os.<name>`` the file refers to (called or passed on) and every name it takes
    from ``os`` (``from os import replace`` would hide a call)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "os":
            found.add(f"os.{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "os" and not node.level:
            found.update(f"os.{alias.name}" for alias in node.names)
    return found


def broken_nevers() -> list[str]:
    broken: list[str] = []
    for who, nevers, why in NEVERS:
        files = files_of(who)
        assert files, who
        for path in files:
            for name in imported_names(path):
                if any(within(name, never) for never in nevers):
                    broken.append(f"{path.relative_to(PACKAGE.parent)} imports {name} ({why})")
    for path in sorted(PACKAGE.rglob("*.py")):
        made = calls_made(path)
        for call, only, why in CALL_NEVERS:
            if call in made and module_of(path) != only:
                broken.append(f"{path.relative_to(PACKAGE.parent)} calls {call} ({why})")
    return broken


def test_the_nevers_hold() -> None:
    print(table())  # shown with -s, and beside a failure
    broken = broken_nevers()
    assert not broken, "\n".join(broken)


def test_the_checks_see_what_they_look_for() -> None:
    """The file layer is where the table says (so a never about it cannot hold by finding nothing)."""
    fs = PACKAGE / "core" / "write" / "fs.py"
    assert {"os.replace", "os.link"} <= calls_made(fs)
    assert fs not in files_of("memtui - memtui.core.write")
    assert PACKAGE / "core" / "stores" / "statcache.py" in files_of("memtui - memtui.core.write")
    assert "memtui.core.write.fs" in imported_names(PACKAGE / "core" / "write" / "group.py")


def test_the_writer_face_exports_what_it_declares() -> None:
    """``memtui.core.write`` imports every public name at its top, and ``__all__`` lists exactly those."""
    import memtui.core.write as face

    tree = ast.parse((PACKAGE / "core" / "write" / "__init__.py").read_text(encoding="utf-8"))
    imported = {alias.asname or alias.name for node in tree.body if isinstance(node, ast.ImportFrom)
                and node.module != "__future__" for alias in node.names}
    assert imported == set(face.__all__)
    assert not [node for node in tree.body if isinstance(node, (ast.If, ast.FunctionDef))]
    for name in face.__all__:
        assert getattr(face, name) is not None


def test_the_read_side_loads_without_the_writer() -> None:
    """Loading, validating and the journal's read side never pull in the gate (which imports them)."""
    loaded = modules_after("import memtui.core.read.store, memtui.core.rules.validate, memtui.core.model.journal, "
                           "memtui.core.model.safepath, memtui.core.stores.statcache")
    assert "memtui.core.model.journal" in loaded
    assert not {m for m in loaded if within(m, "memtui.core.write")}


if __name__ == "__main__":
    print(table())
