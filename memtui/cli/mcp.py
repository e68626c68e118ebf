"""``memtui mcp [ROOT…]`` — the agent's door: a Model Context Protocol server on stdio (DESIGN §13).

Claude Code starts it as any stdio server (``memtui hook install --mcp`` registers it).  It serves
the ROOTs given (each a folder holding ``MEMORY.md``), else the memory Claude Code uses for the
project it is started in (``$CLAUDE_PROJECT_DIR``, else the current folder): the auto memory
first, then the shared and agent layers that hold an index — what the app opens there.  A
project with no memory yet is served its auto-memory folder all the same, so the agent's first
``memory_remember`` makes it (folder and ``MEMORY.md``), as Claude Code's first memory write
would.  It serves only those roots and refuses any path outside them.

The SDK is imported only here, when the server starts (never by the parser: ``register`` loads
nothing of it).  Standard output is the protocol's: everything memtui has to say before the
server runs goes to standard error.  Exit 2 when a ROOT is not a memory root, or when the
project has no memory and auto memory is off (nothing to serve, nowhere to write).
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from .common import EXIT_OK, EXIT_USAGE, Subparsers


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "mcp",
        help="serve memory to the agent over the Model Context Protocol (stdio)",
        description="Run memtui's MCP server on stdio: the agent searches, reads and changes "
        "memory through tools whose every write memtui's validator judges first, journaled as "
        "the agent's and undoable with `memtui undo`. Claude Code starts it (register it with "
        "`memtui hook install --mcp`).",
    )
    parser.add_argument("roots", nargs="*", metavar="ROOT",
                        help="memory roots to serve (default: Claude Code's memory for the project)")
    parser.set_defaults(func=run)


def default_roots(env: dict[str, str] | None = None) -> list[Path]:
    """The project's memory roots as the app opens them: auto memory first, then the layers;
    with none holding an index yet, the auto-memory folder alone (when auto memory is on),
    which the first note makes."""
    from memtui.core.roots.discover import AUTO, TEAM, claude_roots

    env = dict(os.environ) if env is None else env
    launch = env.get("CLAUDE_PROJECT_DIR", "")
    cwd = Path(launch) if launch and os.path.isabs(launch) else Path.cwd()
    usable = [r for r in claude_roots(cwd, env=env) if r.enabled and r.kind != TEAM]
    found = [r for r in usable if (r.path / "MEMORY.md").is_file()]
    if not found:
        found = [r for r in usable if r.kind == AUTO]
    found.sort(key=lambda r: r.kind != AUTO)
    return [r.path for r in found]


def run(args: argparse.Namespace) -> int:
    if args.roots:
        roots = []
        for given in args.roots:
            path = Path(given).expanduser().absolute()
            if not (path / "MEMORY.md").is_file():
                return _fail(f"{given}: not a memory root (no MEMORY.md there)")
            roots.append(path)
    else:
        roots = default_roots()
        if not roots:
            return _fail("no memory for this project and auto memory is off for it (autoMemoryEnabled "
                         "or CLAUDE_CODE_DISABLE_AUTO_MEMORY); give a ROOT")
    from memtui import __version__

    from ..mcp.door import Door
    from ..mcp.server import build_server

    door = Door(roots, session=os.environ.get("CLAUDE_CODE_SESSION_ID", ""), freeze_heap=True)
    fresh = "" if any((r / "MEMORY.md").is_file() for r in roots) else \
        " (no memory yet: the first memory_remember makes it)"
    print(f"memtui mcp: serving {', '.join(str(r) for r in roots)}{fresh}", file=sys.stderr)
    build_server(door, __version__).run("stdio")
    return EXIT_OK


def _fail(message: str) -> int:
    print(f"memtui mcp: {message}", file=sys.stderr)
    return EXIT_USAGE
