"""A root's kept whole-root answer: what a memory write is judged from without reading the root.

A full validation of a root (:func:`memtui.core.rules.incremental.findings_cache`) leaves, per file,
what the rules found; :func:`keep` stores that with the listing it was about, each file's stat
key and the two indexes' bytes, in the user's cache folder (``stat/<root hash>.kept``, beside
the stat cache, written by :func:`memtui.core.stores.statcache.write_cache_file`, never in a memory
folder).  What the archive index adds to the findings is kept apart
(:class:`memtui.core.rules.validate.ArchivePart`), and its lines are unmarshalled only when a write
needs them (:class:`memtui.core.stores.statcache.LazyIndex`): most writes touch neither the archive
index nor a file it names.  :func:`current` gives the root's snapshot and findings back from it: the root is listed
again (names only), the indexes are read, and the files that may have changed since are checked
— every file with ``verify=True`` (one ``stat`` each, what a warm ``validate`` pays), otherwise
the files a memory write was judged for since (the *dirty log*, ``stat/<root hash>.dirty``, one
line appended per judged write: a write lands after its hook answered) and the files too young
for their stat key to be trusted (kept by their bytes).  What changed is played on the kept
answer by :func:`memtui.core.rules.incremental.revalidate`, reading only the changed files; the other
files are read only when a rule asks for one (:class:`memtui.core.model.lazyfiles.LazyFiles`), and
one whose stat key is no longer the kept one raises :class:`Stale`, so the caller starts over
with a full validation.

What ``verify=False`` trusts: a file that no judged write named and whose listing entry is
unchanged is what it was (a shell or an editor rewriting it in place is seen by the next
verified run: the Stop hook, or a judged write that would be denied).  A judged write of a file
with other names (hard links) changes what those names hold while the log names only the one
written: its log line says so (:data:`LINKED`), and the runs that read it (while it is in the
log's hour) check every file, as ``verify=True`` does.  The answer is refused —
``None``, a full validation instead — when it is missing, corrupt, from another memtui, Python,
root or budget configuration, when the root has a pending journal record, when the listing's
other entries (symlinks, nested roots, skipped files) changed, when an index is missing, or when
more than :data:`MAX_CHANGED` files changed.

A quick run that read files again (a judged write that landed since) keeps what it read as a
small *patch* of the kept answer (:func:`keep_patch`, ``stat/<root hash>.patch``: those files'
stat keys, the index if it changed, the findings now), so the next run does not read them again;
a verified run keeps a whole new answer and the patch goes.  The listing is not taken again while
every folder it listed keeps its stat key (a folder's mtime moves when an entry in it is added,
removed or renamed; only folders of regular files and real folders vouch for their part, and a
root with a symlinked memory file is judged on verified runs).

The racy rule is the stat cache's (:mod:`memtui.core.stores.statcache`): a key is trusted only if the
file's mtime and ctime are 2 s older than the clock taken before the root was listed.
"""

from __future__ import annotations

import fcntl
import marshal
import operator
import os
import stat
import time
import zlib
from array import array
from bisect import bisect_left
from collections.abc import Callable
from dataclasses import astuple, dataclass
from functools import cached_property
from itertools import chain
from pathlib import Path
from typing import Any, cast

# the rules' lazy face: a root whose kept answer still holds is answered without the validator
from .. import rules
from ..model.changeset import Result
from ..model.frontmatter import parse_frontmatter
from ..model.index import parse_index
from ..model.journal import pending_records
from ..model.lazyfiles import LazyFiles, folder_set, mixed_case
from ..model.safepath import check_stored_path
from ..model.snapshot import (
    ARCHIVE_INDEX_NAME,
    INDEX_NAME,
    BudgetConfig,
    Finding,
    Index,
    MemoryFile,
    Snapshot,
    decode_bytes,
)
from ..read.handoff import handoff_findings, state_for_root
from ..read.store import Listing, TooLarge, check_root, list_root, read_with_stat
from .statcache import (
    RACY_NS,
    Key,
    LazyIndex,
    StatCache,
    findings_of,
    findings_plain,
    fingerprint,
    index_of,
    index_plain,
    lazy_index_of,
    read_cache_file,
    stat_key,
    write_cache_file,
)

TYPE_CHECKING = False
if TYPE_CHECKING:  # pragma: no cover
    from ..model.handoff_state import HandoffState
    from ..rules.incremental import FindingsCache

FORMAT = 4
MAGIC = b"memtui kept answer\n"
PATCH_MAGIC = b"memtui kept patch\n"
MAX_CHANGED = 256  # more changed files than this: a full validation is as quick
MAX_YOUNG_BYTES = 8 << 20  # the bytes kept of files too young to trust their stat key
DIRTY_KEEP_NS = 3600 * 10**9  # a judged write not landed an hour after the answer is forgotten
DIRTY_MAX_BYTES = 256 << 10  # a dirty log over this is cut to its last hour when next kept
DIRTY_READ_MAX_BYTES = 1 << 20  # a dirty log over this is not read at all: a full validation runs
UNTRUSTED: Key = (-1, 0, 0, 0)
LINKED = "\0"  # a dirty log's name for "a judged write of a file with other names" (no path)


class Stale(Exception):
    """A file the kept answer is about is no longer what it was: validate the root in full."""


