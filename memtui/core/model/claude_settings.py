"""Claude Code's settings files and memory folders, resolved the way Claude Code resolves them.

Every rule here is a fact from ``CLAUDE-CODE.md`` (checked against the v2.1.332 build): the
settings scopes, ``CLAUDE_CONFIG_DIR``, ``CLAUDE_CODE_PROJECT_DIR_NAME``, the project folder's
name, ``autoMemoryDirectory`` (and what an invalid one does), ``autoMemoryEnabled``,
``CLAUDE_CODE_DISABLE_AUTO_MEMORY``, ``permissions.blockReadsOutsideWorkingDirectories`` and the
memory-folder shapes.  It imports only ``os`` and
``json`` because the PreToolUse hook decides "outside every memory root" with this module alone,
before anything heavier loads.  Paths are plain strings for the same reason.
"""

from __future__ import annotations

import json
import os

TYPE_CHECKING = False  # not ``typing.TYPE_CHECKING``: importing typing costs the hook ~6 ms
if TYPE_CHECKING:  # pragma: no cover
    from collections.abc import Mapping

INDEX_NAME = "MEMORY.md"
SCOPES = ("user", "project", "local")
#: the agent-memory layouts below a ``.claude`` folder (CLAUDE-CODE.md "Subagents")
AGENT_DIRS = ("agent-memory", "agent-memory-local")


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def config_dir(env: Mapping[str, str] | None = None, home: str | None = None) -> str:
    """``$CLAUDE_CONFIG_DIR`` or ``~/.claude`` ("CLAUDE_CONFIG_DIR moves ~/.claude")."""
    value = _env(env).get("CLAUDE_CONFIG_DIR", "")
    if value:
        return os.path.abspath(os.path.expanduser(value))
    return os.path.join(home if home is not None else os.path.expanduser("~"), ".claude")


def settings_path(scope: str, project_dir: str, env: Mapping[str, str] | None = None,
                  home: str | None = None) -> str:
    """The settings file of a scope in a folder: user ``<config>/settings.json``, project
    ``<folder>/.claude/settings.json``, local ``<folder>/.claude/settings.local.json``."""
    if scope == "user":
        return os.path.join(config_dir(env, home), "settings.json")
    if scope == "project":
        return os.path.join(project_dir, ".claude", "settings.json")
    if scope == "local":
        return os.path.join(project_dir, ".claude", "settings.local.json")
    raise ValueError(f"unknown settings scope '{scope}' (user, project or local)")


def read_settings(path: str) -> dict | None:  # type: ignore[type-arg]
    """A settings file's object, or None when it is missing, unreadable or not a JSON object."""
    try:
        with open(path, "rb") as handle:
            value = json.loads(handle.read())
    except (OSError, ValueError):
        return None
    return value if isinstance(value, dict) else None


def _expand_memory_dir(value: object, home: str | None) -> str | None:
    """An ``autoMemoryDirectory`` value as a path, or None when Claude Code finds it invalid:
    absolute, or ``~/`` under the home folder (not climbing out of it), at least 3 characters
    once trailing separators go, no NUL (v2.1.332's check)."""
    if not isinstance(value, str) or not value:
        return None
    path = value
    if value.startswith("~/"):
        rest = os.path.normpath(value[2:] or ".")
        if rest in (".", "..") or rest.startswith("../"):
            return None
        path = os.path.join(home if home is not None else os.path.expanduser("~"), value[2:])
    path = os.path.normpath(path).rstrip("/")
    if not os.path.isabs(path) or len(path) < 3 or "\0" in path:
        return None
    return path


def repository_root(folder: str) -> str | None:
    """The root of the git repository holding ``folder`` as Claude Code names it, read from the
    files git keeps (no subprocess): the nearest ``.git`` above; a ``.git`` folder makes its
    folder the root; a linked worktree's ``.git`` file leads, through ``commondir``, to the
    **main checkout's** root; a submodule or a separate git dir (no ``commondir``) is its own
    root.  None outside git or for a ``.git`` this cannot read."""
    folder = os.path.abspath(folder)
    while True:
        dot = os.path.join(folder, ".git")
        if os.path.isdir(dot):
            return os.path.realpath(folder)
        if os.path.isfile(dot):
            try:
                with open(dot, encoding="utf-8") as handle:
                    text = handle.read().strip()
            except (OSError, UnicodeDecodeError):
                return None
            if not text.startswith("gitdir:"):
                return None
            gitdir = os.path.normpath(os.path.join(folder, text[len("gitdir:"):].strip()))
            try:
                with open(os.path.join(gitdir, "commondir"), encoding="utf-8") as handle:
                    common = os.path.normpath(os.path.join(gitdir, handle.read().strip()))
            except FileNotFoundError:
                return os.path.realpath(folder)
            except (OSError, UnicodeDecodeError):
                return None
            top = os.path.dirname(common) if os.path.basename(common) == ".git" else folder
            return os.path.realpath(top)
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def _owned(path: str, uid: int) -> bool:
    """Whether ``path`` (not followed when a link) is missing or owned by ``uid``."""
    try:
        return os.lstat(path).st_uid == uid
    except FileNotFoundError:
        return True
    except OSError:
        return False


