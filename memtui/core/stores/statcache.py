"""A stat-keyed cache of what each memory file parsed to, kept in the user's cache folder.

Like git's index: a file whose ``(size, mtime_ns, inode, ctime_ns)`` is what it was when it was
last parsed is not read again — its frontmatter, findings, references and tokens come from the
cache, and its text is read only if something asks for it.  A whole root whose listing and
stat keys are unchanged gets its validation back without parsing anything.

Where: ``$MEMTUI_CACHE_DIR``, else ``$XDG_CACHE_HOME/memtui``, else ``~/.cache/memtui``; one file
per root, ``stat/<hash of the root's real path>.cache``; ``MEMTUI_NO_CACHE=1`` disables it, and
so does a cache folder memtui must not use: one whose real path lies inside a memory root (a
folder holding ``MEMORY.md``, this root or another), or whose ``memtui`` or ``stat`` folder is a
symlink (the cache is written through a descriptor on ``stat/`` opened without following one).
A relative ``XDG_CACHE_HOME`` is ignored, as the XDG spec says.  The cache is never required: a
missing, corrupt, foreign (another root, format, Python or memtui source) or unwritable cache is
ignored and rebuilt, silently; so is a cache file that is not a regular file (opened
non-blocking: a FIFO there cannot hang a hook) or is over :data:`MAX_CACHE_BYTES`.  It is
written to an exclusively created temp file with an unpredictable name, then renamed.

The racy case (git's "racy clean"): a file rewritten in place with the same size within one
timestamp tick of an earlier write keeps its whole stat key.  Any change after time ``T`` sets
the file's ctime to at least ``T`` less the filesystem's granularity, and ctime cannot be set
back by ``utime``; so a file whose mtime and ctime are both older than ``T − 2 s``, where ``T``
is the clock just before the root was listed, cannot have changed after it was read with its
key unchanged.  Only such files are stored; younger ones are re-read on every run until they
age (2 s covers coarse timestamp ticks and FAT's 2-second mtimes).  The same rule guards the
whole-root answers.

Format: a magic line, a 4-byte header length, a ``marshal`` header (format, fingerprint of this
Python and memtui's core source, the root's real path, the sections' offsets, lengths and
CRC-32s), then one ``marshal`` blob per section, each decoded only when first asked for:
``base`` (frontmatter, per-file findings), ``stale`` (references, directive), ``scan`` (tokens,
stance, the extends cue), ``memo`` (validate's whole-root answer) and one section for each other
whole-root answer (``memo-scan``, ``memo-stale``, ``memo-successors``, ``memo-rebuild``,
``memo-dream``: the fleet's count of a dream's items).
Entries are plain tuples, ``path → (key, facets)``.
Paths read back are only ever looked up by the paths of the current listing; findings read back
must name a plain relative path of the listing (:func:`memtui.core.model.safepath.check_stored_path`),
or the entry is ignored.  The handoff state lives outside the root and depends on the day: its
warnings are never cached.
"""

from __future__ import annotations

import gc
import marshal
import os
import stat
import sys
import time
import zlib
from dataclasses import astuple, dataclass, fields
from functools import cached_property
from operator import attrgetter
from pathlib import Path
from typing import Any, Callable, Container, Iterable, TypeVar

# lazy faces: a warm validation is answered without the validator, a read loads no writer
from .. import rules, write
from ..model.frontmatter import PlainFrontmatter, parse_frontmatter
from ..model.gcpause import gc_paused
from ..model.index import parse_index
from ..model.journal import pending_records, progress_of
from ..model.lazyfiles import LazyFiles
from ..model.places import CACHE_DIR_ENV as CACHE_DIR_ENV  # the folders' names, kept here for callers
from ..model.places import NO_CACHE_ENV as NO_CACHE_ENV
from ..model.places import cache_dir as cache_dir
from ..model.places import in_memory_root as in_memory_root
from ..model.places import usable_cache_folder as usable_cache_folder
from ..model.places import user_cache_dir as user_cache_dir
from ..model.safepath import check_stored_path
from ..model.snapshot import (
    EMPTY_FRONTMATTER,
    BudgetConfig,
    EntryForm,
    Finding,
    Frontmatter,
    FrontmatterLine,
    Index,
    IndexLine,
    LineKind,
    MemoryFile,
    Ref,
    ScopeSection,
    Snapshot,
    decode_bytes,
)
from ..read.handoff import handoff_findings, state_for_root
from ..read.store import (
    MAX_READ_BYTES,
    Listing,
    TooLarge,
    list_root,
    read_memory_file,
    read_with_stat,
    snapshot_of,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from ..rules.budget import Budget

FORMAT = 2
MAGIC = b"memtui stat cache\n"
RACY_NS = 2_000_000_000
MAX_CACHE_BYTES = 256 << 20  # a cache file over this is no cache (never read into memory)
SECTIONS = ("base", "stale", "scan", "memo", "index", "memo-scan", "memo-stale", "memo-successors",
            "memo-rebuild", "memo-dream")
_WHOLE = ("memo", "index", "memo-scan", "memo-stale", "memo-successors",
          "memo-rebuild", "memo-dream")  # sections not keyed by memory file


def _memo_section(name: str) -> str:
    """Where a whole-root answer lives: validate's in ``memo``, each other in its own section
    (a warm validate decodes only its own)."""
    return "memo" if name == "validate" else f"memo-{name}"

Key = tuple[int, int, int, int]  # size, mtime_ns, inode, ctime_ns
T = TypeVar("T")


def _open_folder(folder: Path) -> int:
    """A descriptor on ``folder``, opened without following a symlink at its last part."""
    return os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)


