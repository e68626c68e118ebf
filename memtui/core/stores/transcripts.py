"""Reading Claude Code's session transcripts for what the agent did with memory files.

Claude Code keeps one JSON-lines transcript per session, ``<config>/projects/<project>/<session>.jsonl``
(CLAUDE-CODE.md; every hook payload names it as ``transcript_path``).  The format is Claude
Code's, not memtui's, so this reader takes only what it recognises — as verified on v2.1.332
transcripts (``tests/core/data/transcripts``):

- an ``assistant`` line's ``message.content`` holds ``tool_use`` blocks ``{"id", "name",
  "input": {"file_path"}}`` for ``Read``, ``Write`` and ``Edit``;
- a ``user`` line's ``message.content`` holds the ``tool_result`` blocks ``{"tool_use_id",
  "is_error", "content"}`` answering them (a read of an absent file answers
  ``File does not exist.`` with ``is_error``; a write answered with an error wrote nothing);
- memory recall records: an ``attachment`` of type ``relevant_memories`` (``memories: [{"path"}]``)
  and a ``system`` line of subtype ``memory_recall`` (``memories: [{"path"}]``); a ``system``
  line of subtype ``memory_saved`` lists ``writtenPaths``;
- every line carries ``timestamp`` (ISO 8601) and ``sessionId``;
- a ``Bash`` tool_use's ``input.command`` is read as a shell would split it
  (:mod:`memtui.core.stores.shell_reads`, against the line's ``cwd``): ``cat``, ``head``, ``sed``,
  ``grep``… of a memory file is a read of kind ``shell``, ``>>`` / ``tee`` into one a write;
- a subagent's reads and writes are in its own transcript beside the session's,
  ``<session>/subagents/agent-<id>.jsonl`` (every line ``isSidechain``, the main ``sessionId``; no
  ``toolUseResult``), with ``agent-<id>.meta.json`` naming its ``agentType``: they count as the
  session's, each touch naming the subagent (``agent``).

One streaming pass, a line at a time (a line over :data:`LINE_CAP` bytes is passed over without
being held); a line that mentions none of these is not parsed at all.  Lines that are not a JSON
object, or that look relevant but do not parse into the shape above, are skipped and counted.
Only paths of Markdown files are kept (memory files are ``*.md``), one record per path per
session (first and last time, how often): the evidence of a session is bounded by the files it
touched, not by its length.

Results are cached per transcript by ``(size, mtime_ns)`` — only for a transcript older than 2 s,
so a rewrite within one timestamp tick cannot hide behind an unchanged key — in the user's cache folder
(``<cache>/usage/<hash of the transcripts folder>.json``, the stat cache's folder; never inside
a memory root); a missing, damaged or foreign cache is rebuilt silently.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import time
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from .. import write
from ..model.places import cache_dir

LINE_CAP = 16 << 20  # a line longer than this is skipped unread
RACY_NS = 2_000_000_000  # a transcript modified this recently is not cached (git's racy rule)
FORMAT = 2
_MARKERS = (b'"tool_use"', b'"tool_result"', b"relevant_memories", b"memory_recall", b"memory_saved")
_TOOLS_READ = frozenset({"Read"})
_TOOLS_WRITE = frozenset({"Write", "Edit"})
SHELL = "Bash"
_ABSENT = ("does not exist", "no such file")
_TIMESTAMP = re.compile(rb'"timestamp"\s*:\s*"([0-9][0-9T:.+\-Z]{9,39})"')
_SESSION = re.compile(rb'"sessionId"\s*:\s*"([0-9A-Za-z_\-]{1,80})"')


@dataclass(frozen=True)
class Touch:
    """What one session did with one file: how (``read``, ``shell`` — read by a Bash command —,
    ``recall``, ``absent`` — a read answered "does not exist" — or ``write``), when first and
    last, how often, and which subagent (``agent``; "" the main agent)."""

    path: str  # absolute, as the transcript names it (a Bash glob kept as written)
    kind: str
    first: str  # ISO 8601 timestamps ("" when the line had none)
    last: str
    count: int = 1
    tool: str = ""  # the writing tool (Write, Edit, Bash, memory_saved)
    agent: str = ""  # the subagent's type (or id) whose transcript records it


@dataclass(frozen=True)
class Session:
    """One transcript's evidence."""

    session_id: str
    transcript: str  # file name inside the transcripts folder
    started: str
    ended: str
    touches: tuple[Touch, ...]
    lines: int
    skipped: int  # lines not understood (not JSON, or not the shape they claimed)


