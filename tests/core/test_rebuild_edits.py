"""Rebuild edits the author's index (DESIGN §4.1): small roots, exact results, and properties."""

from __future__ import annotations

import itertools
import string
from datetime import datetime, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.core import write
from memtui.core.model.changeset import Changeset, apply_to_snapshot
from memtui.core.model.snapshot import BudgetConfig, Snapshot
from memtui.core.read.store import load_root
from memtui.core.rules.erasure import erased_lines
from memtui.core.rules.validate import validate
from memtui.core.tidy import targets as index_targets
from memtui.core.tidy.lines import HISTORY_NAME, configured_target_lines
from memtui.core.tidy.prose import is_prose_dump, pointers
from memtui.core.tidy.repair import lessons
from memtui.core.tidy.trim import archive_declared
from memtui.core.verbs import lifecycle as verbs
from tests.support.roots import MakeRoot, topic


def result(snapshot: Snapshot, changeset: Changeset) -> Snapshot:
    return apply_to_snapshot(snapshot, changeset.ops).snapshot


def text(snapshot: Snapshot, path: str = "MEMORY.md") -> str:
    if path == "MEMORY.md":
        return snapshot.index.render().decode()
    if path == "MEMORY-archive.md":
        return snapshot.archive_index.render().decode()
    return snapshot.files[path].text


def errors(snapshot: Snapshot) -> set[tuple[str, str, str]]:
    return {f.key for f in validate(snapshot) if f.severity == "error"}


SECTIONED = (
    "# Memory\n\nRead this first.\n\n"
    "## Feedback\n- [Be brief](feedback_brief.md) — answer first, detail after\n\n"
    "## Sessions\n- [Day one](session_2026-01-01_a.md) — set the repo up\n"
    "- Inline fact: the API key lives in the vault.\n"
)
SECTIONED_FILES: dict[str, str | bytes] = {
    "MEMORY.md": SECTIONED,
    "feedback_brief.md": topic("Be brief", "answer first", type_="feedback"),
    "session_2026-01-01_a.md": topic("Day one", "repo set up"),
}


def test_an_index_within_target_with_nothing_wrong_is_left_alone(make_root: MakeRoot) -> None:
    with pytest.raises(verbs.NothingToRebuild):
        verbs.rebuild(load_root(make_root(dict(SECTIONED_FILES))))


def test_an_unreachable_live_file_is_indexed_beside_its_siblings(make_root: MakeRoot) -> None:
    files = dict(SECTIONED_FILES, **{
        "session_2026-02-01_b.md": topic("Day two", "first deploy"),
        "feedback_tests.md": topic("Tests first", "write the test before the fix", type_="feedback"),
    })
    snapshot = load_root(make_root(files))
    after = result(snapshot, verbs.rebuild(snapshot))
    assert text(after) == (
        "# Memory\n\nRead this first.\n\n"
        "## Feedback\n- [Be brief](feedback_brief.md) — answer first, detail after\n"
        "- [Tests first](feedback_tests.md) — write the test before the fix\n\n"
        "## Sessions\n- [Day one](session_2026-01-01_a.md) — set the repo up\n"
        "- [Day two](session_2026-02-01_b.md) — first deploy\n"
        "- Inline fact: the API key lives in the vault.\n"
    )
    assert not after.archive_index.exists  # a live file is never filed as archived
    assert not errors(after)


def test_the_folders_own_documents_are_left_unlisted_and_offered_unchecked(make_root: MakeRoot) -> None:
    """A README or LICENSE a publisher put in the folder is not a memory, at the top or in a
    sub-folder: the repair leaves it out, and the dream's ``documents`` item (unchecked) lists it
    only when a person asks."""
    from memtui.core.dream.plan import plan_dream
    from memtui.core.model.folder_docs import is_folder_document
    from memtui.core.tidy.repair import index_documents, plan_repair

    files = dict(SECTIONED_FILES, **{
        "README.md": "# memory-export\n\nAn export of the session memory, for reference.\n",
        "LICENSE-PENDING.md": "# LICENSE PENDING\n\nAll rights reserved until a license is chosen.\n",
        "readme_first.md": topic("Read me first", "start with the deploy notes", type_="feedback"),
        "notes/README.md": "# Notes\n\nthe notes folder\n",
        "CHANGELOG.md": topic("Changelog", "what changed, as a memory"),  # frontmatter: a memory
    })
    snapshot = load_root(make_root(files))
    documents = [p for p, f in snapshot.files.items() if is_folder_document(p, f)]
    assert sorted(documents) == ["LICENSE-PENDING.md", "README.md", "notes/README.md"]
    changeset, report = plan_repair(snapshot)
    after = result(snapshot, changeset)
    listed = {line.resolved for line in after.index.entries}
    assert {"readme_first.md", "CHANGELOG.md"} <= listed
    assert not listed & {"README.md", "LICENSE-PENDING.md", "notes/README.md"}
    assert sorted(report.documents) == ["LICENSE-PENDING.md", "README.md", "notes/README.md"]
    item = next(i for i in plan_dream(snapshot, datetime(2026, 12, 1, tzinfo=timezone.utc)).items
                if i.kind == "documents")
    assert not item.checked and sorted(item.paths) == ["LICENSE-PENDING.md", "MEMORY.md", "README.md",
                                                       "notes/README.md"]
    both = result(after, index_documents(after))
    assert {"README.md", "LICENSE-PENDING.md", "notes/README.md"} <= \
        {line.resolved for line in both.index.entries}
    assert not errors(both)
    with pytest.raises(verbs.NothingToRebuild):
        index_documents(both)


