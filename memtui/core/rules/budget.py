"""The loader's budget: where it cuts ``MEMORY.md`` and what falls past (pure; the pressure log
the budget is sampled into is :mod:`memtui.core.stores.pressure`).

The loader profile (DESIGN §1.7) decides what is measured.  ``raw`` measures the file as it
is: its lines and bytes.  ``claude-code`` is Claude Code's own loader, as the real builds do it
(CLAUDE-CODE.md "what loads", checked against v2.1.332's code and runs):

1. the frontmatter goes: ``^---\\s*\\n([\\s\\S]*?)---\\s*\\n?`` on the whole text (it closes at
   the first ``---`` after the opening line);
2. block-level HTML comments go: a top-level HTML block of the comment kind (a line starting,
   after at most three spaces, with ``<!--``, through the rest of the line holding ``-->`` and
   the empty lines after it; never inside a code fence or a list item) is replaced by what is
   left of it once every ``<!-- … -->`` is taken out, or dropped when that is blank; so a line
   ``<!-- c --> visible text`` keeps `` visible text`` and counts, and an unclosed comment stays;
3. the rest is trimmed (JavaScript ``trim``: leading and trailing blank lines do not count);
4. then the first ``max_lines`` (200) lines or ``max_bytes`` (25,000) *characters* load —
   a JavaScript string length, UTF-16 code units, the file's own line endings counted (a CRLF
   is two characters, unless a comment block was stripped: see :func:`counted_text`).  Past the character cap
   the text is cut at the last line break at or before it, so the line that crosses the cap
   does not load; only a first line longer than the cap is cut mid-line.

Under ``claude-code`` a :class:`Budget`'s ``bytes``/``max_bytes`` are those characters
(``unit``); ``file_bytes`` and ``loaded_bytes`` stay UTF-8 bytes.  Line numbers are the file's
(``cut_line``), and ``numbering`` maps the loader's own numbering (after stripping, as Claude
Code's warning counts) back to them.
"""

from __future__ import annotations

import json
import os
import re
import weakref
from bisect import bisect_right
from dataclasses import dataclass
from itertools import accumulate, compress, repeat
from operator import add, attrgetter, contains, lt
from pathlib import Path
from typing import Sequence

from ..model.snapshot import (
    AGENT_LOADER,
    CLAUDE_CODE_LOADER,
    CLAUDE_LOADERS,
    LOADERS,
    RAW_LOADER,
    BudgetConfig,
    Index,
    IndexLine,
    LineKind,
    Snapshot,
    encode_text,
)

PRESSURE_THRESHOLD = 0.90  # the utilisation a pressure sample is taken at (memtui.core.stores.pressure)
FILL_TARGET = 0.80


