"""``memtui pin|unpin|decay|promote|archive|restore|supersede|edit|remember|rebuild`` — change a root.

Each verb builds a changeset (:mod:`memtui.core.verbs.lifecycle`), gates it and writes it through
:mod:`memtui.core.write`, holding the root's lock from reading to writing so that two memtuis on
one root take turns.  ``--dry-run`` prints the changeset and the gate's verdict and touches
nothing; ``--json`` prints ``{"verb", "accepted", "changes", "findings", …}``.  Exit codes: 0
applied (or a dry run the gate accepts), 1 refused (by the gate, a busy lock, or a file changed
on disk), 2 a mistake to fix (no such file, a precondition, a folder that cannot be written).
"""

from __future__ import annotations

import argparse
import contextlib
import os
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator

from .common import (
    EXIT_FINDINGS,
    EXIT_OK,
    EXIT_USAGE,
    Exit,
    Subparsers,
    UsageError,
    add_budget_options,
    budget_config,
    console,
    err_console,
    esc,
    find_roots,
    note_applied,
    positive_int,
    print_diff,
    print_json,
)

if TYPE_CHECKING:
    from memtui.core.model.changeset import Changeset
    from memtui.core.model.snapshot import Snapshot
    from memtui.core.write import Attempt, Preview, Recovered

Build = Callable[["Snapshot", argparse.Namespace], "Changeset"]


# ---------------------------------------------------------------- arguments


def add_common(parser: argparse.ArgumentParser, root_option: bool = True) -> None:
    if root_option:
        parser.add_argument("--root", metavar="DIR",
                            help="the memory root (default: the nearest folder above holding MEMORY.md)")
    parser.add_argument("--dry-run", action="store_true",
                        help="print the changeset and the validator's verdict; change nothing")
    parser.add_argument("--json", action="store_true", help="print the result as JSON")
    add_budget_options(parser)


def _files(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="memory files (paths, or relative to --root)")


def register(subparsers: Subparsers) -> None:
    specs: list[tuple[str, str, Callable[[argparse.ArgumentParser], None]]] = [
        ("pin", "pin files: pinned: true, and an entry in the Pinned block", _files),
        ("unpin", "unpin files: the entry moves to the top of Recent", _files),
        ("decay", "drop files from the working set (they stay reachable)", _files),
        ("promote", "give files an entry at the top of Recent", _add_promote),
        ("archive", "move files into archive/ with an archive-index entry", _add_archive),
        ("restore", "move archived files back, with an entry in Recent", _files),
        ("supersede", "mark OLD obsolete in favour of NEW", _add_supersede),
        ("merge", "fold files into one gist with provenance; the sources move to archive/", _add_merge),
        ("edit", "change an entry's hook (--hook), or edit the file in $EDITOR", _add_edit),
        ("remember", "create a new memory file with an entry in Recent", _add_remember),
        ("rebuild", "edit MEMORY.md back within its contract: repairs, then trims past the fill "
         "target (shows the diff)", _add_rebuild),
    ]
    for name, help_text, add in specs:
        parser = subparsers.add_parser(name, help=help_text, description=help_text[:1].upper() + help_text[1:] + ".")
        add(parser)
        add_common(parser, root_option=name not in ("rebuild",))
        parser.set_defaults(func=run, verb=name)


def _add_promote(parser: argparse.ArgumentParser) -> None:
    from .promote import add_to_option

    _files(parser)
    parser.add_argument("--hook", help="the entry's hook (default: the file's description)")
    add_to_option(parser)


def _add_archive(parser: argparse.ArgumentParser) -> None:
    _files(parser)
    parser.add_argument("--yes", action="store_true", help="confirm archiving pinned files (unpins them)")