def root_local_readable(repo_root: str, home: str | None = None) -> bool:
    """Whether Claude Code reads a repository root's ``.claude/settings.local.json`` for sessions
    launched below it: not for the home folder, and only when the root, its ``.git`` and its
    ``.claude`` entries are owned by this user (v2.1.332's code keeps the local store at the
    launch folder otherwise)."""
    root = os.path.normpath(repo_root)
    real_home = os.path.realpath(home if home is not None else os.path.expanduser("~"))
    if root == real_home or not hasattr(os, "geteuid"):
        return False
    uid = os.geteuid()
    try:
        if os.stat(root).st_uid != uid:
            return False
    except OSError:
        return False
    return _owned(os.path.join(root, ".git"), uid) and _owned(os.path.join(root, ".claude"), uid)


def second_local_root(launch_dir: str, repo_root: str | None, home: str | None = None) -> str | None:
    """The folder whose ``.claude/settings.local.json`` Claude Code reads besides the launch
    folder's: the repository root (a worktree's main checkout root), unless it is the launch
    folder itself or :func:`root_local_readable` says no.  None when only the launch folder's
    is read."""
    if not repo_root:
        return None
    launch = os.path.normpath(os.path.abspath(launch_dir))
    root = os.path.normpath(repo_root)
    if root in (launch, os.path.realpath(launch)) or not root_local_readable(root, home):
        return None
    return root


#: ``repo_root`` unset: found from the launch folder's git files
FIND = "\0find"


def settings_files(launch_dir: str, env: Mapping[str, str] | None = None, home: str | None = None,
                   repo_root: str | None = FIND) -> list[tuple[str, str]]:
    """The settings files a session launched in ``launch_dir`` reads, highest precedence
    first, as (scope, path) — CLAUDE-CODE.md "Which project settings are read" (v2.1.332):

    - local: the repository root's ``.claude/settings.local.json`` (the main checkout's root in
      a linked worktree; see :func:`second_local_root`), then the launch folder's — where both
      set a key the root's wins, and the hooks of both run;
    - project: ``.claude/settings.json`` of the **launch folder only** (the root's and every
      folder between are not read);
    - user: ``<config>/settings.json``.

    ``repo_root`` is the repository root when the caller knows it (None or "": no repository).
    """
    if repo_root == FIND:
        repo_root = repository_root(launch_dir)
    out = []
    root = second_local_root(launch_dir, repo_root, home)
    if root is not None:
        out.append(("local", settings_path("local", root)))
    out.append(("local", settings_path("local", launch_dir)))
    out.append(("project", settings_path("project", launch_dir)))
    out.append(("user", settings_path("user", launch_dir, env, home)))
    return out


def scoped_settings(launch_dir: str, env: Mapping[str, str] | None = None,
                    home: str | None = None, repo_root: str | None = FIND
                    ) -> list[tuple[str, dict]]:  # type: ignore[type-arg]
    """The readable settings objects of :func:`settings_files`, highest precedence first."""
    out = []
    for scope, path in settings_files(launch_dir, env, home, repo_root):
        value = read_settings(path)
        if value is not None:
            out.append((scope, value))
    return out


#: the scopes that belong to the repository (its own ``.claude/`` settings)
REPOSITORY_SCOPES = ("local", "project")


def blocks_outside_reads(launch_dir: str, env: Mapping[str, str] | None = None,
                         home: str | None = None, repo_root: str | None = FIND) -> bool:
    """``permissions.blockReadsOutsideWorkingDirectories`` from the winning scope (v2.1.273)."""
    for _scope, value in scoped_settings(launch_dir, env, home, repo_root):
        permissions = value.get("permissions")
        if isinstance(permissions, dict) and "blockReadsOutsideWorkingDirectories" in permissions:
            return permissions["blockReadsOutsideWorkingDirectories"] is True
    return False


def memory_dir_setting(launch_dir: str, env: Mapping[str, str] | None = None,
                       home: str | None = None, repo_root: str | None = FIND
                       ) -> tuple[str | None, object]:
    """The ``autoMemoryDirectory`` that wins: (scope, value).  Claude Code reads the scopes in
    order (local, project, user) and takes the **first that sets it**, valid or not; (None,
    None) when no scope sets it."""
    for scope, value in scoped_settings(launch_dir, env, home, repo_root):
        if value.get("autoMemoryDirectory") is not None:
            return scope, value["autoMemoryDirectory"]
    return None, None