@dataclass(frozen=True)
class Budget:
    """How much of its budget an index uses, and where the loader cuts it.

    ``bytes``/``max_bytes`` count in the profile's ``unit``: characters (UTF-16 code units)
    under ``claude-code``, bytes under ``raw``.
    """

    lines: int
    max_lines: int
    bytes: int
    max_bytes: int
    cut_line: int | None  # first file line not (wholly) loaded (1-based), None when all loads
    loaded_bytes: int  # UTF-8 bytes of what the loader takes
    loader: str = RAW_LOADER  # the profile measured
    stripped: tuple[int, ...] = ()  # file line numbers the profile does not count
    file_lines: int = 0  # the file as it is on disk
    file_bytes: int = 0
    numbering: tuple[int, ...] = ()  # claude-code: the file line of each counted line, in order
    cut_chars: int | None = None  # a first line cut mid-line: how many of its characters load
    cut_text: str = ""  # the first line not loaded, trimmed (as Claude Code quotes it)

    @property
    def unit(self) -> str:
        """``characters`` under claude-code, ``bytes`` under raw."""
        return "characters" if self.loader in CLAUDE_LOADERS else "bytes"

    @property
    def utilization(self) -> float:
        if self.max_lines <= 0 or self.max_bytes <= 0:
            return 0.0
        return max(self.lines / self.max_lines, self.bytes / self.max_bytes)

    @property
    def tokens(self) -> int:
        """Estimated tokens the loaded part costs every session (bytes / 4)."""
        return self.loaded_bytes // 4

    @property
    def over_lines(self) -> bool:
        return self.lines > self.max_lines

    @property
    def over_bytes(self) -> bool:
        return self.bytes > self.max_bytes

    @property
    def loaded_count(self) -> int:
        """Lines that load whole (Claude Code's "C"; 0 when the first line is cut mid-line)."""
        if self.cut_line is None:
            return self.lines
        if self.cut_chars is not None:
            return 0
        return self.loader_number(self.cut_line) - 1 if self.numbering else self.cut_line - 1

    def loader_number(self, file_line: int) -> int:
        """A file line's number in the loader's own count (after stripping); the file's under
        raw.  A line the profile does not count gets the number of the next counted line."""
        if not self.numbering:
            return file_line
        return bisect_right(self.numbering, file_line - 1) + 1

    def warning(self) -> str | None:
        """The warning Claude Code adds to a truncated load (v2.1.268), in its own words, or
        None when everything loads (claude-code only)."""
        if self.cut_line is None or self.loader not in CLAUDE_LOADERS:
            return None
        lines_over, chars_over = self.over_lines, self.over_bytes
        loaded = self.loaded_count
        if loaded == 0:
            part = f"everything after the first {self.cut_chars} characters of line 1 was cut off"
        else:
            quoted = f' ("{_quote_cut(self.cut_text, 80)}")' if self.cut_text else ""
            part = (f"{self.lines - loaded} of {self.lines} lines were cut off, starting at line "
                    f"{loaded + 1}{quoted}")
        if chars_over and not lines_over:
            size = f"{js_size(self.bytes)} (limit: {js_size(self.max_bytes)}) \u2014 index entries are too long"
        elif lines_over and not chars_over:
            size = f"{self.lines} lines (limit: {self.max_lines})"
        else:
            size = f"{self.lines} lines and {js_size(self.bytes)}"
        return (f"MEMORY.md is {size}. Only part of it was loaded: {part}. Keep index entries to "
                "one line under ~200 chars; move detail into topic files.")

    def cut_where(self) -> str:
        """Where the cut is, in the file's numbering and, when it differs, in Claude Code's."""
        if self.cut_line is None:
            return ""
        where = f"line {self.cut_line}"
        if self.cut_chars is not None:
            return f"{where}, after its first {self.cut_chars:,} characters"
        if self.numbering and self.loaded_count + 1 != self.cut_line:
            where += f" (line {self.loaded_count + 1} as Claude Code counts, after stripping)"
        return where

    def to_json(self) -> dict[str, object]:
        out: dict[str, object] = {
            "lines": self.lines,
            "max_lines": self.max_lines,
            "bytes": self.bytes,
            "max_bytes": self.max_bytes,
            "unit": self.unit,
            "utilization": round(self.utilization, 4),
            "tokens": self.tokens,
            "cut_line": self.cut_line,
            "loader": self.loader,
            "stripped_lines": len(self.stripped),
            "file_lines": self.file_lines,
            "file_bytes": self.file_bytes,
        }
        if self.loader in CLAUDE_LOADERS:
            out["loader_cut_line"] = (None if self.cut_line is None else self.loaded_count + 1)
            out["cut_chars"] = self.cut_chars
        return out


def js_size(n: int) -> str:
    """Claude Code's size words: ``512 bytes``, ``24.4KB`` (JavaScript ``toFixed(1)``, ".0" dropped)."""
    kb = n / 1024
    if kb < 1:
        return f"{n} bytes"
    from decimal import ROUND_HALF_UP, Decimal  # deferred: only a size over 1 KB is said so

    for unit in ("KB", "MB", "GB"):
        if kb < 1024 or unit == "GB":
            text = str(Decimal(kb).quantize(Decimal("0.1"), rounding=ROUND_HALF_UP))
            return (text[:-2] if text.endswith(".0") else text) + unit
        kb /= 1024
    raise AssertionError  # pragma: no cover


def _quote_cut(text: str, limit: int) -> str:
    """Claude Code's quote of the first line cut off: at most ``limit`` characters, at a word."""
    if utf16_len(text) <= limit:
        return text
    head = _utf16_prefix(text, limit - 1)
    space = re.search(r"\s\S*$", head)
    before = "" if space is None else _js_trim_end(head[: space.start()])
    return (before if utf16_len(before) > limit / 2 else _js_trim_end(head)) + "\u2026"


