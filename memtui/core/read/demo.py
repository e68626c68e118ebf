"""The bundled demo: a memory folder about a fictional project, and that project with a history.

A copy is a folder holding the project ``harbor`` (a git work tree whose history is built at copy
time, so the Staleness view has real files, symbols and branches to check the memory against) and
its memory root ``memory/`` (untracked, ignored by the project's ``.gitignore``).  Where git is
missing the project is written as plain files of its final state; ``memtui stale --repo`` then
checks against it, without branches.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from calendar import timegm
from dataclasses import dataclass
from pathlib import Path
from time import strptime

from .store import RootError

_TEMP_PREFIX = "memtui-demo-"
#: the memory root's folder name inside a demo copy
MEMORY_DIR = "memory"
#: package folders stored under a name the wheel keeps (dot folders are not package data)
_STORED_AS = {"_dot_github": ".github"}
_GITIGNORE = b"/memory/\n/web/node_modules/\n/bin/\n"
_AUTHORS = {
    "maya": "Maya Okafor <maya@harbor.example>",
    "priya": "Priya Raman <priya@harbor.example>",
    "theo": "Theo Brandt <theo@harbor.example>",
    "jonas": "Jonas Weber <jonas@harbor.example>",
}


@dataclass(frozen=True)
class Commit:
    """One commit of the demo project's history: files it adds (from the package) and removes."""

    date: str
    author: str
    message: str
    add: tuple[str, ...] = ()
    remove: tuple[str, ...] = ()
    branch: str = "main"


#: the history, oldest first; the first commit holds every bundled file no later commit adds
HISTORY: tuple[Commit, ...] = (
    Commit("2026-06-02", "maya", "harbor: import the registry, the admin CLI and the admin UI"),
    Commit("2026-08-29", "theo", "web: build the admin UI with Vite instead of webpack",
           add=("web/vite.config.ts",), remove=("web/webpack.config.js",)),
    Commit("2026-09-12", "maya", "gc: re-check each candidate inside the delete transaction",
           add=("internal/gc/sweeper_test.go",)),
    Commit("2026-10-08", "priya", "ratelimit: token buckets per robot account and per IP",
           add=("internal/ratelimit/limiter.go",)),
    Commit("2026-10-20", "maya", "api: remove the v1 catalog and search compatibility shim",
           remove=("internal/api/v1compat/catalog.go", "internal/api/v1compat/catalog_test.go",
                   "cmd/harbord/routes_legacy.go", "internal/store/queries/v1compat.sql")),
    Commit("2026-10-23", "maya", "quota: per-project storage quotas, enforcement off by default",
           add=("internal/quota/service.go", "migrations/0044_quotas.sql",
                "internal/store/queries/quotas.sql", "internal/api/v2/uploads.go")),
    Commit("2026-11-02", "maya", "webhook: deliver from an outbox table with retries",
           add=("internal/webhook/dispatcher.go", "migrations/0043_webhook_deliveries.sql",
                "web/src/pages/projects/WebhookDeliveries.tsx", "docs/webhooks.md")),
    Commit("2026-11-06", "priya", "auth: map OIDC group claims onto project roles",
           add=("internal/auth/oidc.go", "internal/auth/grouproles.go",
                "migrations/0045_project_group_roles.sql", "docs/auth/oidc.md")),
    Commit("2026-11-10", "maya", "retention: delete untagged manifests older than the retention",
           add=("internal/retention/untagged.go", "docs/retention.md")),
    Commit("2026-11-14", "jonas", "storage/s3: abort stale multipart uploads after each sweep",
           add=("internal/storage/s3/multipart.go", "docs/storage/s3.md")),
    Commit("2026-11-20", "priya", "api/v2: serve the OCI referrers API",
           add=("internal/api/v2/referrers.go", "migrations/0046_manifest_referrers.sql")),
    Commit("2026-11-27", "maya", "gc: concurrent mark with a journal of manifests committed meanwhile",
           add=("internal/gc/journal.go", "internal/gc/journal_metrics.go",
                "migrations/0047_gc_mark_journal.sql"),
           branch="gc-concurrent-mark"),
)
#: branches other than main, each created at the main commit of the given date
BRANCHES: dict[str, str] = {"release-2.4": "2026-10-20", "release-2.5": "2026-11-14"}


