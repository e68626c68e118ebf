"""Entry point: ``memtui [PATH] [--demo] [--read-only]`` opens the app; subcommands run headless.

Each subcommand lives in its own module under ``memtui.cli`` with ``register(subparsers)`` (which
sets ``func``) and defers heavy imports until it runs; add a module to :func:`subcommands` to add
its commands.  ``memtui hook pre|stop|subagent-stop|session-start`` is answered before anything
else loads: Claude Code runs ``hook pre`` on every file write, so its start-up time is the agent's
wait.  Exit codes: 0 clean or applied, 1 error findings or a refused change, 2 a usage or I/O
error — never a traceback for a user's mistake.
"""

from __future__ import annotations

import os
import sys

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    import argparse
    from pathlib import Path
    from types import ModuleType
    from typing import Callable, Sequence


def subcommands() -> tuple[ModuleType, ...]:
    """The subcommand modules (each with ``register(subparsers)``), in ``memtui --help`` order."""
    from . import applies, changes, demo, dream, history, hook, inspect, mcp, scan, search, stale, used, verbs

    return (inspect, stale, scan, search, demo, verbs, history, applies, changes, used, dream, hook, mcp)


#: the read-only commands run most often, by the module that registers them: for these only that
#: module is imported (start-up time); every other command builds the whole parser
FAST_COMMANDS = {"validate": "inspect", "loaded": "inspect", "list": "inspect", "stale": "stale",
                 "scan": "scan", "hook": "hook", "search": "search"}


def _fast_module(command: str) -> ModuleType:
    """The one module that registers a fast command; only it is imported."""
    name = FAST_COMMANDS[command]
    if name == "stale":
        from . import stale

        return stale
    if name == "scan":
        from . import scan

        return scan
    if name == "hook":
        from . import hook

        return hook
    if name == "search":
        from . import search

        return search
    from . import inspect

    return inspect


def build_parser(command: str | None = None) -> argparse.ArgumentParser:
    """The parser of every subcommand, or only of ``command``'s module when it is a fast one."""
    from .common import MemtuiParser

    parser = MemtuiParser(
        prog="memtui",
        usage="memtui [PATH] [--demo [--keep]] [--read-only] [--loader {claude-code,raw}]\n"
              "       memtui COMMAND [options]   (memtui COMMAND --help for one command)",
        description="Triage the file memory of coding agents: what loads, what is stale, "
        "what to merge — every change validated, journaled and undoable.",
    )
    parser.add_argument("--version", action="version", version=_version())
    if command in (None, "-h", "--help"):
        _describe_the_app(parser)
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", prog="memtui")
    modules = (_fast_module(command),) if command in FAST_COMMANDS else subcommands()
    for module in modules:
        module.register(subparsers)
    return parser


def _describe_the_app(parser: argparse.ArgumentParser) -> None:
    """``memtui --help``'s first part: how to open the app (the options of :func:`_app_parser`,
    which parses them; here they are only shown)."""
    import argparse

    app = parser.add_argument_group(
        "the app (memtui [PATH] …)",
        "PATH is a memory root (a folder holding MEMORY.md), or a folder holding several (a root "
        "picker opens); without PATH, the roots in the current folder, else Claude Code's for "
        "this project. ? in the app lists every key.")
    for action in _app_parser()._actions:
        if action.option_strings and action.dest not in ("help",):
            app.add_argument(*action.option_strings, dest=f"app_{action.dest}",
                             help=action.help, default=argparse.SUPPRESS,
                             **({"choices": action.choices} if action.choices else
                                {"action": "store_true"}))


def _version() -> str:
    from memtui import __version__

    return f"memtui {__version__}"


def _app_parser() -> argparse.ArgumentParser:
    from .common import MemtuiParser

    parser = MemtuiParser(
        prog="memtui",
        description="Open the memtui app on a memory folder (or run `memtui COMMAND --help`).",
    )
    parser.add_argument("path", nargs="?", help="a memory root, or a folder holding roots")
    parser.add_argument("--demo", action="store_true", help="open a fresh copy of the demo folder")
    parser.add_argument("--keep", action="store_true",
                        help="with --demo: keep the temporary copy after quitting (default: removed)")
    parser.add_argument("--read-only", action="store_true", help="disable every change")
    from .common import add_loader_option

    add_loader_option(parser)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    args_list = list(sys.argv[1:] if argv is None else argv)
    if args_list[:1] == ["hook"]:
        from .hook import exit_now, fast_path

        code = fast_path(args_list[1:])
        if code is not None:
            if argv is None:  # the whole process is this hook: end it without tearing down
                exit_now(code)
            return code
    if args_list == ["--version"]:  # answered before the parser is built, as the hooks are
        try:
            sys.stdout.write(_version() + "\n")
            sys.stdout.flush()
        except BrokenPipeError:
            pass
        return 0
    from .common import EXIT_USAGE, MemtuiParser, UsageError, did_you_mean, err_console, esc

    parser = build_parser(args_list[0] if args_list else None)
    choices = parser._subparsers._group_actions[0].choices if parser._subparsers else None
    commands = set(choices or ())
    try:
        if args_list and (args_list[0] in commands or args_list[0] in ("-h", "--help", "--version")):
            args, extra = parser.parse_known_args(args_list)
            if extra:
                sub = choices.get(args.command) if isinstance(choices, dict) else None
                hint = did_you_mean(extra[0].partition("=")[0], sub.option_names()) \
                    if isinstance(sub, MemtuiParser) and extra[0].startswith("--") else ""
                raise UsageError(f"{args.command}: unrecognized arguments: {' '.join(extra)}{hint} "
                                 f"(see `memtui {args.command} --help`)")
            return _run_command(args)
        first = args_list[0] if args_list else ""
        if first and not first.startswith("-") and "/" not in first and not os.path.exists(first):
            hint = did_you_mean(first, commands)
            raise UsageError(f"'{first}' is neither a command nor a folder"
                             + (f"{hint} See `memtui --help`" if hint else "; see `memtui --help`"))
        app_args = _app_parser().parse_args(args_list)
        return _run_app(app_args)
    except UsageError as exc:
        err_console().print(f"[bold red]memtui:[/] {esc(exc)}")
        return EXIT_USAGE
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        return 0


