"""``memtui hook …``: Claude Code hooks that hold the agent to the memory contract (DESIGN §9).

``pre``, ``stop``, ``subagent-stop`` and ``session-start`` run inside Claude Code's loop: they
read one hook JSON object on stdin and answer the way CLAUDE-CODE.md ("Hooks") says Claude Code
reads hooks — exit 0 always, a JSON answer on stdout when there is something to say.  Any other
exit code is a non-blocking error (the write would go on unchecked), so a hook never exits 1: bad
input gets one line on stderr and exit 0, and memtui's own failures (an unexpected exception, a
memory folder it cannot read) also reach the person as a ``systemMessage`` — stderr of an exit-0
hook goes only to Claude Code's debug log.

``pre`` is run for every Write and Edit, so it decides "outside every memory root" after
importing only ``os`` (a write that is no Markdown) or :mod:`memtui.core.model.claude_settings`
too (a Markdown file: is it in a memory root?) — no argparse, no Rich, no validator, not even the
``json`` package for reading the payload (:func:`read_json`); ``memtui.cli.main`` sends the hook
runners here before it builds its parser.
``install``, ``uninstall`` and ``status`` are ordinary subcommands.

A hook costs the agent nothing when it did nothing wrong: ``stop`` (Stop, the end of every turn)
and ``subagent-stop`` (SubagentStop) block only for errors *this session introduced* in the
memory that agent owns, once each (:mod:`memtui.core.hooks.session` keeps the session's baseline
in the user's cache folder, taken at SessionStart or at the session's first hook call).

``pre --ask`` turns every memory write into a question for the person — only in an interactive
session: Claude Code turns "ask" into a refusal under ``-p``, the SDK and background sessions
(``CLAUDE_CODE_ENTRYPOINT`` ``sdk-*``, ``mcp``, a GitHub action), so there memtui judges the write
itself and says so once in a ``systemMessage``.

The hooks measure the index with the ``claude-code`` loader profile and the 200-line /
25,000-character caps whatever ``MEMTUI_LOADER`` says: inside Claude Code's loop, Claude Code is
the loader.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import argparse
    from collections.abc import Mapping
    from typing import Any, BinaryIO, TextIO

    from memtui.core.model.snapshot import Finding, Snapshot
    from memtui.core.roots.discover import ClaudeRoot

    from .common import Subparsers

RUNNERS = ("pre", "stop", "subagent-stop", "session-start")
WRITE_TOOLS = ("Write", "Edit")  # CLAUDE-CODE.md: there is no MultiEdit tool
SCOPE_HELP = "user (~/.claude/settings.json), project (.claude/settings.json) or local " \
             "(.claude/settings.local.json)"
#: CLAUDE_CODE_ENTRYPOINT values of sessions with no person to ask (``-p``, SDK, background)
NON_INTERACTIVE = ("sdk-", "mcp", "claude-code-github-action", "remote")


def fast_path(argv: list[str]) -> int | None:
    """Run ``hook pre|stop|subagent-stop|session-start [--ask]`` without building the parser;
    None otherwise.

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
    answer: dict[str, Any] | None = None
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
        elif event == "subagent-stop":
            answer = _subagent_stop(payload, env)
        else:
            answer = _session_start(payload, env)
    except BaseException as exc:  # noqa: BLE001 - exit 1 would silently switch the guard off
        bad = _bad_input(exc)
        if bad is not None:  # the payload's fault, not memtui's: said as such, nothing blocked
            _say(err, f"memtui hook {event}: {bad}; nothing checked")
            return 0
        line = (f"memtui hook {event}: internal error ({type(exc).__name__}: {exc}); "
                "nothing checked")
        _say(err, line)
        answer = {"systemMessage": line.replace("\n", " ")}
    if answer is not None:
        try:
            import json  # here: an allowed write says nothing, and needs no encoder

            out.write(json.dumps(answer, ensure_ascii=False) + "\n")
            out.flush()
        except Exception:  # noqa: BLE001 - a closed stdout must not turn into exit 1
            pass
    return 0


def _say(err: TextIO, line: str) -> None:
    try:
        err.write(line.replace("\n", " ") + "\n")
        err.flush()
    except Exception:  # noqa: BLE001 - a closed stderr must not turn into exit 1
        pass


