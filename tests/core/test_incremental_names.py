"""The file-name map a change leaves (what bare mentions resolve by) is updated for the files
that came and went, and equals the map of every file worked out again."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.core.model.changeset import ATTIC_DIR, Changeset, Create, Move, Operation
from memtui.core.read.store import load_root
from memtui.core.rules.incremental import findings_cache, incremental_validate, names_after
from memtui.core.rules.validate import names_of, validate
from tests.support.roots import MakeRoot, topic

#: paths whose names meet in other folders and other cases (a name with several paths)
NAMES = st.sampled_from(["a.md", "A.md", "b.md", "notes.md", "Notes.md", "x_y.md"])
FOLDERS = st.sampled_from(["", "sub/", "sub/deep/", "Sub/", "archive/", "z/"])
PATHS = st.builds(lambda folder, name: folder + name, FOLDERS, NAMES)


@settings(max_examples=300, deadline=None)
@given(st.sets(PATHS, max_size=14), st.sets(PATHS, max_size=6), st.sets(PATHS, max_size=6))
def test_names_after_a_change_equal_the_names_of_all_the_files(before: set[str], came: set[str],
                                                                went: set[str]) -> None:
    removed = went & before
    added = came - before
    after = sorted((before - removed) | added)
    assert names_after(names_of(sorted(before)), added, removed) == names_of(after)


def test_names_after_leaves_the_map_it_was_given_as_it_was() -> None:
    names = names_of(["a.md", "sub/a.md", "sub/b.md"])
    copy = {name: list(paths) for name, paths in names.items()}
    names_after(names, {"z/a.md", "c.md"}, {"sub/a.md", "sub/b.md"})
    assert names == copy


INDEX = ("# Memory\n\n- [Kept](kept.md) — a fact\n- Deploys: read notes.md first\n"
         "- see sub/notes.md and `other.md`\n- [Moved](moved.md) — to move\n")


def test_a_change_that_creates_and_moves_files_keeps_the_names_of_a_full_validation(
        make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": INDEX, "kept.md": topic("kept"), "moved.md": topic("moved"),
                      "sub/notes.md": topic("sub notes"), "loose.md": topic("loose")})
    snapshot = load_root(root)
    cache = findings_cache(snapshot)
    steps: list[tuple[Operation, ...]] = [
        (Create("notes.md", topic("notes").encode()),),  # a second path of a bare-mentioned name
        (Move("moved.md", "archive/moved.md"), Create("sub/deep/other.md", topic("other").encode())),
        (Move("loose.md", f"{ATTIC_DIR}/loose.md"),),
        (Move("sub/notes.md", "sub/Notes.md"),),
    ]
    for ops in steps:
        snapshot, cache = incremental_validate(snapshot, cache, Changeset("test", "test", ops))
        assert isinstance(cache.names, dict)
        assert cache.names == names_of(snapshot.files)
        assert cache.findings == tuple(validate(snapshot))