def test_a_family_of_many_unreachable_files_gets_one_region_line(make_root: MakeRoot) -> None:
    files = dict(SECTIONED_FILES)
    files.update({f"log_2026-03-{d:02d}.md": topic(f"Log {d}") for d in range(1, 8)})
    snapshot = load_root(make_root(files))
    after = result(snapshot, verbs.rebuild(snapshot))
    assert text(after).endswith("\n## Regions\n- region `log_*.md` → 7 more log notes; grep the memory dir\n")
    assert text(after).startswith(SECTIONED)
    assert not errors(after)


@pytest.mark.parametrize(("target", "files", "repointed"), [
    ("session_2026-05-23_task8.md", ["session_2026-05-23_task8_9.md"], "session_2026-05-23_task8_9.md"),
    ("notes.md", ["sub/notes.md"], "sub/notes.md"),
    ("old.md", ["archive/old.md"], None),  # the active entry moves to the archive index
    ("task.md", ["task_1.md", "task_2.md"], False),  # two candidates: nothing is evident, kept
])
def test_a_dangling_pointer_is_repointed_only_when_one_target_is_evident(
        make_root: MakeRoot, target: str, files: list[str], repointed: str | None | bool) -> None:
    line = f"- [The note]({target}) — what the note says"
    root_files: dict[str, str | bytes] = {"MEMORY.md": f"# Memory\n\n## Notes\n{line}\n- [Other](other.md) — x\n",
                                          "other.md": topic("Other")}
    for path in files:
        root_files[path] = topic("The note")
    if len(files) > 1:  # the ambiguous files are indexed already
        root_files["MEMORY.md"] = str(root_files["MEMORY.md"]) + "".join(f"- [{p}]({p}) — x\n" for p in files)
    snapshot = load_root(make_root(root_files))
    if repointed is False:
        changeset = None
        try:
            changeset = verbs.rebuild(snapshot)
        except verbs.NothingToRebuild:
            pass
        after = result(snapshot, changeset) if changeset else snapshot
        assert line in text(after)  # kept, never dropped
        return
    after = result(snapshot, verbs.rebuild(snapshot))
    if repointed is None:
        assert line not in text(after) and "- [The note](archive/old.md) — what the note says" in text(after, "MEMORY-archive.md")
    else:
        assert f"- [The note]({repointed}) — what the note says" in text(after)
    assert line in after.files[HISTORY_NAME].text  # the old text is kept
    assert not errors(after)


def test_a_broken_wikilink_in_a_hook_is_unlinked_with_its_words(make_root: MakeRoot) -> None:
    snapshot = load_root(make_root({
        "MEMORY.md": "- [A](a.md) — clone it 1:1 [[feedback_clone]] always\n", "a.md": topic("A")}))
    after = result(snapshot, verbs.rebuild(snapshot))
    assert text(after) == "- [A](a.md) — clone it 1:1 feedback_clone always\n"
    assert "[[feedback_clone]]" in after.files[HISTORY_NAME].text and not errors(after)


def test_duplicates_become_one_entry_keeping_every_hook(make_root: MakeRoot) -> None:
    snapshot = load_root(make_root({
        "MEMORY.md": "## Audits\n- [March 16](audits.md) — two audits.\n- [March 17](audits.md) — score 8.6.\n"
                     "- Score went up, see [the audits](audits.md).\n",
        "audits.md": topic("Audits")}))
    after = result(snapshot, verbs.rebuild(snapshot))
    assert text(after) == ("## Audits\n- [March 16](audits.md) — two audits; March 17: score 8.6.\n"
                           "- Score went up, see [the audits](audits.md).\n")  # the prose bullet stays