@dataclass
class Kept:
    """One root's kept answer (see the module's docstring)."""

    config: str
    since_ns: int  # the clock before the root was listed
    walk_blob: bytes  # the listing order: each file's place in ``paths`` (read by ``walk``)
    paths: list[str]  # the same, sorted (snapshot order)
    keys: array[int]  # 4 per path of ``paths``: its stat key, or UNTRUSTED
    young: dict[str, bytes]  # files whose key was not trusted: their bytes
    index: bytes
    archive: tuple[str, bytes] | None
    index_plain: tuple[Any, ...]  # the index as parsed (statcache.index_plain), or its lines
    # marshalled apart, its BOM and its scopes (as the archive's: built only when asked for)
    archive_plain: tuple[Any, ...] | None  # the archive index: its lines marshalled, bom, scopes
    archive_part: tuple[Any, ...] | None  # what it adds to the findings (validate.ArchivePart)
    folders: set[str]  # what LazyFiles.named needs
    mixed: set[str]
    extra: tuple[Any, ...]  # the listing's other entries, compared whole
    dirs: tuple[tuple[str, Key], ...] | None  # every folder listed and its stat key (_folder_keys)
    findings: tuple[Finding, ...]  # the whole answer, the handoff's warnings left out
    file_only: dict[str, tuple[Finding, ...]]
    file_cross: dict[str, tuple[Finding, ...]]
    glob_counts: dict[str, int]
    provenance: frozenset[str]
    superseding: frozenset[str]
    base: tuple[int, int] = (0, 0)  # what a patch of this answer names it by: since_ns, crc
    base_index: bytes = b""  # the index before the patch
    patched: tuple[dict[str, Key], dict[str, bytes]] = ({}, {})  # the patch's keys and bytes
    facts: tuple[Any, ...] | None = None  # incremental.index_facts of the kept (unpatched) index

    @cached_property
    def walk(self) -> tuple[str, ...]:
        """The memory files in listing order (unmarshalled when first asked for: a run whose
        folders all kept their stat keys never needs them)."""
        order = array("I")
        try:
            order.frombytes(self.walk_blob)
            if len(order) != len(self.paths) or len(set(order)) != len(order):
                raise ValueError("not an order")
            return tuple(map(self.paths.__getitem__, order))
        except (ValueError, IndexError):
            raise Stale("the kept listing") from None

    def key(self, path: str) -> Key | None:
        i = bisect_left(self.paths, path)
        if i >= len(self.paths) or self.paths[i] != path:
            return None
        k = self.keys
        return (k[4 * i], k[4 * i + 1], k[4 * i + 2], k[4 * i + 3])


def _extra(listing: Listing) -> tuple[Any, ...]:
    return (listing.other, listing.nested, tuple((s.path, s.reason) for s in listing.skipped),
            tuple(sorted(listing.outside)), listing.archive[1] if listing.archive else None)


def _files(cache: StatCache | None) -> tuple[Path, str, str] | None:
    """The cache folder and the two file names of a root's kept answer, or None (no cache)."""
    if cache is None or cache.path is None:
        return None
    stem = cache.path.name.rsplit(".", 1)[0]
    return cache.path.parent, f"{stem}.kept", f"{stem}.dirty"


def _patch_name(kept_name: str) -> str:
    return kept_name[: -len(".kept")] + ".patch"


# ---------------------------------------------------------------- keeping


def keep(cache: StatCache, listing: Listing, snapshot: Snapshot, found: FindingsCache,
         keys: Callable[[str], Key | None]) -> None:
    """Store the kept answer of a fully validated snapshot (``found`` is its findings cache;
    ``keys`` gives the stat key each file was read under).  Nothing is kept for a root this
    cannot describe (files skipped at read, a pending record, an index missing); failures are
    ignored: the next judged write validates in full."""
    walk = tuple(map(operator.itemgetter(0), listing.memory))
    if found.snapshot is not snapshot or not _describable(listing, walk, snapshot):
        return
    limit = cache.since_ns - RACY_NS
    paths = sorted(rel for rel, _ in listing.memory)
    flat = array("q")
    young: dict[str, bytes] = {}
    for rel in paths:
        key = keys(rel)
        if key is None or key[0] < 0 or key[1] >= limit or key[3] >= limit:
            young[rel] = snapshot.files[rel].data
            key = UNTRUSTED
        flat.extend(key)
    _store(cache, cache.since_ns, listing, walk, paths, flat, young, snapshot, found)


def _describable(listing: Listing, walk: tuple[str, ...], snapshot: Snapshot) -> bool:
    return not (snapshot.interrupted or not snapshot.index.exists
                or len(snapshot.files) != len(walk)
                or len(snapshot.skipped) != len(listing.skipped))


def _folder_keys(listing: Listing, limit: int) -> tuple[tuple[str, Key], ...] | None:
    """Each listed folder's stat key, when they can vouch for the listing: None unless every
    folder held only regular files and real folders (a symlink's or a skipped entry's part of
    the listing can change while its folder does not), nothing was skipped, and every key is
    older than ``limit`` (taken after the listing, so an entry added, removed or renamed since
    the listing would have made the folder's mtime younger)."""
    if listing.skipped or listing.outside or not listing.folders:
        return None
    base = str(listing.root)
    out = []
    for prefix, plain in listing.folders:
        if not plain:
            return None
        try:
            key = stat_key(os.stat(os.path.join(base, prefix)))
        except OSError:
            return None
        if key[1] >= limit or key[3] >= limit:
            return None
        out.append((prefix, key))
    return tuple(out)


def _kept_listing(root: Path | str, kept: Kept) -> Listing | None:
    """The listing the kept answer is about, when no folder of it changed since (each folder's
    stat key is the kept one); None: list the root."""
    if kept.dirs is None:
        return None
    root_path = check_root(Path(root))
    base = str(root_path)
    for prefix, key in kept.dirs:
        try:
            if stat_key(os.stat(os.path.join(base, prefix))) != key:
                return None
        except OSError:
            return None
    other, nested, _, _, archive = kept.extra
    return Listing(root_path, os.path.realpath(root_path), (), os.path.join(base, INDEX_NAME),
                   (os.path.join(base, archive), archive) if archive else None, other, nested,
                   (), frozenset(), tuple((prefix, True) for prefix, _ in kept.dirs))


