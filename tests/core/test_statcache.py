"""The stat cache: results with a warm cache are a cold run's, and a bad cache is no cache."""

from __future__ import annotations

import os
import time
from datetime import date, timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from memtui.core.judge.consolidate import _question as scan_question
from memtui.core.judge.consolidate import scan, scan_cached, scan_root
from memtui.core.judge.stalecache import _question, stale_facts_root, stale_json_cached
from memtui.core.judge.staleness import row_json, rows_at, score_root
from memtui.core.model.snapshot import BudgetConfig
from memtui.core.read.project import find_project
from memtui.core.read.store import load_root
from memtui.core.rules.validate import validate
from memtui.core.stores import statcache
from memtui.core.stores.statcache import StatCache, load_cached, validate_root
from tests.support.dream_plans import plans
from tests.support.roots import topic

NOW = date(2026, 11, 30)
HOUR_NS = 3600 * 10**9


def aged() -> int:
    """A clock an hour ahead: every file on disk is long past the racy window."""
    return time.time_ns() + HOUR_NS


def full_stat(path: Path) -> tuple[int, ...]:
    """Everything stat can tell apart, computed here and not by the cache under test."""
    st = os.stat(path)
    return (st.st_size, st.st_mtime_ns, st.st_ino, st.st_ctime_ns, st.st_dev)


def cache_files(tmp_path: Path) -> list[Path]:
    folder = tmp_path / ".memtui-cache" / "stat"
    return sorted(folder.glob("*.cache")) if folder.is_dir() else []


def cold(root: Path) -> tuple[object, ...]:
    snapshot = load_root(root)
    return (validate(snapshot), score_root(snapshot, NOW).results, scan(snapshot, 0.5),
            plans(snapshot, NOW))


def warm(root: Path, clock=aged, twice: bool = True) -> tuple[tuple[object, ...], StatCache, object]:  # type: ignore[no-untyped-def]
    result = validate_root(root, clock=clock)
    snapshot, cache = load_cached(root, clock=clock)
    answer = scan_cached(snapshot, cache, 0.5)  # from the previous run's memo when unchanged
    assert scan_cached(snapshot, cache, 0.5) == answer  # from this run's memo, if it kept one
    found = (validate(snapshot), score_root(snapshot, NOW).results, answer)
    assert statcache.cache_of(snapshot) is (cache if cache.path and snapshot.files else None)
    planned = plans(snapshot, NOW)  # from the kept facets and whole-root answers, then kept
    if twice:
        assert plans(snapshot, NOW) == planned  # from this run's memos
    whole, again = load_cached(root, clock=clock, texts=True)  # as a commit plans: texts read
    assert statcache.cache_of(whole) is (again if again.path and whole.files else None)
    assert all("text" in f.__dict__ for f in whole.files.values())
    assert plans(whole, NOW) == planned
    cache.save()
    assert result.findings == found[0]
    return (*found, planned), cache, result


ROOT = {
    "MEMORY.md": "# Memory\n\n- [alpha](alpha.md) — alpha fact\n- [gone](gone.md) — broken\n"
                 "- [beta](beta.md)\n",
    "alpha.md": topic("alpha", body="Use `internal/gc/sweep.go` and `sweepBlobs()`; never force push.\n"),
    "beta.md": topic("beta", body="Always rotate the token ghp_" + "a" * 30 + " weekly.\n"),
    "orphan.md": "no frontmatter at all, see https://example.com/x\n",
    "archive/old.md": topic("old", status="archived", body="Old news about branch `release/1.2`.\n"),
}


