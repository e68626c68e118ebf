"""The dream's and rebuild's plans through the stat cache are the plans of a plain load.

A root loaded through its stat cache (lazily, as a dry run does, or with every text read, as a
commit does) plans from the kept facets (tokens, staleness facts, contradiction cues) and the
kept whole-root answers (scan, staleness); the items, their evidence and the gate's verdict are
those of :func:`memtui.core.read.store.load_root`, cold and warm.
"""

from __future__ import annotations

import json
import time
from datetime import datetime, timezone
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core.dream import plan as dream
from memtui.core.model.snapshot import Snapshot
from memtui.core.read.store import load_root
from memtui.core.stores import statcache
from memtui.core.stores.statcache import load_cached
from memtui.core.tidy.rebuild import NothingToRebuild, rebuild
from tests.support.dream_plans import plans, sweeper_files, sweeper_project
from tests.support.roots import CORPORA, MakeRoot, corpus_roots, topic

NOW = datetime(2026, 11, 30, 12, 0, tzinfo=timezone.utc)
HOUR_NS = 3600 * 10**9
def aged() -> int:
    """A clock an hour ahead: every file on disk is long past the racy window."""
    return time.time_ns() + HOUR_NS


def cached_plans(root: Path, repo: Path | None = None, texts: bool = False) -> tuple[object, object]:
    snapshot, cache = load_cached(root, clock=aged, texts=texts)
    assert statcache.cache_of(snapshot) is (cache if snapshot.files else None)
    return plans(snapshot, NOW, repo)


@pytest.fixture
def rules_root(make_root: MakeRoot, tmp_path: Path) -> tuple[Path, Path]:
    """A root with one item of each kind the cached facets decide: archive, merge, history."""
    project = sweeper_project(tmp_path)
    files = sweeper_files()
    files.update({
        "cache_a.md": topic("Redis cache eviction policy notes", updated="2026-10-03",
                            body="Redis cache eviction uses allkeys-lru with maxmemory 2gb on every node.\n"),
        "cache_b.md": topic("Redis cache eviction policy", updated="2026-10-04",
                            body="Redis cache eviction uses allkeys-lru with maxmemory 2gb on every node, "
                                 "checked weekly.\n"),
        "deploy_on.md": topic("Deploys on Fridays", updated="2026-09-01",
                              body="We deploy the registry on Fridays after the freeze.\n"),
        "deploy_off.md": topic("No deploys on Fridays", updated="2026-10-01",
                               body="We do not deploy the registry on Fridays after the freeze.\n"),
    })
    lines = ["# Memory", "", "## Recent"] + [f"- [{p}]({p}) — a fact" for p in files]
    lines += ["- [gone](missing.md) — a dangling pointer"]
    files["MEMORY.md"] = "\n".join(lines) + "\n<!-- last reviewed 2026-11-20 -->\n"
    return make_root(files), project


def test_the_dream_and_rebuild_plan_alike_cold_and_warm(rules_root: tuple[Path, Path]) -> None:
    root, project = rules_root
    expected = plans(load_root(root), NOW, project)
    kinds = {kind for kind, *_ in expected[0][0]}  # type: ignore[index]
    assert {"archive", "merge", "history"} <= kinds  # the facets decide something here
    for texts in (False, True, False, True):  # the first computes and keeps, the rest read it back
        assert cached_plans(root, project, texts) == expected
    cache = statcache.StatCache.open(root, aged)
    assert cache.section("memo-scan") and cache.section("memo-stale")  # the whole-root answers kept
    # a file changed since: the kept answers no longer hold, the plan follows the disk
    (root / "project_gone.md").write_text(topic("Sweeper layout", type_="project", updated="2025-01-10",
                                                body="See `internal/present/here.go`.\n"))
    expected = plans(load_root(root), NOW, project)
    assert ("archive", ("project_gone.md",)) not in {(k, p) for k, p, *_ in expected[0][0]}  # type: ignore[index]
    assert cached_plans(root, project) == expected
    assert cached_plans(root, project, texts=True) == expected


