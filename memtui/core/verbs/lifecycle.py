"""The lifecycle verbs (DESIGN §4): pure functions from a snapshot to a :class:`Changeset`.

Each verb checks its preconditions (a :class:`VerbError` says what to do instead), then builds
the operations and a one-line description.  Nothing here touches the disk: the CLI and the app
hand the changeset to :mod:`memtui.core.write`, which gates it and writes it.  Frontmatter edits
change one line (:func:`~memtui.core.model.frontmatter.set_key`); index edits leave every other line
byte for byte as it was (:mod:`memtui.core.model.index_edit`).

Decisions where DESIGN is silent:

- ``archive`` moves ``x.md`` to ``archive/x.md`` (sub-folders kept: ``a/x.md`` →
  ``archive/a/x.md``), so provenance names still resolve; it changes nothing in the file except
  clearing ``pinned``.  ``restore`` moves it back, clears ``status: archived`` if present, and
  puts the entry at the top of Recent.
- ``unpin`` moves the entry from the Pinned block to the top of Recent, and drops the Pinned
  heading when the block is left empty.
- ``decay`` and ``supersede`` keep the file reachable: a region glob that matches it is enough,
  else an entry is added to ``MEMORY-archive.md`` (created when missing).
- ``supersede`` puts the successor in the old entry's place when it had no entry of its own.
- ``remember`` writes the file at the root (or ``folder``) with ``name``, ``description``,
  ``type`` and ``created``; the description defaults to the body's first line.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import replace
from datetime import date
from itertools import repeat
from operator import methodcaller
from typing import Callable, Iterable

from ..model.changeset import (
    AlreadyDone,
    Changeset,
    Create,
    Move,
    Operation,
    Refusal,
    VerbError,
    Write,
    apply_to_snapshot,
)
from ..model.frontmatter import clear_key, parse_frontmatter, set_key
from ..model.index_edit import IndexDraft, new_entry, one_line, portable_raw, with_hook
from ..model.snapshot import (
    ARCHIVE_DIR,
    ARCHIVE_INDEX_NAME,
    INDEX_NAME,
    KNOWN_TYPES,
    Index,
    LineKind,
    MemoryFile,
    Snapshot,
    encode_text,
)
from ..rules.validate import covering_glob
from ..tidy.lines import keep_erased

SLUG_MAX = 80


# ---------------------------------------------------------------- helpers


def normalize_path(path: str) -> str:
    """A user-given root-relative path in the snapshot's form (``/`` separators, no ``./``)."""
    path = path.replace("\\", "/").strip()
    while path.startswith("./"):
        path = path[2:]
    return path


def _file(snapshot: Snapshot, path: str) -> MemoryFile:
    path = normalize_path(path)
    f = snapshot.files.get(path)
    if f is None:
        if path == INDEX_NAME or path.lower() == ARCHIVE_INDEX_NAME.lower():
            raise VerbError(f"'{path}' is an index file, not a memory file")
        raise VerbError(f"no memory file '{path}' in {snapshot.root}")
    return f


def _in_archive(path: str) -> bool:
    return path.startswith(ARCHIVE_DIR + "/")


def _superseded(f: MemoryFile) -> bool:
    return f.status == "superseded" or bool(f.frontmatter.names("superseded_by"))


def _clear_pinned(text: str) -> str:
    """``text`` without its ``pinned`` line; a block that held nothing else goes too (so pin then
    unpin of a file without frontmatter gives back its exact bytes)."""
    cleared = clear_key(text, "pinned")
    fm = parse_frontmatter(cleared)
    if cleared != text and fm.present and fm.closed and not fm.lines:
        start = 1 if cleared.startswith("\ufeff") else 0
        return cleared[:start] + cleared[fm.body_offset :]
    return cleared


def _text_write(f: MemoryFile, text: str) -> Write:
    return Write(f.path, encode_text(text), f.data)


def _draft(snapshot: Snapshot, archive: bool = False) -> IndexDraft:
    index = snapshot.archive_index if archive else snapshot.index
    if archive and not index.exists:
        index = Index(path=ARCHIVE_INDEX_NAME, exists=False)
    return IndexDraft(index, snapshot.files.__contains__)


