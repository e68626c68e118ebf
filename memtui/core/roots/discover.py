"""Finding memory roots (DESIGN §1.1): a given path, the current folder, Claude Code's
per-project folder, or the usual places under the current git work tree."""

from __future__ import annotations

import marshal
import os
import time
import zlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

from ..model import claude_settings
from ..model.places import cache_dir, usable_cache_folder
from ..model.snapshot import INDEX_NAME, TEAM_DIR
from ..model.walk import walk
from ..read.project_find import git_toplevel as git_toplevel
from ..read.store import RootError, check_root
from ..stores.statcache import RACY_NS, fingerprint, read_cache_file, write_cache_file

#: folders never descended into when looking for roots
_SKIP_DIRS = frozenset(
    {".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv", ".tox", ".memtui",
     ".mypy_cache", ".pytest_cache", ".cache", "dist", "build", "target"}
)
MAX_DEPTH = 8


def encode_project_path(path: Path | str) -> str:
    """Claude Code's folder name for a project (:func:`claude_settings.encode_project_path`)."""
    return claude_settings.encode_project_path(str(path))


def claude_project_memory(cwd: Path, home: Path | None = None) -> Path:
    """``~/.claude/projects/<encoded cwd>/memory`` (no settings, no git: see :func:`claude_roots`)."""
    home = home if home is not None else Path.home()
    return Path(claude_settings.default_memory_dir(str(cwd), {}, str(home)))


def roots_under(path: Path, max_depth: int = MAX_DEPTH, *,
                clock: Callable[[], int] = time.time_ns) -> list[Path]:
    """``path`` if it is a root, and every root below it (nested roots included), sorted.

    A walk that listed :data:`MEMO_ENTRIES` entries or more leaves its answer in the user's
    cache folder (:class:`RootsMemo`); the next walk of the same folder takes it back while
    no folder it listed has changed, without listing any.
    """
    memo = RootsMemo.open(path, max_depth)
    if memo is not None:
        kept = memo.answer()
        if kept is not None:
            return kept
    start = clock()
    found: list[Path] = []
    listed: list[str] = []
    entries = 0
    plain = True  # no index found is a symlink: its target may change with no folder changed
    for folder in walk(path, lambda entry: entry.name not in _SKIP_DIRS, ordered=False):
        listed.append(folder.path)
        entries += len(folder.entries)
        index = folder.entry(INDEX_NAME)
        if index is not None:
            plain = plain and not _linked(index)
            if _is_index(index):
                found.append(Path(folder.path))
        if folder.depth >= max_depth:
            folder.subfolders.clear()
    found.sort()
    if memo is not None and plain and entries >= MEMO_ENTRIES:
        memo.keep(listed, found, start)
    return found


def _linked(entry: os.DirEntry[str]) -> bool:
    """Whether an entry is a symlink (or cannot be asked)."""
    try:
        return entry.is_symlink()
    except OSError:
        return True


#: a walk listing fewer entries than this keeps no answer: listing them again costs less than
#: loading the cache's writer to keep it (about 50 ms of listing)
MEMO_ENTRIES = 50_000
MEMO_FOLDERS = 50_000  # a walk over more folders keeps no answer (checking it would cost as much)
_MEMO_FORMAT = "memtui roots 1"