def past_target(make_root: MakeRoot) -> Snapshot:
    lines = ["# Memory", "", "## Rules"]
    files: dict[str, str | bytes] = {}
    for i in range(3):
        lines.append(f"- [Rule {i}](feedback_r{i}.md) — rule {i}")
        files[f"feedback_r{i}.md"] = topic(f"Rule {i}", type_="feedback")
    lines += ["", "## Old sessions"]
    for i in range(6):
        lines.append(f"- [S{i}](session_2025-01-0{i + 1}.md) — session {i}")
        files[f"session_2025-01-0{i + 1}.md"] = topic(f"S{i}")
    lines += ["", "## New", "- [Long](project_long.md) — " + "very long detail " * 20]
    files["project_long.md"] = topic("Long", "the short description")
    files["MEMORY.md"] = "\n".join(lines) + "\n"
    return load_root(make_root(files), BudgetConfig(max_lines=15, max_bytes=25_000))


def test_past_the_target_decay_goes_episodic_oldest_first_into_the_archive_under_headings(make_root: MakeRoot) -> None:
    snapshot = past_target(make_root)
    assert len(snapshot.index.lines) == 17  # over the 15-line cap: not loaded in full
    after = result(snapshot, verbs.rebuild(snapshot))
    index, archive = text(after), text(after, "MEMORY-archive.md")
    assert "- [Rule 0](feedback_r0.md) — rule 0" in index  # rules go last
    assert "session_2025-01-01.md" not in index and "## Old sessions\n- [S0](session_2025-01-01.md) — session 0" in archive
    # over its lines only: a shorter line is still a line, so the long one stays whole
    assert "- [Long](project_long.md) — " + ("very long detail " * 20).rstrip() in index
    assert len(after.index.lines) <= 12 and not errors(after)
    assert not erased_lines(snapshot, after, [op.path for op in verbs.rebuild(snapshot).ops])  # type: ignore[union-attr]


def test_a_heading_whose_last_entry_decays_goes_with_it(make_root: MakeRoot) -> None:
    snapshot = past_target(make_root)
    after = result(snapshot, verbs.rebuild(snapshot, target_lines=6))
    index = text(after)
    if "session_" not in index:
        assert "## Old sessions" not in index
    headings = [ln for ln in after.index.lines if ln.raw.startswith("#")]
    for heading in headings:  # no empty heading is left behind
        pos = heading.number
        rest = [ln for ln in after.index.lines[pos:] if ln.raw.strip()]
        assert rest and not rest[0].raw.startswith("## ") or heading.raw.startswith("# ")


def test_the_target_lines_option_and_config(make_root: MakeRoot, tmp_path: Path) -> None:
    snapshot = past_target(make_root)
    loose = result(snapshot, verbs.rebuild(snapshot, target_lines=14))
    tight = result(snapshot, verbs.rebuild(snapshot, target_lines=8))
    assert len(tight.index.lines) < len(loose.index.lines)
    config = tmp_path / "cfg" / "memtui"
    config.mkdir(parents=True)
    (config / "config.json").write_text('{"index": {"target_lines": 140}}')
    assert configured_target_lines({"XDG_CONFIG_HOME": str(tmp_path / "cfg")}) == 140
    (config / "config.json").write_text('{"index": {"target_lines": "lots"}}')
    assert configured_target_lines({"XDG_CONFIG_HOME": str(tmp_path / "cfg")}) is None


def test_an_index_that_loads_in_full_keeps_every_live_pointer(make_root: MakeRoot) -> None:
    snapshot = past_target(make_root)
    roomy = load_root(Path(snapshot.root), BudgetConfig(max_lines=18, max_bytes=25_000))  # 17 of 18
    with pytest.raises(verbs.NothingToRebuild):  # past the line target, loading in full: nothing leaves
        verbs.rebuild(roomy)


def test_a_prose_dump_becomes_pointers_and_the_old_text_is_kept_whole(make_root: MakeRoot) -> None:
    detail = "".join(f"- detail line {i} about the topic, with the numbers and names a detail holds\n"
                     for i in range(14))
    index = ("# Research index\n\nWhat we found.\n\n## Knowledge\n\n### Blazor guide\n- **File**: `blazor.md`\n"
             + detail + "\n### How to use\nWhen researching, check the guide first. Then the rest.\n" + detail)
    snapshot = load_root(make_root({"MEMORY.md": index, "blazor.md": topic("Blazor", "Blazor patterns")}),
                         BudgetConfig(max_lines=30, max_bytes=25_000))
    assert is_prose_dump(snapshot)
    changeset = pointers(snapshot)
    after = result(snapshot, changeset)
    assert text(after) == ("# Research index\n\nWhat we found.\n\n## Knowledge\n\n"
                           "- [Blazor guide](blazor.md) — Blazor patterns\n"
                           "- [How to use](how_to_use.md) — When researching, check the guide first.\n")
    assert index in after.files[HISTORY_NAME].text
    assert detail in after.files["how_to_use.md"].text
    assert not errors(after) and not erased_lines(snapshot, after, changeset.paths)


