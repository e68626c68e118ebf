"""``memtui promote FILE --to ROOT``: move a fact into another memory root (another layer).

Both roots are gated; the change is written under both locks as one journal record (one half per
root), so one ``memtui undo`` — run on either root — takes it back in both.  Exit codes as for
the verbs: 0 applied (or a dry run the gate accepts), 1 refused (by either root's gate, a name
already taken in the target, a busy lock, a file changed on disk), 2 a mistake to fix.
"""

from __future__ import annotations

import argparse
import os
from pathlib import Path
from typing import TYPE_CHECKING, Sequence

from .common import (
    EXIT_FINDINGS,
    EXIT_OK,
    UsageError,
    budget_config,
    console,
    note_applied,
    print_json,
)
from .verbs import changing, fail, print_preview, resolve_files, say_recovered

if TYPE_CHECKING:
    from memtui.core.model.snapshot import Snapshot
    from memtui.core.write import GroupPreview


def add_to_option(parser: argparse.ArgumentParser) -> None:
    """``--to ROOT`` on ``memtui promote``: promote into another root instead of within one."""
    parser.add_argument("--to", metavar="ROOT",
                        help="move the file into this memory root (another layer), with "
                        "promoted_from: provenance; the source keeps a forwarding archive entry")
    parser.add_argument("--retire", nargs="+", metavar="COPY", default=[],
                        help="with --to: copies of the same note in other roots, each archived "
                        "with an entry pointing at its new home, in the same change (see "
                        "`memtui scan --all`)")


def run_promote(args: argparse.Namespace) -> int:
    """Promote one file into ``args.to`` (see the module docstring)."""
    from memtui.core import write
    from memtui.core.model.changeset import ChangesetError
    from memtui.core.verbs.promote import Collision, promotion

    with changing(args):
        if len(args.files) != 1:
            raise UsageError("promote --to moves one file at a time")
        source_root, rels = resolve_files(args.files, args.root)
        target_root = Path(args.to).expanduser().absolute()
        if not (target_root / "MEMORY.md").is_file():
            raise UsageError(f"{args.to}: no MEMORY.md there (the target must be a memory root)")
        copies = [resolve_files([copy], None) for copy in args.retire]
        roots = [source_root, target_root, *(root for root, _ in copies)]
        if len({os.path.realpath(root) for root in roots}) != len(roots):
            raise UsageError("promote --retire: each copy must be in a root of its own, other "
                             "than the file's and the target's")

        def planner(snapshots: Sequence[Snapshot]) -> GroupPreview:
            source, target, *others = snapshots
            if not copies:
                out_of, into = promotion(source, rels[0], target, hook=args.hook)
                return write.plan_group([(source, out_of), (target, into)])
            from memtui.core.verbs.relearned import Copy, Relearned, relearned_change

            found = Relearned(tuple(Copy(Path(root), rel, "", "") for root, rel in
                                    [(source_root, rels[0]), *((r, rs[0]) for r, rs in copies)]),
                              0.0, 0.0)
            return write.plan_group(relearned_change(found, [source, *others], target))

        try:
            outcome = write.attempt_group(roots, planner, config=budget_config(args),
                                          dry_run=args.dry_run)
        except Collision as exc:
            return fail(args, str(exc), EXIT_FINDINGS)
        except ChangesetError as exc:  # a path the target cannot hold (a nested root, …)
            raise UsageError(f"cannot promote into {target_root}: {exc}") from None
        for recovered in outcome.recovered:
            say_recovered(recovered)
    _report(args, outcome.preview, list(outcome.record_ids))
    return EXIT_OK if outcome.accepted else EXIT_FINDINGS


def _report(args: argparse.Namespace, group: GroupPreview, ids: list[str]) -> None:
    note_applied(*ids)
    if args.json:
        print_json(group.to_json() | {"dry_run": bool(args.dry_run), "ids": ids})
        return
    out = console()
    for i, preview in enumerate(group.previews):
        out.print(f"[bold]{preview.before.root}[/]")
        print_preview(preview, dry_run=args.dry_run, record_id=ids[i] if ids else None)
    if not group.accepted:
        out.print("[red]refused: no root was changed[/]")
    elif ids and len(group.previews) == 2:
        out.print("[dim]one change in both roots: `memtui undo` on either root takes it back "
                  "in both[/]")
    elif ids:
        out.print(f"[dim]one change in all {len(group.previews)} roots: `memtui undo` on any of "
                  "them takes it back in every one[/]")