class RootsMemo:
    """The answer of one walk of :func:`roots_under`, in the user's cache folder
    (``roots/<hash of the folder and depth>.cache``, written as the stat cache writes its files).

    It holds the stat key (mtime, ctime, inode, device) of every folder the walk listed, and is
    kept only when each key is older than the stat cache's racy window at the time the walk
    began (:data:`memtui.core.stores.statcache.RACY_NS`): an entry added, removed or renamed in a
    folder after that changes the folder's mtime, a change of its mode its ctime.  An answer is
    taken back only when every folder still has its key, every root it names is such a folder
    still holding ``MEMORY.md``, and it was written by this Python and memtui source.  Off with
    ``MEMTUI_NO_CACHE``, for a relative ``path``, and with a cache folder the stat cache would not
    use, or inside ``path``.
    """

    def __init__(self, folder: Path, name: str, key: tuple[str, str, int]) -> None:
        self.folder = folder
        self.name = name
        self.key = key

    @classmethod
    def open(cls, path: Path, max_depth: int) -> RootsMemo | None:
        """The memo of walks of ``path`` to ``max_depth``, or None when there is no cache."""
        top = str(path)  # as the walk names its folders
        base = cache_dir()
        if base is None or not os.path.isabs(top):
            return None
        real = os.path.realpath(top)
        if not usable_cache_folder(base, real):
            return None
        key = (top, real, max_depth)
        name = os.fsencode(f"{top}\0{real}\0{max_depth}")  # no hashlib (OpenSSL) to load
        return cls(base / "roots", f"{zlib.crc32(name):08x}{zlib.adler32(name):08x}.cache", key)

    def answer(self) -> list[Path] | None:
        """The kept answer, when nothing it depends on has changed; else None."""
        data = read_cache_file(self.folder, self.name, limit=64 << 20)
        if data is None:
            return None
        try:
            form, made_by, key, folders, roots = marshal.loads(data)
            if form != _MEMO_FORMAT or made_by != fingerprint() or key != self.key:
                return None
            listed = dict(folders)
            top = self.key[0]
            below = top.rstrip(os.sep) + os.sep
            for folder, folder_key in listed.items():
                if folder != top and not folder.startswith(below):
                    return None
                if _folder_key(os.stat(folder)) != folder_key:
                    return None
            if not all(root in listed and os.path.isfile(os.path.join(root, INDEX_NAME))
                       for root in roots):
                return None
            return [Path(root) for root in roots]
        except (OSError, ValueError, EOFError, TypeError):
            return None

    def keep(self, listed: list[str], found: list[Path], start: int) -> None:
        """Keep a walk's answer, when every folder it listed is older than the racy window."""
        if len(listed) > MEMO_FOLDERS:
            return
        folders = []
        try:
            for folder in listed:
                st = os.stat(folder)
                if max(st.st_mtime_ns, st.st_ctime_ns) >= start - RACY_NS:
                    return
                folders.append((folder, _folder_key(st)))
            data = marshal.dumps((_MEMO_FORMAT, fingerprint(), self.key, tuple(folders),
                                  tuple(str(root) for root in found)))
            write_cache_file(self.folder, self.name, data)
        except (OSError, ValueError):
            pass


def _folder_key(st: os.stat_result) -> tuple[int, int, int, int]:
    return (st.st_mtime_ns, st.st_ctime_ns, st.st_ino, st.st_dev)


def holds_memory_files(folder: Path) -> bool:
    """Whether a folder holds a Markdown file (not a dotfile) at its top level."""
    try:
        with os.scandir(folder) as it:
            return any(
                e.name.lower().endswith(".md") and not e.name.startswith(".") and e.is_file()
                for e in it
            )
    except OSError:
        return False


def _is_index(entry: os.DirEntry[str]) -> bool:
    """Whether a folder entry is an index; a ``MEMORY.md`` symlink loop counts (its load reports it)."""
    if entry.name != INDEX_NAME:
        return False
    try:
        return entry.is_file()
    except OSError:  # ELOOP: a symlink to itself — a root whose index cannot be read
        return True


def discover(path: Path | str | None = None, cwd: Path | None = None, home: Path | None = None,
             env: Mapping[str, str] | None = None) -> list[Path]:
    """The memory roots to work on.  Raises :class:`RootError` when none can be found."""
    if path is not None:
        given = check_root(Path(path))
        roots = roots_under(given)
        if not roots and holds_memory_files(given):
            return [given]  # DESIGN §1.1: a root with the index-missing error
        if not roots:
            raise RootError(f"{path}: no MEMORY.md here or in any folder below")
        return roots
    cwd = (cwd or Path.cwd()).absolute()
    roots = roots_under(cwd)
    if roots:
        return roots
    claude = claude_roots(cwd, env=env, home=home)
    found = [r.path for r in claude if r.enabled and r.kind != TEAM and r.holds_memory()]
    if found:
        return found
    auto = next((r.path for r in claude if r.kind == "auto"), None)
    raise RootError(
        "no memory root found: give a folder holding MEMORY.md, or run memtui inside one "
        f"(looked in {cwd}, Claude Code's folder {auto}, its agent memories and the git work "
        "tree's .claude/memory and memory/)"
    )


# ---------------------------------------------------------------- Claude Code's own folders


@dataclass(frozen=True)
class GitRoots:
    """The project root all worktrees of a repository share, and this work tree's top."""

    project: Path
    worktree: Path


def git_roots(cwd: Path) -> GitRoots | None:
    """Where Claude Code's ``<project>`` comes from: the git repository root, shared by every
    worktree and subfolder (CLAUDE-CODE.md "Auto memory"), or None outside git.

    Read from the files git keeps (no subprocess: a hook pays for every process it starts): the
    nearest ``.git`` above ``cwd``; a ``.git`` folder makes its folder the root; a ``.git`` file
    (``gitdir: …``) of a linked worktree names, through ``commondir``, the main repository's
    ``.git``, whose parent is the shared root; when the common dir is not a ``.git`` folder (a
    submodule's ``.git/modules/x``, a separate git dir) the work tree's top is used.  Anything
    else asks ``git rev-parse``.
    """
    found = _git_from_files(cwd)
    if found is not _UNKNOWN:
        return found  # type: ignore[return-value]
    return _git_from_git(cwd)


