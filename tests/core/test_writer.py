"""The writer: gate first, lock, changed-on-disk check, journal, atomic apply, recovery, undo."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from memtui.core import write
from memtui.core.model.changeset import Changeset, ChangesetError, Create, Move, Write
from memtui.core.model.journal import MAX_RECORDS, list_records, stacks
from memtui.core.read.store import load_root
from memtui.core.rules.validate import validate
from memtui.core.verbs import lifecycle as verbs
from memtui.core.write import fs as write_fs
from memtui.core.write.fs import disk
from tests.support.roots import MakeRoot, topic
from tests.support.writer import VALID_ROOT, Crash, Faults, commit_mark, tree

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture
def root(make_root: MakeRoot) -> Path:
    return make_root(dict(VALID_ROOT))


def errors_of(root: Path) -> list[tuple[str, str]]:
    return [(f.rule, f.path) for f in validate(load_root(root)) if f.severity == "error"]


# ---------------------------------------------------------------- plan and gate


def test_plan_touches_nothing(root: Path) -> None:
    before = tree(root, include_memtui=True)
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.archive(snapshot, "alpha.md"))
    assert preview.accepted
    assert tree(root, include_memtui=True) == before
    assert not (root / ".memtui").exists()


def test_refused_change_touches_nothing(root: Path) -> None:
    snapshot = load_root(root)
    orphan = Changeset("create", "a file nothing reaches", (Create("stray.md", b"x\n"),))
    before = tree(root, include_memtui=True)
    preview = write.plan(snapshot, orphan)
    assert not preview.accepted
    assert [(f.rule, f.path) for f in preview.gate.refusing] == [("orphan", "stray.md")]
    with pytest.raises(write.Refused, match="orphan"):
        write.commit(preview)
    assert tree(root, include_memtui=True) == before


def test_gate_refuses_a_growing_overflow(make_root: MakeRoot) -> None:
    lines = "".join(f"- [F{i}](f{i}.md) — fact {i}\n" for i in range(6))
    files: dict[str, str | bytes] = {"MEMORY.md": "# M\n" + lines}
    files.update({f"f{i}.md": topic(f"F{i}") for i in range(7)})
    files["MEMORY.md"] = str(files["MEMORY.md"]) + "- [F6](f6.md) — fact 6\n"
    from memtui.core.model.snapshot import BudgetConfig

    root = make_root(files)
    snapshot = load_root(root, BudgetConfig(max_lines=5))
    preview = write.plan(snapshot, verbs.pin(snapshot, "f3.md"))
    assert not preview.accepted
    assert "while over its 5-line cap" in preview.gate.reason


def test_changeset_must_fit_the_snapshot(root: Path) -> None:
    snapshot = load_root(root)
    with pytest.raises(ChangesetError, match="not what the change expects"):
        write.plan(snapshot, Changeset("w", "", (Write("alpha.md", b"new", b"not the old bytes"),)))
    with pytest.raises(ChangesetError, match="exists"):
        write.plan(snapshot, Changeset("c", "", (Create("alpha.md", b"x"),)))
    with pytest.raises(ChangesetError, match="hidden"):
        write.plan(snapshot, Changeset("c", "", (Create(".secret.md", b"x"),)))
    with pytest.raises(ChangesetError, match="not a Markdown"):
        write.plan(snapshot, Changeset("m", "", (Move("alpha.md", "alpha.txt"),)))
    with pytest.raises(ChangesetError, match="plain path"):
        write.plan(snapshot, Changeset("c", "", (Create("../escape.md", b"x"),)))


# ---------------------------------------------------------------- apply


def test_commit_writes_journals_and_keeps_modes(root: Path) -> None:
    os.chmod(root / "alpha.md", 0o640)
    snapshot = load_root(root)
    applied = write.run(snapshot, verbs.pin(snapshot, "alpha.md"))
    assert (root / "alpha.md").stat().st_mode & 0o777 == 0o640
    assert b"pinned: true" in (root / "alpha.md").read_bytes()
    assert errors_of(root) == []
    [record] = list_records(root)
    assert record.state == "committed" and record.id == applied.record_id
    data = json.loads((root / ".memtui/journal" / record.file).read_text())
    assert data["before"]["alpha.md"]["text"] == VALID_ROOT["alpha.md"]
    assert data["before"]["MEMORY.md"]["text"] == VALID_ROOT["MEMORY.md"]
    assert not any(name.endswith(".tmp") for name in os.listdir(root))
    assert validate(load_root(root)) == list(applied.cache.findings)


def test_commit_keeps_crlf_and_non_utf8_bytes(make_root: MakeRoot) -> None:
    weird = b"---\r\nname: W\r\ndescription: latin-1 \xe9\r\ntype: user\r\n---\r\n\r\nBody \xff\r\n"
    root = make_root({
        "MEMORY.md": b"# M\r\n\r\n- [W](w.md) \xe2\x80\x94 weird one\r\n",
        "w.md": weird,
    })
    snapshot = load_root(root)
    write.run(snapshot, verbs.pin(snapshot, "w.md"))
    assert (root / "w.md").read_bytes() == weird.replace(b"type: user\r\n", b"type: user\r\npinned: true\r\n")
    index = (root / "MEMORY.md").read_bytes()
    assert b"\n" not in index.replace(b"\r\n", b"")
    [record] = list_records(root)
    data = json.loads((root / ".memtui/journal" / record.file).read_text())
    assert "b64" in data["before"]["w.md"]
    write.undo(load_root(root))
    assert (root / "w.md").read_bytes() == weird


def test_moves_never_overwrite_and_create_folders(root: Path) -> None:
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.archive(snapshot, "alpha.md"))
    (root / "archive").mkdir()
    (root / "archive" / "alpha.md").write_bytes(b"someone else's file\n")
    with pytest.raises(write.ChangedOnDisk):
        write.commit(preview)
    assert (root / "archive" / "alpha.md").read_bytes() == b"someone else's file\n"
    assert (root / "alpha.md").read_bytes() == VALID_ROOT["alpha.md"].encode()


def test_changed_on_disk_is_refused_and_nothing_is_overwritten(root: Path) -> None:
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.pin(snapshot, "alpha.md"))
    agent_edit = b"---\nname: Alpha\ndescription: rewritten by the agent\ntype: project\n---\n"
    (root / "alpha.md").write_bytes(agent_edit)
    index_before = (root / "MEMORY.md").read_bytes()
    with pytest.raises(write.ChangedOnDisk, match="changed on disk") as info:
        write.commit(preview)
    assert info.value.paths == ("alpha.md",)
    assert (root / "alpha.md").read_bytes() == agent_edit
    assert (root / "MEMORY.md").read_bytes() == index_before
    assert list_records(root) == []


def test_symlinked_files_are_not_rewritten(root: Path) -> None:
    (root / "alpha.md").rename(root / "real_alpha.md")
    (root / "alpha.md").symlink_to("real_alpha.md")
    snapshot = load_root(root)
    with pytest.raises(write.ChangedOnDisk, match="symlink"):
        write.run(snapshot, verbs.pin(snapshot, "alpha.md"))


# ---------------------------------------------------------------- undo / redo / journal


def test_undo_and_redo_restore_exact_bytes(root: Path) -> None:
    original = tree(root)
    snapshot = load_root(root)
    write.run(snapshot, verbs.archive(snapshot, "alpha.md"))
    archived = tree(root)
    write.undo(load_root(root))
    assert tree(root) == original  # the archive/ folder the change made goes with it
    write.redo(load_root(root))
    assert tree(root) == archived
    write.undo(load_root(root))
    assert tree(root) == original  # and again after a redo made it
    with pytest.raises(write.NothingToUndo, match="nothing to undo"):
        write.undo(load_root(root))
    write.redo(load_root(root))
    with pytest.raises(write.NothingToUndo, match="nothing to redo"):
        write.redo(load_root(root))


def test_undo_keeps_a_folder_the_change_did_not_make_or_that_holds_something(root: Path) -> None:
    (root / "archive").mkdir()
    snapshot = load_root(root)
    write.run(snapshot, verbs.archive(snapshot, "alpha.md"))
    write.undo(load_root(root))
    assert (root / "archive").is_dir()  # there before the change
    (root / "archive").rmdir()
    snapshot = load_root(root)
    write.run(snapshot, verbs.archive(snapshot, "alpha.md"))
    (root / "archive" / "notes.txt").write_text("someone's file\n")
    write.undo(load_root(root))
    assert (root / "archive" / "notes.txt").read_text() == "someone's file\n"


def test_undo_of_a_repair_may_bring_back_the_old_errors_only(make_root: MakeRoot) -> None:
    root = make_root({**VALID_ROOT, "stray.md": topic("Stray", "an orphan")})
    assert errors_of(root) == [("orphan", "stray.md")]
    snapshot = load_root(root)
    write.run(snapshot, verbs.promote(snapshot, "stray.md"))
    assert errors_of(root) == []
    write.undo(load_root(root))  # accepted: the orphan was there before the promote
    assert errors_of(root) == [("orphan", "stray.md")]

    snapshot = load_root(root)
    write.run(snapshot, verbs.remember(snapshot, "New fact", "Body."))
    alpha = (root / "alpha.md").read_text().replace("type: project\n", "type: project\nsupersedes: new_fact.md\n")
    (root / "alpha.md").write_text(alpha)  # the agent now relies on the new file
    preview = write.undo_plan(load_root(root))
    assert not preview.accepted
    assert [(f.rule, f.path) for f in preview.gate.refusing] == [("provenance-dangling", "alpha.md")]


def test_a_new_change_clears_redo(root: Path) -> None:
    snapshot = load_root(root)
    write.run(snapshot, verbs.decay(snapshot, "beta.md"))
    write.undo(load_root(root))
    snapshot = load_root(root)
    write.run(snapshot, verbs.decay(snapshot, "gamma.md"))
    assert stacks(list_records(root)).redo == ()
    with pytest.raises(write.NothingToUndo):
        write.redo(load_root(root))


def test_undo_of_a_created_file_moves_it_to_the_attic(root: Path) -> None:
    original = tree(root)
    snapshot = load_root(root)
    write.run(snapshot, verbs.remember(snapshot, "Brand new fact", "Body."))
    created = (root / "brand_new_fact.md").read_bytes()
    write.undo(load_root(root))
    assert tree(root) == original
    attic = [p for p in (root / ".memtui" / "attic").rglob("brand_new_fact.md")]
    assert [p.read_bytes() for p in attic] == [created]
    write.redo(load_root(root))
    assert (root / "brand_new_fact.md").read_bytes() == created


def test_undo_refuses_when_the_file_changed_since(root: Path) -> None:
    snapshot = load_root(root)
    write.run(snapshot, verbs.pin(snapshot, "alpha.md"))
    (root / "alpha.md").write_bytes(b"---\nname: Alpha\ndescription: d\ntype: project\npinned: true\n---\nX\n")
    with pytest.raises(write.ChangedOnDisk, match="cannot undo"):
        write.undo(load_root(root))


def test_journal_is_bounded(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    assert MAX_RECORDS == 200
    monkeypatch.setattr(write_fs, "MAX_RECORDS", 4)
    for _ in range(4):
        snapshot = load_root(root)
        write.run(snapshot, verbs.decay(snapshot, "beta.md"))
        write.undo(load_root(root))
    records = list_records(root)
    assert len(records) == 4
    assert [r.seq for r in records] == [5, 6, 7, 8]
    entries = write.journal_log(root, limit=2)
    assert [e.kind for e in entries] == ["undo", "do"]
    assert entries[1].undone and entries[1].paths == ("MEMORY.md", "MEMORY-archive.md")


def test_journal_is_invisible_to_scans(root: Path) -> None:
    snapshot = load_root(root)
    write.run(snapshot, verbs.pin(snapshot, "alpha.md"))
    write.undo(load_root(root))
    after = load_root(root)
    assert set(after.files) == set(load_root(root).files)
    assert not any(p.startswith(".memtui") for p in list(after.files) + list(after.other_files))


# ---------------------------------------------------------------- failures and crashes


def _archive(s):  # type: ignore[no-untyped-def]
    return verbs.archive(s, "alpha.md")


def _supersede(s):  # type: ignore[no-untyped-def]
    return verbs.supersede(s, "beta.md", "gamma.md")


def _rebuild(s):  # type: ignore[no-untyped-def]
    return verbs.rebuild(s)


def _archive_pinned(s):  # type: ignore[no-untyped-def]
    return verbs.compose(s, [lambda t: verbs.archive(t, "deploy.md", confirm=True),
                             lambda t: verbs.decay(t, "alpha.md")])


#: a root a rebuild changes in two files: an unlisted file with no family goes to a new archive index
REBUILD_ROOT = dict(VALID_ROOT, **{"stray.md": topic("Stray", "a fact nobody listed")})

MULTI_FILE = [
    ("archive", VALID_ROOT, _archive),
    ("supersede", VALID_ROOT, _supersede),
    ("rebuild", REBUILD_ROOT, _rebuild),
    ("archive-pinned+decay", VALID_ROOT, _archive_pinned),
]


@pytest.fixture
def no_fsync(monkeypatch: pytest.MonkeyPatch) -> None:
    """Skip the fsync system call itself (every step that calls it still runs and still counts):
    these tests replay a change dozens of times and are about order, not durability."""
    monkeypatch.setattr(write_fs.os, "fsync", lambda fd: None)


def _count_calls(make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch, files, build, name: str) -> tuple[int, dict, int]:  # type: ignore[no-untyped-def]
    """A clean run's filesystem calls, its tree after, and the step of its commit mark."""
    probe = make_root(dict(files), name=f"probe-{name}")
    counter = Faults(monkeypatch)
    snapshot = load_root(probe)
    write.run(snapshot, build(snapshot))
    return counter.count, tree(probe), commit_mark(counter.calls)


