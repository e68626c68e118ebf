"""The snapshot: an immutable picture of one memory root as read from disk.

Everything above the store (validator, budget, staleness, consolidation, verbs, the app) reads
these objects and never the disk.  Texts are decoded with ``surrogateescape`` so that
``text.encode("utf-8", "surrogateescape")`` gives back the exact bytes read, whatever they were.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from enum import Enum
from itertools import compress, repeat
from operator import add, attrgetter, is_
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, NamedTuple

if TYPE_CHECKING:
    from .handoff_state import HandoffState
    from .journal import Progress

INDEX_NAME = "MEMORY.md"
ARCHIVE_INDEX_NAME = "MEMORY-archive.md"
ARCHIVE_DIR = "archive"
#: team memory (CLAUDE-CODE.md): a ``team/`` subfolder of a memory folder, written by teammates'
#: sessions too — its own layer: reported, never blocking, changed only when asked
TEAM_DIR = "team"


def in_team(path: str) -> bool:
    """Whether a root-relative path lies in the root's team memory (``team/…``)."""
    return path.startswith(TEAM_DIR + "/")
SCOPE_FILE = "SCOPE.md"

KNOWN_TYPES = frozenset({"value", "user", "feedback", "project", "reference"})
PROVENANCE_KEYS = ("consolidated_from", "supersedes", "superseded_by", "folded_into")
LIST_KEYS = PROVENANCE_KEYS + ("relates_to",)


def encode_text(text: str) -> bytes:
    """Give back the exact bytes a text was decoded from."""
    return text.encode("utf-8", "surrogateescape")


def decode_bytes(data: bytes) -> str:
    """Decode file bytes losslessly (invalid UTF-8 survives as surrogates)."""
    return data.decode("utf-8", "surrogateescape")


class FrontmatterLine(NamedTuple):
    """One line inside the frontmatter block, with where it sits in the file (a tuple: cheap)."""

    number: int  # 1-based line number in the file
    raw: str  # the line without its ending
    key: str | None  # None when the line does not split at ': ' (or is a list item / blank)
    value: str | None
    nested: bool  # indented under ``metadata:``
    list_item_of: str | None = None  # key this ``  - item`` line belongs to


@dataclass(frozen=True)
class Frontmatter:
    """The parsed frontmatter block of a topic file (both dialects, read flat)."""

    present: bool  # the file starts with a '---' line
    closed: bool  # ... and the block has its closing '---'
    fields: Mapping[str, str] = field(default_factory=dict)
    lists: Mapping[str, tuple[str, ...]] = field(default_factory=dict)
    lines: tuple[FrontmatterLine, ...] = ()
    unsplit: tuple[int, ...] = ()  # line numbers of lines that do not split
    body_offset: int = 0  # character offset where the body starts in the text

    def get(self, key: str, default: str = "") -> str:
        return self.fields.get(key, default)

    def names(self, key: str) -> tuple[str, ...]:
        """The file names a list key (``supersedes``, ``relates_to`` …) holds."""
        return self.lists.get(key, ())


EMPTY_FRONTMATTER = Frontmatter(present=False, closed=False)


@dataclass(frozen=True)
class MemoryFile:
    """A Markdown memory file under a root."""

    path: str  # relative to the root, '/' separators
    size: int  # bytes on disk
    mtime: float
    text: str  # decoded with surrogateescape; see encode_text
    frontmatter: Frontmatter
    mode: int = 0o644

    @property
    def name(self) -> str:
        return self.path.rsplit("/", 1)[-1]

    @property
    def stem(self) -> str:
        name = self.name
        return name[:-3] if name.lower().endswith(".md") else name

    @property
    def body(self) -> str:
        return self.text[self.frontmatter.body_offset :]

    @property
    def data(self) -> bytes:
        return encode_text(self.text)

    @property
    def type(self) -> str:
        """The file's type for scoring: a known type, else ``unknown``."""
        value = self.frontmatter.get("type").strip().lower()
        return value if value in KNOWN_TYPES else "unknown"

    @property
    def pinned(self) -> bool:
        return self.frontmatter.get("pinned").strip().lower() == "true"

    @property
    def status(self) -> str:
        return self.frontmatter.get("status").strip().lower()

    @property
    def archived(self) -> bool:
        return self.path.startswith(ARCHIVE_DIR + "/") or self.status == "archived"

    @property
    def title(self) -> str:
        """``name`` field, else the last H1 within the first 10 lines, else the file stem."""
        name = self.frontmatter.get("name").strip()
        if name:
            return name
        heading = ""
        for line in self.body.splitlines()[:10]:
            if line.startswith("# "):
                heading = line[2:].strip()
        return heading or self.stem

    @property
    def description(self) -> str:
        return self.frontmatter.get("description").strip()


