"""Plans on hostile indexes stay linear in the input: a chain of thousands of superseded marks is
walked once (each walk equal to the plain walk from every file it replaced), a line of thousands
of links is searched once per mention, and a dry run's diff shows its first hunks and counts the
rest instead of printing a rewrite whole."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from memtui.cli.main import main
from memtui.core.dream.plan import chain_ends
from memtui.core.model import index as index_module
from memtui.core.model import linediff
from memtui.core.model.changeset import Move, Operation, Write, diff_files, diff_lines
from memtui.core.model.index import line_refs
from memtui.core.model.linediff import DiffCut, cut_diff, cut_hunks
from memtui.core.model.snapshot import Finding
from memtui.core.rules.validate import _cycles
from memtui.core.write.preview import moved_findings
from tests.support.roots import MakeRoot

NAMES = [f"n{k}.md" for k in range(8)]

#: a successor map over a few names: each file names another, none, or a file with no entry
successors = st.dictionaries(st.sampled_from(NAMES), st.one_of(st.none(), st.sampled_from(NAMES + ["x.md"])))


def plain_last(start: str, successor: dict[str, str | None]) -> str:
    """Where a chain ends, walked from ``start`` alone (the walk each mark made before)."""
    seen, path = {start}, successor[start]
    while path is not None and path in successor and path not in seen:
        seen.add(path)
        if successor[path] is None:
            return path
        path = successor[path]
    return path if path is not None else start


def plain_depth(old: str, successor: dict[str, str | None]) -> int:
    """How many links a chain has from ``old`` on, walked alone."""
    n, seen = 0, {old}
    while successor.get(old) is not None and successor[old] not in seen:
        old = successor[old]  # type: ignore[assignment]
        seen.add(old)
        n += 1
    return n


class Counting(dict[str, str | None]):
    """A successor map that counts its look-ups."""

    looked = 0

    def __getitem__(self, key: str) -> str | None:
        self.looked += 1
        return super().__getitem__(key)

    def get(self, key: str, default: str | None = None) -> str | None:  # type: ignore[override]
        self.looked += 1
        return super().get(key, default)


@settings(max_examples=300, deadline=None)
@given(successors)
def test_chain_ends_equal_the_walk_from_every_file(successor: dict[str, str | None]) -> None:
    ends, sizes = chain_ends(successor)
    for start in successor:
        assert ends[start] == plain_last(start, successor), start
        if successor[start] is not None:
            assert 1 - sizes[start] == -plain_depth(start, successor), start


def test_a_chain_of_two_thousand_marks_is_walked_once() -> None:
    chain = Counting({f"n{k}.md": f"n{k + 1}.md" for k in range(2_000)})
    ends, sizes = chain_ends(chain)
    assert set(ends.values()) == {"n2000.md"} and sizes["n0.md"] == 2_001
    assert chain.looked <= len(chain)  # each link once (the walk from every file: 2 million)


def plain_cycles(succ: dict[str, str]) -> list[list[str]]:
    """Each circle once, found by walking from every file (the validator's walk before)."""
    reported: set[str] = set()
    out: list[list[str]] = []
    for start in succ:
        seen: list[str] = []
        node: str | None = start
        while node is not None and node not in seen:
            seen.append(node)
            node = succ.get(node)
        if node is not None and node == start and start not in reported:
            reported.update(seen)
            out.append(seen)
    return out


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.sampled_from(NAMES), st.sampled_from(NAMES + ["x.md"])))
def test_supersede_circles_equal_the_walk_from_every_file(succ: dict[str, str]) -> None:
    assert _cycles(succ) == plain_cycles(succ)


def test_a_chain_of_two_thousand_superseded_by_is_walked_once() -> None:
    chain = Counting({f"n{k}.md": f"n{k + 1}.md" for k in range(2_000)})
    chain["n2000.md"] = "n1000.md"  # its last thousand files go round
    cycles = _cycles(chain)  # type: ignore[arg-type]
    assert [len(c) for c in cycles] == [1_001] and cycles[0][0] == "n1000.md"
    assert chain.looked <= len(chain)


def plain_moved(findings: list[Finding], ops: list[Operation]) -> list[Finding]:
    """Findings moved with their files, each move looked up in all the moves before it."""
    moves: dict[str, str] = {}
    for op in ops:
        if isinstance(op, Move):
            for src, dst in list(moves.items()):
                if dst == op.src:
                    moves[src] = op.dst
            moves.setdefault(op.src, op.dst)
    return [Finding(f.rule, f.severity, moves.get(f.path, f.path), f.line, f.message,
                    moves.get(f.subject, f.subject)) for f in findings]


@settings(max_examples=300, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(NAMES), st.sampled_from(NAMES)), max_size=12))
def test_findings_follow_chains_of_moves_as_the_plain_walk(pairs: list[tuple[str, str]]) -> None:
    ops: list[Operation] = [Move(src, dst) for src, dst in pairs]
    findings = [Finding("r", "error", name, None, "m", NAMES[-1 - k]) for k, name in enumerate(NAMES)]
    assert moved_findings(findings, ops) == plain_moved(findings, ops)


