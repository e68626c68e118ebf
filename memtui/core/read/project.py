"""The project a memory root talks about, what it holds, and checking references against it.

The project is ``--repo``, else the decoded ``~/.claude/projects/<encoded>`` folder, else the git
work tree holding the root.  :class:`ProjectIndex` learns each fact about it once per run: the
top-level names, the tracked files (one ``git ls-files``), the identifiers in every tracked text
file (one read of each file, never a search per symbol; binaries and files over 1 MB skipped),
and the branches (one ``git for-each-ref``).  :class:`ReferenceChecker` answers found / missing /
unverifiable for each reference, fetching URLs only when asked (``online``).

What an index consulted can be kept with the answers made from it (:meth:`ProjectIndex.state`) and
checked on a later run (:meth:`ProjectIndex.holds`): every fact by its value (the listings, the
tracked files, the branches), except the identifiers, which are the files' stat keys under the
stat cache's racy rule.

Files inside any folder holding a ``MEMORY.md`` (below the project's top) are left out of the
identifier index, so memory never vouches for itself.
"""

from __future__ import annotations

import os
from functools import cached_property
from pathlib import Path
from typing import AbstractSet, Any, Callable, Iterable

from ..model.snapshot import INDEX_NAME
from .project_find import Project as Project
from .project_find import decode_claude_project as decode_claude_project
from .project_find import find_project as find_project
from .project_find import git_toplevel
from .references import (
    Reference,
    ReferenceCheck,
    RefKind,
    RefStatus,
    path_scope,
    url_scope,
)

_PATH, _SYMBOL, _URL = RefKind.PATH, RefKind.SYMBOL, RefKind.URL
_FOUND, _MISSING, _UNVERIFIABLE = RefStatus.FOUND, RefStatus.MISSING, RefStatus.UNVERIFIABLE


MAX_INDEXED_FILE_BYTES = 1_000_000
MAX_WALKED_FILES = 50_000
_WALK_SKIP = frozenset({"node_modules", "__pycache__", "venv", "dist", "build", "target"})
_BINARY_EXTENSIONS = frozenset(
    """png jpg jpeg gif webp bmp ico icns tif tiff psd pdf zip gz tgz bz2 xz zst 7z rar jar war
    class pyc pyo so dylib dll exe bin o a lib woff woff2 ttf otf eot mp3 mp4 m4a wav ogg flac
    mov avi mkv webm wasm sqlite db parquet npy npz pkl pt onnx""".split()
)
_TOKEN_TABLE = bytes(
    c if (48 <= c <= 57 or 65 <= c <= 90 or 97 <= c <= 122 or c == 95) else 32 for c in range(256)
)


def _git(args: list[str], cwd: Path, timeout: float = 60.0) -> bytes | None:
    import subprocess  # deferred: a hook imports this module and never runs git

    try:
        done = subprocess.run(["git", "-C", str(cwd), *args], capture_output=True, timeout=timeout,
                              check=False)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


#: What a :class:`ProjectIndex` consulted, as plain data: ``(fact, value…)`` tuples.
State = tuple[tuple[Any, ...], ...]
#: A file's stat key (size, mtime_ns, inode, ctime_ns), as the stat cache keys memory files.
StatKey = tuple[int, int, int, int]


def _stat_key(path: str) -> StatKey | None:
    try:
        st = os.stat(path)
    except (OSError, ValueError):
        return None
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns)


