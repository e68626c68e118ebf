"""Consolidation candidates: tokens, the dual score, the exact fast join, clusters, contradictions,
rejected pairs, and the real corpora."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.core.judge import arrayjoin, simjoin
from memtui.core.judge.consolidate import (
    STOP_WORDS,
    brute_force_proposed,
    clusters_of,
    name_template,
    proposed_pairs,
    root_token_sets,
    scan,
    token_list,
    token_sets_of,
    tokens,
)
from memtui.core.judge.contradictions import contradicting_pairs, stance
from memtui.core.judge.simjoin import (
    TokenSets,
    brute_force_pairs,
    min_overlap,
    overlap,
    pair_score,
    similar_pairs,
)
from memtui.core.judge.weights import Tuning
from memtui.core.model.frontmatter import parse_frontmatter
from memtui.core.model.snapshot import MemoryFile
from memtui.core.read.store import load_root
from memtui.core.stores.rejections import read_rejected, remember_rejected
from tests.support.roots import MakeRoot, corpus, topic

# ------------------------------------------------------------------------------ tokens and scores


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("The QUICK brown-fox's 42 jumps", {"quick", "brown", "fox", "jumps"}),
        ("a1b2 ab abc x_yz", {"a1b2", "abc"}),
        ("café naïve résumé", {"café", "naïve", "résumé"}),  # letters of any script
        ("Always use it, never avoid it; don't", set()),  # polarity words are stop words
        ("2026-05-24 v3 1024 build42", {"build42"}),  # numbers and dates are no tokens
        ("Привет, дорогой мир", {"привет", "дорогой", "мир"}),  # Cyrillic words
        ("数据库连接", {"数据", "据库", "库连", "连接"}),  # Han: character bigrams
        ("압축 금지", {"압축", "금지"}),  # Hangul: bigrams of each run
        ("카피API수정", {"카피", "api", "수정"}),  # scripts change inside one word
    ],
)
def test_tokens(text: str, expected: set[str]) -> None:
    assert tokens(text) == expected


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ({"aaa", "bbb", "ccc"}, {"aaa", "bbb", "ccc", "ddd", "eee"}, 1.0),
        ({"aaa", "bbb", "ccc", "ddd"}, {"aaa", "bbb", "ccc", "eee"}, 0.75),
        ({"aaa", "bbb"}, {"aaa", "bbb", "ccc"}, None),  # fewer than 3 tokens: no coefficient
    ],
)
def test_overlap_coefficient(a: set[str], b: set[str], expected: float | None) -> None:
    assert overlap(frozenset(a), frozenset(b)) == expected


def test_pair_score_is_the_larger_coefficient() -> None:
    a = TokenSets(frozenset({"aaa", "bbb", "ccc"}), frozenset({"aaa", "bbb", "ccc", "x1x", "x2x"}))
    b = TokenSets(frozenset({"aaa", "bbb", "ccc"}), frozenset({"aaa", "bbb", "ccc", "y1y", "y2y"}))
    assert pair_score(a, b) == 1.0
    c = TokenSets(frozenset({"aaa"}), frozenset({"aaa", "bbb"}))
    assert pair_score(a, c) == 0.0


@pytest.mark.parametrize("threshold", [0.4, 0.5, 0.6, 2 / 3, 0.7, 0.75, 0.8, 0.9, 1.0, 0.123])
def test_min_overlap_agrees_with_division(threshold: float) -> None:
    for size in range(1, 300):
        o = min_overlap(size, threshold)
        assert o / size >= threshold
        assert o == 1 or (o - 1) / size < threshold


@pytest.mark.parametrize("bad", [0.0, -0.1, 1.01, float("nan")])
def test_threshold_out_of_range_refused(bad: float) -> None:
    with pytest.raises(ValueError):
        similar_pairs([], bad)


# ------------------------------------------------------------------------------ fast == brute force

VOCAB = [f"w{n:02d}" for n in range(14)]
token_set = st.frozensets(st.sampled_from(VOCAB), max_size=9)
items = st.lists(
    st.builds(TokenSets, token_set, token_set, st.sampled_from(["feedback", "project"])),
    max_size=28,
)


@pytest.mark.parametrize("vectorised", [False, True])
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items, st.floats(0.4, 1.0))
def test_fast_path_equals_brute_force(vectorised: bool, corpus_items: list[TokenSets], threshold: float) -> None:
    fast = similar_pairs(corpus_items, threshold, vectorised=vectorised)
    assert fast == brute_force_pairs(corpus_items, threshold)


@pytest.mark.parametrize("vectorised", [False, True])
@settings(max_examples=150, deadline=None)
@given(items, st.sampled_from([0.4, 0.5, 0.6, 2 / 3, 0.7, 0.75, 0.8, 0.9, 1.0]), st.data())
def test_fast_path_equals_brute_force_within_groups_and_sides(
    vectorised: bool, corpus_items: list[TokenSets], threshold: float, data: st.DataObject
) -> None:
    sides = data.draw(st.lists(st.integers(0, 1), min_size=len(corpus_items), max_size=len(corpus_items)))
    assert similar_pairs(corpus_items, threshold, same_group=True, vectorised=vectorised) == brute_force_pairs(
        corpus_items, threshold, same_group=True
    )
    fast = similar_pairs(corpus_items, threshold, same_group=True, sides=sides, vectorised=vectorised)
    slow = brute_force_pairs(corpus_items, threshold, same_group=True, allowed=lambda i, j: sides[i] != sides[j])
    assert fast == slow


@settings(max_examples=200, deadline=None)
@given(st.text(alphabet=st.sampled_from("ab1 -_.é中文한국어Жж\n"), max_size=40))
def test_token_set_is_the_set_of_the_token_list(text: str) -> None:
    assert tokens(text) == frozenset(token_list(text))


def _regex_tokens(text: str) -> list[str]:
    """The ASCII tokenizer's definition, as a regular expression (the reference for the fast path)."""
    return [w for w in re.findall(r"[a-z0-9]+", text.lower()) if len(w) >= 3 and w not in STOP_WORDS and not w.isdigit()]


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=st.sampled_from("abcXYZ019 -_.'\n\tK\u212a"), max_size=60))
def test_ascii_tokens_equal_the_regular_expression(text: str) -> None:
    # the Kelvin sign lower-cases to an ASCII "k": such a text takes the other scripts' path
    expected = _regex_tokens(text)
    assert token_list(text) == expected
    assert tokens(text) == frozenset(expected)
    canon: dict[str, str] = {}  # a root's shared table (it may hold stop words, never return them)
    assert tokens(text, canon) == frozenset(expected) == tokens(text, canon)