class _Builder:
    """Accumulates one transcript's touches while its lines stream past."""

    def __init__(self, name: str, agent: str = "") -> None:
        self.name = name
        self.agent = agent
        self.session_id = ""
        self.started = ""
        self.ended = ""
        self.touches: dict[tuple[str, str, str], list[Any]] = {}
        #: tool_use id -> what it asked for: (tool, path, when, the Bash command wrote it)
        self.pending: dict[str, list[tuple[str, str, str, bool]]] = {}
        self.lines = 0
        self.skipped = 0

    def touch(self, path: str, kind: str, when: str, tool: str = "") -> None:
        if not isinstance(path, str) or not path.lower().endswith(".md"):
            return
        key = (path, kind, self.agent)
        held = self.touches.get(key)
        if held is None:
            self.touches[key] = [when, when, 1, tool]
        else:
            held[1] = when or held[1]
            held[2] += 1
            held[3] = tool or held[3]

    def stamp(self, value: Mapping[str, Any]) -> str:
        when = value.get("timestamp")
        when = when if isinstance(when, str) else ""
        if when:
            self.started = min(self.started, when) if self.started else when
            self.ended = max(self.ended, when)
        sid = value.get("sessionId")
        if not self.session_id and isinstance(sid, str):
            self.session_id = sid
        return when

    def stamp_bytes(self, body: bytes) -> None:
        """The time and session of a line that is not parsed (found by pattern, not parsed)."""
        found = _TIMESTAMP.search(body)
        if found is not None:
            when = found.group(1).decode("ascii")
            self.started = min(self.started, when) if self.started else when
            self.ended = max(self.ended, when)
        if not self.session_id:
            sid = _SESSION.search(body)
            if sid is not None:
                self.session_id = sid.group(1).decode("ascii")

    def line(self, value: Any) -> None:
        if not isinstance(value, dict):
            self.skipped += 1
            return
        when = self.stamp(value)
        kind = value.get("type")
        try:
            if kind == "assistant":
                self._assistant(value, when)
            elif kind == "user":
                self._user(value)
            elif kind == "attachment":
                attachment = value.get("attachment")
                if isinstance(attachment, dict) and attachment.get("type") == "relevant_memories":
                    for memory in attachment["memories"]:
                        self.touch(memory["path"], "recall", when)
            elif kind == "system":
                if value.get("subtype") == "memory_recall":
                    for memory in value["memories"]:
                        self.touch(memory["path"], "recall", when)
                elif value.get("subtype") == "memory_saved":
                    for path in value["writtenPaths"]:
                        self.touch(path, "write", when, "memory_saved")
        except (KeyError, TypeError, AttributeError):
            self.skipped += 1

    def _assistant(self, value: Mapping[str, Any], when: str) -> None:
        content = value["message"]["content"]
        if isinstance(content, str):
            return
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "tool_use":
                continue
            name = block.get("name")
            if name == SHELL:
                self._shell(block, value.get("cwd"), when)
                continue
            if name not in _TOOLS_READ and name not in _TOOLS_WRITE:
                continue
            path = block["input"]["file_path"]
            if not isinstance(path, str):
                raise TypeError("file_path is not a string")
            if path.lower().endswith(".md"):
                self.pending[str(block.get("id", ""))] = [(name, path, when, False)]

    def _shell(self, block: Mapping[str, Any], cwd: object, when: str) -> None:
        """A Bash call: the memory files its command reads and writes."""
        from .shell_reads import shell_paths

        command = block["input"]["command"]
        if not isinstance(command, str) or ".md" not in command.lower():
            return
        reads, writes = shell_paths(command, cwd if isinstance(cwd, str) else None)
        asked = [(SHELL, p, when, False) for p in reads] + [(SHELL, p, when, True) for p in writes]
        if asked:
            self.pending[str(block.get("id", ""))] = asked

    def _user(self, value: Mapping[str, Any]) -> None:
        content = value["message"]["content"]
        if isinstance(content, str):
            return
        for block in content:
            if not isinstance(block, dict) or block.get("type") != "tool_result":
                continue
            asked = self.pending.pop(str(block.get("tool_use_id", "")), None)
            if asked is None:
                continue
            failed = block.get("is_error") is True
            for tool, path, when, wrote in asked:
                if tool in _TOOLS_WRITE or wrote:
                    if not failed:  # a refused or failed write wrote nothing
                        self.touch(path, "write", when, tool)
                    continue
                absent = failed and _says_absent(block.get("content"))
                if tool == SHELL:
                    if not failed:
                        self.touch(path, "shell", when, tool)
                    continue
                self.touch(path, "absent" if absent else "read", when)

    def done(self) -> Session:
        for asked in self.pending.values():  # a read never answered was still asked for
            for tool, path, when, _wrote in asked:
                if tool in _TOOLS_READ:
                    self.touch(path, "read", when)
        self.pending.clear()
        touches = tuple(Touch(path, kind, held[0], held[1], held[2], held[3], agent)
                        for (path, kind, agent), held in self.touches.items())
        stem = self.name[:-6] if self.name.endswith(".jsonl") else self.name
        return Session(self.session_id or stem, self.name, self.started, self.ended, touches,
                       self.lines, self.skipped)


