"""What a memory body points at (DESIGN §5): file paths, code symbols, git branches and URLs,
and the *scope* of each — whether it can be checked against the project at all.

Anything rooted outside the project (``~``, ``/``, ``$VAR``, a URL, a glob or placeholder, a first
segment that is not a top-level folder or file of the project) is *unverifiable* and never counts
as missing.  Checking the rest is :mod:`memtui.core.read.project`'s job.  Pure: no I/O here.

Decisions beyond the contract: symbols in ALL_CAPS (constants, environment variables) and a few
product names written in camel case (``GitHub``, ``macOS``) are not taken as symbols; a word after
"branch" counts as a branch name only when quoted, or when it has a ``/``, ``-``, ``_`` or ``.``,
or is a usual trunk name (``main``, ``develop`` …), so English prose ("the branch is …") does not;
URLs on ``localhost``, private addresses and the ``example.*`` domains are unverifiable.
"""

from __future__ import annotations

import posixpath
import re
from enum import Enum
from typing import NamedTuple


class RefKind(str, Enum):
    PATH = "path"
    SYMBOL = "symbol"
    BRANCH = "branch"
    URL = "url"


class RefStatus(str, Enum):
    FOUND = "found"
    MISSING = "missing"
    UNVERIFIABLE = "unverifiable"


class Reference(NamedTuple):
    """One thing a memory body points at, as written (paths normalised).

    A named tuple rather than a dataclass: tens of thousands are made per run.
    """

    kind: RefKind
    text: str


class ReferenceCheck(NamedTuple):
    """A reference and what checking it found; ``reason`` says why when it is not plainly found."""

    kind: RefKind
    text: str
    status: RefStatus
    reason: str = ""

    def to_json(self) -> dict[str, str]:
        return {"kind": self.kind.value, "ref": self.text, "status": self.status.value,
                "reason": self.reason}


# ------------------------------------------------------------------------------------ extraction

KNOWN_EXTENSIONS = frozenset(
    """py pyi pyx ipynb js jsx ts tsx mjs cjs mts cts json jsonc json5 jsonl ndjson md mdx markdown
    txt rst adoc tex yml yaml toml ini cfg conf env properties lock sh bash zsh fish ps1 bat cmd
    rb go mod sum rs java kt kts scala groovy gradle swift c h cc cpp cxx hpp hh cs fs m mm php lua
    pl pm r jl dart ex exs erl hrl hs ml mli clj cljs el elm nim zig sol v vue svelte astro html htm
    css scss sass less tcss styl xml xsl svg png jpg jpeg gif webp ico pdf csv tsv sql graphql gql
    proto prisma tf tfvars hcl nix cmake mk make dockerfile plist service desktop vim patch diff log
    wasm db sqlite""".split()
)

#: camel-case words that are product names, not code
_NOT_SYMBOLS = frozenset(
    """GitHub GitLab BitBucket JavaScript TypeScript CoffeeScript PostgreSQL MySQL SQLite MongoDB
    NoSQL GraphQL YouTube LinkedIn OpenAI ChatGPT DeepSeek PyPI PyTorch NumPy SciPy FastAPI
    macOS iOS iPadOS watchOS tvOS visionOS iPhone iPad iCloud eBay WordPress PowerShell
    DevOps OAuth WebSocket WebSockets WebGL WebGPU WebAssembly VSCode IntelliJ JetBrains""".split()
)

#: words after "branch" that name a branch although they have no punctuation
_TRUNK_NAMES = frozenset(
    {"main", "master", "develop", "development", "dev", "trunk", "staging", "production", "prod",
     "release", "next", "canary", "stable", "default"}
)

# lower-case scheme only: a literal prefix makes the search many times faster than IGNORECASE
_URL_RE = re.compile(r"https?://[^\s<>()\[\]{}\"'`|\\^]+")
# no look-around: it would cost the literal-prefix search (``x`` spans and fences are rare)
_SPAN_RE = re.compile(r"`([^`\n]+)`")
_URL_TRAIL = ".,;:!?*_~"
_NON_SPACE_RE = re.compile(r"\S*")
_PATH_RUN_RE = re.compile(r"[\w~$./@+{}<>*?\[\]-]+")
_PATH_TRAIL = ".,:;!?"
_WORD_PUNCT = "()[]{}<>,.;:!?*_\"'"
_LINE_SUFFIX_RE = re.compile(r"(?::\d+(?:[:-]\d+)?|#L\d+(?:-L?\d+)?)$")
_LETTER_RE = re.compile(r"[A-Za-z]")
_IDENT_RE = re.compile(r"[A-Za-z_][A-Za-z0-9_]*", re.ASCII)
_DOTTED_RE = re.compile(r"[A-Za-z_$][\w$]*(?:(?:\.|::|#)[A-Za-z_$][\w$]*)*", re.ASCII)
_CALL_SPAN_RE = re.compile(r"([A-Za-z_$][\w$]*(?:(?:\.|::)[A-Za-z_$][\w$]*)*)\(.*\)", re.ASCII)
# camelCase | PascalCase (two humps) | snake_case (and __dunder__)
_SYMBOL_NAME_RE = re.compile(
    r"(?:[a-z][a-z0-9]*|[A-Z][a-z0-9]+)[A-Z][A-Za-z0-9]*"
    r"|_*[A-Za-z][A-Za-z0-9]*(?:_[A-Za-z0-9]+)+_*|__[a-z][a-z0-9_]*__",
    re.ASCII,
)
_BRANCH_RE = re.compile(
    r"\bbranch\b(?:\s+(?:named|called))?(?:\s*[:=]\s*|\s+)"
    r"(?:`([^`\s]+)`|\"([^\"\s]+)\"|'([^'\s]+)'|([A-Za-z0-9][\w./-]*))",
    re.IGNORECASE,
)
_BRANCH_NAME_RE = re.compile(r"[\w][\w./-]*", re.ASCII)
_PATHISH_SPAN_RE = re.compile(r"[\w~$./@+{}<>*?\[\]-]+")