@pytest.mark.parametrize("vectorised", [False, True])
@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(items, st.sampled_from([0.5, 0.8, 1.0]), st.sampled_from([0.4, 0.5, 0.8]))
def test_fast_path_equals_brute_force_with_a_lower_body_threshold(
    vectorised: bool, corpus_items: list[TokenSets], threshold: float, full_threshold: float
) -> None:
    fast = similar_pairs(corpus_items, threshold, full_threshold=full_threshold, vectorised=vectorised)
    assert fast == brute_force_pairs(corpus_items, threshold, full_threshold=full_threshold)


LARGE_VOCAB = [f"v{n:03d}" for n in range(160)]
large_sets = st.frozensets(st.sampled_from(LARGE_VOCAB[:40]), max_size=12) | st.frozensets(
    st.sampled_from(LARGE_VOCAB), min_size=3, max_size=60
)


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
@given(
    st.lists(st.builds(TokenSets, large_sets, large_sets), min_size=2, max_size=120),
    st.sampled_from([0.4, 0.6, 0.8, 1.0]),
    st.sampled_from([1, 7, 1 << 22]),
    st.booleans(),
    st.sampled_from([64 * 3, 1 << 25]),
)
def test_array_join_equals_brute_force_in_chunks_and_with_colliding_hashes(
    corpus_items: list[TokenSets], threshold: float, chunk: int, collide: bool, grid: int
) -> None:
    # small chunks cut the hits into many runs of sets; a hash of the token's length makes most
    # tokens one token to the array join, which must only add candidates, never lose a pair; a
    # small grid builds the signatures a few sets at a time
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(arrayjoin, "CHUNK_HITS", chunk)
        patch.setattr(arrayjoin, "GRID_CELLS", grid)
        if collide:
            patch.setattr(arrayjoin, "token_hash", len)
        fast = similar_pairs(corpus_items, threshold, full_threshold=min(threshold, 0.6), vectorised=True)
    assert fast == brute_force_pairs(corpus_items, threshold, full_threshold=min(threshold, 0.6))


