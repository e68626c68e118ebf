"""``memtui stale``: every memory file scored for staleness, highest first, and why.

Read-only: it never writes to the memory folder.  ``--action`` narrows the list; exit 0 whatever
the scores are (staleness is a suggestion, not an error), 2 on a usage or I/O error.
"""

from __future__ import annotations

import argparse
from datetime import date, datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from rich.console import Console

    from memtui.core.judge.staleness import Row, StaleFacts

    from .bigtable import Col

from .common import (
    EXIT_FINDINGS,
    EXIT_OK,
    Subparsers,
    UsageError,
    add_loader_option,
    add_plain_option,
    budget_config,
    console,
    esc,
    find_roots,
    plain,
    plain_wanted,
    print_json,
    print_plain,
    rel_root,
    report_pending,
)

ACTIONS = ("prune", "review", "keep")
_ACTION_STYLE = {"prune": "bold red", "review": "yellow", "keep": "green"}


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
    add_plain_option(parser)
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
    from memtui.core.judge.stalecache import stale_facts_root
    from memtui.core.judge.staleness import rows_at
    from memtui.core.read.project import ProjectCache
    from memtui.core.read.store import RootError

    now = parse_now(args.now)
    repo = parse_repo(args.repo)
    roots = find_roots(args.path)
    cache = ProjectCache()
    reports = []
    interrupted = False
    for root in roots:  # through the stat cache: only the clock's arithmetic runs on a kept root
        try:
            facts = stale_facts_root(root, budget_config(args), repo, args.online, cache=cache)
        except RootError as exc:
            raise UsageError(str(exc)) from None
        interrupted |= report_pending(facts.root, facts.interrupted, args.path)
        reports.append((facts, rows_at(facts.files, now)))
    if args.json:
        from .jsontext import Raw

        objects = [facts.header(now) | {"files": [Raw(_file_text, row) for row in rows
                                                  if not args.action or row[4] == args.action]}
                   for facts, rows in reports]
        print_json(objects[0] if len(objects) == 1 else objects)
        return EXIT_FINDINGS if interrupted else EXIT_OK
    out = console()
    if plain_wanted(args, out):  # one table for every root: a root column when there are several
        several = len(reports) > 1
        print_plain(out, ["root"] * several + [col.header for col in _columns()], [
            [rel_root(facts.root, args.path)] * several + _plain_row(row)
            for facts, rows in reports for row in rows if not args.action or row[4] == args.action])
        return EXIT_FINDINGS if interrupted else EXIT_OK
    for facts, rows in reports:
        _print_report(out, facts, rows, now, args)
    return EXIT_FINDINGS if interrupted else EXIT_OK


def _plain_row(row: Row) -> list[str]:
    """A row's cells as the table shows them, without padding or colour (literal text)."""
    from memtui.core.judge.dates import DATE_KEYS
    from memtui.core.judge.staleness import REFS_WORDS

    score, path, days, _, action, _, cls, downgraded, guards, f = row
    return [
        f"{score:.1f}",
        action,
        REFS_WORDS[cls] + (" ↓" if downgraded else ""),
        f[1],
        "unknown" if f[16] else f"{days:.0f}d" + ("" if f[4] in DATE_KEYS else f" {f[4]}"),
        _missing_text(f[11]),
        ", ".join(kind for kind, _ in guards),
        path,
    ]


def _file_text(row: Row, n: str) -> str:
    """A row's JSON object (:func:`memtui.core.judge.staleness.row_json`) as the indented encoder
    writes it, its later lines starting with ``n``: a template instead of a walk, one per file.

    Strings go through the encoder's own string function; the rounded numbers are finite floats
    (``repr``, as the encoder writes them); action, class and bucket are fixed ASCII words.
    """
    from json.encoder import encode_basestring as text

    from .jsontext import scalar

    score, path, days, base, action, bucket, cls, downgraded, guards, f = row
    m = n + "  "
    found, missing, unverifiable = f[12]
    unknown = f[16]
    return (
        f'{{{m}"path": {text(path)},{m}"type": {text(f[1])},'
        f'{m}"age_days": {"null" if unknown else repr(round(days, 1))},'
        f'{m}"score": {round(score, 1)!r},'
        f'{m}"action": "{action}",{m}"class": "{cls}",'
        f'{m}"modifiers": {_objects(f[10], _MODIFIER_KEYS, m)},'
        f'{m}"missing": {_objects(f[11], _MISSING_KEYS, m)},'
        f'{m}"guards": {_objects(guards, _GUARD_KEYS, m)},{m}"half_life": {scalar(f[2])},'
        f'{m}"base_score": {round(base, 1)!r},{m}"bucket": "{bucket}",'
        f'{m}"age_source": {text(f[4])},{m}"dated": {"null" if unknown else text(f[5])},'
        f'{m}"downgraded": {"true" if downgraded else "false"},{m}"references": {{'
        f'{m}  "found": {found:d},{m}  "missing": {missing:d},{m}  "unverifiable": {unverifiable:d}'
        f'{m}}},{m}"status": {_status_text(f[14], m)},'
        f'{m}"age_unknown": {text(unknown) if unknown else "null"}{n}}}'
    )


def _status_text(status: tuple[str, str] | None, n: str) -> str:
    """A row's declared status as the indented encoder writes it (``null`` when none)."""
    if status is None:
        return "null"
    from .jsontext import scalar

    return (f'{{{n}  "kind": {scalar(status[0])},{n}  "reason": {scalar(status[1])}{n}}}')


_MODIFIER_KEYS = ('"kind": ', '"points": ', '"reason": ')
_MISSING_KEYS = ('"kind": ', '"ref": ', '"reason": ')
_GUARD_KEYS = ('"kind": ', '"reason": ')
_OBJECTS: dict[tuple[Any, str], str] = {}


