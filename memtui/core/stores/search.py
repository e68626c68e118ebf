"""Search every memory file of some roots at once (DESIGN §14): ranked, each hit checked against
its file before it is shown.

:func:`search` is the one way in — the CLI (``memtui search``), the app's search screen and the
agent's MCP door call it with a query, the roots and a limit, and get :class:`Hit` objects back:

1. the index (:class:`memtui.core.stores.search_index.SearchIndex`) is brought up to date for the
   roots (``check``: every file's stat key, or only their folders' — see that module);
2. the query (:func:`memtui.core.model.search_text.parse_query`) asks FTS5 twice: its plain words
   as one phrase, then every part anywhere; phrase matches first, each list by BM25 (title, name,
   description and hook weigh more than the body), so a file holding the exact phrase ranks above
   files that only share its words;
3. **each hit is re-checked against its file**: stat-ed and read (a plain file inside its root,
   never through a symlink leading out), its text matched again by the same tokenizer; a file
   that no longer holds the words is dropped (and its row rewritten), a file gone loses its row;
   the snippet is cut from the text as read, the matches marked.

A damaged database found on the way is rebuilt and the search run again, once.
"""

from __future__ import annotations

import os
import sqlite3
import stat
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..model.frontmatter import parse_frontmatter
from ..model.safepath import UnsafePath, check_stored_path
from ..model.search_text import (
    COLUMNS,
    Query,
    Snippet,
    marked_snippet,
    match_expression,
    parse_query,
    phrase_expression,
)
from ..model.snapshot import BudgetConfig, MemoryFile, decode_bytes
from ..read.store import MAX_READ_BYTES
from .search_index import (
    FILES,
    Candidate,
    SearchIndex,
    SyncReport,
    doc_columns,
    is_damage,
    key_bytes,
)
from .statcache import RACY_NS, stat_key

#: how many hits a search gives unless asked for another number
DEFAULT_LIMIT = 20

#: what each way a file is reached means for a search hit, in a few words
REACH_WORDS = {
    "entry": "loads at session start",
    "not loaded": "listed past the loader's cut",
    "archive": "archived",
    "mention": "named in the loaded index",
    "region": "reachable only by a region",
    "scope": "a scope's SCOPE.md",
    "team": "team memory no index reaches",
    "document": "a document about the folder",
    "orphan": "unreachable (no index reaches it)",
}


@dataclass(frozen=True)
class Hit:
    """One file a search found, as its file says now."""

    root: Path
    path: str  # relative to the root, ``/`` separators
    title: str
    type: str
    reach: str  # how the indexes reach it (:data:`memtui.core.rules.validate.REACH_WAYS`)
    archived: bool
    rank: float  # FTS5's BM25 (lower is better)
    phrase: bool  # the query's words were found as one phrase
    snippet: Snippet

    @property
    def loads(self) -> bool:
        """Its entry is loaded at session start (before the loader's cut)."""
        return self.reach == "entry" and not self.archived

    @property
    def where(self) -> str:
        """How it is reached, in words (:data:`REACH_WORDS`)."""
        if self.archived:
            return "archived"
        return REACH_WORDS.get(self.reach, self.reach)

    def to_json(self) -> dict[str, object]:
        return {"root": str(self.root), "path": self.path, "title": self.title, "type": self.type,
                "reach": self.reach, "loads": self.loads, "archived": self.archived,
                "where": self.where, "rank": round(self.rank, 4), "phrase": self.phrase,
                "snippet": self.snippet.to_json()}


@dataclass(frozen=True)
class SearchResult:
    """What a search found: the hits (at most the limit), how many files match in all, and
    what bringing the index up to date cost."""

    query: str
    roots: tuple[Path, ...]
    hits: tuple[Hit, ...]
    total: int  # files of the roots the index matched (before the re-check)
    files: int  # files of the roots the index holds
    sync: SyncReport = field(default_factory=SyncReport)
    dropped: int = 0  # candidates the re-check found no longer matching (or gone)

    def to_json(self) -> dict[str, object]:
        return {"query": self.query, "roots": [str(r) for r in self.roots], "total": self.total,
                "files": self.files, "hits": [hit.to_json() for hit in self.hits],
                "rebuilt": self.sync.rebuilt}


class EmptyQuery(ValueError):
    """The query holds no word to look for."""


def search(query: str, roots: Sequence[Path | str], limit: int = DEFAULT_LIMIT, *,
           check: str = FILES, config: BudgetConfig = BudgetConfig(), prune: bool = True,
           index: SearchIndex | None = None,
           clock: Callable[[], int] = time.time_ns) -> SearchResult:
    """Search ``roots`` for ``query``: at most ``limit`` hits, best first (see the module
    docstring).  ``check``: how the index is brought up to date (``"files"``, every file's stat
    key; ``"folders"``, only the folders'); ``prune``: drop the rows of other roots that are no
    longer roots;
    ``index``: an open index to use (default: the cache folder's, opened and closed here).

    Raises :class:`EmptyQuery` for a query with no word, and
    :class:`~memtui.core.stores.search_index.IndexBusy` when another memtui holds the index
    too long."""
    parsed = parse_query(query)
    if parsed.empty:
        raise EmptyQuery(f"nothing to search for in {query!r}: give a word, a \"phrase\" or a prefix*")
    own = index is None
    db = index if index is not None else SearchIndex.open(clock)
    try:
        try:
            return _search(db, parsed, [Path(r) for r in roots], limit, check, config, prune, clock)
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            db.rebuild()
            return _search(db, parsed, [Path(r) for r in roots], limit, check, config, prune, clock)
    finally:
        if own:
            db.close()


