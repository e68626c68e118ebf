"""The journal's format, read side: record names, encoding, the undo/redo stacks and the log.

Each change is one JSON record in ``<root>/.memtui/journal/``.  Its state is in its file name, so
marking it is one atomic rename: ``<id>.pending.json`` (being applied), ``<id>.json``
(committed), ``<id>.rolled-back.json``.  The id is ``<seq>-<kind>`` or ``<seq>-<kind>-<target>``,
where ``kind`` is ``do``, ``undo`` or ``redo`` and ``target`` is the seq of the change an undo or
redo replays — so the undo and redo stacks come from the names alone.  A record holds the
operations (new bytes and the bytes each write expects), and the before-image of every path it
touches (``null`` when the path did not exist), as text or base64, with its mode and times.  Only
:mod:`memtui.core.write` writes here.

A journal may come with a folder from someone else, so it is read without following symlinks,
and every path and mode in a record goes through :func:`checked_record` before any use.
"""

from __future__ import annotations

import base64
import json
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterable

from .safepath import (
    ATTIC_PREFIX,
    UnsafePath,
    check_private_dir,
    check_stored_path,
    clamp_mode,
    open_nofollow,
    read_private_file,
    read_to_end,
    symlinked_parent,
)

JOURNAL_DIR = ".memtui/journal"
LOCK_FILE = ".memtui/lock"
MAX_RECORDS = 200

PENDING, COMMITTED, ROLLED_BACK = "pending", "committed", "rolled-back"
_SUFFIX = {PENDING: ".pending.json", COMMITTED: ".json", ROLLED_BACK: ".rolled-back.json"}
_NAME = re.compile(r"^(\d{8})-(do|undo|redo)(?:-(\d{8}))?(\.pending|\.rolled-back)?\.json$")


class JournalError(ValueError):
    """A journal record that cannot be read."""


AGENT = "agent"  # Author.kind of a change the agent asked for (through ``memtui mcp``)


@dataclass(frozen=True)
class Author:
    """Who asked for a change, kept in its record as ``"by"``: absent for a person's change (the
    CLI, the app); the agent's through memtui's MCP server (``via`` ``"mcp"``), with the Claude
    Code session and tool call that asked for it when they are known.  A record's ``by`` is
    read back only through :func:`author_of`, which drops what is not plain text."""

    kind: str = AGENT
    via: str = "mcp"
    session: str = ""
    tool: str = ""  # the tool that was called (``memory_remember``)
    tool_use: str = ""  # Claude Code's id of the call (``toolu_…``)

    def to_json(self) -> dict[str, str]:
        return {k: v for k, v in (("kind", self.kind), ("via", self.via), ("session", self.session),
                                  ("tool", self.tool), ("tool_use", self.tool_use)) if v}

    def words(self) -> str:
        """"the agent (memtui mcp, session 1a2b3c4d)"."""
        who = "the agent" if self.kind == AGENT else self.kind
        said = [f"memtui {self.via}" if self.via else "", f"session {self.session[:8]}" if self.session else ""]
        said = [w for w in said if w]
        return f"{who} ({', '.join(said)})" if said else who


def author_of(value: Any) -> Author | None:
    """The author a record names (its ``by``), or None: a person's change, or a value that is not
    one (a hostile record names nothing that is used as a path, so plain short text is enough)."""
    if not isinstance(value, dict):
        return None
    by = value.get("by")
    if not isinstance(by, dict):
        return None

    def text(key: str) -> str:
        found = by.get(key)
        return found[:200] if isinstance(found, str) and found.isprintable() else ""

    kind = text("kind")
    if not kind:
        return None
    return Author(kind, text("via"), text("session"), text("tool"), text("tool_use"))


def encode_bytes(data: bytes | None) -> dict[str, str] | None:
    """Bytes as JSON: ``{"text": …}`` when they are UTF-8, else ``{"b64": …}``."""
    if data is None:
        return None
    try:
        return {"text": data.decode("utf-8")}
    except UnicodeDecodeError:
        return {"b64": base64.b64encode(data).decode("ascii")}


def decode_value(value: Any) -> bytes | None:
    """The bytes :func:`encode_bytes` encoded; :class:`JournalError` if ``value`` is malformed."""
    if value is None:
        return None
    try:
        if "text" in value:
            return str(value["text"]).encode("utf-8")
        return base64.b64decode(value["b64"], validate=True)
    except (KeyError, TypeError, ValueError) as exc:  # binascii.Error is a ValueError
        raise JournalError(f"malformed bytes {str(value)[:40]!r} ({exc})") from None


