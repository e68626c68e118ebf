"""``memtui search QUERY [PATH…] [--all] [--json] [--limit N]``: ranked full-text search across roots.

The roots: each PATH (a root, or a folder holding roots); with ``--all`` every root memtui can find
on the machine (:mod:`memtui.core.roots.machine`); else the current project's layers (the roots
``memtui list`` shows).  The search is :func:`memtui.core.stores.search.search`.

Printed at once from the index after a look at the roots' folders (a file added, removed or
renamed is seen), then every file's stat key is checked: a file rewritten in place since the last
search that now matches is printed after the others ("found after checking every file").
``--json`` checks every file first and prints one object.  Exit 0 when something was found, 1
when nothing was (as ``grep``), 2 for a mistake (no root, an empty query).
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING

from .common import (
    EXIT_FINDINGS,
    EXIT_OK,
    Subparsers,
    UsageError,
    add_loader_option,
    budget_config,
    console,
    esc,
    find_roots,
    positive_int,
    print_json,
    rel_root,
)

if TYPE_CHECKING:
    from rich.console import Console

    from memtui.core.stores.search import Hit, SearchResult


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "search",
        help="ranked full-text search of every memory file of the project's roots (or --all)",
        description="Search titles, descriptions, index hooks and bodies of memory files, best "
        "match first (BM25; a file holding the words as one phrase ranks first). QUERY is words "
        '(all must be found), "quoted phrases" and prefix* words; Japanese, Chinese and Korean '
        "text is found by any part of a word. Each hit says whether it loads at session start, is "
        "reachable only by a region, or is archived. Exit 0 found, 1 nothing found.",
    )
    parser.add_argument("query", metavar="QUERY", help='what to look for: words, "a phrase", prefix*')
    parser.add_argument("paths", nargs="*", metavar="PATH",
                        help="roots, or folders holding roots (default: the current project's layers)")
    parser.add_argument("--all", action="store_true",
                        help="search every root memtui can find on this machine")
    parser.add_argument("--limit", type=positive_int, default=20, metavar="N",
                        help="at most N hits (default 20)")
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    add_loader_option(parser)
    parser.set_defaults(func=run)


def search_roots(paths: list[str], every: bool) -> list[Path]:
    """The roots a search covers (see the module docstring); a :class:`UsageError` for none."""
    if paths and every:
        raise UsageError("search: give PATHs or --all, not both")
    if every:
        from memtui.core.roots.machine import machine_roots

        try:
            found = [root.path for root in machine_roots()]
        except ValueError as exc:
            raise UsageError(str(exc)) from None
        if not found:
            raise UsageError("no memory root found on this machine (looked in Claude Code's "
                             "projects and agent memories, the current folder and the config)")
        return found
    if paths:
        out: list[Path] = []
        for path in paths:
            out += [root for root in find_roots(path) if root not in out]
        return out
    from .listing import project_roots

    roots, _, _ = project_roots()
    if not roots:
        find_roots(None)  # says where it looked
    return roots


def run(args: argparse.Namespace) -> int:
    from memtui.core.stores.search import EmptyQuery, search
    from memtui.core.stores.search_index import FILES, FOLDERS, IndexBusy, SearchIndex

    roots = search_roots(args.paths, args.all)
    config = budget_config(args)
    try:
        with SearchIndex.open() as index:
            if args.json:
                result = search(args.query, roots, args.limit, check=FILES, config=config,
                                index=index)
                print_json(result.to_json())
                return EXIT_OK if result.hits else EXIT_FINDINGS
            first = search(args.query, roots, args.limit, check=FOLDERS, config=config,
                           index=index)
            out = console()
            _print(out, first, args)
            late = search(args.query, roots, args.limit, check=FILES, config=config, prune=False,
                          index=index, after=first)
            shown = {(hit.root, hit.path) for hit in first.hits}
            more = [hit for hit in late.hits if (hit.root, hit.path) not in shown]
            if more:
                out.print(f"[yellow]found after checking every file[/] (changed in place since "
                          f"the last search): {len(more)}")
                for i, hit in enumerate(more, len(first.hits) + 1):
                    _print_hit(out, i, hit, args)
            return EXIT_OK if first.hits or more else EXIT_FINDINGS
    except EmptyQuery as exc:
        raise UsageError(f"search: {exc}") from None
    except IndexBusy as exc:
        raise UsageError(f"search: another memtui holds the search index ({exc}); try again") from None
    except OSError as exc:
        from .common import os_error_words

        raise UsageError(f"search: cannot use the search index: {os_error_words(exc)}") from None


def _print(out: Console, result: SearchResult, args: argparse.Namespace) -> None:
    roots = len(result.roots)
    scope = f"{roots} root{'s' * (roots != 1)}, {result.files:,} files"
    if not result.hits:
        out.print(f"nothing found for [bold]{esc(result.query)}[/] ({scope})")
        return
    shown = len(result.hits)
    many = f"{shown} of {result.total:,}" if result.total > shown else f"{shown}"
    out.print(f"[bold]{esc(result.query)}[/]: {many} file{'s' * (result.total != 1)} ({scope})"
              + (" [dim]· the index was rebuilt[/]" if result.sync.rebuilt else ""))
    for i, hit in enumerate(result.hits, 1):
        _print_hit(out, i, hit, args)


_STATE = {"entry": "green", "not loaded": "yellow", "orphan": "red", "region": "cyan"}


def _print_hit(out: Console, i: int, hit: Hit, args: argparse.Namespace) -> None:
    """Two lines: where the file is, its title and how it is reached; then its snippet."""
    where = _root_label(hit.root, args)
    style = "dim" if hit.archived else _STATE.get(hit.reach, "dim")
    out.print(f"{i:>3}. [bold]{esc(where)}/{esc(hit.path)}[/]  {esc(hit.title)}  "
              f"[{style}]{esc(hit.where)}[/]")
    out.print("     " + _snippet_markup(hit, out.is_terminal))


def _snippet_markup(hit: Hit, terminal: bool) -> str:
    """The snippet as Rich markup: its control characters escaped, each match reverse-video on a
    terminal and between « » elsewhere (colour is never the only mark)."""
    text = hit.snippet.text
    parts = []
    at = 0
    for start, end in hit.snippet.marks:
        if start < at:
            continue
        parts.append(esc(text[at:start]))
        match = esc(text[start:end])
        parts.append(f"[reverse bold]{match}[/]" if terminal else f"«{match}»")
        at = end
    parts.append(esc(text[at:]))
    return "".join(parts)


def _root_label(root: Path, args: argparse.Namespace) -> str:
    """A root as a person reads it: relative to the folder given (or cwd), the home as ``~``."""
    shown = rel_root(root, args.paths[0] if args.paths else None)
    home = os.path.expanduser("~")
    if home and home != "/" and shown.startswith(home.rstrip("/") + "/"):
        return "~" + shown[len(home.rstrip("/")):]
    return shown
