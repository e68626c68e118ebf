"""A journal record's ``group`` entry is stored state (DESIGN §3, "a folder may be hostile"): an
undo, a redo or a recovery never reaches a root the record merely names.

A crafted committed record in a hostile folder names a victim root (and the victim's newest
record) as the other half of a promotion.  Undoing the hostile folder must leave the victim
byte-identical and unread — an audit hook records every file and folder Python opens or lists
— and set the crafted record aside with a message naming what it claimed.  A real promotion
still undoes across both roots.
"""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Callable, Iterator

import pytest

from memtui.cli.main import main
from memtui.core import write
from memtui.core.model.journal import list_records
from memtui.core.read.store import load_root
from memtui.core.verbs import lifecycle as verbs
from memtui.core.verbs.promote import promotion
from memtui.core.write import commit_group, plan_group
from memtui.core.write.recovery import resolve_pending
from tests.support.writer import VALID_ROOT, tree

_SPY: list[Callable[[str, tuple[object, ...]], None]] = []


def _audit(event: str, args: tuple[object, ...]) -> None:
    for spy in _SPY:
        spy(event, args)


sys.addaudithook(_audit)  # audit hooks cannot be removed: this one only calls the active spies


@pytest.fixture
def opened() -> Iterator[list[str]]:
    """Every path opened, listed or walked while the test runs (``open``, ``os.scandir``,
    ``os.listdir`` audit events)."""
    seen: list[str] = []

    def spy(event: str, args: tuple[object, ...]) -> None:
        if event in ("open", "os.scandir", "os.listdir") and args and isinstance(args[0], (str, bytes, Path)):
            seen.append(str(args[0]))

    _SPY.append(spy)
    yield seen
    _SPY.remove(spy)


def make(folder: Path, files: dict[str, str | bytes]) -> Path:
    folder.mkdir(parents=True)
    for rel, text in files.items():
        (folder / rel).parent.mkdir(parents=True, exist_ok=True)
        (folder / rel).write_bytes(text.encode() if isinstance(text, str) else text)
    return folder


def everything(root: Path) -> dict[str, bytes | None]:
    return tree(root, include_memtui=True)


def pin(root: Path, rel: str) -> str:
    snapshot = load_root(root)
    return write.run(snapshot, verbs.pin(snapshot, rel)).record_id


def craft(hostile: Path, rid: str, members: list[dict[str, object]], coordinator: str) -> None:
    """Give the hostile folder's committed record ``rid`` a ``group`` entry."""
    path = hostile / ".memtui" / "journal" / f"{rid}.json"
    value = json.loads(path.read_bytes())
    value["group"] = {"id": f"{rid}@{coordinator}", "coordinator": coordinator, "members": members}
    path.write_text(json.dumps(value))


@pytest.fixture
def two(tmp_path: Path) -> tuple[Path, Path]:
    """A victim root with a pin of its own, and a hostile root with one committed change."""
    victim = make(tmp_path / "victim", VALID_ROOT)
    hostile = make(tmp_path / "hostile", VALID_ROOT)
    assert pin(victim, "alpha.md") == "00000001-do"
    assert pin(hostile, "beta.md") == "00000001-do"
    return victim, hostile