@dataclass(frozen=True)
class RecordName:
    """What a record's file name says: its id, sequence number, kind, target and state."""

    seq: int
    kind: str
    target: int | None
    state: str
    file: str

    @property
    def id(self) -> str:
        return record_id(self.seq, self.kind, self.target)


def record_id(seq: int, kind: str, target: int | None = None) -> str:
    return f"{seq:08d}-{kind}" + (f"-{target:08d}" if target is not None else "")


def record_file(record_id: str, state: str) -> str:
    return record_id + _SUFFIX[state]


def parse_name(name: str) -> RecordName | None:
    match = _NAME.match(name)
    if match is None:
        return None
    state = {None: COMMITTED, ".pending": PENDING, ".rolled-back": ROLLED_BACK}[match.group(4)]
    target = int(match.group(3)) if match.group(3) else None
    return RecordName(int(match.group(1)), match.group(2), target, state, name)


def journal_dir(root: Path | str) -> Path:
    return Path(root) / JOURNAL_DIR


def journal_names(root: Path | str) -> list[str] | None:
    """The names in a root's journal folder, listed once (None when there is none, or it is a
    symlink): what :func:`records_of` reads the records from, and the writer its own files."""
    try:
        if not check_private_dir(root, JOURNAL_DIR):
            return None
        return os.listdir(journal_dir(root))
    except (OSError, UnsafePath):
        return None


def records_of(names: Iterable[str] | None) -> list[RecordName]:
    """The records among a journal folder's ``names``, oldest first."""
    records = [r for r in map(parse_name, names or ()) if r is not None]
    return sorted(records, key=lambda r: r.seq)


def list_records(root: Path | str) -> list[RecordName]:
    """Every record of a root's journal, oldest first ([] when there is none, or it is a symlink)."""
    return records_of(journal_names(root))


def pending_records(root: Path | str) -> tuple[str, ...]:
    """The file names of a root's pending records (changes that were interrupted); reads only."""
    return tuple(r.file for r in list_records(root) if r.state == PENDING)


@dataclass(frozen=True)
class Progress:
    """How far an interrupted change got, as the disk shows it now: of the ``touched`` paths it
    names (outside the attic), ``changed`` differ from their before-images; ``index`` says
    whether ``MEMORY.md`` does (None when the change does not touch it)."""

    changed: int
    touched: int
    index: bool | None


def progress_of(root: Path | str, name: str) -> Progress | None:
    """:class:`Progress` of the pending record ``name`` of ``root`` (None when it cannot be
    read or is not a plain record).  Reads only: the record, and each path it names (without
    following a symlink; a path under a symlinked or unreadable folder counts as changed)."""
    record = parse_name(name)
    if record is None:
        return None
    try:
        value = read_record(root, record)
        before = {path: decode_value(data) for path, data in checked_record(value)["before"].items()}
    except (JournalError, UnsafePath, AttributeError, KeyError, TypeError, ValueError):
        return None
    changed = touched = 0
    index: bool | None = None
    for rel, data in before.items():
        if rel.startswith(ATTIC_PREFIX):
            continue
        touched += 1
        differs = symlinked_parent(root, rel) is not None or _current(root, rel, data) != data
        changed += differs
        if rel == "MEMORY.md":
            index = differs
    return Progress(changed, touched, index)


_DIFFERENT = b"\0<not the before-image>"


def _current(root: Path | str, rel: str, expected: bytes | None) -> bytes | None:
    """What ``rel`` holds now, as far as comparing it with ``expected`` needs (a file of another
    size, or anything but a regular file, is only known to differ)."""
    import os

    path = os.path.join(root, *rel.split("/"))
    try:
        fd = open_nofollow(path)
    except FileNotFoundError:
        return None
    except (OSError, UnsafePath):
        return _DIFFERENT
    try:
        if expected is None or os.fstat(fd).st_size != len(expected):
            return _DIFFERENT
        return read_to_end(fd)
    except OSError:
        return _DIFFERENT
    finally:
        os.close(fd)


def read_record(root: Path | str, record: RecordName) -> dict[str, Any]:
    try:
        data = read_private_file(root, f"{JOURNAL_DIR}/{record.file}")
        value = json.loads(data.decode("utf-8", "surrogateescape"))  # names as they are on disk
    except (OSError, ValueError) as exc:  # UnsafePath is a ValueError
        raise JournalError(f"journal record {record.file} cannot be read: {exc}") from None
    if not isinstance(value, dict):
        raise JournalError(f"journal record {record.file} is not a record")
    return value


