"""Every folder memtui uses outside a memory root, named in one place.

- memtui's cache folder (:func:`user_cache_dir`; :func:`cache_dir` is None when caching is off):
  ``stat/`` the stat cache and a root's kept answers (:mod:`memtui.core.stores.statcache`,
  :mod:`memtui.core.stores.kept`), ``roots/`` long walks for roots
  (:mod:`memtui.core.roots.discover`), ``seen/`` the inbox's seen store when the root's own
  ``.memtui/`` cannot hold it (:mod:`memtui.core.stores.seen_store`), ``transcripts/`` the
  evidence read from Claude Code's transcripts (:mod:`memtui.core.stores.transcripts`),
  ``sessions/`` what each Claude Code session found when it began (:func:`sessions_dir`), and
  ``search/`` the full-text search index of every root searched (:func:`search_index_path`,
  :mod:`memtui.core.stores.search_index`);
- the config file (:func:`config_path`);
- Claude Code's own folders, read and never written but for its settings
  (:mod:`memtui.core.model.claude_settings`).

A folder memtui keeps files below must not lie in a memory root (:func:`usable_cache_folder`).
"""

from __future__ import annotations

import os
from pathlib import Path

CACHE_DIR_ENV = "MEMTUI_CACHE_DIR"
NO_CACHE_ENV = "MEMTUI_NO_CACHE"


def cache_dir() -> Path | None:
    """The user's cache folder for memtui, or None when ``MEMTUI_NO_CACHE`` is set."""
    if os.environ.get(NO_CACHE_ENV, "") not in ("", "0"):
        return None
    return user_cache_dir()


def user_cache_dir() -> Path:
    """``$MEMTUI_CACHE_DIR``, else ``$XDG_CACHE_HOME/memtui`` (an absolute one only), else
    ``~/.cache/memtui``."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override).expanduser().absolute()
    xdg = os.path.expanduser(os.environ.get("XDG_CACHE_HOME", ""))
    base = Path(xdg) if xdg and os.path.isabs(xdg) else Path.home() / ".cache"
    return base / "memtui"


def sessions_dir() -> Path:
    """Where session states live: ``<memtui's cache folder>/sessions`` (``$MEMTUI_CACHE_DIR``,
    else ``$XDG_CACHE_HOME/memtui``, else ``~/.cache/memtui``; unlike :func:`user_cache_dir`, a
    relative ``XDG_CACHE_HOME`` or ``MEMTUI_CACHE_DIR`` is taken as it is)."""
    override = os.environ.get(CACHE_DIR_ENV)
    if override:
        return Path(override).expanduser() / "sessions"
    xdg = os.environ.get("XDG_CACHE_HOME")
    base = Path(xdg).expanduser() if xdg else Path.home() / ".cache"
    return base / "memtui" / "sessions"


#: the search index's folder under the cache folder, and its database's name there
SEARCH_DIR, SEARCH_INDEX_NAME = "search", "index.sqlite3"


def search_index_path() -> Path | None:
    """Where the search index's database is (``<cache folder>/search/index.sqlite3``), or None
    when caching is off or the cache folder may not be used (the index is then built in memory
    for one search)."""
    folder = cache_dir()
    if folder is None or not usable_cache_folder(folder) or not usable_cache_folder(folder / SEARCH_DIR):
        return None
    return folder / SEARCH_DIR / SEARCH_INDEX_NAME


def config_path(env: dict[str, str] | None = None) -> Path:
    """Where the user's config file is (it need not exist)."""
    env = dict(os.environ) if env is None else env
    base = Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME", "~")).expanduser() / ".config")
    return base / "memtui" / "config.json"


def in_memory_root(real: str) -> bool:
    """Whether a real path lies in a memory root: it or a folder above it holds ``MEMORY.md``."""
    current = real
    while True:
        if os.path.lexists(os.path.join(current, "MEMORY.md")):
            return True
        parent = os.path.dirname(current)
        if parent == current:
            return False
        current = parent


def usable_cache_folder(folder: Path, root_real: str | None = None) -> bool:
    """Whether memtui may keep files below ``folder`` (its cache folder): not a symlink, and its
    real path neither inside ``root_real`` nor inside any memory root."""
    if os.path.islink(folder):
        return False
    real = os.path.realpath(folder)
    if root_real is not None and (real == root_real or real.startswith(root_real.rstrip(os.sep) + os.sep)):
        return False
    return not in_memory_root(real)