def test_a_warm_run_reads_nothing_and_answers_as_a_cold_run(make_root, tmp_path) -> None:
    root = make_root(ROOT)
    expected = cold(root)
    first = validate_root(root, clock=aged)
    assert first.snapshot is not None  # the first run parsed everything
    assert first.findings == expected[0]
    assert len(cache_files(tmp_path)) == 1
    again = validate_root(root, clock=aged)
    assert again.snapshot is None  # the whole-root answer came from the cache
    assert (again.findings, again.budget, again.files) == (first.findings, first.budget, 4)
    snapshot, cache = load_cached(root, clock=aged)
    assert cache.reads == 0 and cache.hits == 4
    assert "text" not in snapshot.files["alpha.md"].__dict__  # not read until asked for
    assert snapshot.files["alpha.md"].text == (root / "alpha.md").read_text()
    found, cache, _ = warm(root)
    assert found == expected and cache.reads == 0
    found, cache, _ = warm(root)  # stale and scan facets now cached too
    assert found == expected and cache.reads == 0


def test_a_young_file_is_never_kept(make_root, tmp_path) -> None:
    """The racy rule: with the real clock every file here was changed within 2 s, so nothing
    per file and no whole-root answer is kept; an hour later they are."""
    root = make_root(ROOT)
    result = validate_root(root)
    assert result.snapshot is not None
    cache = StatCache.open(root)
    key = statcache.stat_key(os.stat(root / "alpha.md"))
    assert not cache.trusted(key)
    assert cache.get("base/fm", "alpha.md", key) is None
    assert validate_root(root).snapshot is not None  # parsed again
    later = StatCache.open(root, aged)
    assert later.trusted(key)
    validate_root(root, clock=aged)
    assert StatCache.open(root, aged).get("base/fm", "alpha.md", key) is not None


def test_same_size_edit_with_the_old_mtime_is_seen(make_root) -> None:
    root = make_root(ROOT)
    warm(root)
    path = root / "alpha.md"
    before = os.stat(path)
    text = path.read_text()
    path.write_text(text.replace("never force push", "always force push"[:16]))
    path.write_text(text.replace("Use `internal", "Use `external"))  # same size
    os.utime(path, ns=(before.st_atime_ns, before.st_mtime_ns))
    after = os.stat(path)
    assert (after.st_size, after.st_mtime_ns) == (before.st_size, before.st_mtime_ns)
    if full_stat(path)[3] == before.st_ctime_ns:  # one timestamp tick: only the racy rule can see it
        pytest.skip("the filesystem kept the ctime; covered by test_a_young_file_is_never_kept")
    snapshot, cache = load_cached(root, clock=aged)
    assert cache.reads == 1 and cache.hits == 3
    assert warm(root)[0] == cold(root)


@pytest.mark.parametrize(
    ("damage", "whole"),
    [
        (lambda data: b"", True),
        (lambda data: b"garbage" * 100, True),
        (lambda data: data.replace(b"memtui stat cache", b"memtui stat cachX"), True),
        (lambda data: data[: len(data) // 2], False),  # sections cut short: their CRC fails
        (lambda data: data[:-40] + bytes(40), False),
    ],
    ids=["empty", "garbage", "bad-magic", "truncated", "zeroed-tail"],
)
def test_a_damaged_cache_is_ignored_and_rebuilt(make_root, tmp_path, damage, whole) -> None:  # type: ignore[no-untyped-def]
    root = make_root(ROOT)
    expected = cold(root)
    warm(root)
    (path,) = cache_files(tmp_path)
    path.write_bytes(damage(path.read_bytes()))
    if whole:
        assert load_cached(root, clock=aged)[1].hits == 0
    found, cache, _ = warm(root)
    assert found == expected
    found, cache, _ = warm(root)  # rebuilt
    assert found == expected and cache.hits == 4


def test_a_cache_of_another_format_or_source_is_ignored(make_root, monkeypatch) -> None:
    root = make_root(ROOT)
    warm(root)
    monkeypatch.setattr(statcache, "_FINGERPRINT", ("some other memtui",))
    assert load_cached(root, clock=aged)[1].hits == 0
    assert warm(root)[0] == cold(root)


def test_cached_findings_naming_a_path_outside_the_listing_are_refused(make_root, tmp_path) -> None:
    root = make_root(ROOT)
    warm(root)
    cache = StatCache.open(root, aged)
    listing = statcache.list_root(root)
    keys = cache.stat_all(listing)
    assert keys is not None
    digest = cache.digest(listing, statcache.BudgetConfig(), keys, statcache.index_keys(listing) or [])
    assert digest is not None
    hostile = (("orphan", "error", "../../etc/passwd", None, "x", ""),)
    cache.set_memo("validate", digest, (hostile, (1, 200, 10, 25000, None, 10, "raw", (), 1, 10), 4))
    key = statcache.stat_key(os.stat(root / "alpha.md"))
    cache.put("base/ff", "alpha.md", key, (("secret", "warning", "../x.md", 1, "x", ""),))
    cache.save()
    result = validate_root(root, clock=aged)
    assert result.snapshot is not None  # the memo was refused
    assert result.findings == cold(root)[0]


def test_no_cache_folder_inside_the_root_and_none_when_disabled(make_root, tmp_path, monkeypatch) -> None:
    root = make_root(ROOT)
    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(root / "cachehere"))
    assert warm(root)[0] == cold(root)
    assert not (root / "cachehere").exists()
    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(tmp_path / "c2"))
    monkeypatch.setenv("MEMTUI_NO_CACHE", "1")
    assert warm(root)[0] == cold(root)
    assert not (tmp_path / "c2").exists()


