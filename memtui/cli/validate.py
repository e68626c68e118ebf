"""``memtui validate``: every root checked against every rule; exit 1 on errors."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .common import (
    EXIT_FINDINGS,
    EXIT_OK,
    Subparsers,
    UsageError,
    add_budget_options,
    budget_config,
    console,
    esc,
    find_roots,
    plain,
    print_json,
    rel_root,
)

if TYPE_CHECKING:
    from collections.abc import Sequence

    from rich.console import Console

    from memtui.core.model.snapshot import Finding
    from memtui.core.rules.budget import Budget

NO_RECORD_ENV = "MEMTUI_NO_PRESSURE"


def register(subparsers: Subparsers) -> None:
    validate = subparsers.add_parser(
        "validate",
        help="check roots against every rule; exit 1 on errors",
        description="Check memory roots against every validator rule. Exit 0 when there are no "
        "errors (warnings allowed), 1 when there are, 2 on a usage or I/O error.",
    )
    validate.add_argument("path", nargs="?", help="a memory root or a folder holding roots")
    validate.add_argument("--json", action="store_true", help="print JSON (see README)")
    validate.add_argument("--quiet", action="store_true",
                          help="print nothing when clean, only the errors otherwise")
    validate.add_argument("--no-record", action="store_true",
                          help=f"do not append to .memory-pressure.jsonl (also: {NO_RECORD_ENV}=1)")
    add_budget_options(validate)
    validate.set_defaults(func=run_validate)


def finding_counts(findings: Sequence[Finding]) -> tuple[int, int]:
    """How many of the findings are errors, and how many are warnings."""
    errors = sum(1 for f in findings if f.severity == "error")
    return errors, len(findings) - errors


def to_json(root: Path, budget: Budget, findings: Sequence[Finding]) -> dict[str, Any]:
    """The stable JSON object of one validated root (documented in the README)."""
    errors, _ = finding_counts(findings)
    return {
        "root": str(root),
        "ok": errors == 0,
        "budget": budget.to_json(),
        "findings": [f.to_json() for f in findings],
    }


def run_validate(args: argparse.Namespace) -> int:
    from memtui.core.read.store import RootError
    from memtui.core.stores.pressure import record_budget
    from memtui.core.stores.statcache import validate_root

    roots = find_roots(args.path)
    record = not (args.no_record or os.environ.get(NO_RECORD_ENV))
    results = []
    for root in roots:
        try:
            result = validate_root(root, budget_config(args))  # through the stat cache
        except RootError as exc:
            raise UsageError(str(exc)) from None
        if record:
            record_budget(result.root, result.budget)
        results.append(result)
    failed = any(finding_counts(r.findings)[0] for r in results)
    if args.json:
        objects = [to_json(r.root, r.budget, r.findings) for r in results]
        print_json(objects[0] if len(objects) == 1 else objects)
        return EXIT_FINDINGS if failed else EXIT_OK
    if args.quiet:  # plain text: no Rich to import for the hook-like use
        for r in results:
            if finding_counts(r.findings)[0]:
                sys.stdout.write(plain(rel_root(r.root, args.path)) + "\n" + "".join(
                    f"  {f.severity:7} {f.rule} {plain(f.path)}{f':{f.line}' if f.line else ''} "
                    f"{plain(f.message)}\n" for f in r.findings if f.severity == "error"))
        return EXIT_FINDINGS if failed else EXIT_OK
    out = console()
    for n, r in enumerate(results):
        errors, warnings = finding_counts(r.findings)
        if n:
            out.print()  # a blank line between roots, none after the last
        out.print(f"[bold]{esc(rel_root(r.root, args.path))}[/]  {budget_text(r.budget)}")
        _print_findings(out, r.findings)
        verdict = "[green]ok[/]" if not errors else "[red]failed[/]"
        out.print(
            f"{verdict}: {errors} error{'s' * (errors != 1)}, "
            f"{warnings} warning{'s' * (warnings != 1)} in {r.files} file{'s' * (r.files != 1)}"
        )
    return EXIT_FINDINGS if failed else EXIT_OK


def budget_text(budget: Budget) -> str:
    """A budget's use as one line of Rich markup, coloured by how close it is to the cap."""
    colour = "red" if budget.over_lines or budget.over_bytes else (
        "yellow" if budget.utilization >= 0.9 else "green")
    return (
        f"[{colour}]{budget.lines}/{budget.max_lines} lines · {budget.bytes:,}/{budget.max_bytes:,} "
        f"{budget.unit} · {budget.utilization:.0%}[/] · ~{budget.tokens:,} tokens"
    )


def _print_findings(out: Console, findings: Sequence[Finding]) -> None:
    """One finding a line; on a terminal narrower than a finding, wrapped at word boundaries
    with the continuation lines indented under the rule (piped output keeps one a line)."""
    from rich.table import Table

    from .common import PIPED_WIDTH

    if out.width >= PIPED_WIDTH or not findings:
        for finding in findings:
            out.print(_finding_text(finding))
        return
    grid = Table.grid()
    grid.add_column(no_wrap=True, width=10)
    grid.add_column(overflow="fold")
    for finding in findings:
        colour = "red" if finding.severity == "error" else "yellow"
        where = finding.path + (f":{finding.line}" if finding.line else "")
        grid.add_row(f"  [{colour}]{finding.severity:7}[/]",
                     f"[bold]{finding.rule}[/] [cyan]{esc(where)}[/] {esc(finding.message)}")
    out.print(grid, soft_wrap=False)


def _finding_text(finding: Finding) -> str:
    colour = "red" if finding.severity == "error" else "yellow"
    where = finding.path + (f":{finding.line}" if finding.line else "")
    return (
        f"  [{colour}]{finding.severity:7}[/] [bold]{finding.rule}[/] "
        f"[cyan]{esc(where)}[/] {esc(finding.message)}"
    )