def read_cache_file(folder: Path, name: str, limit: int = MAX_CACHE_BYTES) -> bytes | None:
    """The bytes of ``folder/name`` in the user's cache, or None when absent, unreadable, not a
    regular file (opened non-blocking, never through a symlink: ``folder`` nor ``name``) or over
    ``limit`` bytes."""
    try:
        dir_fd = _open_folder(folder)
    except OSError:
        return None
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, dir_fd=dir_fd)
    except OSError:
        return None
    finally:
        os.close(dir_fd)
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode) or st.st_size > limit:
            return None
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, max(st.st_size - size, 0) + 1)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        return None if size > limit else b"".join(chunks)
    except OSError:
        return None
    finally:
        os.close(fd)


def write_cache_file(folder: Path, name: str, data: bytes) -> None:
    """Write ``folder/name`` in the user's cache (:func:`memtui.core.write.replace_file`, no
    fsync), the folder made ``0o700`` with its parents when missing.  Raises OSError.

    The cache is written through the writer's safe-file layer, not by a rename of its own, so
    every file-system change stays in one module (``write/fs.py``) and the cache sits above the
    writer; the rules below it get a cached file's findings from the file they are handed."""
    if not os.path.isdir(folder):
        folder.mkdir(mode=0o700, parents=True, exist_ok=True)
    write.replace_file(folder, name, data)


_FINGERPRINT: tuple[Any, ...] | None = None


def fingerprint() -> tuple[Any, ...]:
    """What a cache must have been written by: this format, Python, and the source of every module
    of the core (its packages' too)."""
    global _FINGERPRINT
    if _FINGERPRINT is None:
        from memtui import __version__

        core = os.path.dirname(os.path.abspath(sys.modules["memtui.core"].__file__ or __file__))
        sources: list[tuple[str, int, int]] = []
        folders = [""]  # the core and its packages, by their path below it
        while folders:
            below = folders.pop()
            with os.scandir(os.path.join(core, below)) as it:
                for entry in it:
                    name = os.path.join(below, entry.name)
                    if entry.name.endswith(".py"):
                        st = entry.stat()
                        sources.append((name, st.st_size, st.st_mtime_ns))
                    elif entry.name != "__pycache__" and entry.is_dir(follow_symlinks=False):
                        folders.append(name)
        _FINGERPRINT = (FORMAT, tuple(sys.version_info[:2]), __version__, tuple(sorted(sources)))
    return _FINGERPRINT


def stat_key(st: os.stat_result) -> Key:
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


# ------------------------------------------------------------------------ frontmatter as tuples


def frontmatter_plain(fm: Frontmatter) -> tuple[Any, ...]:
    """A frontmatter as plain tuples (for marshal); the lines of a :class:`PlainFrontmatter` are
    left out (they follow from its fields)."""
    fields, lists = fm.fields, fm.lists
    if type(fields) is not dict:
        fields = dict(fields)
    if type(lists) is not dict or any(type(v) is not tuple for v in lists.values()):
        lists = {k: tuple(v) for k, v in lists.items()}
    lines = None if type(fm) is PlainFrontmatter else tuple(map(tuple, fm.lines))
    return (fm.present, fm.closed, fields, lists, lines, tuple(fm.unsplit), fm.body_offset)


_new = object.__new__


def frontmatter_of(plain: tuple[Any, ...]) -> Frontmatter:
    """The frontmatter :func:`frontmatter_plain` gave (built without ``__init__``: many per run)."""
    present, closed, fields, lists, lines, unsplit, body_offset = plain
    if not present:
        return EMPTY_FRONTMATTER
    if lines is None and type(fields) is not dict:
        raise ValueError("not a frontmatter")
    fm = _new(Frontmatter if lines is not None else PlainFrontmatter)  # a plain block's lines
    values = fm.__dict__  # are made from its fields when asked for
    values["present"] = present
    values["closed"] = closed
    values["fields"] = fields
    values["lists"] = lists
    if lines is not None:
        values["lines"] = tuple([_line(line) for line in lines])
    values["unsplit"] = unsplit
    values["body_offset"] = body_offset
    return fm


