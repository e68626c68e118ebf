"""Text safe to put on a terminal: what the CLI prints and the widgets draw from a memory folder.

A leaf module (only ``re``), so the widgets and the CLI share it without importing each other.
"""

from __future__ import annotations

import re

#: characters a terminal may act on rather than show: C0 and C1 controls, DEL, and the
#: bidirectional overrides that make text read differently from what it is (zero cells wide)
_ACTING = "\x00-\x1f\x7f-\x9f\u200e\u200f\u202a-\u202e\u2066-\u2069"
#: a file name's bytes that are not UTF-8, as Python holds them (``surrogateescape``)
SURROGATES = "\ud800-\udfff"
_CONTROL = re.compile(f"[{_ACTING}{SURROGATES}]")
_ACTING_ONLY = re.compile(f"[{_ACTING}]")
_SURROGATE = re.compile(f"[{SURROGATES}]")
_NAMED = {"\x1b": "\\e", "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def escaped(match: re.Match[str]) -> str:
    """The escape a matched character is shown as (``\\e``, ``\\x07``, ``\\u202e``)."""
    ch = match.group()
    if 0xDC80 <= ord(ch) <= 0xDCFF:  # a byte of a name that is not UTF-8: shown as that byte
        return f"\\x{ord(ch) - 0xDC00:02x}"
    return _NAMED.get(ch) or (f"\\x{ord(ch):02x}" if ord(ch) < 0x100 else f"\\u{ord(ch):04x}")


def plain(text: str, lines: bool = False) -> str:
    """``text`` safe to put on a terminal: control characters written as escapes (ESC as ``\\e``).

    A memory folder may hold file names and text crafted to drive the terminal (retitle it,
    clear it, hide a line).  With ``lines`` the line breaks (``\\n``, ``\\r\\n``) and tabs of a
    multi-line text are kept.  Only ``--raw`` output skips this.
    """
    if lines:
        return "\n".join(
            "\t".join(_CONTROL.sub(escaped, cell) for cell in line.split("\t"))
            for line in text.replace("\r\n", "\n").split("\n"))
    return _CONTROL.sub(escaped, text)


def shown(text: str) -> str:
    """``text`` with what a terminal would act on dropped and a lone surrogate as U+FFFD: as wide
    as Rich measured it (zero cells for the one, one for the other), for a line already laid out."""
    if text.isprintable():
        return text
    return _SURROGATE.sub("\ufffd", _ACTING_ONLY.sub("", text))