def _says_absent(content: object) -> bool:
    if isinstance(content, list):
        content = " ".join(c.get("text", "") for c in content if isinstance(c, dict)
                           and isinstance(c.get("text"), str))
    return isinstance(content, str) and any(s in content.lower() for s in _ABSENT)


def _relevant(body: bytes) -> bool:
    """Whether a line may carry evidence (two cheap scans first: most lines have neither)."""
    if b'"tool_' in body:
        return b'"tool_use"' in body or b'"tool_result"' in body
    if b"memor" in body:
        return b"relevant_memories" in body or b"memory_recall" in body or b"memory_saved" in body
    return False


def read_transcript(stream: IO[bytes], name: str = "", builder: _Builder | None = None) -> Session:
    """One transcript's evidence, read a line at a time from a binary stream (into ``builder``
    when given: a subagent's transcript joins its session's).

    A line that carries no evidence is not parsed; the session's first and last times are
    taken from its first and last lines naming a ``timestamp`` (one line held at a time).
    """
    builder = builder if builder is not None else _Builder(name)
    last_stamped = b""
    readline = stream.readline
    while True:
        raw = readline(LINE_CAP)
        if not raw:
            break
        builder.lines += 1
        if len(raw) >= LINE_CAP and not raw.endswith(b"\n"):
            builder.skipped += 1  # too long: pass over the rest of it without holding it
            while True:
                more = readline(LINE_CAP)
                if not more or more.endswith(b"\n"):
                    break
            continue
        body = raw.strip()
        if not body:
            builder.lines -= 1
            continue
        if body[:1] != b"{" or body[-1:] != b"}":
            builder.skipped += 1
            continue
        if not _relevant(body):
            if b'"timestamp"' in body:
                if not builder.started:
                    builder.stamp_bytes(body)
                last_stamped = body
            continue
        try:
            value = json.loads(body)
        except ValueError:
            builder.skipped += 1
            continue
        builder.line(value)
    if last_stamped:
        builder.stamp_bytes(last_stamped)
    return builder.done()