# ---------------------------------------------------------------- JavaScript string measures

#: what JavaScript's String.prototype.trim removes (WhiteSpace and LineTerminator)
JS_SPACE = "\t\n\v\f\r \u00a0\u1680\u2000\u2001\u2002\u2003\u2004\u2005\u2006\u2007\u2008" \
           "\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"


def utf16_len(text: str) -> int:
    """A JavaScript string's ``length``: UTF-16 code units."""
    if text.isascii():
        return len(text)
    # two bytes a code unit (a lone surrogate, as a file's undecodable byte is held, is one)
    return len(text.encode("utf-16-le", "surrogatepass")) // 2


def _utf16_prefix(text: str, units: int) -> str:
    """The longest prefix of ``text`` at most ``units`` UTF-16 code units long."""
    head = text[:units]
    if utf16_len(head) == len(head):  # no character of two units in it: one more would not fit
        return head
    used = 0
    for k, ch in enumerate(text):
        used += 2 if ord(ch) > 0xFFFF else 1
        if used > units:
            return text[:k]
    return text


def text_size(text: str, loader: str) -> int:
    """A text's size in a profile's unit: characters (UTF-16) under claude-code, else bytes."""
    return utf16_len(text) if loader in CLAUDE_LOADERS else len(encode_text(text))


def _js_trim_end(text: str) -> str:
    return text.rstrip(JS_SPACE)


# ---------------------------------------------------------------- raw


def line_sizes(index: Index) -> list[int]:
    """Byte size of each line including its ending (the BOM counts toward line 1)."""
    return sizes_of([line.raw for line in index.lines], [line.ending for line in index.lines],
                    index.bom)


def sizes_of(raws: Sequence[str], endings: Sequence[str], bom: bool) -> list[int]:
    """:func:`line_sizes` of the lines of these texts and endings."""
    sizes = [len(raw) + len(ending) if raw.isascii() else len(encode_text(raw + ending))
             for raw, ending in zip(raws, endings)]
    if bom and sizes:
        sizes[0] += 3
    return sizes


# ---------------------------------------------------------------- claude-code: what it keeps

_FRONTMATTER = re.compile(r"---\s*\n([\s\S]*?)---\s*\n?")
_FENCE = re.compile(r" {0,3}(`{3,}|~{3,})")
_COMMENT_OPEN = re.compile(r" {0,3}<!--")
_COMMENT = re.compile(r"<!--[\s\S]*?-->")
_VISIBLE = re.compile(r"[^ \t\n]")
_LIST_ITEM = re.compile(r" {0,3}(?:[-+*]|\d{1,9}[.)])(?: +|$)")


def _frontmatter_end(text: str) -> int:
    """Where the content starts after Claude Code's frontmatter (0: none)."""
    if not text.startswith("---") or text.find("---", 3) < 0:
        return 0
    found = _FRONTMATTER.match(text)
    return found.end() if found is not None else 0