class ProjectIndex:
    """What is known about one project, each fact learnt once (lazily) and kept for the run."""

    def __init__(self, project: Project, max_file_bytes: int = MAX_INDEXED_FILE_BYTES) -> None:
        self.project = project
        self.path = project.path
        self.max_file_bytes = max_file_bytes
        self._exists: dict[str, bool] = {}
        self._listings: dict[str, frozenset[str]] = {}
        self._read_keys: list[StatKey | None] | None = None  # of the identifiers' sources, as read

    @cached_property
    def is_git(self) -> bool:
        return git_toplevel(self.path) is not None

    @cached_property
    def top_level(self) -> frozenset[str]:
        """Names of the project folder's entries (folders and files)."""
        try:
            return frozenset(os.listdir(self.path))
        except OSError:
            return frozenset()

    @cached_property
    def _tracked(self) -> bytes | None:
        """``git ls-files -z`` as git wrote it; None outside git or when git fails."""
        return _git(["ls-files", "-z"], self.path) if self.is_git else None

    @cached_property
    def files(self) -> tuple[str, ...]:
        """Project-relative paths of the tracked files (or, outside git, the files on disk)."""
        out = self._tracked
        if out is not None:
            return tuple(p.decode("utf-8", "surrogateescape") for p in out.split(b"\0") if p)
        return self._walk()

    def _walk(self) -> tuple[str, ...]:
        found: list[str] = []
        for folder, dirs, names in os.walk(self.path):
            dirs[:] = [d for d in dirs if not d.startswith(".") and d not in _WALK_SKIP]
            rel = os.path.relpath(folder, self.path)
            prefix = "" if rel == "." else rel.replace(os.sep, "/") + "/"
            found.extend(prefix + n for n in names if not n.startswith("."))
            if len(found) >= MAX_WALKED_FILES:
                break
        return tuple(sorted(found[:MAX_WALKED_FILES]))

    @cached_property
    def known_paths(self) -> frozenset[str]:
        """The tracked files and every folder above them."""
        known: set[str] = set()
        for path in self.files:
            known.add(path)
            cut = path.rfind("/")
            while cut > 0:
                folder = path[:cut]
                if folder in known:
                    break
                known.add(folder)
                cut = path.rfind("/", 0, cut)
        return frozenset(known)

    def path_exists(self, path: str) -> bool:
        """A project-relative path is tracked, or is on disk (built or ignored files count).

        Untracked paths are looked up in their folder's listing, read once per folder: missing
        references tend to share a folder, and one listing is cheaper than a stat per path.
        """
        hit = self._exists.get(path)
        if hit is None:
            if path in self.known_paths:
                hit = True
            else:
                folder, _, name = path.rpartition("/")
                hit = name in self._listing(folder)
            self._exists[path] = hit
        return hit

    def _listing(self, folder: str) -> frozenset[str]:
        names = self._listings.get(folder)
        if names is None:
            try:
                names = frozenset(os.listdir(self.path / folder if folder else self.path))
            except OSError:
                names = frozenset()
            self._listings[folder] = names
        return names

    @cached_property
    def identifiers(self) -> AbstractSet[bytes]:
        """Every identifier-like token in the project's text files (one read of each file).

        Left out: files inside memory roots, files with a binary extension or a NUL byte in their
        first 8 KB, and files over ``max_file_bytes``.  ``os.read`` rather than ``open``: a third
        less time for thousands of small files.
        """
        tokens: set[bytes] = set()
        keys: list[StatKey | None] = []
        base = str(self.path) + os.sep
        limit = self.max_file_bytes
        table = _TOKEN_TABLE
        fstat = os.fstat
        for rel in self._sources():
            try:
                fd = os.open(base + rel, os.O_RDONLY)
            except OSError:
                keys.append(_stat_key(base + rel))  # as a later run's stat will see it
                continue
            try:
                data = os.read(fd, limit + 1)
                st = fstat(fd)  # after the read: a change since makes it young (racy rule)
                keys.append((st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns))
            except OSError:
                keys.append(_stat_key(base + rel))
                continue
            finally:
                os.close(fd)
            if len(data) > limit or b"\0" in data[:8192]:
                continue
            tokens.update(data.translate(table).split())
        self._read_keys = keys
        return tokens

    def _sources(self) -> list[str]:
        """The tracked files the identifiers are read from (by their paths alone)."""
        files = self.files
        memory_dirs = tuple(p[: -len(INDEX_NAME)] for p in files if p.endswith("/" + INDEX_NAME))
        binary = _BINARY_EXTENSIONS
        return [rel for rel in files if not (memory_dirs and rel.startswith(memory_dirs))
                and rel.rpartition(".")[2].lower() not in binary]

    def has_identifier(self, name: str) -> bool:
        return name.encode("ascii", "replace") in self.identifiers

    @cached_property
    def branches(self) -> frozenset[str] | None:
        """Local and remote-tracking branch names (``x`` and ``origin/x``); ``None`` outside git."""
        if not self.is_git:
            return None
        out = _git(["for-each-ref", "--format=%(refname)", "refs/heads", "refs/remotes"], self.path)
        if out is None:
            return None
        names: set[str] = set()
        for line in out.decode("utf-8", "surrogateescape").splitlines():
            if line.startswith("refs/heads/"):
                names.add(line[len("refs/heads/"):])
            elif line.startswith("refs/remotes/"):
                remote_ref = line[len("refs/remotes/"):]
                names.add(remote_ref)
                if "/" in remote_ref:
                    names.add(remote_ref.split("/", 1)[1])
        names.discard("HEAD")
        return frozenset(names) if names else None

    # ---- what was consulted, kept and checked again

    @property
    def read_identifiers(self) -> bool:
        """Whether the identifiers have been read (in this run)."""
        return "identifiers" in self.__dict__

    def state(self, trusted: Callable[[StatKey], bool]) -> State | None:
        """Every fact this index has learnt so far, as plain data for :meth:`holds` on a later
        run; None when a file read for the identifiers is too young to trust (``trusted`` is the
        stat cache's racy rule, whose clock must have been read before the identifiers were)."""
        learnt = self.__dict__
        items: list[tuple[Any, ...]] = [("path", str(self.path), self.max_file_bytes)]
        if "is_git" in learnt:
            items.append(("git", self.is_git))
        if "top_level" in learnt:
            items.append(("top", tuple(sorted(self.top_level))))
        if "files" in learnt or "_tracked" in learnt:
            tracked = self._tracked
            items.append(("files", tracked, None if tracked is not None else self.files))
        items.extend(("ls", folder, tuple(sorted(names)))
                     for folder, names in sorted(self._listings.items()))
        if "branches" in learnt:
            branches = self.branches
            items.append(("branches", None if branches is None else tuple(sorted(branches))))
        if "identifiers" in learnt:
            keys = self._read_keys
            if keys is None or not all(trusted(k) for k in keys if k is not None):
                return None
            items.append(("ids", keys))
        return tuple(items)

    def holds(self, state: State) -> bool:
        """Whether every fact of a kept :meth:`state` is what it was; the facts it learns to
        tell are kept for this run (a check that fails costs a later cold run nothing)."""
        try:
            for item in state:
                if not self._holds(item):
                    return False
        except (TypeError, ValueError, IndexError, AttributeError):
            return False  # not a state this code wrote
        return True

    def _holds(self, item: tuple[Any, ...]) -> bool:
        fact = item[0]
        if fact == "path":
            return item[1:] == (str(self.path), self.max_file_bytes)
        if fact == "git":
            return self.is_git is item[1]
        if fact == "top":
            return bool(tuple(sorted(self.top_level)) == item[1])
        if fact == "files":
            tracked = self._tracked
            return bool(tracked == item[1] and (tracked is not None or self.files == item[2]))
        if fact == "ls":
            return bool(tuple(sorted(self._listing(item[1]))) == item[2])
        if fact == "branches":
            branches = self.branches
            return bool((None if branches is None else tuple(sorted(branches))) == item[1])
        if fact == "ids":
            base = str(self.path) + os.sep
            return bool([_stat_key(base + rel) for rel in self._sources()] == item[1])
        return False