def test_a_lesson_kept_only_as_a_hook_becomes_its_topic_file(make_root: MakeRoot) -> None:
    snapshot = load_root(make_root({
        "MEMORY.md": "- [Discipline](feedback_discipline.md) — never drop per-task memory writes to look fast\n"
                     "- [Gone](gone.md)\n"}))
    after = result(snapshot, lessons(snapshot))
    f = after.files["feedback_discipline.md"]
    assert f.type == "feedback" and "never drop per-task memory writes to look fast" in f.body
    assert "gone.md" not in after.files  # no hook, no lesson: the pointer is kept as it is
    assert [k for k in errors(after) if k[0] == "broken-link"] == [("broken-link", "MEMORY.md", "gone.md")]


def test_files_declared_superseded_move_to_the_archive_with_their_lines(make_root: MakeRoot) -> None:
    root = make_root({
        "MEMORY.md": "## Decisions\n- [Old plan](old.md) — the old plan\n- [New plan](new.md) — the new plan\n",
        "old.md": topic("Old plan", superseded_by="new.md"), "new.md": topic("New plan", supersedes="old.md")})
    snapshot = load_root(root)
    applied = write.run(snapshot, archive_declared(snapshot))
    assert applied.preview.accepted
    after = load_root(root)
    assert text(after) == "## Decisions\n- [New plan](new.md) — the new plan\n"
    assert "## Decisions\n- [Old plan](archive/old.md) — the old plan" in text(after, "MEMORY-archive.md")
    assert (root / "archive" / "old.md").exists()


# ---------------------------------------------------------------- the erasure check


def test_erasure_check_finds_a_lost_line_and_accepts_a_moved_one(make_root: MakeRoot) -> None:
    snapshot = load_root(make_root({"MEMORY.md": "# M\n\nkeep me\n- [A](a.md) — the hook of a\n",
                                    "a.md": topic("A")}))
    from memtui.core.model.changeset import Write

    lost = Changeset("x", "x", (Write("MEMORY.md", b"# M\n", snapshot.index.render()),))
    gone = erased_lines(snapshot, result(snapshot, lost), lost.paths)
    assert [(e.line, e.text) for e in gone] == [(3, "keep me"), (4, "- [A](a.md) — the hook of a")]
    moved = verbs.decay(snapshot, "a.md")
    assert [e.text for e in erased_lines(snapshot, result(snapshot, moved), moved.paths)] == []


# ---------------------------------------------------------------- properties

EXAMPLE = itertools.count()  # each example gets a folder of its own
WORDS = st.text(string.ascii_lowercase + " ", min_size=3, max_size=30).map(lambda s: s.strip() or "word")


@st.composite
def indexes(draw: st.DrawFn) -> tuple[str, dict[str, str]]:
    """A random index with sections, prose and entries (some dangling, some duplicated), and its files."""
    files: dict[str, str] = {}
    lines = ["# Memory", ""]
    for s in range(draw(st.integers(1, 4))):
        lines.append(f"## Section {s}")
        for k in range(draw(st.integers(0, 6))):
            kind = draw(st.sampled_from(["entry", "entry", "prose", "dangling", "dup", "blank"]))
            name = f"{draw(st.sampled_from(['feedback', 'session', 'note']))}_{s}_{k}.md"
            if kind == "entry":
                files[name] = topic(name[:-3], draw(WORDS))
                lines.append(f"- [{name[:-3]}]({name}) — {draw(WORDS)}")
            elif kind == "dup" and files:
                other = sorted(files)[0]
                lines.append(f"- [again]({other}) — {draw(WORDS)}")
            elif kind == "dangling":
                lines.append(f"- [lost]({name}) — {draw(WORDS)}")
            elif kind == "prose":
                lines.append(draw(WORDS))
            else:
                lines.append("")
        lines.append("")
    for k in range(draw(st.integers(0, 3))):
        files[f"orphan_{k}.md"] = topic(f"Orphan {k}", draw(WORDS))
    return "\n".join(lines) + "\n", files


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(indexes(), st.integers(4, 40))
def test_rebuild_keeps_every_line_and_hook_somewhere(make_root: MakeRoot, drawn: tuple[str, dict[str, str]],
                                                     max_lines: int) -> None:
    index, files = drawn
    snapshot = load_root(make_root({"MEMORY.md": index, **files}, f"ex{next(EXAMPLE)}"),
                         BudgetConfig(max_lines=max_lines, max_bytes=25_000))
    try:
        changeset = verbs.rebuild(snapshot)
    except verbs.NothingToRebuild:
        return
    after = result(snapshot, changeset)
    assert erased_lines(snapshot, after, changeset.paths) == []
    everything = "\n".join([text(after), after.archive_index.render().decode()]
                           + [f.text for f in after.files.values()])
    for line in snapshot.index.lines:
        if line.raw.strip():
            assert (line.hook or line.raw.strip()) in everything
    assert not errors(after) - errors(snapshot)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(indexes())
