"""Parse ``MEMORY.md`` / ``MEMORY-archive.md`` into lines that know what they are, and render back.

Every line is kept verbatim (with its own line ending), so ``parse_index(data).render() == data``
for any input.  Recognised lines: entries (``[Title](file.md)``, ``**file.md**``, `` `x.md` `` under
a Memory base, ``[[name]]``), region pointers, headings, ``Scope:``/``Memory base:`` lines of a
``PATH_SCOPE`` section, HTML comments; everything else is text.  Lines inside HTML comments and
fenced code blocks are never entries.
"""

from __future__ import annotations

import posixpath
import re
from bisect import bisect_right
from dataclasses import MISSING, replace
from dataclasses import fields as dataclass_fields
from typing import Callable, Iterable

from .snapshot import (
    EntryForm,
    Index,
    IndexLine,
    LineKind,
    Ref,
    ScopeSection,
    decode_bytes,
)

_LIST_ITEM = re.compile(r"^\s*(?:[-*+]|\d+[.)])\s+(.*)$")
_HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
_MD_LINK = re.compile(
    r"(?<!!)\[((?:[^\[\]]|\[[^\[\]]*\])*)\]\(\s*<?([^()\s<>]+(?:\([^()\s]*\)[^()\s<>]*)*)>?"
    r"(?:\s+[\"'][^\"']*[\"'])?\s*\)"
)
_WIKILINK = re.compile(r"\[\[([^\[\]|#]+)(?:#[^\[\]|]*)?(?:\|[^\[\]]*)?\]\]")
_BOLD_FILE = re.compile(r"^\*\*([^*\s]+\.md)\*\*")
_CODE_FILE = re.compile(r"^`([^`\s]+\.md)`")
_REGION = re.compile(r"^region\s+`([^`]*)`\s*(?:→|->)")
_SCOPE_FIELD = re.compile(
    r"^\s*(?:[-*+]\s+)?(?:\*\*)?(Scope|Memory base)(?:\*\*)?\s*:\s*(?:\*\*)?\s*`([^`]*)`"
)
_SCHEME = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*:")
#: the part of a hook after leading space, emphasis and one separator (always matches)
_HOOK = re.compile(r"\s*[*_]*\s*(?:—|–|--|-|:)?(.*)", re.DOTALL)
_FENCE = re.compile(r"^\s*(```|~~~)")
_INDEX_NAMES = ("memory.md", "memory-archive.md")
# a backticked `name.md`, or a bare name.md that is not part of a URL, a path or a longer word
_MENTION = re.compile(
    r"`([^`\s]+\.md)`|(?<![\w./\-~$])([\w][\w.\-]*(?:/[\w.\-]+)*\.md)(?![\w\-/])",
    re.IGNORECASE,
)


def line_refs(raw: str, base: str = "") -> tuple[Ref, ...]:
    """Every link to a Markdown file, every wikilink and every mention of ``name.md`` on a line.

    Links and wikilinks resolve like entries (relative to the Memory ``base``); a mention is kept
    as written (its resolution needs the root's files: :func:`memtui.core.rules.validate.reach_of`).
    Links to index files, to non-Markdown targets and to URLs are left out.
    """
    if ".md" not in raw.lower() and "[[" not in raw:
        return ()
    refs: list[Ref] = []
    spans: list[tuple[int, int]] = []
    for m in _MD_LINK.finditer(raw):
        spans.append(m.span())
        target = m.group(2)
        if not _is_local(target):
            continue
        resolved, escapes = resolve_target(target, base)
        if escapes or (resolved is not None and resolved.lower().endswith(".md")
                       and posixpath.basename(resolved).lower() not in _INDEX_NAMES):
            refs.append(Ref("link", target, resolved, escapes))
    for m in _WIKILINK.finditer(raw):
        spans.append(m.span())
        name = m.group(1).strip()
        target = name if name.lower().endswith(".md") else name + ".md"
        resolved, escapes = resolve_target(target, base)
        if resolved is None or posixpath.basename(resolved).lower() not in _INDEX_NAMES:
            refs.append(Ref("wikilink", target, resolved, escapes))
    covered = _Covered(spans)
    for m in _MENTION.finditer(raw):
        if covered(m.start()):
            continue
        name = m.group(1) or m.group(2)
        if posixpath.basename(name).lower() in _INDEX_NAMES:
            continue
        resolved, escapes = resolve_target(name, base)
        if not escapes and resolved is not None:
            refs.append(Ref("mention", name, resolved, False))
    return tuple(refs)