def _line(plain: tuple[Any, ...]) -> FrontmatterLine:
    if len(plain) != 6:
        raise ValueError("not a frontmatter line")
    return tuple.__new__(FrontmatterLine, plain)


def findings_plain(findings: Iterable[Finding]) -> tuple[tuple[Any, ...], ...]:
    return tuple((f.rule, f.severity, f.path, f.line, f.message, f.subject) for f in findings)


def findings_of(plain: Iterable[tuple[Any, ...]], paths: Callable[[str], bool]) -> list[Finding]:
    """Findings from plain tuples; a ValueError when one names a path ``paths`` refuses."""
    out = []
    for rule, severity, path, line, message, subject in plain:
        if not paths(check_stored_path(path)):  # an UnsafePath is a ValueError
            raise ValueError(f"cached finding names {path!r}")
        out.append(Finding(rule, severity, path, line, message, subject))
    return out


# ------------------------------------------------------------------------ an index as tuples

_LINE_FIELDS = tuple(f.name for f in fields(IndexLine))
_LINE_VALUES = attrgetter(*_LINE_FIELDS)
_KINDS = {kind.value: kind for kind in LineKind}
_FORMS: dict[str | None, EntryForm | None] = {form.value: form for form in EntryForm}
_FORMS[None] = None


def index_plain(index: Index) -> tuple[Any, ...]:
    """A parsed index as plain tuples (for marshal); equal strings of a line (an entry's target,
    its resolved path and its link's) are one object, which marshal writes once."""
    lines = []
    values_of = _LINE_VALUES
    for line in index.lines:
        values = list(values_of(line))
        values[3] = line.kind.value
        values[6] = None if line.form is None else line.form.value
        same: dict[str, str] = {}
        for i in (7, 8, 10, 12):  # target, resolved, title, link text
            if isinstance(values[i], str):
                values[i] = same.setdefault(values[i], values[i])
        values[-1] = tuple(tuple(same.setdefault(v, v) if isinstance(v, str) else v for v in ref)
                           for ref in line.refs)
        lines.append(tuple(values))
    return (tuple(lines), index.bom, tuple(map(astuple, index.scopes)))


def index_of(rel: str, plain: tuple[Any, ...], files: Container[str] = frozenset()) -> Index:
    """The index :func:`index_plain` gave (lines built without ``__init__``); a ValueError when a
    path in it is neither one of ``files`` nor a plain relative path."""
    rows, bom, scopes = plain
    return Index(path=rel, exists=True, lines=_lines_of(rows, files), bom=bom,
                 scopes=tuple(ScopeSection(*scope) for scope in scopes))


def _lines_of(rows: tuple[Any, ...], files: Container[str]) -> tuple[IndexLine, ...]:
    if isinstance(files, LazyFiles) and len(rows) > LINES_FOR_SET:
        files = files.path_set()  # one lookup a line: in a set, not through the mapping
    lines = []
    new = _new
    names = _LINE_FIELDS
    make_ref = tuple.__new__
    for row in rows:
        if len(row) != len(names):
            raise ValueError("not an index line")
        line = new(IndexLine)
        values = line.__dict__
        values.update(zip(names, row))
        values["kind"] = _KINDS[row[3]]
        values["form"] = _FORMS[row[6]]
        if row[8] is not None and row[8] not in files:
            check_stored_path(row[8])
        refs = values["refs"] = tuple([make_ref(Ref, ref) for ref in row[-1]])
        for ref in refs:
            if len(ref) != 4:
                raise ValueError("not a reference")
            if ref[2] is not None and ref[2] not in files:
                check_stored_path(ref[2])
        lines.append(line)
    return tuple(lines)


#: an index of more lines than this looks its paths up in a set of every file (a short one
#: searches the sorted paths: hashing 100,000 paths costs what thousands of searches do)
LINES_FOR_SET = 512


class LazyIndex(Index):
    """An index kept as its marshalled lines (``marshal.dumps`` of :func:`index_plain`'s rows),
    built when first asked for: what a judged write reads of an archive index of thousands of
    lines it does not touch is its name, its scopes, its bytes and its secrets, all kept beside.
    It holds what the :class:`Index` of :func:`index_of` holds (though the two never compare
    equal: a dataclass's ``==`` asks for one class); when the lines are built, the
    ``broken`` exception :func:`lazy_index_of` was given if the kept lines are not an index's."""

    @cached_property
    def lines(self) -> tuple[IndexLine, ...]:
        values = self.__dict__
        try:
            return _lines_of(marshal.loads(values["_blob"]), values["_files"])
        except (ValueError, EOFError, TypeError, KeyError, IndexError) as exc:
            raise values["_broken"](self.path) from exc

    def blob(self) -> bytes:
        """The marshalled rows (kept: the lines need not be built)."""
        blob: bytes = self.__dict__["_blob"]
        return blob


