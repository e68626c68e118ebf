"""``memtui scan --all``: the same lesson re-learned in several projects, across every root memtui
can find (:mod:`memtui.core.verbs.relearned`), each with the one command that promotes a copy to
the user layer and archives the others (``memtui promote FILE --to LAYER --retire COPY…``; add
``--dry-run`` to review it first).  Read-only; exit 0 whatever is found."""

from __future__ import annotations

import argparse
import shlex
from pathlib import Path
from typing import TYPE_CHECKING

from .common import EXIT_OK, UsageError, budget_config, console, esc, print_json

if TYPE_CHECKING:
    from memtui.core.verbs.relearned import Relearned


def run_relearned(args: argparse.Namespace) -> int:
    from memtui.core.verbs.relearned import scan_machine

    from .scan import parse_threshold

    if args.path:
        raise UsageError("scan: give a PATH or --all, not both")
    threshold = parse_threshold(args.threshold)
    try:
        scan = scan_machine(budget_config(args), threshold)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    snapshots, layer, notes = scan.snapshots, scan.user_layer, scan.notes
    layer_ready = scan.layer_ready
    if args.json:
        print_json({"roots": len(snapshots), "user_layer": str(layer), "user_layer_exists": layer_ready,
                    "relearned": [note.to_json() | {"command": _command(note, layer)} for note in notes]})
        return EXIT_OK
    out = console()
    out.print(f"[bold]{len(notes)} note{'s' * (len(notes) != 1)} re-learned in several projects[/] "
              f"({len(snapshots)} roots; the user layer: {esc(layer)}"
              + ("" if layer_ready else " — not a memory root yet") + ")")
    for i, note in enumerate(notes, 1):
        out.print(f"{i:>3}. [bold]{esc(note.kept.title)}[/] in {len(note.copies)} projects "
                  f"[dim](similarity {note.similarity:.2f})[/]")
        out.print(f"     keep  {esc(note.kept.root)}/{esc(note.kept.path)}")
        for copy in note.retired:
            out.print(f"     retire {esc(copy.root)}/{esc(copy.path)}")
        out.print(f"     [cyan]{esc(_command(note, layer))} --dry-run[/]")
    if notes and not layer_ready:
        out.print(f"[yellow]the user layer {esc(layer)} holds no MEMORY.md yet:[/] make it a root "
                  f"first (mkdir -p {esc(shlex.quote(str(layer)))} and write a MEMORY.md there), or "
                  'name another in the config ("user_layer")')
    return EXIT_OK


def _command(note: Relearned, layer: Path) -> str:
    """The command that promotes the kept copy and archives the others, as one change."""
    kept = f"{note.kept.root}/{note.kept.path}"
    retired = " ".join(shlex.quote(f"{c.root}/{c.path}") for c in note.retired)
    return f"memtui promote {shlex.quote(kept)} --to {shlex.quote(str(layer))} --retire {retired}"