def _store(cache: StatCache, since_ns: int, listing: Listing, walk: tuple[str, ...],
           paths: list[str], flat: array[int], young: dict[str, bytes], snapshot: Snapshot,
           found: FindingsCache) -> None:
    where = _files(cache)
    if where is None or sum(len(b) for b in young.values()) > MAX_YOUNG_BYTES:
        return
    try:
        order = _order(walk, paths)
    except KeyError:
        return  # the listing is not of these files
    archive = snapshot.archive_index
    handoff = set(handoff_findings(snapshot.handoff))
    value = (
        FORMAT, fingerprint(), cache.root_real, repr(snapshot.config), since_ns,
        order, tuple(paths), flat.tobytes(), young,
        snapshot.index.render(), (archive.path, archive.render()) if archive.exists else None,
        _lines_apart(snapshot.index), _lines_apart(archive) if archive.exists else None,
        _part_plain(snapshot, found) if archive.exists else None,
        tuple(folder_set(paths)), tuple(mixed_case(paths)), _extra(listing),
        _folder_keys(listing, since_ns - RACY_NS),
        findings_plain(f for f in found.findings if f not in handoff),
        {p: findings_plain(v) for p, v in found.file_only.items()},
        {p: findings_plain(v) for p, v in found.file_cross.items()},
        dict(found.glob_counts), tuple(sorted(found.provenance)), tuple(sorted(found.superseding)),
        rules.incremental.index_facts(found),
    )
    folder, name, dirty = where
    blob = marshal.dumps(value)
    try:
        write_cache_file(folder, name, MAGIC + zlib.crc32(blob).to_bytes(4, "little") + blob)
        if os.path.lexists(folder / _patch_name(name)):
            write_cache_file(folder, _patch_name(name), b"")  # a patch of the answer before
    except OSError:
        return
    _trim_dirty(folder, dirty, since_ns)


def _lines_apart(index: Index) -> tuple[bytes, bool, tuple[Any, ...]]:
    """An index kept (the archive index, and MEMORY.md): its lines marshalled apart
    (unmarshalled only when a run needs them), its BOM and its scopes."""
    blob = index.blob() if isinstance(index, LazyIndex) else marshal.dumps(index_plain(index)[0])
    return blob, index.bom, tuple(map(astuple, index.scopes))


def _part_plain(snapshot: Snapshot, found: FindingsCache) -> tuple[Any, ...]:
    """What the archive index adds to the findings (:class:`memtui.core.rules.validate.ArchivePart`),
    and the secret findings of its text."""
    archive = snapshot.archive_index
    part = found.reach.archive
    if part is None or part.index is not archive:
        part = rules.validate.archive_part(snapshot, found.reach.archived)
    return (findings_plain(part.entries), findings_plain(part.refs),
            findings_plain(part.duplicates), findings_plain(rules.validate.index_secrets(archive)),
            tuple(sorted(part.listed)), tuple(sorted(part.named - part.listed)))


def _part_of(plain: tuple[Any, ...], named: Callable[[str], bool]) -> tuple[Any, ...]:
    """The kept archive part's findings and paths, checked (a ValueError if not what
    :func:`_part_plain` wrote)."""
    entries, refs, duplicates, secrets, listed, more = plain
    found = tuple(tuple(findings_of(f, named)) for f in (entries, refs, duplicates, secrets))
    if not set(map(type, (*listed, *more))) <= {str}:
        raise ValueError("not a path")
    return (*found, tuple(listed), tuple(more))


def _order(walk: tuple[str, ...], paths: list[str]) -> bytes:
    """The listing order as each file's place in the sorted ``paths`` (4 bytes a file)."""
    place = {rel: i for i, rel in enumerate(paths)}
    return array("I", map(place.__getitem__, walk)).tobytes()


def _load(cache: StatCache, config: BudgetConfig) -> Kept | None:
    where = _files(cache)
    if where is None:
        return None
    data = read_cache_file(where[0], where[1])
    head = len(MAGIC) + 4
    if data is None or not data.startswith(MAGIC):
        return None  # none or taken away
    body = memoryview(data)[head:]  # not copied
    crc = zlib.crc32(body)
    if crc != int.from_bytes(data[len(MAGIC):head], "little"):
        return None  # torn
    try:
        value = marshal.loads(body)
        (form, print_, root_real, config_repr, since_ns, walk, paths, flat, young, index, archive,
         index_tree, archive_tree, archive_part, folders, mixed, extra, dirs, findings, file_only,
         file_cross, glob_counts, provenance, superseding, facts) = value
        if form != FORMAT or print_ != fingerprint() or root_real != cache.root_real \
                or config_repr != repr(config):
            return None
        keys = array("q")
        keys.frombytes(flat)
        paths = list(paths)
        if len(keys) != 4 * len(paths) or not all(map(operator.lt, paths, paths[1:])):
            return None
        kept = Kept(
            config_repr, int(since_ns), bytes(walk), paths, keys, {}, bytes(index),
            (str(archive[0]), bytes(archive[1])) if archive else None, _index_lines_apart_of(index_tree),
            _lines_apart_of(archive_tree), None, set(folders), set(mixed), extra, _dirs(dirs), (),
            {}, {},
            {str(g): int(n) for g, n in glob_counts.items()},
            frozenset(), frozenset(),
        )
        known = {INDEX_NAME, archive[0] if archive else ARCHIVE_INDEX_NAME}

        def named(path: str) -> bool:
            return path in known or kept.key(path) is not None

        kept.young = {str(p): bytes(b) for p, b in young.items() if named(p)}
        if (archive is None) != (archive_tree is None) or (archive is None) != (archive_part is None):
            return None
        kept.archive_part = _part_of(archive_part, named) if archive_part is not None else None
        kept.findings = tuple(findings_of(findings, named))
        kept.file_only = {p: tuple(findings_of(v, named)) for p, v in file_only.items() if named(p)}
        kept.file_cross = {p: tuple(findings_of(v, named)) for p, v in file_cross.items() if named(p)}
        kept.provenance = frozenset(p for p in provenance if named(p))
        kept.superseding = frozenset(p for p in superseding if named(p))
        kept.facts = _facts(facts)
        kept.base = (int(since_ns), crc)
        kept.base_index = kept.index
    except Exception:  # noqa: BLE001 - any unreadable kept answer is none
        return None
    _apply_patch(kept, read_cache_file(where[0], _patch_name(where[1])), named)
    return kept