def test_xdg_cache_home_is_used_without_an_override(make_root, tmp_path, monkeypatch) -> None:
    root = make_root(ROOT)
    monkeypatch.delenv("MEMTUI_CACHE_DIR")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg"))
    warm(root)
    assert list((tmp_path / "xdg" / "memtui" / "stat").glob("*.cache"))


def test_an_unwritable_cache_folder_changes_nothing(make_root, tmp_path, monkeypatch) -> None:
    root = make_root(ROOT)
    blocker = tmp_path / "blocked"
    blocker.write_text("a file where the cache folder would be\n")
    monkeypatch.setenv("MEMTUI_CACHE_DIR", str(blocker))
    assert warm(root)[0] == cold(root)
    assert warm(root)[0] == cold(root)


def test_the_cli_validate_answers_alike_cold_and_warm(make_root, capsys) -> None:
    from memtui.cli.main import main

    root = make_root(ROOT)
    runs = []
    for _ in range(2):
        code = main(["validate", "--json", "--no-record", str(root)])
        runs.append((code, capsys.readouterr().out))
    os.environ["MEMTUI_NO_CACHE"] = "1"
    try:
        code = main(["validate", "--json", "--no-record", str(root)])
    finally:
        del os.environ["MEMTUI_NO_CACHE"]
    assert runs[0] == runs[1] == (code, capsys.readouterr().out)


# ------------------------------------------------------------------ the property

NAMES = ("a.md", "b.md", "c.md", "archive/d.md", "sub/e.md")
BODIES = (
    "Use `internal/gc/sweep.go` and call `sweepBlobs()`.\n",
    "Never force push to branch `release/1.2`; see https://example.org/x\n",
    "Always rotate the key AKIA" + "B" * 16 + " every week.\n",
    "# Heading\n\nPlain words about registry garbage collection and blobs.\n",
    "Registry garbage collection of blobs: never while uploads run.\n",
)
file_text = st.builds(
    lambda name, body, kind, extra: topic(name, type_=kind, body=body, **extra),
    st.sampled_from(("x", "registry gc", "blobs")),
    st.sampled_from(BODIES),
    st.sampled_from(("project", "feedback", "oddtype")),
    st.sampled_from(({}, {"pinned": "true"}, {"status": "superseded", "superseded_by": "a.md"},
                     {"supersedes": "nothere.md"}, {"updated": "2026-01-02"})),
) | st.sampled_from(("no frontmatter\n", "---\nname: open\n", "---\nbad line\n---\nbody\n"))
index_text = st.lists(st.sampled_from(NAMES + ("missing.md",)), max_size=5).map(
    lambda names: "# Memory\n\n" + "".join(f"- [{n}]({n}) — hook\n" for n in names)
    + "- region `c*.md` → more\n"
)
edit = st.one_of(
    st.tuples(st.just("write"), st.sampled_from(NAMES), file_text),
    st.tuples(st.just("same-size"), st.sampled_from(NAMES), st.integers(0, 10_000)),
    st.tuples(st.just("delete"), st.sampled_from(NAMES), st.none()),
    st.tuples(st.just("index"), st.just("MEMORY.md"), index_text),
)


