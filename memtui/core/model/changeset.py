"""Changesets: the only vocabulary for changing a memory root — write, create, move.

There is no delete.  A changeset is an ordered tuple of operations; each operation sees the
state the earlier ones left (so ``Write(a)`` then ``Move(a, archive/a)`` rewrites and then moves
a file).  :func:`apply_to_snapshot` plays a changeset on an in-memory copy of a snapshot, which
is what the gate validates before :mod:`memtui.core.write` writes anything.

Paths are root-relative with ``/`` separators.  Operations may touch memory files (``*.md``
outside dot-folders and nested roots) and the two index files; a move may also send a file into
``.memtui/attic/`` (how undo takes back a file a change created, without erasing it).
"""

from __future__ import annotations

import posixpath
import time
from collections.abc import Iterable, Iterator, MutableMapping
from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Any, Callable

from .frontmatter import parse_frontmatter
from .index import parse_index
from .journal import Author, JournalError, decode_value, encode_bytes
from .lazyfiles import LazyFiles
from .snapshot import (
    ARCHIVE_INDEX_NAME,
    INDEX_NAME,
    Index,
    MemoryFile,
    Snapshot,
    decode_bytes,
)

if TYPE_CHECKING:
    from .linediff import FileDiff

ATTIC_DIR = ".memtui/attic"


class ChangesetError(ValueError):
    """A changeset that does not fit the snapshot it is applied to (a bug in its builder)."""


class OutsidePath(ChangesetError):
    """A change would write through a symlink leading outside the root (a hostile folder, often)."""


class VerbError(ValueError):
    """A verb's precondition does not hold; the message says why and what to do instead."""


class Refusal(VerbError):
    """The folder's state refuses the verb (decay of a pinned file, restore of one that is not
    archived …): a refusal with its reason (exit 1), not a mistake in the command (exit 2)."""


class AlreadyDone(Refusal):
    """The folder is already as the verb would leave it (pin of a pinned file, decay of one out
    of the working set …): nothing to do, said as a notice (exit 0), not a refusal."""


@dataclass(frozen=True)
class Write:
    """Replace a file's bytes; ``expected`` is what the file holds before this operation."""

    path: str
    data: bytes
    expected: bytes

    def to_json(self) -> dict[str, object]:
        return {"op": "write", "path": self.path, "bytes": len(self.data)}


@dataclass(frozen=True)
class Create:
    """Create a file that does not exist yet (never overwrites)."""

    path: str
    data: bytes

    def to_json(self) -> dict[str, object]:
        return {"op": "create", "path": self.path, "bytes": len(self.data)}


@dataclass(frozen=True)
class Move:
    """Move a file, intact, to a path where nothing exists yet (parent folders are created)."""

    src: str
    dst: str

    def to_json(self) -> dict[str, object]:
        return {"op": "move", "path": self.src, "to": self.dst}


Operation = Write | Create | Move


def op_to_json(op: Operation) -> dict[str, Any]:
    """An operation as a journal record holds it."""
    if isinstance(op, Write):
        return {"op": "write", "path": op.path, "data": encode_bytes(op.data),
                "expected": encode_bytes(op.expected)}
    if isinstance(op, Create):
        return {"op": "create", "path": op.path, "data": encode_bytes(op.data)}
    return {"op": "move", "src": op.src, "dst": op.dst}


def op_from_json(value: dict[str, Any]) -> Operation:
    """The operation a record holds; :class:`JournalError` if it is malformed."""
    if not isinstance(value, dict):
        raise JournalError(f"operation {str(value)[:40]!r} is not an object")
    kind = value.get("op")

    def path(name: str) -> str:
        found = value.get(name)
        if not isinstance(found, str) or not found:
            raise JournalError(f"{kind} operation without a '{name}' path")
        return found

    def data(name: str) -> bytes:
        found = decode_value(value.get(name))
        if found is None:
            raise JournalError(f"{kind} operation on '{value.get('path')}' without '{name}' bytes")
        return found

    if kind == "write":
        return Write(path("path"), data("data"), data("expected"))
    if kind == "create":
        return Create(path("path"), data("data"))
    if kind == "move":
        return Move(path("src"), path("dst"))
    raise JournalError(f"unknown operation {kind!r}")



@dataclass(frozen=True)
class Changeset:
    """What a verb wants done: its operations and a one-line description for people."""

    verb: str
    description: str
    ops: tuple[Operation, ...] = ()
    diff: str = ""  # a unified diff, filled in where showing it first is the point (rebuild)
    #: who asked for it, journaled with it (None: a person; the agent through ``memtui mcp``)
    by: Author | None = None

    def then(self, other: Changeset) -> Changeset:
        """This changeset followed by ``other`` (built on this one's result), as one change."""
        description = "; ".join(d for d in (self.description, other.description) if d)
        return Changeset(self.verb or other.verb, description, self.ops + other.ops, "",
                         self.by or other.by)

    @property
    def paths(self) -> tuple[str, ...]:
        """Every path an operation touches, in order of first touch."""
        seen: dict[str, None] = {}
        for op in self.ops:
            for path in (op.src, op.dst) if isinstance(op, Move) else (op.path,):
                seen.setdefault(path, None)
        return tuple(seen)

    def to_json(self) -> list[dict[str, object]]:
        return [op.to_json() for op in self.ops]


