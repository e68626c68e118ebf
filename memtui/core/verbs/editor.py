"""The ``$EDITOR`` round trip shared by the app and the CLI: edit a private copy, read it back.

The file in the root is never opened by the editor: the copy lives in a private temp folder
(``0o700``, the copy ``0o600``), and the edited bytes go back through the gate as an ``edit``
changeset (:func:`memtui.core.verbs.lifecycle.edit_file`).  The caller decides when the copy may go.

Beside the copy a note (:data:`NOTE_NAME`) says which memtui made it, for which file, and what the
file held: a memtui killed while its editor ran cannot remove or report its copy, so the next one
does (:func:`left_behind`) — a copy nobody typed into goes, one that holds typing is named.
"""

from __future__ import annotations

import hashlib
import json
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


#: the private folders' prefix, and the note beside each copy
FOLDER_PREFIX = "memtui-edit-"
NOTE_NAME = ".memtui-edit.json"


def edit_copy(name: str, data: bytes, launch: Launch = subprocess.call, *,
              origin: str = "") -> EditedCopy:
    """Write ``data`` to a private copy called ``name``, run the editor on it, read it back;
    ``origin``: the file it is a copy of, for the note beside it."""
    folder = Path(tempfile.mkdtemp(prefix=FOLDER_PREFIX))
    copy = folder / name
    copy.write_bytes(data)
    os.chmod(copy, 0o600)
    note = {"pid": os.getpid(), "copy": name, "origin": origin, "sha256": hashlib.sha256(data).hexdigest()}
    (folder / NOTE_NAME).write_text(json.dumps(note))
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


@dataclass(frozen=True)
class LeftBehind:
    """An edited copy a memtui left when it ended while its editor ran (or after a refused edit):
    the copy, and the file it was made from."""

    copy: Path
    origin: str


def left_behind(temp: str | None = None, alive: Callable[[int], bool] | None = None) -> list[LeftBehind]:
    """The copies of memtuis no longer running (``alive``: whether a process id runs) in the temp
    folder: each one that still holds what its file held is removed with its folder (nothing was
    typed into it); the others are returned, oldest first, and kept (they hold typing that never
    reached the folder).  A folder without a readable note, or another user's, is left alone."""
    alive = alive or _running
    base = Path(temp or tempfile.gettempdir())
    found: list[tuple[float, LeftBehind]] = []
    try:
        folders = [p for p in base.iterdir() if p.name.startswith(FOLDER_PREFIX)]
    except OSError:
        return []
    for folder in folders:
        try:
            if folder.stat().st_uid != os.getuid():
                continue
            note = json.loads((folder / NOTE_NAME).read_text())
            pid, name = int(note["pid"]), str(note["copy"])
            if pid == os.getpid() or alive(pid) or "/" in name or name in ("", ".", ".."):
                continue
            copy = folder / name
            held = copy.read_bytes() if copy.is_file() else None
            when = copy.stat().st_mtime if held is not None else 0.0
        except (OSError, ValueError, KeyError, TypeError):
            continue
        if held is not None and hashlib.sha256(held).hexdigest() == note.get("sha256"):
            shutil.rmtree(folder, ignore_errors=True)
        elif held is not None:
            found.append((when, LeftBehind(copy, str(note.get("origin") or ""))))
    return [leftover for _, leftover in sorted(found, key=lambda item: item[0])]


def _running(pid: int) -> bool:
    """Whether a process of this id runs (one of another user's counts as running)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
