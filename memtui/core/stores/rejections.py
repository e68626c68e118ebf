"""The pairs a person rejected as duplicates or contradictions: ``<root>/.memtui/rejected.json``,
memtui's own bookkeeping (never a memory file), read safely and replaced under the root's lock."""

from __future__ import annotations

import json
from pathlib import Path

from .. import write
from ..model.safepath import check_stored_path, read_private_file
from ..model.snapshot import pair_key

REJECTED_FILE = ".memtui/rejected.json"


def parse_rejected(data: bytes) -> frozenset[tuple[str, str]]:
    """The pairs in a ``rejected.json`` text; a ValueError when it is not that file's shape."""
    value = json.loads(data.decode("utf-8"))
    if not isinstance(value, dict) or not isinstance(value.get("pairs"), list):
        raise ValueError("expected an object with a 'pairs' list")
    out = set()
    for item in value["pairs"]:
        if not (isinstance(item, list) and len(item) == 2 and all(isinstance(x, str) for x in item)):
            raise ValueError(f"not a pair of file names: {item!r}")
        for name in item:
            check_stored_path(name)  # an UnsafePath is a ValueError
        out.add(pair_key(item[0], item[1]))
    return frozenset(out)


def read_rejected(root: Path | str) -> frozenset[tuple[str, str]]:
    """The pairs a person rejected for this root (none when the file is absent or unreadable)."""
    try:
        return parse_rejected(read_private_file(root, REJECTED_FILE))
    except (OSError, ValueError, UnicodeDecodeError):  # UnsafePath is a ValueError
        return frozenset()


def remember_rejected(root: Path | str, a: str, b: str) -> None:
    """Record that a person rejected the pair (a, b), so it is not proposed again.

    Its one write: ``<root>/.memtui/rejected.json``, replaced atomically under
    the root's lock by :func:`memtui.core.write.write_side_file` (never through a symlink).  It
    never touches a memory file.  An existing file that cannot be read as a rejected list (or
    names a path that is not a plain path inside the root) raises ValueError rather than being
    overwritten.
    """
    try:
        _remember_rejected(root, a, b)
    except write.TxnError as exc:  # busy, or a symlinked .memtui/: the callers' one error for "not kept"
        raise ValueError(str(exc)) from None


def forget_rejected(root: Path | str, a: str, b: str) -> None:
    """Take back a rejection: the pair (a, b) may be proposed again (same write as remembering)."""
    try:
        _remember_rejected(root, a, b, forget=True)
    except write.TxnError as exc:
        raise ValueError(str(exc)) from None


def _remember_rejected(root: Path | str, a: str, b: str, forget: bool = False) -> None:
    with write.side_files(root):
        try:
            pairs = set(parse_rejected(read_private_file(root, REJECTED_FILE)))
        except FileNotFoundError:
            pairs = set()
        except (ValueError, UnicodeDecodeError) as exc:
            raise ValueError(f"{REJECTED_FILE}: not a rejected-pairs file ({exc}); move it aside "
                             "first") from None
        key = pair_key(check_stored_path(a), check_stored_path(b))
        if forget:
            pairs.discard(key)
        else:
            pairs.add(key)
        data = json.dumps({"version": 1, "pairs": [list(p) for p in sorted(pairs)]}, indent=2) + "\n"
        write.write_side_file(root, REJECTED_FILE, data.encode("utf-8"))
