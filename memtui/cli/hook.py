"""``memtui hook …``: Claude Code hooks that hold the agent to the memory contract (DESIGN §9).

``pre``, ``stop`` and ``session-start`` run inside Claude Code's loop: they read one hook JSON
object on stdin and answer the way CLAUDE-CODE.md ("Hooks") says Claude Code reads hooks —
exit 0 always, a JSON decision on stdout when there is something to say.  Any other exit code is
a non-blocking error (the write would go on unchecked), so a hook never exits 1: bad input gets
one line on stderr and exit 0, and a top-level guard turns any unexpected exception into the same.

``pre`` is run for every Write, Edit and MultiEdit, so it decides "outside every memory root"
after importing only ``json``, ``os`` and :mod:`memtui.core.claude_settings` (no argparse, no
Rich, no validator); ``memtui.cli.main`` sends ``hook pre|stop|session-start`` here before it
builds its parser.  ``install``, ``uninstall`` and ``status`` are ordinary subcommands.

The hooks measure the index with the ``claude-code`` loader profile and the 200-line / 25,000-byte
caps whatever ``MEMTUI_LOADER`` says: inside Claude Code's loop, Claude Code is the loader.
"""

from __future__ import annotations

import json
import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import argparse
    from collections.abc import Mapping
    from typing import Any, BinaryIO, TextIO

    from .common import Subparsers

RUNNERS = ("pre", "stop", "session-start")
SCOPE_HELP = "user (~/.claude/settings.json), project (.claude/settings.json) or local " \
             "(.claude/settings.local.json)"


def fast_path(argv: list[str]) -> int | None:
    """Run ``hook pre|stop|session-start [--ask]`` without building the parser; None otherwise.

    An unknown option is one line on stderr and the hook runs anyway: a usage error's exit 2
    would read to Claude Code as "block" (only ``--help`` goes to the parser).
    """
    if not argv or argv[0] not in RUNNERS or any(a in ("-h", "--help") for a in argv[1:]):
        return None
    unknown = [a for a in argv[1:] if a != "--ask" or argv[0] != "pre"]
    if unknown:
        _say(sys.stderr, f"memtui hook {argv[0]}: ignoring unknown argument(s) {' '.join(unknown)}")
    return run_hook(argv[0], ask="--ask" in argv[1:] and argv[0] == "pre")


def exit_now(code: int) -> None:
    """End a hook's process at once, its answer flushed: freeing what the judgement built (every
    file of the root) and unloading the modules is all an ordinary exit would still do."""
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except Exception:  # noqa: BLE001 - a closed stream: nothing more to say
            pass
    os._exit(code)


def run_hook(event: str, ask: bool = False, stdin: BinaryIO | None = None,
             stdout: TextIO | None = None, stderr: TextIO | None = None,
             env: Mapping[str, str] | None = None) -> int:
    """Run one hook with Claude Code's contract: always exit 0, never a traceback."""
    out = stdout if stdout is not None else sys.stdout
    err = stderr if stderr is not None else sys.stderr
    try:
        raw = (stdin if stdin is not None else sys.stdin.buffer).read()
        payload = _payload(raw)
        if isinstance(payload, str):
            _say(err, f"memtui hook {event}: {payload}; nothing checked")
            return 0
        env = os.environ if env is None else env
        if event == "pre":
            answer = _pre(payload, ask, env, err)
        elif event == "stop":
            answer = _stop(payload, env)
        else:
            answer = _session_start(payload, env)
        if answer is not None:
            out.write(json.dumps(answer, ensure_ascii=False) + "\n")
            out.flush()
    except BaseException as exc:  # noqa: BLE001 - exit 1 would silently switch the guard off
        _say(err, f"memtui hook {event}: internal error ({type(exc).__name__}: {exc}); "
                  "nothing checked")
    return 0


def _say(err: TextIO, line: str) -> None:
    try:
        err.write(line.replace("\n", " ") + "\n")
        err.flush()
    except Exception:  # noqa: BLE001 - a closed stderr must not turn into exit 1
        pass