def _draft_op(draft: IndexDraft) -> list[Operation]:
    if not draft.changed:
        return []
    if draft.existed:
        assert draft.original is not None
        return [Write(draft.path, draft.render(), draft.original)]
    return [Create(draft.path, draft.render())]


def hook_for(snapshot: Snapshot, f: MemoryFile) -> str:
    """The hook an entry for ``f`` should carry: an existing entry's, else the description."""
    for index in (snapshot.index, snapshot.archive_index):
        for line in index.entries:
            if line.resolved == f.path and line.hook:
                return line.hook
    return f.description or f.title


def region_covers(index: Index, path: str) -> bool:
    """Whether a region pointer of ``index`` covers ``path`` (the validator's reachability)."""
    return covering_glob(index, path) is not None


def _keep_reachable(snapshot: Snapshot, f: MemoryFile, hook: str, archive: IndexDraft) -> str:
    """After a file leaves the working set: nothing to do when a region or the archive index
    reaches it, else an archive-index entry.  Says how it stays reachable."""
    if region_covers(snapshot.index, f.path):
        return "a region pointer covers it"
    if archive.entries_for(f.path):
        return f"{archive.path} lists it"
    archive.append_entry(new_entry(f, hook))
    return f"listed in {archive.path}"


def compose(snapshot: Snapshot, builders: Iterable[Callable[[Snapshot], Changeset]]) -> Changeset:
    """Several verbs as one change (one journal record, one undo): each builds on the last."""
    total: Changeset | None = None
    current = snapshot
    for build in builders:
        changeset = build(current)
        current = apply_to_snapshot(current, changeset.ops).snapshot
        total = changeset if total is None else total.then(changeset)
    if total is None:
        raise VerbError("nothing to do")
    return total


# ---------------------------------------------------------------- pin / unpin


def pin(snapshot: Snapshot, path: str) -> Changeset:
    """Set ``pinned: true`` and give the file a direct entry in the Pinned block."""
    f = _file(snapshot, path)
    if _in_archive(f.path) or f.status == "archived":
        raise Refusal(f"'{f.path}' is archived; restore it before pinning")
    if _superseded(f):
        raise Refusal(f"'{f.path}' is superseded; pin its successor instead")
    draft = _draft(snapshot)
    entries = draft.entries_for(f.path)
    in_pinned = [line for line in entries if draft.in_block(line, "Pinned")]
    if f.pinned and in_pinned:
        raise AlreadyDone(f"'{f.path}' is already pinned")
    ops: list[Operation] = []
    if not f.pinned:
        ops.append(_text_write(f, set_key(f.text, "pinned", "true")))
    if not in_pinned:
        raw = portable_raw(entries[0], f, f.path) if entries else new_entry(f, hook_for(snapshot, f))
        draft.remove_entries(f.path)
        draft.add_pinned(raw)
    archive = _draft(snapshot, archive=True)
    if archive.remove_entries(f.path):
        ops += _draft_op(archive)
    ops += _draft_op(draft)
    return keep_erased(snapshot, Changeset("pin", f"pin {f.path}", tuple(ops)))


def unpin(snapshot: Snapshot, path: str) -> Changeset:
    """Clear ``pinned``; the entry moves from the Pinned block to the top of Recent."""
    f = _file(snapshot, path)
    if not f.pinned:
        raise AlreadyDone(f"'{f.path}' is not pinned")
    ops: list[Operation] = [_text_write(f, _clear_pinned(f.text))]
    draft = _draft(snapshot)
    in_pinned = [line for line in draft.entries_for(f.path) if draft.in_block(line, "Pinned")]
    if in_pinned:
        raw = portable_raw(in_pinned[0], f, f.path)
        draft.remove_entries(f.path)
        draft.add_recent(raw)
    ops += _draft_op(draft)
    return keep_erased(snapshot, Changeset("unpin", f"unpin {f.path}", tuple(ops)))


# ---------------------------------------------------------------- decay / promote


