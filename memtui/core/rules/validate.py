"""The validator (every rule of DESIGN §2) and the gate every change must pass.

``validate(snapshot)`` is pure: it reads the snapshot, never the disk.  Findings about one file
alone (frontmatter, size, secrets) come from :func:`file_findings`, which depends on nothing but
that file, so a changeset only needs those recomputed for the files it touches.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from bisect import bisect_right
from collections import Counter, defaultdict
from dataclasses import dataclass, field
from functools import lru_cache
from itertools import compress
from operator import attrgetter
from typing import Callable, Container, Iterable, Iterator, Mapping, Sequence

from ..model.folder_docs import FolderDocument, folder_document
from ..model.index import resolve_target
from ..model.journal import JOURNAL_DIR, Progress
from ..model.snapshot import (
    ARCHIVE_DIR,
    KNOWN_TYPES,
    PROVENANCE_KEYS,
    SCOPE_FILE,
    EntryForm,
    Finding,
    Index,
    IndexLine,
    LineKind,
    MemoryFile,
    Ref,
    Snapshot,
    in_team,
)
from ..read.handoff import handoff_findings
from ..read.store import INDEX_IS_FOLDER
from .budget import Budget, entries_past_cut, measure

ERROR = "error"
WARNING = "warning"
TOPIC_MAX_BYTES = 50_000

#: every rule name with its severity, in the order of DESIGN §2
RULES: dict[str, str] = {
    "index-missing": ERROR,
    "budget-lines": ERROR,
    "budget-bytes": ERROR,
    "orphan": ERROR,
    "broken-link": ERROR,
    "link-escapes-root": ERROR,
    "region-empty": ERROR,
    "region-glob-invalid": ERROR,
    "archived-in-index": ERROR,
    "pinned-not-indexed": ERROR,
    "provenance-dangling": ERROR,
    "supersede-cycle": ERROR,
    "pressure": WARNING,
    "duplicate-entry": WARNING,
    "frontmatter": WARNING,
    "topic-too-large": WARNING,
    "link-only": WARNING,
    "fake-alias": WARNING,
    "history-in-index": WARNING,
    "superseded-active": WARNING,
    "scope-missing": WARNING,
    "secret": WARNING,
    "neutralized-text": WARNING,
    "team-unreachable": WARNING,
    "folder-document": WARNING,
    "interrupted-change": ERROR,
    "state-stale": WARNING,
    "state-too-long": WARNING,
}

INTERRUPTED_MESSAGE = ("a change to this folder was interrupted and is not finished (its files "
                       "may be half changed); run any memtui change or open the app to recover")

_SECRET = re.compile(
    r"(?P<github>\bgh[pousr]_[A-Za-z0-9_]{20,})"
    r"|(?P<github_pat>\bgithub_pat_[A-Za-z0-9_]{20,})"
    r"|(?P<anthropic>\bsk-ant-[A-Za-z0-9_\-]{20,})"
    r"|(?P<openai>\bsk-(?:proj-)?[A-Za-z0-9]{20,})"
    r"|(?P<aws>\b(?:AKIA|ASIA)[0-9A-Z]{16}\b)"
    r"|(?P<private_key>-----BEGIN [A-Z ]*PRIVATE KEY-----)"
    r"|(?P<client_secret>\bclient_secret\b[\"']?\s*[:=]\s*[\"']?[^\s\"',]{6,})"
    r"|(?P<slack>\bxox[abprs]-[A-Za-z0-9-]{10,})"
    r"|(?P<gitlab>\bglpat-[A-Za-z0-9_\-]{20,})"
    r"|(?P<google>\bAIza[0-9A-Za-z_\-]{35})"
)
_URL_SCHEME = re.compile(r"(?:postgres(?:ql)?|mysql|mariadb|mongodb(?:\+srv)?|rediss?|amqps?|mssql"
                         r"|sqlserver|oracle|s?ftp)$")
_URL_CREDENTIALS = re.compile(r"[^\s:/@]*:[^\s@/]+@")


def _regex(pattern: str) -> Callable[[str], Iterator[tuple[int, str]]]:
    compiled = re.compile(pattern)
    return lambda text: ((m.start(), m.group()) for m in compiled.finditer(text))


def _url_passwords(text: str) -> Iterator[tuple[int, str]]:
    """``scheme://user:password@`` of a database-like URL, found from each ``://`` (cheap)."""
    at = text.find("://")
    while at >= 0:
        scheme = _URL_SCHEME.search(text, max(0, at - 16), at)
        creds = _URL_CREDENTIALS.match(text, at + 3)
        if scheme is not None and creds is not None:
            yield scheme.start(), text[scheme.start() : creds.end()]
        at = text.find("://", at + 3)