def _apply_patch(kept: Kept, data: bytes | None, named: Callable[[str], bool]) -> None:
    """Play the root's kept patch (:func:`keep_patch`) on its kept answer, when it is a patch of
    this one; a patch that is not (none, torn, of an older answer) is passed over."""
    head = len(PATCH_MAGIC) + 4
    if data is None or not data.startswith(PATCH_MAGIC) \
            or zlib.crc32(data[head:]) != int.from_bytes(data[len(PATCH_MAGIC):head], "little"):
        return
    try:
        (form, base, since_ns, keys, young, index, findings, file_only, file_cross, glob_counts,
         provenance, superseding) = marshal.loads(data[head:])
        if form != FORMAT or tuple(base) != kept.base or int(since_ns) < kept.since_ns:
            return
        flat = array("q", kept.keys)
        new_young = dict(kept.young)
        patched_keys: dict[str, Key] = {}
        patched_young: dict[str, bytes] = {}
        for rel, key in keys.items():
            i = bisect_left(kept.paths, rel)
            if i >= len(kept.paths) or kept.paths[i] != rel or len(key) != 4:
                return
            patched_keys[rel] = (int(key[0]), int(key[1]), int(key[2]), int(key[3]))
            flat[4 * i: 4 * i + 4] = array("q", patched_keys[rel])
            new_young.pop(rel, None)
        for rel, body in young.items():
            if rel not in patched_keys:
                return
            new_young[rel] = patched_young[rel] = bytes(body)
        if index is not None:
            index_of(INDEX_NAME, index[1])  # its paths are plain ones (a ValueError if not)
        patched = (
            (bytes(index[0]), index[1]) if index is not None else (kept.index, kept.index_plain),
            tuple(findings_of(findings, named)),
            {p: tuple(findings_of(v, named)) for p, v in file_only.items() if named(p)},
            {p: tuple(findings_of(v, named)) for p, v in file_cross.items() if named(p)},
            {str(g): int(n) for g, n in glob_counts.items()},
            frozenset(p for p in provenance if named(p)),
            frozenset(p for p in superseding if named(p)),
        )
    except Exception:  # noqa: BLE001 - an unreadable patch is none
        return
    kept.since_ns, kept.keys, kept.young = int(since_ns), flat, new_young
    kept.patched = (patched_keys, patched_young)
    if index is not None:
        kept.facts = None  # of the index before the patch
    ((kept.index, kept.index_plain), kept.findings, kept.file_only, kept.file_cross,
     kept.glob_counts, kept.provenance, kept.superseding) = patched


def _index_lines_apart_of(plain: Any) -> tuple[bytes, bool, tuple[Any, ...]]:
    """MEMORY.md as kept (:func:`_lines_apart`): a kept answer always holds it."""
    tree = _lines_apart_of(plain)
    if tree is None:
        raise ValueError("no index")
    return tree


def _facts(plain: Any) -> tuple[Any, ...]:
    """The kept :func:`memtui.core.rules.incremental.index_facts`, checked for their shape (a
    ValueError if not what it gave)."""
    (budget, paths, bare, regions), numbers, mentions, past_cut = plain
    strings = (paths, bare, numbers, mentions, past_cut, (g for _, g in regions))
    ints = (chain.from_iterable(numbers.values()), mentions.values(), past_cut.values(),
            (n for n, _ in regions))
    if not (isinstance(budget, tuple) and set(map(type, chain.from_iterable(strings))) <= {str}
            and set(map(type, numbers.values())) <= {tuple}
            and set(map(type, chain.from_iterable(ints))) <= {int}):
        raise ValueError("not the index's facts")
    return ((budget, paths, bare, regions), numbers, mentions, past_cut)


def _lines_apart_of(plain: Any) -> tuple[bytes, bool, tuple[Any, ...]] | None:
    if plain is None:
        return None
    blob, bom, scopes = plain
    return bytes(blob), bool(bom), tuple(tuple(scope) for scope in scopes)


def _dirs(plain: Any) -> tuple[tuple[str, Key], ...] | None:
    if plain is None:
        return None
    out = []
    for prefix, key in plain:
        if not isinstance(prefix, str) or (prefix and not prefix.endswith("/")) or len(key) != 4:
            raise ValueError("not a folder key")
        if prefix:
            check_stored_path(prefix[:-1])
        out.append((prefix, (int(key[0]), int(key[1]), int(key[2]), int(key[3]))))
    return tuple(out)


# ---------------------------------------------------------------- the dirty log


def _open_dirty(folder: Path, name: str, flags: int) -> int:
    dir_fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_CLOEXEC)
    try:
        return os.open(name, flags | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC, 0o600,
                       dir_fd=dir_fd)
    finally:
        os.close(dir_fd)