WORDS = [f"word{n}" for n in range(24)]
NAMES = ["notes.md", "gc.md", "session_2026-01-0{}.md", "log_2026-02-0{}_run.md", "plan{}.md"]


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(
        st.tuples(
            st.sampled_from(NAMES),
            st.lists(st.sampled_from(WORDS), min_size=1, max_size=6),
            st.lists(st.sampled_from(WORDS), min_size=0, max_size=40),
        ),
        max_size=16,
    ),
    st.sampled_from([0.5, 0.8, 1.0]),
)
def test_proposals_equal_the_precision_stage_over_every_pair(
    specs: list[tuple[str, list[str], list[str]]], threshold: float
) -> None:
    files = []
    for n, (name, title, body) in enumerate(specs):
        text = topic(" ".join(title), body=" ".join(body) + "\n")
        path = f"{n:02d}_" + name.format(n % 9)
        files.append(MemoryFile(path, len(text), 0.0, text, parse_frontmatter(text)))
    sets = root_token_sets(files)
    assert proposed_pairs(files, sets, threshold) == brute_force_proposed(files, sets, threshold)


@pytest.mark.parametrize("vectorised_from", [simjoin.VECTORISED_FROM, 0])
def test_proposals_equal_the_precision_stage_over_every_pair_of_a_real_root(vectorised_from: int) -> None:
    snapshot = load_root(corpus("markus41__claude__agent-memory") / "researcher")
    files = sorted(snapshot.files.values(), key=lambda f: f.path)
    sets = root_token_sets(files)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(simjoin, "VECTORISED_FROM", vectorised_from)
        patch.setattr(simjoin, "VECTORISED_LOADED_FROM", vectorised_from)
        # with no weighted-hold gate, so that enough pairs reach the precision stage to compare
        loose = Tuning(merge_hold=0.0, rare_cosine=0.2)
        fast = proposed_pairs(files, sets, 0.8, tuning=loose)
    assert fast == brute_force_proposed(files, sets, 0.8, loose) and len(fast) >= 5


@pytest.mark.parametrize(
    ("name", "template"),
    [
        ("project_session_2026-03-25.md", "project_session_.md"),
        ("project_session_2026-03-18-20.md", "project_session_.md"),
        ("session_2026-05-24_sprint7_t3_execution.md", "session__sprint#_t#_execution.md"),
        ("notes_20260524.md", "notes_.md"),
        ("plan2.md", None),
    ],
)
def test_name_template(name: str, template: str | None) -> None:
    assert name_template("sub/" + name) == template


@pytest.mark.parametrize("vectorised", [False, True])
def test_fast_path_equals_brute_force_on_a_real_corpus(vectorised: bool) -> None:
    root = corpus("jonahscohen__improv__claude-memory")
    snapshot = load_root(root)
    sample = sorted(snapshot.files.values(), key=lambda f: f.path)[::3]
    sets = token_sets_of(sample)
    for threshold in (0.4, 0.8):
        assert similar_pairs(sets, threshold, vectorised=vectorised) == brute_force_pairs(sets, threshold)