def _bad_input(exc: BaseException) -> str | None:
    """What is wrong with the payload when ``exc`` is its fault (a path holding a NUL byte,
    values nested too deep to follow), else None."""
    if isinstance(exc, RecursionError):
        return "input is not JSON Claude Code sends (its values are nested too deep to read)"
    if isinstance(exc, ValueError) and "null byte" in str(exc):
        return "input names a path holding a NUL byte, which no file name can hold"
    return None


def _words(exc: OSError) -> str:
    """An ``OSError`` in plain words ("the disk is full (…)"), as the CLI says it."""
    from .common import os_error_words

    return os_error_words(exc)


def _payload(raw: bytes) -> dict[str, Any] | str:
    """The hook's JSON object, or why the input is not one."""
    if not raw.strip():
        return "empty input (expected Claude Code's hook JSON on stdin)"
    try:
        value = read_json(raw)
    except ValueError as exc:
        return f"input is not JSON ({exc})"
    except RecursionError:
        return "input is not JSON Claude Code sends (its values are nested too deep to read)"
    if not isinstance(value, dict):
        return "input is not a JSON object"
    return value


#: json.decoder's constants, for the scanner's context (:func:`read_json`)
_CONSTANTS = {"-Infinity": float("-inf"), "Infinity": float("inf"), "NaN": float("nan")}


class _Context:
    """What ``_json.make_scanner`` reads of a decoder: json.loads's defaults."""

    strict = True
    object_hook = None
    object_pairs_hook = None
    parse_float = float
    parse_int = int
    parse_constant = _CONSTANTS.__getitem__


def read_json(raw: bytes) -> Any:
    """``json.loads(raw)``: the same value, or the same error, without importing the ``json``
    package (its decoder compiles regular expressions at import, and ``re`` brings ``enum``):
    Claude Code's UTF-8 payload is read by the C scanner that package itself uses, and anything
    else (a BOM, UTF-16 or 32, a syntax error, extra data) is handed to ``json.loads``."""
    make_scanner: Any = None
    try:
        import _json

        make_scanner = _json.make_scanner  # typeshed types it as a class taking a scanner
    except ImportError:  # pragma: no cover - an interpreter without the C accelerator
        pass
    if make_scanner is None or raw[:3] == b"\xef\xbb\xbf" or b"\0" in raw[:4]:
        import json

        return json.loads(raw)
    try:
        text = raw.decode("utf-8", "surrogatepass")
        start = len(text) - len(text.lstrip(" \t\n\r"))
        value, end = make_scanner(_Context())(text, start)
        if not text[end:].strip(" \t\n\r"):
            return value
    except (UnicodeDecodeError, StopIteration, ValueError):
        pass
    import json

    return json.loads(raw)  # raises what json.loads raises


def _cwd(payload: Mapping[str, Any]) -> str:
    cwd = payload.get("cwd")
    return cwd if isinstance(cwd, str) and os.path.isabs(cwd) and "\0" not in cwd else os.getcwd()


def _launch_folder(payload: Mapping[str, Any], env: Mapping[str, str]) -> str:
    """The folder the session was started in: ``CLAUDE_PROJECT_DIR`` (CLAUDE-CODE.md: the launch
    folder, which may be a subfolder of the repository), else the payload's ``cwd``."""
    given = env.get("CLAUDE_PROJECT_DIR", "")
    return given if given and os.path.isabs(given) else _cwd(payload)


def _session_id(payload: Mapping[str, Any]) -> str | None:
    sid = payload.get("session_id")
    return sid if isinstance(sid, str) and sid else None


def interactive(env: Mapping[str, str]) -> bool:
    """Whether a person can answer an "ask" (not ``-p``, the SDK or a background session)."""
    entry = env.get("CLAUDE_CODE_ENTRYPOINT", "")
    return not any(entry.startswith(prefix) for prefix in NON_INTERACTIVE)


# ---------------------------------------------------------------- pre