def _has_known_extension(text: str) -> bool:
    head, dot, ext = text.rpartition(".")
    return bool(dot and head) and ext.lower() in KNOWN_EXTENSIONS


def _clean_path(text: str) -> str:
    text = text.strip().strip("\"'").rstrip(_PATH_TRAIL)
    if ":" in text or "#" in text:
        text = _LINE_SUFFIX_RE.sub("", text)
    return text


def _is_path_span(text: str) -> bool:
    """A backtick span that is a path: no spaces, and a '/' beside a letter or a known extension."""
    if not _PATHISH_SPAN_RE.fullmatch(text) or text.endswith("()"):
        return False
    if "/" in text:
        return _LETTER_RE.search(text) is not None
    return _has_known_extension(text) and not text.startswith(".")


def is_symbol_name(name: str) -> bool:
    """camelCase, PascalCase (two humps) or snake_case — not ALL_CAPS, not a product name."""
    return (_SYMBOL_NAME_RE.fullmatch(name) is not None and not name.isupper()
            and name not in _NOT_SYMBOLS)


def _last_identifier(dotted: str) -> str:
    for separator in (".", "::", "#"):
        if separator in dotted:
            dotted = dotted.rsplit(separator, 1)[1]
    return dotted.lstrip("$")


def _symbol_from_span(text: str) -> str | None:
    if text.isidentifier():
        return text if is_symbol_name(text) else None
    if text.endswith(")"):
        call = _CALL_SPAN_RE.fullmatch(text)
        if call:
            name = _last_identifier(call.group(1))
            return name if _IDENT_RE.fullmatch(name) else None
        return None
    if _DOTTED_RE.fullmatch(text):
        name = _last_identifier(text)
        if _IDENT_RE.fullmatch(name) and is_symbol_name(name):
            return name
    return None


def _branch_name(quoted: str | None, bare: str | None) -> str | None:
    if quoted is not None:
        name = quoted.rstrip(".,:;")
        if _BRANCH_NAME_RE.fullmatch(name) and any(c.isalpha() for c in name):
            return name
        return None
    name = (bare or "").rstrip(".,:;/-")
    if not name or not any(c.isalpha() for c in name):
        return None
    if any(c in name for c in "/-_.") or name in _TRUNK_NAMES:
        return name
    return None


def extract_references(body: str) -> tuple[Reference, ...]:
    """Every URL, path, symbol and branch a body names, each once, in the order found."""
    return tuple(map(Reference._make, reference_keys(body)))


def reference_keys(body: str, lowered: str | None = None) -> tuple[tuple[RefKind, str], ...]:
    """:func:`extract_references` as plain ``(kind, text)`` tuples (equal and hashing equal to
    :class:`Reference`; cheaper to make in bulk).  ``lowered`` is ``body.lower()`` if the caller
    has it already."""
    found: dict[tuple[RefKind, str], None] = {}  # an ordered set
    path_kind, symbol_kind = RefKind.PATH, RefKind.SYMBOL
    text = body
    if "://" in text:
        pieces: list[str] = []
        last = 0
        for match in _URL_RE.finditer(text):
            found[(RefKind.URL, match.group(0).rstrip(_URL_TRAIL))] = None
            pieces.append(text[last:match.start()])
            last = match.end()
        if pieces:
            pieces.append(text[last:])
            text = " ".join(pieces)  # URLs out, so their paths are not read as file paths
    if "`" in text:
        for span in _SPAN_RE.findall(text):
            span = span.strip()
            if span.isidentifier():
                if is_symbol_name(span):
                    found[(symbol_kind, span)] = None
                continue
            path = _clean_path(span)
            if _is_path_span(path):
                path = normalise_path(path)
                if path:
                    found[(path_kind, path)] = None
                continue
            symbol = _symbol_from_span(span)
            if symbol:
                found[(symbol_kind, symbol)] = None
    if "/" in text:
        for word in _words_with_slash(text):
            bare = word.strip(_WORD_PUNCT)
            if bare[:1] == "`" and bare[-1:] == "`" and bare.count("`") == 2:
                continue  # a whole code span: read above
            for token in _PATH_RUN_RE.findall(word):
                if "/" in token:
                    token = _clean_path(token)
                    if _has_known_extension(token):
                        found[(path_kind, normalise_path(token))] = None
    if "()" in text:
        for name in _prose_calls(text):
            found[(symbol_kind, name)] = None
    if lowered is None:
        lowered = body.lower()
    if "branch" in lowered:
        if text is not body:
            lowered = text.lower()
        for match in _branch_matches(text, lowered):
            quoted = match.group(1) or match.group(2) or match.group(3)
            branch = _branch_name(quoted, match.group(4))
            if branch:
                found[(RefKind.BRANCH, branch)] = None
                found.pop((path_kind, branch), None)  # `feature/x` after "branch" is no path
    return tuple(found)