def kept_spans(raws: Sequence[str]) -> tuple[str, list[tuple[int, int]], bool]:
    """The index's text (line endings as LF), the spans of it Claude Code keeps once the
    frontmatter and block-level comments are gone (before trimming), as (start, end) offsets,
    and whether a comment block went (only then does Claude Code's text have LF endings)."""
    text = "\n".join(raws)
    begin = _frontmatter_end(text) if text.startswith("---") else 0
    if "<!--" not in text[begin:]:
        return text, [(begin, len(text))] if begin < len(text) else [], False
    starts = [0]
    for raw in raws[:-1]:
        starts.append(starts[-1] + len(raw) + 1)
    spans: list[tuple[int, int]] = []
    stripped_any = False
    keep_from = begin
    first = bisect_right(starts, begin) - 1
    if first >= 0 and starts[first] != begin:
        first += 1  # the frontmatter ended inside a line: blocks start on the next one
    fence = ""
    list_indent = -1
    k = max(first, 0)
    n = len(raws)
    while k < n:
        raw = raws[k]
        if fence:
            close = _FENCE.match(raw)
            if close and close.group(1)[0] == fence[0] and len(close.group(1)) >= len(fence) \
                    and not raw[close.end():].strip():
                fence = ""
            k += 1
            continue
        stripped = raw.lstrip(" ")
        indent = len(raw) - len(stripped)
        if not stripped:
            k += 1
            continue
        if list_indent >= 0:
            if indent >= list_indent:
                k += 1
                continue  # inside a list item: its comments are the item's
            list_indent = -1
        opened = _FENCE.match(raw)
        if opened:
            fence = opened.group(1)
            k += 1
            continue
        item = _LIST_ITEM.match(raw)
        if item:
            list_indent = max(item.end(), indent + 2)
            k += 1
            continue
        if not _COMMENT_OPEN.match(raw):
            k += 1
            continue
        # an HTML block of the comment kind: through the line holding its end, and the empty
        # lines after it
        at = starts[k] + raw.index("<!--") + 4
        if text.startswith(">", at):
            close_at = at + 1
        elif text.startswith("->", at):
            close_at = at + 2
        else:
            found = text.find("-->", at)
            if found < 0:
                break  # unclosed: the block runs to the end and, holding no "-->", stays
            close_at = found + 3
        last = bisect_right(starts, close_at - 1) - 1
        end_line = last + 1
        while end_line < n and raws[end_line] == "":
            end_line += 1
        block_start = starts[k]
        block_end = starts[end_line] if end_line < n else len(text)
        block = text[block_start:block_end]
        if "-->" not in block:
            k = end_line
            continue
        if keep_from < block_start:
            spans.append((keep_from, block_start))
        pos = block_start
        residue: list[tuple[int, int]] = []
        for match in _COMMENT.finditer(block):
            residue.append((pos, block_start + match.start()))
            pos = block_start + match.end()
        residue.append((pos, block_end))
        residue = [(a, b) for a, b in residue if b > a]
        if any(text[a:b].strip(JS_SPACE) for a, b in residue):
            spans += residue
        keep_from = block_end
        stripped_any = True
        k = end_line
    if keep_from < len(text):
        spans.append((keep_from, len(text)))
    return text, spans, stripped_any


def stripped_lines(raws: Sequence[str], loader: str) -> frozenset[int]:
    """0-based indexes of the lines a loader profile does not count (none for raw): the
    frontmatter, block-level comments and the blank lines trimmed at either end."""
    if loader == RAW_LOADER:
        return frozenset()
    counted = counted_text(raws, None, loader)[2]
    return frozenset(range(len(raws))) - {number - 1 for number in counted}


#: what the claude-code profiles count of an index: the text, each line's offset in it, each line's number
Counted = tuple[str, list[int], tuple[int, ...]]


def counted_text(raws: Sequence[str], endings: Sequence[str] | None = None,
                 loader: str = CLAUDE_CODE_LOADER) -> Counted:
    """The text Claude Code counts (stripped and trimmed), the offset in it of each of its
    lines, and the file line number of each.

    Claude Code counts the file's own line endings: a CRLF is two characters and a lone CR no
    line break, unless a comment block was stripped (its stripper turns every CRLF and CR into
    LF first) — v2.1.332, run against CRLF indexes with and without a comment.
    """
    if loader == AGENT_LOADER:  # a subagent's index: nothing stripped, only trimmed
        return _counted_as_written(raws, endings if endings is not None else ["\n"] * len(raws),
                                   frontmatter=False)
    text, spans, normalized = kept_spans(raws)
    if endings is not None and not normalized and "\r" in "".join(endings):
        return _counted_as_written(raws, endings)
    if len(spans) == 1:
        a, b = spans[0]
        body = text[a:b]
        origin = [(0, a)]
    else:
        parts, origin, at = [], [], 0
        for a, b in spans:
            origin.append((at, a))
            parts.append(text[a:b])
            at += b - a
        body = "".join(parts)
    lead = len(body) - len(body.lstrip(JS_SPACE))
    body = body.strip(JS_SPACE)
    if not body:
        return "", [], ()
    starts = _line_starts(body)
    if len(origin) == 1:
        # one kept span: its line breaks are the text's, so its lines are the file's lines from
        # the one it starts in, one after another
        first = text.count("\n", 0, origin[0][1] + lead) + 1
        return body, starts, tuple(range(first, first + len(starts)))
    return body, starts, _numbers(raws, body, starts, origin, lead)


