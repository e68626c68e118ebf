"""The ``$EDITOR`` round trip shared by the app and the CLI: edit a private copy, read it back.

The file in the root is never opened by the editor: the copy lives in a private temp folder
(``0o700``, the copy ``0o600``), and the edited bytes go back through the gate as an ``edit``
changeset (:func:`memtui.core.verbs.lifecycle.edit_file`).  The caller decides when the copy may go.
"""

from __future__ import annotations

import os
import shlex
import shutil
import signal
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

#: runs the editor's command line and returns its exit status
Launch = Callable[[list[str]], int]


class EditorFailed(Exception):
    """The editor could not be started at all (the copy is already removed)."""


@dataclass(frozen=True)
class EditedCopy:
    """A copy after the editor exited: where it is, the exit status and the bytes it holds."""

    copy: Path
    status: int
    original: bytes
    data: bytes

    @property
    def changed(self) -> bool:
        return self.status == 0 and self.data != self.original

    @property
    def kept(self) -> bool:
        """Whether the copy is still on disk (a failed editor's untouched copy is removed)."""
        return self.copy.parent.exists()

    @property
    def exit_text(self) -> str:
        """How the editor ended, in words: ``exited with status 2`` or ``killed by SIGTERM``."""
        return exit_text(self.status)

    def discard(self) -> None:
        """Remove the copy and its private folder."""
        shutil.rmtree(self.copy.parent, ignore_errors=True)


def exit_text(status: int) -> str:
    """A process's end in words; a negative status is the signal that killed it, by name."""
    if status >= 0:
        return f"exited with status {status}"
    try:
        return f"killed by {signal.Signals(-status).name}"
    except ValueError:
        return f"killed by signal {-status}"


def editor_name() -> str:
    """``$VISUAL``, else ``$EDITOR``, else ``vi``."""
    return os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"


def edit_copy(name: str, data: bytes, launch: Launch = subprocess.call) -> EditedCopy:
    """Write ``data`` to a private copy called ``name``, run the editor on it, read it back."""
    folder = Path(tempfile.mkdtemp(prefix="memtui-edit-"))
    copy = folder / name
    copy.write_bytes(data)
    os.chmod(copy, 0o600)
    editor = editor_name()
    try:
        words = shlex.split(editor)
    except ValueError as exc:  # an unbalanced quote in $EDITOR
        shutil.rmtree(folder, ignore_errors=True)
        raise EditorFailed(f"cannot run the editor '{editor}': {exc}") from None
    if not words:
        words = ["vi"]
    try:
        status = launch([*words, str(copy)])
    except OSError as exc:
        shutil.rmtree(folder, ignore_errors=True)
        raise EditorFailed(f"cannot run the editor '{editor}': {exc.strerror or exc}") from None
    try:
        edited = copy.read_bytes()
    except OSError:  # the editor removed or replaced the copy with something unreadable
        edited = b""
    if status != 0 and edited == data:
        # a failed or killed editor that left the copy as it was: nothing typed is in it, so
        # its folder goes now, with whatever the editor left beside it (a swap file)
        shutil.rmtree(folder, ignore_errors=True)
    return EditedCopy(copy, status, data, edited)