def _apply(root: Path, op: str, name: str, value: object) -> tuple[Path, tuple[int, ...] | None]:
    path = root / name
    before = full_stat(path) if path.exists() else None
    if op == "delete":
        if path.exists():
            path.unlink()
        return path, None
    if op == "same-size":
        if not path.exists() or path.stat().st_size == 0:
            return path, None
        data = bytearray(path.read_bytes())
        pos = int(value) % len(data)  # type: ignore[call-overload]
        data[pos] = ord("z") if data[pos] != ord("z") else ord("y")
        old = os.stat(path)
        path.write_bytes(bytes(data))
        os.utime(path, ns=(old.st_atime_ns, old.st_mtime_ns))  # same size, same mtime
        return path, before
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(str(value))
    return path, before


@settings(max_examples=40, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.filter_too_much])
@given(steps=st.lists(st.tuples(st.lists(edit, min_size=1, max_size=3), st.booleans()),
                      min_size=1, max_size=5))
def test_warm_equals_cold_over_random_edits(tmp_path_factory, steps) -> None:  # type: ignore[no-untyped-def]
    """Random edit sequences (rewrites, same-size in-place edits keeping the mtime, deletions,
    index edits); after each step a warm run through the cache — with the real clock (the racy
    rule applies to every file) or an aged one (everything trusted) — equals a cold run."""
    base = tmp_path_factory.mktemp("prop")
    os.environ["MEMTUI_CACHE_DIR"] = str(base / "cache")
    root = base / "root"
    root.mkdir()
    (root / "MEMORY.md").write_text("# Memory\n\n- [a](a.md) — hook\n")
    (root / "a.md").write_text(topic("a", body=BODIES[0]))
    ever_aged = False
    for edits, is_aged in steps:
        ever_aged |= is_aged
        for op, name, value in edits:
            path, before = _apply(root, op, name, value)
            if is_aged and before is not None and path.exists():
                # an aged clock says the cache was written long after every change; an edit
                # in the same timestamp tick as the last one contradicts that story
                assume(full_stat(path) != before)
        found, cache, _ = warm(root, aged if is_aged else time.time_ns, twice=False)
        assert found == cold(root)
        if not ever_aged:  # nothing young was kept (a file may have aged past the window
            limit = cache.since_ns - statcache.RACY_NS  # while the steps ran)
            old = [p for p in root.rglob("*.md") if p.name != "MEMORY.md"
                   and max(p.stat().st_mtime_ns, p.stat().st_ctime_ns) < limit]
            assert cache.hits <= len(old)


def test_another_budget_config_is_another_answer(make_root) -> None:
    from memtui.core.model.snapshot import BudgetConfig

    root = make_root(ROOT)
    small = BudgetConfig(max_lines=2, max_bytes=60, loader="raw")
    validate_root(root, clock=aged)
    assert validate_root(root, clock=aged).snapshot is None
    result = validate_root(root, small, clock=aged)
    assert result.snapshot is not None
    assert result.findings == validate(load_root(root, small))
    assert any(f.rule == "budget-lines" for f in result.findings)
    assert validate_root(root, small, clock=aged).findings == result.findings


