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
from dataclasses import dataclass, field, replace
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
from .statcache import RACY_NS, Key, stat_key

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
    #: what it was asked with and the index's :meth:`~SearchIndex.version` once answered (what
    #: a search given it as ``after`` compares)
    asked: tuple[object, ...] = field(default=(), compare=False, repr=False)

    def to_json(self) -> dict[str, object]:
        return {"query": self.query, "roots": [str(r) for r in self.roots], "total": self.total,
                "files": self.files, "hits": [hit.to_json() for hit in self.hits],
                "rebuilt": self.sync.rebuilt}


class EmptyQuery(ValueError):
    """The query holds no word to look for."""


def search(query: str, roots: Sequence[Path | str], limit: int = DEFAULT_LIMIT, *,
           check: str = FILES, config: BudgetConfig = BudgetConfig(), prune: bool = True,
           index: SearchIndex | None = None, after: SearchResult | None = None,
           clock: Callable[[], int] = time.time_ns) -> SearchResult:
    """Search ``roots`` for ``query``: at most ``limit`` hits, best first (see the module
    docstring).  ``check``: how the index is brought up to date (``"files"``, every file's stat
    key; ``"folders"``, only the folders'); ``prune``: drop the rows of other roots that are no
    longer roots;
    ``index``: an open index to use (default: the cache folder's, opened and closed here);
    ``after``: the result of the same search moments ago on ``index`` (the quick look at the
    folders before this check of every file): when bringing the index up to date wrote no row
    and no other memtui wrote one since, its hits still stand (each was re-checked against its
    file then, and no file's stat key has moved) and it is returned with this check's report,
    without ranking the rows again.

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
            return _search(db, parsed, [Path(r) for r in roots], limit, check, config, prune, clock,
                           after)
        except sqlite3.DatabaseError as exc:
            if not is_damage(exc):
                raise
            db.rebuild()
            return _search(db, parsed, [Path(r) for r in roots], limit, check, config, prune, clock)
    finally:
        if own:
            db.close()


def _search(db: SearchIndex, parsed: Query, roots: list[Path], limit: int, check: str,
            config: BudgetConfig, prune: bool, clock: Callable[[], int],
            after: SearchResult | None = None) -> SearchResult:
    asked = (parsed.text, tuple(roots), limit, repr(config))
    report = db.sync(roots, check, config, prune=prune)
    if after is not None and after.asked == (*asked, db.version()) and not report.gone:
        return replace(after, sync=report)
    ids = db.root_ids(roots)
    expression = match_expression(parsed)
    phrase = phrase_expression(parsed)
    checker = _Checker(db, ids, parsed, expression, clock)
    hits: list[Hit] = []
    seen: set[tuple[int, str]] = set()
    try:
        for ask, is_phrase in ((phrase, True), (expression, False)):
            if ask is None:
                continue
            offset = 0
            batch = limit
            while len(hits) < limit:
                found = db.candidates(ask, ids, batch, offset)
                offset += len(found)
                fresh = [c for c in found if (c.root_id, c.path) not in seen]
                seen.update((c.root_id, c.path) for c in fresh)
                hits += [hit for hit in checker.check(fresh, is_phrase) if hit is not None]
                if len(found) < batch:
                    break
    finally:
        checker.close()
    total = db.count(expression, ids)
    return SearchResult(parsed.text, tuple(roots), tuple(hits[:limit]), total, db.files(ids), report,
                        checker.dropped, (*asked, db.version()))


class _Checker:
    """Checks candidates against their files as they are now (see the module docstring), a
    batch at a time: each file read, its text put in a small FTS5 table in memory with the
    index's tokenizer and matched by the same expression as the index matched its row."""

    def __init__(self, db: SearchIndex, ids: dict[int, str], parsed: Query, expression: str,
                 clock: Callable[[], int]) -> None:
        from .search_index import TOKENIZER

        self.db, self.ids, self.parsed, self.expression, self.clock = db, ids, parsed, expression, clock
        self.dropped = 0
        self._folders: dict[str, bool] = {}
        self.conn = sqlite3.connect(":memory:", isolation_level=None)
        self.conn.execute(f"CREATE VIRTUAL TABLE probe USING fts5({', '.join(COLUMNS)}, "
                          f"tokenize='{TOKENIZER}')")

    def close(self) -> None:
        self.conn.close()

    def check(self, candidates: Sequence[Candidate], is_phrase: bool) -> list[Hit | None]:
        """Each candidate's hit, or None when its file is gone or no longer matches (its row
        rewritten or dropped, so the next search does not find it again)."""
        read: list[tuple[Candidate, Path, MemoryFile, tuple[str, ...], Key] | None] = []
        for candidate in candidates:
            root = Path(self.ids[candidate.root_id])
            found = read_hit_file(root, candidate.path, self.db.real(root), self._folders)
            if found is None:
                self.db.drop_row(candidate.root_id, candidate.path)
                read.append(None)
                continue
            data, st = found
            text = decode_bytes(data)
            f = MemoryFile(candidate.path, len(data), st.st_mtime, text, parse_frontmatter(text))
            read.append((candidate, root, f, doc_columns(f, candidate.hook), stat_key(st)))
        matching = self._matching([item[3] if item is not None else None for item in read])
        out: list[Hit | None] = []
        for i, item in enumerate(read):
            if item is None:
                self.dropped += 1
                out.append(None)
                continue
            candidate, root, f, columns, key = item
            if i not in matching or key_bytes(key) != candidate.key:  # changed behind the index
                limit = self.clock() - RACY_NS
                self.db.replace_row(candidate.root_id, candidate.path, key, columns,
                                    key[1] < limit and key[3] < limit)
            if i not in matching:
                self.dropped += 1
                out.append(None)
                continue
            snippet = marked_snippet([f.body, candidate.hook, f.description, f.title, candidate.path],
                                     self.parsed)
            out.append(Hit(root, candidate.path, f.title, f.type, candidate.reach,
                           bool(candidate.archived), candidate.rank, is_phrase, snippet))
        return out

    def _matching(self, texts: list[tuple[str, ...] | None]) -> set[int]:
        """The positions of the texts the expression matches."""
        rows = [(i, *columns) for i, columns in enumerate(texts) if columns is not None]
        if not rows:
            return set()
        self.conn.execute("DELETE FROM probe")
        self.conn.executemany(f"INSERT INTO probe(rowid, {', '.join(COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?)",
                              rows)
        return {rowid for (rowid,) in self.conn.execute(
            "SELECT rowid FROM probe WHERE probe MATCH ?", (self.expression,))}


def read_hit_file(root: Path, rel: str, real_root: str | None = None,
                  folders: dict[str, bool] | None = None) -> tuple[bytes, os.stat_result] | None:
    """A hit's file as it is now: a regular file inside its root (opened without following a
    symlink, its folder's real path inside the root's), at most
    :data:`~memtui.core.read.store.MAX_READ_BYTES`; None otherwise.  ``folders`` keeps each
    folder's answer for the run."""
    try:
        check_stored_path(rel)
    except UnsafePath:
        return None
    base = str(root)
    path = base + "/" + rel
    if "/" in rel:
        folder = path.rsplit("/", 1)[0]
        inside = folders.get(folder) if folders is not None else None
        if inside is None:
            real = real_root if real_root is not None else os.path.realpath(root)
            inside = os.path.realpath(folder).startswith(real.rstrip(os.sep) + os.sep)
            if folders is not None:
                folders[folder] = inside
        if not inside:
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