#: kinds looked for only in a text holding one of their words (a substring test is far cheaper
#: than more alternatives in one regex): (kind, words, in the lowered text?, finder).  The
#: credentials known by the name written before them are found in the lowered text (any case)
#: and each one is checked by :func:`_placeholder`.
_GUARDED: tuple[tuple[str, tuple[str, ...], bool, Callable[[str], Iterator[tuple[int, str]]]], ...] = (
    ("jwt", ("eyJ",), False, _regex(r"\beyJ[A-Za-z0-9_-]{8,}\.eyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    ("stripe", ("k_live_",), False, _regex(r"\b[rs]k_live_[0-9A-Za-z]{16,}")),
    ("aws_secret", ("aws_secret",), True,
     _regex(r"aws_secret_access_key\b[\"']?\s*[:=]\s*[\"']?[a-z0-9/+=]{40}(?![a-z0-9/+=])")),
    ("url_password", ("://",), True, _url_passwords),
    ("password", ("assw", "pwd"), True,
     _regex(r"(?:pass(?:word|wd|wort)|pwd)\b[\"']?\s*[:=]\s*[\"'`]?[^\s\"'`,;]+")),
)


def _guarded(text: str) -> list[tuple[str, str, Callable[[str], Iterator[tuple[int, str]]]]]:
    """(kind, text to search, finder) for each word-guarded kind whose words occur in ``text``."""
    out = []
    lowered: str | None = None
    for kind, words, lower, finder in _GUARDED:
        if lower and lowered is None:
            lowered = text.lower()
        haystack = lowered if lower and lowered is not None else text
        if any(word in haystack for word in words):
            out.append((kind, haystack, finder))
    return out


#: the value in a password-like match: after the ``:``/``=``, or between a URL's user and ``@``
_SECRET_VALUE = re.compile(r"[:=]\s*[\"'`]?([^\s\"'`,;]+)$")
_URL_VALUE = re.compile(r"//[^\s:/@]*:([^\s@/]+)@$")
#: a templated value (``<password>``, ``${PASS}``, ``{pw}``, ``***``, ``xxx``, ``...``)
_TEMPLATE = re.compile(r"^(?:[<{\[($%*]|x{3}|\.{3})", re.IGNORECASE)
#: values that stand for a credential rather than being one
_PLACEHOLDER = re.compile(
    r"^(?:[<{\[($%]|\*|x{3}|\.{3})|example|your|my[_-]?pass|placeholder|redacted|changeme|"
    r"change[_-]?me|secret|dummy|sample|replace|hidden|\*\*\*|xxx|^(?:pass(?:word)?|pwd|none|null|"
    r"empty|required|optional|string|str|true|false|test|foo|bar|admin|root|user)$",
    re.IGNORECASE,
)
_CODE_VALUE = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)+|[()\[\]{}]")
_SECRET_NAMES = {
    "github": "a GitHub token",
    "github_pat": "a GitHub fine-grained token",
    "anthropic": "an Anthropic API key",
    "openai": "an OpenAI-style API key",
    "aws": "an AWS access key id",
    "private_key": "a private key",
    "client_secret": "an OAuth client secret",
    "slack": "a Slack token",
    "gitlab": "a GitLab token",
    "google": "a Google API key",
    "aws_secret": "an AWS secret access key",
    "jwt": "a JSON Web Token",
    "stripe": "a Stripe live key",
    "url_password": "a password in a connection URL",
    "password": "a password",
}
_GLOB_OK = re.compile(r"^[\w.\-*?+@=,~ ]+$")
_PATHLIKE = re.compile(r"^[^\s]+(?:/[^\s]*|\.(?:md|txt|py|js|ts|json|ya?ml|sh|toml))$")


def _counted(budget: Budget) -> str:
    """'loaded ' when the profile stripped lines before counting, else ''."""
    return "loaded " if budget.stripped else ""


def _falling(n: int) -> str:
    """'1 entry falls', '3 entries fall'."""
    return "1 entry falls" if n == 1 else f"{n} entries fall"


def _line_of(text: str, offset: int) -> int:
    return text.count("\n", 0, offset) + 1


# ---------------------------------------------------------------- per-file rules


#: the screen: every pattern of :data:`_SECRET` and :data:`_GUARDED` needs a match of one of
#: these in the text.  Each starts with one literal character, which the regex engine skips to
#: quickly (a pass over 10 MB takes a few ms, where one alternation of the words takes ~80); the
#: rest of the word is checked around it, in any case where the pattern ignores case (a
#: superset of the lower-cased text's words)
_SCREEN_UNDERSCORE = re.compile(
    r"_(?:(?<=gh[pousr]_)|pat_(?<=github_pat_)|secret(?:(?<=client_secret)|(?<=aws_secret))"
    r"|live_(?<=k_live_))", re.IGNORECASE)
_SCREEN_DASH = re.compile(r"-(?:(?<=sk-)|(?<=xox[abprs]-)|(?<=glpat-)|----begin)", re.IGNORECASE)
_SCREEN_A = re.compile(r"A(?:KIA|SIA|Iz)")
#: the screens a text :data:`_SECRET` can match in matches, and where each puts the start of a
#: match of :data:`_SECRET` that it screens for (characters before its own hit)
_SECRET_SCREENS = ((_SCREEN_UNDERSCORE, (3, 6)), (_SCREEN_DASH, (0, 2, 4, 5)), (_SCREEN_A, (0,)))
_SCREENS = (
    _SCREEN_UNDERSCORE, _SCREEN_DASH, _SCREEN_A,
    re.compile(r"://"),
    re.compile(r"J(?<=eyJ)"),
    re.compile(r"w(?:(?<=(?i:assw))|(?<=(?i:pw))(?i:d))"),  # 'w' and 'W' apart: a literal is fast
    re.compile(r"W(?:(?<=(?i:assw))|(?<=(?i:pw))(?i:d))"),
)


def _secret_matches(text: str) -> list[re.Match[str]]:
    """The matches of ``_SECRET.finditer(text)``, found by trying the pattern only where a screen
    hit can put the start of one (the alternation scans ~10× slower than a screen)."""
    starts: set[int] = set()
    for screen, offsets in _SECRET_SCREENS:
        hit = screen.search(text)
        while hit is not None:  # every hit, overlapping ones too
            at = hit.start()
            starts.update(at - offset for offset in offsets if offset <= at)
            hit = screen.search(text, at + 1)
    out = []
    end = 0
    for start in sorted(starts):
        if start >= end and (found := _SECRET.match(text, start)) is not None:
            out.append(found)  # as finditer: the next match starts where this one ends
            end = found.end()
    return out


def screen_secrets(texts: list[str], chunk: int = 2000) -> set[int]:
    """Indexes of the texts that may hold a secret (:func:`secret_findings` decides), from a few
    passes of :data:`_SCREENS` over the NUL-joined texts (no screen word holds a NUL)."""
    hits: set[int] = set()
    for first in range(0, len(texts), chunk):
        part = texts[first : first + chunk]
        starts = []
        offset = 0
        for text in part:
            starts.append(offset)
            offset += len(text) + 1
        joined = "\0".join(part)
        last = len(part) - 1
        for screen in _SCREENS:
            if screen.pattern[0] not in joined:  # its first character (a literal) is nowhere
                continue
            found = screen.search(joined)
            while found is not None:
                i = bisect_right(starts, found.start()) - 1
                hits.add(first + i)
                found = screen.search(joined, starts[i + 1]) if i < last else None
    return hits


def _placeholder(kind: str, matched: str) -> bool:
    """Whether a password-like match holds a stand-in (``<your password>``, ``${DB_PASS}``,
    ``YourPassword123!``, ``os.environ[...]``) or prose rather than a credential."""
    if kind == "url_password":  # a URL's password is one unless templated: user:pass@ counts
        found = _URL_VALUE.search(matched)
        return found is None or bool(_TEMPLATE.search(found.group(1)))
    found = _SECRET_VALUE.search(matched)
    value = found.group(1) if found else ""
    if not value or _PLACEHOLDER.search(value) or _CODE_VALUE.search(value):
        return True
    if kind == "password":  # "password: stored in the vault" is prose; a credential has a digit
        return len(value) < 6 or not re.search(r"[0-9]|[^\w]", value)  # or a symbol in it
    return False


def secret_findings(path: str, text: str, screened: bool = False) -> list[Finding]:
    """Credential-looking strings in a text (a cheap screen runs first unless ``screened``)."""
    if not screened and not screen_secrets([text]):
        return []
    guarded = _guarded(text)
    out: list[Finding] = []
    seen: set[str] = set()
    found: list[tuple[str, int]] = []  # (kind, line)
    found += ((m.lastgroup or "secret", _line_of(text, m.start())) for m in _secret_matches(text))
    for kind, haystack, finder in guarded:
        for start, matched in finder(haystack):
            if start and haystack[start - 1].isalnum():
                continue  # inside a longer word ("bypass=", "mypassword")
            if kind not in ("jwt", "stripe") and _placeholder(kind, matched):
                continue
            found.append((kind, _line_of(haystack, start)))
    for kind, line in found:
        subject = f"{kind}:{line}"
        if subject in seen:
            continue
        seen.add(subject)
        out.append(
            Finding(
                "secret",
                WARNING,
                path,
                line,
                f"looks like {_SECRET_NAMES.get(kind, 'a credential')}; memory is loaded into "
                "model context and often committed — remove it and rotate the credential",
                subject,
            )
        )
    return out


def file_findings(
    f: MemoryFile, structural: bool = False, secret_screen: bool | None = None
) -> list[Finding]:
    """Findings that depend on one file alone.  ``structural`` files (SCOPE.md) and the folder's
    own documents (:func:`~memtui.core.model.folder_docs.folder_document`) skip frontmatter.

    ``secret_screen`` is the result of :func:`screen_secrets` for this file when the caller
    screened many files at once (None: screen here).
    """
    out: list[Finding] = []
    fm = f.frontmatter
    if not structural and folder_document(f.path, f) is None:  # a folder document needs none
        problems: list[str] = []
        line: int | None = None
        if not fm.present:
            problems.append("no frontmatter block (name, description, type)")
        elif not fm.closed:
            problems.append("the frontmatter block is not closed by a '---' line")
            line = 1
        else:
            if fm.unsplit:
                line = fm.unsplit[0]
                shown = ", ".join(str(n) for n in fm.unsplit[:5])
                problems.append(f"line(s) {shown} do not split into 'key: value'")
            missing = [k for k in ("name", "description", "type") if not fm.get(k).strip()]
            if missing:
                problems.append(f"{', '.join(missing)} missing or empty")
            raw_type = fm.get("type").strip()
            if raw_type and raw_type.lower() not in KNOWN_TYPES:
                problems.append(
                    f"type '{raw_type}' is not one of value, user, feedback, project, reference "
                    "(scored as unknown)"
                )
        if problems:
            out.append(Finding("frontmatter", WARNING, f.path, line, "; ".join(problems) + "."))
    if f.size > TOPIC_MAX_BYTES:
        out.append(
            Finding(
                "topic-too-large",
                WARNING,
                f.path,
                None,
                f"{f.size:,} bytes (over {TOPIC_MAX_BYTES:,}); split it or move history to archive/",
            )
        )
    if secret_screen is None:
        out.extend(secret_findings(f.path, f.text))
    elif secret_screen:
        out.extend(secret_findings(f.path, f.text, screened=True))
    return out


# ---------------------------------------------------------------- cross-file rules


@lru_cache(maxsize=4096)
def glob_regex(glob: str) -> re.Pattern[str] | None:
    """The regex of a region glob (``*`` and ``?`` on bare file names), or None if invalid."""
    if not glob or "/" in glob or not _GLOB_OK.match(glob):
        return None
    parts = []
    for ch in glob:
        parts.append("[^/]*" if ch == "*" else "[^/]" if ch == "?" else re.escape(ch))
    return re.compile("".join(parts) + r"\Z")


def glob_matches(glob: str, path: str) -> bool:
    """Whether a region glob covers a memory file: it matches the file's bare name (the one
    matcher every region count, coverage and reachability check uses)."""
    rx = glob_regex(glob)
    return rx is not None and rx.match(path.rsplit("/", 1)[-1]) is not None


def first_glob(globs: Iterable[str], path: str) -> str | None:
    """The first of ``globs`` that covers ``path``, if any."""
    return next((glob for glob in globs if glob_matches(glob, path)), None)


def region_globs(index: Index) -> tuple[str, ...]:
    """The valid globs of ``index``'s region pointers, in index order, each once."""
    return tuple(dict.fromkeys(line.glob for line in index.regions if glob_regex(line.glob) is not None))


def covering_glob(index: Index, path: str) -> str | None:
    """The first region glob of ``index`` that covers ``path`` (which need not exist yet)."""
    return first_glob(region_globs(index), path)


def region_map(index: Index, paths: Iterable[str]) -> tuple[dict[str, str], dict[int, int]]:
    """Each of ``paths`` a region pointer of ``index`` covers -> the first glob that does, and
    each region line's number -> how many of the paths it matches."""
    region: dict[str, str] = {}
    hits: dict[int, int] = {}
    paths = list(paths)
    names: list[str] | None = None  # the bare names: what glob_matches compares
    for line in index.regions:
        rx = glob_regex(line.glob)
        if rx is None:
            continue
        if names is None:
            names = [path.rsplit("/", 1)[-1] for path in paths]
        matched = list(compress(paths, map(rx.match, names)))  # no Python loop over the files
        for path in matched:
            region.setdefault(path, line.glob)
        hits[line.number] = len(matched)
    return region, hits


#: how a memory file is reached (:meth:`Reach.how`), in the order the ways are tried
ENTRY = "entry"  # an entry in MEMORY.md before the loader's cut
NOT_LOADED = "not loaded"  # its first entry in MEMORY.md is past the cut
ARCHIVE = "archive"  # an entry in MEMORY-archive.md
MENTION = "mention"  # named in the loaded part of MEMORY.md
REGION = "region"  # a region pointer's glob covers it
SCOPE = "scope"  # a path scope's SCOPE.md: part of the layout, needs no way in
TEAM = "team"  # a team memory file none of these reach: the ``team-unreachable`` rule
DOCUMENT = "document"  # the folder's own document none of these reach: ``folder-document``
ORPHAN = "orphan"  # none of these: the ``orphan`` rule
REACH_WAYS = (ENTRY, NOT_LOADED, ARCHIVE, MENTION, REGION, SCOPE, TEAM, DOCUMENT, ORPHAN)


@dataclass(frozen=True)
class Reach:
    """How each memory file is reached from the indexes: the one reachability model (DESIGN
    §1.5) behind the ``orphan`` rule, the Files view's reach column and its region coverage."""

    direct: Mapping[str, list[IndexLine]]  # file -> active entries
    archived: Mapping[str, list[IndexLine]]  # file -> archive-index entries
    region: Mapping[str, str]  # file -> the first glob that covers it
    region_hits: dict[int, int]  # region line number -> how many files it matches
    mention: Mapping[str, int] = field(default_factory=dict)  # file -> first loaded line naming it
    structural: frozenset[str] = frozenset()  # SCOPE.md files of declared memory bases
    past_cut: Mapping[str, int] = field(default_factory=dict)  # file -> first line past the cut naming it
    #: the folder's own documents no way reaches (:func:`~memtui.core.model.folder_docs.folder_document`)
    documents: frozenset[str] = frozenset()
    #: what the archive index adds to the index-level findings, for these files (None: not
    #: worked out yet; :func:`index_findings` does it then)
    archive: ArchivePart | None = field(default=None, compare=False, repr=False)

    def reaches(self, path: str) -> bool:
        """Whether an entry, an archive entry, a region pointer or a loaded mention reaches it."""
        return path in self.direct or path in self.archived or path in self.region or path in self.mention

    def how(self, path: str, cut_line: int | None = None) -> str:
        """The first of :data:`REACH_WAYS` that holds for ``path`` (``cut_line``: the loader's)."""
        entries = self.direct.get(path)
        if entries:
            return NOT_LOADED if cut_line is not None and entries[0].number >= cut_line else ENTRY
        if path in self.archived:
            return ARCHIVE
        if path in self.mention:
            return MENTION
        if path in self.region:
            return REGION
        if path in self.structural:
            return SCOPE
        if in_team(path):
            return TEAM
        return DOCUMENT if path in self.documents else ORPHAN


def document_message(document: FolderDocument) -> str:
    """The ``folder-document`` finding's message: what the file is, and what to do."""
    if document.kind == "template":
        return (f"{document.what}: it holds no fact yet, so memtui leaves it out of the index, "
                "staleness and consolidation; fill it in and give it an entry, or archive it "
                "(memtui archive keeps it in archive/)")
    if document.kind == "index":
        return (f"{document.what}: it describes the folder rather than holding a fact, and beside "
                "MEMORY.md it goes stale; memtui leaves it out of the index, staleness and "
                "consolidation — fold what it says into MEMORY.md, or archive it (memtui archive, "
                "or the dream's item)")
    return (f"{document.what}: it describes the folder rather than holding a fact, for people, not "
            "the agent; memtui leaves it out of the index, staleness and consolidation — list it "
            "in MEMORY.md only if the agent should read it")


def entry_maps(
    snapshot: Snapshot, archived_known: Mapping[str, list[IndexLine]] | None = None
) -> tuple[dict[str, list[IndexLine]], Mapping[str, list[IndexLine]]]:
    """The active and the archive-index entries of each file, in index order
    (``archived_known``: the archive's, already mapped for this archive index)."""
    direct: dict[str, list[IndexLine]] = defaultdict(list)
    archived: dict[str, list[IndexLine]] = defaultdict(list)
    for line in snapshot.index.entries:
        if line.resolved is not None:
            direct[line.resolved].append(line)
    if archived_known is not None:
        return dict(direct), archived_known
    for line in snapshot.archive_index.entries:
        if line.resolved is not None:
            archived[line.resolved].append(line)
    return dict(direct), dict(archived)


def _lines_with_extra_refs(lines: Iterable[IndexLine]) -> Iterator[IndexLine]:
    """The lines that may have :func:`_extra_refs` (a line whose one reference is its entry's
    own link, most of an index, is passed over without a generator)."""
    entry, own_forms = LineKind.ENTRY, (EntryForm.LINK, EntryForm.WIKILINK)
    lines = list(lines)
    for line in compress(lines, map(_REFS, lines)):  # the lines with a reference, found in C
        refs = line.refs
        if len(refs) == 1 and line.kind is entry and refs[0].kind != "mention" \
                and refs[0].target == line.target and line.form in own_forms:
            continue
        yield line


_REFS = attrgetter("refs")


def _extra_refs(line: IndexLine) -> Iterator[Ref]:
    """The references on a line besides the entry's own link (its first matching one)."""
    skip = line.kind is LineKind.ENTRY and line.form in (EntryForm.LINK, EntryForm.WIKILINK)
    for ref in line.refs:
        if skip and ref.kind != "mention" and ref.target == line.target:
            skip = False
            continue
        yield ref


def _ref_path(snapshot: Snapshot, ref: Ref, by_name: Mapping[str, list[str]]) -> str | None:
    """The memory file a reference names, if any: as resolved, else from the root, else (for a
    mention) the one file of that name."""
    if ref.escapes or ref.resolved is None:
        return None
    if ref.resolved in snapshot.files:
        return ref.resolved
    plain, escapes = resolve_target(ref.target)
    if not escapes and plain is not None and plain in snapshot.files:
        return plain
    if ref.kind == "mention" and "/" not in ref.target:
        named = by_name.get(ref.target.lower(), [])
        if len(named) == 1:
            return named[0]
    return None


def names_of(files: Iterable[str]) -> dict[str, list[str]]:
    """The paths of each file name, lower-cased (what a bare mention of a name resolves by)."""
    paths = list(files)
    names = [path[path.rfind("/") + 1:].lower() for path in paths]
    by_name = {name: [path] for name, path in zip(names, paths)}
    if len(by_name) < len(paths):  # a name in more than one folder: each of its paths, in order
        by_name = {}
        for name, path in zip(names, paths):
            by_name.setdefault(name, []).append(path)
    return by_name


def mention_map(snapshot: Snapshot, by_name: Mapping[str, list[str]] | None = None) -> dict[str, int]:
    """Files named by a mention, or by a link or wikilink other than an entry's own, in the
    *loaded* part of ``MEMORY.md`` (the loader profile's stripping and cut applied): file -> line.

    ``by_name`` is :func:`names_of` the snapshot's files, when the caller kept it."""
    index = snapshot.index
    if not index.exists or not any(line.refs for line in index.lines):
        return {}
    budget = measure(index, snapshot.config)
    stripped = set(budget.stripped)
    cut = budget.cut_line if budget.cut_line is not None else len(index.lines) + 1
    out: dict[str, int] = {}
    for line in _lines_with_extra_refs(index.lines[: cut - 1]):
        if line.number in stripped:
            continue
        if by_name is None:  # only when some line has more than its entry's own link
            by_name = names_of(snapshot.files)
        for ref in _extra_refs(line):
            path = _ref_path(snapshot, ref, by_name)
            if path is not None and path not in out:
                out[path] = line.number
    return out


def named_past_cut(snapshot: Snapshot, by_name: Mapping[str, list[str]] | None = None) -> dict[str, int]:
    """Files named (by an entry, a link, a wikilink or a mention) on a line of ``MEMORY.md`` past
    the loader's cut: file -> the first such line.  Empty when nothing is cut."""
    index = snapshot.index
    if not index.exists:
        return {}
    budget = measure(index, snapshot.config)
    if budget.cut_line is None:
        return {}
    out: dict[str, int] = {}
    past = index.lines[budget.cut_line - 1:]
    for line in compress(past, map(_REFS, past)):
        if by_name is None:
            by_name = names_of(snapshot.files)
        for ref in line.refs:
            path = _ref_path(snapshot, ref, by_name)
            if path is not None and path not in out:
                out[path] = line.number
    return out


def named_only_past_cut(reach: Reach, cut_line: int | None) -> list[str]:
    """The files a line past the cut names (a mention or a link, not an entry: entries past the
    cut are counted as such) and nothing the loader reads reaches (no entry, loaded mention,
    region pointer or archive-index entry)."""
    if cut_line is None:
        return []
    return [path for path in reach.past_cut
            if path not in reach.archived and path not in reach.region and path not in reach.mention
            and path not in reach.direct]


def reach_of(snapshot: Snapshot) -> Reach:
    """Direct, archive, region and mention reachability of every memory file."""
    direct, archived = entry_maps(snapshot)
    region, hits = region_map(snapshot.index, snapshot.files)
    mention = mention_map(snapshot)
    structural = frozenset(_structural(snapshot))
    return Reach(direct, archived, region, hits, mention, structural=structural,
                 past_cut=named_past_cut(snapshot),
                 documents=unreached_documents(snapshot, direct, archived, region, mention, structural))


def unreached_documents(snapshot: Snapshot, *reached: Container[str]) -> frozenset[str]:
    """The folder's own documents (:func:`~memtui.core.model.folder_docs.folder_document`) that none
    of ``reached`` (entries, archive entries, regions, mentions, structural files) holds."""
    return frozenset(path for path, f in snapshot.files.items()
                     if not any(path in ways for ways in reached) and not in_team(path)
                     and folder_document(path, f) is not None)


def _structural(snapshot: Snapshot) -> set[str]:
    """SCOPE.md files of declared Memory bases: part of the layout, not memory entries."""
    out = {f"{scope.memory_base}{SCOPE_FILE}" for scope in snapshot.index.scopes}
    return {path for path in out if path in snapshot.files}


def _resolve_name(snapshot: Snapshot, owner: str, name: str) -> bool:
    name = name.strip().replace("\\", "/")
    if not name:
        return True
    candidates = [name] if name.lower().endswith(".md") else [name + ".md", name]
    folder = posixpath.dirname(owner)
    for candidate in candidates:
        clean = posixpath.normpath(candidate)
        for path in (clean, f"{ARCHIVE_DIR}/{clean}", posixpath.join(folder, clean) if folder else clean):
            if path in snapshot.files:
                return True
    return False


def _entry_findings(snapshot: Snapshot, index: Index, active: bool) -> Iterator[Finding]:
    nested = tuple(root + "/" for root in snapshot.nested_roots)
    unread = {s.path: s.reason for s in snapshot.skipped}
    for line in index.entries:
        if line.escapes or (line.resolved is not None and line.resolved in snapshot.outside):
            yield Finding(
                "link-escapes-root",
                ERROR,
                index.path,
                line.number,
                f"'{line.target}' points outside the memory root; the agent cannot rely on it — "
                "copy the fact into a memory file or drop the entry",
                line.target,
            )
            continue
        assert line.resolved is not None
        if line.resolved.startswith(nested):
            owner = next(n for n in nested if line.resolved.startswith(n))
            yield Finding(
                "link-escapes-root",
                ERROR,
                index.path,
                line.number,
                f"'{line.target}' points into '{owner.rstrip('/')}', another memory root with "
                "its own MEMORY.md; list it there instead",
                line.target,
            )
            continue
        if line.resolved not in snapshot.files:
            yield Finding(
                "broken-link",
                ERROR,
                index.path,
                line.number,
                f"'{line.target}' was skipped: {unread[line.resolved]} — the agent cannot use it; "
                "make it a plain memory file or remove the entry" if line.resolved in unread else
                f"'{line.target}' does not exist; fix the path or remove the entry",
                line.target,
            )
            continue
        if active:
            if not line.hook:
                yield Finding(
                    "link-only",
                    WARNING,
                    index.path,
                    line.number,
                    f"the entry for '{line.target}' has no hook; add a few words saying what "
                    "it holds so the index stays meaningful",
                    line.resolved,
                )
        if line.form is EntryForm.LINK:
            text = line.link_text.strip().strip("`")
            if text != line.target and _PATHLIKE.match(text):  # the target itself: no alias
                norm_text = posixpath.normpath(text)
                if norm_text != posixpath.normpath(line.target) and norm_text != line.resolved:
                    yield Finding(
                        "fake-alias",
                        WARNING,
                        index.path,
                        line.number,
                        f"link text '{text}' looks like a path but the link goes to "
                        f"'{line.target}'; use a title or the real path",
                        line.target,
                    )


def _ref_findings(snapshot: Snapshot, index: Index) -> Iterator[Finding]:
    """``broken-link`` / ``link-escapes-root`` for each link and wikilink on a line that is not
    the line's entry link (mentions are not checked: "see CLAUDE.md" names no memory file)."""
    nested = tuple(root + "/" for root in snapshot.nested_roots)
    for line in _lines_with_extra_refs(index.lines):
        for ref in _extra_refs(line):
            if ref.kind == "mention":
                continue
            if ref.escapes or (ref.resolved is not None and ref.resolved in snapshot.outside):
                yield Finding(
                    "link-escapes-root", ERROR, index.path, line.number,
                    f"'{ref.target}' points outside the memory root; the agent cannot rely on it — "
                    "copy the fact into a memory file or drop the link",
                    ref.target,
                )
            elif ref.resolved is not None and ref.resolved.startswith(nested):
                continue  # reported for the entry forms; a passing link into a nested root is fine
            elif ref.resolved is not None and ref.resolved not in snapshot.files:
                plain, _ = resolve_target(ref.target)
                if plain is not None and plain in snapshot.files:
                    continue
                yield Finding(
                    "broken-link", ERROR, index.path, line.number,
                    f"'{ref.target}' ({ref.kind}) does not exist; fix the path or remove the link",
                    ref.target,
                )


def _duplicates(snapshot: Snapshot, lines: Iterable[IndexLine], direct_map: Mapping[str, list[IndexLine]],
                archived: Mapping[str, list[IndexLine]]) -> Iterator[Finding]:
    """``duplicate-entry`` for each file that ``lines`` (entries of the index, then of the
    archive index) list twice or more, at its second entry."""
    index, archive, files = snapshot.index, snapshot.archive_index, snapshot.files
    counts: Counter[str] = Counter()
    for line in lines:
        if line.resolved is None or line.resolved not in files:
            continue
        counts[line.resolved] += 1
        if counts[line.resolved] == 2:
            direct = direct_map.get(line.resolved, [])
            listed = {id(entry) for entry in direct}  # a line of the list itself, found at once

            def active(entry: IndexLine, direct: list[IndexLine] = direct, listed: set[int] = listed) -> bool:
                return id(entry) in listed or entry in direct  # as the list's own ``in``

            all_lines = direct + archived.get(line.resolved, [])
            where = ", ".join(
                f"{('MEMORY.md' if active(entry) else archive.path)}"
                f":{entry.number}"
                for entry in all_lines
            )
            yield Finding(
                "duplicate-entry",
                WARNING,
                index.path if active(line) else archive.path,
                line.number,
                f"'{line.resolved}' has more than one entry ({where}); keep one",
                line.resolved,
            )


@dataclass(frozen=True)
class ArchivePart:
    """What one archive index adds to a root's index-level findings, worked out once for it and
    the files as they are: it holds while that index is the snapshot's (the same object), no
    file it ``names`` comes or goes, and the root's nested roots, skipped entries and outside
    links stay the same (a kept answer carries it, so that a judged write does not re-check
    thousands of archive entries it cannot have changed)."""

    index: Index  # the archive index it is about (compared by identity)
    entries: tuple[Finding, ...]  # _entry_findings of its entries
    refs: tuple[Finding, ...]  # _ref_findings of its other links
    duplicates: tuple[Finding, ...]  # duplicate-entry of files it lists twice, MEMORY.md never
    listed: frozenset[str]  # every path an entry of it resolves to: Reach.archived's keys
    named: frozenset[str]  # every path whose presence among the files the findings depend on

    def holds(self, before: Snapshot, after: Snapshot, came_or_went: Iterable[str]) -> bool:
        """Whether the part, worked out for ``before``, is also ``after``'s (the files in
        ``came_or_went`` are the only ones that appeared or went)."""
        return after.archive_index is self.index and self.named.isdisjoint(came_or_went) \
            and (after.nested_roots, after.skipped, after.outside) \
            == (before.nested_roots, before.skipped, before.outside)


def archive_part(snapshot: Snapshot, archived: Mapping[str, list[IndexLine]] | None = None) -> ArchivePart:
    """The :class:`ArchivePart` of a snapshot's archive index (``archived``: Reach.archived,
    when known)."""
    archive = snapshot.archive_index
    if archived is None:
        archived = entry_maps(snapshot)[1]
    named = {line.resolved for line in archive.entries if line.resolved is not None}
    listed = frozenset(named)
    for line in _lines_with_extra_refs(archive.lines):
        for ref in _extra_refs(line):
            if ref.kind != "mention" and ref.resolved is not None:
                named.add(ref.resolved)
                plain, _ = resolve_target(ref.target)
                if plain is not None:
                    named.add(plain)
    return ArchivePart(
        archive,
        tuple(_entry_findings(snapshot, archive, active=False)),
        tuple(_ref_findings(snapshot, archive)),
        tuple(_duplicates(snapshot, archive.entries, {}, archived)),
        listed,
        frozenset(named),
    )


def index_secrets(index: Index) -> list[Finding]:
    """:func:`secret_findings` of an index's text (found once per index: an archive index of
    thousands of lines is screened again only when it changes)."""
    found: tuple[Finding, ...] | None = index.__dict__.get("_secrets")
    if found is None:
        found = tuple(secret_findings(index.path, index.raw_text()))
        object.__setattr__(index, "_secrets", found)
    return list(found)


def interrupted_message(progress: Progress | None = None) -> str:
    """What ``interrupted-change`` says of a pending record: how far its change got (read with
    the root: :func:`~memtui.core.model.journal.progress_of`), and plainly when the index Claude Code
    loads is half changed now."""
    if progress is None:
        return INTERRUPTED_MESSAGE
    fix = "run any memtui change or open the app to recover (it puts the folder back as it was)"
    if not progress.changed:
        return (f"a change to this folder was interrupted before it changed anything (none of the "
                f"{progress.touched} paths it touches is changed); {fix}")
    done = (f"a change to this folder was interrupted: {progress.changed} of {progress.touched} "
            "paths it touches are changed now")
    if progress.index:
        return (f"{done}, MEMORY.md among them — Claude Code loads this half-changed index in every "
                f"session until memtui recovers it; {fix}")
    if progress.index is False:
        return f"{done} (MEMORY.md is as it was: Claude Code still loads the old index); {fix}"
    return f"{done}; {fix}"


def interrupted_findings(pending: Iterable[str],
                         progress: Sequence[Progress | None] = ()) -> list[Finding]:
    """``interrupted-change`` for each pending journal record (file names) of a root; with how
    far each change got (``progress``, in the same order), each says so."""
    got = list(progress)
    return [Finding("interrupted-change", ERROR, f"{JOURNAL_DIR}/{name}", None,
                    interrupted_message(got[i] if i < len(got) else None), name)
            for i, name in enumerate(pending)]


def index_findings(
    snapshot: Snapshot, reach: Reach | None = None, budget: Budget | None = None
) -> list[Finding]:
    """Index-level findings: a missing index, the budget, entries, duplicates and regions."""
    out = interrupted_findings(snapshot.interrupted, snapshot.progress)
    index, archive = snapshot.index, snapshot.archive_index
    if budget is None:
        budget = measure(index, snapshot.config)
    if not index.exists:
        unread = next((s.reason for s in snapshot.skipped if s.path == index.path), None)
        if unread == INDEX_IS_FOLDER:
            message = ("MEMORY.md is a folder, not a file, so the agent loads nothing from this "
                       "folder; move that folder aside, then create the index (memtui rebuild)")
        elif unread:
            message = (f"MEMORY.md was not read ({unread}); memtui never follows it — replace it "
                       "by a real file (or point memtui at the folder it leads to)")
        else:
            message = ("this folder has no MEMORY.md, so the agent loads nothing from it; create "
                       "one (memtui rebuild) or point memtui at the right folder")
        out.append(Finding("index-missing", ERROR, index.path, None, message))
        return out
    noise = not_text(index)
    if noise is not None:
        out.append(Finding("index-missing", ERROR, index.path, None, noise))
        return out

    # budget
    past = entries_past_cut(index, budget)
    if reach is None:
        reach = reach_of(snapshot)
    only_there = len(named_only_past_cut(reach, budget.cut_line))
    named = (f", and {only_there} file{'s are' if only_there != 1 else ' is'} named only past it"
             if only_there else "")
    if budget.over_lines:
        out.append(
            Finding(
                "budget-lines",
                ERROR,
                index.path,
                budget.cut_line,
                f"{budget.lines} {_counted(budget)}lines, over the loader's {budget.max_lines}; "
                f"the loader stops at "
                f"{budget.cut_where()} and {_falling(len(past))} past the cut{named} — decay or archive "
                f"entries, or run rebuild",
            )
        )
    if budget.over_bytes:
        out.append(
            Finding(
                "budget-bytes",
                ERROR,
                index.path,
                budget.cut_line,
                f"{budget.bytes:,} {_counted(budget)}{budget.unit}, over the loader's "
                f"{budget.max_bytes:,}; the loader stops "
                f"at {budget.cut_where()} and {_falling(len(past))} past the cut{named} — shorten hooks, "
                f"decay or archive entries",
            )
        )
    if budget.utilization >= 0.90:
        out.append(
            Finding(
                "pressure",
                WARNING,
                index.path,
                None,
                f"the index uses {budget.utilization:.0%} of its budget; decay or archive "
                "entries before the loader starts cutting",
            )
        )

    # entries, then every other link and wikilink on a line
    part = None
    if archive.exists:
        part = reach.archive if reach.archive is not None and reach.archive.index is archive \
            else archive_part(snapshot, reach.archived)
    out.extend(_entry_findings(snapshot, index, active=True))
    if part is not None:
        out.extend(part.entries)
    out.extend(_ref_findings(snapshot, index))
    if part is not None:
        out.extend(part.refs)

    if part is not None and part.listed.isdisjoint(reach.direct):
        # no file has entries in both: the archive's duplicates are its own, worked out already
        out.extend(_duplicates(snapshot, index.entries, reach.direct, reach.archived))
        out.extend(part.duplicates)
    else:
        out.extend(_duplicates(snapshot, list(index.entries) + list(archive.entries), reach.direct,
                               reach.archived))

    # regions
    for line in index.regions:
        rx = glob_regex(line.glob)
        if rx is None:
            out.append(
                Finding(
                    "region-glob-invalid",
                    ERROR,
                    index.path,
                    line.number,
                    f"region glob '{line.glob}' may use only '*', '?' and file-name characters "
                    "(it matches bare file names, not paths)",
                    line.glob,
                )
            )
        elif reach.region_hits.get(line.number, 0) == 0:
            out.append(
                Finding(
                    "region-empty",
                    ERROR,
                    index.path,
                    line.number,
                    f"region '{line.glob}' matches no file — a confidently wrong cue; remove the "
                    "line or fix the glob",
                    line.glob,
                )
            )
    return out


def file_cross_findings(snapshot: Snapshot, reach: Reach, path: str, f: MemoryFile) -> list[Finding]:
    """Findings about one file that depend on the indexes and the other files (reachability,
    archived or superseded entries, pins, provenance); the caller skips structural files."""
    out: list[Finding] = []
    entries = reach.direct.get(path, [])
    if not reach.reaches(path):
        document = folder_document(path, f) if not in_team(path) else None
        if in_team(path):
            out.append(Finding(
                "team-unreachable", WARNING, path, None,
                "a team memory file (team/, written by teammates' sessions too) that MEMORY.md "
                "does not reach; memtui reports it and leaves team memory to the team — index "
                "it, or ask for it to be archived"))
        elif document is not None:
            out.append(Finding("folder-document", WARNING, path, None, document_message(document)))
        else:
            past = reach.past_cut.get(path)
            out.append(
                Finding(
                    "orphan",
                    ERROR,
                    path,
                    None,
                    f"named only past the loader's cut (line {past} of MEMORY.md, never loaded), "
                    "and no entry or region pointer reaches this file; promote it, decay it "
                    "under a region, or archive it" if past is not None else
                    "no entry in MEMORY.md or MEMORY-archive.md and no region pointer reaches "
                    "this file; promote it, decay it under a region, or archive it",
                )
            )
    if entries:
        reason = ""
        if path.startswith(ARCHIVE_DIR + "/"):
            reason = "it lives in archive/"
        elif f.status == "archived":
            reason = "it has status: archived"
        elif path in reach.archived:
            reason = f"it is also listed in {snapshot.archive_index.path}"
        if reason:
            out.append(
                Finding(
                    "archived-in-index",
                    ERROR,
                    snapshot.index.path,
                    entries[0].number,
                    f"the active index lists '{path}' but {reason}; remove the active entry "
                    "or restore the file",
                    path,
                )
            )
        if f.status == "superseded" or f.frontmatter.names("superseded_by"):
            succ = ", ".join(f.frontmatter.names("superseded_by")) or "a newer entry"
            out.append(
                Finding(
                    "superseded-active",
                    WARNING,
                    snapshot.index.path,
                    entries[0].number,
                    f"'{path}' is superseded (by {succ}) but still has an active entry; "
                    "let the successor take its place",
                    path,
                )
            )
    if f.pinned and not path.startswith(ARCHIVE_DIR + "/") and not entries:
        out.append(
            Finding(
                "pinned-not-indexed",
                ERROR,
                path,
                None,
                "pinned: true but MEMORY.md has no direct entry for it, so a fresh session "
                "never sees it; add it to the Pinned block (memtui pin)",
            )
        )
    for key in PROVENANCE_KEYS:
        for name in f.frontmatter.names(key):
            if not _resolve_name(snapshot, path, name):
                out.append(
                    Finding(
                        "provenance-dangling",
                        ERROR,
                        path,
                        next((ln.number for ln in f.frontmatter.lines if ln.key == key), None),
                        f"{key} names '{name}', which is neither in the root nor in archive/",
                        f"{key}:{name}",
                    )
                )
    return out


def index_tail_findings(snapshot: Snapshot) -> list[Finding]:
    """Index-level warnings: history comments, incomplete scopes, secrets in the indexes."""
    out: list[Finding] = []
    index, archive, files = snapshot.index, snapshot.archive_index, snapshot.files
    stripped = set(measure(index, snapshot.config).stripped)  # line numbers
    loader = snapshot.config.loader
    for line in index.lines:
        if line.kind is LineKind.COMMENT and (line.number == 1 or "<!--" in line.raw):
            if line.number in stripped:
                says = (f"the {loader} loader strips this comment block, so it costs no budget "
                        "but the agent never sees it either")
            else:
                says = (f"under the {loader} loader this comment is loaded every session and costs "
                        "budget")
            out.append(
                Finding(
                    "history-in-index",
                    WARNING,
                    index.path,
                    line.number,
                    f"an HTML comment in MEMORY.md: {says}; move history into a topic file or "
                    "the archive",
                    f"comment:{line.number}",
                )
            )
    for scope in index.scopes:
        problems = []
        if not scope.scope_path:
            problems.append("no 'Scope: `…`' line")
        if not scope.memory_base:
            problems.append("no 'Memory base: `…/`' line")
        elif f"{scope.memory_base}{SCOPE_FILE}" not in files:
            problems.append(f"no {SCOPE_FILE} in {scope.memory_base}")
        if problems:
            out.append(
                Finding(
                    "scope-missing",
                    WARNING,
                    index.path,
                    scope.heading_line,
                    f"PATH_SCOPE '{scope.name}' has {' and '.join(problems)}",
                    scope.name,
                )
            )
    out.extend(neutralized_findings(index, stripped))
    out.extend(secret_findings(index.path, index.raw_text()))
    if archive.exists:
        out.extend(index_secrets(archive))
    out.extend(handoff_findings(snapshot.handoff))
    return out


#: characters no index text holds: control characters (but tab, line feed, carriage return) and
#: the bytes that are not UTF-8 (kept as surrogates by :func:`decode_bytes`)
_NOISE = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f\udc80-\udcff]")


