"""Installing memtui's hooks into a Claude Code settings file, and taking them out again.

The settings shape is Claude Code's (CLAUDE-CODE.md "Hooks"): ``{"hooks": {"PreToolUse":
[{"matcher": "Write|Edit", "hooks": [{"type": "command", "command": "…", "timeout": 30}]}]}}``
(there is no MultiEdit tool; a matcher memtui wrote as ``Write|Edit|MultiEdit`` is put right).
Whether a ``pre`` hook that cannot run blocks the write is a stated choice: fail open by default,
``"onFailure": "block"`` (v2.1.295) with ``fail_closed`` — on ``pre`` only (Claude Code ignores
it on Stop).  Merging works on the parsed object and keeps every other key and hook as it was
(same order, same values); the file is rewritten with the indentation it had.  A settings file
is not a memory folder, so it is written here, outside the memory transaction, but the same
way: a temporary file in the same folder, fsynced, then ``os.replace``, the old file kept beside
it as a backup.
"""

from __future__ import annotations

import copy
import difflib
import json
import os
import shlex
import time
from dataclasses import dataclass
from typing import Any

from ..write import replace_file

#: (Claude Code event, matcher or None, ``memtui hook`` sub-command)
HOOKS = (
    ("PreToolUse", "Write|Edit", "pre"),
    ("Stop", None, "stop"),
    ("SubagentStop", None, "subagent-stop"),
    ("SessionStart", None, "session-start"),
)
OLD_MATCHERS = ("Write|Edit|MultiEdit",)
TIMEOUT = 30


class SettingsError(Exception):
    """A settings file memtui will not touch (not JSON, not an object, an odd ``hooks`` value)."""


@dataclass(frozen=True)
class SettingsFile:
    """A settings file as read: its path, its text (None when missing) and its object."""

    path: str
    text: str | None
    value: dict[str, Any]


def read(path: str) -> SettingsFile:
    """Read a settings file; a missing one is an empty object, an invalid one a SettingsError."""
    try:
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
    except FileNotFoundError:
        return SettingsFile(path, None, {})
    except (OSError, UnicodeDecodeError) as exc:
        raise SettingsError(f"{path}: cannot read it ({exc}); nothing was changed") from None
    if not text.strip():
        return SettingsFile(path, text, {})
    try:
        value = json.loads(text)
    except ValueError as exc:
        raise SettingsError(
            f"{path} is not valid JSON ({exc}); fix it by hand first — memtui never overwrites it"
        ) from None
    if not isinstance(value, dict):
        raise SettingsError(f"{path} does not hold a JSON object; memtui leaves it alone")
    hooks = value.get("hooks")
    if hooks is not None and not isinstance(hooks, dict):
        raise SettingsError(f"{path}: \"hooks\" is not an object; memtui leaves it alone")
    for event, groups in (hooks or {}).items():
        if not isinstance(groups, list):
            raise SettingsError(f"{path}: hooks.{event} is not a list; memtui leaves it alone")
    return SettingsFile(path, text, value)


def command_for(prefix: str, sub: str, ask: bool = False) -> str:
    """The command line of one hook (``--ask`` only on ``pre``)."""
    return f"{prefix} hook {sub}" + (" --ask" if ask and sub == "pre" else "")


def memtui_hook_of(entry: object) -> str | None:
    """The ``memtui hook`` sub-command a hook entry runs (``pre``, ``stop``, …), or None."""
    if not isinstance(entry, dict) or not isinstance(entry.get("command"), str):
        return None
    try:
        words = shlex.split(entry["command"])
    except ValueError:
        return None
    ours = any(os.path.basename(w) == "memtui" for w in words) or any(
        a == "-m" and b == "memtui" for a, b in zip(words, words[1:]))
    if not ours:
        return None
    for a, b in zip(words, words[1:]):
        if a == "hook" and b in {sub for _, _, sub in HOOKS}:
            return b
    return None


def _ours(value: dict[str, Any], event: str, sub: str) -> list[dict[str, Any]]:
    found = []
    for group in value.get("hooks", {}).get(event, []):
        if isinstance(group, dict) and isinstance(group.get("hooks"), list):
            found += [h for h in group["hooks"] if memtui_hook_of(h) == sub]
    return found