class LineKind(str, Enum):
    """What a line of an index file is."""

    ENTRY = "entry"
    REGION = "region"
    HEADING = "heading"
    SCOPE_FIELD = "scope-field"
    COMMENT = "comment"
    BLANK = "blank"
    TEXT = "text"


class Ref(NamedTuple):
    """A reference to a file on an index line: a link, a wikilink, or a mention of ``name.md``."""

    kind: str  # 'link', 'wikilink' or 'mention'
    target: str  # as written
    resolved: str | None  # root-relative posix path; None when it leaves the root
    escapes: bool = False


class EntryForm(str, Enum):
    LINK = "link"
    BOLD = "bold"
    CODE = "code"
    WIKILINK = "wikilink"


@dataclass(frozen=True)
class IndexLine:
    """One line of ``MEMORY.md`` or ``MEMORY-archive.md``, kept verbatim with what it means."""

    number: int  # 1-based
    raw: str  # without the line ending
    ending: str  # '\n', '\r\n', '\r' or '' (last line without newline)
    kind: LineKind
    section: str = ""  # the text of the nearest '## ' heading above ('' before any)
    scope: str = ""  # the PATH_SCOPE name this line is under, if any
    # entries
    form: EntryForm | None = None
    target: str = ""  # the link target as written
    resolved: str | None = None  # root-relative posix path; None when it leaves the root
    escapes: bool = False
    title: str = ""
    hook: str = ""
    link_text: str = ""
    # region pointers
    glob: str = ""
    # every link, wikilink and mention on the line (the entry's own link included)
    refs: tuple[Ref, ...] = ()


_RAW, _ENDING, _KIND = attrgetter("raw"), attrgetter("ending"), attrgetter("kind")


@dataclass(frozen=True)
class ScopeSection:
    """A ``## PATH_SCOPE: name`` section of the index."""

    name: str
    heading_line: int
    scope_path: str = ""  # from 'Scope: `…`'
    memory_base: str = ""  # from 'Memory base: `…/`', normalised to 'dir/' or ''


@dataclass(frozen=True)
class Index:
    """A parsed index file.  ``render()`` gives back the exact bytes that were parsed."""

    path: str  # root-relative file name
    exists: bool
    lines: tuple[IndexLine, ...] = ()
    bom: bool = False
    scopes: tuple[ScopeSection, ...] = ()

    def render(self) -> bytes:
        """The file's bytes (built once: an edit, its gate and its diff each ask for them)."""
        data: bytes | None = self.__dict__.get("_rendered")
        if data is None:
            text = "".join(map(add, map(_RAW, self.lines), map(_ENDING, self.lines)))
            data = (b"\xef\xbb\xbf" if self.bom else b"") + encode_text(text)
            object.__setattr__(self, "_rendered", data)
        return data

    def raw_text(self) -> str:
        """The lines' texts joined by LF, their own endings left out (built once)."""
        text: str | None = self.__dict__.get("_raw_text")
        if text is None:
            text = "\n".join(map(_RAW, self.lines))
            object.__setattr__(self, "_raw_text", text)
        return text

    @property
    def size(self) -> int:
        return len(self.render()) if self.exists else 0

    @property
    def entries(self) -> tuple[IndexLine, ...]:
        return self._of_kind(LineKind.ENTRY)

    @property
    def regions(self) -> tuple[IndexLine, ...]:
        return self._of_kind(LineKind.REGION)

    def _of_kind(self, kind: LineKind) -> tuple[IndexLine, ...]:
        """The lines of one kind, in order (found once: every rule asks for them)."""
        key = f"_{kind.value}_lines"
        found: tuple[IndexLine, ...] | None = self.__dict__.get(key)
        if found is None:
            lines = self.lines
            found = tuple(compress(lines, map(is_, map(_KIND, lines), repeat(kind))))  # in C
            object.__setattr__(self, key, found)
        return found