def lazy_index_of(rel: str, blob: bytes, bom: bool, scopes: tuple[Any, ...], rendered: bytes,
                  secrets: tuple[Finding, ...] | None, files: Container[str] = frozenset(),
                  broken: type[Exception] = ValueError) -> Index:
    """A :class:`LazyIndex` (``rendered``: its bytes, ``secrets``: the secret findings of its
    text, both as :class:`Index` would work them out, None: found when asked for; ``broken``: what building its lines
    raises, with the index's name, when the kept lines are not an index's)."""
    index = _new(LazyIndex)
    values = index.__dict__
    values.update(path=rel, exists=True, bom=bool(bom),
                  scopes=tuple(ScopeSection(*scope) for scope in scopes),
                  _blob=bytes(blob), _files=files, _rendered=bytes(rendered), _broken=broken)
    if secrets is not None:
        values["_secrets"] = tuple(secrets)
    return index


# ------------------------------------------------------------------------ the lazily read file


class CachedFile(MemoryFile):
    """A memory file from a cached load: its text is read from disk only when first asked for.

    A text read late is the file as it is then (a read-only run that outlives a change sees the
    new text); what writes loads through the cache only with ``texts`` (every text read with
    the stat key its facets are looked up by).
    """

    _open: str | None = None
    _cache: StatCache | None = None
    _key: Key | None = None

    @staticmethod
    def cached_findings(files: list[MemoryFile], structural: set[str],
                        compute: Callable[[list[MemoryFile], set[str]], list[list[Finding]]]) -> list[Finding]:
        """The validator's per-file findings of a cached load's files (:func:`file_findings_cached`);
        the validator asks its first file for them, so the rules never import the cache above them."""
        return file_findings_cached(files, structural, compute)

    def __getattr__(self, name: str) -> Any:
        if name != "text" or self._open is None:
            raise AttributeError(name)
        text = ""  # gone (or no longer a regular file) since the listing: the run reports the
        try:  # root as it was listed
            fd = os.open(self._open, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC)
            try:
                if stat.S_ISREG(os.fstat(fd).st_mode):
                    with os.fdopen(os.dup(fd), "rb") as handle:
                        text = decode_bytes(handle.read(MAX_READ_BYTES + 1))
            finally:
                os.close(fd)
        except OSError:
            pass
        object.__setattr__(self, "text", text)
        return text


def _cached_file(
    rel: str, path: str, st: os.stat_result, fm: Frontmatter, cache: StatCache, key: Key,
    text: str | None = None,
) -> CachedFile:
    f = object.__new__(CachedFile)
    values = f.__dict__
    values["path"] = rel
    values["size"] = st.st_size
    values["mtime"] = st.st_mtime
    values["frontmatter"] = fm
    values["mode"] = stat.S_IMODE(st.st_mode)
    values["_open"] = path
    values["_cache"] = cache
    values["_key"] = key
    if text is not None:
        values["text"] = text
    return f


# ------------------------------------------------------------------------ facets


def lookup(f: MemoryFile, facet: str) -> Any:
    """The cached value of ``facet`` (``"section/name"``) for a file, or None."""
    cache = f.__dict__.get("_cache") if type(f) is CachedFile else None
    if cache is None:
        return None
    return cache.get(facet, f.path, f.__dict__["_key"])


def remember(f: MemoryFile, facet: str, value: Any) -> None:
    """Keep ``value`` (plain data) as the file's ``facet`` for the next run."""
    cache = f.__dict__.get("_cache") if type(f) is CachedFile else None
    if cache is not None:
        cache.put(facet, f.path, f.__dict__["_key"], value)


def cached(
    f: MemoryFile, facet: str, compute: Callable[[MemoryFile], T],
    plain: Callable[[T], Any] | None = None, restore: Callable[[Any], T] | None = None,
) -> T:
    """``compute(f)``, kept in the stat cache under ``facet`` when ``f`` came from a cached load.

    ``plain``/``restore`` convert the value to and from marshal-able data (identity if None).
    """
    cache = f.__dict__.get("_cache") if type(f) is CachedFile else None
    if cache is None:  # a file of a plain load: nothing to keep, nothing to convert
        return compute(f)
    key = f.__dict__["_key"]
    raw = cache.get(facet, f.path, key)
    if raw is not None:
        try:
            return restore(raw) if restore is not None else raw
        except (TypeError, ValueError, KeyError):
            pass
    value = compute(f)
    cache.put(facet, f.path, key, plain(value) if plain is not None else value)
    return value