def test_rebuild_within_target_changes_nothing_but_repairs(make_root: MakeRoot,
                                                           drawn: tuple[str, dict[str, str]]) -> None:
    index, files = drawn
    snapshot = load_root(make_root({"MEMORY.md": index, **files}, f"ex{next(EXAMPLE)}"),
                         BudgetConfig(max_lines=10_000, max_bytes=1_000_000))
    try:
        changeset = verbs.rebuild(snapshot)
    except verbs.NothingToRebuild:
        return
    assert changeset.description.startswith("rebuild MEMORY.md: repair the indexes")
    assert "decay" not in changeset.description and "shorten" not in changeset.description
    after = result(snapshot, changeset)
    old = [ln.raw for ln in snapshot.index.lines]
    new = {ln.raw for ln in after.index.lines}
    history = after.files[HISTORY_NAME].text if HISTORY_NAME in after.files else ""
    for raw in old:  # every line stays, or its old text is in the history (a repaired line)
        assert raw in new or raw in history


def test_the_gate_refuses_a_change_that_erases_index_text(make_root: MakeRoot) -> None:
    from memtui.core.model.changeset import Write

    snapshot = load_root(make_root({"MEMORY.md": "# M\n\nkeep me\n- [A](a.md) — the hook of a\n",
                                    "a.md": topic("A")}))
    lost = Changeset("edit", "x", (Write("MEMORY.md", b"# M\n\n- [A](a.md) \xe2\x80\x94 the hook of a\n",
                                         snapshot.index.render()),))
    preview = write.plan(snapshot, lost)
    assert not preview.accepted and [f.rule for f in preview.gate.refusing] == ["erased-text"]
    assert "keep me" in preview.refusal_message()
    dangling = load_root(make_root({"MEMORY.md": "# M\n- [Gone](gone.md) — a lost lesson\n"}, "dangling"))
    kept = verbs.drop_line(dangling, "MEMORY.md", 2)  # a verb that takes a line out keeps its text
    assert write.plan(dangling, kept).accepted


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(indexes(), st.integers(2, 12))
def test_a_tiny_target_never_files_a_live_unindexed_file_as_archived(
        make_root: MakeRoot, drawn: tuple[str, dict[str, str]], target: int) -> None:
    index, files = drawn
    snapshot = load_root(make_root({"MEMORY.md": index, **files}, f"ex{next(EXAMPLE)}"),
                         BudgetConfig(max_lines=14, max_bytes=25_000))
    try:
        changeset = verbs.rebuild(snapshot, target_lines=target)
    except verbs.NothingToRebuild:
        return
    after = result(snapshot, changeset)
    listed = {ln.resolved for idx in (snapshot.index, snapshot.archive_index) for ln in idx.entries}
    archived_now = {ln.resolved for ln in after.archive_index.entries} - {HISTORY_NAME}
    live_new = {p for p in archived_now - listed if p in after.files and not after.files[p].archived}
    if live_new:  # only the last resort: nothing the author listed was left to decay under the cap
        still = {ln.resolved for ln in after.index.entries if ln.resolved in after.files}
        assert not still & listed, (index, target)
        assert not errors(after) - errors(snapshot)  # ... and it was needed to stay within the cap


def test_rebuild_decays_a_fully_stale_file_before_episodic_ones(make_root: MakeRoot, tmp_path: Path) -> None:
    from datetime import datetime, timezone

    project = tmp_path / "project"
    (project / "internal" / "present").mkdir(parents=True)
    (project / "internal" / "present" / "here.go").write_text("package present\n")
    gone = "Lives in `internal/gone/sweeper.go` next to `internal/gone/marker.go`.\n"
    files: dict[str, str | bytes] = {
        # fully stale, and the newest: age alone would keep it
        "notes_sweeper.md": topic("Sweeper layout", type_="project", body=gone, updated="2026-06-01"),
        "notes_guarded.md": topic("Sweeper rule", type_="feedback", body=gone, updated="2026-06-01"),
    }
    lines = ["# Memory", "", "## Notes", "- [Sweeper](notes_sweeper.md) — where the sweeper lives",
             "- [Rule](notes_guarded.md) — the sweeper rule", "", "## Sessions"]
    for i in range(6):
        files[f"session_2025-01-0{i + 1}.md"] = topic(f"S{i}", body="See `internal/present/here.go`.\n")
        lines.append(f"- [S{i}](session_2025-01-0{i + 1}.md) — session {i}")
    files["MEMORY.md"] = "\n".join(lines) + "\n"
    snapshot = load_root(make_root(files), BudgetConfig(max_lines=12, max_bytes=25_000))
    now = datetime(2026, 12, 1, tzinfo=timezone.utc)
    changeset = verbs.rebuild(snapshot, target_lines=11, now=now, repo=project)
    after = result(snapshot, changeset)
    archive = text(after, "MEMORY-archive.md")
    assert "- [Sweeper](notes_sweeper.md) — where the sweeper lives" in archive  # fully stale: first
    assert "notes_guarded.md" in text(after)  # a guard (type feedback) holds it
    assert "session_2025-01-02.md" in text(after)  # two decays were enough: the stale file and S0
    assert not erased_lines(snapshot, after, changeset.paths)