def read_transcript_file(path: Path) -> Session:
    """One transcript file's evidence, its subagents' transcripts joined (raises OSError when
    the session's own transcript cannot be read)."""
    builder = _Builder(path.name)
    with open(path, "rb", buffering=1 << 20) as stream:
        read_transcript(stream, path.name, builder)
    for sub, _size, _mtime in subagent_files(path):
        builder.agent = _agent_name(sub)
        main_id, pending = builder.session_id, builder.pending
        builder.pending = {}
        try:
            with open(sub, "rb", buffering=1 << 20) as stream:
                read_transcript(stream, sub.name, builder)
        except OSError:
            pass  # its evidence is lost, not the session's
        builder.pending = pending
        builder.session_id = main_id or builder.session_id
    builder.agent = ""
    return builder.done()


def subagent_files(transcript: Path) -> list[tuple[Path, int, int]]:
    """A session's subagent transcripts, ``<session>/subagents/agent-*.jsonl`` beside its own,
    with their size and ``mtime_ns``."""
    folder = transcript.with_suffix("") / "subagents"
    return [(p, size, mtime) for p, size, mtime in transcript_files(folder)
            if p.name.startswith("agent-")]


def _agent_name(path: Path) -> str:
    """The subagent of a transcript: its ``.meta.json``'s ``agentType``, else its id."""
    agent_id = path.name[len("agent-"):-len(".jsonl")]
    try:
        with open(path.with_name(f"agent-{agent_id}.meta.json"), "rb") as handle:
            meta = json.loads(handle.read(1 << 20))
        kind = meta.get("agentType") if isinstance(meta, dict) else None
        if isinstance(kind, str) and kind:
            return kind
    except (OSError, ValueError):
        pass
    return agent_id


# ---------------------------------------------------------------- the transcripts of a project


def transcript_files(folder: Path) -> list[tuple[Path, int, int]]:
    """The session transcripts of a project folder (``*.jsonl`` at its top level, not through a
    symlink) with their size and ``mtime_ns``."""
    out = []
    try:
        with os.scandir(folder) as it:
            for entry in it:
                if not entry.name.endswith(".jsonl") or entry.name.startswith("."):
                    continue
                try:
                    if not entry.is_file(follow_symlinks=False):
                        continue
                    st = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                out.append((Path(entry.path), st.st_size, st.st_mtime_ns))
    except OSError:
        return []
    return sorted(out)


def _session_to_json(s: Session) -> list[Any]:
    return [s.session_id, s.transcript, s.started, s.ended, s.lines, s.skipped,
            [[t.path, t.kind, t.first, t.last, t.count, t.tool, t.agent] for t in s.touches]]


def _session_from_json(value: Any) -> Session:
    sid, name, started, ended, lines, skipped, touches = value
    parsed = tuple(Touch(str(p), str(k), str(f), str(la), int(c), str(tool), str(agent))
                   for p, k, f, la, c, tool, agent in touches)
    return Session(str(sid), str(name), str(started), str(ended), parsed, int(lines), int(skipped))


def cache_file(folder: Path, memory_roots: Iterable[Path] = ()) -> Path | None:
    """Where the evidence of a transcripts folder is cached, or None (caching off, or the cache
    folder would lie inside a memory root)."""
    base = cache_dir()
    if base is None:
        return None
    real = os.path.realpath(base)
    for root in memory_roots:
        inside = os.path.realpath(root)
        if real == inside or real.startswith(inside.rstrip(os.sep) + os.sep):
            return None
    key = hashlib.sha256(os.path.realpath(folder).encode("utf-8", "surrogateescape")).hexdigest()[:32]
    return Path(base) / "usage" / f"{key}.json"


def _load_cache(path: Path | None, folder: Path) -> dict[str, Any]:
    if path is None:
        return {}
    try:
        with open(path, "rb") as handle:
            value = json.loads(handle.read())
    except (OSError, ValueError):
        return {}
    if (not isinstance(value, dict) or value.get("format") != FORMAT
            or value.get("folder") != os.path.realpath(folder) or not isinstance(value.get("files"), dict)):
        return {}
    files: dict[str, Any] = value["files"]
    return files


