"""What the import contracts cannot say.  The arrows between modules — the core's layers, the
sealed writer, no Textual or app code in the core, widgets not importing the CLI — are
import-linter contracts in ``pyproject.toml`` (``lint-imports`` in CI).  Here: which module makes
the file-system calls that put a file in place (a call, not an import), and what importing a layer
actually loads in a fresh process (a deferred import is an arrow the linter sees but start-up
never pays for)."""

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
    assert "memtui.core.write.fs" in loaded  # the walk reached the sub-packages
    assert "memtui.core.dream.plan" in loaded
    assert not {m for m in loaded if m == "textual" or m.startswith("textual.")}


def test_cli_parser_does_not_import_textual() -> None:
    loaded = modules_after("from memtui.cli.main import build_parser\nbuild_parser()")
    assert "textual" not in loaded


def test_only_the_mcp_server_loads_the_sdk() -> None:
    """The Model Context Protocol SDK (pydantic, starlette, anyio) loads with ``memtui mcp``'s
    server alone: not with the parser of every command, nor the hooks' fast path, nor the door
    the server wraps (the core's verbs and judgments behind the tools)."""
    sdk = {"mcp", "pydantic", "starlette", "anyio"}
    for code in ("from memtui.cli.main import build_parser\nbuild_parser()",
                 "from memtui.cli.hook import fast_path",
                 "import memtui.mcp.door"):
        assert not sdk & modules_after(code), code
    assert sdk <= modules_after("import memtui.mcp.server")


def test_the_core_faces_load_nothing() -> None:
    """Importing a package of the core loads none of its modules, the writer's face included:
    each face loads a module (or, the writer's, a name) when it is first used, so a module that
    imports a face at its top pays nothing until a call needs what is behind it."""
    faces = ("model", "read", "rules", "write", "stores", "roots", "judge", "tidy", "verbs", "hooks",
             "dream")
    loaded = modules_after("import " + ", ".join(f"memtui.core.{face}" for face in faces))
    assert {f"memtui.core.{face}" for face in faces} <= loaded
    assert not {m for m in loaded if m.startswith("memtui.core.") and m.count(".") > 2}


def test_a_face_loads_a_module_when_it_is_first_used() -> None:
    loaded = modules_after("from memtui.core import rules\nrules.budget")
    assert "memtui.core.rules.budget" in loaded and "memtui.core.rules.validate" not in loaded
    loaded = modules_after("from memtui.core import write\nwrite.replace_file")
    assert "memtui.core.write.fs" in loaded and "memtui.core.write.protocol" not in loaded


def test_the_read_side_loads_without_the_writer() -> None:
    """Loading, validating, the journal's read side and the stat cache never load the gate (which
    imports them); the cache names the writer's face at its top and loads the writer only when
    it saves."""
    loaded = modules_after("import memtui.core.read.store, memtui.core.rules.validate, memtui.core.model.journal, "
                           "memtui.core.model.safepath, memtui.core.stores.statcache")
    assert "memtui.core.model.journal" in loaded
    assert not {m for m in loaded if m.startswith("memtui.core.write.")}


# ---------------------------------------------------------------- the calls only one module makes

PACKAGE = Path(__file__).resolve().parents[2] / "memtui"

#: (call, the one module that makes it, why)
CALL_NEVERS: tuple[tuple[str, str, str], ...] = (
    ("os.replace", "memtui.core.write.fs", "a file is put in place by one layer (fsync, temp file, checks)"),
    ("os.link", "memtui.core.write.fs", "a file is moved without replacing what is there by one layer"),
    ("os.rename", "memtui.core.write.fs", "os.replace's twin: the same one layer"),
)


def module_of(path: Path) -> str:
    """The dotted name of a file of the package (a package's ``__init__`` is the package)."""
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def within(module: str, scope: str) -> bool:
    return module == scope or module.startswith(scope + ".")


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


def broken_call_nevers() -> list[str]:
    broken: list[str] = []
    for path in sorted(PACKAGE.rglob("*.py")):
        made = calls_made(path)
        for call, only, why in CALL_NEVERS:
            if call in made and module_of(path) != only:
                broken.append(f"{path.relative_to(PACKAGE.parent)} calls {call} ({why})")
    return broken


def test_the_file_system_calls_are_made_in_one_module() -> None:
    broken = broken_call_nevers()
    assert not broken, "\n".join(broken)


def test_the_checks_see_what_they_look_for() -> None:
    """The file layer is where the table says, and the walk reaches the packages (so a never about
    them cannot hold by finding nothing)."""
    fs = PACKAGE / "core" / "write" / "fs.py"
    assert {"os.replace", "os.link"} <= calls_made(fs)
    assert module_of(fs) == "memtui.core.write.fs"
    statcache = PACKAGE / "core" / "stores" / "statcache.py"
    assert statcache in sorted(PACKAGE.rglob("*.py")) and "os.open" in calls_made(statcache)


def test_the_writer_face_exports_what_it_declares() -> None:
    """``memtui.core.write`` names the module of every public name, ``__all__`` lists exactly those,
    each name is the object its module defines, and the type checker sees the same names."""
    import importlib

    import memtui.core.write as face

    assert set(face.__all__) == set(face.WHERE)
    for name, where in face.WHERE.items():
        assert getattr(face, name) is getattr(importlib.import_module(where, face.__name__), name)
    tree = ast.parse((PACKAGE / "core" / "write" / "__init__.py").read_text(encoding="utf-8"))
    typed = {alias.asname or alias.name for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)
             and node.module not in ("__future__", None) for alias in node.names}
    assert typed == set(face.__all__)
    with __import__("pytest").raises(AttributeError):
        face.no_such_name  # noqa: B018


def test_the_core_faces_name_modules_that_exist() -> None:
    """Each package face's ``__all__`` names modules of its package (a face is what other
    packages may use: a name in it that is no module is a promise nobody keeps)."""
    for face in sorted((PACKAGE / "core").glob("*/__init__.py")):
        if face.parent.name == "write":
            continue
        names = next(ast.literal_eval(node.value) for node in ast.parse(face.read_text(encoding="utf-8")).body
                     if isinstance(node, ast.Assign) and getattr(node.targets[0], "id", "") == "__all__")
        assert names, face
        missing = [name for name in names if not (face.parent / f"{name}.py").is_file()]
        assert not missing, f"{face.relative_to(PACKAGE.parent)} names {missing}"