def auto_memory_override(launch_dir: str, env: Mapping[str, str] | None = None,
                         home: str | None = None, repo_root: str | None = FIND) -> str | None:
    """The folder ``autoMemoryDirectory`` names, or None for the default folder.

    ``CLAUDE_COWORK_MEMORY_PATH_OVERRIDE`` (absolute) comes first, as in Claude Code.  Then the
    first scope setting ``autoMemoryDirectory`` (:func:`memory_dir_setting`) wins; an invalid
    value there (relative, empty, ``~/..``) means the default folder, not the next scope's value.
    Policy settings and ``--settings`` are not read (memtui cannot see how Claude Code was
    started).
    """
    cowork = _env(env).get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", "")
    if cowork:
        found = _expand_memory_dir(cowork if not cowork.startswith("~") else "", home)
        if found is not None:
            return found
    _scope, value = memory_dir_setting(launch_dir, env, home, repo_root)
    return _expand_memory_dir(value, home)


def blocked_memory_dir(launch_dir: str, env: Mapping[str, str] | None = None,
                       home: str | None = None, repo_root: str | None = FIND) -> str | None:
    """The folder the repository's own settings choose when Claude Code then uses no auto
    memory at all: the winning ``autoMemoryDirectory`` comes from the project or local settings
    and ``permissions.blockReadsOutsideWorkingDirectories`` is on (v2.1.273; v2.1.332 then names
    no memory folder and loads no index, even when the user's settings choose one too).  None
    otherwise."""
    if _env(env).get("CLAUDE_COWORK_MEMORY_PATH_OVERRIDE", ""):
        return None
    scope, value = memory_dir_setting(launch_dir, env, home, repo_root)
    if scope not in REPOSITORY_SCOPES or not blocks_outside_reads(launch_dir, env, home, repo_root):
        return None
    return _expand_memory_dir(value, home) or (str(value) if isinstance(value, str) else "")


def auto_memory_enabled(launch_dir: str, env: Mapping[str, str] | None = None,
                        home: str | None = None, repo_root: str | None = FIND) -> bool:
    """False under ``CLAUDE_CODE_DISABLE_AUTO_MEMORY=1`` or ``autoMemoryEnabled: false``; agent
    memory follows it ("subagent memory is part of auto memory")."""
    if _env(env).get("CLAUDE_CODE_DISABLE_AUTO_MEMORY", "") in ("1", "true"):
        return False
    for _scope, value in scoped_settings(launch_dir, env, home, repo_root):
        if "autoMemoryEnabled" in value:
            return value["autoMemoryEnabled"] is not False
    return True


#: a converted project name longer than this is cut and given a hash (v2.1.332)
NAME_LIMIT = 200


def _utf16_units(text: str) -> list[int]:
    data = text.encode("utf-16-le", "surrogatepass")
    return [data[k] | data[k + 1] << 8 for k in range(0, len(data), 2)]


def _name_hash(text: str) -> str:
    """Claude Code's hash of a long project path: a 31-multiplier hash of its UTF-16 code units
    (32-bit, signed), its absolute value in base 36."""
    value = 0
    for unit in _utf16_units(text):
        value = (value * 31 + unit) & 0xFFFFFFFF
    if value >= 0x80000000:
        value -= 0x100000000
    value = abs(value)
    digits = "0123456789abcdefghijklmnopqrstuvwxyz"
    out = ""
    while True:
        value, rest = divmod(value, 36)
        out = digits[rest] + out
        if not value:
            return out


def encode_project_path(path: str) -> str:
    """Claude Code's folder name for a project: the absolute path with every character that is
    not an ASCII letter or digit made ``-`` (a character outside the BMP is two UTF-16 units, so
    two ``-``); a name over 200 characters is cut to 200 and given ``-<hash>``."""
    path = os.path.abspath(path)
    name = "".join(ch if ch.isascii() and ch.isalnum() else "-" if ord(ch) <= 0xFFFF else "--"
                   for ch in path)
    if len(name) <= NAME_LIMIT:
        return name
    return f"{name[:NAME_LIMIT]}-{_name_hash(path)}"


_DIR_NAME_OK = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-"
_RESERVED = {"con", "prn", "aux", "nul", *(f"com{d}" for d in range(10)),
             *(f"lpt{d}" for d in range(10))}


def valid_project_dir_name(value: str) -> bool:
    """1–64 letters, digits, ``-`` or ``_``, and not a Windows device name."""
    return 1 <= len(value) <= 64 and all(ch in _DIR_NAME_OK for ch in value) \
        and value.lower() not in _RESERVED