def mark_dirty(cache: StatCache | None, rel: str) -> bool:
    """Note in the root's dirty log that a write of ``rel`` was judged (it may land after the
    answer), and of the file in the root a symlink at ``rel`` leads to; when the file has other
    names (hard links), a :data:`LINKED` line: no path names them, and the runs that read the
    log then check every file.  False when the log cannot be written: then the kept answer is
    taken away, so that no later run trusts it without seeing ``rel``."""
    where = _files(cache)
    if where is None:
        return True
    folder, name, dirty = where
    stamp = time.time_ns()
    lines = f"{stamp} {rel}\n"
    base = cache.root_real if cache is not None else ""
    real = os.path.realpath(os.path.join(base, rel))
    if real != os.path.join(base, rel) and real.startswith(base.rstrip(os.sep) + os.sep):
        # a write through a symlink lands in the file it leads to: that file may change too
        lines += f"{stamp} {os.path.relpath(real, base).replace(os.sep, '/')}\n"
    try:
        st = os.stat(real)
        linked = stat.S_ISREG(st.st_mode) and st.st_nlink > 1
    except OSError:
        linked = False  # a new file: one name
    if linked:  # a write in place through one name changes what every other name holds
        lines += f"{stamp} {LINKED}\n"
    line = lines.encode("utf-8", "surrogateescape")
    try:
        if not os.path.isdir(folder):
            return True  # no kept answer can exist yet
        fd = _open_dirty(folder, dirty, os.O_WRONLY | os.O_APPEND | os.O_CREAT)
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                raise OSError("not a regular file")
            fcntl.flock(fd, fcntl.LOCK_EX)
            os.write(fd, line)
        finally:
            os.close(fd)
        return True
    except OSError:
        forget(cache)
        return False


def forget(cache: StatCache | None) -> None:
    """Take a root's kept answer away (best effort)."""
    where = _files(cache)
    if where is None:
        return
    try:
        write_cache_file(where[0], where[1], b"")
    except OSError:
        pass


def _dirty(folder: Path, name: str, since_ns: int) -> set[str] | None:
    """The paths the dirty log names that may have changed after ``since_ns`` (None: unreadable,
    and so is a log over :data:`DIRTY_READ_MAX_BYTES`: it is never read into memory, a full
    validation runs instead, and the answer it keeps trims the log)."""
    try:
        fd = _open_dirty(folder, name, os.O_RDONLY)
    except FileNotFoundError:
        return set()
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        fcntl.flock(fd, fcntl.LOCK_SH)
        size = os.fstat(fd).st_size
        if size > DIRTY_READ_MAX_BYTES:
            return None
        data = os.pread(fd, size + 1, 0)
        if len(data) > DIRTY_READ_MAX_BYTES:  # grown meanwhile (a writer without the lock)
            return None
    except OSError:
        return None
    finally:
        os.close(fd)
    out: set[str] = set()
    for line in data.split(b"\n")[:-1]:  # a line not yet ended is being written
        stamp, _, rel = line.partition(b" ")
        try:
            when = int(stamp)
        except ValueError:
            return None
        if when >= since_ns - DIRTY_KEEP_NS:
            out.add(rel.decode("utf-8", "surrogateescape"))
    return out


def _trim_dirty(folder: Path, name: str, since_ns: int) -> None:
    """Cut a long dirty log to the lines of its last hour (in place, under its lock), reading
    only its last :data:`DIRTY_MAX_BYTES` (the newest lines are at its end).  When lines of that
    hour may lie before what was read, a :data:`LINKED` line stamped with the oldest line read
    takes their place: the runs that read the log within that hour check every file."""
    try:
        fd = _open_dirty(folder, name, os.O_RDWR)
    except OSError:
        return
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode) or os.fstat(fd).st_size <= DIRTY_MAX_BYTES:
            return
        fcntl.flock(fd, fcntl.LOCK_EX)
        start = max(os.fstat(fd).st_size - DIRTY_MAX_BYTES, 0)
        data = os.pread(fd, DIRTY_MAX_BYTES, start)
        lines = data.split(b"\n")[:-1]
        if start and lines:
            lines = lines[1:]  # the first line read is cut at its start
        stamps = [int(ln.partition(b" ")[0]) if ln.partition(b" ")[0].isdigit() else -1 for ln in lines]
        kept = [ln for ln, when in zip(lines, stamps) if when >= since_ns - DIRTY_KEEP_NS]
        if start and (not stamps or stamps[0] < 0 or stamps[0] >= since_ns - DIRTY_KEEP_NS):
            oldest = stamps[0] if stamps and stamps[0] >= 0 else time.time_ns()
            kept.insert(0, f"{oldest} {LINKED}".encode())  # what was not read may be of the hour
        body = b"".join(ln + b"\n" for ln in kept)
        os.pwrite(fd, body, 0)
        os.ftruncate(fd, len(body))
    except OSError:
        return
    finally:
        os.close(fd)


# ---------------------------------------------------------------- the root from its kept answer


def _read(path: str, rel: str) -> tuple[MemoryFile, Key]:
    """A memory file as the store reads it, and the stat key of the bytes read."""
    data, st = read_with_stat(path)
    key = stat_key(st) if len(data) == st.st_size else UNTRUSTED
    text = decode_bytes(data)
    return MemoryFile(path=rel, size=len(data), mtime=st.st_mtime, text=text,
                      frontmatter=parse_frontmatter(text), mode=stat.S_IMODE(st.st_mode)), key


def _index(data: bytes | None, name: str, exists: Callable[[str], bool]) -> Index:
    return parse_index(data, name, exists) if data is not None else Index(name, False)


@dataclass(frozen=True)
class Current:
    """A root as it is now, from its kept answer (``changed``: the files read for it)."""

    listing: Listing
    walk: tuple[str, ...] | None  # the memory files in listing order (None: the kept ones)
    snapshot: Snapshot
    found: FindingsCache
    changed: frozenset[str]
    verified: bool  # every file's stat key was checked
    keys: dict[str, Key]  # the stat key of each file read or checked (UNTRUSTED: too young)
    kept: Kept


