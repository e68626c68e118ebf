"""The merge review shows what merge writes: the gist draft comes from the merge verb itself."""

from __future__ import annotations

import pytest

from memtui.core.model.changeset import Create, VerbError
from memtui.core.model.frontmatter import parse_frontmatter
from memtui.core.model.snapshot import Finding, decode_bytes
from memtui.core.read.store import load_root
from memtui.core.verbs.lifecycle import drop_line
from memtui.core.verbs.merge import gist_draft, merge
from memtui.core.verbs.quickfix import quick_fix_for
from tests.support.roots import topic


@pytest.mark.parametrize("nl", ["\n", "\r\n"], ids=["lf", "crlf"])
def test_the_draft_is_the_body_and_path_merge_writes(make_root, nl: str) -> None:
    root = make_root({
        "MEMORY.md": "# Memory\n\n- [A](a.md) — a\n- [B](b.md) — b\n",
        "a.md": topic("Alpha", body="one\ntwo\n", updated="2026-01-01").replace("\n", nl),
        "b.md": topic("Beta", body="two\nthree\n", updated="2026-02-01").replace("\n", nl),
    })
    snapshot = load_root(root)
    draft = gist_draft(snapshot, ["a.md", "b.md"])
    gist = next(op for op in merge(snapshot, ["a.md", "b.md"]).ops if isinstance(op, Create))
    text = decode_bytes(gist.data)
    assert gist.path == draft.path
    assert text[parse_frontmatter(text).body_offset:] == draft.body
    edited = merge(snapshot, ["a.md", "b.md"], body=draft.body)
    assert next(op for op in edited.ops if isinstance(op, Create)).data == gist.data


def test_a_draft_of_an_archived_file_says_why_not(make_root) -> None:
    root = make_root({"MEMORY.md": "# Memory\n", "a.md": topic("A"),
                      "archive/b.md": topic("B", status="archived")})
    with pytest.raises(VerbError, match="archived"):
        gist_draft(load_root(root), ["a.md", "archive/b.md"])


def test_drop_line_removes_one_entry_and_keeps_every_other_byte(make_root) -> None:
    index = "# Memory\n\n- [A](a.md) — a\n- [Gone](gone.md) — broken\n- [C](c.md) — c\n"
    root = make_root({"MEMORY.md": index, "a.md": topic("A"), "c.md": topic("C")})
    snapshot = load_root(root)
    changeset = drop_line(snapshot, "MEMORY.md", 4)
    write, history, listing = changeset.ops  # the dropped line is kept in MEMORY-history.md
    assert write.data.decode() == index.replace("- [Gone](gone.md) — broken\n", "")
    assert history.path == "MEMORY-history.md" and b"- [Gone](gone.md) \xe2\x80\x94 broken\n" in history.data
    assert listing.path == "MEMORY-archive.md"
    with pytest.raises(VerbError, match="not an entry"):
        drop_line(snapshot, "MEMORY.md", 1)
    with pytest.raises(VerbError, match="no line 99"):
        drop_line(snapshot, "MEMORY.md", 99)


def test_the_quick_fix_for_a_broken_link_is_drop_line_shown_first(make_root) -> None:
    index = "# Memory\n\n- [Gone](gone.md) — broken\n"
    snapshot = load_root(make_root({"MEMORY.md": index}))
    finding = Finding("broken-link", "error", "MEMORY.md", 3, "gone.md does not exist", "gone.md")
    fix = quick_fix_for(finding, snapshot)
    assert fix is not None and fix.confirm and fix.path is None
    assert fix.build(snapshot).verb == "drop-line"


def test_a_gist_keeps_the_name_family_its_sources_share(make_root) -> None:
    root = make_root({
        "MEMORY.md": "# Memory\n\n- [Ops](reference_gc_operations.md) — a\n- [Runbook](reference_gc_runbook.md) — b\n"
                     "- [Rule](feedback_gc.md) — c\n",
        "reference_gc_operations.md": topic("GC operations", body="one\n", updated="2026-01-01"),
        "reference_gc_runbook.md": topic("GC runbook: running it", body="two\n", updated="2026-02-01"),
        "feedback_gc.md": topic("Collect garbage first", body="three\n", updated="2026-03-01"),
    })
    snapshot = load_root(root)
    # two reference notes make a reference note, named from the newest title
    assert gist_draft(snapshot, ["reference_gc_operations.md", "reference_gc_runbook.md"]).path == \
        "reference_gc_runbook_running_it.md"
    # sources of two families: no family to keep
    assert gist_draft(snapshot, ["reference_gc_operations.md", "feedback_gc.md"]).path == "collect_garbage_first.md"