def _pre(payload: dict[str, Any], ask: bool, env: Mapping[str, str], err: TextIO) -> dict[str, Any] | None:
    """PreToolUse: judge a memory write; None (allow silently) for everything else."""
    tool = payload.get("tool_name")
    given = payload.get("tool_input")
    tool_input: dict[str, Any] = given if isinstance(given, dict) else {}
    if tool not in WRITE_TOOLS:
        _say(err, f"memtui hook pre: tool_name {tool!r} is not Write or Edit; nothing checked")
        return None
    file_path = tool_input.get("file_path")
    if not isinstance(file_path, str) or not os.path.isabs(file_path):
        _say(err, "memtui hook pre: tool_input.file_path is missing or not absolute; nothing checked")
        return None
    if "\0" in file_path:  # no file has such a name: Claude Code's write fails on its own
        _say(err, "memtui hook pre: tool_input.file_path holds a NUL byte, which no file name can "
                  "hold; nothing checked")
        return None
    if not file_path.lower().endswith(".md"):
        return None  # memory files are Markdown; nothing else can change what the validator sees
    from memtui.core.model.claude_settings import memory_root_of

    # the settings the session reads: its launch folder's, and the repository root's local ones
    launch = _launch_folder(payload, env)
    path = os.path.normpath(file_path)
    root = memory_root_of(path, launch, env)
    if root is None:
        real = os.path.realpath(file_path)  # "side/l/../MEMORY.md" with l leading into a root
        if real != path:
            root = memory_root_of(real, launch, env)
            path = real
    if root is None:
        return None
    from memtui.core.model.gcpause import gc_paused

    with gc_paused():  # one bulk pass over the root in a short-lived process
        return _judge(root, path, tool, tool_input, ask, payload, env, err)


def _judge(root: str, path: str, tool: str, tool_input: dict[str, Any], ask: bool,
           payload: Mapping[str, Any], env: Mapping[str, str], err: TextIO) -> dict[str, Any] | None:
    from memtui.core.hooks.judge import NoKept, judge_full, judge_kept
    from memtui.core.hooks.policy import HookInputError, escape_verdict
    from memtui.core.read.store import RootError

    rel = os.path.relpath(path, root).replace(os.sep, "/")
    real_root, real = os.path.realpath(root), os.path.realpath(path)
    if real != real_root and not real.startswith(real_root.rstrip(os.sep) + os.sep):
        return _decision("deny", escape_verdict(rel, real, tool).reason)
    try:
        verdict = None
        try:
            if not os.path.lexists(root):
                raise NoKept(root)
            verdict = judge_kept(root, rel, tool, tool_input,
                                 baseline_needed=_baseline_needed(payload, root))
        except NoKept:
            verdict = judge_full(root, rel, tool, tool_input)
        except HookInputError:
            raise
        except Exception:  # noqa: BLE001 - the kept answer is only a shortcut: judge in full
            verdict = judge_full(root, rel, tool, tool_input)
    except RootError as exc:
        line = f"memtui hook pre: {exc}; this write to the memory folder was not checked"
        _say(err, line)
        return {"systemMessage": line}
    except HookInputError as exc:
        _say(err, f"memtui hook pre: {exc}; nothing checked")
        return None
    if verdict is None:
        return None  # Claude Code refuses this edit itself (old_string not found, ambiguous)
    note = _first_call(payload, root, verdict.before, ask and not interactive(env), env)
    if ask and interactive(env) and verdict.summary:
        return _decision("ask", verdict.summary)
    answer = _decision("deny", verdict.reason) if verdict.decision == "deny" else None
    if note:
        answer = {**(answer or {}), "systemMessage": note}
    return answer


def _baseline_needed(payload: Mapping[str, Any], root: str) -> bool:
    """Whether this call takes the session's baseline of the root (:func:`_first_call`)."""
    sid = _session_id(payload)
    if sid is None:
        return False
    from memtui.core.hooks.session import SessionState

    return not SessionState.load(sid).has(root)


ASK_SKIPPED = ("memtui hook pre --ask: this session cannot ask a person (CLAUDE_CODE_ENTRYPOINT "
               "{entry}), and Claude Code would turn every \"ask\" into a refusal, so memtui "
               "judges memory writes itself here: it denies only what adds an error, a secret or "
               "a budget overflow.")


def _first_call(payload: Mapping[str, Any], root: str, before: tuple[Finding, ...] | None, ask_skipped: bool,
                env: Mapping[str, str]) -> str | None:
    """Take the root's baseline at the session's first hook call (when SessionStart did not),
    and say once a session that ``--ask`` is skipped; returns that note, or None."""
    sid = _session_id(payload)
    if sid is None or (before is None and not ask_skipped):
        return None
    from memtui.core.hooks.session import SessionState

    state = SessionState.load(sid)
    changed = False
    if before is not None and not state.has(root):
        state.take(root, before)
        changed = True
    note = None
    if ask_skipped and "ask" not in state.said:
        state.said.append("ask")
        note = ASK_SKIPPED.format(entry=env.get("CLAUDE_CODE_ENTRYPOINT", "?"))
        changed = True
    if changed:
        try:
            state.save()
        except OSError:
            pass  # the cache folder cannot be written: the baseline is taken later
    return note