def decay(snapshot: Snapshot, path: str) -> Changeset:
    """Drop a file's entry from the working set; the file stays put and stays reachable."""
    f = _file(snapshot, path)
    if f.pinned:
        raise Refusal(f"'{f.path}' is pinned; unpin it first (pinned files never decay)")
    if _in_archive(f.path):
        raise AlreadyDone(f"'{f.path}' is archived, already out of the working set")
    draft = _draft(snapshot)
    removed = draft.remove_entries(f.path)
    if not removed:
        raise AlreadyDone(f"'{f.path}' has no entry in {INDEX_NAME}; it is not in the working set")
    archive = _draft(snapshot, archive=True)
    how = _keep_reachable(snapshot, f, removed[0].hook or f.description or f.title, archive)
    ops = _draft_op(draft) + _draft_op(archive)
    return keep_erased(snapshot, Changeset("decay", f"decay {f.path} ({how})", tuple(ops)))


def promote(snapshot: Snapshot, path: str, hook: str | None = None) -> Changeset:
    """Give a file an entry at the top of Recent, removing any archive-index entry."""
    f = _file(snapshot, path)
    if _in_archive(f.path) or f.status == "archived":
        raise Refusal(f"'{f.path}' is archived; restore it instead")
    draft = _draft(snapshot)
    if draft.entries_for(f.path):
        raise AlreadyDone(f"'{f.path}' is already in the working set")
    draft.add_recent(new_entry(f, hook if hook else hook_for(snapshot, f)))
    archive = _draft(snapshot, archive=True)
    archive.remove_entries(f.path)
    ops = _draft_op(draft) + _draft_op(archive)
    return Changeset("promote", f"promote {f.path} to Recent", tuple(ops))


# ---------------------------------------------------------------- archive / restore


def archive(snapshot: Snapshot, path: str, confirm: bool = False) -> Changeset:
    """Move a file into ``archive/``: its entries leave MEMORY.md and the archive index lists it."""
    f = _file(snapshot, path)
    if _in_archive(f.path):
        raise AlreadyDone(f"'{f.path}' is already archived")
    if f.pinned and not confirm:
        raise Refusal(f"'{f.path}' is pinned; archiving it needs confirmation (--yes), and unpins it")
    dst = f"{ARCHIVE_DIR}/{f.path}"
    if dst in snapshot.files:
        raise Refusal(f"'{dst}' already exists; rename one of them first")
    hook = hook_for(snapshot, f)
    ops: list[Operation] = []
    if f.pinned:
        ops.append(_text_write(f, _clear_pinned(f.text)))
    ops.append(Move(f.path, dst))
    draft = _draft(snapshot)
    draft.remove_entries(f.path)
    archive_draft = _draft(snapshot, archive=True)
    archive_draft.remove_entries(f.path)
    moved = replace(f, path=dst)
    archive_draft.append_entry(new_entry(moved, hook))
    ops += _draft_op(draft) + _draft_op(archive_draft)
    note = " (unpinned)" if f.pinned else ""
    return Changeset("archive", f"archive {f.path} → {dst}{note}", tuple(ops))


def restore(snapshot: Snapshot, path: str) -> Changeset:
    """Move an archived file back out of ``archive/`` with an entry at the top of Recent."""
    path = normalize_path(path)
    src = path
    if src not in snapshot.files and f"{ARCHIVE_DIR}/{path}" in snapshot.files:
        src = f"{ARCHIVE_DIR}/{path}"
    f = _file(snapshot, src)
    if not _in_archive(f.path) and f.status != "archived":
        raise Refusal(f"'{f.path}' is not archived")
    dst = f.path[len(ARCHIVE_DIR) + 1 :] if _in_archive(f.path) else f.path
    if dst != f.path and dst in snapshot.files:
        raise Refusal(f"'{dst}' exists; rename one of them before restoring '{f.path}'")
    hook = hook_for(snapshot, f)
    ops: list[Operation] = []
    text = clear_key(f.text, "status") if f.status == "archived" else f.text
    if text != f.text:
        ops.append(_text_write(f, text))
    if dst != f.path:
        ops.append(Move(f.path, dst))
    archive_draft = _draft(snapshot, archive=True)
    archive_draft.remove_entries(f.path)
    draft = _draft(snapshot)
    draft.remove_entries(f.path)
    draft.add_recent(new_entry(replace(f, path=dst), hook))
    ops += _draft_op(draft) + _draft_op(archive_draft)
    return Changeset("restore", f"restore {f.path} → {dst}", tuple(ops))