_UNKNOWN = object()


def _git_from_files(cwd: Path) -> object:
    for folder in [cwd, *cwd.parents]:
        dot = folder / ".git"
        try:
            if dot.is_dir():
                return GitRoots(_real(folder), _real(folder))
            if not dot.is_file():
                continue
            text = dot.read_text(encoding="utf-8").strip()
        except (OSError, UnicodeDecodeError):
            return _UNKNOWN
        if not text.startswith("gitdir:"):
            return _UNKNOWN
        gitdir = Path(os.path.normpath(folder / text[len("gitdir:"):].strip()))
        try:
            common_rel = (gitdir / "commondir").read_text(encoding="utf-8").strip()
        except FileNotFoundError:
            return GitRoots(_real(folder), _real(folder))  # a submodule or a separate git dir
        except (OSError, UnicodeDecodeError):
            return _UNKNOWN
        common = Path(os.path.normpath(gitdir / common_rel))
        project = common.parent if common.name == ".git" else folder
        return GitRoots(_real(project), _real(folder))
    return None


def _real(path: Path) -> Path:
    return Path(os.path.realpath(path))


def _git_from_git(cwd: Path) -> GitRoots | None:
    """:func:`git_roots` by ``git rev-parse`` (without a usable git: the nearest ``.git``)."""
    import subprocess  # deferred: only an odd .git makes memtui ask git itself

    try:
        done = subprocess.run(
            ["git", "-C", str(cwd), "rev-parse", "--path-format=absolute", "--git-common-dir",
             "--show-toplevel"],
            capture_output=True, timeout=10, check=False,
        )
    except (OSError, subprocess.SubprocessError):
        done = None
    if done is not None and done.returncode == 0:
        lines = done.stdout.decode("utf-8", "surrogateescape").splitlines()
        if len(lines) == 2:
            common, top = Path(lines[0]), Path(lines[1])
            project = common.parent if common.name == ".git" else top
            return GitRoots(project, top)
    nearest = git_toplevel(cwd)
    return GitRoots(nearest, nearest) if nearest is not None else None


#: the kinds of :class:`ClaudeRoot`
AUTO, AGENT, SHARED, TEAM = "auto", "agent", "shared", "team"


@dataclass(frozen=True)
class ClaudeRoot:
    """A memory folder Claude Code (or a shared layer) uses for the current project.

    ``team`` is the auto memory's ``team/`` subfolder: its own layer (teammates' sessions write
    it), part of the auto memory's root and never a root of its own.
    """

    kind: str  # auto | agent | shared | team
    scope: str  # auto, shared, team: project; agents: user | project | local
    path: Path
    enabled: bool = True  # False: Claude Code does not use it (``why`` says why)
    why: str = ""

    @property
    def label(self) -> str:
        off = "" if self.enabled else f" ({self.why or 'inactive'})"
        if self.kind == AUTO:
            return "auto memory" + off
        if self.kind == AGENT:
            return f"agent {self.path.name} ({self.scope})" + off
        if self.kind == TEAM:
            return "team memory" + off
        return "shared memory"

    def holds_memory(self) -> bool:
        """The folder holds an index or at least one memory file (so it is worth a look)."""
        try:
            with os.scandir(self.path) as it:
                return any(e.name.lower().endswith(".md") and not e.name.startswith(".")
                           for e in it)
        except OSError:
            return False


def _agent_folders(base: Path) -> list[Path]:
    try:
        with os.scandir(base) as it:
            return sorted(Path(e.path) for e in it
                          if not e.name.startswith(".") and e.is_dir(follow_symlinks=False))
    except OSError:
        return []


AUTO_OFF = "turned off"  # auto memory, and with it agent memory
BLOCKED = ("not used: the repository's settings choose it and "
           "permissions.blockReadsOutsideWorkingDirectories is on, so no auto memory")