def _payload(raw: bytes) -> dict[str, Any] | str:
    """The hook's JSON object, or why the input is not one."""
    if not raw.strip():
        return "empty input (expected Claude Code's hook JSON on stdin)"
    try:
        value = json.loads(raw)
    except ValueError as exc:
        return f"input is not JSON ({exc})"
    if not isinstance(value, dict):
        return "input is not a JSON object"
    return value


def _cwd(payload: Mapping[str, Any]) -> str:
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) and os.path.isabs(cwd) else os.getcwd()


# ---------------------------------------------------------------- pre


def _pre(payload: dict[str, Any], ask: bool, env: Mapping[str, str], err: TextIO) -> dict[str, Any] | None:
    """PreToolUse: judge a memory write; None (allow silently) for everything else."""
    tool = payload.get("tool_name")
    tool_input = payload.get("tool_input")
    if tool not in ("Write", "Edit", "MultiEdit"):
        _say(err, f"memtui hook pre: tool_name {tool!r} is not Write, Edit or MultiEdit; "
                  "nothing checked")
        return None
    file_path = tool_input.get("file_path") if isinstance(tool_input, dict) else None
    if not isinstance(file_path, str) or not os.path.isabs(file_path):
        _say(err, "memtui hook pre: tool_input.file_path is missing or not absolute; nothing checked")
        return None
    if not file_path.lower().endswith(".md"):
        return None  # memory files are Markdown; nothing else can change what the validator sees
    from memtui.core.claude_settings import memory_root_of, project_dir_of

    # Claude Code names the project folder in CLAUDE_PROJECT_DIR for hook commands; without it
    # the session's cwd leads to the folder holding the project's .claude/ settings
    project_dir = env.get("CLAUDE_PROJECT_DIR") or project_dir_of(_cwd(payload))
    root = memory_root_of(file_path, project_dir, env)
    if root is None:
        return None
    from memtui.core.gcpause import gc_paused

    with gc_paused():  # one bulk pass over the root in a short-lived process
        return _judge(root, os.path.normpath(file_path), tool, tool_input, ask, err)


def _judge(root: str, path: str, tool: str, tool_input: dict[str, Any], ask: bool,
           err: TextIO) -> dict[str, Any] | None:
    from pathlib import Path

    from memtui.core.hooks import (
        HookInputError,
        current_text,
        empty_snapshot,
        escape_verdict,
        judge_write,
        proposed_text,
    )
    from memtui.core.statcache import load_cached
    from memtui.core.store import RootError

    rel = os.path.relpath(path, root).replace(os.sep, "/")
    real_root, real = os.path.realpath(root), os.path.realpath(path)
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        return _decision("deny", escape_verdict(rel, real, tool).reason)
    cache = None
    try:
        if os.path.lexists(root):  # through the stat cache: unchanged files are not parsed again
            snapshot, cache = load_cached(root)
        else:
            snapshot = empty_snapshot(Path(root))
    except RootError as exc:
        _say(err, f"memtui hook pre: {exc}; nothing checked")
        return None
    try:
        after = proposed_text(tool, tool_input, current_text(snapshot, rel))
    except HookInputError as exc:
        _say(err, f"memtui hook pre: {exc}; nothing checked")
        return None
    if after is None:
        return None  # Claude Code refuses this edit itself (old_string not found, ambiguous)
    verdict = judge_write(snapshot, rel, after, tool)
    if cache is not None:
        cache.save()  # in the user's cache folder, never in the memory folder
    if ask and verdict.summary:
        return _decision("ask", verdict.summary)
    if verdict.decision == "deny":
        return _decision("deny", verdict.reason)
    return None


def _decision(decision: str, reason: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                   "permissionDecisionReason": reason}}


# ---------------------------------------------------------------- stop and session-start