def _numbers(raws: Sequence[str], body: str, starts: list[int], origin: list[tuple[int, int]],
             lead: int) -> tuple[int, ...]:
    """The file line number of each counted line: ``body`` is the kept pieces of the text
    joined (``origin``: where each piece starts in ``body`` and in the text), stripped of
    ``lead`` characters on the left."""
    line_starts = [0]
    for raw in raws[:-1]:
        line_starts.append(line_starts[-1] + len(raw) + 1)
    keys = [c for c, _ in origin]
    numbers = []
    several = len(origin) > 1  # a line may join pieces: name it by its first visible character
    for s in starts:
        c = s + lead
        if several:
            seen = _VISIBLE.search(body, s)
            if seen is not None and body.find("\n", s, seen.start()) < 0:
                c = seen.start() + lead
        j = bisect_right(keys, c) - 1
        offset = origin[j][1] + c - origin[j][0]
        numbers.append(bisect_right(line_starts, offset))
    return tuple(numbers)


def _line_starts(body: str) -> list[int]:
    """The offset of each line of ``body`` (after each line feed)."""
    return list(accumulate(map(add, map(len, body.split("\n")[:-1]), repeat(1)), initial=0))


def _counted_as_written(raws: Sequence[str], endings: Sequence[str], frontmatter: bool = True
                        ) -> tuple[str, list[int], tuple[int, ...]]:
    """:func:`counted_text` on the text with its own line endings (no comment block stripped; the
    frontmatter too kept unless ``frontmatter``)."""
    text = "".join(raw + ending for raw, ending in zip(raws, endings))
    begin = _frontmatter_end(text) if frontmatter else 0
    rest = text[begin:]
    lead = len(rest) - len(rest.lstrip(JS_SPACE))
    body = rest.strip(JS_SPACE)
    if not body:
        return "", [], ()
    line_starts = [0]
    for raw, ending in zip(raws[:-1], endings[:-1]):
        line_starts.append(line_starts[-1] + len(raw) + len(ending))
    starts = _line_starts(body)
    numbers = tuple(bisect_right(line_starts, begin + lead + s) for s in starts)
    return body, starts, numbers


_LAST_MEASURED: list[tuple[weakref.ref[Index], BudgetConfig, Budget]] = []
#: how many indexes' answers are kept (by a weak reference: no index is kept alive for it); a
#: gated step measures the index before and after it, and the reach of each state again
MEASURED_KEPT = 4


def measure(index: Index, config: BudgetConfig) -> Budget:
    """Lines, bytes and the loader's cut for an index under the given caps and profile (the
    last few answers are kept, by index: a validation, and each step of a plan, measures the
    same indexes several times)."""
    kept = _LAST_MEASURED[:]  # one copy: the app's workers measure too
    for kept_index, kept_config, budget in kept:
        if kept_index() is index and kept_config == config:
            return budget
    budget = _measure(index, config)
    _LAST_MEASURED[:] = [(weakref.ref(index), config, budget)] + kept[:MEASURED_KEPT - 1]
    return budget


def remember(index: Index, config: BudgetConfig, budget: Budget) -> None:
    """Take ``budget`` as what :func:`measure` gives for ``index`` under ``config`` (a kept
    answer's, measured when it was kept: the index's lines need not be built for it)."""
    kept = [entry for entry in _LAST_MEASURED if entry[0]() is not index or entry[1] != config]
    _LAST_MEASURED[:] = [(weakref.ref(index), config, budget)] + kept[:MEASURED_KEPT - 1]


def _measure(index: Index, config: BudgetConfig) -> Budget:
    if not index.exists:
        return Budget(0, config.max_lines, 0, config.max_bytes, None, 0, config.loader)
    if config.loader in CLAUDE_LOADERS:
        return _measure_claude(index, config)
    return raw_budget(line_sizes(index), index.bom, config)