# ------------------------------------------------------------------------------ the scan

SHARED = "Garbage collection marks every referenced blob and then sweeps the unreferenced ones"


@pytest.fixture
def dup_root(make_root: MakeRoot) -> Path:
    return make_root({
        "MEMORY.md": "- [gc](gc_runbook.md) — gc\n",
        "gc_runbook.md": topic("GC runbook for blob sweeps", body=SHARED + " nightly.\n"),
        "gc_operations.md": topic("Operations of the blob GC", body=SHARED + " daily.\n"),
        "session_2026-01-01.md": topic("GC runbook for blob sweeps", body=SHARED + ".\n"),
        "archive/gc_old.md": topic("GC runbook for blob sweeps", body=SHARED + ".\n"),
        "INDEX.md": topic("GC runbook for blob sweeps", body=SHARED + ".\n"),
        "unrelated.md": topic("Release train schedule", body="Releases leave every second Tuesday.\n"),
    })


def test_near_duplicates_proposed_without_sessions_archive_or_index_files(dup_root: Path) -> None:
    result = scan(load_root(dup_root))
    assert [(p.a, p.b) for p in result.pairs] == [("gc_operations.md", "gc_runbook.md")]
    pair = result.pairs[0]
    assert pair.score == max(pair.title_score or 0, pair.body_score or 0) >= 0.8
    assert 0 < pair.similarity <= 1 and "blob" in pair.shared and pair.shared_count == 9
    assert result.considered == 3


def test_sessions_join_when_asked(dup_root: Path) -> None:
    result = scan(load_root(dup_root), include_sessions=True)
    names = {p.b for p in result.pairs} | {p.a for p in result.pairs}
    assert "session_2026-01-01.md" in names
    assert [c.files for c in result.clusters] == [
        ("gc_operations.md", "gc_runbook.md", "session_2026-01-01.md")
    ]


def test_rejected_pairs_are_not_proposed(dup_root: Path) -> None:
    remember_rejected(dup_root, "gc_runbook.md", "gc_operations.md")
    rejected = read_rejected(dup_root)
    assert rejected == {("gc_operations.md", "gc_runbook.md")}
    result = scan(load_root(dup_root), rejected=rejected)
    assert result.pairs == () and result.rejected_skipped == 1


def test_remember_rejected_writes_only_its_own_file(dup_root: Path) -> None:
    before = {p: p.read_bytes() for p in dup_root.rglob("*") if p.is_file()}
    remember_rejected(dup_root, "b.md", "a.md")
    remember_rejected(dup_root, "a.md", "b.md")  # the same pair: recorded once
    after = {p: p.read_bytes() for p in dup_root.rglob("*") if p.is_file()}
    new = set(after) - set(before)
    # its own file, the writer's lock it is written under, and the folder's own .gitignore
    assert new == {dup_root / ".memtui" / "rejected.json", dup_root / ".memtui" / "lock",
                   dup_root / ".memtui" / ".gitignore"}
    assert all(after[p] == data for p, data in before.items())
    assert json.loads((dup_root / ".memtui" / "rejected.json").read_text())["pairs"] == [["a.md", "b.md"]]


def test_corrupt_rejected_file_is_read_as_empty_and_never_overwritten(tmp_path: Path) -> None:
    (tmp_path / ".memtui").mkdir()
    (tmp_path / ".memtui" / "rejected.json").write_text("{not json")
    assert read_rejected(tmp_path) == frozenset()
    with pytest.raises(ValueError, match="move it aside"):
        remember_rejected(tmp_path, "a.md", "b.md")
    assert (tmp_path / ".memtui" / "rejected.json").read_text() == "{not json"


