"""``memtui applies PATH [ROOT]``: which memories apply to the work done at PATH (DESIGN §11).

Read-only.  ROOT defaults to the roots discovered from PATH (as ``memtui list`` run there would
find them).  Stale files (staleness action *prune*, scored as ``memtui stale`` does) are listed
apart unless ``--no-stale`` skips the scoring.  Exit 0 whatever applies, 2 on a usage error.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from .common import EXIT_OK, Subparsers, UsageError, console, esc, print_hanging, print_json, rel_root


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "applies",
        help="list the memories that apply to work at PATH, and why the others do not",
        description="List the memories that apply to work at PATH: GLOBAL entries, and PATH_SCOPE "
        "sections whose Scope: is PATH or above it (deeper first). Scopes below PATH, siblings, "
        "and stale, superseded or archived files are listed apart with the reason.",
    )
    parser.add_argument("path", metavar="PATH", help="the folder the work happens in")
    parser.add_argument("root", nargs="?", metavar="ROOT",
                        help="a memory root, or a folder holding roots (default: discovered from PATH)")
    parser.add_argument("--below", action="store_true",
                        help="also apply scopes below PATH (PATH is an umbrella over projects)")
    parser.add_argument("--no-stale", action="store_true",
                        help="do not score staleness (stale files then count as current)")
    parser.add_argument("--now", metavar="DATE", help="score staleness as of this date")
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from memtui.core.judge.scopes import applicability, stale_reasons
    from memtui.core.judge.staleness import score_root
    from memtui.core.read.store import RootError, load_root
    from memtui.core.roots.discover import discover

    from .stale import parse_now

    where = Path(args.path).expanduser().absolute()
    try:
        if args.root:
            roots = discover(Path(args.root).expanduser())
        elif where.is_dir():
            roots = discover(None, cwd=where)
        else:
            raise UsageError(f"{args.path}: no such folder; name the memory ROOT to check it "
                             "against a path that does not exist yet")
        now = parse_now(args.now)
        answers = []
        for root in roots:
            snapshot = load_root(root)
            stale = {} if args.no_stale else stale_reasons(score_root(snapshot, now))
            answers.append(applicability(snapshot, str(where), stale, include_below=args.below))
    except RootError as exc:
        raise UsageError(str(exc)) from None
    if args.json:
        objects = [a.to_json() for a in answers]
        print_json(objects[0] if len(objects) == 1 else objects)
        return EXIT_OK
    out = console()
    for answer in answers:
        out.print(f"[bold]{esc(rel_root(Path(answer.root), args.root))}[/] — "
                  f"{len(answer.applies)} appl{'y' if len(answer.applies) != 1 else 'ies'} at "
                  f"{esc(answer.path)}")
        for item in answer.applies:
            why = f"{item.scope}: {item.why}" if item.scope else item.why  # (the why says unscoped)
            print_hanging(out, f"  [green]✓[/] [cyan]{esc(item.path)}[/]", f"[dim]{esc(why)}[/]")
        if answer.excluded:
            out.print(f"  does not apply ({len(answer.excluded)}):")
        for gone in answer.excluded:
            print_hanging(out, f"  [dim]✗ {esc(gone.path)}[/]", f"[dim]{esc(gone.why)}[/]")
        out.print("")
    return EXIT_OK