def project_dir_name(project_root: str, env: Mapping[str, str] | None = None) -> str:
    """``$CLAUDE_CODE_PROJECT_DIR_NAME`` (v2.1.234) — only when ``CLAUDE_CONFIG_DIR`` is set and
    the value is valid; else the encoded project root."""
    env = _env(env)
    named = env.get("CLAUDE_CODE_PROJECT_DIR_NAME", "")
    if env.get("CLAUDE_CONFIG_DIR") and named and valid_project_dir_name(named):
        return named
    return encode_project_path(project_root)


def default_memory_dir(project_root: str, env: Mapping[str, str] | None = None,
                       home: str | None = None) -> str:
    """``<config>/projects/<project>/memory`` — with a long name's hash computed; when that
    folder is missing but one ``<first 200>-*`` folder is there (a build that hashes otherwise),
    that one."""
    name = project_dir_name(project_root, env)
    projects = os.path.join(config_dir(env, home), "projects")
    path = os.path.join(projects, name, "memory")
    if len(name) > NAME_LIMIT and not os.path.isdir(path):
        prefix = name[:NAME_LIMIT] + "-"
        try:
            found = [e for e in os.listdir(projects) if e.startswith(prefix)]
        except OSError:
            found = []
        if len(found) == 1:
            return os.path.join(projects, found[0], "memory")
    return path


def auto_memory_dir(project_root: str, env: Mapping[str, str] | None = None,
                    home: str | None = None, settings_dir: str | None = None) -> str:
    """The project's auto-memory folder: ``autoMemoryDirectory``, else
    ``<config>/projects/<project>/memory`` (``project_root`` is the git root, shared by worktrees).

    ``settings_dir`` is the launch folder, whose settings are read (:func:`settings_files`;
    default ``project_root``); ``project_root`` is also the root whose local settings count.
    """
    override = auto_memory_override(settings_dir or project_root, env, home, project_root)
    if override is not None:
        return override
    return default_memory_dir(project_root, env, home)


def _under(path: str, folder: str) -> bool:
    return path.startswith(folder.rstrip(os.sep) + os.sep)


def shaped_root(path: str, config: str) -> str | None:
    """The memory folder a path lies in by Claude Code's folder shapes alone (no disk access):
    ``<config>/projects/<p>/memory/``, ``<config>/agent-memory/<a>/`` and
    ``…/.claude/agent-memory[-local]/<a>/``."""
    if _under(path, config):
        parts = path[len(config.rstrip(os.sep)) + 1:].split(os.sep)
        if len(parts) >= 4 and parts[0] == "projects" and parts[2] == "memory":
            return os.path.join(config, *parts[:3])
        if len(parts) >= 3 and parts[0] == "agent-memory":
            return os.path.join(config, *parts[:2])
    parts = path.split(os.sep)
    for i in range(len(parts) - 3, 0, -1):
        if parts[i] == ".claude" and parts[i + 1] in AGENT_DIRS and i + 3 < len(parts):
            return os.sep.join(parts[: i + 3])
    return None


def is_agent_memory(root: str, env: Mapping[str, str] | None = None,
                    home: str | None = None) -> bool:
    """Whether a folder is a subagent's memory: ``…/.claude/agent-memory/<agent>``,
    ``…/.claude/agent-memory-local/<agent>`` or ``<config>/agent-memory/<agent>``."""
    folder = os.path.normpath(os.path.abspath(root))
    parent = os.path.dirname(folder)
    if os.path.basename(parent) in AGENT_DIRS and os.path.basename(os.path.dirname(parent)) == ".claude":
        return True
    return parent == os.path.join(config_dir(env, home), "agent-memory")


def nearest_root(path: str) -> str | None:
    """The nearest folder above ``path`` that holds a ``MEMORY.md`` (DESIGN §1.1), or None."""
    folder = os.path.dirname(path)
    while True:
        if os.path.isfile(os.path.join(folder, INDEX_NAME)):
            return folder
        parent = os.path.dirname(folder)
        if parent == folder:
            return None
        folder = parent


def memory_root_of(file_path: str, launch_dir: str, env: Mapping[str, str] | None = None,
                   home: str | None = None) -> str | None:
    """The memory root a file written by a session launched in ``launch_dir`` belongs to, or
    None when it is outside all.

    The nearest folder holding ``MEMORY.md`` wins (so a root nested in another owns its files);
    a folder without one yet counts when it is ``autoMemoryDirectory`` or has one of Claude Code's
    memory-folder shapes (the agent's first write there creates a topic file before the index).
    """
    path = os.path.normpath(file_path)
    found = nearest_root(path)
    config = config_dir(env, home)
    shaped = shaped_root(path, config)
    override = auto_memory_override(launch_dir, env, home)
    if override is not None and not _under(path, override):
        override = None
    candidates = [c for c in (found, shaped, override) if c is not None]
    if not candidates:
        return None
    return max(candidates, key=len)  # the innermost folder is the root that owns the file