def demo_source() -> Path:
    """The bundled demo memory folder inside the installed package (never written to)."""
    return _package_dir("demo")


def demo_project_source() -> Path:
    """The bundled files of the demo's project, every version of its history included."""
    return _package_dir("demo_project")


def _package_dir(name: str) -> Path:
    """A folder of package data beside memtui's modules (the package is installed unzipped)."""
    return Path(__file__).resolve().parents[2] / name


def copy_demo(dest: Path | str | None = None, *, with_git: bool | None = None) -> Path:
    """Write a demo copy to ``dest`` (must not exist or be empty), or to a new temp folder.

    Returns the memory root (``<dest>/memory``); ``dest`` holds the project.  ``with_git`` forces
    or prevents the git history (default: when git can be run).
    """
    source = demo_source()
    if not (source / "MEMORY.md").is_file():
        raise RootError(f"the bundled demo folder is missing from this installation ({source})")
    if dest is None:
        project = Path(tempfile.mkdtemp(prefix=_TEMP_PREFIX)) / "harbor"
    else:
        project = Path(dest).expanduser()
        if project.exists() and (not project.is_dir() or any(project.iterdir())):
            raise RootError(f"{project}: already exists and is not an empty folder; pick a new one")
    root = project / MEMORY_DIR
    try:
        shutil.copytree(source, root, dirs_exist_ok=True,
                        ignore=shutil.ignore_patterns("__pycache__", "*.pyc"))
        _write_own_location(root, project)
        if with_git is None:
            with_git = shutil.which("git") is not None
        if not (with_git and _build_git_project(project)):
            _write_final_tree(project)
    except OSError as exc:
        raise RootError(f"{project}: cannot write the demo copy ({exc.strerror or exc})") from None
    return root


#: where the bundled demo says its project lives; a copy says where the copy is instead
BUNDLED_LOCATION = b"/home/dev/harbor"


def _write_own_location(root: Path, project: Path) -> None:
    """Name the copy's own project folder wherever the bundled memory names its made-up one
    (the index's description, the web scope's ``Scope:``), so ``memtui applies <copy>/web``
    and the app's scope filter apply to the copy's own ``web/``."""
    here = str(project.absolute()).encode()
    for path in root.rglob("*.md"):
        data = path.read_bytes()
        if BUNDLED_LOCATION in data:
            path.write_bytes(data.replace(BUNDLED_LOCATION, here))


def remove_demo_copy(root: Path) -> None:
    """Remove a temporary demo copy made by ``copy_demo()`` (only such a copy: its temp folder)."""
    holder = Path(root).parent.parent
    if holder.name.startswith(_TEMP_PREFIX) and holder.parent == Path(tempfile.gettempdir()):
        shutil.rmtree(holder, ignore_errors=True)


def demo_has_history(root: Path) -> bool:
    """Whether a demo copy's project (the parent of ``root``) is a git work tree."""
    return (Path(root).parent / ".git").exists()


# ------------------------------------------------------------------------------ the project files

def _bundled_files() -> dict[str, Path]:
    """Project-relative path → bundled file, for every file any commit may hold."""
    base = demo_project_source()
    found: dict[str, Path] = {}
    for path in sorted(base.rglob("*")):
        if not path.is_file() or "__pycache__" in path.parts:
            continue
        rel = path.relative_to(base).as_posix()
        head, _, rest = rel.partition("/")
        found[f"{_STORED_AS.get(head, head)}/{rest}" if rest else rel] = path
    return found


def _first_commit_files(bundled: dict[str, Path]) -> list[str]:
    later = {p for c in HISTORY for p in c.add}
    return [p for p in bundled if p not in later]


