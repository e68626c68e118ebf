"""``memtui dream [PATH] [--dry-run [--full-diff]] [--json] [--yes]`` — one reviewed maintenance pass.

Prints the plan (each item checked or not, with its reason and evidence) and the validator's
verdict on the checked items as one change; ``--dry-run`` adds each item's diff (its first
hunks and how many more, long lines cut; ``--full-diff`` prints every line whole); ``--yes``
applies the checked items as one changeset (one journal record, one ``memtui undo``).  Exit 0
planned or applied (or nothing to do), 1 refused, 2 a usage or I/O error.
"""

from __future__ import annotations

import argparse
from typing import TYPE_CHECKING

from .common import (
    EXIT_FINDINGS,
    EXIT_OK,
    Subparsers,
    add_budget_options,
    budget_config,
    console,
    esc,
    note_applied,
    print_diff,
    print_json,
)

if TYPE_CHECKING:
    from memtui.core.dream.plan import DreamPlan
    from memtui.core.model.snapshot import Snapshot
    from memtui.core.write import Preview


def register(subparsers: Subparsers) -> None:
    parser = subparsers.add_parser(
        "dream",
        help="plan one maintenance pass (history, repair, archive, merge, supersede, trim)",
        description="Plan one maintenance pass: move HTML-comment history from MEMORY.md to "
        "MEMORY-history.md, repair the indexes, archive files their author declared superseded "
        "and fully stale files no guard holds back, fold session logs into the later note that "
        "closes their work item, merge near-duplicate clusters, supersede contradictions with a "
        "known direction, recover lessons kept only as hooks, turn a prose-dump index into "
        "pointers, and past the fill target compact Memory-base paths, shorten long lines, move "
        "long detail into topic files and decay entries. Items touching a pinned file start "
        "unchecked; team/ memory is left alone. Without --yes nothing is written.",
    )
    parser.add_argument("path", nargs="?", metavar="PATH", help="the memory root (default: discovered)")
    parser.add_argument("--dry-run", action="store_true", help="print the plan with each item's diff (its first "
                        "hunks, and how many more); touch nothing")
    parser.add_argument("--full-diff", action="store_true", help="with --dry-run: print every hunk of each diff, "
                        "every line whole")
    parser.add_argument("--yes", action="store_true", help="apply the checked items as one change")
    parser.add_argument("--json", action="store_true", help="print JSON (see README)")
    parser.add_argument("--repo", metavar="DIR", help="the project references point into (as for `stale`)")
    parser.add_argument("--now", metavar="DATE", help="judge staleness as of this date (default: now)")
    add_budget_options(parser)
    from .verbs import add_target_option

    add_target_option(parser)
    parser.set_defaults(func=run, verb="dream")


def _esc(text: str) -> str:
    return esc(text)  # control characters too: a hostile folder's names reach this output


def run(args: argparse.Namespace) -> int:
    from memtui.core import write
    from memtui.core.dream import plan as dream
    from memtui.core.stores.rejections import read_rejected
    from memtui.core.stores.statcache import cached_loader

    from .stale import parse_now, parse_repo
    from .verbs import changing, root_of_path, say_recovered

    with changing(args):
        root = root_of_path(args.path)
        now, repo = parse_now(args.now), parse_repo(args.repo)
        plans: list[DreamPlan] = []

        def planner(snapshot: Snapshot) -> Preview:
            found = dream.plan_dream(snapshot, now, repo=repo, rejected=read_rejected(root),
                                     target_lines=args.target_lines)
            plans.append(found)
            if not found.default:
                raise _NothingChecked
            return dream.preview(found, found.default)

        dry_run = args.dry_run or not args.yes
        try:  # planned on the stat cache's kept facets (every text read when it will commit)
            outcome = write.attempt(root, planner, config=budget_config(args), dry_run=dry_run,
                                    load=cached_loader(texts=not dry_run))
        except _NothingChecked:
            return _report(args, plans[-1], None, None)
        say_recovered(outcome.recovered)
        return _report(args, plans[-1], outcome.preview, outcome.record_id)
    raise AssertionError("unreachable")  # pragma: no cover


class _NothingChecked(Exception):
    """The plan has no checked item: there is nothing to gate or write."""


def _report(args: argparse.Namespace, found: DreamPlan, verdict: Preview | None, record_id: str | None) -> int:
    if record_id:
        note_applied(record_id)
    from memtui.core.dream.plan import ERRORS_SHOWN, plan_json

    code = EXIT_FINDINGS if verdict is not None and not verdict.accepted else EXIT_OK
    if args.json:
        print_json(plan_json(found, verdict) | {"dry_run": bool(args.dry_run), "applied": record_id is not None,
                                               "id": record_id})
        return code
    out = console()
    if not found.items:
        left = found.errors_left
        if not left:
            out.print("nothing to do: the folder needs no maintenance")
            return EXIT_OK
        out.print(f"nothing a pass can do — but {len(left)} error{'s' * (len(left) != 1)} no pass "
                  f"fixes need{'s' * (len(left) == 1)} a person:")
        for finding in left[:ERRORS_SHOWN]:
            where = f"{finding.path}:{finding.line}" if finding.line else finding.path
            out.print(f"  {finding.rule} {_esc(where)} — {_esc(finding.message)}", soft_wrap=True)
        if len(left) > ERRORS_SHOWN:
            out.print(f"  … and {len(left) - ERRORS_SHOWN} more: memtui validate lists them all")
        return EXIT_OK
    from memtui.core.dream.plan import cut_item_diffs
    from memtui.core.model.linediff import DiffCut

    diffs = (cut_item_diffs(found, found.default, cut=None if args.full_diff else DiffCut())
             if args.dry_run else None)
    for item in found.items:
        mark = "[green]\\[x][/]" if item.checked else "\\[ ]"
        out.print(f"{mark} [bold]{item.kind}[/] {_esc(', '.join(item.paths))}")
        out.print(f"    {_esc(item.reason)}")
        if item.note:
            out.print(f"    [yellow]{_esc(item.note)}[/]")
        for line in item.evidence:
            out.print(f"    [dim]· {_esc(line)}[/]")
        diff = next(diffs) if diffs is not None else None  # each item's, the checked ones before it applied
        if diff is not None and diff.text:
            print_diff(out, diff.text)
        if diff is not None and diff.cut:
            more = (f"{diff.hunks_left:,} more hunk{'s' if diff.hunks_left != 1 else ''}, "
                    f"{diff.lines_left:,} line{'s' if diff.lines_left != 1 else ''}")
            out.print(f"    [dim]… the diff goes on ({more}); --full-diff prints it whole[/]")
    checked = len(found.default)
    waiting = len(found.items) - checked
    if verdict is None:
        out.print(f"nothing to apply; {waiting} item{'s' if waiting != 1 else ''} wait for review "
                  "(in the app, or by the verbs)")
        return EXIT_OK
    if not verdict.accepted:
        from .verbs import print_refusal

        print_refusal(verdict)
        return code
    if record_id:
        out.print(f"[bold green]applied:[/] {_esc(verdict.changeset.description)}")
        out.print(f"[dim]journal {record_id} · undo with `memtui undo`[/]")
    else:
        out.print(f"[green]the validator accepts the {checked} checked item{'s' if checked != 1 else ''} "
                  "as one change[/] (nothing was written; apply with `memtui dream --yes`)")
    for f in verdict.new_findings:
        where = f"{f.path}:{f.line}" if f.line else f.path
        out.print(f"  [yellow]{f.severity}[/] {f.rule} {_esc(where)} — {_esc(f.message)}")
    return code