def file_findings_cached(
    files: list[MemoryFile], structural: set[str],
    compute: Callable[[list[MemoryFile], set[str]], list[list[Finding]]],
) -> list[Finding]:
    """Per-file findings of many files: cached ones from the cache, the rest by ``compute``
    (which gives one list per file), remembered for the next run."""
    out: list[Finding] = []
    todo: list[MemoryFile] = []
    if not any(type(f) is CachedFile and f.__dict__.get("_cache") for f in files[:1]):
        return [found for each in compute(files, structural) for found in each]
    cache = files[0].__dict__["_cache"]
    base = cache.section("base")
    for f in files:
        values = f.__dict__
        plain = None
        if type(f) is CachedFile and values.get("_cache") is cache:  # lookup(f, facet), inlined
            entry = base.get(f.path)
            if entry is not None and entry[0] == values["_key"]:
                plain = entry[1].get("ffs" if f.path in structural else "ff")
        elif type(f) is CachedFile:
            plain = lookup(f, "base/ffs" if f.path in structural else "base/ff")
        if plain is not None:
            try:
                out.extend(findings_of(plain, f.path.__eq__))
                continue
            except (TypeError, ValueError):
                pass
        todo.append(f)
    put = cache.put_in
    for f, found in zip(todo, compute(todo, structural)):
        values = f.__dict__
        if type(f) is CachedFile and values.get("_cache") is cache:  # remember(f, …), inlined
            put("base", "ffs" if f.path in structural else "ff", f.path, values["_key"],
                findings_plain(found) if found else ())
        else:
            remember(f, "base/ffs" if f.path in structural else "base/ff", findings_plain(found))
        out.extend(found)
    return out


# ------------------------------------------------------------------------ the cache

_PARTS: dict[str, tuple[str, str]] = {}


def _parts(facet: str) -> tuple[str, str]:
    """``"section/name"`` split once per process (facets are looked up per file)."""
    section, _, name = facet.partition("/")
    found = _PARTS[facet] = (section, name)
    return found



