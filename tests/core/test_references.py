"""Reference extraction, scope classification, the project and its one-pass identifier index."""

from __future__ import annotations

import os
import socket
import subprocess
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Iterator

import pytest

from memtui.core.read import project as project_module
from memtui.core.read.project import (
    Project,
    ProjectCache,
    ProjectIndex,
    ReferenceChecker,
    decode_claude_project,
    fetch_status,
    find_project,
)
from memtui.core.read.references import (
    Reference,
    RefKind,
    RefStatus,
    extract_references,
    is_symbol_name,
    path_scope,
    url_scope,
)

GIT_ENV = {
    "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@example.org",
    "GIT_COMMITTER_NAME": "t", "GIT_COMMITTER_EMAIL": "t@example.org",
    "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_NOSYSTEM": "1",
}


def git(top: Path, *args: str, env: dict[str, str] | None = None) -> None:
    subprocess.run(["git", "-C", str(top), *args], check=True, capture_output=True,
                   env={**os.environ, **GIT_ENV, **(env or {})})


def write(top: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        path = top / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_text(content)


PROJECT_FILES: dict[str, str | bytes] = {
    "src/app.py": "class ServerConfig:\n    def load_config(self):\n        return fetchAll()\n",
    "src/web/routes.ts": "export function registerRoutes() {}\n",
    "README.md": "# app\n",
    "assets/logo.bin": b"\x00\x01binaryOnlySymbol\x00",
}


@pytest.fixture
def project(tmp_path: Path) -> Path:
    """A small committed git project with a branch ``feature/login``."""
    top = tmp_path / "proj"
    top.mkdir()
    write(top, PROJECT_FILES)
    git(top, "init", "-q", "-b", "main")
    git(top, "add", "-A")
    git(top, "commit", "-q", "-m", "init")
    git(top, "branch", "feature/login")
    return top


def kinds(body: str) -> set[tuple[str, str]]:
    return {(r.kind.value, r.text) for r in extract_references(body)}


# ------------------------------------------------------------------------------------ extraction


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("See src/app/main.py for it.", {("path", "src/app/main.py")}),
        ("Edit `src/tui/` next.", {("path", "src/tui")}),
        ("Config lives in `package.json`.", {("path", "package.json")}),
        ("Line `src/app.py:42` and src/x.ts#L10.", {("path", "src/app.py"), ("path", "src/x.ts")}),
        ("Use `./scripts/run.sh`.", {("path", "scripts/run.sh")}),
        ("Home ~/.claude/x.md and `/etc/hosts`.", {("path", "~/.claude/x.md"), ("path", "/etc/hosts")}),
        ("Not a path in prose: /etc/hosts (no extension).", set()),
        ("Call `loadConfig` then `ServerConfig`.", {("symbol", "loadConfig"), ("symbol", "ServerConfig")}),
        ("Call `load_config` and `__init__`.", {("symbol", "load_config"), ("symbol", "__init__")}),
        ("Call `fetch()` and `api.getUser(id)`.", {("symbol", "fetch"), ("symbol", "getUser")}),
        ("Prose call parseDeliverables() here.", {("symbol", "parseDeliverables")}),
        ("Dotted `sessionStore.projectSlug` works.", {("symbol", "projectSlug")}),
        ("On branch `feature/login` now.", {("branch", "feature/login")}),
        ("Branch: main is protected.", {("branch", "main")}),
        ("Pushed branch lane-p4d today.", {("branch", "lane-p4d")}),
        ("Read https://docs.python.org/docs/a.md now.", {("url", "https://docs.python.org/docs/a.md")}),
    ],
)
def test_extracts(body: str, expected: set[tuple[str, str]]) -> None:
    assert kinds(body) == expected


@pytest.mark.parametrize(
    "body",
    [
        "Plain words and `plain` words, `ls -la`, `npm run build`.",
        "Constants `MAX_READ_BYTES` and env `HOME_DIR` are not symbols.",
        "Products `GitHub`, `TypeScript` and `macOS` are not symbols.",
        "The branch is protected; branch policy; this branch-policy.",
        "Extensions like `.ts` and `.md` are not files.",
        "Ratios 19/19 and 3/4 are not paths.",
        "```python\nx = 1\n```",
    ],
)
def test_extracts_nothing(body: str) -> None:
    assert kinds(body) == set()


def test_each_reference_once_in_order_found() -> None:
    found = extract_references("`a_b` then `a_b` then src/x.py and src/x.py")
    assert found == (Reference(RefKind.SYMBOL, "a_b"), Reference(RefKind.PATH, "src/x.py"))


def test_url_is_not_also_a_path() -> None:
    assert kinds("https://github.com/o/r/blob/main/src/app.py") == {
        ("url", "https://github.com/o/r/blob/main/src/app.py")}


@pytest.mark.parametrize(
    ("name", "expected"),
    [("camelCase", True), ("PascalCase", True), ("snake_case", True), ("_private_x", True),
     ("Word", False), ("word", False), ("ALL_CAPS", False), ("GitHub", False), ("x", False)],
)
def test_symbol_names(name: str, expected: bool) -> None:
    assert is_symbol_name(name) is expected


