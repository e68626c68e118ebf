"""``memtui loaded`` reads the index and one listing, and prints what a full load would make it print.

Each root (the demo, awkward ones, every corpus root, random ones) is shown both ways in one run — the index alone (:func:`memtui.core.read.store.load_index_only`)
and the whole root read as before (:func:`memtui.core.read.store.load_root`) — in every output mode;
the bytes must be the same.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.cli import loaded
from memtui.cli.common import budget_config
from memtui.cli.main import main
from memtui.core.read import store
from tests.support import random_roots
from tests.support.roots import CORPORA, MakeRoot, corpus_roots, topic

DEMO = Path(__file__).resolve().parents[2] / "memtui" / "demo"
MODES: tuple[list[str], ...] = ([], ["--json"], ["--raw"])


def outputs(root: Path, capsysbinary: pytest.CaptureFixture[bytes],
            monkeypatch: pytest.MonkeyPatch) -> tuple[list[tuple[int, bytes, bytes]], list[tuple[int, bytes, bytes]]]:
    """Every mode's (exit code, stdout, stderr): by the index alone, then by a full load."""
    new = [(main(["loaded", str(root), *mode]), *capsysbinary.readouterr()) for mode in MODES]
    with monkeypatch.context() as patched:
        patched.setattr(loaded, "load_index", lambda r, args: store.load_root(r, budget_config(args)))
        old = [(main(["loaded", str(root), *mode]), *capsysbinary.readouterr()) for mode in MODES]
    return new, old


def test_the_demo_and_an_awkward_root_print_alike(make_root: MakeRoot, capsysbinary, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    new, old = outputs(DEMO, capsysbinary, monkeypatch)
    assert new == old and b"MEMORY.md" in new[0][1]
    root = make_root({
        "MEMORY.md": "---\nname: index\n---\n# Memory\n<!-- a comment block -->\n"
                     "- [a](a.md) — here\n- [gone](gone.md) — dangling\n- [hidden](.hidden.md) — hidden\n"
                     "- [nested](inner/x.md) — in a nested root\n- [text](notes.txt) — not markdown\n"
                     "- [deep](sub/deep.md) — in a folder\n- [base](deep.md) — by its base name\n"
                     "- [link](link.md) — a symlink inside\n- [out](out.md) — a symlink outside\n"
                     "- [hid](.hid/x.md) — a dot-folder\n- [ld](linkdir/deep.md) — a symlinked folder\n"
                     "- [arch](memory-archive.md) — the archive index\n- [dot](./a.md) — dotted\n"
                     "- [up](sub/../a.md) — up and back\n- [dir](sub.md) — a folder named .md\n"
                     "- region `sub/*.md` → more\n" + "".join(f"- line {i}\n" for i in range(260)),
        "a.md": topic("a"), ".hidden.md": topic("hidden"), "notes.txt": "text\n",
        "inner/MEMORY.md": "# Inner\n", "inner/x.md": topic("x"), "sub/deep.md": topic("deep"),
        ".hid/x.md": topic("hid"), "memory-archive.md": "# Archive\n", "sub.md/x.md": topic("d"),
    })
    os.symlink("sub", root / "linkdir")
    os.symlink("a.md", root / "link.md")
    os.symlink(str(make_root({"o.md": "x"}, name="elsewhere") / "o.md"), root / "out.md")
    new, old = outputs(root, capsysbinary, monkeypatch)
    assert new == old
    assert b"cuts here" in new[0][1]
    folder = make_root({"MEMORY.md/x.md": "x", "a.md": topic("a")}, name="folder-index")
    new, old = outputs(folder, capsysbinary, monkeypatch)  # not read, and why
    assert new == old and b"not read" in new[0][1]  # the cut, and entries past it


@pytest.mark.parametrize("name", [p.relative_to(CORPORA).as_posix() for p in corpus_roots()])
def test_corpus_roots_print_alike(name: str, capsysbinary, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    new, old = outputs(CORPORA / name, capsysbinary, monkeypatch)
    assert new == old


@st.composite
def loaded_roots(draw: Any) -> tuple[dict[str, str], list[str]]:
    """A random root (:func:`tests.support.random_roots.roots`) with a frontmatter, CRLF endings or
    a nested root drawn in, and the caps and profile ``loaded`` is asked for."""
    files = draw(random_roots.roots())
    index = files["MEMORY.md"]
    if draw(st.booleans()):
        index = "---\nname: index\n---\n" + index
    if draw(st.booleans()):
        index = index.replace("\n", "\r\n")
    files["MEMORY.md"] = index
    if draw(st.booleans()):
        files["sub/MEMORY.md"] = "# Nested\n- [deep](deep_x.md) — here\n"
    options = [*draw(st.sampled_from([[], ["--max-lines", "3"], ["--max-bytes", "60"]])),
               *draw(st.sampled_from([[], ["--loader", "raw"]]))]
    return files, options


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(drawn=loaded_roots())
def test_random_roots_print_alike(drawn: tuple[dict[str, str], list[str]], capsysbinary,  # type: ignore[no-untyped-def]
                                  monkeypatch) -> None:
    files, options = drawn
    with tempfile.TemporaryDirectory() as base:
        root = random_roots.write_root(Path(base), files)
        new = [(main(["loaded", str(root), *mode, *options]), *capsysbinary.readouterr())
               for mode in MODES]
        with monkeypatch.context() as patched:
            patched.setattr(loaded, "load_index",
                            lambda r, args: store.load_root(r, budget_config(args)))
            old = [(main(["loaded", str(root), *mode, *options]), *capsysbinary.readouterr())
                   for mode in MODES]
    assert new == old