class StatCache:
    """One root's stat cache for one run: load lazily, read files through it, save once."""

    def __init__(self, root_real: str, path: Path | None, clock: Callable[[], int] = time.time_ns,
                 read: bool = True):
        self.root_real = root_real
        self.path = path  # None: disabled (nothing read or written)
        self.clock = clock
        self.since_ns = clock()  # taken before the root is listed: the racy rule's T
        self._limit = self.since_ns - RACY_NS
        self.hits = 0
        self.reads = 0
        self._raw: dict[str, bytes] = {}
        self._sections: dict[str, dict[str, Any]] = {}
        self._dirty: set[str] = set()
        self._stats: dict[str, os.stat_result] = {}
        self.used: dict[str, Key] = {}  # the key each memory file was read (or found) under
        self._listed: set[str] | None = None
        self._loaded: tuple[Listing, BudgetConfig] | None = None
        self.snapshot: Snapshot | None = None  # what :meth:`load` gave
        if path is not None and read:
            self._load(path)

    @classmethod
    def open(cls, root: Path | str, clock: Callable[[], int] = time.time_ns, *,
             read: bool = True) -> StatCache:
        """The cache of a root (disabled when there is no usable cache folder); ``read=False``:
        only where it is (what :mod:`memtui.core.stores.kept` needs), its file left unread."""
        root_real = os.path.realpath(root)
        folder = cache_dir()
        path = None
        if folder is not None and usable_cache_folder(folder, root_real) and usable_cache_folder(
                folder / "stat", root_real):
            name = os.fsencode(root_real)  # two checksums: no hashlib (OpenSSL) to load
            digest = f"{zlib.crc32(name):08x}{zlib.adler32(name):08x}"
            path = folder / "stat" / f"{digest}.cache"  # the header names the root
        return cls(root_real, path, clock, read)

    # ---- reading the file

    def _load(self, path: Path) -> None:
        try:
            data = read_cache_file(path.parent, path.name)
            if data is None or not data.startswith(MAGIC):
                return
            start = len(MAGIC) + 4
            size = int.from_bytes(data[len(MAGIC):start], "little")
            version, print_, root_real, table = marshal.loads(data[start : start + size])
            if version != FORMAT or print_ != fingerprint() or root_real != self.root_real:
                return
            body = start + size
            raw = {}
            for name, (offset, length, crc) in table.items():
                blob = data[body + offset : body + offset + length]
                if name in SECTIONS and len(blob) == length and zlib.crc32(blob) == crc:
                    raw[name] = blob
            self._raw = raw
        except Exception:  # noqa: BLE001 — any unreadable cache is no cache
            self._raw = {}

    def section(self, name: str) -> dict[str, Any]:
        found = self._sections.get(name)
        if found is None:
            found = {}
            blob = self._raw.pop(name, None)
            if blob is not None:
                try:
                    loaded = marshal.loads(blob)
                    if isinstance(loaded, dict):
                        found = loaded
                except Exception:  # noqa: BLE001 - a damaged section is an empty one: its facts are computed again
                    found = {}
            self._sections[name] = found
        return found

    def get(self, facet: str, rel: str, key: Key) -> Any:
        section, name = _PARTS.get(facet) or _parts(facet)
        found = self._sections.get(section)
        entry = (self.section(section) if found is None else found).get(rel)
        if entry is None or entry[0] != key:
            return None
        return entry[1].get(name)

    def put(self, facet: str, rel: str, key: Key, value: Any) -> None:
        section, name = _PARTS.get(facet) or _parts(facet)
        self.put_in(section, name, rel, key, value)

    def put_in(self, section: str, name: str, rel: str, key: Key, value: Any) -> None:
        """:meth:`put` with the facet split (for loops over many files)."""
        if self.path is None or key[1] >= self._limit or key[3] >= self._limit:
            return  # disabled, or too young to keep (the racy rule)
        entries = self._sections.get(section)
        if entries is None:
            entries = self.section(section)
        entry = entries.get(rel)
        if entry is None or entry[0] != key:
            entries[rel] = (key, {name: value})
        else:
            entry[1][name] = value
        self._dirty.add(section)

    def trusted(self, key: Key) -> bool:
        """Whether a file with this key is old enough to be kept (see the racy rule above)."""
        return key[1] < self._limit and key[3] < self._limit

    # ---- reading memory files through the cache

    def read(self, path: str, rel: str) -> MemoryFile:
        """A memory file: from the cache when its stat key is unchanged, else read and parsed."""
        if self.path is None:  # disabled: the store's own reader, nothing to keep
            return read_memory_file(path, rel)
        entry = self.section("base").get(rel)  # (section() also makes sure it is there)
        if entry is not None:
            st = self._stats.pop(rel, None) or os.stat(path)
            key = stat_key(st)
            self.used[rel] = key
            if st.st_size > MAX_READ_BYTES:
                raise TooLarge(st.st_size)
            plain = entry[1].get("fm") if entry[0] == key else None
            if plain is not None:
                try:
                    fm = frontmatter_of(plain)
                except (TypeError, ValueError):
                    fm = None
                if fm is not None:
                    self.hits += 1
                    return _cached_file(rel, path, st, fm, self, key)
        try:
            data, st = read_with_stat(path)
        except TooLarge:
            try:
                self.used[rel] = stat_key(os.stat(path))  # its size is part of what is reported
            except OSError:
                pass
            raise
        key = self.used[rel] = stat_key(st)
        self.reads += 1
        text = decode_bytes(data)
        fm = parse_frontmatter(text)
        if len(data) != st.st_size:  # changed while read: keep nothing of it
            key = self.used[rel] = (-1, 0, 0, 0)
        elif key[1] < self._limit and key[3] < self._limit:
            self.put_in("base", "fm", rel, key, frontmatter_plain(fm))
        f = _cached_file(rel, path, st, fm, self, key, text)
        f.__dict__["size"] = len(data)
        return f

    def read_whole(self, path: str, rel: str) -> MemoryFile:
        """A memory file read in full (its text is the bytes read, as a plain load's is), its
        frontmatter and facets from the cache when the key of the bytes read is the cached one."""
        if self.path is None:
            return read_memory_file(path, rel)
        try:
            data, st = read_with_stat(path)
        except TooLarge:
            try:
                self.used[rel] = stat_key(os.stat(path))
            except OSError:
                pass
            raise
        key = self.used[rel] = stat_key(st)
        text = decode_bytes(data)
        if len(data) != st.st_size:  # changed while read: nothing of the cache applies to it
            key = self.used[rel] = (-1, 0, 0, 0)
        entry = self.section("base").get(rel)
        plain = entry[1].get("fm") if entry is not None and entry[0] == key else None
        fm = None
        if plain is not None:
            try:
                fm = frontmatter_of(plain)
            except (TypeError, ValueError):
                fm = None
        if fm is None:
            self.reads += 1
            fm = parse_frontmatter(text)
            if key[0] >= 0 and key[1] < self._limit and key[3] < self._limit:
                self.put_in("base", "fm", rel, key, frontmatter_plain(fm))
        else:
            self.hits += 1
        f = _cached_file(rel, path, st, fm, self, key, text)
        f.__dict__["size"] = len(data)
        return f

    def load(self, listing: Listing, config: BudgetConfig = BudgetConfig(), *,
             texts: bool = False) -> Snapshot:
        """The snapshot of a listing, read through the cache.

        ``texts``: every file's text read now (what a change is planned on: its bytes are the
        ones the writer checks the disk against), only its frontmatter and facets from the cache;
        otherwise a file whose stat key is unchanged is not read until its text is asked for.
        """
        self._listed = {rel for rel, _ in listing.memory}
        self._loaded = (listing, config)
        with gc_paused():  # many small acyclic objects: the collector's passes would only cost
            self.snapshot = snapshot_of(listing, config, self.read_whole if texts else self.read,
                                        self.parse_index)
        return self.snapshot

    def parse_index(self, data: bytes, rel: str, exists: Callable[[str], bool]) -> Index:
        """:func:`memtui.core.model.index.parse_index`, kept whole: keyed by the index's bytes and the
        set of memory files (Memory-base entries fall back on it), so it cannot be stale."""
        if self.path is None or self._listed is None:
            return parse_index(data, rel, exists)
        files = frozenset([f for f in self._listed if exists(f)])  # the files that were read
        entry = self.section("index").get(rel)
        if entry is not None and entry[0] == data and entry[1] == files:
            try:
                return index_of(rel, entry[2], files)
            except (TypeError, ValueError, KeyError):
                pass
        index = parse_index(data, rel, exists)
        self.section("index")[rel] = (data, files, index_plain(index))
        self._dirty.add("index")
        return index

    # ---- whole-root answers

    def stat_all(self, listing: Listing) -> list[Key] | None:
        """The stat key of every memory file of a listing (kept for :meth:`read`), or None when
        one vanished."""
        keys = []
        try:
            for rel, path in listing.memory:
                st = os.stat(path)
                self._stats[rel] = st
                keys.append(stat_key(st))
        except OSError:
            return None
        return keys

    def digest(self, listing: Listing, config: BudgetConfig, keys: list[Key] | list[Key | None],
               indexes: list[Key | None]) -> bytes | None:
        """Everything a whole-root answer depends on, as bytes compared whole (no hash, so no
        collision), or None when some file is too young to trust."""
        for key in keys + indexes:
            if key is not None and not self.trusted(key):
                return None
        value = (
            FORMAT, repr(config), [rel for rel, _ in listing.memory], keys,
            indexes, listing.archive[1] if listing.archive else None, listing.other, listing.nested,
            [(s.path, s.reason) for s in listing.skipped], sorted(listing.outside),
        )
        return marshal.dumps(value, 0)  # version 0: no references, no interning flags: equal values, equal bytes

    def loaded_digest(self, *extra: Any) -> bytes | None:
        """:meth:`digest` of the root as :meth:`load` read it, plus ``extra`` (plain data the
        answer also depends on); None when disabled, nothing was loaded or a file is too young."""
        if self.path is None or self._loaded is None:
            return None
        listing, config = self._loaded
        indexes = index_keys(listing)
        if indexes is None:
            return None
        found = self.digest(listing, config, [self.used.get(rel) for rel, _ in listing.memory],
                            indexes)
        return None if found is None else found + marshal.dumps(extra, 0)

    def memo_unread(self, listing: Listing, config: BudgetConfig, name: str,
                    extra: tuple[Any, ...]) -> Any:
        """The whole-root answer ``name`` kept for this listing as its files stat now (nothing
        read), or None: the same digest :meth:`loaded_digest` gives after a load."""
        if self.path is None or self.section(_memo_section(name)).get(name) is None:
            return None
        indexes = index_keys(listing)
        keys = None if indexes is None else self.stat_all(listing)
        if keys is None or indexes is None:
            return None
        digest = self.digest(listing, config, list(keys), indexes)
        return self.memo(name, None if digest is None else digest + marshal.dumps(extra, 0))

    def memo(self, name: str, digest: bytes | None) -> Any:
        if digest is None:
            return None
        entry = self.section(_memo_section(name)).get(name)
        return entry[1] if entry is not None and entry[0] == digest else None

    def set_memo(self, name: str, digest: bytes | None, value: Any) -> None:
        if digest is None or self.path is None:
            return
        section = _memo_section(name)
        self.section(section)[name] = (digest, value)
        self._dirty.add(section)

    # ---- writing the file

    def save(self) -> None:
        """Write the cache if anything new was learnt; failures are ignored."""
        if self.path is None or not self._dirty:
            return
        with gc_paused():
            self._save(self.path)

    def _save(self, target: Path) -> None:
        try:
            blobs: dict[str, bytes] = {}
            for name in SECTIONS:
                if name in self._dirty:
                    entries = self._sections[name]
                    if self._listed is not None and name not in _WHOLE:
                        for rel in [r for r in entries if r not in self._listed]:
                            del entries[rel]
                    blobs[name] = marshal.dumps(entries)
                elif name in self._raw:
                    blobs[name] = self._raw[name]
                elif self._sections.get(name):
                    blobs[name] = marshal.dumps(self._sections[name])
            table = {}
            offset = 0
            for name, blob in blobs.items():
                table[name] = (offset, len(blob), zlib.crc32(blob))
                offset += len(blob)
            header = marshal.dumps((FORMAT, fingerprint(), self.root_real, table))
            payload = b"".join([MAGIC, len(header).to_bytes(4, "little"), header, *blobs.values()])
            # no fsync, unlike memory's side files: a torn cache fails its CRC and is rebuilt
            write_cache_file(target.parent, target.name, payload)
            self._dirty.clear()
        except Exception:  # noqa: BLE001 — an unwritable cache is no cache
            return