def scoped_root(make_root: MakeRoot, base_line: bool) -> Snapshot:
    lines = ["# Memory", "", "## GLOBAL", "- [Be brief](global/feedback_brief.md) — answer first", "",
             "## PATH_SCOPE: api", "Scope: `/srv/api`"] + (["Memory base: `path/api/`"] if base_line else [])
    files: dict[str, str | bytes] = {"global/feedback_brief.md": topic("Be brief", type_="feedback"),
                                     "path/api/SCOPE.md": topic("API scope")}
    for i in range(5):
        lines.append(f"- [Endpoint {i}](path/api/project_endpoint_{i}.md) — endpoint {i} takes a token")
        files[f"path/api/project_endpoint_{i}.md"] = topic(f"Endpoint {i}", type_="project")
    lines.append("- [Shared](global/feedback_brief.md) — also applies here")
    files["MEMORY.md"] = "\n".join(lines) + "\n"
    return load_root(make_root(files, f"scoped{int(base_line)}"), BudgetConfig(max_lines=200, max_bytes=25_000))


@pytest.mark.parametrize("base_line", [True, False])
def test_past_the_target_a_path_scope_section_s_paths_go_into_its_memory_base(
        make_root: MakeRoot, base_line: bool) -> None:
    from memtui.core.tidy.compact import NothingToCompact, compact

    snapshot = scoped_root(make_root, base_line)
    with pytest.raises(NothingToCompact):  # within the target: nothing
        compact(snapshot)
    size = len(snapshot.index.render())
    with pytest.raises(NothingToCompact):  # past its lines only: shorter paths are no fewer lines
        compact(snapshot, target_lines=4)
    tight = load_root(Path(snapshot.root), BudgetConfig(max_lines=200, max_bytes=size))
    changeset = compact(tight, target_lines=4)
    snapshot = tight
    after = result(snapshot, changeset)
    index = text(after)
    assert "- [Endpoint 3](project_endpoint_3.md) — endpoint 3 takes a token" in index
    assert index.count("Memory base: `path/api/`") == 1
    assert index.index("Scope: `/srv/api`") < index.index("Memory base:") < index.index("[Endpoint 0]")
    assert "- [Be brief](global/feedback_brief.md) — answer first" in index  # not a PATH_SCOPE: whole
    assert "- [Shared](global/feedback_brief.md) — also applies here" in index  # another folder: as it was
    assert {ln.resolved for ln in after.index.entries} == {ln.resolved for ln in snapshot.index.entries}
    assert "- [Endpoint 3](path/api/project_endpoint_3.md) — endpoint 3 takes a token" in \
        after.files[HISTORY_NAME].text
    assert len(after.index.render()) < len(snapshot.index.render())
    assert not errors(after) - errors(snapshot)
    assert write.plan(snapshot, changeset).accepted  # the gate's erasure check passes


DETAIL = [f"  - step {i}: run the migration on replica {i} with the lock held and check the row counts"
          for i in range(5)]
PROSE = ["The deploy window is Tuesday morning; nobody deploys on Fridays.",
         "Staging mirrors production nightly at 02:00 and takes about forty minutes.",
         "Rollbacks go through the release channel, not straight to the cluster.",
         "A release needs two approvals from the on-call rota before the tag is cut.",
         "The changelog is written by the release captain of the week.",
         "```", "make release TAG=v1", "```"]


def detailed_root(make_root: MakeRoot, max_lines: int) -> Snapshot:
    lines = ["# Memory", "", "## Ops", "- [Migrations](project_migrations.md) — how we migrate", *DETAIL,
             "- [Brief](feedback_brief.md) — answer first", "", "## Deploys", *PROSE]
    files: dict[str, str | bytes] = {
        "MEMORY.md": "\n".join(lines) + "\n",
        "project_migrations.md": topic("Migrations", type_="project"),
        "feedback_brief.md": topic("Brief", type_="feedback"),
        "project_migrations_detail.md": topic("The author's own file"),
    }
    return load_root(make_root(files, f"detail{max_lines}"), BudgetConfig(max_lines=max_lines, max_bytes=25_000))