def _add_supersede(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD", help="the obsolete memory file")
    parser.add_argument("new", metavar="NEW", help="its successor")
    parser.add_argument("--yes", action="store_true", help="confirm superseding a pinned file")


def _add_merge(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("files", nargs="+", metavar="FILE", help="two or more memory files to fold together")
    parser.add_argument("--gist-file", metavar="F",
                        help="the gist's body from this file (default: both sides' distinct lines)")
    parser.add_argument("--yes", "--confirm-pinned", dest="confirm_pinned", action="store_true",
                        help="confirm merging pinned files (the gist stays pinned); --yes as for "
                        "archive and supersede")


def _add_edit(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="the memory file")
    parser.add_argument("--hook", help="the entry's new hook; without it, open the file in $EDITOR")


def _add_remember(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("title", metavar="TITLE", help="the fact's title (also makes the file name)")
    parser.add_argument("--type", default="project", dest="type_", metavar="TYPE",
                        help="value, user, feedback, project or reference (default project)")
    parser.add_argument("--description", default="", help="one line (default: the body's first line)")
    parser.add_argument("--body", default="", help="the text of the fact ('-' reads standard input)")
    parser.add_argument("--folder", default="", help="a sub-folder of the root to create it in")


def _add_rebuild(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("path", nargs="?", metavar="PATH", help="the memory root (default: discovered)")
    add_target_option(parser)


def add_target_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--target-lines", type=positive_int, default=None, metavar="N",
                        help="the index's fill target in lines: nothing is trimmed within it "
                        "(default: config index.target_lines, else 80%% of the line cap)")


# ---------------------------------------------------------------- roots and paths


def nearest_root(path: Path) -> Path | None:
    """The nearest folder at or above ``path`` (a file's folder) that holds ``MEMORY.md``."""
    start = path if path.is_dir() else path.parent
    for folder in [start, *start.parents]:
        if (folder / "MEMORY.md").is_file():
            return folder
    return None


def root_of_path(path: str | None) -> Path:
    """The one root a root-level command works on: PATH (a root, a file in one, or a folder
    holding exactly one root), else discovery."""
    if path:
        given = Path(path).expanduser().absolute()
        if given.exists():
            found = nearest_root(given)
            if found is not None:
                return found
    roots = find_roots(path)
    if len(roots) > 1:
        shown = ", ".join(str(r) for r in roots[:4]) + (" …" if len(roots) > 4 else "")
        raise UsageError(f"several memory roots found ({shown}); give one")
    return roots[0].absolute()


def resolve_files(files: list[str], root_option: str | None) -> tuple[Path, list[str]]:
    """The root and each file's root-relative path; the root is ``--root`` or the nearest
    folder above the first file that holds MEMORY.md."""
    root: Path | None = None
    if root_option:
        root = Path(root_option).expanduser().absolute()
        if not (root / "MEMORY.md").is_file():
            raise UsageError(f"{root_option}: no MEMORY.md there")
    rels: list[str] = []
    for name in files:
        given = Path(name).expanduser()
        candidate = given if given.is_absolute() else Path.cwd() / given
        if root is not None and not given.is_absolute() and not candidate.exists():
            candidate = root / given
        candidate = Path(os.path.normpath(candidate))
        if root is None:
            root = nearest_root(candidate)
            if root is None:
                raise UsageError(f"{name}: no MEMORY.md in any folder above it (use --root)")
        rel = os.path.relpath(candidate, root)
        if rel == ".." or rel.startswith(".." + os.sep) or os.path.isabs(rel):
            raise UsageError(f"{name}: not inside the memory root {root}")
        rels.append(rel.replace(os.sep, "/"))
    assert root is not None
    return root, rels


# ---------------------------------------------------------------- output


def print_preview(preview: Preview, dry_run: bool, record_id: str | None = None, diff: bool = False) -> None:
    """The changeset, the verdict, and what happened, for people."""
    from memtui.core.model.changeset import Create, Move, unified_diff

    out = console()
    cs = preview.changeset
    accepted = preview.accepted
    label = "dry run" if dry_run else ("applied" if accepted else "refused")
    style = "bold green" if accepted and not dry_run else "bold yellow" if accepted else "bold red"
    out.print(f"[{style}]{label}:[/] {esc(cs.description)}")
    for op in cs.ops:
        if isinstance(op, Move):
            out.print(f"  move    {esc(op.src)} → {esc(op.dst)}")
        else:
            kind = "create" if isinstance(op, Create) else "write"
            out.print(f"  {kind:<7} {esc(op.path)} ({len(op.data):,} bytes)")
    if dry_run or diff:
        text = cs.diff or unified_diff(preview.before, cs)
        if text:
            print_diff(out, text)
    if accepted:
        if dry_run:
            out.print("[green]the validator accepts this change[/] (nothing was written)")
        elif record_id:
            follow = "redo with `memtui redo`" if "-undo-" in record_id else "undo with `memtui undo`"
            out.print(f"[dim]journal {record_id} · {follow}[/]")
        for f in preview.new_findings:
            where = f"{f.path}:{f.line}" if f.line else f.path
            out.print(f"  [yellow]{f.severity}[/] {f.rule} {esc(where)} — {esc(f.message)}")
    else:
        print_refusal(preview)


def print_refusal(preview: Preview) -> None:
    """Why the gate refused, one line a reason."""
    from memtui.core.write import refusal_lines

    out = console()
    out.print("[red]the validator refuses this change:[/]")
    for line in refusal_lines(preview.gate):
        if line.where:
            out.print(f"  [red]error[/] {line.rule} {esc(line.where)} — {esc(line.message)}")
        else:
            out.print(f"  [red]budget[/] {esc(line.message)}")


def fail(args: argparse.Namespace, message: str, code: int) -> int:
    """A change that did not happen: one line (or a JSON object), and the exit code."""
    if getattr(args, "json", False):
        print_json({"verb": args.verb, "accepted": False, "error": message, "changes": [], "findings": []})
    else:
        err_console().print(f"[bold red]memtui {args.verb}:[/] {esc(_unprefixed(args, message))}")
    return code


def _unprefixed(args: argparse.Namespace, message: str) -> str:
    """A core message without the verb it starts with ("memtui pin: pin: …" says it twice)."""
    return message.removeprefix(f"{args.verb}: ")


@contextlib.contextmanager
def changing(args: argparse.Namespace) -> Iterator[None]:
    """Map the writer's errors to messages and exit codes (raised as :class:`Exit`)."""
    from memtui.core.model.changeset import AlreadyDone, ChangesetError, Refusal, VerbError
    from memtui.core.read.store import RootError
    from memtui.core.tidy.rebuild import NothingToRebuild
    from memtui.core.write import Busy, ChangedOnDisk, NothingToUndo, Refused, TxnError, WriteFailed

    try:
        yield
    except NothingToRebuild as exc:
        if args.json:
            print_json({"verb": args.verb, "accepted": True, "changes": [], "findings": [],
                        "description": str(exc)})
        else:
            console().print(esc(str(exc)))
        raise Exit(EXIT_OK) from None
    except AlreadyDone as exc:  # a no-op: 0, with a notice saying why nothing changed
        if args.json:
            print_json({"verb": args.verb, "accepted": True, "changes": [], "findings": [],
                        "description": f"nothing to do: {exc}"})
        else:
            err_console().print(f"[yellow]memtui {args.verb}:[/] nothing to do — "
                                f"{esc(_unprefixed(args, str(exc)))}")
        raise Exit(EXIT_OK) from None
    except Refused as exc:
        raise Exit(_refused(args, exc.preview)) from None
    except (Busy, ChangedOnDisk, NothingToUndo, Refusal) as exc:
        raise Exit(fail(args, str(exc), EXIT_FINDINGS)) from None
    except (WriteFailed, VerbError, RootError, UsageError) as exc:
        raise Exit(fail(args, str(exc), EXIT_USAGE)) from None
    except (TxnError, ChangesetError) as exc:  # ChangesetError: e.g. an index symlinked out
        raise Exit(fail(args, str(exc), EXIT_FINDINGS)) from None


def _refused(args: argparse.Namespace, preview: Preview) -> int:
    if args.json:
        print_json(preview.to_json() | {"dry_run": bool(args.dry_run), "id": None})
    else:
        print_preview(preview, dry_run=False)
    return EXIT_FINDINGS


def say_recovered(recovered: Recovered) -> None:
    """Tell the user what recovery did before the change (paths it left alone, records set aside)."""
    if recovered.message:
        err_console().print(f"[yellow]memtui:[/] {esc(recovered.message)}")


def apply_changeset(args: argparse.Namespace, root: Path, build: Callable[[Snapshot], Changeset],
                    diff: bool = False, cached: bool = False) -> int:
    """Build, gate and (unless a dry run) commit one change through the writer's one protocol;
    ``cached``: the root loaded through its stat cache (every text read when it will commit)."""
    from memtui.core import write
    from memtui.core.stores.statcache import cache_of, cached_loader

    def plan_cached(snapshot: Snapshot) -> Preview:
        try:  # the gate validates the root from its files' kept findings
            return write.plan(snapshot, build(snapshot))
        finally:
            stat_cache = cache_of(snapshot)
            if stat_cache is not None:
                stat_cache.save()

    with changing(args):
        if cached:
            outcome = write.attempt(root, plan_cached,
                                    config=budget_config(args), dry_run=args.dry_run,
                                    load=cached_loader(texts=not args.dry_run))
        else:
            outcome = write.attempt(root, lambda snapshot: write.plan(snapshot, build(snapshot)),
                                    config=budget_config(args), dry_run=args.dry_run)
        return report(args, outcome, diff)
    raise AssertionError("unreachable")  # pragma: no cover


def report(args: argparse.Namespace, outcome: Attempt, diff: bool = False) -> int:
    """Print what an attempt did (for people, or as JSON) and return the exit code."""
    say_recovered(outcome.recovered)
    preview, record_id = outcome.preview, outcome.record_id
    if record_id:
        note_applied(record_id)
    if args.json:
        print_json(preview.to_json() | {"dry_run": bool(args.dry_run), "id": record_id,
                                        "root": str(preview.before.root)})
    else:
        print_preview(preview, dry_run=args.dry_run, record_id=record_id, diff=diff)
    return EXIT_OK if preview.accepted else EXIT_FINDINGS


# ---------------------------------------------------------------- the verbs


def run(args: argparse.Namespace) -> int:
    from memtui.core.verbs import lifecycle as verbs

    verb = args.verb
    if verb == "rebuild":
        target = args.target_lines
        with changing(args):
            root = root_of_path(args.path)
            if args.dry_run:  # the kept "nothing to do", when the root stats as it did then
                from memtui.core.tidy.rebuild import NothingToRebuild, kept_nothing_to_rebuild

                kept = kept_nothing_to_rebuild(root, budget_config(args), target)
                if kept is not None:
                    raise NothingToRebuild(kept)
        return apply_changeset(args, root, lambda s: verbs.rebuild(s, target), diff=True,
                               cached=True)
    if verb == "remember":
        with changing(args):
            root = Path(args.root).expanduser().absolute() if args.root else root_of_path(None)
            if not (root / "MEMORY.md").is_file():
                raise UsageError(f"{root}: no MEMORY.md there")
            body = sys.stdin.read() if args.body == "-" else args.body
        return apply_changeset(args, root, lambda s: verbs.remember(
            s, args.title, body, args.type_, args.description, folder=args.folder))
    if verb == "edit" and args.hook is None:
        return _edit_in_editor(args)
    if verb == "promote" and args.to:
        from .promote import run_promote

        return run_promote(args)

    names = [args.old, args.new] if verb == "supersede" else [args.file] if verb == "edit" else args.files
    with changing(args):
        root, rels = resolve_files(names, args.root)
        if verb == "merge":
            if len(set(rels)) < 2:
                raise UsageError("merge needs at least two different memory files")
            gist_body = _read_gist(args.gist_file) if args.gist_file else None
    if verb == "merge":
        from memtui.core.verbs.merge import merge

        return apply_changeset(args, root, lambda s: merge(
            s, rels, body=gist_body, confirm_pinned=args.confirm_pinned), diff=True)
    if verb == "supersede":
        return apply_changeset(args, root, lambda s: verbs.supersede(s, rels[0], rels[1], confirm=args.yes))
    if verb == "edit":
        return apply_changeset(args, root, lambda s: verbs.edit_hook(s, rels[0], args.hook))
    from memtui.core.verbs.bulk import bulk

    return apply_changeset(args, root, lambda s: bulk(
        s, verb, rels, confirm=getattr(args, "yes", False), hook=getattr(args, "hook", None)).changeset)


def _read_gist(path: str) -> str:
    try:
        return sys.stdin.read() if path == "-" else Path(path).expanduser().read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read the gist body ({getattr(exc, 'strerror', None) or exc})") from None


def _edit_in_editor(args: argparse.Namespace) -> int:
    """Edit a copy of the file in $EDITOR (outside the root), then write it through the gate.

    When the edit is not written (the editor fails, the gate refuses, the file changed on disk
    meanwhile, the disk refuses), the edited copy is kept and its path printed, so no typing is
    lost; it is removed once the edit is written (or nothing was edited).
    """
    from memtui.core import write
    from memtui.core.model.changeset import ChangesetError, apply_to_snapshot
    from memtui.core.read.store import load_root
    from memtui.core.verbs.editor import EditorFailed, edit_copy, left_behind
    from memtui.core.verbs.lifecycle import _file, edit_file

    with changing(args):
        root, rels = resolve_files([args.file], args.root)
        snapshot = load_root(root, budget_config(args))
        original = _file(snapshot, rels[0])
    for leftover in left_behind():
        err_console().print(f"[yellow]memtui {args.verb}:[/] an edit of {esc(leftover.origin or leftover.copy.name)} "
                            f"that never reached its folder is kept at {esc(str(leftover.copy))}")
    try:
        edited = edit_copy(original.name, original.data, origin=str(root / rels[0]))
    except EditorFailed as exc:
        return fail(args, str(exc), EXIT_USAGE)

    def kept(code: int) -> int:
        err_console().print(f"[yellow]memtui {args.verb}:[/] your edited copy is kept at "
                            f"{esc(str(edited.copy))}")
        return code

    if edited.status != 0:
        code = fail(args, f"the editor {edited.exit_text}; nothing changed", EXIT_USAGE)
        return kept(code) if edited.kept else code
    if not edited.changed:
        edited.discard()
        return fail(args, f"'{rels[0]}' is unchanged", EXIT_OK)
    changeset = edit_file(snapshot, rels[0], edited.data)

    def build(fresh: Snapshot) -> Changeset:
        try:
            apply_to_snapshot(fresh, changeset.ops)
        except ChangesetError:
            raise write.ChangedOnDisk(
                f"changed on disk — '{rels[0]}' changed while it was open in the editor; "
                "nothing was written", (rels[0],)) from None
        return changeset

    try:
        code = apply_changeset(args, root, build)
    except Exit as exc:
        return kept(exc.code)
    if code != EXIT_OK:
        return kept(code)
    edited.discard()
    return code