def not_text(index: Index) -> str | None:
    """Why ``MEMORY.md`` is not text (a binary file: at least 5% of its characters are control
    characters or bytes that are not UTF-8), or None when it is text."""
    text = index.raw_text()  # the joining line feeds are no noise and no line's characters
    total = len(text) - max(len(index.lines) - 1, 0)
    noise = len(_NOISE.findall(text))
    if noise < 8 or noise * 20 < total:
        return None
    return (f"MEMORY.md is not text: {noise:,} of its {total:,} characters are control characters "
            "or bytes that are not UTF-8 (a binary file?), so the agent loads noise; restore it "
            "from a backup, or move it aside and create the index (memtui rebuild)")


#: what an ASCII index line must hold for Claude Code to change it: a control character but
#: tab (and the line breaks no line holds), or a ``<``
_SUSPECT_ASCII = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f<]")


def neutralized_findings(index: Index, stripped: set[int] | frozenset[int]) -> list[Finding]:
    """``neutralized-text``: a counted index line that Claude Code changes before it loads the
    index (CLAUDE-CODE.md "what loads", v2.1.332; :mod:`memtui.core.rules.neutralize`): the
    invisible characters it removes (Unicode 17.0's) and the tags imitating its own markup it
    escapes, each named, so the agent reads other text than the file holds."""
    out: list[Finding] = []
    if not_text(index) is not None:
        return out  # one index-missing says it (not a warning on every line)
    text = index.raw_text()
    if text.isascii() and _SUSPECT_ASCII.search(text) is None:
        return out
    from .neutralize import escapes, strip_lines, stripped_chars

    lines = [line for line in index.lines if line.number not in stripped]
    cleaned = strip_lines([line.raw for line in lines])
    joined = "\n".join(cleaned)  # a tag may be spelled across lines, as Claude Code reads them
    starts, at = [], 0
    for piece in cleaned:
        starts.append(at)
        at += len(piece) + 1
    per_line: dict[int, dict[tuple[str, str], int]] = {}
    for found in escapes(joined):
        k = bisect_right(starts, found.at) - 1
        seen = per_line.setdefault(k, {})
        seen[(found.tag, found.opener)] = seen.get((found.tag, found.opener), 0) + 1
    tags = {k: [_escape_words(tag, opener, count) for (tag, opener), count in seen.items()]
            for k, seen in per_line.items()}
    for k, line in enumerate(lines):
        gone = stripped_chars(line.raw) if cleaned[k] != line.raw else []
        if not gone and k not in tags:
            continue
        what = []
        if gone:
            names = sorted(set(gone), key=gone.index)
            listed = ", ".join(f"U+{ord(c):04X} {_char_name(c)}" for c in names[:4])
            more = f" and {len(names) - 4} more" if len(names) > 4 else ""
            what.append(f"removes {len(gone)} invisible character{'s' if len(gone) != 1 else ''} "
                        f"({listed}{more})")
        what += tags.get(k, [])
        out.append(Finding(
            "neutralized-text", WARNING, index.path, line.number,
            f"Claude Code changes this line before loading: it {' and '.join(what)}, so the agent "
            "reads other text than the file holds; remove it or write it out in plain words",
            f"neutralized:{line.number}"))
    return out


