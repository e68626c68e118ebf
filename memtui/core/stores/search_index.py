"""The full-text search index: SQLite FTS5 in memtui's cache folder, kept current from the stat cache.

One database for every root ever searched (``<cache folder>/search/index.sqlite3``,
:func:`memtui.core.model.places.search_index_path`; in memory, for one search, when caching is
off).  Tables:

- ``meta`` — what wrote the database: :data:`FORMAT`, the tokenizer, and the fingerprint of the
  core's source (:func:`memtui.core.stores.statcache.fingerprint`: another memtui's rows may have
  been made by other rules);
- ``roots`` — one row per root (its real path), with what its rows were made from: the budget
  configuration, the stat keys of its two indexes and of every folder it listed;
- ``docs`` — one row per memory file: its stat key, whether that key can be trusted (the stat
  cache's racy rule: a key younger than two seconds may hide a later write of the same size in
  the same tick), how the indexes reach it, its type, title and hook;
- ``texts`` — what was handed to FTS5 for each row, compressed (a contentless FTS5 table is
  told the old text to forget a row); apart from ``docs``, so a check of every file's key reads
  small rows;
- ``fts`` — the FTS5 table itself (contentless: the text is not kept twice), columns
  :data:`memtui.core.model.search_text.COLUMNS`, tokenizer :data:`TOKENIZER`.

**Kept current.** :meth:`SearchIndex.sync` brings each root's rows up to date before a query, in
one of two depths: ``files`` stats every memory file (the stat cache's listing and keys: a row is
rewritten only when its file's stat key changed, or its hook or reachability did, and the root is
read through the stat cache, so an unchanged file is not read at all); ``folders`` stats only the
root's folders and its two indexes, and checks the files of a root only when one of those
changed or some row's key is too young to trust.  A folder's stat key changes when a file in it
is added, removed or renamed, which is how editors, memtui and most tools write; a file rewritten
in place is seen by the next ``files`` check (:func:`memtui.core.stores.search.search` re-checks
every hit against its file either way, so a stale row never shows what the file no longer says).
A root that is no longer a root (gone, or its ``MEMORY.md`` gone) loses its rows.

**Two memtuis at once.** WAL journal, a busy timeout of :data:`BUSY_SECONDS`, and one ``BEGIN
IMMEDIATE`` transaction per root: what a root's files say is worked out outside the transaction,
then applied against the rows as they are when the write lock is held (what another process wrote
meanwhile is compared, not overwritten blindly).

**Never trusted blindly.** A database SQLite finds damaged (``SQLITE_CORRUPT``,
``SQLITE_NOTADB``), or written by another format, tokenizer or core, is replaced by an empty one
(through the writer's safe-file layer, :func:`memtui.core.write.replace_file`, its WAL first) and
built again from the roots.  The database is SQLite's to write: memtui only creates its empty file
(exclusively, ``0o600``, so two memtuis starting at once share one) and resets it.
"""

from __future__ import annotations

import marshal
import os
import sqlite3
import stat
import time
import zlib
from collections.abc import Callable, Collection, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..model.places import search_index_path
from ..model.safepath import check_stored_path
from ..model.search_text import COLUMNS, WEIGHTS, index_text
from ..model.snapshot import ARCHIVE_DIR, BudgetConfig, MemoryFile, Snapshot
from ..read.store import Listing, RootError, list_root
from .statcache import RACY_NS, Key, StatCache, fingerprint, index_keys, stat_key

FORMAT = 1
TOKENIZER = "unicode61 remove_diacritics 2"
BUSY_SECONDS = 30.0
#: how :meth:`SearchIndex.sync` checks a root: every file's stat key, or only its folders'
FILES, FOLDERS = "files", "folders"

