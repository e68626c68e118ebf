"""pytest's hooks and fixtures for every test: temp folders under ``tmp_path`` (and nothing left
behind by the run), a private home folder for the run, no pressure log, a private stat cache, a
root builder and a fresh copy of the demo.  Tests import nothing from here: the shared helpers are :mod:`tests.support`'s."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator

import pytest

from tests.support.layers import make_layers
from tests.support.roots import CORPORA, MakeRoot, copy_demo_to

#: the temp folder of the run outside the tests themselves: it must be empty at the end
SESSION_TEMP: Path | None = None


@pytest.hookimpl(tryfirst=True)
def pytest_sessionstart(session: pytest.Session) -> None:
    """Point the run's temp folder at a private, empty one (pytest's own ``tmp_path`` folders
    stay where they are); :func:`pytest_sessionfinish` checks that nothing was left in it."""
    global SESSION_TEMP
    real = tempfile.gettempdir()
    os.environ.setdefault("PYTEST_DEBUG_TEMPROOT", real)
    for stale in Path(real).glob("memtui-tests-*-*"):  # left by a run that was killed
        if not _alive(stale.name.split("-")[2]):
            shutil.rmtree(stale, ignore_errors=True)
    SESSION_TEMP = Path(tempfile.mkdtemp(prefix=f"memtui-tests-{os.getpid()}-", dir=real))
    tempfile.tempdir = str(SESSION_TEMP)
    os.environ["TMPDIR"] = str(SESSION_TEMP)


def _alive(pid: str) -> bool:
    """Whether the process that made a session temp folder still runs."""
    try:
        os.kill(int(pid), 0)
    except ProcessLookupError:
        return False
    except (ValueError, OSError):
        return True  # not ours to judge: keep it
    return True


@pytest.hookimpl(trylast=True)
def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Fail the run when anything was left in the temp folder outside a test's ``tmp_path``."""
    if SESSION_TEMP is None:
        return
    left = sorted(p.name for p in SESSION_TEMP.iterdir())
    shutil.rmtree(SESSION_TEMP, ignore_errors=True)
    if left:
        print(f"\nthe suite left {len(left)} temp folder(s) behind: {', '.join(left[:5])}")
        session.exitstatus = pytest.ExitCode.TESTS_FAILED


@pytest.fixture(autouse=True, scope="session")
def _private_home(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """``HOME``, ``XDG_CACHE_HOME`` and ``XDG_CONFIG_HOME`` point at one fresh folder for the whole
    run, removed at its end: no test reads or writes the user's cache (``~/.cache/memtui``), config
    or Claude Code folders, not even one that undoes its own monkeypatching.

    The folder lies in pytest's base temp folder, beside every test's ``tmp_path``; the search for
    sibling memory roots never climbs to the home folder or above it, so a test's roots are compared
    only with the roots in its own ``tmp_path`` (without it the search climbed to ``/tmp`` and a
    dream's plan changed with the folders other tests and other runs left there)."""
    home = tmp_path_factory.mktemp("home")
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("HOME", str(home))
        patch.setenv("XDG_CACHE_HOME", str(home / ".cache"))
        patch.setenv("XDG_CONFIG_HOME", str(home / ".config"))
        yield home
    shutil.rmtree(home, ignore_errors=True)


@pytest.fixture(autouse=True)
def _temp_under_tmp_path(tmp_path_factory: pytest.TempPathFactory,
                         monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every temp folder a test makes (``tempfile``, and ``$TMPDIR`` for the programs it runs)
    lands in a fresh folder beside its ``tmp_path``, which pytest cleans up like the rest."""
    temp = tmp_path_factory.mktemp("tmp")
    monkeypatch.setattr(tempfile, "tempdir", str(temp))
    monkeypatch.setenv("TMPDIR", str(temp))
    yield temp


@pytest.fixture(autouse=True)
def _no_pressure_log(monkeypatch: pytest.MonkeyPatch) -> None:
    """Commands run by tests never append to a folder's pressure log unless a test asks."""
    monkeypatch.setenv("MEMTUI_NO_PRESSURE", "1")


@pytest.fixture(autouse=True)
def _private_cache(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """The stat cache lives in the test's temporary folder, never in the real home."""
    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(tmp_path / ".memtui-cache"))
    monkeypatch.delenv("MEMTUI_NO_CACHE", raising=False)


@pytest.fixture
def corpora() -> Path:
    if not CORPORA.is_dir():
        pytest.skip(f"corpora not available at {CORPORA}")
    return CORPORA


@pytest.fixture
def make_root(tmp_path: Path) -> MakeRoot:
    """Write a memory root: ``make_root({"MEMORY.md": "...", "a.md": "..."})`` → its path.

    Values may be str (written as UTF-8) or bytes.  ``name`` picks a sub-folder of tmp_path.
    """

    def build(files: dict[str, str | bytes], name: str = "root") -> Path:
        root = tmp_path / name
        root.mkdir(parents=True, exist_ok=True)
        for rel, content in files.items():
            path = root / rel
            path.parent.mkdir(parents=True, exist_ok=True)
            if isinstance(content, bytes):
                path.write_bytes(content)
            else:
                path.write_bytes(content.encode("utf-8"))
        return root

    return build


@pytest.fixture
def demo_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A fresh copy of the bundled demo at ``<tmp>/memory``; the current folder is ``<tmp>``."""
    monkeypatch.chdir(tmp_path)
    return copy_demo_to(tmp_path / "memory")


@pytest.fixture
def layers(tmp_path: Path) -> tuple[Path, Path, Path]:
    """A project's memory in three layers: (machine-local, shared, one agent's)."""
    return make_layers(tmp_path)