def _decision(decision: str, reason: str) -> dict[str, Any]:
    return {"hookSpecificOutput": {"hookEventName": "PreToolUse", "permissionDecision": decision,
                                   "permissionDecisionReason": reason}}


# ---------------------------------------------------------------- stop, subagent-stop, session-start


def _claude_roots(payload: Mapping[str, Any], env: Mapping[str, str], include_user: bool) -> list[ClaudeRoot]:
    from pathlib import Path

    from memtui.core.roots.discover import TEAM, claude_roots

    return [r for r in claude_roots(Path(_launch_folder(payload, env)), env=env,
                                    include_user=include_user)
            if r.enabled and r.kind != TEAM]


def _owned(payload: Mapping[str, Any], env: Mapping[str, str], agent: str | None) -> list[ClaudeRoot]:
    """The memory an agent owns: the main agent its project's auto and shared memory, a subagent
    its own agent memories (project, local and user scope)."""
    from memtui.core.roots.discover import AGENT

    if agent is None:
        return [r for r in _claude_roots(payload, env, False) if r.kind != AGENT]
    return [r for r in _claude_roots(payload, env, True) if r.kind == AGENT and r.path.name == agent]


def _block_new(payload: Mapping[str, Any], roots: list[ClaudeRoot], event: str) -> dict[str, Any] | None:
    """Block once for the errors this session introduced in ``roots``; None when there are none
    (or when the session cannot be told apart: no ``session_id``)."""
    if payload.get("stop_hook_active") is True:
        return None  # Claude is already continuing because of a Stop hook
    sid = _session_id(payload)
    if sid is None:
        return None
    from memtui.core.hooks.session import SessionState
    from memtui.core.read.store import RootError
    from memtui.core.stores.kept import validate_kept
    from memtui.core.stores.statcache import validate_root

    state = SessionState.load(sid)
    new: list[tuple[str, list[Finding]]] = []
    problems: list[str] = []
    for root in roots:
        if not root.holds_memory():
            continue
        try:
            # the kept answer, every stat key checked (the writes of this turn played on it);
            # else the stat cache's whole-root validation
            findings = _quietly(validate_kept, root.path)
            if findings is None:
                findings = validate_root(root.path).findings
        except RootError as exc:
            problems.append(f"memtui hook {event}: {exc}; not checked")
            continue
        errors = state.introduced(str(root.path), findings)
        if errors:
            new.append((str(root.path), errors))
    for label, errors in new:
        state.mark_blocked(label, errors)
    try:
        state.save()
    except OSError as exc:
        problems.append(f"memtui hook {event}: cannot keep the session's baseline ({_words(exc)})")
    reason = None
    if new:
        from memtui.core.hooks.policy import stop_reason

        reason = stop_reason(new)
    answer: dict[str, Any] = {"decision": "block", "reason": reason} if reason else {}
    if problems:
        answer["systemMessage"] = " ".join(problems)
    return answer or None


def _quietly(validate: Any, path: Any) -> list[Finding] | None:
    """``validate(path)``, or None when it fails in any way but the root's own (a RootError):
    the kept answer is a shortcut, and the full validation says what is wrong."""
    from memtui.core.read.store import RootError

    try:
        found: list[Finding] | None = validate(path)
        return found
    except RootError:
        raise
    except Exception:  # noqa: BLE001 - the kept answer is a shortcut: the full validation says what is wrong
        return None


def _stop(payload: dict[str, Any], env: Mapping[str, str]) -> dict[str, Any] | None:
    """Stop: block once for errors this session introduced in the project's main memory."""
    if payload.get("stop_hook_active") is True:
        return None
    return _block_new(payload, _owned(payload, env, None), "stop")


def _subagent_stop(payload: dict[str, Any], env: Mapping[str, str]) -> dict[str, Any] | None:
    """SubagentStop: the same for the subagent's own memory (``agent_type``)."""
    agent = payload.get("agent_type")
    if payload.get("stop_hook_active") is True or not isinstance(agent, str) or not agent:
        return None
    return _block_new(payload, _owned(payload, env, agent), "subagent-stop")