def raw_budget(sizes: Sequence[int], bom: bool, config: BudgetConfig) -> Budget:
    """The raw profile's cut of an index whose lines are ``sizes`` bytes (:func:`line_sizes`)."""
    file_bytes = sum(sizes) + (3 if bom and not sizes else 0)
    cut: int | None = None
    count = loaded = 0
    for number, size in enumerate(sizes, 1):
        if count + 1 > config.max_lines or loaded + size > config.max_bytes:
            cut = number
            break
        count += 1
        loaded += size
    return Budget(len(sizes), config.max_lines, file_bytes, config.max_bytes, cut, loaded,
                  config.loader, (), len(sizes), file_bytes)


_ENDING = attrgetter("ending")


def _measure_claude(index: Index, config: BudgetConfig) -> Budget:
    """Claude Code's cut (the module's docstring), as v2.1.332 computes it."""
    lines = index.lines
    raws = index.raw_text().split("\n") if lines else []  # no line holds a line feed
    file_bytes = len(index.render())  # every line's bytes with its ending, and the BOM
    return claude_budget(len(raws), file_bytes, config,
                         counted_text(raws, list(map(_ENDING, lines)), config.loader))



def claude_budget(file_lines: int, file_bytes: int, config: BudgetConfig, counted: Counted) -> Budget:
    """Claude Code's cut of a file of ``file_lines`` lines and ``file_bytes`` bytes, from what
    :func:`counted_text` says it counts."""
    body, starts, numbering = counted
    count = len(starts)
    size = utf16_len(body)
    if numbering and numbering[-1] - numbering[0] + 1 == len(numbering) \
            and all(map(lt, numbering, numbering[1:])):  # one run of lines
        stripped = (*range(1, numbering[0]), *range(numbering[-1] + 1, file_lines + 1))
    else:
        stripped = tuple(sorted(set(range(1, file_lines + 1)) - set(numbering)))
    if count <= config.max_lines and size <= config.max_bytes:
        return Budget(count, config.max_lines, size, config.max_bytes, None,
                      len(encode_text(body)), config.loader, stripped, file_lines, file_bytes,
                      numbering)
    end = starts[config.max_lines] - 1 if count > config.max_lines else len(body)
    cut_chars: int | None = None
    if utf16_len(body[:end]) > config.max_bytes:
        cap = len(_utf16_prefix(body, config.max_bytes))
        newline = body.rfind("\n", 0, cap + 1)
        if newline > 0:
            end = newline
        else:
            end = cap
            cut_chars = utf16_len(body[:cap])
    if cut_chars is not None:
        cut_line, cut_text = numbering[0], ""
    else:
        loaded = body.count("\n", 0, end) + 1
        cut_line = numbering[loaded]
        after = body.find("\n", end + 1)
        cut_text = body[end + 1: after if after >= 0 else len(body)].strip(JS_SPACE)
    return Budget(count, config.max_lines, size, config.max_bytes, cut_line,
                  len(encode_text(body[:end])), config.loader, stripped, file_lines, file_bytes,
                  numbering, cut_chars, cut_text)


def loaded_lines(index: Index, budget: Budget) -> tuple[IndexLine, ...]:
    """The index lines the loader takes, in order (stripped lines and the cut left out; a first
    line cut mid-line is taken: its start loads)."""
    stripped = set(budget.stripped)
    end = budget.cut_line if budget.cut_line is not None else len(index.lines) + 1
    if budget.cut_chars is not None:
        end += 1
    return tuple(line for line in index.lines[: end - 1] if line.number not in stripped)


def loaded_index_text(index: Index, config: BudgetConfig) -> str:
    """Exactly the text the loader takes from ``MEMORY.md`` (claude-code: stripped, trimmed,
    cut, then neutralized — :func:`as_sent` — and trimmed again, as v2.1.332 sends it; Claude
    Code's warning is not part of it: :func:`sent_warning`)."""
    budget = measure(index, config)
    if budget.loader == RAW_LOADER:
        return index_loaded_text(index, budget).decode("utf-8", errors="replace")
    return sent_text(budget, counted_text([line.raw for line in index.lines],
                                      [line.ending for line in index.lines], budget.loader))


