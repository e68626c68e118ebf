"""Helpers shared by the writer's tests: a small valid root, tree snapshots, fault injection."""

from __future__ import annotations

import os
import stat
from pathlib import Path
from typing import Any, Callable

from memtui.core.write.fs import disk
from tests.support.roots import topic


def writable_copy(source: Path, dest: Path) -> Path:
    """Copy a corpus folder (read-only where it is shared) and make the copy writable by its owner."""
    import shutil
    import stat

    shutil.copytree(source, dest)
    for path in [dest, *dest.rglob("*")]:
        if not path.is_symlink():
            path.chmod(path.stat().st_mode | stat.S_IWUSR)
    return dest


FS_CALLS = ("write_tmp", "replace", "link", "mkdir", "fsync_dir", "unlink", "rmdir")

#: a root with no error findings: Pinned, Recent and Regions blocks, prose, a region family
VALID_ROOT: dict[str, str | bytes] = {
    "MEMORY.md": (
        "# Memory\n"
        "\n"
        "Facts this project keeps.\n"
        "\n"
        "## Pinned\n"
        "- [Deploy rule](deploy.md) — never deploy on Fridays\n"
        "\n"
        "## Recent\n"
        "- [Alpha](alpha.md) — the alpha fact\n"
        "- [Beta](beta.md) — the beta fact\n"
        "- [Gamma](gamma.md) — the gamma fact\n"
        "\n"
        "## Regions\n"
        "- region `lesson_*.md` → older lessons; grep the memory dir\n"
    ),
    "deploy.md": topic("Deploy rule", "never deploy on Fridays", "feedback", pinned="true"),
    "alpha.md": topic("Alpha", "the alpha fact", "project", created="2026-01-01"),
    "beta.md": topic("Beta", "the beta fact", "reference", created="2026-02-01"),
    "gamma.md": topic("Gamma", "the gamma fact", "user", created="2026-03-01"),
    "lesson_one.md": topic("Lesson one", "first lesson", "feedback"),
    "lesson_two.md": topic("Lesson two", "second lesson", "feedback"),
    "notes.txt": "not memory\n",
}


def tree(root: Path, include_memtui: bool = False) -> dict[str, bytes | None]:
    """Every file (bytes) and folder (None) under a root, by relative path."""
    out: dict[str, bytes | None] = {}
    for folder, dirs, files in os.walk(root):
        rel_folder = os.path.relpath(folder, root)
        if not include_memtui and (rel_folder == ".memtui" or rel_folder.startswith(".memtui" + os.sep)):
            dirs[:] = []
            continue
        for name in dirs:
            rel = os.path.normpath(os.path.join(rel_folder, name))
            if include_memtui or rel != ".memtui":
                out[rel + "/"] = None
        for name in files:
            rel = os.path.normpath(os.path.join(rel_folder, name))
            out[rel] = Path(folder, name).read_bytes()
    return out


class Faults:
    """Counts the writer's filesystem calls; raises ``error()`` at call number ``fail_at``."""

    def __init__(self, monkeypatch: Any, fail_at: int | None = None,
                 error: Callable[[], BaseException] | None = None) -> None:
        self.count = 0
        self.fail_at = fail_at
        self.error = error
        self.calls: list[str] = []
        for name in FS_CALLS:
            monkeypatch.setattr(disk, name, self._wrap(name, getattr(disk, name)))

    def _wrap(self, name: str, fn: Callable[..., None]) -> Callable[..., None]:
        def call(*args: Any) -> None:
            self.count += 1
            self.calls.append(name)
            if self.fail_at is not None and self.count == self.fail_at and self.error is not None:
                self.fail_at = None  # one fault, then the disk behaves again
                raise self.error()
            fn(*args)

        return call


def commit_mark(calls: list[str]) -> int:
    """The step (1-based) of a clean commit's mark among its filesystem ``calls``: its last
    rename, the pending record to committed.  The steps after it only tidy up (the old versions
    kept for a rollback, the journal's oldest records): a fault there leaves the change made."""
    return len(calls) - calls[::-1].index("replace")


class Crash(BaseException):
    """A simulated power cut: not an Exception, so the writer cannot roll back."""


def snap(folder: Path) -> dict[str, Any]:
    """Every path under ``folder`` (itself included) with its mode and bytes."""
    out: dict[str, Any] = {".": stat.S_IMODE(os.lstat(folder).st_mode)}
    for rel, data in tree(folder, include_memtui=True).items():
        out[rel] = (stat.S_IMODE(os.lstat(folder / rel.rstrip("/")).st_mode), data)
    return out