def _to_prune(snapshot: Snapshot) -> int:
    """Files whose age alone puts them at "prune" (no reference checks: a hook must be quick)."""
    from datetime import datetime, timezone

    from memtui.core.judge.staleness import Action, score_file

    now = datetime.now(timezone.utc)
    return sum(1 for f in snapshot.files.values()
               if not f.archived and score_file(f, now, None, {}).action is Action.PRUNE)


def _session_start(payload: dict[str, Any], env: Mapping[str, str]) -> dict[str, Any] | None:
    """SessionStart: take the session's baseline of every memory it may write, and tell the agent
    (in one short factual context) what already needs attention in this project's memory."""
    from pathlib import Path

    from memtui.core.hooks.policy import report_of, session_context, session_lines
    from memtui.core.hooks.session import SessionState
    from memtui.core.model.gcpause import gc_paused
    from memtui.core.read.store import RootError, list_root
    from memtui.core.roots.discover import AGENT
    from memtui.core.rules.incremental import findings_cache
    from memtui.core.stores.kept import keep
    from memtui.core.stores.seen import unseen_count, unseen_message
    from memtui.core.stores.statcache import StatCache

    sid = _session_id(payload)
    state = SessionState.load(sid) if sid is not None else None
    reports = []
    unseen: list[tuple[Path, int]] = []
    problems: list[str] = []
    for root in _claude_roots(payload, env, True):
        if not root.holds_memory():
            continue
        with gc_paused():
            try:
                cache = StatCache.open(root.path)
                listing = list_root(root.path)
                snapshot = cache.load(listing)
            except RootError as exc:
                problems.append(f"memtui hook session-start: {exc}; not checked")
                continue
            found = findings_cache(snapshot)  # == validate(snapshot), kept for the session's writes
            findings = list(found.findings)
            if state is not None:
                state.take(str(root.path), findings)
            if not (root.kind == AGENT and root.scope == "user"):  # not this project's
                reports.append(report_of(str(root.path), snapshot, findings, _to_prune(snapshot)))
                unseen.append((root.path, unseen_count(snapshot)))
            cache.save()
            keep(cache, listing, snapshot, found, cache.used.get)
    if state is not None:
        state.complete = state.complete or not state.existed
        try:
            state.save()
        except OSError as exc:
            problems.append(f"memtui hook session-start: cannot keep the session's baseline "
                            f"({_words(exc)})")
    lines = session_lines(reports)  # further lines join here, one fact each
    context = session_context(lines)
    answer: dict[str, Any] = {}
    if context is not None:
        answer["hookSpecificOutput"] = {"hookEventName": "SessionStart", "additionalContext": context}
    message = unseen_message(unseen)  # for the person, not the agent
    if message or problems:
        answer["systemMessage"] = " ".join([*([message] if message else []), *problems])
    return answer or None


# ---------------------------------------------------------------- install, uninstall, status