def test_the_pre_hook_decides_alike_with_a_warm_cache(make_root, tmp_path, monkeypatch) -> None:
    """The pre hook reads the root through the cache (every agent write): its decisions with a
    warm, aged cache are those without a cache."""
    from tests.support.hooks import call, pre

    root = make_root(ROOT)
    env = {"CLAUDE_CONFIG_DIR": str(tmp_path / "config")}
    payloads = [
        (pre("Write", root / "alpha.md", root, content=topic("alpha", body="ghp_" + "a1B2" * 8)), ()),
        (pre("Write", root / "MEMORY.md", root, content=ROOT["MEMORY.md"] + "- [n](new.md) — x\n"), ()),
        (pre("Write", root / "gamma.md", root, content=topic("gamma")), ()),
        (pre("Edit", root / "beta.md", root, old_string="weekly", new_string="monthly",
             replace_all=False), ("--ask",)),
    ]
    monkeypatch.setenv("MEMTUI_NO_CACHE", "1")
    expected = [call("pre", payload, env, *flags) for payload, flags in payloads]
    monkeypatch.delenv("MEMTUI_NO_CACHE")
    opened = StatCache.open.__func__  # type: ignore[attr-defined]
    monkeypatch.setattr(StatCache, "open", classmethod(lambda cls, r, clock=aged: opened(cls, r, aged)))
    for _ in range(2):  # the first run fills the cache, the second reads through it
        assert [call("pre", payload, env, *flags) for payload, flags in payloads] == expected
    assert load_cached(root, clock=aged)[1].hits == 4
    assert any("deny" in out for _, out, _ in expected) and any(out == "" for _, out, _ in expected)


@pytest.mark.parametrize("flag", ["--quiet", "--json"])
def test_headless_validate_loads_neither_rich_nor_textual(make_root, flag) -> None:
    import subprocess
    import sys

    root = make_root(ROOT)
    code = (f"import sys\nfrom memtui.cli.main import main\nmain(['validate', {flag!r}, "
            f"'--no-record', {str(root)!r}])\nsys.stderr.write(' '.join(sys.modules))")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    loaded = set(done.stderr.split())
    assert "memtui.core.stores.statcache" in loaded  # it ran
    assert not {m for m in loaded if m.split(".")[0] in ("rich", "textual")}


def test_the_scan_memo_answers_only_the_same_question(make_root) -> None:
    """A whole-root scan answer is reused only for the same files, threshold, session choice and
    rejected pairs; each variation answers as a scan without the cache."""
    body = "Deploys go through the staging cluster first, then canary, then every region.\n"
    root = make_root({
        "MEMORY.md": "# Memory\n\n- [a](a.md)\n- [b](b.md)\n- [session_1](session_1.md)\n",
        "a.md": topic("deploy order", body=body),
        "b.md": topic("deploy order", body=body + "Always.\n"),
        "session_1.md": topic("deploy order", body=body),
    })
    cold_snapshot = load_root(root)
    questions = [(0.5, False, ()), (0.5, False, (("a.md", "b.md"),)), (0.5, True, ()),
                 (0.9, False, ()), (0.5, False, ())]
    for threshold, sessions, rejected in questions * 2:
        expected = scan(cold_snapshot, threshold, include_sessions=sessions, rejected=rejected)
        snapshot, cache = load_cached(root, clock=aged)
        found = scan_cached(snapshot, cache, threshold, include_sessions=sessions, rejected=rejected)
        cache.save()
        assert found == expected
        unread = scan_root(root, BudgetConfig(), threshold, include_sessions=sessions,
                           rejected=rejected, clock=aged)  # answered before reading when kept
        assert unread == (expected, ())
    assert expected.pairs  # the question has an answer worth keeping
    snapshot, cache = load_cached(root, clock=aged)
    assert cache.memo("scan", cache.loaded_digest(*scan_question(0.5, False, []))) is not None
    (root / "b.md").write_text(topic("other", body="Nothing alike here at all.\n"))
    snapshot, cache = load_cached(root, clock=aged)
    assert scan_cached(snapshot, cache, 0.5) == scan(load_root(root), 0.5)


def test_a_scan_memo_naming_a_path_outside_the_listing_is_refused(make_root) -> None:
    body = "Deploys go through the staging cluster first, then canary, then every region.\n"
    root = make_root({"MEMORY.md": "# Memory\n\n- [a](a.md)\n- [b](b.md)\n",
                      "a.md": topic("deploy order", body=body), "b.md": topic("deploy order", body=body)})
    snapshot, cache = load_cached(root, clock=aged)
    expected = scan_cached(snapshot, cache, 0.5)
    assert expected.pairs
    digest = cache.loaded_digest(*scan_question(0.5, False, []))
    kept = cache.memo("scan", digest)
    assert kept is not None
    pair = list(kept[1][0])
    pair[1] = "../outside.md"
    cache.set_memo("scan", digest, (kept[0], (tuple(pair),), *kept[2:]))
    assert scan_cached(snapshot, cache, 0.5) == expected