def installed(value: dict[str, Any]) -> dict[str, str | None]:
    """For each sub-command, the command installed for it (None: not installed)."""
    out: dict[str, str | None] = {}
    for event, _matcher, sub in HOOKS:
        found = _ours(value, event, sub)
        out[sub] = found[0]["command"] if found else None
    return out


def with_hooks(value: dict[str, Any], prefix: str, ask: bool = False,
               fail_closed: bool = False) -> dict[str, Any]:
    """A copy of the settings with memtui's hooks in (updated in place if present): ``pre``
    carries ``"onFailure": "block"`` exactly when ``fail_closed``."""
    new = copy.deepcopy(value)
    hooks = new.setdefault("hooks", {})
    for event, matcher, sub in HOOKS:
        command = command_for(prefix, sub, ask)
        found = _ours(new, event, sub)
        for entry in found:
            entry["command"] = command
            if sub == "pre":
                _set_failure(entry, fail_closed)
        for existing in hooks.get(event, []):
            if isinstance(existing, dict) and existing.get("matcher") in OLD_MATCHERS and matcher \
                    and any(memtui_hook_of(h) == sub for h in existing.get("hooks", [])):
                existing["matcher"] = matcher
        if found:
            continue
        group: dict[str, Any] = {"matcher": matcher} if matcher else {}
        entry = {"type": "command", "command": command, "timeout": TIMEOUT}
        if sub == "pre":
            _set_failure(entry, fail_closed)
        group["hooks"] = [entry]
        hooks.setdefault(event, []).append(group)
    return new


def _set_failure(entry: dict[str, Any], fail_closed: bool) -> None:
    if fail_closed:
        entry["onFailure"] = "block"
    else:
        entry.pop("onFailure", None)


def describe(value: dict[str, Any]) -> list[str]:
    """One line a memtui hook in the settings: event, matcher, command and what a failure does."""
    out = []
    for event, _matcher, sub in HOOKS:
        for group in value.get("hooks", {}).get(event, []):
            if not isinstance(group, dict):
                continue
            for entry in group.get("hooks", []) if isinstance(group.get("hooks"), list) else []:
                if memtui_hook_of(entry) != sub:
                    continue
                where = f"{event} ({group['matcher']})" if group.get("matcher") else event
                failure = ""
                if sub == "pre":
                    failure = ("; if it cannot run, the write is blocked (onFailure: block)"
                               if entry.get("onFailure") == "block" else
                               "; if it cannot run, the write goes on unchecked (fail open)")
                out.append(f"{where}: {entry['command']}{failure}")
    return out


@dataclass(frozen=True)
class Place:
    """Where a scope's settings file is, and which sessions read it (CLAUDE-CODE.md "Which
    project settings are read", v2.1.332): ``guards`` says who is guarded by a hook there,
    ``not_guarded`` who is not (None: nobody is left out)."""

    scope: str
    path: str
    guards: str
    not_guarded: str | None


def place(scope: str, launch: str, worktree: str | None, repo_root: str | None,
          env: Any = None, home: str | None = None) -> Place:
    """Where ``hook install --scope <scope>`` writes, run in ``launch``, and whom it guards.

    ``user``: the user's settings, read by every session.  ``project``: the work tree's top
    (``worktree``; the launch folder outside git) — read only by sessions **launched there**, as
    Claude Code reads ``.claude/settings.json`` from the launch folder alone.  ``local``: the
    repository root (a worktree's main checkout root), whose ``settings.local.json`` every
    session launched in the repository reads beside its launch folder's — unless Claude Code
    would not read it there (the home folder, not this user's), then the launch folder's.
    """
    from ..model import claude_settings as cs

    if scope == "user":
        return Place(scope, cs.settings_path("user", launch, env, home), "every session", None)
    if scope == "project":
        folder = worktree or launch
        return Place(scope, cs.settings_path("project", folder),
                     f"sessions launched in {folder}",
                     "sessions launched in any other folder, its subfolders included: Claude "
                     "Code reads .claude/settings.json from the launch folder only")
    if repo_root and cs.root_local_readable(repo_root, home):
        return Place(scope, cs.settings_path("local", repo_root),
                     f"every session launched in {repo_root} or any folder below it (and in "
                     "the repository's linked worktrees)", None)
    return Place(scope, cs.settings_path("local", launch), f"sessions launched in {launch}",
                 "sessions launched in any other folder, its subfolders included")