def _save_cache(path: Path, folder: Path, files: Mapping[str, Any]) -> None:
    """Write the cache atomically (:func:`memtui.core.write.replace_file`); a failure is ignored."""
    data = json.dumps({"format": FORMAT, "folder": os.path.realpath(folder), "files": files},
                      ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    try:
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        write.replace_file(os.path.realpath(path.parent), path.name, data)
    except OSError:
        pass  # the cache is never required


@dataclass(frozen=True)
class Sessions:
    """Every readable transcript of a project folder, oldest first, and what could not be read."""

    folder: Path
    sessions: tuple[Session, ...]
    unreadable: tuple[str, ...] = ()
    from_cache: int = 0  # transcripts whose evidence came from the cache

    @property
    def lines(self) -> int:
        return sum(s.lines for s in self.sessions)

    @property
    def skipped(self) -> int:
        return sum(s.skipped for s in self.sessions)


def load_sessions(folder: Path, memory_roots: Iterable[Path] = ()) -> Sessions:
    """The evidence of every transcript in ``folder``: from the cache for a transcript whose size
    and modification time are what they were, read (one streaming pass) for the rest."""
    where = cache_file(folder, memory_roots)
    cached = _load_cache(where, folder)
    racy = time.time_ns() - RACY_NS  # younger files may change again within their mtime's tick
    kept: dict[str, Any] = {}
    out: list[Session] = []
    unreadable: list[str] = []
    hits = 0
    for path, size, mtime in transcript_files(folder):
        held = cached.get(path.name)
        session = None
        subs = [(p.name, s, m) for p, s, m in subagent_files(path)]
        mtime = max([mtime] + [m for _n, _s, m in subs])  # the youngest file decides "racy"
        key: object = [size, [list(x) for x in subs]] if subs else size  # subagents' files too
        if isinstance(held, list) and len(held) == 3 and held[0] == key and held[1] == mtime:
            try:
                session = _session_from_json(held[2])
                hits += 1
            except (TypeError, ValueError):
                session = None
        if session is None:
            try:
                session = read_transcript_file(path)
            except OSError:
                unreadable.append(path.name)
                continue
        if mtime < racy:
            kept[path.name] = [key, mtime, _session_to_json(session)]
        out.append(session)
    if where is not None and (hits != len(out) or set(cached) != set(kept)):
        _save_cache(where, folder, kept)
    out.sort(key=lambda s: (s.ended or s.started, s.transcript))
    return Sessions(folder, tuple(out), tuple(unreadable), hits)


# ---------------------------------------------------------------- a session's time

SPAN_READ = 1 << 16  # bytes read at a time from each end of a transcript for its timestamps
SPAN_MAX = 4 << 20  # at most this much from each end: a transcript whose ends hold no timestamp


def session_span(path: Path) -> tuple[str, str] | None:
    """The first and last timestamps of a transcript (ISO 8601, as written), read from its two
    ends only — the time of a session without a pass over it; None when it cannot be read or
    no timestamp is found near either end."""
    try:
        with open(path, "rb") as stream:
            size = os.fstat(stream.fileno()).st_size
            first = _first_stamp(stream, size)
            last = _last_stamp(stream, size)
    except OSError:
        return None
    if first is None and last is None:
        return None
    return (first or last or "", last or first or "")


def _first_stamp(stream: IO[bytes], size: int) -> str | None:
    stream.seek(0)
    read = 0
    held = b""
    while read < min(size, SPAN_MAX):
        chunk = stream.read(SPAN_READ)
        if not chunk:
            break
        read += len(chunk)
        held += chunk
        found = _TIMESTAMP.search(held)
        if found is not None:
            return found.group(1).decode("ascii")
        held = held[-128:]  # a timestamp cut between two chunks is found in the next
    return None


def _last_stamp(stream: IO[bytes], size: int) -> str | None:
    end = size
    tail = b""
    while end > 0 and size - end < SPAN_MAX:
        start = max(0, end - SPAN_READ)
        stream.seek(start)
        tail = stream.read(end - start) + tail[:128]
        stamps = _TIMESTAMP.findall(tail)
        if stamps:
            return str(stamps[-1].decode("ascii"))
        end = start
    return None