def sent_text(budget: Budget, counted: Counted) -> str:
    """:func:`loaded_index_text` of the index whose :func:`counted_text` is ``counted``."""
    body, starts, _numbering = counted
    if budget.cut_line is None:
        return as_sent(body).strip(JS_SPACE)
    if budget.cut_chars is not None:
        return as_sent(_utf16_prefix(body, budget.cut_chars)).lstrip(JS_SPACE)
    # a CR before the cut's line break joins the LF that starts Claude Code's warning; the
    # warning follows, so only the start is trimmed again
    return as_sent(body[: starts[budget.loaded_count] - 1].removesuffix("\r")).lstrip(JS_SPACE)


def sent_warning(budget: Budget) -> str | None:
    """Claude Code's warning as the agent reads it: neutralized with the text it follows (the
    quoted first line cut off is escaped and stripped too), or None when all loads."""
    warning = budget.warning()
    return as_sent(warning) if warning is not None else None


def as_sent(text: str) -> str:
    """Text as Claude Code sends it (its ``BQ``, :func:`memtui.core.rules.neutralize.neutralize`):
    CRLF, CR, U+2028 and U+2029 made LF, invisible characters (Unicode 17.0) taken out, tags
    imitating Claude Code's own markup escaped (``<command-name>`` → ``<\\command-name>``)."""
    if text.isascii() and "\r" not in text and "<" not in text and not _CONTROL_ASCII.search(text):
        return text
    from .neutralize import neutralize  # its tables load only for a text that needs them

    return neutralize(text)


_CONTROL_ASCII = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]")


def configured_loader(env: dict[str, str] | None = None) -> str:
    """The default loader profile: ``$MEMTUI_LOADER``, else ``loader`` in the user's
    ``$XDG_CONFIG_HOME/memtui/config.json`` (``~/.config``), else ``claude-code``.

    A value that is not a known profile raises ValueError naming where it came from.
    """
    env = dict(os.environ) if env is None else env
    value = env.get("MEMTUI_LOADER", "").strip()
    where = "MEMTUI_LOADER"
    if not value:
        base = Path(env.get("XDG_CONFIG_HOME") or Path(env.get("HOME", "~")).expanduser() / ".config")
        path = base / "memtui" / "config.json"
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return CLAUDE_CODE_LOADER
        value = str(data.get("loader", "")).strip() if isinstance(data, dict) else ""
        where = str(path)
        if not value:
            return CLAUDE_CODE_LOADER
    if value not in LOADERS:
        raise ValueError(f"{where}: loader '{value}' is not one of {', '.join(LOADERS)}")
    return value


def budget_of(snapshot: Snapshot) -> Budget:
    return measure(snapshot.index, snapshot.config)


def lines_past_cut(index: Index, budget: Budget) -> tuple[IndexLine, ...]:
    """The file's lines from the first one the loader does not take (a first line cut mid-line
    loads its start, so it is not past)."""
    if budget.cut_line is None:
        return ()
    return index.lines[budget.cut_line - (0 if budget.cut_chars is not None else 1):]


_KIND = attrgetter("kind")


def entries_past_cut(index: Index, budget: Budget) -> tuple[IndexLine, ...]:
    """Entries and region pointers the loader never reads."""
    past = lines_past_cut(index, budget)
    return tuple(compress(past, map(contains, repeat((LineKind.ENTRY, LineKind.REGION)), map(_KIND, past))))


def loaded_text(snapshot: Snapshot) -> bytes:
    """Exactly the bytes the loader takes from ``MEMORY.md`` (after the profile's stripping)."""
    return index_loaded_text(snapshot.index, budget_of(snapshot))


def index_loaded_text(index: Index, budget: Budget) -> bytes:
    """What the loader takes, as bytes: under claude-code the exact text Claude Code loads
    (:func:`loaded_index_text`), under raw the lines before the cut (with the BOM)."""
    if budget.loader in CLAUDE_LOADERS:
        config = BudgetConfig(budget.max_lines, budget.max_bytes, budget.loader)
        return encode_text(loaded_index_text(index, config))
    return loaded_file_bytes(index, budget)


def loaded_file_bytes(index: Index, budget: Budget) -> bytes:
    """The file's own bytes of :func:`loaded_lines`, endings and BOM as written."""
    lines = loaded_lines(index, budget)
    data = encode_text("".join(line.raw + line.ending for line in lines))
    if index.bom and lines and lines[0].number == 1:
        data = b"\xef\xbb\xbf" + data
    return data
