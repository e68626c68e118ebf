"""The PreToolUse hook's judgement from a root's kept answer is the full replay's, by hypothesis.

Random roots and random memory writes (a new file, an edit of a topic file, index lines added
or removed, a secret, a broken frontmatter, a write that leaves another file an orphan, an edit
Claude Code refuses itself), some landing on disk after their answer and some not, and changes
made behind the hook's back (a shell or an editor): each verdict of
:func:`memtui.core.hooks.judge.judge_kept` (or of :func:`judge_full`, when the kept answer cannot
be used) equals the full replay's — :func:`memtui.core.hooks.policy.judge_write` on the root loaded
whole — and the verified kept answer equals :func:`memtui.core.rules.validate.validate`.
"""

from __future__ import annotations

import os
import tempfile
import time
from pathlib import Path
from typing import Any
from unittest import mock

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.core.hooks.judge import NoKept, judge_full, judge_kept
from memtui.core.hooks.policy import HookVerdict, current_text, judge_write, proposed_text
from memtui.core.model.snapshot import BudgetConfig
from memtui.core.read.store import load_root
from memtui.core.rules.validate import validate
from memtui.core.stores import kept
from memtui.core.stores.statcache import StatCache
from tests.support.random_roots import INDEX_LINES, POOL, content, roots, write_root
from tests.support.roots import topic

SECRET = "aws key AKIAIOSFODNN7EXAMPLQ and ghp_abcdefghijklmnopqrstuvwxyz0123\n"
FUTURE_NS = 10 * 10**9  # a clock this far ahead: every file is old enough to trust its stat key