_SCHEMA = f"""
CREATE TABLE meta(key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE roots(id INTEGER PRIMARY KEY, real TEXT NOT NULL UNIQUE, shown TEXT NOT NULL,
                   state BLOB, checked_ns INTEGER NOT NULL DEFAULT 0);
CREATE TABLE docs(id INTEGER PRIMARY KEY, root INTEGER NOT NULL, path TEXT NOT NULL,
                  key BLOB NOT NULL, trusted INTEGER NOT NULL, reach TEXT NOT NULL,
                  archived INTEGER NOT NULL, type TEXT NOT NULL, title TEXT NOT NULL,
                  hook TEXT NOT NULL, UNIQUE(root, path));
CREATE TABLE texts(id INTEGER PRIMARY KEY, packed BLOB NOT NULL);
CREATE INDEX docs_young ON docs(root) WHERE trusted = 0;
CREATE VIRTUAL TABLE fts USING fts5({", ".join(COLUMNS)}, content='', tokenize='{TOKENIZER}');
"""

_CORRUPT = (11, 26)  # SQLITE_CORRUPT (and its extended codes), SQLITE_NOTADB


def is_damage(exc: sqlite3.Error) -> bool:
    """Whether SQLite says the database file is damaged or is no database."""
    code = getattr(exc, "sqlite_errorcode", None)
    if isinstance(code, int):
        return code & 0xFF in _CORRUPT
    text = str(exc).lower()
    return "malformed" in text or "not a database" in text


class IndexBusy(Exception):
    """Another memtui held the search index longer than :data:`BUSY_SECONDS`."""


def _meta() -> dict[str, str]:
    print_ = zlib.crc32(marshal.dumps(fingerprint(), 0))
    return {"format": str(FORMAT), "tokenizer": TOKENIZER, "core": f"{print_:08x}",
            "sqlite": sqlite3.sqlite_version}


@dataclass(frozen=True)
class Doc:
    """What one memory file's row holds: its key, how it is reached, and its indexed columns."""

    path: str
    key: bytes
    trusted: bool
    reach: str
    archived: bool
    type: str
    title: str
    hook: str
    columns: tuple[str, ...] | None  # None: the row's text is unchanged (only its facts moved)


@dataclass
class SyncReport:
    """What one :meth:`SearchIndex.sync` did."""

    roots: int = 0
    checked: int = 0  # roots whose files were stat-ed
    read: int = 0  # memory files read (their text indexed)
    written: int = 0  # rows inserted or rewritten
    removed: int = 0  # rows dropped (files gone, roots gone)
    rebuilt: bool = False  # the database was replaced (damaged, another version)
    gone: list[str] = field(default_factory=list)  # roots no longer there


def _pack(columns: tuple[str, ...]) -> bytes:
    return zlib.compress(marshal.dumps(columns), 1)


def _unpack(blob: bytes) -> tuple[str, ...]:
    columns = marshal.loads(zlib.decompress(blob))
    if type(columns) is not tuple or len(columns) != len(COLUMNS) or not all(
            type(c) is str for c in columns):
        raise sqlite3.DatabaseError("database disk image is malformed (a row's text)")
    return columns


def key_bytes(key: Key) -> bytes:
    """A stat key as the ``docs.key`` column holds it."""
    return marshal.dumps(tuple(key), 0)


def doc_columns(f: MemoryFile, hook: str) -> tuple[str, ...]:
    """The indexed columns of a memory file (:data:`~memtui.core.model.search_text.COLUMNS`)."""
    name = f.path[:-3] if f.path.lower().endswith(".md") else f.path
    return tuple(index_text(part) for part in (name, f.title, f.description, hook, f.body))