def _escape_words(tag: str, opener: str, count: int) -> str:
    """How Claude Code escapes one tag on a line, in words."""
    times = f"{count} times; " if count > 1 else ""
    if opener == "<":
        return f"escapes the markup tag '{tag}' ({times}its '<' loads as '<\\')"
    return (f"escapes the markup tag '{tag}' ({times}its look-alike opener '{opener}', "
            f"U+{ord(opener):04X}, loads as '<\\')")


def _char_name(ch: str) -> str:
    """A character's Unicode name, or what it is when Python's Unicode has none for it."""
    name = unicodedata.name(ch, "")
    if name:
        return name
    cp = ord(ch)
    if cp < 0x20 or 0x7F <= cp <= 0x9F:
        return "a control character"
    if 0xE000 <= cp <= 0xF8FF or cp >= 0xF0000:
        return "a private-use character"
    return "an unassigned code point"


def cross_findings(snapshot: Snapshot, budget: Budget | None = None) -> list[Finding]:
    """Findings that involve the indexes or more than one file.

    Made of :func:`index_findings`, :func:`file_cross_findings` for every non-structural file,
    the supersede cycles and :func:`index_tail_findings`, in that order; the writer's incremental
    validation (``memtui.core.write``) recombines the same parts.
    """
    if not snapshot.index.exists:
        return index_findings(snapshot, None, budget)
    reach = reach_of(snapshot)
    out = index_findings(snapshot, reach, budget)
    structural = reach.structural
    direct, archived, region, mention = reach.direct, reach.archived, reach.region, reach.mention
    archive_dir = ARCHIVE_DIR + "/"
    for path, f in snapshot.files.items():
        fm = f.frontmatter
        if not fm.lists:  # no provenance: skip what file_cross_findings has nothing to say about
            if path in direct:  # listed, and neither archived nor superseded
                if path not in archived and "status" not in fm.fields and not path.startswith(archive_dir):
                    continue
            elif "pinned" not in fm.fields and (path in region or path in mention or path in archived):
                continue  # reached otherwise, and not pinned
        if path not in structural:
            out.extend(file_cross_findings(snapshot, reach, path, f))
    out.extend(_cycle_findings(snapshot))
    out.extend(index_tail_findings(snapshot))
    return out


