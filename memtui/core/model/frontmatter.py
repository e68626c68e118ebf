"""Read and edit the frontmatter block of a topic file without touching any other byte.

The block is not YAML: a ``---`` first line, ``key: value`` lines split at the first ``': '``, and
a closing ``---``.  Both dialects are read: flat keys, and keys indented under ``metadata:``
(read as if flat when the flat key is absent).  ``key:`` followed by ``  - item`` lines is read
as a list.  Edits (:func:`set_key`, :func:`clear_key`) rewrite or add exactly one line.
"""

from __future__ import annotations

import re
from functools import cached_property, partial
from itertools import count, repeat
from typing import Mapping

from .snapshot import EMPTY_FRONTMATTER, LIST_KEYS, Frontmatter, FrontmatterLine

BOM = "\ufeff"


def _split_lines(text: str, start: int) -> list[tuple[int, int, int]]:
    """(start, end-of-content, end-including-newline) for each line from ``start``."""
    spans: list[tuple[int, int, int]] = []
    n = len(text)
    pos = start
    while pos < n:
        nl = text.find("\n", pos)
        if nl < 0:
            spans.append((pos, n, n))
            break
        end = nl - 1 if nl > pos and text[nl - 1] == "\r" else nl
        spans.append((pos, end, nl + 1))
        pos = nl + 1
    return spans


def _unquote(value: str) -> str:
    value = value.strip()
    if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
        return value[1:-1]
    return value


def split_names(value: str) -> tuple[str, ...]:
    """Split a comma-separated (optionally ``[…]``-bracketed) list of file names."""
    value = value.strip()
    if value.startswith("[") and value.endswith("]") and not value.startswith("[["):
        value = value[1:-1]
    names = []
    for part in value.split(","):
        part = _unquote(part.strip())
        if part.startswith("[[") and part.endswith("]]"):
            part = part[2:-2]
        if part:
            names.append(part)
    return tuple(names)


_CLOSING = re.compile(r"^---[ \t\r]*$", re.MULTILINE)


#: the common block, read without a Python loop: '---' and a newline, then only unindented
#: ``key: value`` lines (a plain key, a value with no quote first and no space at either end, LF
#: endings), then a closing '---'; anything else (BOM, CRLF, lists, ``metadata:``, quotes, blank
#: or unsplit lines, a repeated key, no closing line) is read by the general parser
_FAST_BLOCK = re.compile(r"---\n((?:[A-Za-z_][\w-]*: [^\s\"'](?:[^\n]*\S)?\n)*)---[ \t\r]*(?:\n|\Z)")
_FAST_LINE = re.compile(r"^([A-Za-z_][\w-]*): (.*)$", re.MULTILINE)
_fm_line = partial(tuple.__new__, FrontmatterLine)
_new = object.__new__


def plain_lines(fields: Mapping[str, str]) -> tuple[FrontmatterLine, ...]:
    """The lines of a block of only plain ``key: value`` lines, from its fields."""
    return tuple(map(_fm_line, zip(count(2), [f"{key}: {value}" for key, value in fields.items()],
                                   fields.keys(), fields.values(), repeat(False), repeat(None))))


class PlainFrontmatter(Frontmatter):
    """A block of only plain ``key: value`` lines (what the fast path reads): its lines follow
    from its fields, so they are made when first asked for (a validation never asks)."""

    @cached_property
    def lines(self) -> tuple[FrontmatterLine, ...]:
        return plain_lines(self.fields)

    def __eq__(self, other: object) -> bool:
        """Equal to any frontmatter with the same fields (the dataclass's own test wants one class)."""
        if not isinstance(other, Frontmatter):
            return NotImplemented
        return (self.present, self.closed, self.fields, self.lists, self.lines, self.unsplit,
                self.body_offset) == (other.present, other.closed, other.fields, other.lists,
                                      other.lines, other.unsplit, other.body_offset)

    __hash__ = None  # type: ignore[assignment]  # as the dataclass's (its fields hold dicts)


def parse_frontmatter(text: str) -> Frontmatter:
    """Parse the frontmatter block at the start of ``text`` (a leading BOM is allowed)."""
    fast = _FAST_BLOCK.match(text)
    if fast is not None:
        rows = _FAST_LINE.findall(fast.group(1))  # (key, value) of each line
        fields = dict(rows)
        if len(fields) == len(rows):  # no key twice (the first would count)
            fm = _new(PlainFrontmatter)  # many per load: no dataclass __init__, no lines yet
            attrs = fm.__dict__
            attrs["present"] = attrs["closed"] = True
            attrs["fields"] = fields
            attrs["lists"] = {} if fields.keys().isdisjoint(LIST_KEYS) else {
                key: split_names(fields[key]) for key in LIST_KEYS if key in fields}
            attrs["unsplit"] = ()
            attrs["body_offset"] = fast.end()
            return fm
    return _parse_general(text)