@pytest.mark.parametrize("name,files,build", MULTI_FILE)
def test_crash_after_every_step_recovers_byte_identical(
    make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch, no_fsync: None, name: str, files, build  # type: ignore[no-untyped-def]
) -> None:
    steps, after_tree, mark = _count_calls(make_root, monkeypatch, files, build, name)
    assert steps >= 12
    for k in range(1, steps + 1):
        root = make_root(dict(files), name=f"{name}-{k}")
        before = tree(root)
        snapshot = load_root(root)
        preview = write.plan(snapshot, build(snapshot))
        faults = Faults(monkeypatch, fail_at=k, error=Crash)
        with pytest.raises(Crash):
            write.commit(preview)
        assert faults.count == k
        write.recover(root)
        committed = any(r.state == "committed" for r in list_records(root))
        expected = after_tree if committed else before
        assert tree(root) == expected, f"{name}: crash after step {k} ({faults.calls[-1]})"
        assert not any(r.state == "pending" for r in list_records(root))
        assert committed == (k > mark), f"{name}: step {k} of {steps} (the mark is step {mark})"


@pytest.mark.parametrize("name,files,build", MULTI_FILE)
def test_io_error_at_every_step_rolls_back(
    make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch, no_fsync: None, name: str, files, build  # type: ignore[no-untyped-def]
) -> None:
    steps, _, mark = _count_calls(make_root, monkeypatch, files, build, name)
    for k in range(1, steps + 1):
        root = make_root(dict(files), name=f"io-{name}-{k}")
        before = tree(root)
        snapshot = load_root(root)
        preview = write.plan(snapshot, build(snapshot))
        Faults(monkeypatch, fail_at=k, error=lambda: OSError(errno.EIO, "I/O error"))
        try:
            write.commit(preview)
        except write.WriteFailed as exc:
            assert "I/O error" in str(exc)
            assert tree(root) == before, f"{name}: I/O error at step {k}"
        else:  # the fault hit after the commit mark: the change is made and durable
            assert k > mark
        assert not any(r.state == "pending" for r in list_records(root))