def index_keys(listing: Listing) -> list[Key | None] | None:
    """The stat keys of a listing's two index files (None for one absent; None when unreadable)."""
    try:
        return [stat_key(os.stat(path)) if path else None
                for path in (listing.index_path, listing.archive[0] if listing.archive else None)]
    except OSError:
        return None


def cache_of(snapshot: Snapshot) -> StatCache | None:
    """The stat cache that loaded ``snapshot`` (its whole-root answers are about this very
    snapshot), or None: a plain load, a snapshot made from another (a change applied), or a
    cache that loaded again since."""
    for f in snapshot.files.values():
        cache = f.__dict__.get("_cache") if type(f) is CachedFile else None
        return cache if cache is not None and cache.snapshot is snapshot else None
    return None


def cached_loader(texts: bool) -> Callable[[Path, BudgetConfig], Snapshot]:
    """A loader for :func:`memtui.core.write.attempt`: the root through its stat cache
    (:func:`cache_of` finds the cache again; ``texts`` as for :meth:`StatCache.load`)."""

    def load(root: Path, config: BudgetConfig) -> Snapshot:
        return StatCache.open(root).load(list_root(root), config, texts=texts)

    return load


def load_cached(
    root: Path | str, config: BudgetConfig = BudgetConfig(), clock: Callable[[], int] = time.time_ns,
    *, texts: bool = False,
) -> tuple[Snapshot, StatCache]:
    """A root's snapshot read through its stat cache (call ``cache.save()`` when done);
    ``texts`` as for :meth:`StatCache.load`."""
    cache = StatCache.open(root, clock)
    return cache.load(list_root(root), config, texts=texts), cache