@pytest.mark.parametrize(
    ("pairs", "expected"),
    [
        ([("a", "b")], [(("a", "b"), 1, False, False)]),
        ([("a", "b"), ("b", "c"), ("a", "c")], [(("a", "b", "c"), 3, False, False)]),
        ([("a", "b"), ("b", "c")], [(("a", "b", "c"), 2, False, False)]),  # 2 of 3 ≥ 60%
        ([("a", "b"), ("b", "c"), ("c", "d")], [(("a", "b", "c", "d"), 3, False, True)]),  # 3 of 6
        ([(str(i), str(j)) for i in range(7) for j in range(i + 1, 7)],
         [(tuple(str(i) for i in range(7)), 21, True, False)]),
        ([("a", "b"), ("x", "y"), ("y", "z")],
         [(("x", "y", "z"), 2, False, False), (("a", "b"), 1, False, False)]),
    ],
)
def test_clusters(pairs: list[tuple[str, str]], expected: list[tuple[tuple[str, ...], int, bool, bool]]) -> None:
    got = [(c.files, c.pairs, c.oversized, c.chained) for c in clusters_of(pairs)]
    assert got == expected


# ------------------------------------------------------------------------------ contradictions


@pytest.fixture
def contra_root(make_root: MakeRoot) -> Path:
    return make_root({
        "MEMORY.md": "",
        "mock_store.md": topic(
            "Always mock the store in handler unit tests", type_="feedback", updated="2026-08-19",
            body="Always mock the database layer in handler unit tests with gomock.\n"),
        "real_postgres.md": topic(
            "Never mock Postgres in tests that exercise queries", type_="feedback",
            updated="2026-10-30", body="Never mock the database for queries; use testcontainers.\n"),
        "as_project.md": topic(
            "Never mock Postgres in tests that exercise queries", type_="project",
            body="Never mock the database for queries; use testcontainers.\n"),
    })


def test_contradiction_proposed_as_supersede_newer_wins(contra_root: Path) -> None:
    result = scan(load_root(contra_root))
    assert [(c.old, c.new, c.negation, c.type, c.ordered) for c in result.contradictions] == [
        ("mock_store.md", "real_postgres.md", "always/never", "feedback", True)
    ]
    assert result.contradictions[0].to_json()["direction"] == "newer supersedes older"
    assert 0.4 <= result.contradictions[0].score < 0.6


def test_contradiction_needs_the_same_subject(make_root: MakeRoot) -> None:
    # the Inpacchi ui-ux-designer case: a bug note "uses fontSize 2xl" against "never use raw hex"
    root = make_root({
        "MEMORY.md": "",
        "decisions.md": topic("Header font size fix", type_="feedback",
                              body="The header uses fontSize 2xl for headings; headings follow the type "
                              "scale.\n"),
        "patterns.md": topic("Heading typography and colour patterns", type_="feedback",
                             body="Never use raw hex for colours; headings follow the type scale and "
                             "colour tokens.\n"),
    })
    snapshot = load_root(root)
    a, b = snapshot.files["decisions.md"], snapshot.files["patterns.md"]
    # on topic and of opposite stances (the old rule proposed it), but "use" is about other things
    assert 0.4 <= pair_score(token_sets_of([a])[0], token_sets_of([b])[0]) < 0.6
    assert stance(a)["use/avoid"] == "+" and stance(b)["use/avoid"] == "-"
    assert scan(snapshot).contradictions == ()


def test_contradiction_with_equal_dates_has_no_direction(make_root: MakeRoot) -> None:
    body_a = "Always mock the database layer in handler unit tests with gomock.\n"
    body_b = "Never mock the database for queries; use testcontainers.\n"
    root = make_root({
        "MEMORY.md": "",
        "b_mock.md": topic("Always mock the store in handler unit tests", type_="feedback", body=body_a),
        "a_real.md": topic("Never mock Postgres in tests that exercise queries", type_="feedback",
                           body=body_b),
    })
    found = scan(load_root(root)).contradictions
    assert [(c.old, c.new, c.ordered) for c in found] == [("a_real.md", "b_mock.md", False)]
    data = found[0].to_json()
    assert data["direction"] == "order unknown" and data["proposal"] == "review"
    assert set(data["subject"]) == {"database", "mock"}