def stale_memo(root: Path, now: date, **kwargs: object) -> tuple[dict[str, object], bool]:
    """``stale --json``'s answer through a warm cache, and whether the cache keeps the root's
    staleness facts whole (then they answer before anything is read)."""
    snapshot, cache = load_cached(root, clock=aged)
    found = stale_json_cached(snapshot, cache, now, **kwargs)  # type: ignore[arg-type]
    cache.save()
    snapshot, cache = load_cached(root, clock=aged)
    assert stale_json_cached(snapshot, cache, now, **kwargs) == found  # type: ignore[arg-type]
    repo = kwargs.get("repo")
    project = find_project(snapshot.root, None if repo is None else Path(repo))  # type: ignore[arg-type]
    digest = cache.loaded_digest(*_question(bool(kwargs.get("online")), project))
    kept = cache.memo("stale", digest) is not None
    unread = stale_facts_root(root, BudgetConfig(), clock=aged, **kwargs)  # type: ignore[arg-type]
    assert unread.header(now) | {"files": [row_json(r) for r in rows_at(unread.files, now)]} == found
    return found, kept


def test_kept_stale_facts_answer_any_now_for_the_same_files_and_project(make_root, tmp_path) -> None:
    """A root's staleness facts are kept with what they consulted (the project's state); they
    answer for the same files at any now while it holds, and then equal a run without the cache."""
    dated = {"updated": "2026-06-01"}
    root = make_root({
        "MEMORY.md": "# Memory\n\n- [a](a.md)\n- [b](b.md)\n",
        "a.md": topic("a", body="See `src/x.py` and https://example.com/a.\n", **dated),
        "b.md": topic("b", type_="feedback", body="Never push on Fridays.\n", **dated),
    })
    for now in (NOW, NOW + timedelta(days=40), NOW, NOW + timedelta(days=40)):
        found, kept = stale_memo(root, now)
        assert kept  # no project here: every reference is unverifiable, whatever the disk says
        assert found == score_root(load_root(root), now).to_json()
    old = os.stat(root / "b.md")
    (root / "b.md").write_text(topic("b", type_="feedback", body="Never push on Mondays.\n",
                                     updated="2025-01-01"))
    os.utime(root / "b.md", ns=(old.st_atime_ns, old.st_mtime_ns))
    found, kept = stale_memo(root, NOW)
    assert found == score_root(load_root(root), NOW).to_json()
    assert {f["path"]: f["dated"] for f in found["files"]}["b.md"] == "2025-01-01"  # seen
    # a project: the answer depends on its files, kept with them and checked against them
    repo = tmp_path / "project"
    (repo / "src").mkdir(parents=True)
    (repo / "src" / "x.py").write_text("x = 1\n")
    for present in (True, False, True):
        if not present:
            (repo / "src" / "x.py").unlink()
        elif not (repo / "src" / "x.py").exists():
            (repo / "src" / "x.py").write_text("x = 1\n")
        found, kept = stale_memo(root, NOW, repo=repo)
        assert kept
        assert found == score_root(load_root(root), NOW, repo=repo).to_json()
        refs = {f["path"]: f["references"] for f in found["files"]}["a.md"]
        assert (refs["found"], refs["missing"]) == ((1, 0) if present else (0, 1))