@pytest.mark.parametrize(
    "code,message",
    [(errno.ENOSPC, "disk is full"), (errno.EACCES, "permission denied"),
     (errno.EROFS, "read-only file system"), (errno.EPERM, "permission denied")],
)
def test_disk_errors_give_a_clear_message(root: Path, monkeypatch: pytest.MonkeyPatch, code: int,
                                          message: str) -> None:
    before = tree(root)
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.archive(snapshot, "alpha.md"))
    writes = {"n": 0}
    original = disk.write_tmp

    def failing(path: str, data: bytes, mode: int | None) -> None:
        writes["n"] += 1
        if writes["n"] == 2:  # the journal record went through; the first file write fails
            raise OSError(code, os.strerror(code), path)
        original(path, data, mode)

    monkeypatch.setattr(disk, "write_tmp", failing)
    with pytest.raises(write.WriteFailed, match=message) as info:
        write.commit(preview)
    assert "nothing was changed" in str(info.value)
    assert tree(root) == before


def test_unwritable_root_gives_a_clear_message(root: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Injected: as root, chmod does not stop writes, so the refusal is simulated."""
    before = tree(root, include_memtui=True)

    def refuse(path: str) -> None:
        raise PermissionError(errno.EACCES, "Permission denied", path)

    monkeypatch.setattr(disk, "mkdir", refuse)
    snapshot = load_root(root)
    with pytest.raises(write.WriteFailed, match="permission denied.*nothing was changed"):
        write.run(snapshot, verbs.pin(snapshot, "alpha.md"))
    assert tree(root, include_memtui=True) == before


@pytest.mark.skipif(os.geteuid() == 0, reason="running as root: chmod does not stop root from writing "
                    "(covered by test_unwritable_root_gives_a_clear_message through injection)")
def test_read_only_folder(root: Path) -> None:
    before = tree(root)
    os.chmod(root, 0o555)
    try:
        snapshot = load_root(root)
        with pytest.raises(write.WriteFailed, match="permission denied"):
            write.run(snapshot, verbs.pin(snapshot, "alpha.md"))
    finally:
        os.chmod(root, 0o755)
    assert tree(root) == before


def test_killed_mid_apply_recovers_on_next_open(root: Path) -> None:
    before = tree(root)
    script = textwrap.dedent(
        """
        import os, sys
        from memtui.core.verbs import lifecycle as verbs; from memtui.core import write
        from memtui.core.write.fs import disk
        from memtui.core.read.store import load_root
        snapshot = load_root(sys.argv[1])
        preview = write.plan(snapshot, verbs.archive(snapshot, "alpha.md"))
        calls = {"n": 0}
        original = disk.replace
        def replace(src, dst):
            calls["n"] += 1
            if calls["n"] == 3:  # journal record, the move, then die before the index is written
                os._exit(17)
            original(src, dst)
        disk.replace = replace
        write.commit(preview)
        """
    )
    proc = subprocess.run([sys.executable, "-c", script, str(root)], cwd=REPO, capture_output=True, timeout=60)
    assert proc.returncode == 17, proc.stderr.decode()
    assert not (root / "alpha.md").exists()  # the process really died half-way
    assert [r.state for r in list_records(root)] == ["pending"]
    snapshot = write.open_root(root)
    assert tree(root) == before
    assert "alpha.md" in snapshot.files
    assert [r.state for r in list_records(root)] == ["rolled-back"]


def test_recover_without_journal_touches_nothing(root: Path) -> None:
    before = tree(root, include_memtui=True)
    assert write.recover(root) == []
    assert tree(root, include_memtui=True) == before


# ---------------------------------------------------------------- the lock


def _hold_lock(root: Path) -> subprocess.Popen[bytes]:
    """Another process holding the root's lock until its stdin closes (or it is killed)."""
    script = (
        "import sys\nfrom memtui.core import write\n"
        "with write.root_lock(sys.argv[1]):\n    print('locked', flush=True)\n"
        "    sys.stdin.read()\n"
    )
    proc = subprocess.Popen([sys.executable, "-c", script, str(root)], cwd=REPO,
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"locked"
    return proc


def test_busy_when_another_memtui_holds_the_lock(root: Path) -> None:
    proc = _hold_lock(root)
    try:
        snapshot = load_root(root)
        with pytest.raises(write.Busy, match="busy"):
            write.run(snapshot, verbs.pin(snapshot, "alpha.md"), timeout=0.2)
        assert (root / "alpha.md").read_bytes() == VALID_ROOT["alpha.md"].encode()
        assert write.recover(root, timeout=0.1) == []
    finally:
        proc.kill()
        proc.communicate()
    snapshot = load_root(root)
    write.run(snapshot, verbs.pin(snapshot, "alpha.md"))


def test_lock_is_reentrant_within_a_thread(root: Path) -> None:
    with write.root_lock(root):
        with write.root_lock(root):
            snapshot = write.open_root(root)
            write.run(snapshot, verbs.pin(snapshot, "alpha.md"))
    assert b"pinned: true" in (root / "alpha.md").read_bytes()


def test_two_processes_are_serialised_and_both_land(root: Path) -> None:
    """The first change is held inside its commit until the second process says it found the
    lock taken; then both finish (no clock: each step waits for the other's word)."""
    first = textwrap.dedent(
        """
        import sys
        from memtui.core.write import fs as write_fs
        real = write_fs.FileSystem.fsync_dir
        held = []
        def fsync_dir(self, path):
            if not held and write_fs._HELD:  # inside the commit, holding the lock: say so, wait
                held.append(True)
                print("in-commit", flush=True)
                sys.stdin.readline()
            real(self, path)
        write_fs.FileSystem.fsync_dir = fsync_dir
        from memtui.cli.main import main
        sys.exit(main(sys.argv[1:]))
        """
    )
    second = textwrap.dedent(
        """
        import sys
        from memtui.core.write import fs as write_fs
        real = write_fs.fcntl.flock
        said = []
        def flock(fd, op):
            try:
                return real(fd, op)
            except OSError:
                if not said:
                    said.append(True)
                    print("waiting", flush=True)
                raise
        write_fs.fcntl.flock = flock
        from memtui.cli.main import main
        sys.exit(main(sys.argv[1:]))
        """
    )
    procs = []
    for script, verb, name in ((first, "pin", "alpha.md"), (second, "decay", "gamma.md")):
        procs.append(subprocess.Popen([sys.executable, "-c", script, verb, name, "--root", str(root)],
                                      cwd=REPO, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                      stderr=subprocess.PIPE))
        said = b"in-commit" if verb == "pin" else b"waiting"
        assert procs[-1].stdout is not None and procs[-1].stdout.readline().strip() == said
    assert procs[0].stdin is not None
    procs[0].stdin.write(b"go\n")
    procs[0].stdin.flush()
    outputs = [proc.communicate(timeout=60) for proc in procs]
    assert [p.returncode for p in procs] == [0, 0], outputs
    snapshot = load_root(root)
    assert snapshot.files["alpha.md"].pinned
    assert not any(line.resolved == "gamma.md" for line in snapshot.index.entries)
    assert [r.state for r in list_records(root)] == ["committed", "committed"]
    assert errors_of(root) == []