def _cycle_findings(snapshot: Snapshot) -> Iterator[Finding]:
    succ: dict[str, str] = {}
    for path, f in snapshot.files.items():
        names = f.frontmatter.names("superseded_by")
        if names:
            target = posixpath.normpath(names[0])
            if not target.lower().endswith(".md"):
                target += ".md"
            if target not in snapshot.files and f"{ARCHIVE_DIR}/{target}" in snapshot.files:
                target = f"{ARCHIVE_DIR}/{target}"
            succ[path] = target
    for cycle in _cycles(succ):
        chain = " → ".join(cycle + [cycle[0]])
        for member in cycle:
            yield Finding(
                "supersede-cycle",
                ERROR,
                member,
                None,
                f"superseded_by goes round in a circle ({chain}); break the chain",
                "cycle",
            )


def _cycles(succ: dict[str, str]) -> list[list[str]]:
    """Each circle of ``succ`` once, from its member that comes first in ``succ``, in that order.

    Every node is walked once (a chain of thousands of ``superseded_by`` stays linear): a walk
    stops at a node an earlier walk finished, or closes a circle on its own path."""
    order = {path: n for n, path in enumerate(succ)}
    done: set[str] = set()
    found: list[list[str]] = []
    for start in succ:
        if start in done:
            continue
        path: list[str] = []
        on_path: dict[str, int] = {}
        node: str | None = start
        while node is not None and node not in done and node not in on_path:
            on_path[node] = len(path)
            path.append(node)
            node = succ.get(node)
        if node is not None and node in on_path:
            cycle = path[on_path[node]:]
            first = min(range(len(cycle)), key=lambda k: order[cycle[k]])
            found.append(cycle[first:] + cycle[:first])
        done.update(path)
    found.sort(key=lambda cycle: order[cycle[0]])
    return found


