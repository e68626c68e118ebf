"""JSON text exactly as ``json.dumps(value, indent=2, ensure_ascii=False)`` writes it, faster.

With ``indent`` the standard library uses its pure-Python encoder (a generator per container,
about a million resumptions for a 10k-file ``stale --json``); this writer appends to one list and
encodes strings with the C ``encode_basestring``.  Anything it does not handle the way the
standard encoder does (non-string keys, unknown types, cycles) is handed to ``json.dumps`` whole,
so the bytes are always the standard ones.
"""

from __future__ import annotations

import json
from json.encoder import encode_basestring
from typing import Any

_INFINITY = float("inf")


class _Fallback(Exception):
    """A value this writer leaves to ``json.dumps``."""


def _float(value: float) -> str:
    if value != value:
        return "NaN"
    if value == _INFINITY:
        return "Infinity"
    if value == -_INFINITY:
        return "-Infinity"
    return float.__repr__(value)


def dumps_indented(value: Any) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``, byte for byte."""
    try:
        out: list[str] = []
        _write(value, out, "\n", 0)
        return "".join(out)
    except (_Fallback, RecursionError):
        return json.dumps(value, indent=2, ensure_ascii=False)


_MAX_DEPTH = 200  # deeper than any memtui output: leave it to the standard encoder


def _scalar(value: Any) -> str:
    if isinstance(value, str):
        return encode_basestring(value)
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, int):
        return int.__repr__(value)
    if isinstance(value, float):
        return _float(value)
    raise _Fallback


def _write(value: Any, out: list[str], newline: str, depth: int) -> None:
    kind = type(value)
    if kind is str:
        out.append(encode_basestring(value))
    elif kind is dict:
        if not value:
            out.append("{}")
            return
        if depth > _MAX_DEPTH:
            raise _Fallback
        inner = newline + "  "
        first = True
        for key, item in value.items():
            if type(key) is not str:
                raise _Fallback  # the standard encoder converts such keys; leave that to it
            out.append(("{" if first else ",") + inner + encode_basestring(key) + ": ")
            first = False
            kind = type(item)
            if kind is str:
                out.append(encode_basestring(item))
            elif kind is dict or kind is list or kind is tuple:
                _write(item, out, inner, depth + 1)
            else:
                out.append(_scalar(item))
        out.append(newline + "}")
    elif kind is list or kind is tuple:
        if not value:
            out.append("[]")
            return
        if depth > _MAX_DEPTH:
            raise _Fallback
        inner = newline + "  "
        first = True
        for item in value:
            out.append("[" + inner if first else "," + inner)
            first = False
            kind = type(item)
            if kind is str:
                out.append(encode_basestring(item))
            elif kind is dict or kind is list or kind is tuple:
                _write(item, out, inner, depth + 1)
            else:
                out.append(_scalar(item))
        out.append(newline + "]")
    else:
        out.append(_scalar(value))