def current(root: Path | str, config: BudgetConfig = BudgetConfig(), *, verify: bool,
            cache: StatCache | None = None) -> Current | None:
    """The root's snapshot and findings now, from its kept answer (see the module's docstring),
    or None when it cannot be used.  :class:`Stale` may be raised later, by a file read on
    demand."""
    config = config.for_root(root)  # as the snapshot it keeps was measured
    if cache is None:
        cache = StatCache.open(root, read=False)
    found = _looked(root, config, verify, cache)
    return None if found is None else _replayed(*found, config)


@dataclass
class Look:
    """What a run found of the files a kept answer is about: the listing now (``walk`` None: the
    kept one), which files were added, removed or changed (their new text read), the stat key of
    each file checked, and the indexes' bytes now."""

    listing: Listing
    walk: tuple[str, ...] | None
    verified: bool
    added: set[str]
    removed: set[str]
    changed: set[str]
    fresh: dict[str, MemoryFile]
    checked: dict[str, Key]
    index_data: bytes
    archive_data: bytes | None

    def unchanged(self, kept: Kept) -> bool:
        """Nothing the kept answer is about has changed (its findings are the root's now)."""
        archive_name = self.listing.archive[1] if self.listing.archive else ARCHIVE_INDEX_NAME
        return not (self.changed or self.removed or self.index_data != kept.index
                    or self.archive_data != (kept.archive[1] if kept.archive else None)
                    or archive_name != (kept.archive[0] if kept.archive else ARCHIVE_INDEX_NAME))


def _looked(root: Path | str, config: BudgetConfig, verify: bool,
            cache: StatCache) -> tuple[Kept, Look] | None:
    """The root's kept answer and what changed since, or None when the answer cannot be used
    (none, another listing, a pending record, too many changes, a file gone since listed)."""
    kept = _load(cache, config)
    where = _files(cache)
    if kept is None or where is None:
        return None
    dirty = set() if verify else _dirty(where[0], where[2], kept.since_ns)
    if dirty is None:
        return None
    if LINKED in dirty:
        verify = True  # a write through one name of a file changed its other names, unnamed
    listing = _kept_listing(root, kept)
    walk: tuple[str, ...] | None = None  # the kept one
    if listing is None:
        listing = list_root(root)
        walk = tuple(map(operator.itemgetter(0), listing.memory))
    if _extra(listing) != kept.extra or listing.index_path is None or pending_records(listing.root):
        return None
    if any(not plain for _, plain in listing.folders):
        verify = True  # a symlinked file changes with the file it leads to: no path names both
    added: set[str] = set()
    removed: set[str] = set()
    if walk is not None and walk != kept.walk:
        now, before = set(walk), set(kept.paths)
        added, removed = now - before, before - now
    look = Look(listing, walk, verify, added, removed, set(added), {}, {}, b"", None)
    if not _check_files(kept, look, sorted(dirty | kept.young.keys()), cache.since_ns - RACY_NS):
        return None
    try:
        look.index_data = _read_bytes(listing.index_path)
        look.archive_data = _read_bytes(listing.archive[0]) if listing.archive else None
    except (OSError, TooLarge):
        return None
    return kept, look


def _check_files(kept: Kept, look: Look, suspects: list[str], limit: int) -> bool:
    """Find which of the kept files changed (every one on a verified run, else the ``suspects``:
    the dirty log's and the young ones), reading the changed and the added ones; False when too
    many changed or one is gone since it was listed."""
    base = str(look.listing.root)
    changed, removed, fresh, checked = look.changed, look.removed, look.fresh, look.checked

    def check(rel: str, old: Key | None) -> None:
        if rel in changed or rel in removed or rel in fresh or old is None:
            return  # (old None: not a memory file of the kept answer, nor now)
        path = os.path.join(base, rel)
        if old != UNTRUSTED:
            try:
                st = os.stat(path)
            except OSError:
                changed.add(rel)
                return
            key = stat_key(st)
            if key == old:
                checked[rel] = key
                return
        try:
            f, key = _read(path, rel)
        except (OSError, TooLarge):
            changed.add(rel)
            return
        checked[rel] = key  # what a new kept answer keeps for it
        fresh[rel] = f
        if old != UNTRUSTED or f.data != kept.young.get(rel):
            changed.add(rel)

    if look.verified:
        flat = kept.keys
        for i, rel in enumerate(kept.paths):
            check(rel, (flat[4 * i], flat[4 * i + 1], flat[4 * i + 2], flat[4 * i + 3]))
            if len(changed) + len(removed) > MAX_CHANGED:
                return False
    else:
        for rel in suspects:
            check(rel, kept.key(rel))
        if len(changed) + len(removed) > MAX_CHANGED:
            return False
    for rel in look.added:
        try:
            fresh[rel], checked[rel] = _read(os.path.join(base, rel), rel)
        except (OSError, TooLarge):
            return False
    if any(rel not in fresh for rel in changed - look.added):
        return False  # gone or unreadable since it was listed: the full load reports it
    for rel in fresh:
        if rel in checked and not (checked[rel][1] < limit and checked[rel][3] < limit):
            checked[rel] = UNTRUSTED
    return True


