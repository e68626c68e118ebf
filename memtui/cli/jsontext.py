"""JSON text exactly as ``json.dumps(value, indent=2, ensure_ascii=False)`` writes it, faster.

With ``indent`` the standard library uses its pure-Python encoder (a generator per container,
about a million resumptions for a 10k-file ``stale --json``); this writer walks only the
containers that hold non-empty containers and has the C encoder (with the separators the
indented layout needs) write every run of other items in one call.  Anything it does not handle
the way the standard encoder does (subclasses of containers, unknown types, non-string keys
before a nested value, deep nesting) is handed to ``json.dumps`` whole, so the bytes are always
the standard ones.

:class:`Raw` places text made elsewhere (a template of a record that is written thousands of
times) at its depth; :func:`scalar` encodes one scalar as the encoder does, for such templates.
"""

from __future__ import annotations

import json
from json.encoder import (  # type: ignore[attr-defined]  # the C encoder is not in the stubs
    c_make_encoder,
    encode_basestring,
)
from typing import Any, Callable


class Raw:
    """A value whose JSON text ``render(value, newline)`` gives, its later lines starting with
    ``newline`` (a newline and the indentation of the line it starts on), as the indented
    encoder would write it; only :func:`dumps_indented` understands it."""

    __slots__ = ("render", "value")

    def __init__(self, render: Callable[[Any, str], str], value: Any) -> None:
        self.render = render
        self.value = value


def scalar(value: str | int | float | bool | None) -> str:
    """The JSON text of a string, number, boolean or None, as ``json.dumps`` writes it
    (``ensure_ascii=False``)."""
    kind = type(value)
    if isinstance(value, str) and kind is str:
        return encode_basestring(value)
    if kind is int or kind is float:
        return "".join(_flat("\n")([value], 0))[1:-1]  # float repr, NaN/Infinity as json does
    if value is None:
        return "null"
    if value is True:
        return "true"
    if value is False:
        return "false"
    raise TypeError(f"not a JSON scalar: {kind.__name__}")


class _Fallback(Exception):
    """A value this writer leaves to ``json.dumps``."""


def dumps_indented(value: Any) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)``, byte for byte."""
    if type(value) is Raw:
        return value.render(value.value, "\n")
    try:
        if not _nested(value):  # a scalar or an empty container
            return "".join(_flat("\n")([value], 0))[1:-1]
        out: list[str] = []
        _write(value, out, "\n", 0)
        return "".join(out)
    except (_Fallback, RecursionError):
        return json.dumps(value, indent=2, ensure_ascii=False)


_MAX_DEPTH = 200  # deeper than any memtui output: leave it to the standard encoder


def _refuse(value: Any) -> Any:
    raise _Fallback  # a type the standard encoder would hand to ``default`` (and refuse)


_ENCODERS: dict[str, Callable[[Any, int], list[str]]] = {}


def _flat(inner: str) -> Callable[[Any, int], list[str]]:
    """The C encoder for containers of scalars (and empty containers) whose items go on lines
    starting with ``inner``: what the indenting encoder writes for them."""
    found = _ENCODERS.get(inner)
    if found is None:
        found = _ENCODERS[inner] = c_make_encoder(
            None, _refuse, encode_basestring, None, ": ", "," + inner, False, False, True)
    return found


_SCALARS = frozenset({str, int, float, bool, type(None)})
_LISTS = (list, tuple)


def _nested(item: Any) -> bool:
    """Whether an item is a non-empty container (refused for subclasses of containers)."""
    kind = type(item)
    if kind is dict or kind is list or kind is tuple:
        return bool(item)
    if kind is Raw:
        return True
    if isinstance(item, (dict, list, tuple)):
        raise _Fallback  # a subclass: the standard encoder's own business
    return False


def _write_child(item: Any, out: list[str], inner: str, depth: int) -> None:
    """Append a nested value of a container written at ``depth`` (a :class:`Raw` as it renders
    itself), and the separator after it."""
    if type(item) is Raw:
        out.append(item.render(item.value, inner))
    else:
        _write(item, out, inner, depth + 1)
    out.append("," + inner)


def _write(value: Any, out: list[str], newline: str, depth: int) -> None:
    """Append the text of a non-empty dict, list or tuple, its first line starting at ``newline``.

    Runs of items holding no non-empty container are encoded in one call of the C encoder.
    """
    if depth > _MAX_DEPTH:
        raise _Fallback
    inner = newline + "  "
    flat = _flat(inner)
    scalars = _SCALARS
    if type(value) is dict:
        out.append("{" + inner)
        run: Any = {}
        for key, item in value.items():
            if type(item) in scalars or not _nested(item):
                run[key] = item
                continue
            if type(key) is not str:
                raise _Fallback
            if run:
                out.append("".join(flat(run, 0))[1:-1] + "," + inner)
                run = {}
            out.append(encode_basestring(key) + ": ")
            _write_child(item, out, inner, depth)
        close = "}"
    else:
        out.append("[" + inner)
        run = []
        for item in value:
            if type(item) in scalars or not _nested(item):
                run.append(item)
                continue
            if run:
                out.append("".join(flat(run, 0))[1:-1] + "," + inner)
                run = []
            _write_child(item, out, inner, depth)
        close = "]"
    if run:
        out.append("".join(flat(run, 0))[1:-1])
    else:
        out.pop()  # the separator after the last nested item
    out.append(newline + close)
