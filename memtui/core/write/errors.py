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
           "UnsafeFolder", "WriteFailed"]