# ------------------------------------------------------------------------------------------ scope

TOP = frozenset({"src", "README.md", "docs"})


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("~/.claude/x.md", "under the home folder"),
        ("/etc/hosts", "an absolute path"),
        ("$HOME/notes.md", "starts from a variable"),
        ("src/**/*.py", "a glob or placeholder"),
        ("<project>/src/a.py", "a glob or placeholder"),
        ("../other/a.py", "relative to an unknown folder"),
        ("lib/a.py", "'lib' is not a top-level folder or file of the project"),
        ("CHANGELOG.md", "'CHANGELOG.md' is not a top-level folder or file of the project"),
    ],
)
def test_unverifiable_scopes(path: str, reason: str) -> None:
    assert path_scope(path, TOP) == reason


@pytest.mark.parametrize("path", ["src/a.py", "README.md", "docs/guide"])
def test_project_relative_scopes(path: str) -> None:
    assert path_scope(path, TOP) is None


@pytest.mark.parametrize(
    ("url", "unverifiable"),
    [("https://docs.python.org/3/", False), ("http://localhost:5173/", True),
     ("http://127.0.0.1:8000/x", True), ("http://192.168.1.2/", True), ("https://", True)],
)
def test_url_scope(url: str, unverifiable: bool) -> None:
    assert (url_scope(url) is not None) is unverifiable


# ------------------------------------------------------------------------------- checks (project)


def check_body(project: Path, body: str, **kwargs: object) -> dict[str, tuple[RefStatus, str]]:
    checker = ReferenceChecker(ProjectIndex(Project(project, "git")), **kwargs)  # type: ignore[arg-type]
    return {c.text: (c.status, c.reason) for c in checker.check(extract_references(body))}


def test_missing_file(project: Path) -> None:
    assert check_body(project, "see src/old_app.py")["src/old_app.py"][0] is RefStatus.MISSING


def test_present_file_and_folder(project: Path) -> None:
    result = check_body(project, "see src/app.py and `src/web/`")
    assert result["src/app.py"][0] is RefStatus.FOUND
    assert result["src/web"][0] is RefStatus.FOUND


def test_untracked_file_on_disk_counts_as_present(project: Path) -> None:
    write(project, {"dist/bundle.js": "built\n"})
    result = check_body(project, "see dist/bundle.js and dist/gone.js")
    assert result["dist/bundle.js"][0] is RefStatus.FOUND
    assert result["dist/gone.js"][0] is RefStatus.MISSING


def test_missing_symbol(project: Path) -> None:
    assert check_body(project, "call `fetchWidgets()`")["fetchWidgets"][0] is RefStatus.MISSING


def test_present_symbols(project: Path) -> None:
    result = check_body(project, "`load_config`, `ServerConfig`, `registerRoutes()`")
    assert {s for s, _ in result.values()} == {RefStatus.FOUND}


@pytest.mark.parametrize("path", ["~/.claude/x.md", "/etc/hosts", "docs2/guide.md"])
def test_outside_paths_are_unverifiable_never_missing(project: Path, path: str) -> None:
    assert check_body(project, f"see `{path}`")[path][0] is RefStatus.UNVERIFIABLE


def test_first_segment_not_top_level_is_unverifiable(project: Path) -> None:
    status, reason = check_body(project, "see lib/gone.py")["lib/gone.py"]
    assert status is RefStatus.UNVERIFIABLE
    assert "'lib' is not a top-level" in reason


def test_branches(project: Path) -> None:
    result = check_body(project, "on branch `feature/login`; old branch `feature/gone`")
    assert result["feature/login"][0] is RefStatus.FOUND
    assert result["feature/gone"][0] is RefStatus.MISSING


def test_url_ignored_offline(project: Path) -> None:
    def fetcher(url: str, timeout: float) -> int:
        raise AssertionError("no network offline")

    status, reason = check_body(project, "https://docs.python.org/x", fetcher=fetcher)[
        "https://docs.python.org/x"]
    assert status is RefStatus.UNVERIFIABLE and "offline" in reason


@pytest.mark.parametrize(
    ("answer", "status"),
    [(200, RefStatus.FOUND), (404, RefStatus.MISSING), ("no answer (timed out)", RefStatus.MISSING)],
)
def test_url_checked_online(project: Path, answer: int | str, status: RefStatus) -> None:
    seen: list[str] = []

    def fetcher(url: str, timeout: float) -> int | str:
        seen.append(url)
        return answer

    result = check_body(project, "https://docs.python.org/x", online=True, fetcher=fetcher)
    assert result["https://docs.python.org/x"][0] is status
    assert seen == ["https://docs.python.org/x"]


def test_local_url_never_fetched_online(project: Path) -> None:
    def fetcher(url: str, timeout: float) -> int:
        raise AssertionError("local hosts are not fetched")

    result = check_body(project, "http://localhost:3000/", online=True, fetcher=fetcher)
    assert result["http://localhost:3000/"][0] is RefStatus.UNVERIFIABLE


