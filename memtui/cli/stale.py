"""``memtui stale``: every memory file scored for staleness, highest first, and why.

Read-only: it never writes to the memory folder.  ``--action`` narrows the list; exit 0 whatever
the scores are (staleness is a suggestion, not an error), 2 on a usage or I/O error.
"""

from __future__ import annotations

import argparse
from datetime import date, datetime, timezone
from pathlib import Path
from typing import Any

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
    print_json,
    rel_root,
    report_interrupted,
    report_pending,
)

ACTIONS = ("prune", "review", "keep")
_ACTION_STYLE = {"prune": "bold red", "review": "yellow", "keep": "green"}
_CLASS_LABEL = {
    "EVERGREEN": "evergreen",
    "FRESH": "fresh",
    "PARTIALLY_STALE": "partly",
    "FULLY_STALE": "FULLY",
}


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "stale",
        help="score every memory file for staleness, highest first",
        description="Score every memory file: age against its type's half-life, plus points for "
        "referenced files, symbols, branches (and, with --online, URLs) that no longer exist; "
        "class and guards say why. Suggestions only: nothing is changed.",
    )
    parser.add_argument("path", nargs="?", help="a memory root or a folder holding roots")
    parser.add_argument("--repo", metavar="DIR",
                        help="the project the references point into (default: the decoded "
                        "folder of a ~/.claude/projects/<encoded>/memory root, else the git work "
                        "tree holding the root)")
    parser.add_argument("--now", metavar="DATE",
                        help="score as of this date (YYYY-MM-DD or an ISO datetime; default: now)")
    parser.add_argument("--online", action="store_true",
                        help="also check that URLs answer 200 (off by default)")
    parser.add_argument("--action", choices=ACTIONS, help="show only files with this action")
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    add_loader_option(parser)
    parser.set_defaults(func=run)


def parse_now(text: str | None) -> datetime | date:
    """The ``--now`` value: a date or an ISO datetime; the current UTC time when absent."""
    if text is None:
        return datetime.now(timezone.utc)
    value = text.strip()
    try:
        if len(value) == 10:
            return date.fromisoformat(value)
        return datetime.fromisoformat(value)
    except ValueError:
        raise UsageError(
            f"--now: '{text}' is not a date (use YYYY-MM-DD or an ISO datetime)") from None


def parse_repo(text: str | None) -> Path | None:
    if text is None:
        return None
    path = Path(text).expanduser()
    if not path.exists():
        raise UsageError(f"--repo: {text}: no such folder")
    if not path.is_dir():
        raise UsageError(f"--repo: {text}: is a file, not a project folder")
    return path.absolute()


def run(args: argparse.Namespace) -> int:
    from memtui.core.project import ProjectCache
    from memtui.core.staleness import score_root, stale_json_root
    from memtui.core.statcache import load_cached
    from memtui.core.store import RootError

    now = parse_now(args.now)
    repo = parse_repo(args.repo)
    roots = find_roots(args.path)
    cache = ProjectCache()
    reports = []
    interrupted = False
    for root in roots:
        if args.json and args.now is not None:  # a whole answer is worth keeping for a fixed now
            try:
                data, pending = stale_json_root(root, budget_config(args), now, repo, args.online,
                                                cache=cache)
            except RootError as exc:
                raise UsageError(str(exc)) from None
            interrupted |= report_pending(root, pending, args.path)
            reports.append(data)
            continue
        try:
            snapshot, stat_cache = load_cached(root, budget_config(args))
        except RootError as exc:
            raise UsageError(str(exc)) from None
        interrupted |= report_interrupted(snapshot, args.path)
        if args.json:
            reports.append(score_root(snapshot, now, repo=repo, online=args.online,
                                      cache=cache).to_json())
        else:
            reports.append(score_root(snapshot, now, repo=repo, online=args.online, cache=cache))
        stat_cache.save()
    if args.json:
        objects = [_report_json(data, args.action) for data in reports]
        print_json(objects[0] if len(objects) == 1 else objects)
        return EXIT_FINDINGS if interrupted else EXIT_OK
    out = console()
    for report in reports:
        _print_report(out, report, args)
    return EXIT_FINDINGS if interrupted else EXIT_OK


def _report_json(data: dict[str, Any], action: str | None) -> dict[str, Any]:
    if action:
        data["files"] = [f for f in data["files"] if f["action"] == action]
    return data


def _print_report(out: Any, report: Any, args: argparse.Namespace) -> None:
    from rich.table import Table

    from memtui.core.ages import DATE_KEYS

    results = [r for r in report.results if not args.action or r.action.value == args.action]
    project = (f"project {esc(str(report.project.path))} ({report.project.source})"
               if report.project else "no project found: references unverifiable")
    when = report.now.isoformat()[:16].replace("T", " ")
    title = (f"[bold]{esc(rel_root(report.root, args.path))}[/] — {len(results)} of "
             f"{len(report.results)} files · {project} · as of {when}")
    if not report.results:
        out.print(title + "\n  no memory files\n")
        return
    table = Table(title=title, title_justify="left", expand=False, pad_edge=False)
    table.add_column("score", justify="right", no_wrap=True)
    table.add_column("action", no_wrap=True)
    table.add_column("class", no_wrap=True)
    table.add_column("type", no_wrap=True)
    table.add_column("age", justify="right", no_wrap=True)
    table.add_column("missing refs", overflow="fold", ratio=3)
    table.add_column("guards", overflow="fold", ratio=2)
    table.add_column("file", overflow="fold", ratio=3)
    for r in results:
        action = r.action.value
        table.add_row(
            f"{r.score:5.1f}",
            f"[{_ACTION_STYLE[action]}]{action}[/]",
            _CLASS_LABEL[r.cls.value] + (" ↓" if r.downgraded else ""),
            r.type,
            f"{r.age.days:.0f}d" + ("" if r.age.source in DATE_KEYS
                                    else f" [dim]{r.age.source}[/]"),
            esc(_missing_text(r)),
            esc(", ".join(g.kind for g in r.guards)),
            esc(r.path),
        )
    out.print(table)
    counts = {a: sum(1 for r in report.results if r.action.value == a) for a in ACTIONS}
    summary = " · ".join(f"[{_ACTION_STYLE[a]}]{counts[a]} {a}[/]" for a in ACTIONS)
    note = "suggestions only; nothing was changed"
    unchecked = sum(1 for r in report.results for c in r.unverifiable
                    if c.kind.value == "url" and c.reason.startswith("not checked offline"))
    if unchecked:
        note += f"; {unchecked} URL(s) not checked (use --online)"
    out.print(f"{summary} — {note}.  class: evergreen = nothing to verify, fresh = all found, "
              "partly / FULLY = some / all references gone; ↓ = all gone but held back by a "
              "guard\n")


def _missing_text(result: Any) -> str:
    missing = result.missing
    if not missing:
        return ""
    shown = [f"{c.kind.value} {c.text}" for c in missing[:2]]
    more = f" (+{len(missing) - 2})" if len(missing) > 2 else ""
    return ", ".join(shown) + more