def guarding_files(launch: str, env: Any = None, home: str | None = None,
                   repo_root: str | None = None) -> list[tuple[str, str, bool]]:
    """The settings files a session launched in ``launch`` reads, highest precedence first, as
    (scope, path, whether memtui's ``pre`` hook is in it); an unreadable file counts as
    holding none."""
    from ..model import claude_settings as cs

    out = []
    for scope, path in cs.settings_files(launch, env, home, repo_root if repo_root else ""):
        try:
            has = installed(read(path).value)["pre"] is not None
        except SettingsError:
            has = False
        out.append((scope, path, has))
    return out


def without_hooks(value: dict[str, Any]) -> dict[str, Any]:
    """A copy of the settings with memtui's hooks taken out (groups and events left empty go)."""
    new = copy.deepcopy(value)
    hooks = new.get("hooks")
    if not isinstance(hooks, dict):
        return new
    for event, _matcher, sub in HOOKS:
        groups = hooks.get(event)
        if not isinstance(groups, list):
            continue
        kept = []
        for group in groups:
            inner = group.get("hooks") if isinstance(group, dict) else None
            if isinstance(inner, list) and any(memtui_hook_of(h) == sub for h in inner):
                rest = [h for h in inner if memtui_hook_of(h) != sub]
                if not rest:
                    continue
                group = {**group, "hooks": rest}
            kept.append(group)
        if kept:
            hooks[event] = kept
        else:
            del hooks[event]
    if not hooks and value.get("hooks"):  # emptied by this call (an empty one found stays)
        del new["hooks"]
    return new


def _indent_of(text: str | None) -> int | str:
    for line in (text or "").splitlines()[1:]:
        stripped = line.lstrip(" \t")
        if stripped and len(stripped) < len(line):
            lead = line[: len(line) - len(stripped)]
            return "\t" if lead.startswith("\t") else len(lead)
    return 2


def render(value: dict[str, Any], like: str | None) -> str:
    """The settings as JSON text, indented like ``like`` (the file's old text), newline-ended."""
    text = json.dumps(value, indent=_indent_of(like), ensure_ascii=False)
    return text + "\n" if like is None or not like.strip() or like.endswith("\n") else text


def diff(old: str | None, new: str, path: str) -> str:
    """A unified diff of a settings file's change ('' when there is none)."""
    before = (old or "").splitlines(keepends=True)
    lines = difflib.unified_diff(before, new.splitlines(keepends=True),
                                 path if old is not None else "/dev/null", path)
    return "".join(line if line.endswith("\n") else line + "\n" for line in lines)


def _umask_mode() -> int:
    mask = os.umask(0o022)
    os.umask(mask)
    return 0o666 & ~mask


def write(path: str, text: str, old_text: str | None) -> str | None:
    """Replace the settings file atomically; return the backup's path (None for a new file).

    A symlinked settings file (dotfiles) is written through: its target is replaced.  The file
    keeps its mode (a new one gets the umask's).  Not the writer's side-file API: that one is for
    ``.memtui/`` inside a memory root, under its lock; a settings file is neither.
    """
    target = os.path.realpath(path)
    folder = os.path.dirname(target)
    os.makedirs(folder, exist_ok=True)
    try:
        mode = os.stat(target).st_mode & 0o7777
    except FileNotFoundError:
        mode = _umask_mode()
    backup = None
    if old_text is not None:
        stamp = time.strftime("%Y%m%d-%H%M%S")
        backup = f"{target}.memtui-{stamp}.bak"
        n = 1
        while os.path.lexists(backup):
            n += 1
            backup = f"{target}.memtui-{stamp}-{n}.bak"
        _replace(folder, backup, old_text.encode("utf-8"), mode)
    _replace(folder, target, text.encode("utf-8"), mode)
    return backup


def _replace(folder: str, target: str, data: bytes, mode: int) -> None:
    """Write ``target`` through an exclusive temp file in its folder (a real path: :func:`write`
    resolved it): fsync, ``mode``, replace."""
    replace_file(folder, os.path.basename(target), data, mode=mode, sync=True)