class _Covered:
    """Whether a position falls inside one of the spans of a line's links: one search, not a
    look at every span (a line of a hundred thousand links stays linear)."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        spans.sort()
        self.starts = [start for start, _ in spans]
        self.reach: list[int] = []  # the furthest end of the spans starting up to each one
        furthest = 0
        for _, end in spans:
            furthest = max(furthest, end)
            self.reach.append(furthest)

    def __call__(self, at: int) -> bool:
        k = bisect_right(self.starts, at) - 1
        return k >= 0 and self.reach[k] > at


def split_lines(text: str) -> list[tuple[str, str]]:
    """Split into (content, ending) pairs; a final newline does not start another line."""
    parts = text.split("\n")
    last = parts.pop()  # what follows the final newline ('' when the text ends with one)
    out = [(part[:-1], "\r\n") if part.endswith("\r") else (part, "\n") for part in parts]
    if last:
        out.append((last, ""))
    return out


def _strip_hook(text: str) -> str:
    """The hook in what follows (or precedes) an entry's link: emphasis, one separator
    (``—``, ``–``, ``--``, ``-``, ``:``) and spaces around it taken off."""
    return _HOOK.match(text).group(1).strip().strip("*_").strip()  # type: ignore[union-attr]


def _is_local(target: str) -> bool:
    return not (_SCHEME.match(target) or target.startswith("#") or target.startswith("//"))


def resolve_target(target: str, base: str = "") -> tuple[str | None, bool]:
    """Root-relative posix path of a link target, and whether it leaves the root."""
    # a written backslash is a folder separator; an encoded one (%5C) is part of a file name
    clean = target.split("#", 1)[0].split("?", 1)[0].replace("\\", "/")
    if "%" in clean:  # urllib.parse (and the ipaddress module it loads) only when needed
        from urllib.parse import unquote

        clean = unquote(clean)
    if not clean:
        return None, False
    if clean.startswith("/") or clean.startswith("~") or clean.startswith("$"):
        return None, True
    joined = posixpath.normpath(posixpath.join(base, clean)) if base else posixpath.normpath(clean)
    if joined == ".." or joined.startswith("../"):
        return None, True
    return joined, False


def _parse_entry(
    content: str, base: str, exists: Callable[[str], bool] | None
) -> dict[str, object] | None:
    """Entry fields of a list item's content, or None if it is not an entry."""
    md = _MD_LINK.search(content)
    wiki = _WIKILINK.search(content)
    match: re.Match[str] | None
    form: EntryForm
    if md and (not wiki or md.start() < wiki.start()):
        match, form = md, EntryForm.LINK
        link_text, target = md.group(1), md.group(2)
        if not _is_local(target):
            return None
    elif wiki:
        match, form = wiki, EntryForm.WIKILINK
        name = wiki.group(1).strip()
        link_text, target = name, name if name.lower().endswith(".md") else name + ".md"
    else:
        bold = _BOLD_FILE.match(content)
        code = _CODE_FILE.match(content) if base else None
        match = bold or code
        if match is None:
            return None
        form = EntryForm.BOLD if bold else EntryForm.CODE
        link_text = target = match.group(1)
    resolved, escapes = resolve_target(target, base)
    if resolved is not None and base and exists is not None and not exists(resolved):
        plain, plain_escapes = resolve_target(target)
        if plain is not None and exists(plain):
            resolved, escapes = plain, plain_escapes
    if not escapes:
        if resolved is None or not resolved.lower().endswith(".md"):
            return None  # a link to something that is not a memory file (a folder, a script)
        if posixpath.basename(resolved).lower() in _INDEX_NAMES:
            return None  # a link to an index file is navigation, not an entry
    after = _strip_hook(content[match.end() :])
    before = content[: match.start()].strip().strip("*_").strip()
    hook = after or before
    title = link_text.strip() if form is EntryForm.LINK else posixpath.basename(target)
    return {
        "form": form,
        "target": target,
        "resolved": resolved,
        "escapes": escapes,
        "title": title,
        "hook": hook,
        "link_text": link_text,
    }


#: the common entry, read with one match: ``- [title](name.md) hook`` at the top level, a plain
#: file name as target, perhaps in plain folders (``archive/name.md``, as every line of an
#: archive index is: no escape, anchor, query, ``.``/``..`` or empty segment), no other bracket,
#: backtick or ``.md`` on the line (so no other reference); anything else takes the general path
_FAST_ENTRY = re.compile(
    r"- \[([^\[\]]*)\]\(((?:[A-Za-z0-9_][\w.\-]*/)*[A-Za-z0-9_][\w.\-]*\.md)\)([^\[`]*)")
_new = object.__new__
_LINE_DEFAULTS = {f.name: f.default for f in dataclass_fields(IndexLine) if f.default is not MISSING}


def _plain_item(raw: str) -> bool:
    """A list item ``- words`` with nothing an entry, region, scope field, comment or reference
    could start with: no bracket, backtick, ``<`` or ``.md`` (the general path finds nothing in
    it: a TEXT line with every field at its default)."""
    return (raw.startswith("- ") and "[" not in raw and "`" not in raw and "<" not in raw
            and ".md" not in raw.lower())


def parse_index(
    data: bytes,
    path: str = "MEMORY.md",
    exists: Callable[[str], bool] | None = None,
) -> Index:
    """Parse index bytes.  ``exists`` lets Memory-base entries fall back to root-relative paths."""
    bom = data.startswith(b"\xef\xbb\xbf")
    text = decode_bytes(data[3:] if bom else data)
    lines: list[IndexLine] = []
    scopes: list[ScopeSection] = []
    state = _parse_lines(split_lines(text), 1, exists, _START, lines, scopes)
    if state[1] is not None:
        scopes.append(state[1])
    return Index(path=path, exists=True, lines=tuple(lines), bom=bom, scopes=tuple(scopes))