class _Handler(BaseHTTPRequestHandler):
    def _answer(self, head: bool) -> None:
        if self.path == "/ok" or (self.path == "/nohead" and not head):
            code = 200
        elif self.path == "/nohead":
            code = 405
        else:
            code = 404
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def do_HEAD(self) -> None:  # noqa: N802
        self._answer(head=True)

    def do_GET(self) -> None:  # noqa: N802
        self._answer(head=False)

    def log_message(self, *args: object) -> None:
        pass


@pytest.fixture
def local_server() -> Iterator[str]:
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


@pytest.mark.parametrize(("path", "status"), [("/ok", 200), ("/nohead", 200), ("/gone", 404)])
def test_fetch_status(local_server: str, path: str, status: int) -> None:
    assert fetch_status(local_server + path, timeout=2) == status


def test_fetch_status_without_answer() -> None:
    with socket.socket() as sock:  # a port nothing listens on
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    assert str(fetch_status(f"http://127.0.0.1:{port}/", timeout=1)).startswith("no answer")


def test_no_project_means_unverifiable() -> None:
    checks = ReferenceChecker(None).check(extract_references("src/a.py `fooBar` branch `x-y`"))
    assert {c.status for c in checks} == {RefStatus.UNVERIFIABLE}


# ----------------------------------------------------------------------------- identifier index


def test_index_skips_binary_large_and_memory_files(project: Path) -> None:
    write(project, {
        "src/big.py": "def onlyInBigFile(): pass\n" + "#" * 200,
        ".claude/memory/MEMORY.md": "- [a](a.md) — a\n",
        ".claude/memory/a.md": "`onlyInMemory`\n",
    })
    git(project, "add", "-A")
    index = ProjectIndex(Project(project, "git"), max_file_bytes=150)
    assert index.has_identifier("load_config")
    assert not index.has_identifier("binaryOnlySymbol")
    assert not index.has_identifier("onlyInBigFile")
    assert not index.has_identifier("onlyInMemory")


def test_untracked_files_are_not_indexed(project: Path) -> None:
    write(project, {"src/scratch.py": "def untrackedThing(): pass\n"})
    assert not ProjectIndex(Project(project, "git")).has_identifier("untrackedThing")


def test_index_built_once_per_run(project: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    calls: list[list[str]] = []
    real_git = project_module._git

    def spy(args: list[str], cwd: Path, timeout: float = 60.0) -> bytes | None:
        calls.append(args)
        return real_git(args, cwd, timeout)

    monkeypatch.setattr(project_module, "_git", spy)
    cache = ProjectCache()
    for _ in range(3):
        checker = ReferenceChecker(cache.get(Project(project, "git")))
        checker.check(extract_references("`load_config` `nopeNope` branch `feature/login`"))
    assert [a[0] for a in calls] == ["ls-files", "for-each-ref"]


def test_project_outside_git_is_walked(tmp_path: Path) -> None:
    top = tmp_path / "plain"
    write(top, {"src/a.py": "def walkedSymbol(): pass\n", "node_modules/x.js": "skippedSym\n"})
    index = ProjectIndex(Project(top, "repo"))
    assert index.has_identifier("walkedSymbol")
    assert not index.has_identifier("skippedSym")
    assert index.branches is None


# ---------------------------------------------------------------------------------------- project


def test_find_project_prefers_repo(tmp_path: Path, project: Path) -> None:
    root = project / ".claude" / "memory"
    root.mkdir(parents=True)
    assert find_project(root) == Project(project, "git")
    assert find_project(root, tmp_path) == Project(tmp_path, "repo")


def test_find_project_none_outside_git(tmp_path: Path) -> None:
    root = tmp_path / "mem"
    root.mkdir()
    assert find_project(root) is None


def claude_root(home: Path, project: Path) -> Path:
    encoded = str(project).replace("/", "-").replace(".", "-")
    root = home / ".claude" / "projects" / encoded / "memory"
    root.mkdir(parents=True)
    return root


def test_find_project_decodes_claude_folder(tmp_path: Path) -> None:
    target = tmp_path / "work" / "my-app.v2"
    target.mkdir(parents=True)
    root = claude_root(tmp_path / "home", target)
    assert find_project(root) == Project(target, "claude")


def test_decode_tries_every_reading_against_the_disk(tmp_path: Path) -> None:
    (tmp_path / "a-b").mkdir()
    (tmp_path / "a" / "b").mkdir(parents=True)
    encoded = str(tmp_path / "a-b").replace("/", "-").replace(".", "-")
    assert decode_claude_project(encoded) == [tmp_path / "a-b", tmp_path / "a" / "b"]


def test_decode_of_a_missing_folder_is_empty(tmp_path: Path) -> None:
    encoded = str(tmp_path / "nothing-here").replace("/", "-")
    assert decode_claude_project(encoded) == []
    assert decode_claude_project("no-leading-dash") == []