def test_a_stale_answer_that_asked_git_is_kept_with_what_git_said(make_root, monkeypatch) -> None:
    """An undated file asks git for its date: kept with the state of the root's git history (here:
    no work tree), and not kept when git cannot tell that state."""
    from memtui.core.judge import ages

    root = make_root({"MEMORY.md": "# Memory\n\n- [a](a.md)\n", "a.md": topic("a")})  # no date
    found, kept = stale_memo(root, NOW)
    assert kept
    assert found == score_root(load_root(root), NOW).to_json()
    monkeypatch.setattr(ages, "git_log_state", lambda root: None)
    os.utime(root / "a.md", ns=(0, 10**18))  # another stat key: computed again
    found, kept = stale_memo(root, NOW)
    assert not kept
    assert found == score_root(load_root(root), NOW).to_json()


def test_a_stale_memo_naming_a_path_outside_the_listing_is_refused(make_root) -> None:
    root = make_root({"MEMORY.md": "# Memory\n\n- [a](a.md)\n",
                      "a.md": topic("a", updated="2026-01-01")})
    expected, kept = stale_memo(root, NOW)
    assert kept
    snapshot, cache = load_cached(root, clock=aged)
    digest, (consulted, files, documents) = cache.section("memo-stale")["stale"]
    cache.set_memo("stale", digest, (consulted, [("../a.md", *files[0][1:])], documents))
    assert stale_json_cached(snapshot, cache, NOW) == expected
    cache.set_memo("stale", digest, (consulted, [files[0][:-1]], documents))  # not facts of this format
    assert stale_json_cached(snapshot, cache, NOW) == expected
    cache.set_memo("stale", digest, (consulted, files, (("../README.md", "a README"),)))
    assert stale_json_cached(snapshot, cache, NOW) == expected  # a document outside the listing
    cache.set_memo("stale", digest, files)  # not what was consulted, facts and documents
    assert stale_json_cached(snapshot, cache, NOW) == expected
    cache.set_memo("stale", digest, ((("path", 1), None, None), files, documents))  # a project state with no project
    assert stale_json_cached(snapshot, cache, NOW) == expected


def test_a_cached_index_is_the_parsed_one(make_root) -> None:
    """The parsed index is kept by its bytes and the set of files; a Memory-base entry resolves
    by that set, so a file appearing changes the answer even with the index unchanged."""
    index = ("# Memory\n\n## PATH_SCOPE: web\nMemory base: `web/`\n- [x](x.md) — hook\n"
             "- [y](y.md)\n<!-- c -->\n[[a]] and `a.md`\n")
    root = make_root({"MEMORY.md": index, "x.md": topic("x"), "a.md": topic("a")})
    for step in range(3):
        if step == 2:
            (root / "web").mkdir()
            (root / "web" / "x.md").write_text(topic("x web"))
        snapshot, cache = load_cached(root, clock=aged)
        cache.save()
        expected = load_root(root)
        assert snapshot.index == expected.index
        assert validate(snapshot) == validate(expected)
    snapshot, cache = load_cached(root, clock=aged)
    assert cache.section("index")["MEMORY.md"][0] == (root / "MEMORY.md").read_bytes()


def test_kept_stale_and_scan_answers_read_no_file(make_root, monkeypatch) -> None:
    """With kept answers, stale and scan answer from stat keys alone (no load)."""
    body = "Deploys go through the staging cluster first, then canary, then every region.\n"
    root = make_root({"MEMORY.md": "# Memory\n\n- [a](a.md)\n- [b](b.md)\n",
                      "a.md": topic("deploy order", body=body, updated="2026-01-01"),
                      "b.md": topic("deploy order", body=body, updated="2026-02-01")})
    stale = stale_facts_root(root, BudgetConfig(), clock=aged)
    scanned = scan_root(root, BudgetConfig(), 0.5, clock=aged)
    assert scanned[0].pairs

    def no_load(*args: object, **kwargs: object) -> None:
        raise AssertionError("the root was read")

    monkeypatch.setattr(StatCache, "load", no_load)
    assert stale_facts_root(root, BudgetConfig(), clock=aged) == stale
    assert scan_root(root, BudgetConfig(), 0.5, clock=aged) == scanned
    os.utime(root / "b.md", ns=(0, 10**18))  # a new stat key: read again
    with pytest.raises(AssertionError, match="was read"):
        scan_root(root, BudgetConfig(), 0.5, clock=aged)