@pytest.mark.parametrize(
    ("claim", "expected"),
    [
        ("Always mock the store", {"always/never": "+"}),
        ("Never mock Postgres", {"always/never": "-"}),
        ("Use tabs", {"use/avoid": "+"}),
        ("Avoid tabs", {"use/avoid": "-"}),
        ("Don't use tabs", {"use/avoid": "-", "do/don't": "-"}),
        ("Do run the suite", {"do/don't": "+"}),
        ("Prefer rebase", {"prefer/don't prefer": "+"}),
        ("Do not prefer rebase", {"prefer/don't prefer": "-", "do/don't": "-"}),
        ("Always rebase, never merge", {}),  # both sides: no stance
    ],
)
def test_stance(claim: str, expected: dict[str, str]) -> None:
    text = f"---\nname: {claim}\n---\n"
    assert stance(MemoryFile("x.md", len(text), 0.0, text, parse_frontmatter(text))) == expected


CLAIMS = st.sampled_from([
    "Always run the suite", "Never run the suite", "Use the cache", "Avoid the cache",
    "Do rebase", "Don't rebase", "Prefer squash", "Do not prefer squash", "Keep notes",
])


@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(CLAIMS, st.sampled_from(["feedback", "user"]),
                          st.lists(st.sampled_from(VOCAB), min_size=3, max_size=8)), max_size=14))
def test_contradictions_fast_equals_brute(specs: list[tuple[str, str, list[str]]]) -> None:
    files = []
    for n, (claim, type_, words) in enumerate(specs):
        text = topic(claim, type_=type_, body=" ".join(words) + "\n")
        files.append(MemoryFile(f"f{n:02d}.md", len(text), float(n), text, parse_frontmatter(text)))
    sets = token_sets_of(files)
    assert contradicting_pairs(files, sets) == contradicting_pairs(files, sets, brute_force=True)



CUES = ["Always", "Never", "Use", "Avoid", "Do", "Don't", "Prefer", "Do not prefer", "Never use", "Keep"]
CUE_SENTENCE = st.tuples(st.sampled_from(CUES), st.lists(st.sampled_from(VOCAB), min_size=1, max_size=7))


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(st.tuples(st.lists(CUE_SENTENCE, min_size=1, max_size=3), st.sampled_from(["feedback", "user"]),
                          st.lists(st.sampled_from(VOCAB), min_size=3, max_size=10)), max_size=14))
def test_contradictions_fast_equals_brute_with_several_cues_and_subjects(
    specs: list[tuple[list[tuple[str, list[str]]], str, list[str]]],
) -> None:
    """Claims of several cue sentences whose subjects overlap partly: the subject index is exact."""
    files = []
    for n, (sentences, type_, words) in enumerate(specs):
        claim = ". ".join(f"{cue} {' '.join(subject)}" for cue, subject in sentences)
        text = topic(" ".join(words[:3]), description=claim, type_=type_, body=" ".join(words) + "\n")
        files.append(MemoryFile(f"f{n:02d}.md", len(text), float(n), text, parse_frontmatter(text)))
    sets = token_sets_of(files)
    assert contradicting_pairs(files, sets) == contradicting_pairs(files, sets, brute_force=True)

# ------------------------------------------------------------------------------ real corpora


