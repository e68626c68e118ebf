"""The core parts behind ``memtui mcp``: a root kept warm agrees with a fresh load, the search's
ranking and standing, and the duplicate judgment agrees with the scan it stands for."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Callable

from memtui.core import write
from memtui.core.judge.consolidate import scan
from memtui.core.judge.duplicates import DuplicateIndex, near_duplicates
from memtui.core.judge.search import ARCHIVED, LOADS, REGION, search
from memtui.core.read.store import list_root, load_root
from memtui.core.rules.validate import validate
from memtui.core.stores.warm import WarmRoot
from memtui.core.verbs import lifecycle

MakeRoot = Callable[..., Path]


def note(name: str, body: str, type_: str = "project") -> str:
    return f"---\nname: {name}\ndescription: {name.lower()}\ntype: {type_}\n---\n\n{body}\n"


def keys(findings: list) -> list:  # type: ignore[type-arg]
    return sorted((f.rule, f.path, f.line, f.message) for f in findings)


def test_a_warm_root_follows_every_kind_of_outside_change(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": "- [A](a.md) — a\n- [B](b.md) — b\n- region `log_*.md` → logs\n",
                      "a.md": note("A", "alpha"), "b.md": note("B", "beta"), "log_1.md": note("Log", "x"),
                      "sub/c.md": note("C", "gamma")})
    warm = WarmRoot(root)
    snapshot, found = warm.now()
    assert keys(list(found.findings)) == keys(validate(load_root(root)))
    assert warm.now()[0] is snapshot  # nothing changed: the kept snapshot itself
    (root / "a.md").write_text(note("A", "alpha, rewritten in place"))
    (root / "sub" / "c.md").unlink()
    (root / "log_2.md").write_text(note("Log two", "y"))
    (root / "stray.md").write_text(note("Stray", "unreached"))
    (root / "MEMORY.md").write_text("- [A](a.md) — a\n- [B](b.md) — b\n- [C](sub/c.md) — gone\n"
                                    "- region `log_*.md` → logs\n")
    snapshot, found = warm.now()
    fresh = load_root(root)
    assert sorted(snapshot.files) == sorted(fresh.files)
    assert snapshot.files["a.md"].text == fresh.files["a.md"].text
    assert keys(list(found.findings)) == keys(validate(fresh))
    assert {f.rule for f in found.findings} >= {"orphan", "broken-link"}
    assert warm.reloads == 1 and warm.refreshes == 1


def test_a_warm_root_keeps_a_fresh_loads_order_of_files_after_changes(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": "- [M](m.md) — m\n- [N](sub/n.md) — n\n", "m.md": note("M", "mid"),
                      "sub/n.md": note("N", "nu")})
    warm = WarmRoot(root)
    warm.now()
    (root / "a.md").write_text(note("A", "first by name"))  # another writer's, before the rest
    (root / "sub" / "b.md").write_text(note("B", "first in its folder"))
    snapshot, found = warm.now()
    fresh = load_root(root)
    assert warm.refreshes == 1
    assert list(snapshot.files) == list(fresh.files)
    assert list(found.findings) == validate(fresh)
    for folder in ("", "sub/a"):  # this process's own changes: a file between two, a new folder
        made = lifecycle.remember(snapshot, "Bee", "Made here.", folder=folder)
        applied = write.run(snapshot, made, found)
        warm.committed(applied.snapshot, applied.cache, made.paths)
        snapshot, found = warm.now()
        assert list(snapshot.files) == list(load_root(root).files)
        assert warm._kept is not None and warm._kept.listing == list_root(root)
    assert "bee.md" in snapshot.files and "sub/a/bee.md" in snapshot.files and warm.reloads == 1


def test_a_warm_root_reloads_when_the_listing_changes_shape(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": "- [A](a.md) — a\n", "a.md": note("A", "alpha")})
    warm = WarmRoot(root)
    warm.now()
    (root / "notes.txt").write_text("not memory\n")  # another file: the listing's other entries
    snapshot, _ = warm.now()
    assert snapshot.other_files == ("notes.txt",) and warm.reloads == 2


def test_search_ranks_by_where_it_matched_and_says_how_each_hit_loads(make_root: MakeRoot) -> None:
    root = make_root({
        "MEMORY.md": "- [Deploys](deploys.md) — Tuesday releases\n- region `log_*.md` → logs\n",
        "deploys.md": note("Deploys", "We ship on Tuesdays."),
        "log_2026-01-02.md": note("Log", "A deploy went wrong; rolled back."),
        "archive/old.md": note("Old deploy rules", "Fridays were fine once.") + "status: archived\n",
        "MEMORY-archive.md": "- [Old](archive/old.md) — old deploy rules\n",
    })
    hits = search("deploy", [load_root(root)])
    assert [(h.path, h.standing) for h in hits] == [("deploys.md", LOADS), ("archive/old.md", ARCHIVED),
                                                    ("log_2026-01-02.md", REGION)]
    assert hits[0].why == ("title: 'deploy'",) and hits[0].loads
    assert hits[2].why == ("body: A deploy went wrong; rolled back.",)
    assert search('"rolled back" deploy', [load_root(root)])[0].path == "log_2026-01-02.md"
    assert search("STRASSE", [load_root(root)]) == []


def test_a_hits_score_and_rank_do_not_depend_on_the_order_of_the_terms(make_root: MakeRoot) -> None:
    files = {"MEMORY.md": "- [Deploys](deploys.md) — Tuesday releases\n"}
    for i in range(12):  # more files than the limit: the best are kept as the walk goes
        files[f"n{i:02d}.md"] = note(f"Cache {i}", "deploy " * (i % 4) + "cache eviction on deploy")
    files["deploys.md"] = note("Deploys", "The cache is warmed before each deploy. Cache cache.")
    root = make_root(files)
    snapshot = load_root(root)
    one = [(h.path, h.score, sorted(h.why)) for h in search("deploy cache", [snapshot], limit=5)]
    other = [(h.path, h.score, sorted(h.why)) for h in search("cache deploy", [snapshot], limit=5)]
    assert one == other and len(one) == 5
    full = [(h.path, h.score) for h in search("deploy cache", [snapshot], limit=50)]
    assert [(p, s) for p, s, _ in one] == full[:5]  # the first five of all, as ranked in full


def test_the_duplicate_judgment_is_the_scans_pair_for_the_note_once_written(make_root: MakeRoot) -> None:
    body = ("Postgres migrations run through the migrate tool; never edit an applied migration file, "
            "write a new one that alters the schema instead.")
    root = make_root({"MEMORY.md": "- [Migrations](migrations.md) — never edit applied migrations\n"
                                   "- [Lint](lint.md) — run ruff\n",
                      "migrations.md": note("Database migrations", body, "feedback"),
                      "lint.md": note("Lint before commit", "Run ruff and mypy before every commit.", "feedback")})
    snapshot = load_root(root)
    near = near_duplicates(snapshot, "Migrations rule", body.replace("instead", "rather"), "feedback")
    assert [n.path for n in near] == ["migrations.md"]
    # the scan pairs the same two once the note is written
    (root / "new.md").write_text(note("Migrations rule", body.replace("instead", "rather"), "feedback"))
    pairs = {(p.a, p.b) for p in scan(load_root(root)).pairs}
    assert ("migrations.md", "new.md") in pairs
    os.remove(root / "new.md")
    assert near_duplicates(snapshot, "Cache warm-up", "The cache warms from the nightly snapshot.") == []


def test_the_duplicate_index_follows_a_new_snapshot_by_file_identity(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": "- [A](a.md) — a\n", "a.md": note("Alpha notes", "alpha beta gamma delta")})
    index = DuplicateIndex()
    index.follow(load_root(root))
    assert [n.path for n in index.near("Alpha notes", "alpha beta gamma delta")] == ["a.md"]
    (root / "a.md").write_text(note("Something else", "epsilon zeta eta theta"))
    index.follow(load_root(root))
    assert index.near("Alpha notes", "alpha beta gamma delta") == []


def test_the_duplicate_index_follows_a_file_in_and_out_of_the_candidates(make_root: MakeRoot) -> None:
    text = note("Alpha notes", "alpha beta gamma delta")
    root = make_root({"MEMORY.md": "- [A](a.md) — a\n", "a.md": text})
    index = DuplicateIndex()
    index.follow(load_root(root))
    (root / "a.md").write_text(text.replace("type: project\n", "type: project\nstatus: superseded\n"))
    retired = load_root(root)
    index.follow(retired)
    assert index.near("Alpha notes", "alpha beta gamma delta") == []  # a superseded note is no candidate
    index.follow(retired)  # the same snapshot again: still skipped
    assert index.near("Alpha notes", "alpha beta gamma delta") == []
    (root / "a.md").write_text(text)
    index.follow(load_root(root))
    assert [n.path for n in index.near("Alpha notes", "alpha beta gamma delta")] == ["a.md"]


def test_a_file_added_beside_a_change_of_its_own_is_seen_next_time(make_root: MakeRoot) -> None:
    from memtui.core import write
    from memtui.core.verbs import lifecycle

    root = make_root({"MEMORY.md": "- [A](a.md) — a\n", "a.md": note("A", "alpha")})
    warm = WarmRoot(root)
    snapshot, found = warm.now()
    applied = write.run(snapshot, lifecycle.remember(snapshot, "Bee", "beta"), found)
    (root / "stray.md").write_text(note("Stray", "written right after the change"))  # same folder
    warm.committed(applied.snapshot, applied.cache, applied.preview.changeset.paths)
    snapshot, found = warm.now()
    assert "stray.md" in snapshot.files and "bee.md" in snapshot.files
    assert keys(list(found.findings)) == keys(validate(load_root(root)))


def test_a_change_of_its_own_is_confirmed_by_a_scan_not_a_listing(make_root: MakeRoot) -> None:
    from memtui.core import write
    from memtui.core.read.store import list_root
    from memtui.core.verbs import lifecycle

    root = make_root({"MEMORY.md": "- [A](a.md) — a\n- [B](b.md) — b\n", "a.md": note("A", "alpha"),
                      "b.md": note("B", "beta")})
    warm = WarmRoot(root)
    snapshot, found = warm.now()
    applied = write.run(snapshot, lifecycle.archive(snapshot, "a.md"), found)  # makes archive/
    warm.committed(applied.snapshot, applied.cache, applied.preview.changeset.paths)
    snapshot, found = warm.now()
    assert snapshot is applied.snapshot and warm.reloads == 1  # nothing read, nothing listed again
    kept = warm._kept
    assert kept is not None
    fresh = list_root(root)
    assert sorted(kept.listing.memory) == sorted(fresh.memory)
    assert set(kept.listing.folders) == set(fresh.folders)
    assert kept.listing.archive == fresh.archive and kept.listing.index_path == fresh.index_path
    assert keys(list(found.findings)) == keys(validate(load_root(root)))


def test_a_scan_after_a_change_of_its_own_sees_a_name_that_became_something_else(
        make_root: MakeRoot) -> None:
    from memtui.core import write
    from memtui.core.verbs import lifecycle

    root = make_root({"MEMORY.md": "- [A](a.md) — a\n", "a.md": note("A", "alpha"),
                      "notes.txt": "plain\n", "c.md": note("C", "gamma")})
    warm = WarmRoot(root)
    snapshot, found = warm.now()
    applied = write.run(snapshot, lifecycle.remember(snapshot, "Bee", "beta"), found)
    warm.committed(applied.snapshot, applied.cache, applied.preview.changeset.paths)
    # the same names, other kinds: a file became a folder holding a note, a note a symlink
    (root / "notes.txt").unlink()
    (root / "notes.txt").mkdir()
    (root / "notes.txt" / "d.md").write_text(note("D", "delta"))
    (root / "c.md").unlink()
    (root / "c.md").symlink_to("a.md")
    snapshot, found = warm.now()
    fresh = load_root(root)
    assert sorted(snapshot.files) == sorted(fresh.files)
    assert "notes.txt/d.md" in snapshot.files and "bee.md" in snapshot.files, sorted(snapshot.files)
    assert snapshot.files["c.md"].text == fresh.files["a.md"].text  # read through the link, as a load does
    assert keys(list(found.findings)) == keys(validate(fresh))


def test_the_listing_a_change_leaves_is_the_one_listing_the_root_gives(make_root: MakeRoot) -> None:
    from memtui.core import write
    from memtui.core.read.store import list_root
    from memtui.core.stores import warm as warm_module
    from memtui.core.verbs import lifecycle

    root = make_root({"MEMORY.md": "- [A](a.md) — a\n- [B](b.md) — b\n", "a.md": note("A", "alpha"),
                      "b.md": note("B", "beta"), "notes.txt": "plain\n"})
    warm = WarmRoot(root)
    steps = [lambda s: lifecycle.archive(s, "a.md"), lambda s: lifecycle.remember(s, "Cee", "gamma"),
             lambda s: lifecycle.restore(s, "archive/a.md"), lambda s: lifecycle.archive(s, "b.md"),
             lambda s: lifecycle.update(s, "cee.md", None, "a new hook")]
    for step in steps:
        snapshot, found = warm.now()
        applied = write.run(snapshot, step(snapshot), found)
        warm.committed(applied.snapshot, applied.cache, applied.preview.changeset.paths)
        kept = warm._kept
        assert kept is not None and kept.names is not None
        fresh = list_root(root)
        assert kept.names == warm_module._names(fresh)
        assert sorted(kept.listing.memory) == sorted(fresh.memory)
        assert (kept.listing.index_path, kept.listing.archive) == (fresh.index_path, fresh.archive)
        assert warm._groups is None or warm._groups[0] is not kept.listing or {
            folder: sorted(rels) for folder, (rels, _) in warm._groups[1].items() if rels} == {
            folder: sorted(rels) for folder, (rels, _) in warm_module._folder_groups(fresh).items()}
    snapshot, found = warm.now()
    assert warm.reloads == 1 and keys(list(found.findings)) == keys(validate(load_root(root)))