def test_the_cli_dream_and_rebuild_answer_alike_cold_and_warm(rules_root: tuple[Path, Path], capsys) -> None:  # type: ignore[no-untyped-def]
    root, project = rules_root
    outputs = {}
    for verb, extra in (("dream", ["--repo", str(project), "--now", "2026-11-30"]), ("rebuild", [])):
        runs = []
        for _ in range(3):
            code = main([verb, str(root), "--dry-run", "--json", *extra])
            runs.append((code, json.loads(capsys.readouterr().out)))
        assert runs[0] == runs[1] == runs[2]
        outputs[verb] = runs[0]
    assert outputs["dream"][1]["items"]


@pytest.mark.parametrize("name", [p.relative_to(CORPORA).as_posix() for p in corpus_roots()][:8])
def test_corpus_plans_alike_cold_and_warm(name: str) -> None:
    root = CORPORA / name
    expected = plans(load_root(root), NOW)
    assert cached_plans(root) == expected  # computes the facets and answers, keeps them
    assert cached_plans(root) == expected  # from what was kept
    assert cached_plans(root, texts=True) == expected


SHARED = ("The collector wires renderUrl into the lane engine, adds a Playwright browser cache path, "
          "isolates HOME for tests, and keeps four browser rules gated by the allowlist. ")


@pytest.fixture
def successor_root(make_root: MakeRoot) -> Path:
    """A root whose successor items the kept supersession answer decides: a closing log, a
    chain, a rule that says it extends another, and notes that say nothing of the kind."""
    files: dict[str, str | bytes] = {
        "session_2026-05-24_sprint3_execution.md": topic("Sprint 3 log", body=SHARED * 3),
        "session_2026-05-24_sprint3_closed.md": topic("Sprint 3 log closed", body=SHARED * 3 + "Closed."),
        "session_2026-06-14_p4b2-kickoff.md": topic("P4b-2 kickoff", body=SHARED),
        "session_2026-06-14_p4b2-plan-approved.md": topic(
            "P4b-2 plan approved", body=SHARED + "Follows session_2026-06-14_p4b2-kickoff."),
        "session_2026-06-14_p4b2-COMPLETE.md": topic("P4b-2 COMPLETE", body=SHARED + "Merged."),
        "feedback_never_defer_to_human.md": topic("Never defer grunt work to the human", type_="feedback",
                                                  body="The human is the conductor.\n"),
        "feedback_never_defer_commands.md": topic(
            "Run commands automatically", type_="feedback",
            body='Run them. This extends the existing "never defer to human" feedback.\n'),
    }
    for k in range(6):
        files[f"project_note_{k}.md"] = topic(f"Registry note {k}", body=f"Registry shard {k} sits on node {k}.\n")
    lines = ["# Memory", "", "## Recent"] + [f"- [{p}]({p}) — a fact" for p in files]
    files["MEMORY.md"] = "\n".join(lines) + "\n"
    return make_root(files)


def test_the_successor_items_come_alike_from_the_kept_answer(successor_root: Path) -> None:
    root = successor_root
    expected = plans(load_root(root), NOW)
    successors = [(paths, checked) for kind, paths, _, _, checked, _ in expected[0][0]  # type: ignore[index]
                  if kind == "successor"]
    assert any(checked for _, checked in successors)  # (an unchecked one too before the series rule)
    for texts in (False, True, False):
        assert cached_plans(root, texts=texts) == expected
    assert statcache.StatCache.open(root, aged).section("memo-successors")  # the whole answer kept
    rejected = [("session_2026-05-24_sprint3_closed.md", "session_2026-05-24_sprint3_execution.md")]
    from memtui.core.judge.supersession import root_supersessions, root_supersessions_cached

    for _ in range(2):  # the rejected pairs are part of the question
        snapshot, cache = load_cached(root, clock=aged)
        assert root_supersessions_cached(snapshot, cache, rejected) == root_supersessions(
            load_root(root), rejected)
        cache.save()
    # a file changed since: the kept answer no longer holds
    (root / "session_2026-05-24_sprint3_closed.md").write_text(topic("Sprint 3 notes", body="Other words.\n"))
    expected = plans(load_root(root), NOW)
    assert cached_plans(root, texts=True) == expected
    assert cached_plans(root) == expected
    assert ("session_2026-05-24_sprint3_execution.md", "session_2026-05-24_sprint3_closed.md") not in {
        paths for kind, paths, *_ in expected[0][0] if kind == "successor"}  # type: ignore[index]