def _run_command(args: argparse.Namespace) -> int:
    """Run a subcommand with its standard output guarded.  A reader closing the pipe (``|
    head``) changes nothing: the output goes nowhere and the command's own exit code stands (1
    for errors, a refused change).  Any other output error (a full disk) after a committed
    change exits 0 and says the change was applied, on stderr; before any change it exits 2
    (an I/O error; a hook exits 0, as it always fails open) — never 1, which would read as a
    refused change, and no traceback."""
    from .common import (
        APPLIED,
        EXIT_OK,
        EXIT_USAGE,
        Exit,
        GuardedOutput,
        OutputFailed,
        discard_stdout,
        err_console,
        esc,
    )

    APPLIED.clear()
    real = sys.stdout
    sys.stdout = GuardedOutput(real)
    try:
        try:
            code = int(args.func(args))
        except Exit as exc:  # a command left with its code (the writer's errors, said by changing())
            code = exc.code
        sys.stdout.flush()
        return code
    except OutputFailed as exc:
        discard_stdout(real)
        verb = f"memtui {getattr(args, 'command', '') or ''}".rstrip()
        if APPLIED:
            said = f"applied ({', '.join(APPLIED)}); could not print the report: {exc}"
        else:
            said = f"could not print: {exc}"
        try:
            err_console().print(f"[bold red]{esc(verb)}:[/] {esc(said)}")
        except OSError:
            pass
        if getattr(args, "command", None) == "hook":  # a hook fails open: never blocks the agent
            return EXIT_OK
        return EXIT_OK if APPLIED else EXIT_USAGE
    finally:
        sys.stdout = real


def _run_app(args: argparse.Namespace) -> int:
    from .common import UsageError
    from .open_app import run

    if not args.demo:
        if args.keep:
            raise UsageError("--keep only applies with --demo")
        return run(args)
    return _run_demo(args, run)


def _run_demo(args: argparse.Namespace, run_app: Callable[[argparse.Namespace], int]) -> int:
    """Open the app on a fresh temporary demo copy; remove the copy on exit unless ``--keep``."""
    import argparse

    from memtui.core.read.demo import copy_demo, remove_demo_copy
    from memtui.core.read.store import RootError

    from .common import UsageError, err_console

    try:
        root = copy_demo()
    except RootError as exc:
        raise UsageError(str(exc)) from None
    app_args = argparse.Namespace(**{**vars(args), "demo": False, "path": str(root)})
    restore = {} if args.keep else _remove_on_hangup(root)
    try:
        return int(run_app(app_args))
    finally:
        if args.keep:
            err_console().print(f"memtui: the demo copy is kept in {root.parent}")
        else:
            remove_demo_copy(root)
        _restore_handlers(restore)


def _remove_on_hangup(root: Path) -> dict[int, object]:
    """When the terminal closes (SIGHUP) or the process is told to end (SIGTERM), remove the demo
    copy, then end as the signal would have (unwinding instead can wait forever on the app's
    threads writing to a terminal that is gone).  Returns the previous handlers."""
    import os
    import signal

    from memtui.core.read.demo import remove_demo_copy

    def ended(signum: int, frame: object) -> None:
        remove_demo_copy(root)
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)

    previous: dict[int, object] = {}
    for name in ("SIGHUP", "SIGTERM"):
        sig = getattr(signal, name, None)
        if sig is not None:
            previous[sig] = signal.signal(sig, ended)
    return previous


def _restore_handlers(previous: dict[int, object]) -> None:
    import signal

    for sig, handler in previous.items():
        signal.signal(sig, handler)  # type: ignore[arg-type]


if __name__ == "__main__":
    raise SystemExit(main())