def validate(snapshot: Snapshot) -> list[Finding]:
    """Every finding for a snapshot, errors first, then by rule, path and line."""
    structural = _structural(snapshot)
    out = cross_findings(snapshot)
    out.extend(files_findings(list(snapshot.files.values()), structural))
    return sort_findings(out)


#: the findings of many files, one list per file (what :func:`files_findings` computes)
FilesFindings = Callable[[list[MemoryFile], set[str]], list[list[Finding]]]


def files_findings(files: list[MemoryFile], structural: set[str]) -> list[Finding]:
    """:func:`file_findings` of many files, screening their texts for secrets in one pass; files
    of a cached load bring theirs from their cache, which the first file names
    (:meth:`memtui.core.stores.statcache.CachedFile.cached_findings`): the cache sits above the writer,
    the rules below it."""
    cached: Callable[[list[MemoryFile], set[str], FilesFindings], list[Finding]] | None = (
        getattr(files[0], "cached_findings", None) if files else None)
    if cached is not None:
        return cached(files, structural, _files_findings)
    return [found for each in _files_findings(files, structural) for found in each]


def _files_findings(files: list[MemoryFile], structural: set[str]) -> list[list[Finding]]:
    flagged = screen_secrets([f.text for f in files])
    out: list[list[Finding]] = []
    for i, f in enumerate(files):
        fm = f.frontmatter
        fields = fm.fields
        if fm.closed and not fm.unsplit and i not in flagged and f.size <= TOPIC_MAX_BYTES \
                and fields.get("name", "").strip() and fields.get("description", "").strip() \
                and fields.get("type", "").strip().lower() in KNOWN_TYPES and f.path not in structural:
            out.append([])  # what file_findings finds nothing in, without the call
        else:
            out.append(file_findings(f, structural=f.path in structural, secret_screen=i in flagged))
    return out


