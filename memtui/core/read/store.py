"""Load a memory root from disk into a :class:`Snapshot` — one scan, no subprocess.

Rules of the scan (DESIGN §1.1): dotfiles and dot-folders are invisible; ``MEMORY.md`` and
``MEMORY-archive.md`` at the root are the indexes; a sub-folder holding its own ``MEMORY.md`` is
another root and is not entered; ``*.md`` files are memory files and anything else is listed as an
"other file".  Symlinks are followed only when they stay inside the root; symlinked folders are
never entered (no loops), and nothing outside the root is ever read.
"""

from __future__ import annotations

import errno
import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from ..model.frontmatter import parse_frontmatter
from ..model.index import parse_index
from ..model.index_read import ReadIndex, read_index
from ..model.journal import pending_records, progress_of
from ..model.snapshot import (
    ARCHIVE_INDEX_NAME,
    INDEX_NAME,
    BudgetConfig,
    Index,
    MemoryFile,
    Skipped,
    Snapshot,
    decode_bytes,
)
from ..model.walk import walk_root

MAX_READ_BYTES = 64 * 1024 * 1024


class RootError(Exception):
    """A path that cannot be loaded as a memory root (missing, a file, unreadable)."""


def _within(path: str, root_real: str) -> bool:
    return path == root_real or path.startswith(root_real.rstrip(os.sep) + os.sep)