class ProjectCache:
    """One :class:`ProjectIndex` per project folder for a whole run (several roots may share one)."""

    def __init__(self) -> None:
        self._indexes: dict[Path, ProjectIndex] = {}

    def get(self, project: Project) -> ProjectIndex:
        index = self._indexes.get(project.path)
        if index is None:
            index = self._indexes[project.path] = ProjectIndex(project)
        return index


# ------------------------------------------------------------------------------------------ URLs

URL_TIMEOUT = 3.0
UrlFetcher = Callable[[str, float], int | str]


def fetch_status(url: str, timeout: float = URL_TIMEOUT) -> int | str:
    """The HTTP status a URL answers (HEAD, then GET when HEAD is refused), or why there was none."""
    import urllib.error  # here, not at the top: every load_root imports this module (handoff)
    import urllib.request

    headers = {"User-Agent": "memtui (memory staleness check)"}
    status: int | str = "no answer"
    for method in ("HEAD", "GET"):
        request = urllib.request.Request(url, method=method, headers=headers)
        try:
            with urllib.request.urlopen(request, timeout=timeout) as response:  # noqa: S310
                status = int(response.status)
        except urllib.error.HTTPError as exc:
            status = int(exc.code)
        except Exception as exc:  # noqa: BLE001 - any failure to answer is "no answer"
            reason = getattr(exc, "reason", None) or exc.__class__.__name__
            return f"no answer ({reason})"
        if status not in (403, 405, 501):
            return status
    return status