class _PlainCovered:
    """Whether a position is inside a span, by a look at every span (the test before)."""

    def __init__(self, spans: list[tuple[int, int]]) -> None:
        self.spans = list(spans)

    def __call__(self, at: int) -> bool:
        return any(start <= at < end for start, end in self.spans)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["[a](a.md)", "b.md", "[[c]]", "[[c.md]]", " ", "x", "[d](d.md) e.md",
                                 "(f.md)", "[g.md](h.md)", "[", "]"]), max_size=30))
def test_mentions_inside_links_are_skipped_as_by_a_look_at_every_link(parts: list[str]) -> None:
    raw = "".join(parts)
    refs = line_refs(raw)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(index_module, "_Covered", _PlainCovered)
        assert refs == line_refs(raw)


def test_a_line_of_thousands_of_links_keeps_every_link_and_no_mention_inside_one() -> None:
    raw = "".join(f"[n{k}](n{k}.md) " for k in range(5_000)) + "also loose.md"
    refs = line_refs(raw)
    assert [r.target for r in refs if r.kind == "mention"] == ["loose.md"]
    assert len(refs) == 5_001


def long_rewrite(n: int) -> tuple[list[str], list[str]]:
    old = [f"line {k}\n" for k in range(n)]
    new = [f"line {k} changed\n" if k % 50 == 0 else line for k, line in enumerate(old)]
    return old, new


def test_a_cut_diff_shows_the_first_hunks_and_counts_the_rest() -> None:
    old, new = long_rewrite(5_000)
    whole = list(linediff.unified_diff(old, new, "a/x.md", "b/x.md"))
    cut = cut_diff(iter(whole), DiffCut(hunks=5, lines=200))
    hunks = sum(line.startswith("@@") for line in whole)
    assert cut.text.splitlines(keepends=True) == whole[: len(cut.text.splitlines())]
    assert sum(line.startswith("@@") for line in cut.text.splitlines()) == 5
    assert cut.hunks_left == hunks - 5
    assert len(cut.text.splitlines()) + cut.lines_left == len(whole)  # every line shown or counted


def test_cutting_hunks_unmade_agrees_with_cutting_their_lines() -> None:
    old, new = long_rewrite(9_000)  # past linediff.LONG: the unique-line matching
    ops = (Write("x.md", "".join(new).encode(), "".join(old).encode()),)
    for cut in (DiffCut(), DiffCut(hunks=2, lines=5), DiffCut(hunks=500, lines=30, width=4)):
        assert cut_hunks(diff_files(ops), cut) == cut_diff(diff_lines(ops), cut), cut


def test_a_long_line_is_cut_to_the_width() -> None:
    cut = cut_diff(iter(["--- a/x\n", "+++ b/x\n", "@@ -1 +1 @@\n", "-" + "a" * 5_000 + "\n",
                         "+b\n"]), DiffCut(width=100))
    assert "(4,901 more characters)" in cut.text and not cut.cut


def dry_run(capsys: pytest.CaptureFixture[str], *argv: str) -> str:
    assert main(["dream", "--dry-run", "--now", "2026-11-30", *argv]) == 0
    return capsys.readouterr().out


def test_a_dry_run_of_a_long_rewrite_prints_a_bounded_diff(make_root: MakeRoot,
                                                           capsys: pytest.CaptureFixture[str]) -> None:
    # an index of 3,000 lines of prose, each naming a file: the dream rewrites it whole
    lines = "".join(f"- [Note {k}](note{k}.md) — see note{k}.md for the fact number {k}\n" for k in range(60))
    lines += "".join(f"Some prose line {k} that is not an entry at all, kept as a content dump.\n"
                     for k in range(3_000))
    files: dict[str, str] = {"MEMORY.md": "# Memory\n\n" + lines}
    for k in range(60):
        files[f"note{k}.md"] = f"---\nname: Note {k}\ndescription: fact {k}\ntype: project\n---\nFact {k}.\n"
    root = make_root(files)
    short = dry_run(capsys, str(root))
    full = dry_run(capsys, str(root), "--full-diff")
    assert "--full-diff prints it whole" in short
    assert "--full-diff" not in full
    assert len(short.splitlines()) < 600 < len(full.splitlines())


def test_a_dry_run_of_a_long_chain_of_marks_prints_a_bounded_plan(make_root: MakeRoot,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    n = 300
    topic = "---\nname: Note {k}\ndescription: fact {k}\ntype: project\n---\nFact {k}.\n"
    files = {f"n{k}.md": topic.format(k=k) for k in range(n + 1)}
    files["MEMORY.md"] = "# Memory\n\n" + "".join(
        f"- [Note {k}](n{k}.md) — SUPERSEDED by n{k + 1}.md\n" for k in range(n)) + f"- [Note {n}](n{n}.md)\n"
    out = dry_run(capsys, str(make_root(files)))
    assert "supersede-declared" in out and "… and 288 more" in out  # the evidence, bounded
    assert "--full-diff prints it whole" in out
    assert len(out.splitlines()) < 400  # every file's fold printed: thousands
