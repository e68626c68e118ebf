"""The gate and files that move (DESIGN §2): an error a file already had is not new because the
file was archived, restored or promoted to another root; a refusal says when the error was
already there in another form."""

from __future__ import annotations

from pathlib import Path

from memtui.core import write
from memtui.core.model.changeset import Changeset, Create
from memtui.core.read.store import load_root
from memtui.core.verbs.bulk import bulk
from memtui.core.verbs.lifecycle import archive, restore
from memtui.core.verbs.promote import promotion
from tests.support.roots import MakeRoot, topic

INDEX = ("# Memory\n\n## Recent\n- [Old](old.md) — the old note\n- [Other](other.md) — another\n")


def folder(make_root: MakeRoot) -> Path:
    """old.md already names a successor-of that does not exist (provenance-dangling)."""
    return make_root({"MEMORY.md": INDEX,
                      "old.md": topic("Old", "the old note", supersedes="ghost_note.md"),
                      "other.md": topic("Other", "another"),
                      "third.md": topic("Third", "a third")})


def test_archiving_a_file_keeps_the_error_it_had(make_root: MakeRoot) -> None:
    snapshot = load_root(folder(make_root))
    assert any(f.rule == "provenance-dangling" and f.path == "old.md"
               for f in write.plan(snapshot, Changeset("none", "", ())).findings)
    preview = write.plan(snapshot, archive(snapshot, "old.md"))
    assert preview.accepted, preview.refusal_message()
    assert any(f.path == "archive/old.md" and f.rule == "provenance-dangling" for f in preview.findings)
    assert not [f for f in preview.new_findings if f.rule == "provenance-dangling"]
    # and back: restoring it is no new error either
    write.commit(preview)
    archived = load_root(snapshot.root)
    back = write.plan(archived, restore(archived, "archive/old.md"))
    assert back.accepted, back.refusal_message()


def test_a_bulk_archive_holding_files_with_errors_is_accepted(make_root: MakeRoot) -> None:
    snapshot = load_root(folder(make_root))
    change = bulk(snapshot, "archive", ["old.md", "other.md", "third.md"]).changeset
    preview = write.plan(snapshot, change)
    assert preview.accepted, preview.refusal_message()


def test_an_error_copied_elsewhere_is_refused_and_says_it_was_there(make_root: MakeRoot) -> None:
    snapshot = load_root(folder(make_root))
    copy = Create("copy.md", snapshot.files["old.md"].data)
    preview = write.plan(snapshot, Changeset("create", "copy old.md", (copy,)))
    assert not preview.accepted
    dangling = next(f for f in preview.gate.refusing if f.rule == "provenance-dangling")
    assert dangling.path == "copy.md"
    assert "(already there before this change, as old.md:" in dangling.message
    assert "already there" in preview.refusal_message()
    orphan = next(f for f in preview.gate.refusing if f.rule == "orphan")
    assert "already there" not in orphan.message  # third.md's orphan is another file's own


def test_a_promoted_file_brings_its_errors_along(make_root: MakeRoot) -> None:
    local = folder(make_root)
    shared = make_root({"MEMORY.md": "# Team\n\n## Recent\n- [B](b.md) — b\n", "b.md": topic("B", "b")},
                       name="shared")
    source, target = load_root(local), load_root(shared)
    out_of, into = promotion(source, "old.md", target)
    group = write.plan_group([(source, out_of), (target, into)])
    assert group.accepted, group.refusal_message()