class Disk:
    """One root on disk whose changes get distinct mtimes (so that, with a clock that trusts
    every stat key, no two versions of a file share one): a file's, and its folder's when an
    entry comes or goes (as a folder's mtime moves on, one tick at least, in real use)."""

    def __init__(self, root: Path, aged: bool) -> None:
        self.root = root
        self.aged = aged
        self.tick = 0

    def clock(self) -> int:
        return time.time_ns() + (FUTURE_NS if self.aged else 0)

    def _stamp(self, path: Path) -> None:
        self.tick += 1
        stamp = time.time_ns() - 10**9 * 1000 + self.tick * 10**6
        os.utime(path, ns=(stamp, stamp))

    def _folders_changed(self, path: Path) -> None:
        """Stamp the folders from ``path``'s own up to the root (a folder made below the root
        is an entry come into the folder above)."""
        folder = path.parent
        while True:
            self._stamp(folder)
            if folder == self.root or self.root not in folder.parents:
                return
            folder = folder.parent

    def put(self, rel: str, text: str) -> None:
        path = self.root / rel
        new = not path.exists()
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8", errors="surrogateescape")
        self._stamp(path)
        if new:
            self._folders_changed(path)

    def remove(self, rel: str) -> None:
        (self.root / rel).unlink()
        self._folders_changed(self.root / rel)

    def rename(self, rel: str, to: str) -> None:
        (self.root / to).parent.mkdir(parents=True, exist_ok=True)
        (self.root / rel).rename(self.root / to)
        self._folders_changed(self.root / rel)
        self._folders_changed(self.root / to)

    def link(self, rel: str, target: str) -> None:
        """A symlink at ``rel`` to the root's ``target`` (its folder's listing depends on
        ``target`` from then on)."""
        (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
        (self.root / rel).symlink_to(self.root / target)
        self._folders_changed(self.root / rel)

    def hard_link(self, rel: str, target: str) -> None:
        """A second name ``rel`` for the root's file ``target`` (a write through either name
        changes both, and no hook names the other)."""
        (self.root / rel).parent.mkdir(parents=True, exist_ok=True)
        os.link(self.root / target, self.root / rel, follow_symlinks=False)
        self._folders_changed(self.root / rel)

    def memory(self) -> list[str]:
        return sorted(p.relative_to(self.root).as_posix() for p in self.root.rglob("*.md")
                      if not p.name.startswith("MEMORY") and p.exists())


def _behind_the_back(data: Any, disk: Disk) -> None:
    """A change no hook judged: a file's bytes rewritten in place, a file added (maybe in a new
    folder), removed or renamed, a symlink made to a file (or to one that goes later), or a hard
    link: a second name for a file, which judged writes of either name then change together."""
    files = disk.memory()
    kind = data.draw(st.sampled_from(["rewrite", "add", "remove", "rename", "link", "hard-link"]))
    if kind == "add" or not files:
        rel = data.draw(st.sampled_from(POOL + ["fresh_fact.md", "new_dir/fact.md", "sub/two.md"]))
        disk.put(rel, content(rel, data.draw(st.integers(0, 9))))
    elif kind == "remove":
        disk.remove(data.draw(st.sampled_from(files)))
    elif kind == "rename":
        rel = data.draw(st.sampled_from(files))
        to = data.draw(st.sampled_from([p for p in POOL + ["moved.md", "new_dir/moved.md"]
                                        if not (disk.root / p).exists()] or ["moved_2.md"]))
        if not (disk.root / to).exists():
            disk.rename(rel, to)
    elif kind == "link":
        rel = data.draw(st.sampled_from(["linked.md", "sub/linked.md"]))
        if not os.path.lexists(disk.root / rel):
            disk.link(rel, data.draw(st.sampled_from(files)))
    elif kind == "hard-link":
        rel = data.draw(st.sampled_from(["hard.md", "sub/hard.md", "new_dir/hard.md"]))
        if not os.path.lexists(disk.root / rel):
            disk.hard_link(rel, data.draw(st.sampled_from(files)))
    else:
        rel = data.draw(st.sampled_from(files + ["MEMORY.md"]))
        text = data.draw(st.sampled_from(INDEX_LINES)) + "\n" if rel == "MEMORY.md" \
            else content(rel, data.draw(st.integers(0, 9)))
        disk.put(rel, text)


def _draw_write(data: Any, disk: Disk) -> tuple[str, str, dict[str, Any]]:
    """A tool call Claude Code could make in the memory folder: (tool, rel, tool_input)."""
    files = disk.memory()
    index = (disk.root / "MEMORY.md").read_text() if (disk.root / "MEMORY.md").exists() else ""
    kinds = ["new", "edit-topic", "rewrite-topic", "index-add", "index-remove", "secret",
             "break-frontmatter", "refused-edit", "archive-index"]
    kind = data.draw(st.sampled_from(kinds))
    path = lambda rel: str(disk.root / rel)  # noqa: E731
    if kind in ("new", "secret", "break-frontmatter") or not files:
        rel = data.draw(st.sampled_from(POOL + ["fresh_fact.md", "team/shared.md"]))
        text = {"new": content(rel, data.draw(st.integers(0, 9))),
                "secret": topic(rel[:-3].rsplit("/")[-1], "creds", body=SECRET),
                "break-frontmatter": "---\nname: broken\ndescription: never closed\n"}.get(
            kind, content(rel, data.draw(st.integers(0, 9))))
        return "Write", rel, {"file_path": path(rel), "content": text}
    if kind in ("edit-topic", "refused-edit"):
        rel = data.draw(st.sampled_from(files))
        text = (disk.root / rel).read_text(errors="surrogateescape")
        lines = text.splitlines(keepends=True) or [""]
        old = data.draw(st.sampled_from(lines)) if kind == "edit-topic" else "no such text\n"
        new = data.draw(st.sampled_from(["", "status: archived\n", "pinned: true\n",
                                         "superseded_by: lesson_a.md\n", SECRET, "plain line\n"]))
        return "Edit", rel, {"file_path": path(rel), "old_string": old, "new_string": new,
                             "replace_all": data.draw(st.booleans())}
    if kind == "rewrite-topic":
        rel = data.draw(st.sampled_from(files))
        return "Write", rel, {"file_path": path(rel),
                              "content": content(rel, data.draw(st.integers(0, 9)))}
    if kind == "index-add":
        line = data.draw(st.sampled_from(INDEX_LINES + [f"- [{p}]({p}) — about {p}" for p in files]))
        if index and data.draw(st.booleans()):
            return "Edit", "MEMORY.md", {"file_path": path("MEMORY.md"), "old_string": index,
                                         "new_string": index + line + "\n"}
        return "Write", "MEMORY.md", {"file_path": path("MEMORY.md"), "content": index + line + "\n"}
    if kind == "index-remove" and index.strip():
        line = data.draw(st.sampled_from([ln for ln in index.splitlines(keepends=True) if ln]))
        return "Edit", "MEMORY.md", {"file_path": path("MEMORY.md"), "old_string": line,
                                     "new_string": ""}
    name = "MEMORY-archive.md"
    line = data.draw(st.sampled_from([f"- [{p}]({p}) — archived" for p in files] + INDEX_LINES))
    return "Write", name, {"file_path": path(name), "content": line + "\n"}


def _full_replay(root: Path, rel: str, tool: str, tool_input: dict[str, Any]) -> HookVerdict | None:
    """What ``hook pre`` always answered: the write played on the whole root, loaded from disk."""
    snapshot = load_root(root)
    after = proposed_text(tool, tool_input, current_text(snapshot, rel))
    return None if after is None else judge_write(snapshot, rel, after, tool)


def _judged(disk: Disk, rel: str, tool: str, tool_input: dict[str, Any],
            baseline_needed: bool) -> tuple[HookVerdict | None, bool]:
    """The hook's verdict, and whether the kept answer gave it."""
    try:
        return judge_kept(disk.root, rel, tool, tool_input, baseline_needed=baseline_needed,
                          clock=disk.clock), True
    except NoKept:
        return judge_full(disk.root, rel, tool, tool_input, clock=disk.clock), False


def _same(got: HookVerdict | None, want: HookVerdict | None, with_before: bool) -> None:
    if want is None or got is None:
        assert got == want
        return
    assert (got.decision, got.reason, got.summary, got.refusing) == \
        (want.decision, want.reason, want.summary, want.refusing)
    if with_before:
        assert got.before == want.before


def _kept_is_true(disk: Disk, unseen: bool) -> None:
    """The verified kept answer (what the Stop hook validates with) is the full validation; so
    is the quick one, when nothing changed behind the hook's back."""
    want = validate(load_root(disk.root))
    for verify in (True, False) if not unseen else (True,):
        now = kept.current(disk.root, verify=verify,
                           cache=StatCache.open(disk.root, disk.clock, read=False))
        if now is not None:
            assert list(now.found.findings) == want


@settings(max_examples=100, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(files=roots(), data=st.data())
def test_kept_verdict_equals_the_full_replay(files: dict[str, str], data: Any) -> None:
    with tempfile.TemporaryDirectory() as tmp, \
            mock.patch.dict(os.environ, {"MEMTUI_CACHE_DIR": f"{tmp}/cache"}):
        os.environ.pop("MEMTUI_NO_CACHE", None)
        disk = Disk(write_root(Path(tmp), {}), aged=data.draw(st.booleans()))
        for rel, text in files.items():
            disk.put(rel, text)
        if files and data.draw(st.booleans()):  # two names for one file before the first write
            disk.hard_link(data.draw(st.sampled_from(["hard.md", "sub/hard.md"])),
                           data.draw(st.sampled_from(sorted(files))))
        baseline_needed = data.draw(st.integers(0, 3)) == 0
        unseen = False  # a change made behind the hook's back since the root was last verified
        used_kept = 0
        for _ in range(data.draw(st.integers(2, 6))):
            if data.draw(st.integers(0, 4)) == 0:  # a shell or an editor changes the root
                _behind_the_back(data, disk)
                unseen = True
                continue
            tool, rel, tool_input = _draw_write(data, disk)
            want = _full_replay(disk.root, rel, tool, tool_input)
            got, from_kept = _judged(disk, rel, tool, tool_input, baseline_needed)
            used_kept += from_kept
            _same(got, want, with_before=not unseen or baseline_needed or not from_kept)
            if got is not None and (not from_kept or got.decision == "deny" or baseline_needed):
                unseen = False  # that run read (or checked) every file, and kept what it saw
            if got is not None and data.draw(st.booleans()):  # the write lands
                after = proposed_text(tool, tool_input, current_text(load_root(disk.root), rel))
                assert after is not None
                disk.put(rel, after)
            _kept_is_true(disk, unseen)
            if data.draw(st.integers(0, 3)) == 0:  # the Stop hook: verified, kept again
                found = kept.validate_kept(disk.root, clock=disk.clock)
                if found is not None:
                    assert found == validate(load_root(disk.root))
                    unseen = False


# ---------------------------------------------------------------- when the kept answer goes


INDEX = "# Memory\n\n- [Alpha](alpha.md) — the first fact\n- [Beta](beta.md) — the second\n"


@pytest.fixture
def kept_root(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Disk:
    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("MEMTUI_NO_CACHE", raising=False)
    disk = Disk(tmp_path / "mem", aged=True)
    disk.put("MEMORY.md", INDEX)
    disk.put("alpha.md", topic("alpha", "the first fact"))
    disk.put("beta.md", topic("beta", "the second", body="See [[alpha]].\n"))
    for i in range(20):
        disk.put(f"other_{i}.md", topic(f"other {i}", "more"))
    disk.put("MEMORY.md", INDEX + "- region `other_*.md` → the others; grep\n")
    return disk


def _write_index(disk: Disk, text: str) -> tuple[str, str, dict[str, Any]]:
    return "Write", "MEMORY.md", {"file_path": str(disk.root / "MEMORY.md"), "content": text}


def _edit(disk: Disk, rel: str, old: str, new: str) -> tuple[str, str, dict[str, Any]]:
    return "Edit", rel, {"file_path": str(disk.root / rel), "old_string": old, "new_string": new}


def _both(disk: Disk, call: tuple[str, str, dict[str, Any]]) -> tuple[HookVerdict | None, bool]:
    tool, rel, tool_input = call
    want = _full_replay(disk.root, rel, tool, tool_input)
    got, from_kept = _judged(disk, rel, tool, tool_input, baseline_needed=False)
    _same(got, want, with_before=True)
    return got, from_kept


def test_no_kept_answer_is_a_full_replay_that_keeps_one(kept_root: Disk) -> None:
    call = _edit(kept_root, "alpha.md", "the first fact", "the first fact, reworded")
    assert _both(kept_root, call)[1] is False  # nothing kept yet
    assert _both(kept_root, call)[1] is True


def test_a_stale_kept_answer_falls_back_or_catches_up(kept_root: Disk) -> None:
    disk = kept_root
    orphaning = _write_index(disk, "# Memory\n\n- [Alpha](alpha.md) — the first fact\n")
    assert _both(disk, orphaning)[1] is False
    verdict, from_kept = _both(disk, orphaning)
    assert from_kept and verdict is not None and verdict.decision == "deny"  # beta.md orphaned
    # a judged write that landed: its file is in the dirty log, read again and caught up
    archived = topic("beta", "the second, archived", status="archived", body="See [[alpha]].\n")
    call = ("Write", "beta.md", {"file_path": str(disk.root / "beta.md"), "content": archived})
    verdict, from_kept = _both(disk, call)
    assert from_kept and verdict is not None and verdict.decision == "deny"  # archived-in-index
    disk.put("beta.md", archived)  # it lands all the same (a shell, say)
    verdict, from_kept = _both(disk, _edit(disk, "alpha.md", "first", "1st"))
    assert from_kept and verdict is not None and verdict.before and verdict.before[0].rule == \
        "archived-in-index"
    # a file changed behind the hook's back, which this write makes the step read: Stale, full
    disk.put("other_3.md", topic("other 3", "changed by a shell", pinned="true"))
    verdict, from_kept = _both(disk, _write_index(disk, INDEX))
    assert not from_kept and verdict is not None and verdict.decision == "deny"
    # an index changed behind the hook's back is read every time
    disk.put("MEMORY.md", INDEX)
    assert _both(disk, _edit(disk, "alpha.md", "1st", "first"))[1] is True
    # a file added or removed behind its back is in the listing
    disk.put("gamma.md", topic("gamma", "new"))
    disk.remove("other_0.md")
    assert _both(disk, _edit(disk, "alpha.md", "first", "1st"))[1] is True


def test_what_the_kept_answer_cannot_vouch_for_is_a_full_replay(kept_root: Disk) -> None:
    disk = kept_root
    call = _edit(disk, "alpha.md", "the first fact", "the first fact, reworded")
    _both(disk, call)
    assert _both(disk, call)[1] is True
    # another memtui or Python (the fingerprint), or another budget configuration
    with mock.patch("memtui.core.stores.kept.fingerprint", return_value=("other",)):
        assert _both(disk, call)[1] is False
    _both(disk, call)
    cache = StatCache.open(disk.root, disk.clock, read=False)
    assert kept.current(disk.root, BudgetConfig(max_lines=50), verify=False, cache=cache) is None
    # a pending journal record (an interrupted change)
    journal = disk.root / ".memtui" / "journal"
    journal.mkdir(parents=True)
    with mock.patch("memtui.core.stores.kept.pending_records", return_value=("0001.json",)):
        assert kept.current(disk.root, verify=False, cache=cache) is None
    # a torn or emptied kept answer
    kept.forget(cache)
    assert _both(disk, call)[1] is False
    # a dirty log that cannot be written takes the kept answer away
    with mock.patch("memtui.core.stores.kept._open_dirty", side_effect=OSError("read-only")):
        assert _both(disk, call)[1] is False
    assert _both(disk, call)[1] is False


def test_young_files_are_kept_by_their_bytes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(tmp_path / "cache"))
    disk = Disk(tmp_path / "mem", aged=False)  # the real clock: every file is too young
    disk.put("MEMORY.md", INDEX)
    disk.put("alpha.md", topic("alpha", "the first fact"))
    disk.put("beta.md", topic("beta", "the second"))
    call = _edit(disk, "beta.md", "the second", "the second one")
    assert _both(disk, call)[1] is False
    assert _both(disk, call)[1] is True
    disk.put("alpha.md", topic("alpha", "changed by an editor", pinned="true"))  # same key or not
    assert _both(disk, _write_index(disk, "# Memory\n\n- [Beta](beta.md) — the second\n"))[0] \
        is not None


def _quick(disk: Disk) -> kept.Current:
    now = kept.current(disk.root, verify=False, cache=StatCache.open(disk.root, disk.clock, read=False))
    assert now is not None
    return now


def test_a_quick_run_patches_the_kept_answer_with_what_it_read(kept_root: Disk) -> None:
    disk = kept_root
    folder, name, _ = kept._files(StatCache.open(disk.root, disk.clock, read=False)) or ("", "", "")
    patch = Path(folder) / kept._patch_name(str(name))
    first = _edit(disk, "alpha.md", "the first fact", "the first fact, reworded")
    _both(disk, first)
    assert _both(disk, first)[1] is True
    disk.put("alpha.md", topic("alpha", "the first fact, put otherwise"))  # not as judged
    assert _quick(disk).changed == {"alpha.md"}
    patch.write_bytes(b"")
    # the next judged write reads alpha.md again, once: it keeps what it read as a patch
    verdict, from_kept = _both(disk, _edit(disk, "beta.md", "the second", "the second one"))
    assert from_kept and verdict is not None and verdict.decision == "allow"
    assert patch.stat().st_size > 0
    now = _quick(disk)  # beta.md's write did not land: it is read again; alpha.md is not
    assert now.changed == {"beta.md"}
    disk.put("beta.md", topic("beta", "the second one", body="See [[alpha]].\n"))
    now = _quick(disk)
    assert now.changed == frozenset() and list(now.found.findings) == validate(load_root(disk.root))
    assert _both(disk, _edit(disk, "other_1.md", "more", "more still"))[1] is True
    # an index write that lands is patched in too
    index = (disk.root / "MEMORY.md").read_text()
    disk.put("MEMORY.md", index + "- [Other 1](other_1.md) — one of the others\n")
    verdict, from_kept = _both(disk, _edit(disk, "alpha.md", "put otherwise", "put again"))
    assert from_kept and verdict is not None
    assert _quick(disk).changed == {"alpha.md"}  # judged, not landed
    # a patch of another kept answer is passed over: the files are read again
    stale_patch = patch.read_bytes()
    assert kept.validate_kept(disk.root, clock=disk.clock) == validate(load_root(disk.root))
    assert patch.read_bytes() == b""  # a verified run keeps a new answer, the patch goes
    disk.put("alpha.md", topic("alpha", "changed once more"))
    patch.write_bytes(stale_patch)
    assert _quick(disk).changed == {"alpha.md"}
    _both(disk, _edit(disk, "beta.md", "the second one", "the second"))
    # a torn patch is none
    patch.write_bytes(patch.read_bytes()[:-3])
    assert _quick(disk).changed == {"alpha.md"}
    assert _both(disk, _edit(disk, "beta.md", "the second", "the second one"))[1] is True


def test_an_allowed_write_is_kept_as_it_will_land(kept_root: Disk) -> None:
    disk = kept_root
    call = _edit(disk, "alpha.md", "the first fact", "the first fact, reworded")
    _both(disk, call)
    verdict, from_kept = _both(disk, call)
    assert from_kept and verdict is not None and verdict.decision == "allow"
    disk.put("alpha.md", topic("alpha", "the first fact, reworded"))  # it lands as judged
    now = _quick(disk)
    assert now.changed == frozenset() and list(now.found.findings) == validate(load_root(disk.root))
    # an index line that lands as judged, likewise
    index = (disk.root / "MEMORY.md").read_text()
    line = "- [Other 2](other_2.md) — one of the others\n"
    verdict, from_kept = _both(disk, _write_index(disk, index + line))
    assert from_kept and verdict is not None and verdict.decision == "allow"
    disk.put("MEMORY.md", index + line)
    now = _quick(disk)
    assert now.changed == frozenset() and list(now.found.findings) == validate(load_root(disk.root))
    # a write that lands otherwise (or not at all) is read again
    verdict, _ = _both(disk, _edit(disk, "beta.md", "the second", "the second one"))
    assert verdict is not None and verdict.decision == "allow"
    disk.put("beta.md", topic("beta", "the second, otherwise", body="See [[alpha]].\n"))
    now = _quick(disk)
    assert now.changed == {"beta.md"} and list(now.found.findings) == validate(load_root(disk.root))
    verdict, from_kept = _both(disk, _edit(disk, "other_4.md", "more", "more again"))
    assert from_kept and verdict is not None  # not landed: other_4.md is read again, as it is
    assert _quick(disk).changed == {"other_4.md"}


ARCHIVE = ("# Archive\n\n- [Old A](archive/old_a.md) — retired\n- [Gamma](gamma.md) — not written yet\n"
           "- [Old B](archive/old_b.md) — twice\n- [Old B again](archive/old_b.md) — twice\n"
           "- retired notes, see [delta](delta.md) and [Old A](archive/old_a.md)\n")


def test_the_archive_index_is_looked_at_only_when_a_write_can_change_what_it_adds(
        kept_root: Disk) -> None:
    disk = kept_root
    disk.put("archive/old_a.md", topic("old a", "retired"))
    disk.put("archive/old_b.md", topic("old b", "retired"))
    disk.put("MEMORY-archive.md", ARCHIVE)
    call = _edit(disk, "alpha.md", "the first fact", "the first fact, reworded")
    assert _both(disk, call)[1] is False
    assert _both(disk, call)[1] is True
    # a write of a topic file no archive line names: the archive's findings are the kept ones
    tool, rel, tool_input = call
    now = _quick(disk)
    after = proposed_text(tool, tool_input, current_text(now.snapshot, rel))
    assert after is not None
    verdict = judge_write(now.snapshot, rel, after, tool, now.found)
    want = _full_replay(disk.root, rel, tool, tool_input)
    _same(verdict, want, with_before=True)
    assert "lines" not in now.snapshot.archive_index.__dict__  # its lines were never built
    rules = {f.rule for f in verdict.before or ()}
    assert {"broken-link", "duplicate-entry"} <= rules  # and still found
    # the file an archive line names is written: its broken link goes (the part is worked out again)
    write = ("Write", "gamma.md", {"file_path": str(disk.root / "gamma.md"),
                                   "content": topic("gamma", "now written")})
    assert _both(disk, write)[1] is True
    disk.put("gamma.md", topic("gamma", "now written"))
    assert _both(disk, call)[1] is True
    # an active entry for a file the archive lists: a duplicate across both indexes
    index = (disk.root / "MEMORY.md").read_text() + "- [Old A](archive/old_a.md) — back\n"
    assert _both(disk, _write_index(disk, index))[1] is True
    disk.put("MEMORY.md", index)
    assert _both(disk, call)[1] is True
    # files the archive names come and go behind the hook's back
    disk.remove("archive/old_b.md")
    disk.put("delta.md", topic("delta", "written by a shell"))
    assert _both(disk, call)[1] is True
    _kept_is_true(disk, unseen=True)
    # and the archive index itself changes
    disk.put("MEMORY-archive.md", ARCHIVE + "- [Alpha](alpha.md) — listed here too\n")
    assert _both(disk, call)[1] is True
    _kept_is_true(disk, unseen=True)


def test_kept_archive_lines_that_are_not_an_index_send_the_write_to_the_full_replay(
        kept_root: Disk) -> None:
    import marshal
    import zlib

    disk = kept_root
    disk.put("MEMORY-archive.md", ARCHIVE)
    call = _edit(disk, "alpha.md", "the first fact", "the first fact, reworded")
    _both(disk, call)
    assert _both(disk, call)[1] is True
    folder, name, _ = kept._files(StatCache.open(disk.root, disk.clock, read=False)) or ("", "", "")
    path = Path(folder) / str(name)
    head = len(kept.MAGIC) + 4
    value = list(marshal.loads(path.read_bytes()[head:]))
    blob, bom, scopes = value[12]
    value[12] = (marshal.dumps(("not", "an", "index")), bom, scopes)  # checksummed all the same
    body = marshal.dumps(tuple(value))
    path.write_bytes(kept.MAGIC + zlib.crc32(body).to_bytes(4, "little") + body)
    assert _both(disk, call)[1] is True  # a write the archive's lines are not needed for
    write = ("Write", "gamma.md", {"file_path": str(disk.root / "gamma.md"),
                                   "content": topic("gamma", "now written")})
    assert _both(disk, write)[1] is False  # the archive names gamma.md: its lines are built


def test_a_write_through_a_hard_link_changes_its_other_names_too(kept_root: Disk) -> None:
    disk = kept_root
    disk.hard_link("hard.md", "other_5.md")  # two names, one file
    call = _edit(disk, "alpha.md", "the first fact", "the first fact, reworded")
    assert _both(disk, call)[1] is False  # the new name: a full replay, which keeps both names
    assert _both(disk, call)[1] is True
    # a judged write of one name lands: the other name's bytes change with it, no hook naming it
    secret = topic("other 5", "more", body=SECRET)
    verdict, _ = _both(disk, ("Write", "other_5.md",
                              {"file_path": str(disk.root / "other_5.md"), "content": secret}))
    assert verdict is not None and verdict.decision == "deny"
    disk.put("other_5.md", secret)  # it lands all the same (a shell, say)
    assert (disk.root / "hard.md").read_text() == secret
    want = validate(load_root(disk.root))
    assert any(f.path == "hard.md" and f.rule == "secret" for f in want)
    # the next write is judged on what both names hold now (the secret is "already there" twice)
    verdict, _ = _both(disk, _edit(disk, "alpha.md", "the first fact", "the 1st fact"))
    assert verdict is not None and {f.path for f in verdict.before or ()} >= {"hard.md", "other_5.md"}
    _kept_is_true(disk, unseen=False)


# ---------------------------------------------------------------- the dirty log is read bounded


def _dirty_log(disk: Disk) -> Path:
    where = kept._files(StatCache.open(disk.root, disk.clock, read=False))
    assert where is not None
    return where[0] / where[2]


def test_a_dirty_log_over_its_bound_is_not_read_and_a_full_validation_runs(
        kept_root: Disk, monkeypatch: pytest.MonkeyPatch) -> None:
    disk = kept_root
    call = _edit(disk, "alpha.md", "the first fact", "the first fact, reworded")
    _both(disk, call)
    assert _both(disk, call)[1] is True
    log = _dirty_log(disk)
    with open(log, "r+b") as handle:  # 64 MiB, sparse: nothing of it is on disk
        handle.truncate(64 << 20)
    reads: list[int] = []
    real_pread, real_read = os.pread, os.read

    def pread(fd: int, size: int, offset: int) -> bytes:
        reads.append(size)
        return real_pread(fd, size, offset)

    def read(fd: int, size: int) -> bytes:
        reads.append(size)
        return real_read(fd, size)

    with monkeypatch.context() as patch:
        patch.setattr(os, "pread", pread)
        patch.setattr(os, "read", read)
        cache = StatCache.open(disk.root, disk.clock, read=False)
        assert kept.current(disk.root, verify=False, cache=cache) is None  # unreadable: full
    assert sum(reads) <= kept.DIRTY_READ_MAX_BYTES + 1  # before: every one of its 64 MiB
    assert _both(disk, call)[1] is False  # the hook validates the root in full …
    assert log.stat().st_size <= kept.DIRTY_MAX_BYTES  # … keeps a new answer, and trims the log
    assert _both(disk, call)[1] is True  # which is read again


def test_trimming_a_long_dirty_log_reads_only_its_tail(
        kept_root: Disk, monkeypatch: pytest.MonkeyPatch) -> None:
    disk = kept_root
    monkeypatch.setattr(kept, "DIRTY_MAX_BYTES", 4 << 10)
    monkeypatch.setattr(kept, "DIRTY_READ_MAX_BYTES", 16 << 10)
    call = _edit(disk, "alpha.md", "the first fact", "the first fact, reworded")
    _both(disk, call)
    assert _both(disk, call)[1] is True
    log = _dirty_log(disk)
    old = time.time_ns() - 2 * kept.DIRTY_KEEP_NS
    with open(log, "ab") as handle:  # 40 KiB of lines two hours old, then this hour's
        handle.write(b"".join(b"%d other_%d.md\n" % (old + i, i % 20) for i in range(2000)))
        handle.write(b"%d beta.md\n" % time.time_ns())
    assert log.stat().st_size > kept.DIRTY_READ_MAX_BYTES
    reads: list[int] = []
    real_pread = os.pread

    def pread(fd: int, size: int, offset: int) -> bytes:
        reads.append(size)
        return real_pread(fd, size, offset)

    with monkeypatch.context() as patch:
        patch.setattr(os, "pread", pread)
        assert _both(disk, call)[1] is False  # over the bound: a full validation, kept again
    assert reads and max(reads) <= kept.DIRTY_READ_MAX_BYTES + 1  # before: the whole log at once
    lines = log.read_bytes().splitlines()
    assert any(line.endswith(b" beta.md") for line in lines)  # this hour's line is kept, the old
    assert not any(line.endswith(kept.LINKED.encode()) for line in lines)  # ones are gone
    assert not any(b" other_" in line for line in lines)
    assert _both(disk, call)[1] is True


def test_a_trimmed_log_that_may_have_lost_lines_of_its_hour_checks_every_file(
        kept_root: Disk, monkeypatch: pytest.MonkeyPatch) -> None:
    disk = kept_root
    monkeypatch.setattr(kept, "DIRTY_MAX_BYTES", 4 << 10)
    monkeypatch.setattr(kept, "DIRTY_READ_MAX_BYTES", 16 << 10)
    call = _edit(disk, "alpha.md", "the first fact", "the first fact, reworded")
    _both(disk, call)
    log = _dirty_log(disk)
    now = time.time_ns()
    with open(log, "ab") as handle:  # 40 KiB of this hour's lines: more than the tail holds
        handle.write(b"".join(b"%d other_%d.md\n" % (now + i, i % 20) for i in range(2000)))
    assert _both(disk, call)[1] is False
    lines = log.read_bytes().splitlines()
    assert log.stat().st_size <= kept.DIRTY_MAX_BYTES + 64
    assert lines[0].endswith(b" " + kept.LINKED.encode())  # the runs of this hour verify
    assert _both(disk, call)[1] is True


# ---------------------------------------------------------------- a long index, kept


LONG = ("# Memory\n\n- [Alpha](alpha.md) — the first fact\n- [Beta](beta.md) — the second\n"
        "- Charts — see `charts.md` for the palette\n- [Gamma](gamma.md) — not written yet\n"
        "- region `decision-*.md` → old decisions; grep\n"
        + "".join(f"- [Other {i}](other_{i}.md) — more\n" for i in range(20))
        + "".join(f"- line {n}\n" for n in range(200)) + "- see `pastcut.md` too\n")


@pytest.mark.parametrize("rel, named", [
    ("new_fact.md", False), ("sub/new_fact.md", False),  # no index line names it
    ("gamma.md", True),  # a link does
    ("decision-new.md", True),  # a region glob covers it
    ("charts.md", True),  # a mention in the loaded part
    ("pastcut.md", True),  # a mention past the cut
])
def test_a_new_file_no_line_of_a_long_index_names_is_judged_without_its_lines(
        kept_root: Disk, rel: str, named: bool) -> None:
    disk = kept_root
    disk.put("decision-old.md", topic("decision old", "decided"))
    disk.put("MEMORY.md", LONG)
    call = _edit(disk, "alpha.md", "the first fact", "the first fact, reworded")
    assert _both(disk, call)[1] is False  # keeps the answer
    write = ("Write", rel, {"file_path": str(disk.root / rel), "content": topic("new", "a fact")})
    assert _both(disk, write)[1] is True
    now = _quick(disk)
    tool, _, tool_input = write
    after = proposed_text(tool, tool_input, current_text(now.snapshot, rel))
    assert after is not None
    verdict = judge_write(now.snapshot, rel, after, tool, now.found)
    _same(verdict, _full_replay(disk.root, rel, tool, tool_input), with_before=True)
    assert ("lines" in now.snapshot.index.__dict__) is named  # built only when a line names it
    assert {"budget-lines", "broken-link"} <= {f.rule for f in verdict.before or ()}
    _kept_is_true(disk, unseen=False)


def test_kept_index_lines_that_are_not_an_index_send_a_named_write_to_the_full_replay(
        kept_root: Disk) -> None:
    import marshal
    import zlib

    disk = kept_root
    disk.put("MEMORY.md", LONG)
    call = _edit(disk, "alpha.md", "the first fact", "the first fact, reworded")
    _both(disk, call)
    folder, name, _ = kept._files(StatCache.open(disk.root, disk.clock, read=False)) or ("", "", "")
    path = Path(folder) / str(name)
    head = len(kept.MAGIC) + 4
    value = list(marshal.loads(path.read_bytes()[head:]))
    blob, bom, scopes = value[11]
    value[11] = (marshal.dumps(("not", "an", "index")), bom, scopes)  # checksummed all the same
    body = marshal.dumps(tuple(value))
    path.write_bytes(kept.MAGIC + zlib.crc32(body).to_bytes(4, "little") + body)
    new = ("Write", "new_fact.md", {"file_path": str(disk.root / "new_fact.md"),
                                    "content": topic("new", "a fact")})
    assert _both(disk, new)[1] is True  # a write no index line names: its lines are not needed
    gamma = ("Write", "gamma.md", {"file_path": str(disk.root / "gamma.md"),
                                   "content": topic("gamma", "now written")})
    assert _both(disk, gamma)[1] is False  # a link names gamma.md: the lines are built