# ------------------------------------------------------------------------ validation


@dataclass(frozen=True)
class Validation:
    """A validated root: its findings and budget (``snapshot`` is None when both came whole
    from the cache)."""

    root: Path
    findings: list[Finding]
    budget: Budget
    files: int
    snapshot: Snapshot | None


def validate_root(
    root: Path | str, config: BudgetConfig = BudgetConfig(), clock: Callable[[], int] = time.time_ns
) -> Validation:
    """:func:`memtui.core.rules.validate.validate` of a root, through its stat cache (for a command:
    what it made is frozen out of the cyclic collector's reach)."""
    with gc_paused():  # one pause for the whole pass, not one collection after each part
        found = _validate_root(root, config, clock)
        gc.freeze()  # what a command made lives until it exits: never walk it again
    return found


def _validate_root(root: Path | str, config: BudgetConfig, clock: Callable[[], int]) -> Validation:
    cache = StatCache.open(root, clock)
    listing = list_root(root)
    indexes = index_keys(listing)
    if indexes is not None and cache.section("memo").get("validate") is not None:
        keys = cache.stat_all(listing)
        digest = None if keys is None else cache.digest(listing, config, list(keys), indexes)
        hit = cache.memo("validate", digest)
        if hit is not None:
            try:
                plain, budget, files = hit
                names = {rel for rel, _ in listing.memory}
                names.update(n for n in ("MEMORY.md", listing.archive and listing.archive[1]) if n)
                found = findings_of(plain, names.__contains__)
                # never cached: the handoff state, and a change interrupted since (the journal)
                fresh = handoff_findings(state_for_root(listing.root))
                pending = pending_records(listing.root)
                if pending:  # the validator module loads only when it has something to say
                    fresh += rules.validate.interrupted_findings(
                        pending, [progress_of(listing.root, name) for name in pending])
                if fresh:
                    found = rules.validate.sort_findings(found + fresh)
                return Validation(listing.root, found, rules.budget.Budget(*budget), files, None)
            except (TypeError, ValueError):
                pass
    snapshot = cache.load(listing, config)
    findings = rules.validate.validate(snapshot)
    budget = rules.budget.budget_of(snapshot)
    digest = None
    if indexes is not None and cache.path is not None:
        digest = cache.digest(listing, config, [cache.used.get(rel) for rel, _ in listing.memory],
                              indexes)
    if digest is not None:
        handoff = set(handoff_findings(snapshot.handoff))
        cache.set_memo("validate", digest, (
            findings_plain(f for f in findings if f not in handoff and f.rule != "interrupted-change"),
            tuple([getattr(budget, f.name) for f in fields(budget)]),  # flat: ints, strs and
            # tuples of ints (astuple would deep-copy a long index's line numbers one by one)
            len(snapshot.files),
        ))
    cache.save()
    return Validation(listing.root, findings, budget, len(snapshot.files), snapshot)