def test_past_the_target_long_detail_moves_byte_for_byte_into_topic_files(make_root: MakeRoot) -> None:
    from memtui.core.tidy.detail import NothingToMove, move_detail

    with pytest.raises(NothingToMove):  # loads in full: every fact reaches the session as it is
        move_detail(detailed_root(make_root, 20), target_lines=8)
    snapshot = detailed_root(make_root, 12)
    changeset = move_detail(snapshot, target_lines=8)
    after = result(snapshot, changeset)
    index = text(after)
    created = {op.path: after.files[op.path].text for op in changeset.ops if op.path != "MEMORY.md"}  # type: ignore[union-attr]
    assert "project_migrations_detail.md" not in created  # never a file the author wrote
    sub = next(t for p, t in created.items() if p.startswith("project_migrations_detail"))
    assert "\n".join(DETAIL) + "\n" in sub and "type: project" in sub and "moved_from: MEMORY.md" in sub
    prose = next(t for p, t in created.items() if p.startswith("deploys_notes"))
    assert "\n".join(PROSE) + "\n" in prose and sub.startswith("---\nname: ")
    assert "  - [Migrations: detail](project_migrations_detail_2.md) — " in index
    assert "- [Deploys: notes](deploys_notes.md) — The deploy window is Tuesday morning; nobody" in index
    assert index.index("## Ops") < index.index("Migrations: detail") < index.index("[Brief]") < index.index("## Deploys")
    assert len(after.index.lines) == 9 and not errors(after) - errors(snapshot)
    assert write.plan(snapshot, changeset).accepted  # the gate's erasure check finds the moved text


@pytest.mark.parametrize(("rule", "moves"), [
    ("- 배포 전에는 항상 스테이징에서 마이그레이션을 확인한다.", False),  # Korean: "always"
    ("- デプロイの前に必ずステージングで確認すること。", False),  # Japanese: "without fail"
    ("- 部署前必须在预发环境验证迁移。", False),  # Chinese: "must"
    ("- Không bao giờ deploy vào thứ Sáu.", False),  # Vietnamese: "never"
    ("- Nunca despliegues los viernes.", False),  # Spanish: "never"
    ("- 배포 기록은 주간 릴리스 담당자가 작성한다.", True),  # Korean, no rule: it may move
])
def test_a_standing_rule_in_another_language_keeps_its_block_in_the_index(
        make_root: MakeRoot, rule: str, moves: bool) -> None:
    """The detail step leaves a block holding a directive where it loads, whatever its language
    (a block of facts still moves)."""
    from memtui.core.tidy.detail import NothingToMove, move_detail

    prose = [line for line in PROSE if not line.startswith(("The deploy window", "```", "make"))]
    lines = ["# Memory", "", "## Ops", "- [Brief](feedback_brief.md) — answer first", "", "## Deploys",
             *prose, rule, "The release notes live in the wiki page of each tag, under Releases."]
    files: dict[str, str | bytes] = {"MEMORY.md": "\n".join(lines) + "\n",
                                     "feedback_brief.md": topic("Brief", type_="feedback")}
    snapshot = load_root(make_root(files), BudgetConfig(max_lines=8, max_bytes=25_000))
    if moves:
        after = result(snapshot, move_detail(snapshot, target_lines=6))
        assert rule not in text(after) and any(rule in f.text for f in after.files.values())
    else:
        with pytest.raises(NothingToMove):
            move_detail(snapshot, target_lines=6)


def test_the_sibling_root_search_never_climbs_to_a_folder_at_the_top(monkeypatch: pytest.MonkeyPatch) -> None:
    """A dangling pointer's sibling roots are looked for in the root's own memory tree (the
    project Claude Code's layout names), never in all of /tmp (where other people's copies sit),
    nor beside a memory folder copied on its own (the folders there are other trees)."""
    asked: list[Path] = []
    monkeypatch.setattr(index_targets, "roots_under", lambda top: asked.append(top) or [])
    index_targets._tree_roots.cache_clear()
    try:
        assert index_targets._tree_roots("/tmp/memtui-copies/improv") == ()
        index_targets._tree_roots("/srv/alpha/.claude/agent-memory/reviewer")
        # another project's memory is no sibling: a project's memory looks nowhere
        assert index_targets._tree_roots("/srv/alpha/.claude/projects/-srv-alpha/memory") == ()
    finally:
        index_targets._tree_roots.cache_clear()
    assert asked == [Path("/srv/alpha")]