def reach_facts(snapshot: Snapshot) -> Callable[[str], tuple[str, bool, str]]:
    """For each file of a snapshot: how the indexes reach it (:meth:`~memtui.core.rules.validate.Reach.how`,
    the loader's cut applied), whether it is archived, and its hook (its first active entry's,
    else its first archive entry's)."""
    from ..rules.budget import budget_of
    from ..rules.validate import reach_of

    reach = reach_of(snapshot)
    cut = budget_of(snapshot).cut_line

    def facts(path: str) -> tuple[str, bool, str]:
        how = reach.how(path, cut)
        f = snapshot.files[path]
        archived = how == "archive" or path.startswith(ARCHIVE_DIR + "/") or f.status == "archived"
        entries = reach.direct.get(path) or reach.archived.get(path) or ()
        hook = next((line.hook for line in entries if line.hook), "")
        return how, archived, hook

    return facts


@dataclass(frozen=True)
class RootState:
    """What a root's rows were made from (the ``roots.state`` column): the budget configuration,
    the stat keys of ``MEMORY.md`` and of the archive index (and its name as found), and each
    listed folder's key (None when the folders cannot vouch for the listing)."""

    config: str
    indexes: tuple[Key | None, Key | None]
    archive_name: str | None
    folders: tuple[tuple[str, Key], ...] | None

    def plain(self) -> bytes:
        return marshal.dumps((self.config, self.indexes, self.archive_name, self.folders), 0)

    @classmethod
    def of(cls, blob: bytes | None) -> RootState | None:
        """The state a row holds (None when absent or not a state)."""
        if blob is None:
            return None
        try:
            config, (index, archive), archive_name, folders = marshal.loads(blob)
            if archive_name is not None:
                check_stored_path(archive_name)
            return cls(str(config), (_key_of(index), _key_of(archive)), archive_name,
                       None if folders is None else tuple(
                           (_prefix_of(prefix), _plain_key(key)) for prefix, key in folders))
        except (ValueError, TypeError, EOFError):
            return None


def _key_of(value: object) -> Key | None:
    return None if value is None else _plain_key(value)


def _plain_key(value: object) -> Key:
    if type(value) is not tuple or len(value) != 4 or not all(type(v) is int for v in value):
        raise ValueError("not a stat key")
    return (value[0], value[1], value[2], value[3])


def _prefix_of(value: object) -> str:
    """A stored folder prefix ("" for the root, else a relative path ending in ``/`` with no
    empty, ``.`` or ``..`` part): only ever stat-ed, many per search, so checked in one pass."""
    if value == "":
        return ""
    if (type(value) is not str or not value.endswith("/") or value.startswith("/") or "\0" in value
            or "/./" in "/" + value or "/../" in "/" + value or "//" in value):
        raise ValueError("not a folder")
    return value


def _folder_keys(listing: Listing, limit: int) -> tuple[tuple[str, Key], ...] | None:
    """Each listed folder's stat key when the folders can vouch for the listing (nothing skipped,
    every entry a regular file or a real folder, every key older than ``limit``), else None."""
    if listing.skipped or listing.outside or not listing.folders:
        return None
    out = []
    for prefix, plain in listing.folders:
        if not plain:
            return None
        try:
            key = stat_key(os.stat(os.path.join(listing.root, prefix)))
        except OSError:
            return None
        if key[1] >= limit or key[3] >= limit:
            return None
        out.append((prefix, key))
    return tuple(out)