def _parse_general(text: str) -> Frontmatter:
    """:func:`parse_frontmatter` of any block (both dialects, lists, quotes, CRLF, a BOM)."""
    start = 1 if text.startswith(BOM) else 0
    if not text.startswith("---", start):
        return EMPTY_FRONTMATTER
    first_nl = text.find("\n", start)
    first = text[start : first_nl if first_nl >= 0 else len(text)]
    if first.rstrip() != "---":
        return EMPTY_FRONTMATTER
    if first_nl < 0:
        return Frontmatter(present=True, closed=False)
    closing = _CLOSING.search(text, first_nl + 1)
    block = text[first_nl + 1 : closing.start() if closing else len(text)]
    raws = block.split("\n")
    if raws and raws[-1] == "":
        raws.pop()

    flat: dict[str, str] = {}
    nested: dict[str, str] = {}
    lists: dict[str, list[str]] = {}
    lines: list[FrontmatterLine] = []
    unsplit: list[int] = []
    in_metadata = False
    list_key: str | None = None
    for number, raw in enumerate(raws, start=2):
        if raw.endswith("\r"):
            raw = raw[:-1]
        indented = raw[:1] in (" ", "\t")
        stripped = raw.strip()
        if not stripped:
            lines.append(FrontmatterLine(number, raw, None, None, indented))
            continue
        if list_key is not None and stripped.startswith("- "):
            lists.setdefault(list_key, []).append(_unquote(stripped[2:]))
            lines.append(FrontmatterLine(number, raw, None, None, indented, list_item_of=list_key))
            continue
        key, sep, value = stripped.partition(": ")
        if not sep:
            if stripped.endswith(":"):
                key = stripped[:-1].strip()
                list_key = key
                if not indented:
                    in_metadata = key == "metadata"
                    if not in_metadata:
                        flat.setdefault(key, "")
                elif in_metadata:
                    nested.setdefault(key, "")
                lines.append(FrontmatterLine(number, raw, key, "", indented and in_metadata))
                continue
            unsplit.append(number)
            lines.append(FrontmatterLine(number, raw, None, None, indented))
            list_key = None
            continue
        key = key.rstrip()
        value = value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "\"'":
            value = value[1:-1]
        list_key = None
        if indented and in_metadata:
            nested.setdefault(key, value)
            lines.append(FrontmatterLine(number, raw, key, value, True))
        else:
            if not indented:
                in_metadata = False
            flat.setdefault(key, value)
            lines.append(FrontmatterLine(number, raw, key, value, False))
    if closing is None:
        return Frontmatter(present=True, closed=False, lines=tuple(lines), unsplit=tuple(unsplit))
    fields = dict(nested)
    fields.update(flat)
    for key in LIST_KEYS:
        if key in fields and key not in lists:
            lists[key] = list(split_names(fields[key]))
    end = closing.end()
    body_offset = end + 1 if end < len(text) and text[end] == "\n" else end
    return Frontmatter(
        present=True,
        closed=True,
        fields=fields,
        lists={k: tuple(v) for k, v in lists.items()},
        lines=tuple(lines),
        unsplit=tuple(unsplit),
        body_offset=body_offset,
    )


def _newline_of(text: str) -> str:
    nl = text.find("\n")
    return "\r\n" if nl > 0 and text[nl - 1] == "\r" else "\n"


def _line_spans(text: str, fm: Frontmatter) -> dict[int, tuple[int, int]]:
    """Character (start, end-of-content) of each frontmatter line, by line number."""
    spans: dict[int, tuple[int, int]] = {}
    for number, (s, e, _) in enumerate(_split_lines(text, 0), start=1):
        spans[number] = (s, e)
        if number > len(fm.lines) + 2:
            break
    return spans


def set_key(text: str, key: str, value: str) -> str:
    """Set ``key: value`` in the frontmatter, changing only that one line (or adding one).

    An existing flat key is rewritten in place; a key only present under ``metadata:`` is
    rewritten there with its indentation; a new key is added just before the closing ``---``.
    A file without a (closed) block gets a new block in front of its text.
    """
    fm = parse_frontmatter(text)
    nl = _newline_of(text)
    if not (fm.present and fm.closed):
        bom = BOM if text.startswith(BOM) else ""
        rest = text[len(bom) :]
        return f"{bom}---{nl}{key}: {value}{nl}---{nl}{rest}"
    spans = _line_spans(text, fm)
    target = next((ln for ln in fm.lines if ln.key == key and not ln.nested), None)
    if target is None:
        target = next((ln for ln in fm.lines if ln.key == key and ln.nested), None)
    if target is not None:
        s, e = spans[target.number]
        indent = target.raw[: len(target.raw) - len(target.raw.lstrip())]
        # a list-valued key ('key:' then '  - item' lines) is rewritten as one line
        items = [ln.number for ln in fm.lines if ln.list_item_of == key]
        end = spans[items[-1]][1] if items and target.value == "" else e
        return text[:s] + f"{indent}{key}: {value}" + text[end:]
    closing = len(fm.lines) + 2
    s, _ = spans[closing]
    return text[:s] + f"{key}: {value}{nl}" + text[s:]


def clear_key(text: str, key: str) -> str:
    """Remove the line(s) holding ``key`` (flat and nested), leaving every other byte as it was."""
    fm = parse_frontmatter(text)
    if not (fm.present and fm.closed):
        return text
    numbers = {ln.number for ln in fm.lines if ln.key == key or ln.list_item_of == key}
    if not numbers:
        return text
    out: list[str] = []
    for number, (s, _e, nxt) in enumerate(_split_lines(text, 0), start=1):
        if number not in numbers:
            out.append(text[s:nxt])
    prefix = ""
    if text.startswith(BOM) and (1 in numbers):
        prefix = BOM
    return prefix + "".join(out)