def checked_record(value: dict[str, Any]) -> dict[str, Any]:
    """A record's paths and modes made safe to use, or :class:`~memtui.core.model.safepath.UnsafePath`.

    Every path (operations, before-images, modes, times, created and removed folders) must be a plain
    relative path inside the root (:func:`~memtui.core.model.safepath.check_stored_path`; only a move's
    destination and a before-image may lie in the attic); modes are clamped
    (:func:`~memtui.core.model.safepath.clamp_mode`); times must be two whole numbers.  Call it on a
    record already known to be well-formed (its operations and bytes decode).
    """
    ops = []
    for op in value.get("ops", []):
        if op.get("op") == "move":
            check_stored_path(op["src"])
            check_stored_path(op["dst"], attic=True)
        else:
            check_stored_path(op["path"])
        ops.append(op)
    before = {check_stored_path(path, attic=True): data for path, data in value.get("before", {}).items()}
    modes = {check_stored_path(path, attic=True): clamp_mode(mode)
             for path, mode in value.get("modes", {}).items()}
    times: dict[str, list[int]] = {}
    stored_times = value.get("times") or {}
    if not isinstance(stored_times, dict):
        raise UnsafePath("its times are not a table of paths")
    for path, pair in stored_times.items():
        if (not isinstance(pair, list) or len(pair) != 2
                or not all(isinstance(t, int) and not isinstance(t, bool) and t >= 0 for t in pair)):
            raise UnsafePath(f"times {str(pair)[:40]!r} of '{path}' are not two whole numbers")
        times[check_stored_path(path, attic=True)] = pair
    dirs = [check_stored_path(folder, attic=True, folder=True) for folder in value.get("created_dirs", [])]
    removed = [check_stored_path(folder, folder=True) for folder in value.get("removed_dirs", [])]
    return value | {"ops": ops, "before": before, "modes": modes, "times": times, "created_dirs": dirs,
                    "removed_dirs": removed}


@dataclass(frozen=True)
class Stacks:
    """Which committed changes can be undone (newest last) and redone (next first)."""

    done: tuple[int, ...]
    redo: tuple[int, ...]


def stacks(records: list[RecordName]) -> Stacks:
    """Replay the committed records' names into the undo and redo stacks."""
    done: list[int] = []
    redo: list[int] = []
    for record in records:
        if record.state != COMMITTED:
            continue
        if record.kind == "do":
            done.append(record.seq)
            redo.clear()
        elif record.kind == "undo" and record.target is not None:
            if record.target in done:
                done.remove(record.target)
            redo.append(record.target)
        elif record.kind == "redo" and record.target is not None:
            if record.target in redo:
                redo.remove(record.target)
            done.append(record.target)
    return Stacks(tuple(done), tuple(reversed(redo)))


@dataclass(frozen=True)
class LogEntry:
    """One change in the journal, as ``memtui log`` shows it."""

    id: str
    kind: str  # do | undo | redo
    state: str  # committed | pending | rolled-back
    time: str
    verb: str
    description: str
    paths: tuple[str, ...]
    undone: bool  # a committed change that has since been undone
    by: Author | None = None  # who asked for it (None: a person, through the CLI or the app)

    def marks(self) -> list[str]:
        """What a listing says of the change besides its description: not committed, undone
        since, asked by an agent (``memtui log`` and the app's journal)."""
        marks = []
        if self.state != "committed":
            marks.append(self.state)
        if self.undone:
            marks.append("undone")
        if self.by is not None:
            marks.append(f"by {self.by.words()}")
        return marks

    def to_json(self) -> dict[str, object]:
        return {
            "id": self.id,
            "kind": self.kind,
            "state": self.state,
            "time": self.time,
            "verb": self.verb,
            "description": self.description,
            "paths": list(self.paths),
            "undone": self.undone,
            "by": self.by.to_json() if self.by is not None else None,
        }


def journal_log(root: Path | str, limit: int = 20) -> list[LogEntry]:
    """The newest ``limit`` records of a root's journal, newest first."""
    records = list_records(root)
    st = stacks(records)
    out: list[LogEntry] = []
    for record in reversed(records[-limit:] if limit > 0 else records):
        try:
            value = read_record(root, record)
        except JournalError:
            value = {}
        paths: list[str] = []
        for op in value.get("ops", []):
            for key in ("path", "src", "dst"):
                if key in op and op[key] not in paths:
                    paths.append(op[key])
        out.append(
            LogEntry(
                id=record.id,
                kind=record.kind,
                state=record.state,
                time=str(value.get("time", "")),
                verb=str(value.get("verb", "")),
                description=str(value.get("description", "")),
                paths=tuple(paths),
                undone=record.kind == "do" and record.state == COMMITTED
                and record.seq not in st.done,
                by=author_of(value),
            )
        )
    return out