class SearchIndex:
    """The search index's database, open for one run (see the module docstring)."""

    def __init__(self, path: Path | None, clock: Callable[[], int] = time.time_ns) -> None:
        self.path = path  # None: in memory
        self.clock = clock
        self.rebuilt = False
        self._reals: dict[str, str] = {}
        self._states: dict[bytes, RootState | None] = {}
        self._generation = 0  # connections opened (a rebuild opens another)
        self._token = object()  # this open index (another's versions are not comparable)
        self.conn = self._connect()

    @classmethod
    def open(cls, clock: Callable[[], int] = time.time_ns) -> SearchIndex:
        """The index in memtui's cache folder (in memory when there is none)."""
        return cls(search_index_path(), clock)

    def close(self) -> None:
        self.conn.close()

    def __enter__(self) -> SearchIndex:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # ---------------------------------------------------------------- opening, rebuilding

    def _connect(self) -> sqlite3.Connection:
        try:
            return self._connect_once()
        except sqlite3.DatabaseError as exc:
            if self.path is None or not (is_damage(exc) or isinstance(exc, _Foreign)):
                raise
        self._reset()
        return self._connect_once()

    def _connect_once(self) -> sqlite3.Connection:
        if self.path is None:
            conn = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            conn.executescript(_SCHEMA)
            conn.executemany("INSERT INTO meta VALUES (?, ?)", _meta().items())
            return conn
        self._make_file()
        conn = sqlite3.connect(f"file:{self.path}?mode=rw", uri=True, timeout=BUSY_SECONDS,
                               isolation_level=None, check_same_thread=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")
            self._check_schema(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    def _make_file(self) -> None:
        """The database file, created empty and private when missing (exclusively: two memtuis
        starting at once must not each put a file of their own there), never through a symlink."""
        assert self.path is not None
        folder = self.path.parent
        if not folder.is_dir():
            folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        try:
            fd = os.open(self.path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW | os.O_CLOEXEC,
                         0o600)
        except FileExistsError:
            st = os.lstat(self.path)
            if not stat.S_ISREG(st.st_mode):
                raise sqlite3.DatabaseError("file is not a database (not a regular file)") from None
            return
        os.close(fd)

    def _check_schema(self, conn: sqlite3.Connection) -> None:
        """The schema, made in an empty database; :class:`_Foreign` when another format,
        tokenizer or core wrote it."""
        try:
            found = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        except sqlite3.OperationalError as exc:
            if "no such table" not in str(exc):
                raise
            found = None
        if found is None:
            conn.execute("BEGIN IMMEDIATE")
            try:
                tables = conn.execute("SELECT count(*) FROM sqlite_master").fetchone()[0]
                if tables == 0:
                    for statement in _SCHEMA.split(";"):  # (executescript would commit first)
                        if statement.strip():
                            conn.execute(statement)
                    conn.executemany("INSERT INTO meta VALUES (?, ?)", _meta().items())
                conn.execute("COMMIT")
            except BaseException:
                conn.execute("ROLLBACK")
                raise
            found = dict(conn.execute("SELECT key, value FROM meta").fetchall())
        if found != _meta():
            raise _Foreign("the search index was written by another version")

    def _reset(self) -> None:
        """Replace the database (its WAL and shared memory first) with an empty file."""
        from ..write import replace_file

        assert self.path is not None
        folder, name = self.path.parent, self.path.name
        for part in (f"{name}-wal", f"{name}-shm", name):
            if part == name or os.path.lexists(folder / part):
                replace_file(folder, part, b"")
        self.rebuilt = True

    def rebuild(self) -> None:
        """Start again from an empty database (after SQLite reported damage mid-run)."""
        self._generation += 1
        self.conn.close()
        if self.path is None:
            self.conn = self._connect_once()
            return
        self._reset()
        self.conn = self._connect_once()

    def version(self) -> tuple[object, int, int, int]:
        """What the index holds, as far as this run can tell: equal twice only when no row was
        written in between, by this connection (its count of changed rows) or by another
        (SQLite's ``data_version``), and the database was not rebuilt."""
        (data_version,) = self.conn.execute("PRAGMA data_version").fetchone()
        return self._token, self._generation, self.conn.total_changes, int(data_version)

    # ---------------------------------------------------------------- keeping it current

    def sync(self, roots: Sequence[Path | str], check: str = FILES,
             config: BudgetConfig = BudgetConfig(), *, prune: bool = False) -> SyncReport:
        """Bring each root's rows up to date (``check``: :data:`FILES` or :data:`FOLDERS`; see
        the module docstring); ``prune``: also drop the rows of every other root that is no
        longer a root."""
        report = SyncReport(rebuilt=self.rebuilt)
        known = {real: (rid, blob) for rid, real, blob in
                 self.conn.execute("SELECT id, real, state FROM roots").fetchall()}
        young = {rid for (rid,) in self.conn.execute(
            "SELECT DISTINCT root FROM docs WHERE trusted = 0").fetchall()}
        seen: set[str] = set()
        shown_config = repr(config)
        for root in roots:
            real = self.real(root)
            if real in seen:
                continue
            seen.add(real)
            report.roots += 1
            row = known.get(real)
            found = None if row is None else (row[0], self._state(row[1]))
            if (check == FOLDERS and found is not None and found[0] not in young
                    and self._unchanged(str(root), found[1], shown_config)):
                continue
            self._sync_root(Path(root), real, found, config, report)
        if prune:
            for real in known:
                if real not in seen and not os.path.isfile(os.path.join(real, "MEMORY.md")):
                    report.removed += self._drop_root(real)
                    report.gone.append(real)
        return report

    def real(self, root: Path | str) -> str:
        """A root's real path (asked of the file system once per run)."""
        key = str(root)
        found = self._reals.get(key)
        if found is None:
            found = self._reals[key] = os.path.realpath(root)
        return found

    def root_ids(self, roots: Iterable[Path | str]) -> dict[int, str]:
        """The row id of each of ``roots`` the index holds → its path as given."""
        wanted = {self.real(r): str(r) for r in roots}
        out = {}
        for rid, real in self.conn.execute("SELECT id, real FROM roots").fetchall():
            if real in wanted:
                out[rid] = wanted[real]
        return out

    def _state(self, blob: bytes | None) -> RootState | None:
        """A ``roots.state`` column read (:meth:`RootState.of`), once per run for each value."""
        if blob is None:
            return None
        blob = bytes(blob)
        if blob not in self._states:
            if len(self._states) >= 4096:  # an index kept open long: the states of roots since rewritten
                self._states.clear()
            self._states[blob] = RootState.of(blob)
        return self._states[blob]

    def _unchanged(self, base: str, state: RootState | None, config: str) -> bool:
        """The ``folders`` check: the root's configuration (``repr`` of the budget
        configuration), indexes and folders are as its rows were made from."""
        if state is None or state.folders is None or state.config != config:
            return False
        try:
            if _stat_or_none(base + "/MEMORY.md") != state.indexes[0]:
                return False
            archive = (None if state.archive_name is None
                       else _stat_or_none(base + "/" + state.archive_name))
            if archive != state.indexes[1]:
                return False
            for prefix, key in state.folders:
                if stat_key(os.stat(base + "/" + prefix if prefix else base)) != key:
                    return False
        except OSError:
            return False
        return True

    def _sync_root(self, root: Path, real: str, found: tuple[int, RootState | None] | None,
                   config: BudgetConfig, report: SyncReport) -> None:
        report.checked += 1
        since = self.clock()
        try:
            listing = list_root(root)
        except RootError:
            if found is not None:
                report.removed += self._drop_root(real)
            report.gone.append(real)
            return
        limit = since - RACY_NS
        keys: dict[str, Key] = {}
        for rel, path in listing.memory:
            try:
                keys[rel] = stat_key(os.stat(path))
            except OSError:
                continue
        found_keys = index_keys(listing) or [None, None]
        indexes = (found_keys[0], found_keys[1])
        state = RootState(repr(config), indexes, listing.archive[1] if listing.archive else None,
                          _folder_keys(listing, limit))
        stored = found[1] if found is not None else None
        if (found is not None and stored is not None and stored.config == state.config
                and stored.indexes == indexes and self._trusted_keys(found[0]) == {
                    p: key_bytes(k) for p, k in keys.items()}):
            if stored != state:  # a folder's key moved (a file that is no memory): keep the new one
                self._write(real, str(root), state, [], None)
            return
        rows = self._rows(found[0]) if found is not None else {}
        docs = self._docs(root, listing, config, rows, keys, limit, report)
        self._write(real, str(root), state, docs, set(keys), report)

    def _trusted_keys(self, rid: int) -> dict[str, bytes]:
        """A root's rows whose keys can be trusted: path → key (what the check of every file
        compares first; the rest of a row is read only when some key moved)."""
        return dict(self.conn.execute("SELECT path, key FROM docs WHERE root = ? AND trusted", (rid,)))

    def _rows(self, rid: int) -> dict[str, tuple[int, bytes, int, str, int, str, str, str]]:
        """A root's rows: path → (id, key, trusted, reach, archived, type, title, hook)."""
        return {row[0]: row[1:] for row in self.conn.execute(
            "SELECT path, id, key, trusted, reach, archived, type, title, hook FROM docs "
            "WHERE root = ?", (rid,))}

    def _docs(self, root: Path, listing: Listing, config: BudgetConfig,
              rows: dict[str, tuple[int, bytes, int, str, int, str, str, str]],
              keys: dict[str, Key], limit: int, report: SyncReport) -> list[Doc]:
        """Every file's row as it should be now; a file is read only when its key changed."""
        cache = StatCache.open(root, self.clock)
        snapshot = cache.load(listing, config)
        facts = reach_facts(snapshot)
        docs = []
        for path, f in snapshot.files.items():
            key = cache.used.get(path) or keys.get(path)  # (a disabled stat cache keeps none)
            if key is None or key[0] < 0:
                continue
            how, archived, hook = facts(path)
            row = rows.get(path)
            packed_key = key_bytes(key)
            same_text = row is not None and row[1] == packed_key and bool(row[2])
            if same_text and row is not None and (row[3], bool(row[4]), row[5], row[6], row[7]) == (
                    how, archived, f.type, f.title, hook):
                continue
            columns = None
            if not same_text or row is None or row[7] != hook:
                if not same_text:
                    report.read += 1
                columns = doc_columns(f, hook)
            trusted = key[1] < limit and key[3] < limit
            docs.append(Doc(path, packed_key, trusted, how, archived, f.type, f.title, hook, columns))
        cache.save()
        return docs

    def _write(self, real: str, shown: str, state: RootState, docs: list[Doc],
               listed: set[str] | None, report: SyncReport | None = None) -> None:
        """Apply a root's rows in one transaction, against the rows as they are then (``listed``:
        the root's memory files now, every other row goes; None: no row goes)."""
        conn = self.conn
        try:
            conn.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            if "locked" in str(exc) or "busy" in str(exc):
                raise IndexBusy(str(exc)) from exc
            raise
        try:
            conn.execute("INSERT OR IGNORE INTO roots(real, shown) VALUES (?, ?)", (real, shown))
            rid = conn.execute("SELECT id FROM roots WHERE real = ?", (real,)).fetchone()[0]
            current = {row[0]: row[1:] for row in conn.execute(
                "SELECT path, id, key FROM docs WHERE root = ?", (rid,))}
            written = removed = 0
            if listed is not None:
                for path in [p for p in current if p not in listed]:
                    self._delete(current.pop(path)[0])
                    removed += 1
            for doc in docs:
                old = current.get(doc.path)
                columns = doc.columns
                if columns is None:  # only the row's facts moved: keep its text
                    if old is None:
                        continue
                    conn.execute("UPDATE docs SET key = ?, trusted = ?, reach = ?, archived = ?, "
                                 "type = ?, title = ? WHERE id = ?",
                                 (doc.key, int(doc.trusted), doc.reach, int(doc.archived), doc.type,
                                  doc.title, old[0]))
                    continue
                packed = _pack(columns)
                if old is not None:
                    if old[1] == doc.key and self._packed(old[0]) == packed:  # another memtui
                        # wrote the same meanwhile
                        conn.execute("UPDATE docs SET trusted = ?, reach = ?, archived = ?, type = ?, "
                                     "title = ?, hook = ? WHERE id = ?",
                                     (int(doc.trusted), doc.reach, int(doc.archived), doc.type,
                                      doc.title, doc.hook, old[0]))
                        continue
                    self._delete(old[0])
                self._insert(rid, doc.path, doc.key, doc.trusted, (doc.reach, int(doc.archived),
                             doc.type, doc.title, doc.hook), columns, packed)
                written += 1
            conn.execute("UPDATE roots SET shown = ?, state = ?, checked_ns = ? WHERE id = ?",
                         (shown, state.plain(), self.clock(), rid))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        if report is not None:
            report.written += written
            report.removed += removed

    def _packed(self, rid: int) -> bytes | None:
        row = self.conn.execute("SELECT packed FROM texts WHERE id = ?", (rid,)).fetchone()
        return None if row is None else bytes(row[0])

    def _delete(self, rid: int) -> None:
        """Forget one row: FTS5 is told the text it was given (kept in ``texts``)."""
        packed = self._packed(rid)
        if packed is None:
            raise sqlite3.DatabaseError("database disk image is malformed (a row without its text)")
        self.conn.execute(
            f"INSERT INTO fts(fts, rowid, {', '.join(COLUMNS)}) VALUES ('delete', ?, ?, ?, ?, ?, ?)",
            (rid, *_unpack(packed)))
        self.conn.execute("DELETE FROM docs WHERE id = ?", (rid,))
        self.conn.execute("DELETE FROM texts WHERE id = ?", (rid,))

    def _insert(self, root_id: int, path: str, key: bytes, trusted: bool,
                facts: tuple[str, int, str, str, str], columns: tuple[str, ...],
                packed: bytes | None = None) -> None:
        """A new row (``facts``: reach, archived, type, title, hook), its text and its FTS5 row."""
        cursor = self.conn.execute(
            "INSERT INTO docs(root, path, key, trusted, reach, archived, type, title, hook) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)", (root_id, path, key, int(trusted), *facts))
        self.conn.execute("INSERT INTO texts(id, packed) VALUES (?, ?)",
                          (cursor.lastrowid, packed if packed is not None else _pack(columns)))
        self.conn.execute(f"INSERT INTO fts(rowid, {', '.join(COLUMNS)}) VALUES (?, ?, ?, ?, ?, ?)",
                          (cursor.lastrowid, *columns))

    def _drop_root(self, real: str) -> int:
        """Every row of a root, and the root, gone (in one transaction); how many rows went."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            row = conn.execute("SELECT id FROM roots WHERE real = ?", (real,)).fetchone()
            count = 0
            if row is not None:
                for (old,) in conn.execute("SELECT id FROM docs WHERE root = ?", (row[0],)).fetchall():
                    self._delete(old)
                    count += 1
                conn.execute("DELETE FROM roots WHERE id = ?", (row[0],))
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise
        return count

    def replace_row(self, root_id: int, path: str, key: Key, columns: tuple[str, ...],
                    trusted: bool) -> None:
        """A row rewritten from its file as a hit's re-check read it (its facts kept)."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            old = conn.execute("SELECT id, reach, archived, type, title, hook FROM docs "
                               "WHERE root = ? AND path = ?", (root_id, path)).fetchone()
            if old is not None:
                self._delete(old[0])
                self._insert(root_id, path, key_bytes(key), trusted, tuple(old[1:]), columns)
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    def drop_row(self, root_id: int, path: str) -> None:
        """A row whose file is gone (a hit's re-check found nothing there)."""
        conn = self.conn
        conn.execute("BEGIN IMMEDIATE")
        try:
            old = conn.execute("SELECT id FROM docs WHERE root = ? AND path = ?",
                               (root_id, path)).fetchone()
            if old is not None:
                self._delete(old[0])
            conn.execute("COMMIT")
        except BaseException:
            conn.execute("ROLLBACK")
            raise

    # ---------------------------------------------------------------- asking it

    def candidates(self, expression: str, root_ids: Collection[int], limit: int,
                   offset: int = 0) -> list[Candidate]:
        """The rows matching an FTS5 expression in these roots, best BM25 rank first.

        FTS5 ranks its own rows and hands over the best ``limit`` (after ``offset``), and only
        those are joined to their ``docs`` rows: a word most files hold is ranked without a
        ``docs`` look-up per matching row (at 100k files of 50 roots, 93k rows, that look-up
        and the root test were a quarter of the query).  When a row so found is of another
        root (the index holds roots not searched), the rows are ranked again with the root
        test applied to every matching row."""
        if not root_ids:
            return []
        weights = ", ".join(str(w) for w in WEIGHTS)
        wanted = set(root_ids)
        rows = self.conn.execute(
            f"SELECT d.root, d.path, d.key, d.trusted, d.reach, d.archived, d.type, d.title, d.hook, "
            f"f.rank FROM (SELECT rowid, bm25(fts, {weights}) AS rank FROM fts WHERE fts MATCH ? "
            f"ORDER BY rank LIMIT ? OFFSET ?) f LEFT JOIN docs d ON d.id = f.rowid ORDER BY f.rank",
            (expression, limit, offset)).fetchall()
        if all(row[0] in wanted for row in rows):
            return [Candidate(*row) for row in rows]
        marks = ", ".join("?" * len(root_ids))
        rows = self.conn.execute(
            f"SELECT d.root, d.path, d.key, d.trusted, d.reach, d.archived, d.type, d.title, d.hook, "
            f"bm25(fts, {weights}) AS rank FROM fts JOIN docs d ON d.id = fts.rowid "
            f"WHERE fts MATCH ? AND d.root IN ({marks}) ORDER BY rank LIMIT ? OFFSET ?",
            (expression, *root_ids, limit, offset)).fetchall()
        return [Candidate(*row) for row in rows]

    def count(self, expression: str, root_ids: Collection[int]) -> int:
        """How many rows of these roots match (FTS5 alone counts them when the index holds no
        other root: no ``docs`` look-up per matching row)."""
        if not root_ids:
            return 0
        marks = ", ".join(f"?{n}" for n in range(2, len(root_ids) + 2))  # ?1: the expression
        return int(self.conn.execute(
            f"SELECT CASE WHEN EXISTS (SELECT 1 FROM roots WHERE id NOT IN ({marks})) "
            f"THEN (SELECT count(*) FROM fts JOIN docs d ON d.id = fts.rowid WHERE fts MATCH ?1 "
            f"AND d.root IN ({marks})) ELSE (SELECT count(*) FROM fts WHERE fts MATCH ?1) END",
            (expression, *root_ids)).fetchone()[0])

    def files(self, root_ids: Collection[int]) -> int:
        """How many files of these roots the index holds."""
        if not root_ids:
            return 0
        marks = ", ".join(f"?{n}" for n in range(1, len(root_ids) + 1))
        return int(self.conn.execute(
            f"SELECT CASE WHEN EXISTS (SELECT 1 FROM roots WHERE id NOT IN ({marks})) "
            f"THEN (SELECT count(*) FROM docs WHERE root IN ({marks})) "
            f"ELSE (SELECT count(*) FROM docs) END", tuple(root_ids)).fetchone()[0])


@dataclass(frozen=True)
class Candidate:
    """A row an FTS5 query found (not yet checked against its file)."""

    root_id: int
    path: str
    key: bytes
    trusted: int
    reach: str
    archived: int
    type: str
    title: str
    hook: str
    rank: float


class _Foreign(sqlite3.DatabaseError):
    """The database was written by another format, tokenizer or core."""


def _stat_or_none(path: Path | str) -> Key | None:
    """A file's stat key, None when it is not there."""
    try:
        return stat_key(os.stat(path))
    except FileNotFoundError:
        return None