def _project_reports(payload: Mapping[str, Any], env: Mapping[str, str], prune: bool) -> list[Any]:
    """What the project's memory roots look like: its auto memory, shared and agent memories
    (user-level agent memories are not this project's, so Stop never blocks on them)."""
    from pathlib import Path

    from memtui.core.discover import claude_roots
    from memtui.core.gcpause import gc_paused
    from memtui.core.hooks import report_of
    from memtui.core.statcache import load_cached
    from memtui.core.store import RootError
    from memtui.core.validate import validate

    reports = []
    cwd = Path(env.get("CLAUDE_PROJECT_DIR") or _cwd(payload))
    for root in claude_roots(cwd, env=env, include_user=False):
        if not root.enabled or not root.holds_memory():
            continue
        with gc_paused():
            try:
                snapshot, cache = load_cached(root.path)
            except RootError:
                continue
            reports.append(report_of(str(root.path), snapshot, validate(snapshot),
                                     _to_prune(snapshot) if prune else 0))
            cache.save()
    return reports


def _to_prune(snapshot: Any) -> int:
    """Files whose age alone puts them at "prune" (no reference checks: a hook must be quick)."""
    from datetime import datetime, timezone

    from memtui.core.staleness import Action, score_file

    now = datetime.now(timezone.utc)
    return sum(1 for f in snapshot.files.values()
               if not f.archived and score_file(f, now, None, {}).action is Action.PRUNE)


def _stop(payload: dict[str, Any], env: Mapping[str, str]) -> dict[str, Any] | None:
    """Stop: block once while a memory root of this project has errors (never when
    ``stop_hook_active``: Claude is already continuing because of a Stop hook)."""
    if payload.get("stop_hook_active") is True:
        return None
    from memtui.core.hooks import stop_reason

    reason = stop_reason(_project_reports(payload, env, prune=False))
    return {"decision": "block", "reason": reason} if reason else None


def _session_start(payload: dict[str, Any], env: Mapping[str, str]) -> dict[str, Any] | None:
    """SessionStart: a short context when the project's memory needs attention, else nothing."""
    from memtui.core.hooks import session_context
    from memtui.core.review import session_start_message

    reports = _project_reports(payload, env, prune=True)
    context = session_context(reports)
    unseen = session_start_message(r.label for r in reports)  # for the person, not the agent
    answer: dict[str, Any] = {"systemMessage": unseen} if unseen else {}
    if context is not None:
        answer["hookSpecificOutput"] = {"hookEventName": "SessionStart", "additionalContext": context}
    return answer or None


# ---------------------------------------------------------------- install, uninstall, status


def register(subparsers: Subparsers) -> None:
    hook = subparsers.add_parser(
        "hook",
        help="Claude Code hooks that guard memory writes (install, status, and the hooks)",
        description="Claude Code hooks: `pre` (PreToolUse on Write|Edit|MultiEdit) denies a "
        "memory write the validator refuses, `stop` blocks once while the project's memory has "
        "errors, `session-start` tells the agent what needs attention. `install` puts them in a "
        "settings file.",
    )
    sub = hook.add_subparsers(dest="hook_command", metavar="HOOK", required=True)
    for name, text in (("pre", "PreToolUse: judge a memory write read from stdin"),
                       ("stop", "Stop: block once while this project's memory has errors"),
                       ("session-start", "SessionStart: context when memory needs attention")):
        runner = sub.add_parser(name, help=text, description=text + " (Claude Code hook JSON on "
                                "stdin; always exits 0).")
        if name == "pre":
            runner.add_argument("--ask", action="store_true",
                                help="ask the person about every memory write, with a summary")
        runner.set_defaults(func=lambda args, event=name: run_hook(event, getattr(args, "ask", False)))
    for name, text in (("install", "merge memtui's hooks into a Claude Code settings file"),
                       ("uninstall", "take memtui's hooks out of a settings file")):
        cmd = sub.add_parser(name, help=text, description=text + "; every other key and hook "
                             "is kept, the old file is backed up beside it.")
        cmd.add_argument("--scope", choices=("user", "project", "local"), default="user",
                         help=f"which settings file: {SCOPE_HELP} (default user)")
        cmd.add_argument("--dry-run", action="store_true", help="print the diff; change nothing")
        if name == "install":
            cmd.add_argument("--ask", action="store_true",
                             help="make every memory write ask the person (with a summary)")
            cmd.add_argument("--command", metavar="PREFIX",
                             help="how Claude Code should run memtui (default: this memtui's path)")
        cmd.set_defaults(func=run_install if name == "install" else run_uninstall)
    status = sub.add_parser("status", help="say which memtui hooks are installed where",
                            description="Show, for each settings scope, which memtui hooks are "
                            "installed and with what command.")
    status.add_argument("--json", action="store_true", help="print JSON")
    status.set_defaults(func=run_status)


