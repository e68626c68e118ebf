"""Root discovery's kept answer (:class:`memtui.core.roots.discover.RootsMemo`): taken back only while no
folder the walk listed has changed, and always the answer a fresh walk gives.

Linux stamps a folder's mtime at a coarse tick, so a test that changes a folder within one tick
of the walk would see its key unchanged — the case the racy window exists for (a folder younger
than it is never kept).  The random test therefore runs with a clock well past every folder and
gives each folder it changes a fresh mtime of its own, as a later tick would.
"""

from __future__ import annotations

import os
import random
import shutil
import time
from pathlib import Path

import pytest

from memtui.core.roots import discover
from memtui.core.roots.discover import RootsMemo, roots_under

LATER = 3600 * 10**9  # a clock an hour ahead: every folder is older than the racy window


def later() -> int:
    return time.time_ns() + LATER


class Walks:
    """Counts the walks root discovery makes."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.count = 0
        real = discover.walk

        def counted(*args, **kwargs):  # type: ignore[no-untyped-def]
            self.count += 1
            return real(*args, **kwargs)

        monkeypatch.setattr(discover, "walk", counted)


def fresh(top: Path, depth: int, monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """What a walk finds with no cache at all."""
    with monkeypatch.context() as patched:
        patched.setenv("MEMTUI_NO_CACHE", "1")
        return roots_under(top, depth)


def memo_files() -> list[str]:
    folder = Path(os.environ["MEMTUI_CACHE_DIR"]) / "roots"
    return sorted(os.listdir(folder)) if folder.is_dir() else []


_STAMP = [1_600_000_000]


def touched(folder: Path) -> None:
    """A new mtime for a folder whose entries changed (a later tick than any before)."""
    _STAMP[0] += 1
    os.utime(folder, (_STAMP[0], _STAMP[0]))


def folders_of(top: Path) -> list[Path]:
    return [top, *sorted(p for p in top.rglob("*") if p.is_dir() and not p.is_symlink())]


def mutate(rng: random.Random, top: Path, step: int) -> None:
    """One change somewhere in the tree; the folders whose entries it changed get a new mtime."""
    folders = folders_of(top)
    folder = rng.choice(folders)
    kind = rng.choice(["folder", "root", "unroot", "index-folder", "remove", "rename", "file",
                       "skipped", "link", "nothing"])
    if kind == "folder":
        (folder / f"d{step}").mkdir()
    elif kind == "root":
        sub = folder / f"r{step}"
        sub.mkdir()
        (sub / "MEMORY.md").write_text("# r\n")
        touched(sub)
    elif kind == "unroot" and (folder / "MEMORY.md").is_file():
        (folder / "MEMORY.md").unlink()
    elif kind == "index-folder" and not (folder / "MEMORY.md").exists():
        (folder / "MEMORY.md").mkdir()
    elif kind == "remove" and folder != top:
        shutil.rmtree(folder)
        folder = folder.parent
    elif kind == "rename" and folder != top:
        target = rng.choice([f for f in folders if f != folder and folder not in f.parents])
        os.rename(folder, target / f"m{step}")
        touched(target)
        folder = folder.parent
    elif kind == "file":
        (folder / f"n{step}.md").write_text("x\n")
    elif kind == "skipped":
        (folder / "node_modules" / f"p{step}").mkdir(parents=True, exist_ok=True)
        (folder / "node_modules" / f"p{step}" / "MEMORY.md").write_text("# hidden\n")
        touched(folder / "node_modules" / f"p{step}")
        touched(folder / "node_modules")
    elif kind == "link":
        os.symlink(top, folder / f"l{step}")
    else:
        return
    if folder.exists():
        touched(folder)


@pytest.mark.parametrize("seed", range(6))
def test_the_kept_answer_is_always_a_fresh_walks(seed: int, tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    rng = random.Random(seed)
    monkeypatch.setattr(discover, "MEMO_ENTRIES", 0)
    top = tmp_path / "tree"
    for rel in ["a/b", "a/c/d", "e", "f/g/h/i"]:
        (top / rel).mkdir(parents=True)
    for rel in ["MEMORY.md", "a/c/MEMORY.md", "f/g/h/i/MEMORY.md"]:
        (top / rel).write_text("# m\n")
    depth = rng.choice([2, 3, 8])
    walks = Walks(monkeypatch)
    taken_back = 0
    for step in range(40):
        mutate(rng, top, step)
        expected = fresh(top, depth, monkeypatch)
        assert roots_under(top, depth, clock=later) == expected, f"step {step}"
        before = walks.count
        assert roots_under(top, depth, clock=later) == expected, f"step {step}, again"
        taken_back += walks.count == before
    assert taken_back >= 20  # most steps: nothing changed since the walk just before



def test_an_unchanged_tree_is_not_walked_again(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discover, "MEMO_ENTRIES", 0)
    top = tmp_path / "tree"
    (top / "inner").mkdir(parents=True)
    (top / "MEMORY.md").write_text("# m\n")
    (top / "inner" / "MEMORY.md").write_text("# m\n")
    walks = Walks(monkeypatch)
    assert roots_under(top, clock=later) == [top, top / "inner"]
    assert roots_under(top, clock=later) == [top, top / "inner"]
    assert walks.count == 1 and len(memo_files()) == 1


def test_a_young_tree_keeps_no_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discover, "MEMO_ENTRIES", 0)
    top = tmp_path / "tree"
    top.mkdir()
    (top / "MEMORY.md").write_text("# m\n")
    assert roots_under(top) == [top]  # the real clock: the folder was changed a moment ago
    assert memo_files() == []


def test_a_small_walk_keeps_no_answer(tmp_path: Path) -> None:
    top = tmp_path / "tree"
    top.mkdir()
    (top / "MEMORY.md").write_text("# m\n")
    assert roots_under(top, clock=later) == [top]
    assert memo_files() == []


def test_no_answer_is_kept_with_the_cache_off_or_for_a_symlinked_index(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discover, "MEMO_ENTRIES", 0)
    top = tmp_path / "tree"
    (top / "real").mkdir(parents=True)
    (top / "real" / "index.md").write_text("# m\n")
    os.symlink("index.md", top / "real" / "MEMORY.md")  # its target may change unseen
    assert roots_under(top, clock=later) == [top / "real"]
    assert memo_files() == []
    (top / "real" / "MEMORY.md").unlink()
    (top / "real" / "MEMORY.md").write_text("# m\n")
    monkeypatch.setenv("MEMTUI_NO_CACHE", "1")
    assert roots_under(top, clock=later) == [top / "real"]
    assert memo_files() == []


def test_a_damaged_or_forged_answer_is_not_taken(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import marshal

    monkeypatch.setattr(discover, "MEMO_ENTRIES", 0)
    top = tmp_path / "tree"
    (top / "inner").mkdir(parents=True)
    (top / "MEMORY.md").write_text("# m\n")
    assert roots_under(top, clock=later) == [top]
    memo = RootsMemo.open(top, discover.MAX_DEPTH)
    assert memo is not None
    path = memo.folder / memo.name
    good = path.read_bytes()
    for data in (b"", b"\x00garbage", good[: len(good) // 2]):
        path.write_bytes(data)
        assert memo.answer() is None and roots_under(top, clock=later) == [top]
    form, made_by, key, folders, _roots = marshal.loads(good)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "MEMORY.md").write_text("# m\n")
    for roots in ((str(elsewhere),), (str(top / "inner"),)):  # outside the walk; no index there
        path.write_bytes(marshal.dumps((form, made_by, key, folders, roots)))
        assert memo.answer() is None
    forged = folders + ((str(elsewhere), discover._folder_key(os.stat(elsewhere))),)
    path.write_bytes(marshal.dumps((form, made_by, key, forged, (str(elsewhere),))))
    assert memo.answer() is None  # a folder outside the walked one
    path.write_bytes(marshal.dumps((form, ("another",), key, folders, (str(top),))))
    assert memo.answer() is None  # written by another memtui


def test_a_racy_walk_keeps_nothing_and_a_kept_answer_names_its_walk(tmp_path: Path,
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discover, "MEMO_ENTRIES", 0)
    top = tmp_path / "tree"
    (top / "MEMORY.md").mkdir(parents=True)  # a folder named MEMORY.md: no root, and no symlink
    (top / "sub").mkdir()
    (top / "sub" / "MEMORY.md").write_text("# m\n")
    start = time.time_ns()
    assert roots_under(top, clock=lambda: start) == [top / "sub"]
    assert memo_files() == []  # changed within the racy window before the walk began
    assert roots_under(top, clock=later) == [top / "sub"]
    assert len(memo_files()) == 1


def test_a_relative_path_keeps_no_answer(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(discover, "MEMO_ENTRIES", 0)
    (tmp_path / "tree").mkdir()
    (tmp_path / "tree" / "MEMORY.md").write_text("# m\n")
    monkeypatch.chdir(tmp_path)
    assert roots_under(Path("tree"), clock=later) == [Path("tree")]
    assert memo_files() == []