def sort_findings(findings: Iterable[Finding]) -> list[Finding]:
    order = {name: i for i, name in enumerate(RULES)}
    return sorted(
        findings,
        key=lambda f: (f.severity != ERROR, order.get(f.rule, 99), f.path, f.line or 0, f.subject),
    )


def errors(findings: Iterable[Finding]) -> list[Finding]:
    return [f for f in findings if f.severity == ERROR]


# ---------------------------------------------------------------- the gate


@dataclass(frozen=True)
class GateResult:
    """The gate's verdict: accepted, or refused with the findings that refused it."""

    accepted: bool
    refusing: tuple[Finding, ...] = ()
    reason: str = ""


def gate(
    before: Snapshot | list[Finding],
    after: Snapshot | list[Finding],
    before_budget: Budget | None = None,
    after_budget: Budget | None = None,
) -> GateResult:
    """Accept a change only if it adds no error (keyed by rule, path and subject) and does not
    worsen an existing budget overflow."""
    if isinstance(before, Snapshot):
        before_budget = before_budget or measure(before.index, before.config)
        before = validate(before)
    if isinstance(after, Snapshot):
        after_budget = after_budget or measure(after.index, after.config)
        after = validate(after)
    had = Counter(f.key for f in before if f.severity == ERROR)
    refusing: list[Finding] = []
    seen: Counter[tuple[str, str, str]] = Counter()
    for finding in after:
        if finding.severity != ERROR:
            continue
        seen[finding.key] += 1
        if seen[finding.key] > had[finding.key]:
            refusing.append(finding)
    reasons = []
    if before_budget is not None and after_budget is not None:
        if after_budget.over_lines and after_budget.lines > max(before_budget.lines, after_budget.max_lines):
            reasons.append(
                f"MEMORY.md would grow from {before_budget.lines} to {after_budget.lines} lines "
                f"while over its {after_budget.max_lines}-line cap"
            )
        if after_budget.over_bytes and after_budget.bytes > max(before_budget.bytes, after_budget.max_bytes):
            reasons.append(
                f"MEMORY.md would grow from {before_budget.bytes:,} to {after_budget.bytes:,} "
                f"{after_budget.unit} while over its {after_budget.max_bytes:,}-"
                f"{after_budget.unit[:-1]} cap"
            )
    if refusing or reasons:
        return GateResult(False, tuple(refusing), "; ".join(reasons))
    return GateResult(True)
