"""Promotion across layers (DESIGN §11): move a fact from one memory root into another.

:func:`promotion` builds the two changesets (pure); :mod:`memtui.core.write.group` gates both and
writes them as one change.  What each root gets:

- **target** — the file, created at the same root-relative path, with one frontmatter line
  ``promoted_from: <source root>/<path>`` (``~`` for the home folder) and every other byte as it
  was, so the body is byte-identical; an entry at the top of Recent (Pinned for a pinned file).
- **source** — its entries for the file leave ``MEMORY.md``; the file moves, intact, into
  ``archive/`` (as a merge's sources do: nothing is ever erased, and undo is a plain move back);
  and the archive index lists it with a hook that points at the new home::

      - [Title](archive/x.md) — promoted to the shared layer on 2026-11-30 → [new home](file:///repo/memory/x.md); hook

  The entry reaches the archived copy (so the source validates), and the ``file://`` link, a
  link to somewhere else, is neither an entry nor checked as one.

A name already taken (:class:`Collision`: the path in the target, or ``archive/<path>`` in the
source) refuses the promotion before anything is planned; the gate refuses what would break
either root (the target's budget, a region in the source that would match nothing …).
"""

from __future__ import annotations

import os
from dataclasses import replace
from datetime import date
from pathlib import Path

from ..judge.layers import layer_of
from ..model.changeset import Changeset, Create, Move, VerbError
from ..model.frontmatter import set_key
from ..model.index_edit import new_entry, one_line
from ..model.snapshot import ARCHIVE_DIR, Snapshot, encode_text
from ..write import open_root
from .lifecycle import _draft, _draft_op, hook_for, normalize_path  # the verbs' index drafts

PROMOTED_FROM = "promoted_from"


class Collision(VerbError):
    """The target root already holds a file at the promoted file's path."""


def home_abbreviated(path: Path | str, home: str | None = None) -> str:
    """An absolute path with the home folder written ``~`` (how ``promoted_from`` names it)."""
    text = str(path)
    home = home if home is not None else os.path.expanduser("~")
    if home and home != "/" and (text == home or text.startswith(home.rstrip("/") + "/")):
        return "~" + text[len(home.rstrip("/")):]
    return text


def forwarding_hook(new_home: Path, layer: str, hook: str, today: date) -> str:
    """The archive-index hook a source keeps for a promoted file: where it went, and when."""
    where = f"the {layer} layer" if layer != "other" else home_abbreviated(new_home.parent)
    tail = f"; {one_line(hook)}" if hook else ""
    return (f"promoted to {where} on {today.isoformat()} → "
            f"[new home]({new_home.absolute().as_uri()}){tail}")


def promotion(source: Snapshot, path: str, target: Snapshot, *, today: date | None = None,
              hook: str | None = None) -> tuple[Changeset, Changeset]:
    """The source's and the target's changesets that move ``path`` from ``source`` to ``target``."""
    today = today or date.today()
    path = normalize_path(path)
    f = source.files.get(path)
    if f is None:
        raise VerbError(f"no memory file '{path}' in {source.root}")
    if os.path.realpath(source.root) == os.path.realpath(target.root):
        raise VerbError(f"'{path}' is already in {target.root}")
    if path.startswith(ARCHIVE_DIR + "/") or f.status == "archived":
        raise VerbError(f"'{path}' is archived; restore it before promoting it")
    if path in target.files or path in target.other_files:
        raise Collision(f"{target.root} already holds '{path}'; rename one of them (or merge "
                        "them) before promoting")
    archived = f"{ARCHIVE_DIR}/{path}"
    if archived in source.files:
        raise Collision(f"'{archived}' already exists in {source.root}; rename one of them first")
    hook = one_line(hook) if hook else hook_for(source, f)
    text = set_key(f.text, PROMOTED_FROM, home_abbreviated(Path(source.root).absolute() / path))
    entry = new_entry(replace(f, text=text), hook)
    index = _draft(target)
    if f.pinned:
        index.add_pinned(entry)
    else:
        index.add_recent(entry)
    description = (f"promote {path} from {home_abbreviated(source.root)} into "
                   f"{home_abbreviated(target.root)}")
    into = Changeset("promote", description,
                     (Create(path, encode_text(text)), *_draft_op(index)))

    new_home = Path(target.root).absolute() / path
    out_of = forwarded(source, path, new_home, layer_of(target.root), hook, today, description)
    return out_of, into


def forwarded(source: Snapshot, path: str, new_home: Path, layer: str, hook: str, today: date,
              description: str) -> Changeset:
    """The source's half of a promotion: ``path``'s entries leave ``MEMORY.md``, the file moves
    into ``archive/``, and the archive index lists it with a hook pointing at ``new_home`` (also
    what a copy of the promoted fact in a third root gets: :mod:`memtui.core.verbs.relearned`)."""
    f = source.files[path]
    archived = f"{ARCHIVE_DIR}/{path}"
    if archived in source.files:
        raise Collision(f"'{archived}' already exists in {source.root}; rename one of them first")
    active = _draft(source)
    active.remove_entries(path)
    archive = _draft(source, archive=True)
    archive.remove_entries(path)
    archive.append_entry(new_entry(replace(f, path=archived),
                                   forwarding_hook(new_home, layer, hook, today)))
    return Changeset("promote", description,
                     (Move(path, archived), *_draft_op(active), *_draft_op(archive)))


def promotion_parts(source: Snapshot, path: str, target_root: Path | str, *,
                    hook: str | None = None) -> list[tuple[Snapshot, Changeset]]:
    """Both roots' snapshots and changesets for a promotion (the target is recovered and read
    now, with the source's budget caps): what :func:`memtui.core.write.plan_group` takes."""
    target = open_root(target_root, source.config)
    out_of, into = promotion(source, path, target, hook=hook)
    return [(source, out_of), (target, into)]