def _kept_snapshot(kept: Kept, look: Look, config: BudgetConfig) -> tuple[Snapshot, FindingsCache]:
    """The root as the kept answer has it (files read only when a rule asks for one, each still
    as it was, else :class:`Stale`), with its kept findings."""
    base, fresh, checked = str(look.listing.root), look.fresh, look.checked

    def load(rel: str) -> MemoryFile:
        """A file the kept answer is about, read when a rule asks for it: still as it was."""
        if rel in fresh:
            return fresh[rel]
        old = kept.key(rel)
        try:
            f, key = _read(os.path.join(base, rel), rel)
        except (OSError, TooLarge):
            raise Stale(rel) from None
        if old is None or (old != key and (old != UNTRUSTED or f.data != kept.young.get(rel))):
            raise Stale(rel)
        checked[rel] = key
        return f

    kept_archive_name = kept.archive[0] if kept.archive else ARCHIVE_INDEX_NAME
    files = LazyFiles(kept.paths, load, {}, kept.folders, kept.mixed)
    rows, bom, scopes = kept.index_plain
    if isinstance(rows, bytes):  # as kept: its lines built when a rule asks for them
        index = lazy_index_of(INDEX_NAME, rows, bom, scopes, kept.index, None, files, Stale)
        facts = kept.facts
    else:  # as a patch changed it
        index, facts = index_of(INDEX_NAME, kept.index_plain, files), None
    part = None
    if kept.archive_plain is not None and kept.archive is not None and kept.archive_part is not None:
        blob, bom, scopes = kept.archive_plain
        entries, refs, duplicates, secrets, listed, more = kept.archive_part
        archive = lazy_index_of(kept_archive_name, blob, bom, scopes, kept.archive[1], secrets,
                                files, Stale)  # its lines built on demand, as files are read
        listed_set = frozenset(listed)
        part = rules.validate.ArchivePart(archive, entries, refs, duplicates, listed_set,
                                          listed_set.union(more))
    else:
        archive = Index(ARCHIVE_INDEX_NAME, False)
    listing = look.listing
    snapshot = Snapshot(
        root=listing.root,
        index=index,
        archive_index=archive,
        files=files,
        other_files=tuple(sorted(listing.other)),
        nested_roots=tuple(sorted(listing.nested)),
        skipped=tuple(sorted(listing.skipped, key=lambda s: s.path)),
        outside=listing.outside,
        config=config,
        handoff=state_for_root(listing.root),
        interrupted=(),
    )
    found = rules.incremental.kept_findings_cache(
        snapshot, kept.file_only, kept.file_cross, kept.glob_counts, kept.provenance,
        kept.superseding, _with_handoff(kept.findings, snapshot.handoff), part, facts)
    return snapshot, found


def _with_handoff(findings: tuple[Finding, ...], handoff: HandoffState | None) -> tuple[Finding, ...]:
    """The kept findings and the handoff state's (never kept: they depend on the day)."""
    fresh = handoff_findings(handoff)
    return tuple(rules.validate.sort_findings([*findings, *fresh])) if fresh else findings


def _replayed(kept: Kept, look: Look, config: BudgetConfig) -> Current:
    """The root now: the kept answer, with what changed since played on it."""
    snapshot, found = _kept_snapshot(kept, look, config)
    listing, walk, verify, checked = look.listing, look.walk, look.verified, look.checked
    if look.unchanged(kept):
        return Current(listing, walk, snapshot, found, frozenset(), verify, checked, kept)
    changed, added, removed = look.changed, look.added, look.removed
    files = cast(LazyFiles, snapshot.files)  # as _kept_snapshot made them: read when asked for
    after_files = files.copy()  # still lazy: a dict would read every file
    for rel in removed:
        del after_files[rel]
    for rel in sorted(changed):
        after_files[rel] = look.fresh[rel]
    index, archive = snapshot.index, snapshot.archive_index
    archive_name = listing.archive[1] if listing.archive else ARCHIVE_INDEX_NAME
    index_changed = look.index_data != kept.index
    archive_changed = look.archive_data != (kept.archive[1] if kept.archive else None) \
        or archive_name != (kept.archive[0] if kept.archive else ARCHIVE_INDEX_NAME)
    listed = bool(added or removed)  # which files exist matters to a parse only under a
    after = Snapshot(  # Memory base (as in changeset.apply_to_snapshot)
        root=snapshot.root,
        index=_index(look.index_data, INDEX_NAME, after_files.__contains__)
        if index_changed or (listed and _has_base(index)) else index,
        archive_index=_index(look.archive_data, archive_name, after_files.__contains__)
        if archive_changed or (listed and _has_base(archive)) else archive,
        files=after_files,
        other_files=snapshot.other_files, nested_roots=snapshot.nested_roots,
        skipped=snapshot.skipped, outside=snapshot.outside, config=config,
        handoff=snapshot.handoff, interrupted=(),
    )
    result = Result(after, {}, frozenset(changed), frozenset(added), frozenset(removed))
    now_snapshot, now_found = rules.incremental.revalidate(snapshot, found, result)
    return Current(listing, walk, now_snapshot, now_found, frozenset(changed | removed), verify,
                   checked, kept)


def _has_base(index: Index) -> bool:
    return any(scope.memory_base for scope in index.scopes)


def _read_bytes(path: str) -> bytes:
    data, _ = read_with_stat(path)
    return data


def keep_current(cache: StatCache, now: Current) -> None:
    """Keep the answer :func:`current` gave (after a verified run) as the root's new kept
    answer: the stat keys of the files it did not read are the kept ones."""
    kept, snapshot = now.kept, now.snapshot
    if not now.changed and not now.keys:
        return
    try:
        walk = now.walk if now.walk is not None else kept.walk
    except Stale:
        return  # the kept listing is unreadable: the next full validation keeps a new one
    if not _describable(now.listing, walk, snapshot):
        return
    paths = list(snapshot.files)
    if paths == kept.paths:
        flat = array("q", kept.keys)
        for rel, key in now.keys.items():
            i = bisect_left(paths, rel)
            flat[4 * i: 4 * i + 4] = array("q", key)
    else:
        flat = array("q")
        for rel in paths:
            known = now.keys.get(rel) or (kept.key(rel) if rel not in now.changed else None)
            flat.extend(known or UNTRUSTED)
    young: dict[str, bytes] = {}
    for i, rel in enumerate(paths):
        if flat[4 * i] == -1:
            data = kept.young.get(rel) if rel not in now.changed else None
            young[rel] = data if data is not None else snapshot.files[rel].data
    _store(cache, cache.since_ns, now.listing, walk, paths, flat, young, snapshot, now.found)