def test_an_entry_stating_a_rule_decays_with_the_rules_and_keeps_its_rule(make_root: MakeRoot) -> None:
    """A project note's entry that says 'never' (or 절대 … 금지) goes last, like a rule, and keeps
    the clause stating it (an index over its lines only is not shortened at all)."""
    lines = ["# Memory", "", "## Projects"]
    files: dict[str, str | bytes] = {}
    for i in range(6):
        lines.append(f"- [S{i}](project_s{i}.md) — status {i}")
        files[f"project_s{i}.md"] = topic(f"S{i}", type_="project")
    lines.append("- [Backend](project_backend.md) — the backend worker. Do not delete the worker, ever")
    lines.append("- [Consent](project_consent.md) — " + "동의서 서버와 공휴일 프록시와 구독 검증 " * 8
                 + "— 절대 삭제 금지")
    files["project_backend.md"] = topic("Backend", type_="project")
    files["project_consent.md"] = topic("Consent", "동의서 백엔드 서버", type_="project")
    files["MEMORY.md"] = "\n".join(lines) + "\n"
    snapshot = load_root(make_root(files), BudgetConfig(max_lines=9, max_bytes=25_000))
    after = result(snapshot, verbs.rebuild(snapshot, target_lines=5))
    index = text(after)
    assert "Do not delete the worker, ever" in index
    assert "구독 검증 — 절대 삭제 금지\n" in index
    assert "project_s0.md" in text(after, "MEMORY-archive.md")
    assert not errors(after)


def test_an_unreachable_file_with_no_sibling_goes_under_recent(make_root: MakeRoot) -> None:
    """Sharing the root's top folder, or having no type, makes no sibling: such a file is indexed
    under ## Recent, not after whatever entry happens to be last."""
    files = dict(SECTIONED_FILES, **{"landing-plan.md": "# Landing page plan\n\nHero, pricing, FAQ.\n"})
    snapshot = load_root(make_root(files))
    after = result(snapshot, verbs.rebuild(snapshot))
    assert text(after) == SECTIONED + "\n## Recent\n- [Landing page plan](landing-plan.md) — Hero, pricing, FAQ.\n"


def test_detail_moved_out_in_a_pass_is_not_decayed_by_the_same_pass(make_root: MakeRoot) -> None:
    """The topic file the detail step writes keeps its one entry while anything else can decay."""
    from memtui.core.dream.plan import compose, plan_dream

    snapshot = detailed_root(make_root, 8)  # still over the cap once the detail has moved
    plan = plan_dream(snapshot, datetime(2026, 12, 1, tzinfo=timezone.utc), target_lines=7)
    assert {"detail", "decay"} <= {item.kind for item in plan.items if item.checked}
    after = result(snapshot, compose(plan, plan.default))
    listed = {line.resolved for line in after.index.entries}
    born = {p for p in after.files if p not in snapshot.files and p != HISTORY_NAME}
    assert born and born <= listed
    assert "feedback_brief.md" not in listed  # a rule went before them: they are the last resort


@pytest.mark.parametrize(("text", "rule"), [
    ("Never show minified JS", True),
    ("Ask Jonah for bypass, don't weaken content", True),
    ("backup-covers.json 안전망 필수", True),
    ("staff로 넓히지 말 것", True),
    ("CRITICAL: Multiple choice mandatory", True),
    ("retired the never-build memory flag", False),  # 'never' inside a sentence: a fact
    ("Ghostty shaders don't fire inside TUI apps", False),
    ("Sprint 7 closed, 32 tests green", False),
])
def test_an_index_line_states_a_rule_in_the_imperative_or_in_a_rule_word(text: str, rule: bool) -> None:
    from memtui.core.tidy.lines import line_states_rule

    assert line_states_rule(text) is rule


_RULE_PIECES = ["never", "Never", "do not", "Don't", "always", "mandatory", "금지", "필수", "절대", "必ず", "nunca",
                "không bao giờ", "Nie", "İ", "ß", "—", " ", ".", ",", "- ", "fact", "x", "\n", "nightly"]


@settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.lists(st.lists(st.sampled_from(_RULE_PIECES), max_size=8).map("".join), min_size=1, max_size=12))
def test_one_scan_finds_the_same_rule_lines_as_matching_each_line(texts: list[str]) -> None:
    from memtui.core.model.index import parse_index
    from memtui.core.tidy.lines import line_states_rule, rule_stating_lines

    index = parse_index("".join(t.replace("\n", " ") + "\n" for t in texts).encode())
    assert rule_stating_lines(index) == {pos for pos, line in enumerate(index.lines) if line_states_rule(line.raw)}