def test_markus41_researcher_look_alikes_that_keep_facts_of_their_own_are_not_merged() -> None:
    # read again against the standard that a fold loses nothing (tests/core/data/labels): each of
    # these holds facts the other lacks (the short agentic note's SICA and CoD/GoD, the summaries'
    # own plans and figures), so folding one into the other would lose them
    result = scan(load_root(corpus("markus41__claude__agent-memory") / "researcher"))
    pairs = {(p.a, p.b) for p in result.pairs}
    assert not {
        ("agentic-patterns-research.md", "agentic_design_patterns.md"),
        ("agentic-patterns-research.md", "agentic_design_patterns_research.md"),
        ("agentic_design_patterns.md", "agentic_design_patterns_research.md"),
        ("drawio-reference.md", "reference_drawio.md"),
        ("MUI_EXPERT_SUMMARY.md", "mui-research-findings.md"),
        ("RESEARCH_SUMMARY_MEMORY_SYSTEM.md", "memory_system_research.md"),
    } & pairs
    # titles alike ("ASP.NET Core 10 … Comprehensive Reference"), bodies on other topics
    assert not {
        ("aspnet_core_comprehensive_guide.md", "aspnetcore_10_fundamentals.md"),
        ("aspnet_core_comprehensive_guide.md", "aspnet_core_comprehensive_research.md"),
    } & pairs


SIDECOACH = ("session_2026-05-24_sidecoach.md", "session_2026-05-25_sidecoach.md",
             "session_2026-06-17_sidecoach.md")


def test_sidecoach_sessions_with_identical_descriptions() -> None:
    root = corpus("jonahscohen__improv__nested-roots") / "sidecoach" / ".claude" / "memory"
    snapshot = load_root(root)
    assert not {p.a for p in scan(snapshot).pairs} & set(SIDECOACH)  # sessions left out
    # the same session log twice: the later report restates the earlier whole, fold it into it
    folds = {(s.old, s.new): s for s in scan(snapshot, include_sessions=True).supersessions}
    assert folds[SIDECOACH[:2]].restated > 0.99
    assert "one series of reports" in folds[SIDECOACH[:2]].evidence[0]
    # the third is another run of the same generated template: one dated family, not a copy
    loose = scan(snapshot, 0.75, include_sessions=True)
    assert not any(SIDECOACH[2] in c.files for c in loose.clusters)


def test_improv_corpus_scan_is_sane() -> None:
    snapshot = load_root(corpus("jonahscohen__improv__claude-memory"))
    assert len(snapshot.files) >= 860
    for include_sessions in (False, True):
        result = scan(snapshot, include_sessions=include_sessions)
        print(
            f"improv sessions={include_sessions}: {result.considered} files, {len(result.pairs)} pairs, "
            f"{len(result.clusters)} clusters ({sum(c.review_pairwise for c in result.clusters)} "
            f"flagged), {len(result.contradictions)} contradictions"
        )
        assert all(p.a < p.b for p in result.pairs)  # no self-pairs, each pair once, ordered
        assert len({(p.a, p.b) for p in result.pairs}) == len(result.pairs)
        keys = [(-p.similarity, -p.score, p.a, p.b) for p in result.pairs]
        assert keys == sorted(keys)
        assert all(c.old != c.new for c in result.contradictions)
        assert all(0.4 <= c.score < 0.6 for c in result.contradictions)
        clustered = [f for c in result.clusters for f in c.files]
        assert len(clustered) == len(set(clustered))
    # less files marked superseded_by; the logs' successive beats are supersessions, not pairs
    assert result.considered > 700 and len(result.supersessions) > 0


def test_scan_never_writes(dup_root: Path) -> None:
    before = sorted((p, p.stat().st_mtime_ns) for p in dup_root.rglob("*"))
    scan(load_root(dup_root), include_sessions=True)
    assert sorted((p, p.stat().st_mtime_ns) for p in dup_root.rglob("*")) == before
    assert not (dup_root / ".memtui").exists() and os.listdir(dup_root)


@pytest.mark.parametrize("words", [
    frozenset(), frozenset({"alpha"}), frozenset({"alpha", "beta", "gamma"}),
    frozenset({""}), frozenset({"", "x"}), frozenset({"a\0b", "c"}), frozenset({"\0"}),
])
def test_a_token_set_kept_as_one_string_comes_back_the_same(words: frozenset[str]) -> None:
    import marshal

    from memtui.core.judge.consolidate import _joined, _split

    kept = marshal.loads(marshal.dumps(_joined(words)))
    assert _split(kept) == words