def is_archive_index(path: str) -> bool:
    return path.lower() == ARCHIVE_INDEX_NAME.lower()


def is_index(path: str) -> bool:
    return path == INDEX_NAME or is_archive_index(path)


def in_attic(path: str) -> bool:
    return path.startswith(ATTIC_DIR + "/")


def check_path(snapshot: Snapshot, path: str, attic_ok: bool = False) -> None:
    """Refuse a path an operation may not touch (outside the root, hidden, not Markdown …)."""
    if attic_ok and in_attic(path):
        rest = path[len(ATTIC_DIR) + 1 :]
        if rest and ".." not in rest.split("/"):
            return
    parts = path.split("/")
    if not path or path.startswith("/") or "\\" in path or any(p in ("", ".", "..") for p in parts):
        raise ChangesetError(f"'{path}' is not a plain path inside the root")
    if any(p.startswith(".") for p in parts):
        raise ChangesetError(f"'{path}' is hidden (dot-files are never memory)")
    if not path.lower().endswith(".md"):
        raise ChangesetError(f"'{path}' is not a Markdown memory file")
    if path in snapshot.outside:
        raise OutsidePath(f"'{path}' is a symlink leading outside the root; memtui does not "
                          "write through it — replace it by a real file")
    skipped = next((s for s in snapshot.skipped if s.path == path), None) if is_index(path) else None
    if skipped is not None:  # a FIFO, a device, a folder, an unreadable file …: said as it is
        reason = skipped.reason.removesuffix("; not read")
        raise OutsidePath(f"'{path}' cannot be changed: {reason} — replace it by a regular file")
    for nested in snapshot.nested_roots:
        if path.startswith(nested + "/"):
            raise ChangesetError(f"'{path}' belongs to the nested root '{nested}'")
    if len(parts) > 1 and parts[-1] == INDEX_NAME:
        raise ChangesetError(f"'{path}' would make a nested memory root")


@dataclass(frozen=True)
class Result:
    """A changeset played on a snapshot: the snapshot after, and what the disk must hold first."""

    snapshot: Snapshot
    initial: dict[str, bytes | None]  # path -> bytes it must have on disk now (None: absent)
    written: frozenset[str]  # memory files whose content or path is new in the result
    added: frozenset[str] = field(default_factory=frozenset)  # memory-file paths that appear
    removed: frozenset[str] = field(default_factory=frozenset)  # memory-file paths that go


def _index_bytes(index: Index) -> bytes | None:
    return index.render() if index.exists else None


_PARSED: list[tuple[str, bytes, Index]] = []
#: how many parsed indexes are kept by their bytes (a plan builds a step, then gates it, on the
#: same bytes); few, as a long index's parse is large
PARSED_KEPT = 2


def _parsed(data: bytes, path: str, exists: Callable[[str], bool]) -> Index:
    """``parse_index(data, path, exists)``, reusing a recent parse of the same bytes when no
    Memory base made it ask ``exists`` (the only thing besides the bytes a parse reads)."""
    kept = _PARSED[:]  # one copy: the app's workers plan too
    for kept_path, kept_data, index in kept:
        if kept_path == path and (kept_data is data or kept_data == data):
            return index
    index = parse_index(data, path, exists)
    if type(data) is bytes:  # what render() gives back: the bytes parsed (not joined again)
        object.__setattr__(index, "_rendered", data)
    if not any(scope.memory_base for scope in index.scopes):
        _PARSED[:] = [(path, data, index)] + kept[:PARSED_KEPT - 1]
    return index


