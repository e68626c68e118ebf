"""The read-only looks at memory roots — ``memtui validate``, ``memtui loaded`` and ``memtui
list`` — registered together (one module each: :mod:`.validate`, :mod:`.loaded`, :mod:`.listing`)."""

from __future__ import annotations

from . import listing, loaded, validate
from .common import Subparsers
from .validate import NO_RECORD_ENV

__all__ = ["NO_RECORD_ENV", "register"]


def register(subparsers: Subparsers) -> None:
    """The three commands, in the order ``memtui --help`` lists them."""
    validate.register(subparsers)
    loaded.register(subparsers)
    listing.register(subparsers)