def register(subparsers: Subparsers) -> None:
    hook = subparsers.add_parser(
        "hook",
        help="Claude Code hooks that guard memory writes (install, status, and the hooks)",
        description="Claude Code hooks: `pre` (PreToolUse on Write|Edit) denies a memory write "
        "the validator refuses, `stop` (Stop) and `subagent-stop` (SubagentStop) block once for "
        "errors this session introduced in the memory that agent owns, `session-start` tells "
        "the agent what already needs attention. `install` puts them in a settings file.",
    )
    sub = hook.add_subparsers(dest="hook_command", metavar="HOOK", required=True)
    for name, text in (("pre", "PreToolUse: judge a memory write read from stdin"),
                       ("stop", "Stop: block once for errors this session introduced"),
                       ("subagent-stop", "SubagentStop: the same, for the subagent's own memory"),
                       ("session-start", "SessionStart: take the session's baseline; context "
                                         "when memory needs attention")):
        runner = sub.add_parser(name, help=text, description=text + " (Claude Code hook JSON on "
                                "stdin; always exits 0).")
        if name == "pre":
            runner.add_argument("--ask", action="store_true",
                                help="ask the person about every memory write, with a summary "
                                "(interactive sessions only: under -p, the SDK and background "
                                "sessions Claude Code refuses an ask, so memtui judges instead "
                                "and says so once)")
        runner.set_defaults(func=lambda args, event=name: run_hook(event, getattr(args, "ask", False)))
    for name, text in (("install", "merge memtui's hooks into a Claude Code settings file"),
                       ("uninstall", "take memtui's hooks out of a settings file")):
        cmd = sub.add_parser(name, help=text, description=text + "; every other key and hook "
                             "is kept, the old file is backed up beside it.")
        cmd.add_argument("--scope", choices=("user", "project", "local"), default="user",
                         help=f"which settings file: {SCOPE_HELP} (default user)")
        cmd.add_argument("--dry-run", action="store_true", help="print the diff; change nothing")
        cmd.add_argument("--mcp", action="store_true",
                         help="instead of the hooks: " + ("register `memtui mcp` (the agent's MCP "
                         "server) for Claude Code in the scope — user ~/.claude.json, local "
                         "~/.claude.json under this repository, project .mcp.json — and allow its "
                         "tools (permissions.allow mcp__memtui in the scope's settings file)"
                         if name == "install" else "take out `memtui mcp`'s registration and its "
                         "permission rule"))
        if name == "install":
            cmd.add_argument("--ask", action="store_true",
                             help="make every memory write ask the person (with a summary; "
                             "interactive sessions only)")
            cmd.add_argument("--fail-closed", action="store_true",
                             help="block a memory write when the `pre` hook cannot run, times "
                             "out or fails (Claude Code's \"onFailure\": \"block\", v2.1.295; "
                             "default: fail open — the write goes on unchecked; never on Stop)")
            cmd.add_argument("--command", metavar="PREFIX",
                             help="how Claude Code should run memtui (default: `memtui` from "
                             "PATH for the committed project scope, this memtui's path "
                             "otherwise)")
        cmd.set_defaults(func=run_install if name == "install" else run_uninstall)
    status = sub.add_parser("status", help="say which memtui hooks are installed where",
                            description="Show, for each settings scope, which memtui hooks are "
                            "installed and with what command.")
    status.add_argument("--json", action="store_true", help="print JSON")
    status.set_defaults(func=run_status)


def _places() -> tuple[str, str | None, str | None]:
    """(launch folder, work tree top, repository root) seen from the current folder."""
    from pathlib import Path

    from memtui.core.roots.discover import git_roots

    launch = os.getcwd()
    found = git_roots(Path(launch))
    if found is None:
        return launch, None, None
    return launch, str(found.worktree), str(found.project)


def _place(scope: str) -> Any:
    from memtui.core.hooks.install import place

    launch, worktree, repo = _places()
    return place(scope, launch, worktree, repo)


def _settings_path(scope: str) -> str:
    return str(_place(scope).path)


def _project_dir() -> str:
    """The work tree's top (the launch folder outside git): where ``.mcp.json`` goes and the
    key of a local-scope server in ``.claude.json``."""
    launch, worktree, _repo = _places()
    return worktree or launch


#: the command a committed settings file names: found on each teammate's PATH
PORTABLE_PREFIX = "memtui"


def default_prefix(scope: str = "user") -> str:
    """How Claude Code should start memtui: ``memtui`` from PATH in the committed ``project``
    scope (CLAUDE-CODE.md: a command there runs on every teammate's machine, where this one's
    virtual environment does not exist); elsewhere this memtui's script by its absolute path,
    else ``python -m memtui`` with this interpreter."""
    import shlex

    if scope == "project":
        return PORTABLE_PREFIX
    script = os.path.abspath(sys.argv[0]) if sys.argv and sys.argv[0] else ""
    if os.path.basename(script) == "memtui" and os.path.isfile(script):
        return shlex.quote(script)
    return f"{shlex.quote(sys.executable)} -m memtui"


def _change(args: argparse.Namespace, install: bool) -> int:
    from memtui.core.hooks import install as hi

    from .common import EXIT_OK, UsageError, console

    if getattr(args, "mcp", False):
        return _change_mcp(args, install)

    where = _place(args.scope)
    path = where.path
    try:
        current = hi.read(path)
    except hi.SettingsError as exc:
        raise UsageError(str(exc)) from None
    prefix = (args.command or default_prefix(args.scope)) if install else ""
    if install:
        new = hi.with_hooks(current.value, prefix, args.ask, args.fail_closed)
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
    if install:
        for line in hi.describe(new):
            out.print("  " + line, markup=False)
        out.print(_reach_line(where), markup=False)
        if args.scope == "project" and not args.command:
            import shutil

            found = shutil.which(PORTABLE_PREFIX)
            out.print(f"The command is `{PORTABLE_PREFIX}` from PATH, so the committed file works "
                      "on every teammate's machine that has memtui installed"
                      + ("." if found else " — it is not on this machine's PATH yet, so here "
                         "Claude Code will report a hook error until it is."), markup=False)
    return EXIT_OK


