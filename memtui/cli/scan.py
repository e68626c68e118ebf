"""``memtui scan``: consolidation candidates — near-duplicate pairs, clusters, contradictions.

Read-only: it never writes to the memory folder.  Pairs a person rejected (``.memtui/rejected.json``)
are not proposed.  Exit 0 whatever is found (candidates are suggestions), 2 on a usage or I/O error.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console
    from rich.table import Table

    from memtui.core.judge.consolidate import ScanResult
    from memtui.core.judge.contradictions import Contradiction

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
    plain_wanted,
    print_json,
    rel_root,
    report_pending,
)

DEFAULT_LIMIT = 40
SHARED_SHOWN = 3


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "scan",
        help="propose near-duplicate files to merge and contradictions to supersede",
        description="Find near-duplicate memory files (token overlap on titles, and on title + "
        "body, at or above the threshold), group them into clusters, and find same-type files "
        "where one negates the other. Suggestions only: nothing is changed.",
    )
    parser.add_argument("path", nargs="?", help="a memory root or a folder holding roots")
    parser.add_argument("--threshold", metavar="T", default=None,
                        help="overlap a pair needs, greater than 0 and at most 1 (default 0.8)")
    parser.add_argument("--include-sessions", action="store_true",
                        help="also consider the logs of work (session notes, hand-offs, status reports)")
    parser.add_argument("--limit", metavar="N", type=int, default=None,
                        help=f"rows shown per table (default {DEFAULT_LIMIT}; 0 shows all; "
                        "--json always has all, --plain all unless --limit is given)")
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    add_plain_option(parser)
    parser.add_argument("--all", action="store_true",
                        help="across every root on this machine: the same lesson re-learned in "
                        "several projects, to promote to the user layer")
    add_loader_option(parser)
    parser.set_defaults(func=run)


def parse_threshold(text: str | None) -> float:
    """The ``--threshold`` value, or a :class:`UsageError` saying what is wrong with it."""
    from memtui.core.judge.consolidate import DEFAULT_THRESHOLD

    if text is None:
        return DEFAULT_THRESHOLD
    try:
        value = float(text)
    except ValueError:
        raise UsageError(f"--threshold: '{text}' is not a number (use e.g. 0.8)") from None
    if not 0.0 < value <= 1.0:  # also refuses nan
        raise UsageError(f"--threshold: {text} is out of range (greater than 0, at most 1)")
    return value


def run(args: argparse.Namespace) -> int:
    from memtui.core.judge.consolidate import scan_root
    from memtui.core.read.store import RootError
    from memtui.core.stores.rejections import read_rejected

    if getattr(args, "all", False):
        from .relearned import run_relearned

        return run_relearned(args)
    threshold = parse_threshold(args.threshold)
    if args.limit is not None and args.limit < 0:
        raise UsageError(f"--limit: {args.limit} must be 0 (all) or more")
    results = []
    interrupted = False
    for root in find_roots(args.path):
        try:
            result, pending = scan_root(root, budget_config(args), threshold,
                                        include_sessions=args.include_sessions,
                                        rejected=read_rejected(root))
        except RootError as exc:
            raise UsageError(str(exc)) from None
        interrupted |= report_pending(root, pending, args.path)
        results.append(result)
    if args.json:
        objects = [result.to_json() for result in results]
        print_json(objects[0] if len(objects) == 1 else objects)
        return EXIT_FINDINGS if interrupted else EXIT_OK
    out = console()
    if plain_wanted(args, out):
        _print_plain(out, results, args)
        return EXIT_FINDINGS if interrupted else EXIT_OK
    if args.limit is None:
        args.limit = DEFAULT_LIMIT
    for result in results:
        _print_result(out, result, args)
    return EXIT_FINDINGS if interrupted else EXIT_OK


#: the plain form's tables, always all four in this order, each a header row and its rows
PLAIN_HEADERS = (
    ("#", "file", "relation", "other file", "evidence", "cosine", "score", "title", "body",
     "similar", "shared words"),
    ("files", "pairs", "review", "members"),
    ("older (superseded)", "newer (successor)", "order", "type", "score", "negation", "about",
     "older says", "newer says"),
    ("older (folded)", "newer (successor)", "kind", "why"),
)


def _print_plain(out: Console, results: list[ScanResult], args: argparse.Namespace) -> None:
    """The four tables as tab-separated blocks (near-duplicates, clusters, contradictions,
    supersessions), each its header row then its rows, a blank line between them; every root's
    rows in one block (a root column first when there are several); no title or summary."""
    from pathlib import Path

    from .common import print_plain

    several = len(results) > 1
    blocks: list[list[list[str]]] = [[], [], [], []]
    for result in results:
        first = [rel_root(Path(result.root), args.path)] * several
        limit = args.limit or 0
        for block, rows in zip(blocks, _plain_rows(result)):
            block.extend(first + row for row in rows[:_shown(len(rows), limit)])
    for n, (header, rows) in enumerate(zip(PLAIN_HEADERS, blocks)):
        if n:
            print_plain(out, [], [])  # the blank line between blocks
        print_plain(out, ["root"] * several + list(header), rows)


def _plain_rows(result: ScanResult) -> tuple[list[list[str]], ...]:
    """The rows of the four plain tables, each cell literal text on one line."""
    pairs = []
    for n, pair in enumerate(result.pairs, start=1):
        more = pair.shared_count - min(len(pair.shared), SHARED_SHOWN)
        shared = ", ".join(pair.shared[:SHARED_SHOWN]) + (f" +{more}" if more > 0 else "")
        if pair.contained_in is not None:
            small = pair.b if pair.contained_in == pair.a else pair.a
            files = [small, "contained in", pair.contained_in]
        else:
            files = [pair.a, "↔", pair.b]
        pairs.append([str(n), *files, pair.evidence, f"{pair.cosine:.2f}", f"{pair.score:.2f}",
                      _fmt(pair.title_score), _fmt(pair.body_score), f"{pair.similarity:.0%}",
                      shared])
    clusters = []
    for cluster in result.clusters:
        if len(cluster.files) > 2 or cluster.review_pairwise:
            flags = [f for f, on in (("oversized", cluster.oversized), ("chained", cluster.chained)) if on]
            clusters.append([str(len(cluster.files)), f"{cluster.pairs}/{cluster.possible}",
                             ("⚠ pair by pair: " + ", ".join(flags)) if flags else "as one merge",
                             ", ".join(cluster.files)])
    contradictions = [
        [c.old, c.new, "dated" if c.ordered else "unknown", c.type, f"{c.score:.2f}", c.negation,
         " ".join(c.subject), *c.sentences]
        for c in result.contradictions]
    supersessions = [
        [found.old, found.new,
         ("✓ " if found.strong else "") + found.proposal if found.kind != "contained"
         else "contained in", "; ".join(found.evidence)]
        for found in result.supersessions]
    return pairs, clusters, contradictions, supersessions


def _shown(rows: int, limit: int) -> int:
    return rows if limit == 0 else min(rows, limit)


def _table(title: str, total: int, limit: int) -> tuple[int, Table]:
    """How many rows to show, and a table titled with "showing N of M" when that is fewer."""
    from rich.table import Table

    shown = _shown(total, limit)
    if shown < total:
        title += f" — showing {shown} of {total}"
    return shown, Table(title=title, title_justify="left", pad_edge=False)


def _count(n: int, noun: str) -> str:
    return f"{n} {noun}{'s' if n != 1 else ''}"


def _fmt(score: float | None) -> str:
    return "—" if score is None else f"{score:.2f}"


def said_words(c: Contradiction) -> str:
    """What a contradiction is, in the table's words: its subject, then each file's sentence quoted
    (older first; by file name when the order is unknown), so the clash is read without opening
    either file."""
    lines = [f"about: {esc(' '.join(c.subject))}"] if c.subject else []
    sides = ("older", "newer") if c.ordered else (c.old.rsplit("/", 1)[-1], c.new.rsplit("/", 1)[-1])
    for side, sentence in zip(sides, c.sentences):
        if sentence:
            lines.append(f"{esc(side)}: \u201c{esc(sentence)}\u201d")
    return "\n".join(lines)


def _print_result(out: Console, result: ScanResult, args: argparse.Namespace) -> None:
    from pathlib import Path

    from memtui.core.judge.consolidate import pairs_summary

    name = esc(rel_root(Path(result.root), args.path))
    summary = (
        f"[bold]{name}[/] — {result.considered} files considered · "
        f"{pairs_summary(result.pairs, result.threshold) if result.pairs else '0 pairs'} · "
        f"{_count(len(result.clusters), 'cluster')} · "
        f"{_count(len(result.contradictions), 'contradiction')} · "
        f"{_count(len(result.supersessions), 'supersession')}"
    )
    if result.rejected_skipped:
        summary += f" · {result.rejected_skipped} rejected before, not shown"
    out.print(summary)
    if not args.include_sessions:
        out.print("[dim]logs of work (session notes, hand-offs, status reports) left out; "
                  "--include-sessions to add them[/]")

    if result.pairs:
        shown, table = _table("Near-duplicates (merge candidates), most similar first", len(result.pairs), args.limit)
        table.add_column("#", justify="right", style="dim")
        table.add_column("files", overflow="fold", ratio=3)
        table.add_column("score", justify="right")
        table.add_column("title", justify="right")
        table.add_column("body", justify="right")
        table.add_column("similar", justify="right")
        table.add_column("shared words", overflow="fold", ratio=2)
        for n, pair in enumerate(result.pairs[:shown], start=1):
            more = pair.shared_count - min(len(pair.shared), SHARED_SHOWN)
            shared = ", ".join(pair.shared[:SHARED_SHOWN]) + (f" +{more}" if more > 0 else "")
            if pair.contained_in is not None:
                small = pair.b if pair.contained_in == pair.a else pair.a
                files = f"{esc(small)}\n[dim]contained in[/] {esc(pair.contained_in)}"
            else:
                files = f"{esc(pair.a)}\n[dim]↔[/] {esc(pair.b)}"
            files += f"\n[dim]{pair.evidence} · cosine {pair.cosine:.2f}[/]"
            table.add_row(
                str(n), files, f"[bold]{pair.score:.2f}[/]",
                _fmt(pair.title_score), _fmt(pair.body_score), f"{pair.similarity:.0%}",
                esc(shared),
            )
        out.print(table)
    else:
        out.print(f"  no near-duplicates at ≥ {result.threshold:.2f}")

    big = [c for c in result.clusters if len(c.files) > 2 or c.review_pairwise]
    if big:
        shown, table = _table("Clusters of more than two files", len(big), args.limit)
        table.add_column("files", justify="right")
        table.add_column("pairs", justify="right")
        table.add_column("review")
        table.add_column("members", overflow="fold")
        for cluster in big[:shown]:
            flags = [f for f, on in (("oversized", cluster.oversized), ("chained", cluster.chained)) if on]
            review = ("⚠ pair by pair: " + ", ".join(flags)) if flags else "as one merge"
            members = ", ".join(cluster.files[:8]) + (
                f" … +{len(cluster.files) - 8}" if len(cluster.files) > 8 else "")
            table.add_row(str(len(cluster.files)), f"{cluster.pairs}/{cluster.possible}",
                          review, esc(members))
        out.print(table)

    if result.contradictions:
        shown, table = _table("Contradictions (the newer supersedes the older when the dates say which)",
                              len(result.contradictions), args.limit)
        table.add_column("older (superseded)", overflow="fold")
        table.add_column("newer (successor)", overflow="fold")
        table.add_column("type")
        table.add_column("score", justify="right")
        table.add_column("negation")
        table.add_column("what each says", overflow="fold", ratio=3)
        for c in result.contradictions[:shown]:
            old, new = (esc(c.old), esc(c.new)) if c.ordered else (
                f"{esc(c.old)} [dim](order unknown)[/]", esc(c.new))
            table.add_row(old, new, c.type, f"{c.score:.2f}", esc(c.negation), said_words(c))
        out.print(table)
    if result.supersessions:
        shown, table = _table("Supersessions (fold the earlier into the later; ✓ = strong evidence)",
                              len(result.supersessions), args.limit)
        table.add_column("older (folded)", overflow="fold")
        table.add_column("newer (successor)", overflow="fold")
        table.add_column("kind")
        table.add_column("why", overflow="fold", ratio=2)
        for found in result.supersessions[:shown]:
            table.add_row(esc(found.old), esc(found.new),
                          ("✓ " if found.strong else "  ") + found.proposal if found.kind != "contained"
                          else "contained in", esc("; ".join(found.evidence)))
        out.print(table)
    out.print()