def _search(db: SearchIndex, parsed: Query, roots: list[Path], limit: int, check: str,
            config: BudgetConfig, prune: bool, clock: Callable[[], int]) -> SearchResult:
    report = db.sync(roots, check, config, prune=prune)
    ids = db.root_ids(roots)
    expression = match_expression(parsed)
    phrase = phrase_expression(parsed)
    probe = _Probe()
    hits: list[Hit] = []
    seen: set[tuple[int, str]] = set()
    dropped = 0
    for ask, is_phrase in ((phrase, True), (expression, False)):
        if ask is None:
            continue
        offset = 0
        batch = max(limit * 2, 10)
        while len(hits) < limit:
            found = db.candidates(ask, ids, batch, offset)
            offset += len(found)
            for candidate in found:
                if (candidate.root_id, candidate.path) in seen:
                    continue
                seen.add((candidate.root_id, candidate.path))
                hit = _checked(db, probe, candidate, Path(ids[candidate.root_id]), parsed,
                               expression, is_phrase, clock)
                if hit is None:
                    dropped += 1
                    continue
                hits.append(hit)
                if len(hits) >= limit:
                    break
            if len(found) < batch:
                break
    total = db.count(expression, ids)
    probe.close()
    return SearchResult(parsed.text, tuple(roots), tuple(hits), total, db.files(ids), report,
                        dropped)


class _Probe:
    """A one-row FTS5 table in memory, with the index's tokenizer: a file's text as read now is
    matched by the same rules as the index matched its row."""

    def __init__(self) -> None:
        from .search_index import TOKENIZER

        self.conn = sqlite3.connect(":memory:", isolation_level=None)
        self.conn.execute(f"CREATE VIRTUAL TABLE probe USING fts5({', '.join(COLUMNS)}, "
                          f"tokenize='{TOKENIZER}')")

    def matches(self, columns: tuple[str, ...], expression: str) -> bool:
        self.conn.execute("DELETE FROM probe")
        self.conn.execute(f"INSERT INTO probe({', '.join(COLUMNS)}) VALUES (?, ?, ?, ?, ?)", columns)
        return self.conn.execute("SELECT 1 FROM probe WHERE probe MATCH ?",
                                 (expression,)).fetchone() is not None

    def close(self) -> None:
        self.conn.close()


def read_hit_file(root: Path, rel: str) -> tuple[bytes, os.stat_result] | None:
    """A hit's file as it is now: a regular file inside its root (its real path too, so no
    symlink leads out), at most :data:`~memtui.core.read.store.MAX_READ_BYTES`; None otherwise."""
    try:
        check_stored_path(rel)
    except UnsafePath:
        return None
    path = os.path.join(root, rel)
    real_root = os.path.realpath(root)
    if not os.path.realpath(path).startswith(real_root.rstrip(os.sep) + os.sep):
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOFOLLOW)
    except OSError:
        return None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > MAX_READ_BYTES:
            return None
        chunks = []
        while True:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
        return b"".join(chunks), st
    except OSError:
        return None
    finally:
        os.close(fd)


def _checked(db: SearchIndex, probe: _Probe, candidate: Candidate, root: Path, parsed: Query,
             expression: str, is_phrase: bool, clock: Callable[[], int]) -> Hit | None:
    """The hit a candidate is, as its file says now; None when the file is gone or no longer
    matches (its row rewritten or dropped, so the next search does not find it again)."""
    read = read_hit_file(root, candidate.path)
    if read is None:
        db.drop_row(candidate.root_id, candidate.path)
        return None
    data, st = read
    text = decode_bytes(data)
    fm = parse_frontmatter(text)
    f = MemoryFile(candidate.path, len(data), st.st_mtime, text, fm)
    columns = doc_columns(f, candidate.hook)
    key = stat_key(st)
    matches = probe.matches(columns, expression)
    if not matches or key_bytes(key) != candidate.key:  # changed behind the index: its row too
        limit = clock() - RACY_NS
        db.replace_row(candidate.root_id, candidate.path, key, columns,
                       key[1] < limit and key[3] < limit)
    if not matches:
        return None
    snippet = marked_snippet([f.body, candidate.hook, f.description, f.title, candidate.path],
                             parsed)
    return Hit(root, candidate.path, f.title, f.type, candidate.reach, bool(candidate.archived),
               candidate.rank, is_phrase, snippet)