@pytest.mark.parametrize("claim", ["victim", "root", "canary", "symlink"])
def test_undo_of_a_crafted_group_record_never_reaches_the_root_it_names(
        two: tuple[Path, Path], tmp_path: Path, opened: list[str], capsys: pytest.CaptureFixture[str],
        claim: str) -> None:
    victim, hostile = two
    canary = make(tmp_path / "canary", {"secret.md": "never read\n", "sub/deep.md": "never\n"})
    named = {"victim": victim, "root": Path("/"), "canary": canary,
             "symlink": tmp_path / "link-to-victim"}[claim]
    if claim == "symlink":
        named.symlink_to(victim)
    craft(hostile, "00000001-do", [{"root": str(named), "record": "00000001-do"},
                                   {"root": str(hostile), "record": "00000001-do"}], str(named))
    before_victim, before_canary, hostile_files = everything(victim), everything(canary), tree(hostile)
    opened.clear()
    code = main(["undo", str(hostile)])  # before: the victim's pin was undone ("/": 63k folders read)
    during = list(opened)
    err = capsys.readouterr().err
    assert code != 0
    assert everything(victim) == before_victim and everything(canary) == before_canary
    allowed = (str(hostile), os.environ["MEMTUI_CACHE_DIR"], sys.prefix, sys.base_prefix,
               str(Path(__file__).parents[2]), str(Path.home() / ".config" / "memtui"))
    foreign = [p for p in during if not os.path.abspath(p).startswith(allowed)]
    if claim == "victim":  # the one record it claims, to see that it does not name us back
        assert foreign == [str(victim / ".memtui" / "journal" / "00000001-do.json")]
    else:  # "/" walked the whole machine before (63k folders, 8.9 s)
        assert foreign == []
    assert "claims this change also touched" in err and str(named) in err
    assert "quarantine/00000001-do.json" in err
    said = " ".join(err.split())
    if claim == "victim":  # what was read is said exactly (before: "nothing … was read")
        assert ("memtui read one file of another folder to check it, the journal record "
                f"{victim}/.memtui/journal/00000001-do.json, and nothing else") in said
        assert "nothing in any other folder was read" not in said
    else:
        assert "nothing in any other folder was read or changed" in said
    assert tree(hostile) == hostile_files  # nothing undone in the hostile folder either
    assert [r.file for r in list_records(hostile)] == []  # the record is set aside
    assert (hostile / ".memtui" / "quarantine" / "00000001-do.json").is_file()


def test_a_member_must_name_this_root_back_with_the_same_group(two: tuple[Path, Path]) -> None:
    """A real promotion's half in the victim names its own partner, not the hostile folder."""
    victim, hostile = two
    partner = make(victim.parent / "partner", {"MEMORY.md": "# Partner\n"})
    source, target = load_root(victim), load_root(partner)
    applied = commit_group(plan_group(list(zip((source, target), promotion(source, "gamma.md", target)))))
    vid = applied.record_ids[0] if str(source.root) < str(target.root) else applied.record_ids[1]
    theirs = json.loads((victim / ".memtui" / "journal" / f"{vid}.json").read_bytes())["group"]
    craft(hostile, "00000001-do", [{"root": str(victim), "record": vid},
                                   {"root": str(hostile), "record": "00000001-do"}], str(victim))
    (hostile / ".memtui" / "journal" / "00000001-do.json").write_text(json.dumps(
        json.loads((hostile / ".memtui" / "journal" / "00000001-do.json").read_bytes())
        | {"group": theirs | {"members": theirs["members"] + [{"root": str(hostile),
                                                                 "record": "00000001-do"}]}}))
    before = everything(victim)
    with pytest.raises(write.UnsafeFolder, match="claims this change also touched"):
        write.undo(load_root(hostile))
    assert everything(victim) == before


def test_a_real_promotion_still_undoes_and_redoes_in_both_roots(tmp_path: Path) -> None:
    local = make(tmp_path / "local", VALID_ROOT)
    shared = make(tmp_path / "shared", {"MEMORY.md": "# Shared\n"})
    before = (tree(local), tree(shared))
    source, target = load_root(local), load_root(shared)
    commit_group(plan_group(list(zip((source, target), promotion(source, "alpha.md", target)))))
    after = (tree(local), tree(shared))
    write.undo(load_root(shared))
    assert (tree(local), tree(shared)) == before
    write.redo(load_root(local))
    assert (tree(local), tree(shared)) == after


def test_a_pending_half_follows_only_a_coordinator_that_names_it_back(two: tuple[Path, Path]) -> None:
    victim, hostile = two
    value = {"group": {"id": "x", "coordinator": str(victim),
                       "members": [{"root": str(victim), "record": "00000001-do"},
                                   {"root": str(hostile), "record": "00000002-do"}]}}
    # before: the victim's committed record alone made the crafted half "committed"
    assert resolve_pending(value, hostile, "00000002-do") is False