def apply_to_snapshot(snapshot: Snapshot, ops: tuple[Operation, ...] | list[Operation]) -> Result:
    """Play operations on a copy of the snapshot (pure: the disk is never read)."""
    files = snapshot.files
    archive_name = snapshot.archive_index.path
    state: dict[str, bytes | None] = {}  # overlay of touched paths
    initial: dict[str, bytes | None] = {}

    def key(path: str) -> str:
        return archive_name if is_archive_index(path) else path

    def current(path: str) -> bytes | None:
        if path in state:
            return state[path]
        if path == INDEX_NAME:
            value = _index_bytes(snapshot.index)
        elif path == archive_name:
            value = _index_bytes(snapshot.archive_index)
        else:
            f = files.get(path)
            value = f.data if f is not None else None
        initial.setdefault(path, value)
        return value

    moved_from: dict[str, str] = {}  # dst -> original path (to keep mode and mtime)
    for op in ops:
        if isinstance(op, Write):
            check_path(snapshot, op.path)
            path = key(op.path)
            now = current(path)
            if now is None:
                raise ChangesetError(f"cannot write '{op.path}': it does not exist")
            if now != op.expected:
                raise ChangesetError(f"cannot write '{op.path}': it is not what the change expects")
            state[path] = op.data
        elif isinstance(op, Create):
            check_path(snapshot, op.path)
            path = key(op.path)
            if current(path) is not None:
                raise ChangesetError(f"cannot create '{op.path}': it exists")
            state[path] = op.data
        elif isinstance(op, Move):
            check_path(snapshot, op.src)
            check_path(snapshot, op.dst, attic_ok=True)
            if is_index(op.dst) or (is_index(op.src) and not in_attic(op.dst)):
                raise ChangesetError("index files are rewritten, never moved (except into the attic)")
            src = key(op.src)
            data = current(src)
            if data is None:
                raise ChangesetError(f"cannot move '{op.src}': it does not exist")
            if current(op.dst) is not None:
                raise ChangesetError(f"cannot move '{op.src}' to '{op.dst}': that exists")
            state[src] = None
            state[op.dst] = data
            moved_from[op.dst] = moved_from.pop(src, src)
        else:  # pragma: no cover - exhaustive
            raise ChangesetError(f"unknown operation {op!r}")

    new_files: MutableMapping[str, MemoryFile] = (
        files.copy() if isinstance(files, LazyFiles) else dict(files))
    written: set[str] = set()
    added: set[str] = set()
    removed: set[str] = set()
    now_time = time.time()
    index_data: bytes | None = None
    archive_data: bytes | None = None
    index_touched = archive_touched = False
    for path, data in state.items():
        if path == INDEX_NAME:
            index_touched, index_data = True, data
            continue
        if path == archive_name:
            archive_touched, archive_data = True, data
            continue
        if in_attic(path):
            continue
        old = files.get(path)
        if data is None:
            if old is not None:
                del new_files[path]
                removed.add(path)
            continue
        origin = files.get(moved_from.get(path, path))
        if old is not None and old.data == data:
            continue
        if origin is not None and origin.data == data:
            new_files[path] = replace(origin, path=path)
        else:
            text = decode_bytes(data)
            new_files[path] = MemoryFile(
                path=path,
                size=len(data),
                mtime=now_time,
                text=text,
                frontmatter=parse_frontmatter(text),
                mode=origin.mode if origin is not None else 0o644,
            )
        written.add(path)
        if old is None:
            added.add(path)
    if (added or removed) and not isinstance(new_files, LazyFiles):  # a LazyFiles stays sorted
        new_files = dict(sorted(new_files.items()))
    exists = new_files.__contains__
    # which files exist matters to a parse only for entries under a Memory base
    files_changed = bool(added or removed)

    def depends(parsed: Index) -> bool:
        return files_changed and any(scope.memory_base for scope in parsed.scopes)

    index = snapshot.index
    if index_touched or depends(index):
        data = index_data if index_touched else _index_bytes(index)
        index = _parsed(data, INDEX_NAME, exists) if data is not None else Index(INDEX_NAME, False)
    archive = snapshot.archive_index
    if archive_touched or depends(archive):
        data = archive_data if archive_touched else _index_bytes(archive)
        archive = (
            _parsed(data, archive_name, exists) if data is not None else Index(archive_name, False)
        )
    after = replace(snapshot, index=index, archive_index=archive, files=new_files)
    return Result(after, initial, frozenset(written), frozenset(added), frozenset(removed))


def unified_diff(snapshot: Snapshot, changeset: Changeset, context: int = 3) -> str:
    """A unified diff of what the changeset does to each file (moves as rename lines), after
    checking that its operations fit ``snapshot``."""
    apply_to_snapshot(snapshot, changeset.ops)  # validates the operations
    return "".join(diff_lines(changeset.ops, context))


def diff_lines(ops: Iterable[Operation], context: int = 3) -> Iterator[str]:
    """The lines of the unified diff of ``ops`` (moves as rename lines), each ending in a line
    feed, made as they are read: a write names the bytes it replaces, so no snapshot is needed
    (nor parsed again) to say what changed."""
    for header, hunks in diff_files(ops, context):
        started = False
        for hunk in hunks:
            if not started:
                started = True
                yield from header
            for line in hunk.lines():
                if line.endswith("\n"):
                    yield line
                else:
                    yield line + "\n"
                    yield "\\ No newline at end of file\n"


def diff_files(ops: Iterable[Operation], context: int = 3) -> Iterator[FileDiff]:
    """:func:`diff_lines` as each operation's header and hunks (a move is one hunk of two
    rename lines), for a reader that shows the first hunks and counts the rest."""
    from .linediff import Hunk, hunks  # deferred: the hooks never show a diff

    for op in ops:
        if isinstance(op, Move):
            renamed = (f"rename from {op.src}\n", f"rename to {op.dst}\n")
            yield (), (Hunk(2, renamed.__iter__),)
            continue
        old = op.expected if isinstance(op, Write) else None
        old_lines = decode_bytes(old).splitlines(keepends=True) if old is not None else []
        new_lines = decode_bytes(op.data).splitlines(keepends=True)
        fromfile = f"a/{op.path}" if old is not None else "/dev/null"
        yield (f"--- {fromfile}\n", f"+++ b/{op.path}\n"), hunks(old_lines, new_lines, context)


def parent_dirs(path: str) -> list[str]:
    """Every ancestor folder of a root-relative path, outermost first (``''`` excluded)."""
    parts = posixpath.dirname(path).split("/") if "/" in path else []
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]