class ReferenceChecker:
    """Checks references for one root against its project (if any), offline unless ``online``."""

    def __init__(self, index: ProjectIndex | None, online: bool = False,
                 fetcher: UrlFetcher | None = None, url_timeout: float = URL_TIMEOUT,
                 url_cache: dict[str, int | str] | None = None) -> None:
        self.index = index
        self.online = online
        self.fetcher = fetcher or fetch_status
        self.url_timeout = url_timeout
        self.url_status: dict[str, int | str] = url_cache if url_cache is not None else {}
        self._checked: dict[tuple[RefKind, str], ReferenceCheck] = {}

    def prefetch_urls(self, urls: Iterable[str]) -> None:
        """Fetch every URL not yet known, a few at a time (only when online)."""
        if not self.online:
            return
        todo = sorted({u for u in urls if u not in self.url_status and url_scope(u) is None})
        if not todo:
            return
        from concurrent.futures import ThreadPoolExecutor

        with ThreadPoolExecutor(max_workers=min(8, len(todo))) as pool:
            for url, status in zip(todo, pool.map(lambda u: self.fetcher(u, self.url_timeout), todo)):
                self.url_status[url] = status

    def check(self, refs: Iterable[Reference | tuple[RefKind, str]]) -> tuple[ReferenceCheck, ...]:
        """The check of each reference; a reference seen before in this run is not checked again."""
        known = self._checked
        out = []
        for ref in refs:
            result = known.get(ref)
            if result is None:
                result = known[ref] = self.check_one(ref)
            out.append(result)
        return tuple(out)

    def check_one(self, ref: Reference | tuple[RefKind, str]) -> ReferenceCheck:
        kind, text = ref
        if kind is _URL:
            return self._check_url(text)
        index = self.index
        if index is None:
            return ReferenceCheck(kind, text, _UNVERIFIABLE, "no project found")
        if kind is _SYMBOL:
            if text.encode("ascii", "replace") in index.identifiers:
                return ReferenceCheck(kind, text, _FOUND)
            return ReferenceCheck(kind, text, _MISSING, "not found in the project's tracked text files")
        if kind is _PATH:
            why = path_scope(text, index.top_level)
            if why is not None:
                return ReferenceCheck(kind, text, _UNVERIFIABLE, why)
            if index.path_exists(text):
                return ReferenceCheck(kind, text, _FOUND)
            return ReferenceCheck(kind, text, _MISSING,
                                  f"no such file in {index.path.name or index.path}")
        branches = index.branches
        if branches is None:
            return ReferenceCheck(kind, text, _UNVERIFIABLE,
                                  "the project has no git branches to check against")
        if text in branches:
            return ReferenceCheck(kind, text, _FOUND)
        return ReferenceCheck(kind, text, _MISSING, "no such branch")

    def _check_url(self, url: str) -> ReferenceCheck:
        why = url_scope(url)
        if why is not None:
            return ReferenceCheck(_URL, url, RefStatus.UNVERIFIABLE, why)
        if not self.online:
            return ReferenceCheck(_URL, url, RefStatus.UNVERIFIABLE,
                                  "not checked offline (use --online)")
        status = self.url_status.get(url)
        if status is None:
            status = self.url_status[url] = self.fetcher(url, self.url_timeout)
        if status == 200:
            return ReferenceCheck(_URL, url, RefStatus.FOUND)
        reason = f"answered HTTP {status}" if isinstance(status, int) else str(status)
        return ReferenceCheck(_URL, url, RefStatus.MISSING, reason)
