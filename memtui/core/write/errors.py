"""The errors every step of a change can raise: a change that was not made, and why, in words."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .preview import Preview

class TxnError(Exception):
    """A change that was not made; the message says why, in words for the user."""


class Refused(TxnError):
    """The gate refused the change (it would add an error or worsen a budget overflow)."""

    def __init__(self, preview: Preview) -> None:
        self.preview = preview
        super().__init__(preview.refusal_message())


class Busy(TxnError):
    """Another memtui holds the root's lock."""


class ChangedOnDisk(TxnError):
    """A file the change touches is no longer what the snapshot read."""

    def __init__(self, message: str, paths: tuple[str, ...] = ()) -> None:
        self.paths = paths
        super().__init__(message)


class WrittenMeanwhile(ChangedOnDisk):
    """Another program wrote a file between memtui's last look at it and the rename that
    replaced it: ``data`` is what the replaced file held after the rename (the other program's
    bytes), ``times`` its access and modification times (ns).  The change is rolled back with
    those bytes as the file's before-image."""

    def __init__(self, path: str, data: bytes, times: tuple[int, int], expected: bytes = b"") -> None:
        super().__init__(f"changed on disk — '{path}' was written by another program while memtui "
                         "was replacing it; its bytes are kept and nothing was changed — reload "
                         "and try again", (path,))
        self.path = path
        self.data = data
        self.times = times
        self.expected = expected  # what memtui had read there (the file the other program wrote to)


class WriteFailed(TxnError):
    """The disk refused (read-only, full, permission denied); the folder is left as it was."""


class ReadOnlyFile(TxnError):
    """A file the change would rewrite has no write permission; memtui never rewrites it."""

    def __init__(self, message: str, paths: tuple[str, ...] = ()) -> None:
        self.paths = paths
        super().__init__(message)


class UnsafeFolder(TxnError):
    """The folder holds something memtui will not write through (a symlinked ``.memtui/``…)."""


class NothingToUndo(TxnError):
    """There is no committed change to undo (or to redo)."""


__all__ = ["Busy", "ChangedOnDisk", "NothingToUndo", "ReadOnlyFile", "Refused", "TxnError",
           "UnsafeFolder", "WriteFailed", "WrittenMeanwhile"]
