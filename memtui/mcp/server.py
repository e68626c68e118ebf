"""``memtui mcp``'s server on the official Model Context Protocol SDK (``mcp`` 2.x, ``MCPServer``).

Only ``memtui mcp`` imports this module: the SDK (pydantic, starlette, anyio) costs a few hundred
milliseconds to load, which no other command — least of all a hook — may pay.  The tools are thin:
each calls :class:`memtui.mcp.door.Door`, which does the work through the core, and turns a
refusal into the SDK's ``ToolError`` — the SDK then answers ``is_error: true`` with the text
``Error executing tool <name>: <message>``, which is what the model reads (any other exception
would reach it as "Error executing tool <name>" alone, so an unexpected one is said as memtui's
internal error, with nothing changed).

Results are plain text (``structured_output=False``): Claude Code shows a structured result to
the model as its JSON (``{"result": "…"}``), a plain one as the text itself.  The Claude Code
session is ``CLAUDE_CODE_SESSION_ID`` (set for every stdio server it starts), the call's own id
its ``_meta`` key ``claudecode/toolUseId``; both are journaled with each change.
"""

from __future__ import annotations

from typing import Annotated, Any, Callable, TypeVar

from mcp.server.mcpserver import Context, MCPServer
from mcp.server.mcpserver.exceptions import ToolError
from pydantic import Field

from .door import Door, Refusal

T = TypeVar("T")

INSTRUCTIONS = (
    "memtui serves this project's memory folder (the MEMORY.md index and one Markdown note per "
    "fact). Prefer these tools to editing memory files by hand: every change is checked by "
    "memtui's validator before it is written (the index's 200-line / 25,000-character budget, "
    "links, reachability), recorded, and undoable by the person. Search before you remember: "
    "memory_remember refuses a note that repeats an existing one and names it — update that one "
    "instead. A refusal says what to do instead."
)

Path_ = Annotated[str, Field(description="a memory file: its path relative to the memory folder "
                                         "(e.g. project_deploys.md), or its absolute path")]


def _tool_use(ctx: Context | None) -> str:
    """Claude Code's id of this call (``_meta`` ``claudecode/toolUseId``), or ''."""
    if ctx is None:
        return ""
    try:
        meta: Any = ctx.request_context.meta
    except Exception:  # noqa: BLE001 - no request context: not called by a client
        return ""
    found = meta.get("claudecode/toolUseId") if isinstance(meta, dict) else None
    return found if isinstance(found, str) and found.isprintable() else ""


def _answer(call: Callable[[], T]) -> T:
    """Run one tool: a refusal becomes a ``ToolError`` (the model reads its text)."""
    try:
        return call()
    except Refusal as exc:
        raise ToolError(str(exc)) from None
    except ToolError:
        raise
    except Exception as exc:  # noqa: BLE001 - said, not a traceback the model never sees
        raise ToolError(f"memtui internal error ({type(exc).__name__}: {exc}); nothing was changed. "
                        "The person can run `memtui validate` to see the folder's state.") from exc


def build_server(door: Door, version: str = "") -> MCPServer:
    """The server with memtui's ten tools over ``door``."""
    server: MCPServer = MCPServer("memtui", instructions=INSTRUCTIONS, version=version,
                                  log_level="WARNING")

    @server.tool(structured_output=False)
    def memory_search(
        query: Annotated[str, Field(description="words to find (a \"quoted phrase\" is one term)")],
        limit: Annotated[int, Field(description="at most this many hits", ge=1, le=50)] = 10,
    ) -> str:
        """Search the project's memory notes: ranked hits with path, title, hook, why each matched
        and whether it loads at session start. Search before memory_remember."""
        return _answer(lambda: door.search(query, limit))

    @server.tool(structured_output=False)
    def memory_read(path: Path_) -> str:
        """Read one memory note (or MEMORY.md), with one line saying whether it loads at session
        start."""
        return _answer(lambda: door.read(path))

    @server.tool(structured_output=False)
    def memory_loaded(
        show_text: Annotated[bool, Field(description="also give the exact text that loads")] = False,
    ) -> str:
        """What loads from MEMORY.md at session start: its size against the 200-line / 25,000-
        character budget, where the loader cuts it and which entries fall past the cut."""
        return _answer(lambda: door.loaded(show_text))

    @server.tool(structured_output=False)
    def memory_validate() -> str:
        """The validator's findings for the memory folder (errors first)."""
        return _answer(door.validate)

    @server.tool(structured_output=False)
    def memory_remember(
        title: Annotated[str, Field(description="what the note is about, in a few words (makes the file name)")],
        body: Annotated[str, Field(description="the fact itself, in Markdown")],
        type: Annotated[str, Field(description="user, feedback, project, reference or value")] = "project",
        hook: Annotated[str | None, Field(description="the index entry's one-line hook (default: the "
                                                      "body's first line); under ~150 characters")] = None,
        root: Annotated[str | None, Field(description="which served memory folder (absolute path; "
                                                      "default the first)")] = None,
        ctx: Context | None = None,
    ) -> str:
        """Remember a new fact: a topic file with frontmatter and its entry in MEMORY.md, checked
        by memtui's validator first. Refused when an existing note already holds it (update that
        one instead) or when the index would go over its budget."""
        return _answer(lambda: door.remember(title, body, type, hook, root, tool_use=_tool_use(ctx)))

    @server.tool(structured_output=False)
    def memory_update(
        path: Path_,
        body: Annotated[str | None, Field(description="the note's new body (its frontmatter is kept)")] = None,
        hook: Annotated[str | None, Field(description="the new one-line hook of its MEMORY.md entry")] = None,
        ctx: Context | None = None,
    ) -> str:
        """Change a note's body, its index hook, or both (one change)."""
        return _answer(lambda: door.update(path, body, hook, tool_use=_tool_use(ctx)))

    @server.tool(structured_output=False)
    def memory_supersede(
        old: Annotated[str, Field(description="the note that no longer holds")],
        new: Annotated[str, Field(description="the note that replaces it (remember it first)")],
        ctx: Context | None = None,
    ) -> str:
        """Mark a note obsolete in favour of a newer one: it leaves the working set, both keep a
        breadcrumb to the other."""
        return _answer(lambda: door.supersede(old, new, tool_use=_tool_use(ctx)))

    @server.tool(structured_output=False)
    def memory_archive(path: Path_, ctx: Context | None = None) -> str:
        """Move a note into archive/ (its entry moves to MEMORY-archive.md; nothing is deleted)."""
        return _answer(lambda: door.archive(path, tool_use=_tool_use(ctx)))

    @server.tool(structured_output=False)
    def memory_restore(path: Path_, ctx: Context | None = None) -> str:
        """Bring an archived note back, with an entry in MEMORY.md."""
        return _answer(lambda: door.restore(path, tool_use=_tool_use(ctx)))

    @server.tool(structured_output=False)
    def memory_merge(
        paths: Annotated[list[str], Field(description="two or more notes on the same thing", min_length=2)],
        title: Annotated[str | None, Field(description="the merged note's title (default the newest's)")] = None,
        body: Annotated[str | None, Field(description="the merged note's body (default: every distinct "
                                                      "line of the notes)")] = None,
        ctx: Context | None = None,
    ) -> str:
        """Fold near-duplicate notes into one; the originals move to archive/ with a pointer to it."""
        return _answer(lambda: door.merge(paths, title, body, tool_use=_tool_use(ctx)))

    return server