def _project_dir() -> str:
    from pathlib import Path

    from memtui.core.discover import git_roots

    found = git_roots(Path.cwd())
    return str(found.worktree) if found is not None else os.getcwd()


def _settings_path(scope: str) -> str:
    from memtui.core.claude_settings import settings_path

    return settings_path(scope, _project_dir())


def default_prefix() -> str:
    """How Claude Code should start this memtui: its script's absolute path, else
    ``python -m memtui`` with this interpreter."""
    import shlex

    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if os.path.basename(script) == "memtui" and os.path.isfile(script):
        return shlex.quote(script)
    return f"{shlex.quote(sys.executable)} -m memtui"


def _change(args: argparse.Namespace, install: bool) -> int:
    from memtui.core import hooks_install as hi

    from .common import EXIT_OK, UsageError, console

    path = _settings_path(args.scope)
    try:
        current = hi.read(path)
    except hi.SettingsError as exc:
        raise UsageError(str(exc)) from None
    if install:
        new = hi.with_hooks(current.value, args.command or default_prefix(), args.ask)
    else:
        new = hi.without_hooks(current.value)
    out = console()
    if new == current.value and (current.text is not None or not install):
        out.print(f"{path}: memtui's hooks are {'already in' if install else 'not in'} this "
                  "file; nothing to change", markup=False)
        return EXIT_OK
    text = hi.render(new, current.text)
    if args.dry_run:
        sys.stdout.write(hi.diff(current.text, text, path))
        return EXIT_OK
    try:
        backup = hi.write(path, text, current.text)
    except OSError as exc:
        raise UsageError(f"{path}: cannot write it ({exc.strerror or exc}); nothing was changed") from None
    done = "installed in" if install else "removed from"
    kept = f" (the old file is kept as {backup})" if backup else ""
    out.print(f"memtui's hooks {done} {path}{kept}", markup=False)
    return EXIT_OK


def run_install(args: argparse.Namespace) -> int:
    return _change(args, install=True)


def run_uninstall(args: argparse.Namespace) -> int:
    return _change(args, install=False)


def run_status(args: argparse.Namespace) -> int:
    from memtui.core import hooks_install as hi

    from .common import EXIT_OK, console, print_json

    rows = []
    for scope in ("user", "project", "local"):
        path = _settings_path(scope)
        row: dict[str, Any] = {"scope": scope, "path": path, "exists": os.path.exists(path)}
        try:
            row["hooks"] = hi.installed(hi.read(path).value)
            row["error"] = None
        except hi.SettingsError as exc:
            row["hooks"], row["error"] = {sub: None for _, _, sub in hi.HOOKS}, str(exc)
        rows.append(row)
    if args.json:
        print_json(rows)
        return EXIT_OK
    out = console()
    for row in rows:
        out.print(f"{row['scope']:8} {row['path']}", markup=False)
        if row["error"]:
            out.print(f"         unreadable: {row['error']}", markup=False)
            continue
        if not row["exists"]:
            out.print("         (no such file)", markup=False)
            continue
        for sub, command in row["hooks"].items():
            out.print(f"         {sub:14} {command or '-'}", markup=False)
    return EXIT_OK
