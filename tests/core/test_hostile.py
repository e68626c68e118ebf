"""Hostile input gives findings, never tracebacks, and nothing outside the root is read."""

from __future__ import annotations

import builtins
import os
from pathlib import Path

import pytest

from memtui.core.model.snapshot import BudgetConfig
from memtui.core.read.store import RootError, load_root
from memtui.core.rules.budget import budget_of
from memtui.core.rules.validate import validate
from tests.support.roots import topic

INDEX = "- [Alpha](a.md) — alpha\n"


def load_and_validate(root: Path) -> list[str]:
    return [f.rule for f in validate(load_root(root))]


def test_binary_and_invalid_utf8_files_round_trip(make_root) -> None:
    blob = bytes(range(256)) * 4
    root = make_root({"MEMORY.md": INDEX + "- [Bin](bin.md) — binary\n", "a.md": topic("A", "a"),
                      "bin.md": blob, "bad.md": b"---\nname: \xff\xfe\n---\n\xc3\x28"})
    snapshot = load_root(root)
    assert snapshot.files["bin.md"].data == blob
    assert snapshot.files["bad.md"].data == (root / "bad.md").read_bytes()
    assert "orphan" in load_and_validate(root)


def test_bom_and_crlf(make_root) -> None:
    index = "\ufeff# Memory\r\n- [Alpha](a.md) — alpha\r\n".encode()
    text = "\ufeff---\r\nname: A\r\ndescription: a\r\ntype: user\r\n---\r\nbody\r\n".encode()
    root = make_root({"MEMORY.md": index, "a.md": text})
    snapshot = load_root(root)
    assert snapshot.index.render() == index
    assert snapshot.index.entries[0].resolved == "a.md"
    assert snapshot.files["a.md"].type == "user"
    assert budget_of(load_root(root, BudgetConfig(loader="raw"))).bytes == len(index)
    # Claude Code: the BOM and the last CRLF trimmed, the other CR counted (no comment block)
    assert budget_of(snapshot).bytes == len("# Memory\r\n- [Alpha](a.md) — alpha")
    assert validate(snapshot) == []


def test_empty_index(make_root) -> None:
    root = make_root({"MEMORY.md": b"", "a.md": topic("A", "a")})
    assert load_and_validate(root) == ["orphan"]
    assert budget_of(load_root(root)).lines == 0


def test_twenty_megabyte_topic(make_root) -> None:
    root = make_root({"MEMORY.md": INDEX, "a.md": topic("A", "a", body="x" * 20_000_000)})
    assert load_and_validate(root) == ["topic-too-large"]


def test_symlink_loop_and_symlinks_out_of_the_root(make_root, tmp_path: Path) -> None:
    secret = tmp_path / "outside.md"
    secret.write_text("---\nname: secret\n---\nghp_" + "x" * 36 + "\n")
    root = make_root({"MEMORY.md": INDEX + "- [Out](out.md) — linked out\n", "a.md": topic("A", "a")})
    (root / "loop").symlink_to(root, target_is_directory=True)
    (root / "out.md").symlink_to(secret)
    (root / "self.md").symlink_to(root / "self.md")  # a symlink to itself
    opened: list[str] = []
    real_open = builtins.open

    def spy(file, *args, **kwargs):  # type: ignore[no-untyped-def]
        opened.append(os.path.realpath(file) if isinstance(file, (str, Path)) else str(file))
        return real_open(file, *args, **kwargs)

    builtins.open = spy
    try:
        snapshot = load_root(root)
        findings = validate(snapshot)
    finally:
        builtins.open = real_open
    assert str(secret) not in opened
    assert "out.md" not in snapshot.files and "out.md" in snapshot.outside
    assert {f.rule for f in findings if f.subject == "out.md"} == {"link-escapes-root"}
    assert not [f for f in findings if f.rule == "secret"]
    assert any(s.path == "loop" for s in snapshot.skipped)


def test_link_to_etc_passwd_is_not_followed(make_root) -> None:
    root = make_root({"MEMORY.md": INDEX + "- [pw](../../etc/passwd) — x\n- [pw](/etc/passwd.md) — y\n",
                      "a.md": topic("A", "a")})
    findings = validate(load_root(root))
    assert [f.rule for f in findings] == ["link-escapes-root", "link-escapes-root"]


def test_twenty_thousand_line_index(make_root) -> None:
    index = "".join(f"- [T{i}](t{i}.md) — fact {i}\n" for i in range(20_000))
    root = make_root({"MEMORY.md": index})
    findings = validate(load_root(root))
    rules = {f.rule for f in findings}
    assert {"budget-lines", "budget-bytes", "broken-link"} <= rules
    cut = next(f for f in findings if f.rule == "budget-lines")
    assert "19800 entries fall past the cut" in cut.message


def test_unclosed_frontmatter_and_garbage_keys(make_root) -> None:
    root = make_root({"MEMORY.md": INDEX, "a.md": "---\nname: A\nno colon here\n"})
    findings = validate(load_root(root))
    assert [f.rule for f in findings] == ["frontmatter"]
    assert "not closed" in findings[0].message


def test_unreadable_file_is_skipped_with_a_reason(make_root, monkeypatch) -> None:
    root = make_root({"MEMORY.md": INDEX, "a.md": topic("A", "a"), "locked.md": "x"})
    import memtui.core.read.store as store

    real = store.read_memory_file

    def deny(abs_path, rel):  # type: ignore[no-untyped-def]
        if rel == "locked.md":
            raise PermissionError(13, "Permission denied")
        return real(abs_path, rel)

    monkeypatch.setattr(store, "read_memory_file", deny)
    snapshot = load_root(root)
    assert "locked.md" not in snapshot.files
    assert [s.reason for s in snapshot.skipped if s.path == "locked.md"] == ["cannot read: Permission denied"]


@pytest.mark.parametrize("kind", ["missing", "file"])
def test_bad_root_path_is_a_root_error(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "x"
    if kind == "file":
        path.write_text("hi")
    with pytest.raises(RootError):
        load_root(path)


def test_dotfiles_nested_roots_and_other_files_are_not_memory(make_root) -> None:
    root = make_root({
        "MEMORY.md": INDEX, "a.md": topic("A", "a"),
        ".memtui/journal/x.md": "hidden", ".hidden.md": "hidden",
        "agent/MEMORY.md": "- [B](b.md) — b\n", "agent/b.md": topic("B", "b"),
        "notes.txt": "plain", "MEMORY-ARCHIVE.md": "- [A](a.md) — archived twice\n",
    })
    snapshot = load_root(root)
    assert list(snapshot.files) == ["a.md"]
    assert snapshot.nested_roots == ("agent",)
    assert snapshot.other_files == ("notes.txt",)
    assert snapshot.archive_index.exists and snapshot.archive_index.path == "MEMORY-ARCHIVE.md"