# ---------------------------------------------------------------- supersede


def supersede(snapshot: Snapshot, old: str, new: str, confirm: bool = False) -> Changeset:
    """Mark ``old`` obsolete in favour of ``new`` (breadcrumbs both ways); ``old`` leaves the
    working set, and ``new`` takes its place there if it had no entry."""
    old_f, new_f = _file(snapshot, old), _file(snapshot, new)
    if old_f.path == new_f.path:
        raise VerbError("a file cannot supersede itself")
    if _in_archive(new_f.path) or new_f.status == "archived":
        raise Refusal(f"'{new_f.path}' is archived; restore it before it can supersede anything")
    if old_f.frontmatter.names("superseded_by"):
        already = ", ".join(old_f.frontmatter.names("superseded_by"))
        raise Refusal(f"'{old_f.path}' is already superseded by {already}")
    if old_f.pinned and not confirm:
        raise Refusal(f"'{old_f.path}' is pinned; superseding it needs confirmation (--yes), and unpins it")
    text = old_f.text
    if old_f.pinned:
        text = _clear_pinned(text)
    text = set_key(text, "status", "superseded")
    text = set_key(text, "superseded_by", new_f.path)
    ops: list[Operation] = [_text_write(old_f, text)]
    names = list(new_f.frontmatter.names("supersedes"))
    if old_f.path not in names:
        ops.append(_text_write(new_f, set_key(new_f.text, "supersedes", ", ".join(names + [old_f.path]))))
    draft = _draft(snapshot)
    old_entries = draft.entries_for(old_f.path)
    hook = old_entries[0].hook if old_entries else old_f.description or old_f.title
    archive_draft = _draft(snapshot, archive=True)
    if old_entries:
        position = old_entries[0].number - 1
        draft.remove_entries(old_f.path)
        if not draft.entries_for(new_f.path):
            draft.insert(position, [new_entry(new_f, hook_for(snapshot, new_f))])
            archive_draft.remove_entries(new_f.path)  # the successor is in the working set now
        _keep_reachable(snapshot, old_f, hook, archive_draft)
    ops += _draft_op(draft) + _draft_op(archive_draft)
    return keep_erased(snapshot, Changeset("supersede", f"supersede {old_f.path} by {new_f.path}", tuple(ops)))


# ---------------------------------------------------------------- edit


def edit_hook(snapshot: Snapshot, path: str, hook: str) -> Changeset:
    """Change the hook of a file's entry (MEMORY.md first, else the archive index)."""
    f = _file(snapshot, path)
    hook = one_line(hook)
    if not hook:
        raise VerbError("the new hook is empty; an entry needs a few words saying what it holds")
    for archive_side in (False, True):
        draft = _draft(snapshot, archive=archive_side)
        entries = draft.entries_for(f.path)
        if entries:
            line = entries[0]
            try:
                raw = with_hook(line.raw, hook)
            except ValueError:
                raise VerbError(f"cannot find the link in line {line.number} of {draft.path}") from None
            if raw == line.raw:
                raise Refusal(f"the entry for '{f.path}' already has that hook")
            draft.items[line.number - 1] = (raw, draft.items[line.number - 1][1])
            return keep_erased(snapshot, Changeset("edit", f"new hook for {f.path}", tuple(_draft_op(draft))),
                               "hooks replaced by an edit (the lines before)")
    raise Refusal(f"'{f.path}' has no entry to edit; promote it first")


def edit_file(snapshot: Snapshot, path: str, data: bytes) -> Changeset:
    """Replace a memory file's bytes (the result of editing it in ``$EDITOR``)."""
    f = _file(snapshot, path)
    if data == f.data:
        raise Refusal(f"'{f.path}' is unchanged")
    return Changeset("edit", f"edit {f.path}", (Write(f.path, data, f.data),))