def _objects(items: tuple[tuple[Any, ...], ...], keys: tuple[str, ...], n: str) -> str:
    """A list of objects (each item's values under ``keys``) as the indented encoder writes it
    on a line starting with ``n``; the same guards recur on many files, so texts are kept."""
    if not items:
        return "[]"
    found = _OBJECTS.get((items, n))
    if found is None:
        from .jsontext import scalar

        item, field = n + "  ", n + "    "
        found = _OBJECTS[(items, n)] = "[" + ",".join(
            item + "{" + ",".join(field + key + scalar(value) for key, value in zip(keys, values))
            + item + "}" for values in items) + n + "]"
    return found


def _print_report(out: Console, facts: StaleFacts, rows: list[Row], now: datetime | date,
                  args: argparse.Namespace) -> None:
    from memtui.core.judge.dates import DATE_KEYS
    from memtui.core.judge.staleness import REFS_WORDS  # the class by its axis: the references

    from .bigtable import fit_columns, print_table

    shown = [r for r in rows if not args.action or r[4] == args.action]
    project = (f"project {esc(str(facts.project.path))} ({facts.project.source})"
               if facts.project else "no project found: references unverifiable")
    when = now.isoformat()[:16].replace("T", " ")
    title = (f"[bold]{esc(rel_root(facts.root, args.path))}[/] — {len(shown)} of "
             f"{len(rows)} files · {project} · as of {when}")
    if not rows:
        out.print(title + "\n  no memory files\n")
        return
    body = [
        [
            f"{score:5.1f}",
            f"[{_ACTION_STYLE[action]}]{action}[/]",
            REFS_WORDS[cls] + (" ↓" if downgraded else ""),
            f[1],
            ("[yellow]unknown[/]" if f[16] else
             f"{days:.0f}d" + ("" if f[4] in DATE_KEYS else f" [dim]{f[4]}[/]")),
            plain(_missing_text(f[11])),
            plain(", ".join(kind for kind, _ in guards)),
            plain(path),
        ]
        for score, path, days, _, action, _, cls, downgraded, guards, f in shown
    ]
    columns = list(_columns())
    if out.width < WIDE:  # the file keeps its width; the wordy columns go first
        columns, body = fit_columns(out.width, columns, body, keep=7, order=(0, 1, 4, 2, 3, 6, 5))
    print_table(out, title, columns, body)
    counts = {a: 0 for a in ACTIONS}
    for row in rows:
        counts[row[4]] += 1
    summary = " · ".join(f"[{_ACTION_STYLE[a]}]{counts[a]} {a}[/]" for a in ACTIONS)
    note = "suggestions only; nothing was changed"
    unchecked = sum(f[13] for f in facts.files)
    if unchecked:
        note += f"; {unchecked} URL(s) not checked (use --online)"
    out.print(f"{summary} — {note}.  Two axes: the action follows the score (the age against "
              "the type's half-life, plus what is missing); refs (the JSON's class) says what "
              "became of the references: no refs = nothing to verify (evergreen), all found "
              "(fresh), some / all gone (partly / fully stale), superseded / archived = declared "
              "by the author (prune whatever the age); ↓ = all gone but held back by a guard")
    _print_unknown(out, rows)
    if facts.documents:
        listed = ", ".join(f"{esc(path)} ({esc(what)})" for path, what in facts.documents[:6])
        more = f", and {len(facts.documents) - 6} more" if len(facts.documents) > 6 else ""
        out.print(f"the folder's own documents, not scored (not memories): {listed}{more}")
    out.print()


def _unknown_ages(rows: list[Row]) -> dict[str, list[tuple[str, str]]]:
    """The files whose age is unknown, by what their times say (the reason's first part: the
    copy or the import), each with the rest of its reason, in the order first met."""
    out: dict[str, list[tuple[str, str]]] = {}
    for row in rows:
        reason = row[9][16]
        if reason:
            head, _, rest = reason.partition("; ")
            out.setdefault(head, []).append((row[1], rest))
    return out


def _print_unknown(out: Console, rows: list[Row]) -> None:
    """Which ages are unknown and why: one line per copy (or import), with how many files state
    no date of their own, how many name a session with no transcript here, and which files."""
    unknown = _unknown_ages(rows)
    if not unknown:
        return
    total = sum(len(files) for files in unknown.values())
    out.print(f"[yellow]{total} age{'s' * (total != 1)} unknown[/] (scored as one half-life of "
              "their type: review, never fresh, never pruned for age alone):")
    for head, files in unknown.items():
        sessions = sum(1 for _, rest in files if "has no transcript here" in rest)
        said = f" ({sessions} name a Claude Code session with no transcript here)" if sessions else ""
        names = ", ".join(esc(p) for p, _ in files[:3]) + (f" … (+{len(files) - 3})" if len(files) > 3 else "")
        out.print(f"  {esc(head)} — {len(files)} state no date of their own{said}: {names}")


#: at this width and wider every column is shown; narrower, the file first and what fits
WIDE = 120


def _columns() -> tuple[Col, ...]:
    from .bigtable import Col

    return (
        Col("score", justify="right", no_wrap=True),
        Col("action", no_wrap=True, styled=True),
        Col("refs", no_wrap=True),
        Col("type", no_wrap=True),
        Col("age", justify="right", no_wrap=True, styled=True),
        Col("missing refs", ratio=3),
        Col("guards", ratio=2),
        Col("file", ratio=3),
    )


def _missing_text(missing: tuple[tuple[str, str, str], ...]) -> str:
    if not missing:
        return ""
    shown = [f"{kind} {text}" for kind, text, _ in missing[:2]]
    more = f" (+{len(missing) - 2})" if len(missing) > 2 else ""
    return ", ".join(shown) + more
