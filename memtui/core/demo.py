"""The bundled demo memory folder: where it is, and making a fresh copy of it."""

from __future__ import annotations

import shutil
import tempfile
from importlib.resources import as_file, files
from pathlib import Path

from .store import RootError


def demo_source() -> Path:
    """The bundled demo folder inside the installed package (never written to)."""
    resource = files("memtui") / "demo"
    with as_file(resource) as path:
        return Path(path)


def copy_demo(dest: Path | str | None = None) -> Path:
    """Copy the demo folder to ``dest`` (must not exist or be empty), or to a new temp folder."""
    source = demo_source()
    if not (source / "MEMORY.md").is_file():
        raise RootError(f"the bundled demo folder is missing from this installation ({source})")
    if dest is None:
        target = Path(tempfile.mkdtemp(prefix="memtui-demo-")) / "memory"
    else:
        target = Path(dest).expanduser()
        if target.exists() and (not target.is_dir() or any(target.iterdir())):
            raise RootError(f"{target}: already exists and is not an empty folder; pick a new one")
    try:
        shutil.copytree(source, target, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
    except OSError as exc:
        raise RootError(f"{target}: cannot write the demo copy ({exc.strerror or exc})") from None
    return target