def mcp_command(scope: str, given: str | None) -> list[str]:
    """How Claude Code should start memtui for ``memtui mcp``, as a command and its arguments:
    ``memtui`` from PATH in the committed project scope, else this memtui (as for the hooks)."""
    import shlex

    return shlex.split(given or default_prefix(scope))


def _change_mcp(args: argparse.Namespace, install: bool) -> int:
    """Register (or take out) ``memtui mcp`` and its permission rule in the scope named; each
    file changes only when it must, and the answer says what was done (idempotent)."""
    from memtui.core.hooks import install as hi
    from memtui.core.hooks import mcp_install as mi

    from .common import EXIT_OK, UsageError, console

    project = _project_dir()
    config = mi.config_path(args.scope, project)
    rule_place = _place(mi.rule_scope(args.scope))  # where a session launched here reads it
    settings = rule_place.path
    if install and args.ask:
        raise UsageError("--ask is for the hooks; the MCP server's refusals come from the validator")
    command = mcp_command(args.scope, args.command) if install else []
    try:
        files = [(config, hi.read(config)), (settings, hi.read(settings))]
        new_config = (mi.with_server(files[0][1].value, args.scope, project, command) if install
                      else mi.without_server(files[0][1].value, args.scope, project))
        new_settings = mi.with_rule(files[1][1].value) if install else mi.without_rule(files[1][1].value)
    except (hi.SettingsError, mi.McpConfigError) as exc:
        raise UsageError(f"{exc}; nothing was changed") from None
    out = console()
    said = []
    for (path, current), new, what in ((files[0], new_config, "the server"),
                                       (files[1], new_settings, f"the permission rule {mi.RULE}")):
        if new == current.value and (current.text is not None or not install):
            said.append(f"{path}: {what} {'already there' if install else 'not there'}; unchanged")
            continue
        text = hi.render(new, current.text)
        if args.dry_run:
            sys.stdout.write(hi.diff(current.text, text, path))
            continue
        try:
            backup = hi.write(path, text, current.text)
        except OSError as exc:
            raise UsageError(f"{path}: cannot write it ({exc.strerror or exc})") from None
        kept = f" (the old file is kept as {backup})" if backup else ""
        said.append(f"{path}: {what} {'added' if install else 'removed'}{kept}")
    if args.dry_run:
        return EXIT_OK
    head = "memtui's MCP server " + ("registered" if install else "unregistered") + f" ({args.scope} scope):"
    out.print(head, markup=False)
    for line in said:
        out.print("  " + line, markup=False)
    if install:
        found = mi.registered(new_config, args.scope, project)
        where = {"user": "every project", "local": f"this repository ({project}), on this machine",
                 "project": f"everyone who works in {project} (commit .mcp.json; the permission "
                            "rule is this machine's: each teammate runs this install once, as Claude "
                            "Code does not take it from the committed settings)"}[args.scope]
        out.print(f"Claude Code starts `{mi.command_of(found or {})}` for {where}; the agent sees "
                  f"its tools as mcp__{mi.SERVER}__memory_search, …__memory_remember and the others "
                  "(found through ToolSearch), allowed by the rule above.", markup=False)
        reach = f"The permission rule is read by {rule_place.guards}"
        if rule_place.not_guarded:
            reach += f"; not by {rule_place.not_guarded}"
        out.print(reach + ".", markup=False)
        if args.scope == "project" and not args.command:
            import shutil

            if not shutil.which(PORTABLE_PREFIX):
                out.print(f"`{PORTABLE_PREFIX}` is not on this machine's PATH yet: Claude Code will "
                          "report the server as failed until it is.", markup=False)
    return EXIT_OK