def read_with_stat(abs_path: str) -> tuple[bytes, os.stat_result]:
    """A file's bytes and its ``fstat`` taken just before reading them, with one open."""
    fd = os.open(abs_path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        st = os.fstat(fd)
        if st.st_size > MAX_READ_BYTES:
            raise TooLarge(st.st_size)
        chunks = [os.read(fd, st.st_size + 1)]
        while chunks[-1] and len(chunks[-1]) > st.st_size:  # grew while we read: take it all
            chunks.append(os.read(fd, 1 << 20))
    finally:
        os.close(fd)
    return (b"".join(chunks) if len(chunks) > 1 else chunks[0]), st


def read_memory_file(abs_path: str, rel: str) -> MemoryFile:
    """Read one memory file (its bytes, frontmatter, size, mtime and mode) with one open."""
    data, st = read_with_stat(abs_path)
    text = decode_bytes(data)
    return MemoryFile(
        path=rel,
        size=len(data),
        mtime=st.st_mtime,
        text=text,
        frontmatter=parse_frontmatter(text),
        mode=stat.S_IMODE(st.st_mode),
    )


class TooLarge(Exception):
    """A file too large to read into memory."""

    def __init__(self, size: int) -> None:
        super().__init__(f"a file of {size:,} bytes, over memtui's {MAX_READ_BYTES >> 20} MiB "
                         "read limit; not read")
        self.size = size


def check_root(root: Path) -> Path:
    """The absolute root path, or :class:`RootError` saying why it cannot be a root."""
    try:
        st = root.stat()
    except FileNotFoundError:
        raise RootError(f"{root}: no such folder") from None
    except PermissionError:
        raise RootError(f"{root}: permission denied") from None
    except OSError as exc:
        raise RootError(f"{root}: {exc.strerror or exc}") from None
    if not stat.S_ISDIR(st.st_mode):
        raise RootError(f"{root}: is a file, not a memory folder")
    if not os.access(root, os.R_OK | os.X_OK):
        raise RootError(f"{root}: permission denied")
    return root.absolute()


@dataclass(frozen=True)
class Listing:
    """What one walk of a root found, before any memory file is read."""

    root: Path
    root_real: str
    memory: tuple[tuple[str, str], ...]  # (root-relative path, path to open) of each *.md file
    index_path: str | None  # MEMORY.md to open, if present
    archive: tuple[str, str] | None  # (path to open, name as found) of MEMORY-archive.md
    other: tuple[str, ...]
    nested: tuple[str, ...]
    skipped: tuple[Skipped, ...]
    outside: frozenset[str]
    #: every folder listed (prefix as in ``memory``: "" for the root, else ending in "/") and
    #: whether its visible entries were all regular files and real folders (no symlink, no
    #: special file): such a folder's part of the listing changes only with its own mtime
    folders: tuple[tuple[str, bool], ...] = ()


def list_root(root: Path | str) -> Listing:
    """Walk a root (DESIGN §1.1 rules) without reading any file.  Raises :class:`RootError`."""
    root_path = check_root(Path(root))
    root_real = os.path.realpath(root_path)
    memory: list[tuple[str, str]] = []
    other: list[str] = []
    nested: list[str] = []
    skipped: list[Skipped] = []
    outside: set[str] = set()
    index_path: str | None = None
    archive: tuple[str, str] | None = None
    folders: list[tuple[str, bool]] = []

    for folder in walk_root(root_path):
        prefix = folder.prefix
        if folder.error is not None:
            skipped.append(Skipped(prefix.rstrip("/") or ".",
                                   f"cannot list folder: {folder.error.strerror}"))
            continue
        if folder.nested:
            nested.append(prefix.rstrip("/"))
            folders.append((prefix, True))
            continue
        plain = True
        for entry in folder.entries:
            name = entry.name
            if name.startswith("."):
                continue
            rel = prefix + name
            try:
                if entry.is_file(follow_symlinks=False):
                    pass  # a plain file (most entries): nothing more to ask
                else:
                    is_link = entry.is_symlink()
                    if is_link:
                        plain = False
                        real = os.path.realpath(entry.path)
                        if not _within(real, root_real):
                            outside.add(rel)
                            skipped.append(Skipped(rel, "symlink leading outside the root; not read"))
                            continue
                        if os.path.isdir(real):
                            skipped.append(Skipped(rel, "symlinked folder; not entered"))
                            continue
                    if entry.is_dir(follow_symlinks=False):
                        if not prefix and name == INDEX_NAME:
                            skipped.append(Skipped(rel, INDEX_IS_FOLDER))
                        continue  # walk_root enters it
                    plain = False
                    if not entry.is_file():
                        kind = _special_kind(entry.path)
                        if kind is None:
                            skipped.append(Skipped(rel, "broken symlink"))
                        elif is_link:
                            skipped.append(Skipped(rel, f"symlink to {kind}; not read"))
                        elif name.lower().endswith(".md"):
                            skipped.append(Skipped(rel, f"{kind}, not a regular file; not read"))
                        else:
                            other.append(rel)
                        continue
            except OSError as exc:
                skipped.append(Skipped(rel, "symlink loop; not read" if exc.errno == errno.ELOOP
                                       else f"cannot read: {exc.strerror or exc}"))
                continue
            if not prefix and name == INDEX_NAME:
                index_path = entry.path
            elif not prefix and name.lower() == ARCHIVE_INDEX_NAME.lower():
                archive = (entry.path, name)
            elif not name.lower().endswith(".md"):
                other.append(rel)
            else:
                memory.append((rel, entry.path))
        folders.append((prefix, plain))
    return Listing(root_path, root_real, tuple(memory), index_path, archive, tuple(other),
                   tuple(nested), tuple(skipped), frozenset(outside), tuple(folders))


#: why a root's ``MEMORY.md`` was not read when it is a folder
INDEX_IS_FOLDER = "a folder, not a file"


#: reads one memory file: (path to open, root-relative path) -> MemoryFile
FileReader = Callable[[str, str], MemoryFile]


def load_root(
    root: Path | str, config: BudgetConfig = BudgetConfig(), *, reader: FileReader | None = None
) -> Snapshot:
    """Read a memory root.  Raises :class:`RootError` when the folder cannot be read at all.

    ``reader`` replaces :func:`read_memory_file` (the stat cache passes its own).
    """
    return snapshot_of(list_root(root), config, reader or read_memory_file)


IndexParser = Callable[[bytes, str, Callable[[str], bool]], Index]


def snapshot_of(
    listing: Listing, config: BudgetConfig, reader: FileReader, parse: IndexParser = parse_index
) -> Snapshot:
    """Read the files of a listing into a :class:`Snapshot` (``parse``: how index bytes are
    parsed, :func:`memtui.core.model.index.parse_index` or the stat cache's memo of it)."""
    from .handoff import state_for_root  # here: reading only the index (``loaded``) never needs it

    config = config.for_root(listing.root)  # a subagent's index loads unstripped
    files: dict[str, MemoryFile] = {}
    skipped = list(listing.skipped)
    index_data: bytes | None = None
    archive_data: bytes | None = None
    archive_name = ARCHIVE_INDEX_NAME
    reads: list[tuple[str, str, str]] = []  # (kind, rel, path)
    if listing.index_path is not None:
        reads.append(("index", INDEX_NAME, listing.index_path))
    if listing.archive is not None:
        reads.append(("archive", listing.archive[1], listing.archive[0]))
    for rel, path in listing.memory:
        try:
            files[rel] = reader(path, rel)
        except TooLarge as exc:
            skipped.append(Skipped(rel, str(exc)))
        except OSError as exc:
            skipped.append(Skipped(rel, f"cannot read: {exc.strerror or exc}"))
    for kind, rel, path in reads:
        try:
            data = _read_bytes(path)
        except TooLarge as exc:
            skipped.append(Skipped(rel, str(exc)))
            continue
        except OSError as exc:
            skipped.append(Skipped(rel, f"cannot read: {exc.strerror or exc}"))
            continue
        if kind == "index":
            index_data = data
        else:
            archive_data, archive_name = data, rel

    exists = files.__contains__
    interrupted = pending_records(listing.root)
    if index_data is not None:
        index = parse(index_data, INDEX_NAME, exists)
    else:
        index = Index(path=INDEX_NAME, exists=False)
    if archive_data is not None:
        archive_index = parse(archive_data, archive_name, exists)
    else:
        archive_index = Index(path=ARCHIVE_INDEX_NAME, exists=False)
    return Snapshot(
        root=listing.root,
        index=index,
        archive_index=archive_index,
        files=dict(sorted(files.items())),
        other_files=tuple(sorted(listing.other)),
        nested_roots=tuple(sorted(listing.nested)),
        skipped=tuple(sorted(skipped, key=lambda s: s.path)),
        outside=listing.outside,
        config=config,
        handoff=state_for_root(listing.root),
        interrupted=interrupted,
        progress=tuple(progress_of(listing.root, name) for name in interrupted),
    )


def _special_kind(path: str) -> str | None:
    """What a path that is neither a file nor a folder is ("a FIFO" …); None when it is gone."""
    try:
        mode = os.stat(path).st_mode
    except OSError:
        return None
    if stat.S_ISFIFO(mode):
        return "a FIFO"
    if stat.S_ISSOCK(mode):
        return "a socket"
    if stat.S_ISCHR(mode) or stat.S_ISBLK(mode):
        return "a device"
    return "not a regular file"


def _read_bytes(path: str) -> bytes:
    with open(path, "rb") as handle:
        if os.fstat(handle.fileno()).st_size > MAX_READ_BYTES:
            raise TooLarge(os.fstat(handle.fileno()).st_size)
        return handle.read()


def load_indexed(root: Path | str, config: BudgetConfig = BudgetConfig()) -> Snapshot:
    """The quick mode of the loader: the indexes and the files their entries name, no walk.

    What the next session loads, read in a moment on a root of any size, so the app paints the
    working set before :func:`load_root` has read everything.  Files nothing lists, other files
    and nested roots are left out.
    """
    return snapshot_of(list_indexed(root), config, read_memory_file)


def list_indexed(root: Path | str) -> Listing:
    """The listing of :func:`load_indexed`: ``MEMORY.md``, the archive index and the files the
    active entries name (inside the root); an index that cannot be read lists nothing."""
    root_path = Path(root).absolute()
    root_real = os.path.realpath(root_path)
    index_path = root_path / INDEX_NAME
    try:
        index = parse_index(_read_bytes(str(index_path)), INDEX_NAME,
                            lambda rel: os.path.isfile(root_path / rel))
    except (OSError, TooLarge):
        index = Index(path=INDEX_NAME, exists=False)
    memory: dict[str, str] = {}
    for line in index.entries:
        rel = line.resolved
        if rel is None or rel in memory or rel.startswith("."):
            continue
        full = str(root_path / rel)
        if os.path.isfile(full) and _within(os.path.realpath(full), root_real):
            memory[rel] = full
    archive_name = _archive_index_name(root_path)
    archive_path = root_path / archive_name
    return Listing(
        root=root_path,
        root_real=root_real,
        memory=tuple(memory.items()),
        index_path=str(index_path) if index.exists else None,
        archive=(str(archive_path), archive_name) if archive_path.is_file() else None,
        other=(),
        nested=(),
        skipped=(),
        outside=frozenset(),
    )


def _archive_index_name(root: Path) -> str:
    """``MEMORY-archive.md`` as it is spelled in the root (any case), else the usual spelling."""
    try:
        with os.scandir(root) as entries:
            for entry in entries:
                if entry.name.lower() == ARCHIVE_INDEX_NAME.lower() and entry.is_file():
                    return entry.name
    except OSError:
        pass
    return ARCHIVE_INDEX_NAME


@dataclass(frozen=True)
class IndexOnly:
    """A root's ``MEMORY.md`` read as :func:`load_root` reads it, without reading any other file
    (what ``memtui loaded`` shows): its entries resolve against the root's listing; only the
    lines that load are parsed in full (:class:`memtui.core.model.index_read.ReadIndex`)."""

    root: Path
    index: ReadIndex
    config: BudgetConfig
    interrupted: tuple[str, ...]
    skipped: tuple[Skipped, ...] = ()  # the index, when it could not be read, and why


def load_index_only(root: Path | str, config: BudgetConfig = BudgetConfig()) -> IndexOnly:
    """The index of a root from one read, no walk: an entry's target exists when
    :func:`list_root` would list it as a memory file that :func:`load_root` could read (regular,
    readable, within the read limit), checked only for the targets the index names."""
    root_path = check_root(Path(root))
    root_real = os.path.realpath(root_path)
    config = config.for_root(root_path)
    known: dict[str, bool] = {}

    def exists(rel: str) -> bool:
        found = known.get(rel)
        if found is None:
            path = _listed_memory_file(root_path, root_real, rel)
            found = False
            if path is not None:
                try:
                    found = os.stat(path).st_size <= MAX_READ_BYTES and os.access(path, os.R_OK)
                except OSError:
                    found = False
            known[rel] = found
        return found

    index = ReadIndex(INDEX_NAME, False)
    index_path = str(root_path / INDEX_NAME)
    skipped: tuple[Skipped, ...] = ()
    if _listed_file(index_path, root_real):
        try:
            index = read_index(_read_bytes(index_path), INDEX_NAME, exists)
        except TooLarge as exc:
            skipped = (Skipped(INDEX_NAME, str(exc)),)
        except OSError as exc:
            skipped = (Skipped(INDEX_NAME, f"cannot read: {exc.strerror or exc}"),)
    elif os.path.lexists(index_path):  # there but not a file to read: the listing says why
        skipped = tuple(s for s in list_root(root_path).skipped if s.path == INDEX_NAME)
    return IndexOnly(root_path, index, config, pending_records(root_path), skipped)


def _listed_memory_file(root: Path, root_real: str, rel: str) -> str | None:
    """The path to open of ``rel`` when :func:`list_root` lists it as a memory file (by the same
    rules, asked of this one path), else None."""
    parts = rel.split("/")
    if (not rel or any(not part or part.startswith(".") for part in parts)
            or not parts[-1].lower().endswith(".md")):
        return None
    if len(parts) == 1 and (rel == INDEX_NAME or rel.lower() == ARCHIVE_INDEX_NAME.lower()):
        return None
    folder = str(root)
    for part in parts[:-1]:  # walk_root enters only real, visible folders that are no other root
        folder = os.path.join(folder, part)
        try:
            if not stat.S_ISDIR(os.lstat(folder).st_mode) or not os.access(folder, os.R_OK | os.X_OK):
                return None
        except OSError:
            return None
        if os.path.lexists(os.path.join(folder, INDEX_NAME)):
            return None
    path = os.path.join(folder, parts[-1])
    return path if _listed_file(path, root_real) else None


def _listed_file(path: str, root_real: str) -> bool:
    """Whether :func:`list_root` takes the entry at ``path`` as a file to read: a regular file,
    or a symlink to one inside the root."""
    try:
        st = os.lstat(path)
        if stat.S_ISREG(st.st_mode):
            return True
        if not stat.S_ISLNK(st.st_mode):
            return False
        real = os.path.realpath(path)
        return _within(real, root_real) and not os.path.isdir(real) and os.path.isfile(path)
    except OSError:
        return False