def claude_roots(cwd: Path | None = None, env: Mapping[str, str] | None = None,
                 home: Path | None = None, include_user: bool = True) -> list[ClaudeRoot]:
    """Claude Code's memory folders for a session launched at ``cwd``, resolved as Claude Code
    does (CLAUDE-CODE.md "which folder"):

    - the auto memory: ``autoMemoryDirectory`` (the first settings file setting it, of those a
      session launched at ``cwd`` reads — :func:`claude_settings.settings_files`; invalid: the
      default folder), else ``<config>/projects/<project>/memory`` with ``<project>`` the git root's
      name; listed even before it exists; when the repository's settings choose it under
      ``blockReadsOutsideWorkingDirectories``, Claude Code uses no auto memory: it is listed
      inactive, and so are the agent memories;
    - its ``team/`` subfolder, when present (its own layer);
    - the subagent memories ``<config>/agent-memory/<a>/`` and ``.claude/agent-memory/<a>/``,
      ``.claude/agent-memory-local/<a>/`` under the work tree's top **and** under the launch
      folder (``memory: project`` is anchored there); active only while auto memory is on;
    - the shared ``.claude/memory``/``memory`` of the work tree when they hold an index.

    A folder is listed once (an ``autoMemoryDirectory`` naming the repository's ``memory/`` is
    the auto memory).
    """
    cwd = (cwd or Path.cwd()).absolute()
    home_s = str(home) if home is not None else None
    git = git_roots(cwd)
    project = git.project if git is not None else cwd
    tree = git.worktree if git is not None else cwd
    # the settings a session launched at cwd reads: project settings of cwd alone, local
    # settings of cwd and of the repository root (CLAUDE-CODE.md, v2.1.332)
    repo = str(git.project) if git is not None else ""
    launch = str(cwd)
    enabled = claude_settings.auto_memory_enabled(launch, env, home_s, repo)
    off = "" if enabled else AUTO_OFF
    blocked = claude_settings.blocked_memory_dir(launch, env, home_s, repo)
    if blocked is not None:  # the repository's folder under blockReads…: no auto memory at all
        enabled, off = False, BLOCKED
        auto = Path(blocked) if blocked else Path(claude_settings.default_memory_dir(
            str(project), env, home_s))
    else:
        override = claude_settings.auto_memory_override(launch, env, home_s, repo)
        auto = Path(override) if override is not None else Path(
            claude_settings.default_memory_dir(str(project), env, home_s))
    out = [ClaudeRoot(AUTO, "project", auto, enabled, off)]
    if (auto / TEAM_DIR).is_dir():
        out.append(ClaudeRoot(TEAM, "project", auto / TEAM_DIR, enabled, off))
    anchors = [tree] + ([cwd] if cwd != tree else [])
    for scope, folder in (("project", "agent-memory"), ("local", "agent-memory-local")):
        for anchor in anchors:
            out += [ClaudeRoot(AGENT, scope, p, enabled, off)
                    for p in _agent_folders(anchor / ".claude" / folder)]
    if include_user:
        config = Path(claude_settings.config_dir(env, home_s))
        out += [ClaudeRoot(AGENT, "user", p, enabled, off)
                for p in _agent_folders(config / "agent-memory")]
    if git is not None:
        out += [ClaudeRoot(SHARED, "project", p) for p in (tree / ".claude" / "memory", tree / "memory")
                if (p / INDEX_NAME).is_file()]
    seen: set[Path] = set()
    unique = []
    for root in out:
        if root.path not in seen:
            seen.add(root.path)
            unique.append(root)
    return unique


def transcripts_folder(root: Path, env: Mapping[str, str] | None = None, home: Path | None = None,
                       cwd: Path | None = None) -> Path | None:
    """The Claude Code project folder holding the sessions that use ``root``.

    A root shaped ``<config>/projects/<project>/memory`` has its transcripts beside it; any
    other root (``autoMemoryDirectory``, a repository's shared memory, an agent's) belongs to
    the project Claude Code names after the git repository holding the root (or ``cwd``), as
    :mod:`memtui.core.roots.discover` resolves it; a name over 200 characters ends in a hash memtui
    cannot compute, so ``<first 200>-*`` is matched.
    """
    home_s = str(home) if home is not None else None
    projects = Path(claude_settings.config_dir(env, home_s)) / "projects"
    root = Path(os.path.abspath(root))
    for candidate in (root, Path(os.path.realpath(root))):
        if candidate.name == "memory" and candidate.parent.parent in (projects, Path(os.path.realpath(projects))):
            return candidate.parent if candidate.parent.is_dir() else None
    for start in (root, cwd):
        if start is None:
            continue
        git = git_roots(Path(start))
        if git is None:
            continue
        name = claude_settings.project_dir_name(str(git.project), env)
        folder = projects / name
        if folder.is_dir():
            return folder
        if len(name) > 200:
            matches = sorted(projects.glob(f"{name[:200]}-*"))
            if len(matches) == 1 and matches[0].is_dir():
                return matches[0]
    return None