def final_tree() -> list[str]:
    """The project's files as main's last commit holds them (``.gitignore`` included)."""
    bundled = _bundled_files()
    tree = set(_first_commit_files(bundled)) | {".gitignore"}
    for commit in HISTORY:
        if commit.branch == "main":
            tree |= set(commit.add)
            tree -= set(commit.remove)
    return sorted(tree)


def _write_final_tree(project: Path) -> None:
    bundled = _bundled_files()
    for rel in final_tree():
        target = project / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        if rel == ".gitignore":
            target.write_bytes(_GITIGNORE)
        else:
            shutil.copyfile(bundled[rel], target)
            if rel.endswith(".sh"):
                target.chmod(0o755)


def _epoch(date: str) -> int:
    return timegm(strptime(date + " 10:00", "%Y-%m-%d %H:%M"))


def _fast_import_stream(bundled: dict[str, Path]) -> bytes:
    """The whole history as one ``git fast-import`` stream (one process instead of one per commit)."""
    out: list[bytes] = []

    def data(payload: bytes) -> None:
        out.append(b"data %d\n" % len(payload) + payload + b"\n")

    marks: dict[str, int] = {}
    for n, rel in enumerate(sorted(bundled), start=1):
        marks[rel] = n
        out.append(b"blob\nmark :%d\n" % n)
        data(bundled[rel].read_bytes())
    ignore_mark = len(marks) + 1
    out.append(b"blob\nmark :%d\n" % ignore_mark)
    data(_GITIGNORE)

    commit_mark = ignore_mark
    main_at: dict[str, int] = {}
    last_main = 0
    for index, commit in enumerate(HISTORY):
        commit_mark += 1
        who = _AUTHORS[commit.author].encode()
        stamp = b"%d +0000" % _epoch(commit.date)
        out.append(b"commit refs/heads/%s\nmark :%d\n" % (commit.branch.encode(), commit_mark))
        out.append(b"author %s %s\ncommitter %s %s\n" % (who, stamp, who, stamp))
        data(commit.message.encode())
        if index == 0:
            added = _first_commit_files(bundled)
            out.append(b"M 100644 :%d .gitignore\n" % ignore_mark)
        else:
            out.append(b"from :%d\n" % last_main)
            added = list(commit.add)
        for rel in added:
            mode = b"100755" if rel.endswith(".sh") else b"100644"
            out.append(b"M %s :%d %s\n" % (mode, marks[rel], rel.encode()))
        for rel in commit.remove:
            out.append(b"D %s\n" % rel.encode())
        out.append(b"\n")
        if commit.branch == "main":
            last_main = commit_mark
            main_at[commit.date] = commit_mark
    for branch, date in BRANCHES.items():
        out.append(b"reset refs/heads/%s\nfrom :%d\n\n" % (branch.encode(), main_at[date]))
    return b"".join(out)


def _build_git_project(project: Path) -> bool:
    """Build the project's history with git and check out main; False when git fails."""
    env = {**os.environ, "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": os.devnull,
           "GIT_TERMINAL_PROMPT": "0"}
    base = ["git", "-c", "core.autocrlf=false", "-c", "core.hooksPath=" + os.devnull,
            "-C", str(project)]
    steps: list[tuple[list[str], bytes | None]] = [
        (["init", "-q"], None),
        (["symbolic-ref", "HEAD", "refs/heads/main"], None),
        (["fast-import", "--quiet"], _fast_import_stream(_bundled_files())),
        (["reset", "-q", "--hard", "main"], None),
    ]
    for args, stdin in steps:
        try:
            done = subprocess.run(base + args, input=stdin, capture_output=True, env=env,
                                  timeout=60, check=False)
        except (OSError, subprocess.SubprocessError):
            done = None
        if done is None or done.returncode != 0:
            shutil.rmtree(project / ".git", ignore_errors=True)
            return False
    return True
