"""The user's cache folder may be tampered with: the stat cache never hangs, never reads a huge
file into memory, never writes through a symlink, into a memory root or over a planted file."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path
from typing import Iterator

import pytest

from memtui.core.read.store import load_root
from memtui.core.rules.validate import validate
from memtui.core.stores import statcache
from memtui.core.stores.statcache import StatCache, validate_root
from tests.support.roots import topic

HOUR_NS = 3600 * 10**9
ROOT = {
    "MEMORY.md": "# Memory\n\n- [alpha](alpha.md) — alpha fact\n",
    "alpha.md": topic("alpha"),
}


def aged() -> int:
    """A clock an hour ahead: every file is past the racy window, so the cache keeps it."""
    return time.time_ns() + HOUR_NS


def tree(folder: Path) -> dict[str, bytes]:
    """Every file below ``folder`` and its bytes (symlinks as their target's text)."""
    out: dict[str, bytes] = {}
    for path in sorted(folder.rglob("*")):
        rel = path.relative_to(folder).as_posix()
        if path.is_symlink():
            out[rel] = b"-> " + os.readlink(path).encode()
        elif path.is_file():
            out[rel] = path.read_bytes()
    return out


class Hung(BaseException):
    """Raised by the alarm: not an Exception, so no ``except Exception`` in memtui swallows it."""


@pytest.fixture
def alarm() -> Iterator[None]:
    """A hang fails the test instead of stopping the suite (nothing here waits on purpose)."""

    def hung(signum: int, frame: object) -> None:
        raise Hung("memtui hung reading the cache")

    old = signal.signal(signal.SIGALRM, hung)
    signal.alarm(20)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def cache_path(root: Path) -> Path:
    cache = StatCache.open(root)
    assert cache.path is not None
    return cache.path


def test_a_fifo_in_place_of_the_cache_file_is_no_cache(make_root, alarm) -> None:
    root = make_root(ROOT)
    path = cache_path(root)
    path.parent.mkdir(parents=True)
    os.mkfifo(path)
    result = validate_root(root, clock=aged)  # hung for good before: open() of a FIFO blocks
    assert result.findings == validate(load_root(root))


def test_an_oversized_cache_file_is_not_read(make_root, monkeypatch) -> None:
    root = make_root(ROOT)
    validate_root(root, clock=aged)
    path = cache_path(root)
    good = path.read_bytes()
    with open(path, "r+b") as handle:  # the valid cache, padded (sparse) past the cap
        handle.truncate(getattr(statcache, "MAX_CACHE_BYTES", 256 << 20) + 1)
    with open(path, "rb") as handle:
        assert handle.read(len(good)) == good
    cache = StatCache.open(root, aged)
    assert cache._raw == {}  # before: read whole (3 GB: 20 s, 3.1 GB of memory) and used
    cache.load(statcache.list_root(root))
    assert cache.hits == 0 and cache.reads == 1  # alpha.md read, not taken from the cache


def test_a_stat_folder_symlinked_into_a_root_is_not_written(make_root, tmp_path, monkeypatch) -> None:
    root = make_root(ROOT)
    victim = make_root({"MEMORY.md": "# Other\n", "notes/keep.md": topic("keep")}, name="victim")
    (root / "notes").mkdir()
    before = (tree(root), tree(victim))
    cache = tmp_path / "cache"
    cache.mkdir()
    for target in (root / "notes", victim / "notes"):  # stat/ leads into this root, or another
        link = cache / "stat"
        if link.is_symlink():
            link.unlink()
        link.symlink_to(target)
        monkeypatch.setenv("MEMTUI_CACHE_DIR", str(cache))
        validate_root(root, clock=aged)  # before: the cache file was written into the root
        assert StatCache.open(root).path is None
    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(victim / "cache"))  # a real folder in a root
    validate_root(root, clock=aged)
    assert StatCache.open(root).path is None
    assert (tree(root), tree(victim)) == before
    assert not (victim / "cache").exists()


def test_a_planted_temp_file_is_never_truncated_or_written(make_root, tmp_path) -> None:
    root = make_root(ROOT)
    path = cache_path(root)
    path.parent.mkdir(parents=True)
    victim = tmp_path / "victim.txt"
    victim.write_bytes(b"precious\n")
    for pid in range(os.getpid() - 2, os.getpid() + 3):  # the names the old writer used
        os.link(victim, path.with_name(f".{path.name}.{pid}.tmp"))
    validate_root(root, clock=aged)
    assert victim.read_bytes() == b"precious\n"  # before: O_TRUNC, then the cache's bytes
    assert path.read_bytes().startswith(statcache.MAGIC)


def test_a_relative_xdg_cache_home_is_ignored(make_root, tmp_path, monkeypatch) -> None:
    from memtui.core.stores import seen_store

    root = make_root(ROOT)
    monkeypatch.delenv("MEMTUI_CACHE_DIR")
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("XDG_CACHE_HOME", "relative/cache")
    monkeypatch.chdir(root)
    assert statcache.user_cache_dir() == tmp_path / "home" / ".cache" / "memtui"
    assert seen_store.cache_dir() == tmp_path / "home" / ".cache" / "memtui"  # before: relative