#: where the parser stands between two lines: the section, the open PATH_SCOPE section, and
#: whether an HTML comment or a code fence is open
_State = tuple[str, "ScopeSection | None", bool, bool]
_START: _State = ("", None, False, False)


def _parse_lines(pairs: Iterable[tuple[str, str]], first: int, exists: Callable[[str], bool] | None,
                 state: _State, lines: list[IndexLine], scopes: list[ScopeSection]) -> _State:
    """Parse (content, ending) pairs numbered from ``first`` on from ``state``: their lines are
    appended to ``lines``, the PATH_SCOPE sections they close to ``scopes``; the state after
    them is returned."""
    section, scope, in_comment, in_fence = state
    fast = _FAST_ENTRY.fullmatch
    for number, (raw, ending) in enumerate(pairs, start=first):
        if scope is None and not in_comment and not in_fence:
            m = fast(raw)
            if m is not None:
                link_text, target, after = m.groups()
                if target[target.rfind("/") + 1:].lower() not in _INDEX_NAMES \
                        and ".md" not in after.lower():
                    line = _new(IndexLine)  # many per index: no dataclass __init__
                    line.__dict__.update({
                        "number": number, "raw": raw, "ending": ending, "kind": LineKind.ENTRY,
                        "section": section, "scope": "", "form": EntryForm.LINK, "target": target,
                        "resolved": target, "escapes": False, "title": link_text.strip(),
                        "hook": _strip_hook(after), "link_text": link_text, "glob": "",
                        "refs": (Ref("link", target, target, False),),
                    })
                    lines.append(line)
                    continue
            elif _plain_item(raw):  # a list item of words: nothing in it to parse
                line = _new(IndexLine)
                values = line.__dict__
                values.update(_LINE_DEFAULTS)
                values["number"], values["raw"], values["ending"] = number, raw, ending
                values["kind"], values["section"] = LineKind.TEXT, section
                lines.append(line)
                continue
        kind = LineKind.TEXT
        fields: dict[str, object] = {}
        stripped = raw.strip()
        fenced = False
        if in_comment:
            kind = LineKind.COMMENT
            if "-->" in raw:
                in_comment = False
        elif in_fence:
            fenced = True
            if _FENCE.match(raw):
                in_fence = False
        elif _FENCE.match(raw):
            fenced = in_fence = True
        elif stripped.startswith("<!--"):
            kind = LineKind.COMMENT
            in_comment = "-->" not in stripped[4:]
        elif not stripped:
            kind = LineKind.BLANK
        elif heading := _HEADING.match(raw):
            kind = LineKind.HEADING
            level, title = len(heading.group(1)), heading.group(2)
            if level <= 2:
                if scope is not None:
                    scopes.append(scope)
                    scope = None
                section = title if level == 2 else ""
                if level == 2 and title.upper().startswith("PATH_SCOPE"):
                    name = title.split(":", 1)[1].strip() if ":" in title else ""
                    scope = ScopeSection(name=name, heading_line=number)
        elif scope is not None and (field_match := _SCOPE_FIELD.match(raw)):
            kind = LineKind.SCOPE_FIELD
            value = field_match.group(2).strip()
            if field_match.group(1) == "Scope":
                scope = replace(scope, scope_path=value)
            else:
                base = posixpath.normpath(value.replace("\\", "/")).strip("/")
                scope = replace(scope, memory_base="" if base == "." else base + "/")
        elif item := _LIST_ITEM.match(raw):
            content = item.group(1)
            region = _REGION.match(content)
            if region:
                kind = LineKind.REGION
                fields["glob"] = region.group(1)
            else:
                base = scope.memory_base if scope is not None else ""
                entry = _parse_entry(content, base, exists)
                if entry is not None:
                    kind = LineKind.ENTRY
                    fields.update(entry)
        elif "<!--" in raw:
            kind = LineKind.COMMENT
            in_comment = "-->" not in raw[raw.index("<!--") + 4 :]
        if not fenced and kind is not LineKind.COMMENT:
            refs = line_refs(raw, scope.memory_base if scope is not None else "")
            if refs:
                fields["refs"] = refs
        line = _new(IndexLine)  # the dataclass's fields, set without its frozen __init__
        values = line.__dict__
        values.update(_LINE_DEFAULTS)
        values["number"], values["raw"], values["ending"], values["kind"] = number, raw, ending, kind
        values["section"] = section
        if scope is not None:
            values["scope"] = scope.name
        values.update(fields)
        lines.append(line)
    return section, scope, in_comment, in_fence


def entry_line(title: str, target: str, hook: str) -> str:
    """The text of a new entry line as memtui writes it."""
    return f"- [{title}]({target}) — {hook}" if hook else f"- [{title}]({target})"


def region_line(glob: str, hook: str) -> str:
    """The text of a new region pointer as memtui writes it."""
    return f"- region `{glob}` → {hook}"