def update(snapshot: Snapshot, path: str, body: str | None = None, hook: str | None = None,
           today: date | None = None) -> Changeset:
    """Replace a file's body (its frontmatter block kept byte for byte, but ``updated:`` set to
    ``today``, and ``modified:`` where Claude Code wrote one, so its age says it changed), and/or
    its entry's hook (:func:`edit_hook`) — one change.  The agent's ``memory_update``."""
    if body is None and hook is None:
        raise VerbError("give the new body, the new hook, or both")
    f = _file(snapshot, path)
    if _in_archive(f.path) or f.status == "archived":
        raise Refusal(f"'{f.path}' is archived; restore it first (memory_restore), or remember a new note")
    changes: list[Changeset] = []
    if body is not None:
        if not body.strip():
            raise VerbError("the new body is empty; archive the note instead if it no longer holds")
        head = f.text[: f.frontmatter.body_offset]
        nl = "\r\n" if "\r\n" in f.text else "\n"
        new_body = body.strip("\n").replace("\r\n", "\n").replace("\n", nl) + nl
        if head and not head.endswith(nl + nl) and f.frontmatter.present:
            new_body = nl + new_body  # a blank line after the block, as remember writes it
        if (head + new_body).rstrip() == f.text.rstrip():
            if hook is None:
                raise AlreadyDone(f"'{f.path}' already holds that text")
        else:
            day = (today or date.today()).isoformat()
            text = set_key(head + new_body, "updated", day)
            if f.frontmatter.get("modified").strip():
                from datetime import datetime, timezone

                stamp = datetime.now(timezone.utc).isoformat(timespec="milliseconds").replace("+00:00", "Z")
                text = set_key(text, "modified", stamp)
            changes.append(Changeset("update", f"update {f.path}", (_text_write(f, text),)))
    if hook is not None:
        after = apply_to_snapshot(snapshot, changes[0].ops).snapshot if changes else snapshot
        changes.append(edit_hook(after, f.path, hook))
    out = changes[0] if len(changes) == 1 else changes[0].then(changes[1])
    what = " and ".join(w for w, given in (("body", body is not None and changes[0].verb == "update"),
                                          ("hook", hook is not None)) if given)
    return replace(out, verb="update", description=f"update {f.path} ({what})")


def drop_line(snapshot: Snapshot, index_path: str, number: int) -> Changeset:
    """Remove one entry or region line from an index (the fix for a broken link or an empty
    region); every other byte of the index stays."""
    archive_side = index_path == snapshot.archive_index.path
    index = snapshot.archive_index if archive_side else snapshot.index
    if not index.exists or not 1 <= number <= len(index.lines):
        raise VerbError(f"{index_path} has no line {number}")
    line = index.lines[number - 1]
    if line.kind not in (LineKind.ENTRY, LineKind.REGION):
        raise VerbError(f"line {number} of {index_path} is not an entry or a region pointer")
    draft = _draft(snapshot, archive=archive_side)
    draft.remove([number - 1])
    shown = line.raw.strip()
    shown = shown if len(shown) <= 60 else shown[:59] + "…"
    return keep_erased(snapshot, Changeset("drop-line", f"remove line {number} of {index.path}: {shown}",
                                           tuple(_draft_op(draft))))


# ---------------------------------------------------------------- remember


def slugify(title: str) -> str:
    """Lowercase; every run of other characters becomes '_'; at most 80 characters.  Accented
    letters lose their accents first (``Über café`` → ``uber_cafe``)."""
    folded = unicodedata.normalize("NFKD", title.lower())
    folded = "".join(ch for ch in folded if not unicodedata.combining(ch))
    slug = re.sub(r"[^a-z0-9]+", "_", folded).strip("_")
    return slug[:SLUG_MAX].rstrip("_")


def _free_name(snapshot: Snapshot, folder: str, slug: str, today: date) -> str:
    def taken(name: str) -> bool:
        path = folder + name
        return path in snapshot.files or f"{ARCHIVE_DIR}/{path}" in snapshot.files or \
            path in snapshot.other_files or path.lower() in (INDEX_NAME.lower(), ARCHIVE_INDEX_NAME.lower())

    name = f"{slug}.md"
    if not taken(name):
        return folder + name
    stamp = today.isoformat()
    name = f"{slug}_{stamp}.md"
    n = 2
    while taken(name):
        name = f"{slug}_{stamp}-{n}.md"
        n += 1
    return folder + name