def _words_with_slash(text: str) -> list[str]:
    """The whitespace-separated words holding a '/', found from each '/' outwards.

    Much faster than a regex tried at every position, or than splitting the whole text.
    """
    words: list[str] = []
    pos = text.find("/")
    while pos >= 0:
        start = text.rfind(" ", 0, pos) + 1
        for space in "\n\t":  # searched only back to the space: a text has few tabs
            cut = text.rfind(space, start, pos)
            if cut >= 0:
                start = cut + 1
        match = _NON_SPACE_RE.match(text, pos)
        end = match.end() if match else pos + 1
        words.append(text[start:end])
        pos = text.find("/", end)
    return words


def _prose_calls(text: str) -> list[str]:
    """Names written as ``name()`` or ``obj.name()`` anywhere in the text."""
    names: list[str] = []
    pos = text.find("()")
    while pos >= 0:
        start = pos
        while start > 0 and (text[start - 1].isalnum() or text[start - 1] in "_$."):
            start -= 1
        name = _last_identifier(text[start:pos])
        if name and _IDENT_RE.fullmatch(name):
            names.append(name)
        pos = text.find("()", pos + 2)
    return names


def _branch_matches(text: str, lowered: str) -> list[re.Match[str]]:
    if len(lowered) != len(text):  # lower() changed the length (rare scripts): search it all
        return list(_BRANCH_RE.finditer(text))
    matches = []
    pos = lowered.find("branch")
    while pos >= 0:
        match = _BRANCH_RE.match(text, pos)
        if match:
            matches.append(match)
        pos = lowered.find("branch", pos + 6)
    return matches


def normalise_path(path: str) -> str:
    """Collapse ``./``, ``//`` and a trailing ``/``; leading ``~``, ``/``, ``$`` and ``..`` stay."""
    if not path or ("//" not in path and "./" not in path and not path.endswith(("/", "/."))):
        return path
    norm = posixpath.normpath(path)
    return path if norm == "." else norm


# --------------------------------------------------------------------------------------- scope

_GLOB_RE = re.compile(r"[*?\[\]{}<>]")


def path_scope(path: str, top_level: frozenset[str]) -> str | None:
    """Why a path cannot be checked against the project, or ``None`` when it is project-relative."""
    if path.startswith("~"):
        return "under the home folder"
    if path.startswith("/"):
        return "an absolute path"
    if path.startswith("$") or "${" in path or "$(" in path:
        return "starts from a variable"
    if "://" in path:
        return "a URL"
    if _GLOB_RE.search(path):
        return "a glob or placeholder"
    first = path.split("/", 1)[0]
    if first in ("..", "."):
        return "relative to an unknown folder"
    if first not in top_level:
        return f"'{first}' is not a top-level folder or file of the project"
    return None


_PRIVATE_HOSTS_RE = re.compile(
    r"^(localhost|.*\.local|.*\.localhost|.*\.internal|.*\.test|.*\.example|example\.(com|org|net)"
    r"|127\.\d+\.\d+\.\d+|0\.0\.0\.0|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+"
    r"|172\.(1[6-9]|2\d|3[01])\.\d+\.\d+|::1)$",
)


def url_host(url: str) -> str:
    """The lower-cased host of an ``http(s)://`` URL ('' when there is none)."""
    rest = url.partition("://")[2]
    for stop in "/?#":
        rest = rest.partition(stop)[0]
    host = rest.rpartition("@")[2]
    if host.startswith("["):
        return host[1:host.find("]")].lower() if "]" in host else ""
    return host.partition(":")[0].lower()


def url_scope(url: str) -> str | None:
    """Why a URL cannot be checked from here (a local or private host), else ``None``."""
    host = url_host(url)
    if not host:
        return "not a well-formed URL"
    if _PRIVATE_HOSTS_RE.match(host):
        return "a local or private host"
    return None