def keep_patch(cache: StatCache, now: Current, written: str | None = None,
               landed: tuple[Snapshot, FindingsCache] | None = None) -> None:
    """Keep what a quick run (:func:`current` with ``verify=False``) read as a patch of the kept
    answer (``stat/<root hash>.patch``, small): the new stat key (or bytes, while too young) of
    each file it found changed, the index when that changed, and the findings now — so the next
    run does not read and play those files again.  With ``written`` (an allowed write of an
    existing memory file or of the index) and ``landed`` (the root and its findings once it
    lands), the patch is of the root as the write leaves it: the file is kept by the bytes it
    will hold (if it does not come to hold them, the next run reads it again).  Only for a run
    on the kept listing that changed no file's presence nor the archive index; what the kept
    answer trusts stays the same (the files the run did not read keep their kept keys)."""
    kept = now.kept
    where = _files(cache)
    ahead = _lands_in_kept(kept, written, landed)
    if where is None or not (now.changed or ahead) or now.verified or now.walk is not None:
        return
    snapshot, found = landed if ahead and landed is not None else (now.snapshot, now.found)
    if not _patchable(kept, snapshot):
        return
    patched = _patched_files(kept, now, snapshot, written if ahead else None)
    if patched is None:
        return
    blob = marshal.dumps(_patch_value(cache, kept, *patched, snapshot, found))
    try:
        write_cache_file(where[0], _patch_name(where[1]),
                         PATCH_MAGIC + zlib.crc32(blob).to_bytes(4, "little") + blob)
    except OSError:
        pass


def _lands_in_kept(kept: Kept, written: str | None, landed: tuple[Snapshot, FindingsCache] | None) -> bool:
    """Whether the patch is of the root as a write leaves it: one of the index or of a file of
    the kept answer, with the root once it lands."""
    return written is not None and landed is not None \
        and (written == INDEX_NAME or kept.key(written) is not None)


def _patchable(kept: Kept, snapshot: Snapshot) -> bool:
    """Whether a patch can say what changed in ``snapshot``: it has the kept files (no file's
    presence changed), no interrupted change and the kept archive index."""
    if len(snapshot.files) != len(kept.paths) or snapshot.interrupted:
        return False
    archive = snapshot.archive_index
    return (archive.render() if archive.exists else None) == (kept.archive[1] if kept.archive else None)


def _patched_files(kept: Kept, now: Current, snapshot: Snapshot,
                   written: str | None) -> tuple[dict[str, Key], dict[str, bytes]] | None:
    """The patch so far with the files the run found changed (and ``written``, a memory file a
    write will land in, by its bytes): each one's stat key, and the bytes of those too young for
    theirs; None when one is not a file of the kept answer or the young bytes grow too many."""
    keys, young = dict(kept.patched[0]), dict(kept.patched[1])  # the patch so far, and now
    for rel in now.changed:
        key = now.keys.get(rel)
        if key is None or kept.key(rel) is None:
            return None
        young.pop(rel, None)
        if key == UNTRUSTED:
            young[rel] = now.snapshot.files[rel].data
        keys[rel] = key
    if written != INDEX_NAME and written is not None:
        keys[written], young[written] = UNTRUSTED, snapshot.files[written].data
    if sum(len(b) for b in young.values()) + sum(map(len, kept.young.values())) > MAX_YOUNG_BYTES:
        return None
    return keys, young


def _patch_value(cache: StatCache, kept: Kept, keys: dict[str, Key], young: dict[str, bytes],
                 snapshot: Snapshot, found: FindingsCache) -> tuple[Any, ...]:
    """What the patch file holds (marshalled): the files' keys and young bytes, the index when
    it is not the kept one, and the findings now less the handoff state's."""
    index = snapshot.index.render()
    handoff = set(handoff_findings(snapshot.handoff))
    return (
        FORMAT, kept.base, cache.since_ns, keys, young,
        (index, index_plain(snapshot.index)) if index != kept.base_index else None,
        findings_plain(f for f in found.findings if f not in handoff),
        {p: findings_plain(v) for p, v in found.file_only.items()},
        {p: findings_plain(v) for p, v in found.file_cross.items()},
        dict(found.glob_counts), tuple(sorted(found.provenance)), tuple(sorted(found.superseding)),
    )


def validate_kept(root: Path | str, config: BudgetConfig = BudgetConfig(),
                  clock: Callable[[], int] = time.time_ns) -> list[Finding] | None:
    """Every finding of a root now (what :func:`memtui.core.rules.validate.validate` gives), from its
    kept answer on a verified run (every file's stat key checked, the changed files read and
    played on it), which becomes the new kept answer; None when there is none to use.  A root
    where nothing changed is answered from the kept findings alone, and its answer is kept again
    only when it learnt something (a young file's stat key now trusted, a patch to fold in)."""
    cache = StatCache.open(root, clock, read=False)
    try:
        found = _looked(root, config, True, cache)
        if found is None:
            return None
        kept, look = found
        if look.unchanged(kept) and not kept.young and not any(kept.patched):
            return list(_with_handoff(kept.findings, state_for_root(look.listing.root)))
        now = _replayed(kept, look, config)
        findings = list(now.found.findings)
    except Stale:
        return None
    keep_current(cache, now)
    return findings
