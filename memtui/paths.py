"""Where memtui's own files are: the stylesheets, shipped in the wheel as ``memtui/styles``."""

from __future__ import annotations

from pathlib import Path

PACKAGE_DIR = Path(__file__).resolve().parent


def styles_dir() -> Path:
    """The folder of ``*.tcss`` files: inside the installed package, else the source checkout's."""
    installed = PACKAGE_DIR / "styles"
    if installed.is_dir():
        return installed
    return PACKAGE_DIR.parent / "styles"
