"""The wheel ships the stylesheets and the demo folder, and the installed package finds them."""

from __future__ import annotations

import os
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Path:
    pytest.importorskip("hatchling")
    out = tmp_path_factory.mktemp("wheel")
    subprocess.run(
        [sys.executable, "-m", "pip", "wheel", "--no-deps", "--no-build-isolation", "-q",
         "-w", str(out), str(PROJECT)],
        check=True, capture_output=True,
    )
    return next(out.glob("memtui-*.whl"))


def test_wheel_contains_styles_and_demo(wheel: Path) -> None:
    names = set(zipfile.ZipFile(wheel).namelist())
    assert "memtui/styles/app.tcss" in names
    assert "memtui/demo/MEMORY.md" in names
    assert "memtui/core/rules/neutralize.json" in names  # Claude Code's markup tables
    assert "memtui/demo_project/internal/gc/sweeper.go" in names
    assert "memtui/demo_project/_dot_github/workflows/ci.yml" in names
    assert not [n for n in names if n.startswith("tests/") or n.startswith("styles/")]


def test_installed_package_finds_its_stylesheets_and_demo(wheel: Path, tmp_path: Path) -> None:
    target = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--no-deps", "-q", "--target",
                    str(target), str(wheel)], check=True, capture_output=True)
    code = (
        "import memtui, memtui.paths, memtui.core.read.demo as d\n"
        "print(memtui.paths.styles_dir()); print(d.demo_source()); print(len(d.final_tree()))"
    )
    env = {**os.environ, "PYTHONPATH": str(target)}
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         env=env, cwd=tmp_path).stdout.split()
    styles, demo = Path(out[0]), Path(out[1])
    assert styles.is_relative_to(target) and (styles / "app.tcss").is_file()
    assert demo.is_relative_to(target) and (demo / "MEMORY.md").is_file()
    assert int(out[2]) > 50  # the demo project's files were found in the installed package