def mcp_status(scope: str) -> dict[str, Any]:
    """Where ``memtui mcp`` is registered in a scope, with what command, and whether its tools
    are allowed there."""
    from memtui.core.hooks import install as hi
    from memtui.core.hooks import mcp_install as mi

    project = _project_dir()
    path = mi.config_path(scope, project)
    row: dict[str, Any] = {"path": path, "command": None, "allowed": None, "error": None}
    try:
        found = mi.registered(hi.read(path).value, scope, project)
        row["command"] = mi.command_of(found) if found else None
        row["allowed"] = mi.allowed(hi.read(_place(mi.rule_scope(scope)).path).value)
    except (hi.SettingsError, mi.McpConfigError) as exc:
        row["error"] = str(exc)
    return row


def _reach_line(where: Any) -> str:
    """Whom a hook in this file guards, and whom it does not."""
    line = f"These hooks guard {where.guards}"
    if where.not_guarded:
        line += f"; they do not guard {where.not_guarded}"
        if where.scope == "project":
            line += (" (to guard every session in the repository, install with --scope local, "
                     "read from the repository root by every session in it, or --scope user)")
    return line + "."


def run_install(args: argparse.Namespace) -> int:
    return _change(args, install=True)


def run_uninstall(args: argparse.Namespace) -> int:
    return _change(args, install=False)


def run_status(args: argparse.Namespace) -> int:
    from memtui.core.hooks import install as hi

    from .common import EXIT_OK, console, print_json

    launch, _worktree, repo = _places()
    reads = hi.guarding_files(launch, repo_root=repo)
    read_here = {path: has for _scope, path, has in reads}
    rows = []
    for scope in ("user", "project", "local"):
        where = _place(scope)
        rows.append(_status_row(scope, where.path, True, where.guards, where.not_guarded,
                                where.path in read_here))
    targets = {row["path"] for row in rows}
    for scope, path, _has in reads:  # what a session launched here reads besides
        if path not in targets:
            rows.append(_status_row(scope, path, False, f"sessions launched in {launch}",
                                    "sessions launched in any other folder", True))
    for row in rows:  # the agent's MCP server (memtui hook install --mcp), one per scope
        row["mcp"] = mcp_status(row["scope"]) if row["target"] else None
    guarded = [path for _scope, path, has in reads if has]
    if args.json:  # a session launched here is guarded when a row it reads has the pre hook
        print_json(rows)
        return EXIT_OK
    out = console()
    for row in rows:
        out.print(f"{row['scope']:8} {row['path']}", markup=False)
        if row["error"]:
            out.print(f"         unreadable: {row['error']}", markup=False)
        elif not row["exists"]:
            out.print("         (no such file)", markup=False)
        else:
            for sub, command in row["hooks"].items():
                out.print(f"         {sub:14} {command or '-'}", markup=False)
        reach = f"         read by {row['guards']}"
        if row["not_guarded"]:
            reach += f"; not by {row['not_guarded']}"
        out.print(reach, markup=False)
    for row in rows:
        mcp = row["mcp"]
        if mcp is None:
            continue
        if mcp["error"]:
            state = f"unreadable: {mcp['error']}"
        elif mcp["command"]:
            state = mcp["command"] + ("; tools allowed" if mcp["allowed"] else
                                      "; tools NOT allowed (no permissions.allow mcp__memtui: "
                                      "every call is refused in -p)")
        else:
            state = "-"
        out.print(f"mcp      {row['scope']:8} {mcp['path']}: {state}", markup=False)
    if guarded:
        out.print(f"A session launched here ({launch}) is guarded: memtui's hooks are in "
                  f"{', '.join(guarded)}.", markup=False)
    else:
        out.print(f"A session launched here ({launch}) is NOT guarded: none of the settings "
                  f"files it reads ({', '.join(path for _scope, path, _has in reads)}) has memtui's "
                  "hooks.", markup=False)
    return EXIT_OK


def _status_row(scope: str, path: str, target: bool, guards: str, not_guarded: str | None,
                read_here: bool) -> dict[str, Any]:
    from memtui.core.hooks import install as hi

    row: dict[str, Any] = {"scope": scope, "path": path, "target": target,
                           "exists": os.path.exists(path), "guards": guards,
                           "not_guarded": not_guarded, "read_here": read_here}
    try:
        row["hooks"] = hi.installed(hi.read(path).value)
        row["error"] = None
    except hi.SettingsError as exc:
        row["hooks"], row["error"] = {sub: None for _, _, sub in hi.HOOKS}, str(exc)
    return row