def test_a_changed_file_reads_only_the_bodies_that_may_say_they_extend(successor_root: Path) -> None:
    root = successor_root
    from memtui.core.judge.supersession import root_supersessions, root_supersessions_cached

    snapshot, cache = load_cached(root, clock=aged)
    root_supersessions_cached(snapshot, cache)
    cache.save()
    changed = "project_note_0.md"
    (root / changed).write_text(topic("Registry note 0", body="Registry shard 0 moved to node 9.\n"))
    snapshot, cache = load_cached(root, clock=aged)  # the kept answer no longer holds: computed
    found = root_supersessions_cached(snapshot, cache)  # again, from the kept facets
    assert found == root_supersessions(load_root(root))
    read = {p for p, f in snapshot.files.items() if "text" in f.__dict__}
    assert changed in read and "feedback_never_defer_commands.md" in read  # the one with the cue
    assert not {f"project_note_{k}.md" for k in range(1, 6)} & read  # nothing in them to read for


def _in_shape(make_root: MakeRoot, extra: dict[str, str | bytes] | None = None) -> Path:
    """A small root rebuild finds nothing to do in (every file listed, within its target)."""
    files: dict[str, str | bytes] = {f"project_fact_{k}.md": topic(f"Fact {k}", updated="2026-10-01",
                                                                    body=f"Fact {k} holds.\n")
                                     for k in range(4)}
    lines = ["# Memory", "", "## Recent"] + [f"- [Fact {k}](project_fact_{k}.md) — fact {k}" for k in range(4)]
    files["MEMORY.md"] = "\n".join(lines) + "\n"
    files.update(extra or {})
    return make_root(files)


def _rebuilt(snapshot: Snapshot) -> object:
    try:
        changeset = rebuild(snapshot)
    except NothingToRebuild as exc:
        return ("nothing", str(exc))
    return (changeset.description, changeset.ops, changeset.diff)


def test_rebuild_keeps_its_nothing_to_do_and_follows_the_disk(make_root: MakeRoot) -> None:
    from memtui.core.model.snapshot import BudgetConfig
    from memtui.core.tidy.rebuild import kept_nothing_to_rebuild

    root = _in_shape(make_root)
    expected = _rebuilt(load_root(root))
    assert expected[0] == "nothing"
    assert kept_nothing_to_rebuild(root, BudgetConfig(), clock=aged) is None  # nothing kept yet
    for texts in (False, True, False):
        snapshot, cache = load_cached(root, clock=aged, texts=texts)
        assert _rebuilt(snapshot) == expected
        cache.save()
    assert kept_nothing_to_rebuild(root, BudgetConfig(), clock=aged) == expected[1]
    assert kept_nothing_to_rebuild(root, BudgetConfig(), target_lines=3, clock=aged) is None  # another target
    # a file the index does not list appears: the kept answer no longer holds
    (root / "project_fact_new.md").write_text(topic("New fact", body="A new fact.\n"))
    assert kept_nothing_to_rebuild(root, BudgetConfig(), clock=aged) is None
    expected = _rebuilt(load_root(root))
    assert expected[0] != "nothing"
    snapshot, cache = load_cached(root, clock=aged)
    assert _rebuilt(snapshot) == expected


def test_rebuild_keeps_no_answer_that_looked_in_another_root(make_root: MakeRoot) -> None:
    """A dangling entry's target may appear in a child root, which the root's stat keys do not
    see: that answer is computed every time."""
    from memtui.core.model.snapshot import BudgetConfig
    from memtui.core.tidy.rebuild import kept_nothing_to_rebuild

    root = _in_shape(make_root, {
        "sub/MEMORY.md": "# Child\n",
        "MEMORY.md": "# Memory\n\n## Recent\n" + "".join(
            f"- [Fact {k}](project_fact_{k}.md) — fact {k}\n" for k in range(4))
        + "- [Lost](lost_fact.md) — where it went\n"})
    expected = _rebuilt(load_root(root))
    for _ in range(2):
        snapshot, cache = load_cached(root, clock=aged)
        assert _rebuilt(snapshot) == expected
        cache.save()
    assert kept_nothing_to_rebuild(root, BudgetConfig(), clock=aged) is None
    (root / "sub" / "lost_fact.md").write_text(topic("Lost fact", body="Found again.\n"))
    now = _rebuilt(load_root(root))
    assert now != expected and now[0] != "nothing"  # the child root's file is named
    snapshot, _ = load_cached(root, clock=aged)
    assert _rebuilt(snapshot) == now