CLAUDE_CODE_LOADER = "claude-code"
#: Claude Code's loader for a subagent's own ``MEMORY.md`` (v2.1.332): the same trim, cut,
#: warning and neutralization, but the frontmatter and HTML comments are **not** stripped
AGENT_LOADER = "claude-code-agent"
RAW_LOADER = "raw"
LOADERS = (CLAUDE_CODE_LOADER, RAW_LOADER, AGENT_LOADER)
#: the profiles that are Claude Code's (characters, the trim, the warning)
CLAUDE_LOADERS = (CLAUDE_CODE_LOADER, AGENT_LOADER)


@dataclass(frozen=True)
class BudgetConfig:
    """The loader's caps for ``MEMORY.md`` and its profile (DESIGN §1.7).

    ``claude-code`` strips the index's frontmatter and block-level HTML comments before it
    counts and cuts; ``raw`` loads the file as it is (a loop whose own hook injects the index).
    """

    max_lines: int = 200
    max_bytes: int = 25_000
    loader: str = CLAUDE_CODE_LOADER

    def __post_init__(self) -> None:
        if self.loader not in LOADERS:
            raise ValueError(f"loader must be one of {', '.join(LOADERS)}, not {self.loader!r}")

    def for_root(self, root: Path | str) -> BudgetConfig:
        """The profile that measures ``root``: ``claude-code`` on a subagent's memory folder
        (``.claude/agent-memory[-local]/<agent>/``, ``<config>/agent-memory/<agent>/``) is
        Claude Code's agent loader, :data:`AGENT_LOADER`; anything else as chosen."""
        if self.loader != CLAUDE_CODE_LOADER:
            return self
        from .claude_settings import is_agent_memory

        if not is_agent_memory(str(root)):
            return self
        return BudgetConfig(self.max_lines, self.max_bytes, AGENT_LOADER)


@dataclass(frozen=True)
class Skipped:
    """A path under the root that was not read, and why."""

    path: str
    reason: str


@dataclass(frozen=True)
class Snapshot:
    """One memory root as read from disk at one moment."""

    root: Path
    index: Index
    archive_index: Index
    files: Mapping[str, MemoryFile]  # memory files by root-relative path
    other_files: tuple[str, ...] = ()  # non-Markdown files, listed and never touched
    nested_roots: tuple[str, ...] = ()  # sub-folders that are roots of their own
    skipped: tuple[Skipped, ...] = ()  # unreadable, symlinked out of the root, loops
    outside: frozenset[str] = frozenset()  # root-relative paths that are symlinks leading out
    config: BudgetConfig = BudgetConfig()
    handoff: HandoffState | None = None  # the project's session-state file, read with the root
    interrupted: tuple[str, ...] = ()  # pending journal records (a change was interrupted)
    progress: tuple[Progress | None, ...] = ()  # how far each of them got, read with the root

    def get(self, path: str) -> MemoryFile | None:
        return self.files.get(path)


def pair_key(a: str, b: str) -> tuple[str, str]:
    """A pair of files in one order, whichever order it was named in (a candidate pair, a
    rejected one)."""
    return (a, b) if a <= b else (b, a)


@dataclass(frozen=True)
class Finding:
    """One thing the validator says about a root."""

    rule: str
    severity: str  # 'error' | 'warning'
    path: str  # root-relative path of the file the finding is in
    line: int | None
    message: str
    subject: str = ""  # what it is about within the file (a link target, a glob …)

    @property
    def key(self) -> tuple[str, str, str]:
        return (self.rule, self.path, self.subject)

    def to_json(self) -> dict[str, object]:
        return {
            "rule": self.rule,
            "severity": self.severity,
            "path": self.path,
            "line": self.line,
            "message": self.message,
        }