#: what a file named after its type starts with (``feedback_``, ``project_`` …)
_TYPED_PREFIXES = tuple(sorted(f"{t}_" for t in KNOWN_TYPES))


def _names_by_type(snapshot: Snapshot, folder: str) -> bool:
    """Whether most files of ``folder`` are named after their type (``feedback_use_go_vet.md``).

    A file's type is read only when its name starts like a type's (most names of a large root
    do not: a tenth of the time of reading every type at 10,000 files), and only until the
    answer is known."""
    files = snapshot.files
    cut = len(folder)
    if cut:
        inside = [path for path in files if path.startswith(folder) and path.find("/", cut) < 0]
        total = len(inside)
        typed_names = [path for path in inside if path.startswith(_TYPED_PREFIXES, cut)]
    else:  # the root's own files: counted without a step of Python per file
        paths = list(files)
        total = len(paths) - sum(map(str.__contains__, paths, repeat("/")))
        typed_names = [path for path in filter(methodcaller("startswith", _TYPED_PREFIXES), paths)
                       if "/" not in path]
    if total < 3 or len(typed_names) * 2 <= total:
        return False
    typed = 0
    for path in typed_names:
        kind = files[path].type
        typed += kind in KNOWN_TYPES and path.startswith(f"{kind}_", cut)
        if typed * 2 > total:  # the answer is known
            return True
    return False


def remember(
    snapshot: Snapshot,
    title: str,
    body: str = "",
    type_: str = "project",
    description: str = "",
    today: date | None = None,
    folder: str = "",
) -> Changeset:
    """Create a new memory file with frontmatter, and an entry at the top of Recent."""
    today = today or date.today()
    title = one_line(title)
    slug = slugify(title)
    if not slug:
        raise VerbError("the title needs at least one letter or digit to make a file name")
    type_ = type_.strip().lower()
    if type_ not in KNOWN_TYPES:
        raise VerbError(f"type '{type_}' is not one of {', '.join(sorted(KNOWN_TYPES))}")
    folder = normalize_path(folder).strip("/")
    folder = folder + "/" if folder else ""
    if folder.startswith(ARCHIVE_DIR + "/") or any(p.startswith(".") for p in folder.split("/") if p):
        raise VerbError(f"cannot remember into '{folder}'")
    description = one_line(description)
    if not description:
        first = next((ln.strip().lstrip("#").strip() for ln in body.splitlines() if ln.strip()), "")
        description = (first[:117] + "…") if len(first) > 120 else (first or title)
    if _names_by_type(snapshot, folder) and not slug.startswith(f"{type_}_"):
        slug = f"{type_}_{slug}"  # the folder names its files feedback_…, project_…: so does this one
    path = _free_name(snapshot, folder, slug, today)
    text = (
        f"---\nname: {title}\ndescription: {description}\ntype: {type_}\n"
        f"created: {today.isoformat()}\n---\n\n"
    )
    if body.strip():
        text += body.strip("\n") + "\n"
    data = encode_text(text)
    f = MemoryFile(path=path, size=len(data), mtime=0.0, text=text, frontmatter=parse_frontmatter(text))
    draft = _draft(snapshot)
    draft.add_recent(new_entry(f, description))
    ops: list[Operation] = [Create(path, data)] + _draft_op(draft)
    return Changeset("remember", f"remember {path}", tuple(ops))


# ---------------------------------------------------------------- rebuild

from ..tidy.rebuild import NothingToRebuild, rebuild  # noqa: E402  (one place for every verb)

__all__ = [
    "NothingToRebuild",
    "VerbError",
    "archive",
    "compose",
    "decay",
    "edit_file",
    "edit_hook",
    "normalize_path",
    "pin",
    "promote",
    "rebuild",
    "remember",
    "restore",
    "slugify",
    "supersede",
    "unpin",
    "update",
]