def test_a_warm_rebuild_dry_run_reads_no_file(make_root: MakeRoot, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    root = _in_shape(make_root)
    monkeypatch.setattr(statcache, "RACY_NS", -10**12)  # every file old enough to keep

    def no_load(*args: object, **kwargs: object) -> None:
        raise AssertionError("the root was loaded")

    for flag in ([], ["--json"]):
        runs = []
        for no_cache in ("1", "", ""):  # without the cache, then cold (keeps the answer), then warm
            monkeypatch.setenv("MEMTUI_NO_CACHE", no_cache)
            with monkeypatch.context() as m:
                if len(runs) == 2:
                    m.setattr(statcache.StatCache, "load", no_load)
                runs.append((main(["rebuild", str(root), "--dry-run", *flag]), *capsys.readouterr()))
        assert runs[0] == runs[1] == runs[2]
        assert runs[0][0] == 0 and "nothing to repair" in runs[0][1]


def _app_plans(workspace_snapshot: Snapshot, cache: object, root: Path) -> tuple[object, object]:
    """What the app's D and R plan (the Dream screen's worker, the rebuild command's request)."""
    from memtui.core.stores.rejections import read_rejected
    from memtui.core.verbs import lifecycle as verbs
    from memtui.services import writer

    found = dream.plan_dream(workspace_snapshot, NOW, rejected=read_rejected(root), consulted={},
                             cache=cache)  # type: ignore[arg-type]
    items = [(i.kind, i.paths, i.reason, i.evidence, i.checked, i.note, i.diff) for i in found.items]
    gated = dream.preview(found, found.default) if found.default else None
    try:
        rebuilt = writer.plan(workspace_snapshot, writer.Request(verbs.rebuild, confirm=True),
                              cache)  # type: ignore[arg-type]
    except writer.VerbRefused as exc:
        return (items, gated and (gated.accepted, gated.changeset.ops)), str(exc)
    return ((items, gated and (gated.accepted, gated.changeset.ops)),
            (rebuilt.accepted, rebuilt.preview.changeset.ops, rebuilt.diff))


@pytest.mark.parametrize("which", ["rules", "successors", "in shape"])
def test_the_apps_dream_and_rebuild_plan_on_the_cached_load_alike(
        which: str, request: pytest.FixtureRequest, make_root: MakeRoot,
        monkeypatch: pytest.MonkeyPatch) -> None:
    from memtui.core.rules.incremental import findings_cache
    from memtui.services.workspace import full_workspace

    if which == "rules":
        root = request.getfixturevalue("rules_root")[0]
    elif which == "successors":
        root = request.getfixturevalue("successor_root")
    else:
        root = _in_shape(make_root)
    monkeypatch.setattr(statcache, "RACY_NS", -10**12)  # every file old enough to keep
    plain = load_root(root)
    expected = _app_plans(plain, findings_cache(plain), root)
    for _ in range(3):  # cold (computes and keeps), then warm twice (from what was kept)
        workspace = full_workspace(root)
        assert statcache.cache_of(workspace.snapshot) is not None  # the app's load is the cached one
        assert all("text" in f.__dict__ for f in workspace.snapshot.files.values())  # every text read
        assert _app_plans(workspace.snapshot, workspace.cache, root) == expected
    kept = statcache.StatCache.open(root)
    assert kept.section("memo-successors")  # the dream's whole-root answers were kept
    # rebuild's "nothing to do" is kept, but for the root with a dangling pointer (its target is
    # looked for in other roots)
    assert bool(kept.section("memo-rebuild")) == (which != "rules")
    assert isinstance(expected[1], str) or which == "rules"
