"""Full-text search across roots (:mod:`memtui.core.stores.search`): ranking, CJK, what a hit
says, and an index that is never the source of truth."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from memtui.core.model.search_text import Term, index_text, match_expression, parse_query
from memtui.core.stores.search import EmptyQuery, search
from memtui.core.stores.search_index import FILES, FOLDERS, SearchIndex
from tests.support.roots import corpus, topic

LATER = 10 * 1_000_000_000  # a clock ten seconds ahead: every file's stat key is old enough to trust


def later() -> int:
    return time.time_ns() + LATER


def db_path() -> Path:
    return Path(os.environ["MEMTUI_CACHE_DIR"]) / "search" / "index.sqlite3"


def paths(result) -> list[str]:
    return [hit.path for hit in result.hits]


# ---------------------------------------------------------------- queries


@pytest.mark.parametrize(("typed", "expression"), [
    ("deploy staging", '"deploy" AND "staging"'),
    ('"rotate the keys" now', '"rotate the keys" AND "now"'),
    ("deplo*", '"deplo"*'),
    ('NEAR(a b) OR col:x', '"NEAR(a" AND "b)" AND "OR" AND "col:x"'),  # no FTS5 syntax gets through
    ('say "it', '"say" AND "it"'),  # an unclosed quote runs to the end
    ('a"b', '"a""b"'),
])
def test_a_query_is_quoted_parts(typed: str, expression: str) -> None:
    assert match_expression(parse_query(typed)) == expression


def test_a_query_of_no_word_is_refused(make_root) -> None:
    root = make_root({"MEMORY.md": "# M\n"})
    with pytest.raises(EmptyQuery):
        search('"" * --', [root])


def test_cjk_runs_become_bigrams_and_a_lone_character_a_prefix() -> None:
    assert index_text("設定ファイル") == " 設定 定フ ファ ァイ イル ル "
    assert Term("設定ファイル").expression() == '" 設定 定フ ファ ァイ イル "'
    assert Term("設").expression() == '" 設 "*'
    assert index_text("İstanbul çalışma") == "istanbul çalişma"  # ş is folded by the tokenizer


@pytest.mark.parametrize("query", ["staging", "Staging", "stag*", "ROTATE"])
def test_any_case_and_prefix_finds_the_file(make_root, query: str) -> None:
    root = make_root({"MEMORY.md": "# M\n- [Keys](keys.md) — how we rotate keys\n",
                      "keys.md": topic("Keys", body="Rotate the staging keys monthly.\n")})
    assert paths(search(query, [root])) == ["keys.md"]


# ---------------------------------------------------------------- ranking


def test_a_rare_exact_phrase_ranks_above_common_words(make_root) -> None:
    common = "The staging server holds many credentials. " * 3 + "Credentials for staging: ask.\n"
    files = {"MEMORY.md": "# M\n" + "".join(f"- [N{i}](n{i}.md) — staging notes\n" for i in range(6))}
    for i in range(6):
        files[f"n{i}.md"] = topic(f"Staging notes {i}", "notes on the staging server", body=common)
    files["MEMORY.md"] += "- [Rotation](rotation.md) — a procedure\n"
    files["rotation.md"] = topic("Rotation", "a procedure",
                                 body="Once a quarter we rotate staging credentials by hand.\n")
    root = make_root(files)
    result = search("rotate staging credentials", [root])
    assert result.hits[0].path == "rotation.md" and result.hits[0].phrase
    assert result.total == 1  # "rotate" is in no other file: every word must be found
    result = search("staging credentials", [root])
    assert result.hits[0].path == "rotation.md" and result.hits[0].phrase
    assert len(result.hits) == 7 and not any(hit.phrase for hit in result.hits[1:])


def test_a_title_word_outranks_the_same_word_in_a_body(make_root) -> None:
    root = make_root({"MEMORY.md": "# M\n- [A](a.md) — x\n- [B](b.md) — y\n",
                      "a.md": topic("Other", body="We mention webhooks once here, among other things.\n"),
                      "b.md": topic("Webhooks", body="How the service is wired, among other things.\n")})
    assert paths(search("webhooks", [root])) == ["b.md", "a.md"]


def test_searching_some_of_the_indexed_roots_ranks_and_counts_only_theirs(make_root) -> None:
    # the other root's files hold the word more often (they would rank first were it searched)
    one = make_root({"MEMORY.md": "# M\n", **{f"a{i}.md": topic(f"A{i}", body="alpha once\n")
                                             for i in range(3)}}, name="one")
    two = make_root({"MEMORY.md": "# M\n", **{f"b{i}.md": topic("Alpha", body="alpha alpha alpha\n")
                                             for i in range(5)}}, name="two")
    both = search("alpha", [one, two], 4)
    assert [hit.root for hit in both.hits] == [two] * 4 and (both.total, both.files) == (8, 8)
    result = search("alpha", [one], 2)
    assert [hit.root for hit in result.hits] == [one] * 2 and (result.total, result.files) == (3, 3)
    assert sorted(paths(search("alpha", [one], 5))) == ["a0.md", "a1.md", "a2.md"]


# ---------------------------------------------------------------- CJK and other scripts


JAPANESE = topic("会議の予定", "毎週の会議", body="毎週月曜日に定例会議を行う。議事録は共有フォルダに保存する。\n")


@pytest.mark.parametrize("query", ["会議", "定例会議", "議", "議事録", "共有フォルダ", "月曜"])
def test_a_japanese_note_is_found_by_any_part_of_a_word(make_root, query: str) -> None:
    root = make_root({"MEMORY.md": "# M\n- [会議](meeting.md) — 定例\n", "meeting.md": JAPANESE,
                      "other.md": topic("Other", body="Nothing Japanese here.\n")})
    result = search(query, [root])
    assert paths(result) == ["meeting.md"]
    start, end = result.hits[0].snippet.marks[0]
    assert result.hits[0].snippet.text[start:end] == query


def test_korean_and_turkish_words_are_found(make_root) -> None:
    root = make_root({"MEMORY.md": "# M\n",
                      "ko.md": topic("설정", body="로컬 웹 설정을 저장한다.\n"),
                      "tr.md": topic("Kurulum", body="Çalışma anı testi İstanbul'da yapıldı.\n")})
    assert paths(search("설정", [root])) == ["ko.md"]
    assert paths(search("calisma istanbul", [root])) == ["tr.md"]


def test_a_japanese_corpus_note_is_found_by_a_two_character_word() -> None:
    folder = corpus("tanakayuushin__ai-ceo-project__memory-roots")
    target = next(p for p in sorted(folder.rglob("*.md"))
                  if p.name != "MEMORY.md" and "商工会議所" in p.read_text(encoding="utf-8"))
    from memtui.core.roots.discover import roots_under

    result = search("会議", roots_under(folder), 50)
    assert target.name in paths(result)
    assert all("会議" in hit.snippet.text for hit in result.hits)


# ---------------------------------------------------------------- what a hit says


def test_each_hit_says_how_the_file_is_reached(make_root) -> None:
    index = "# M\n- [Loaded](loaded.md) — word\n- region `lesson_*.md` → older lessons\n"
    root = make_root({
        "MEMORY.md": index + "".join(f"line {i}\n" for i in range(200)) + "- [Late](late.md) — word\n",
        "MEMORY-archive.md": "# Archive\n- [Old](archive/old.md) — word\n",
        "loaded.md": topic("Loaded", body="word\n"),
        "lesson_one.md": topic("Lesson", body="word\n"),
        "late.md": topic("Late", body="word\n"),
        "archive/old.md": topic("Old", body="word\n", status="archived"),
        "lost.md": topic("Lost", body="word\n"),
    })
    hits = {hit.path: hit for hit in search("word", [root]).hits}
    assert hits["loaded.md"].loads and hits["loaded.md"].where == "loads at session start"
    assert hits["lesson_one.md"].where == "reachable only by a region"
    assert hits["late.md"].reach == "not loaded" and not hits["late.md"].loads
    assert hits["archive/old.md"].archived and hits["archive/old.md"].where == "archived"
    assert hits["lost.md"].reach == "orphan"
    assert hits["loaded.md"].to_json()["root"] == str(root)


def test_the_hook_is_searched(make_root) -> None:
    root = make_root({"MEMORY.md": "# M\n- [A](a.md) — the pelican procedure\n",
                      "a.md": topic("A", body="Nothing to see.\n")})
    assert paths(search("pelican", [root])) == ["a.md"]


# ---------------------------------------------------------------- kept current, never trusted


def test_an_unchanged_root_is_not_read_again(make_root) -> None:
    root = make_root({"MEMORY.md": "# M\n- [A](a.md) — x\n", "a.md": topic("A", body="alpha\n"),
                      "b.md": topic("B", body="beta\n")})
    first = search("alpha", [root], clock=later)
    assert first.sync.read == 2 and first.sync.written == 2
    again = search("beta", [root], clock=later)
    assert (again.sync.read, again.sync.written) == (0, 0) and paths(again) == ["b.md"]


def test_a_file_changed_behind_memtuis_back_is_found_by_its_new_words(make_root) -> None:
    root = make_root({"MEMORY.md": "# M\n- [A](a.md) — x\n",
                      "a.md": topic("A", body="the old procedure uses ferrets\n")})
    assert paths(search("ferrets", [root], clock=later)) == ["a.md"]
    inode = os.stat(root / "a.md").st_ino
    with open(root / "a.md", "r+", encoding="utf-8") as handle:  # in place: the folder does not move
        handle.write(topic("A", body="the new procedure uses otters\n"))
        handle.truncate()
    assert os.stat(root / "a.md").st_ino == inode
    # a look at the folders alone does not see the new words yet, but never shows the old ones
    assert paths(search("ferrets", [root], check=FOLDERS, clock=later)) == []
    assert paths(search("otters", [root], check=FILES, clock=later)) == ["a.md"]
    assert paths(search("ferrets", [root], clock=later)) == []



def _rewrite_in_place(path: Path, text: str) -> None:
    with open(path, "r+", encoding="utf-8") as handle:  # the folder's stat key does not move
        handle.write(text)
        handle.truncate()


def test_the_check_of_every_file_keeps_the_folders_answer_only_when_nothing_moved(make_root) -> None:
    root = make_root({"MEMORY.md": "# M\n- [A](a.md) — x\n",
                      "a.md": topic("A", body="the old procedure uses ferrets\n"),
                      "b.md": topic("B", body="otters and ferrets\n")})
    search("ferrets", [root], clock=later)
    with SearchIndex.open(later) as index:
        first = search("otters", [root], check=FOLDERS, index=index, clock=later)
        again = search("otters", [root], check=FILES, index=index, after=first, clock=later)
        assert again.hits is first.hits and (again.sync.checked, again.sync.written) == (1, 0)
        # a file rewritten in place since: the check reads it, and the rows are ranked again
        _rewrite_in_place(root / "a.md", topic("A", body="the new procedure uses otters\n"))
        first = search("otters", [root], check=FOLDERS, index=index, clock=later)
        assert paths(first) == ["b.md"]
        late = search("otters", [root], check=FILES, index=index, after=first, clock=later)
        assert sorted(paths(late)) == ["a.md", "b.md"] and late.sync.written == 1


def test_a_row_another_memtui_wrote_meanwhile_is_ranked_again(make_root) -> None:
    root = make_root({"MEMORY.md": "# M\n- [A](a.md) — x\n",
                      "a.md": topic("A", body="the old procedure uses ferrets\n")})
    search("ferrets", [root], clock=later)
    with SearchIndex.open(later) as index:
        first = search("otters", [root], check=FOLDERS, index=index, clock=later)
        assert paths(first) == []
        _rewrite_in_place(root / "a.md", topic("A", body="the new procedure uses otters\n"))
        assert paths(search("otters", [root], clock=later)) == ["a.md"]  # its own connection
        late = search("otters", [root], check=FILES, index=index, after=first, clock=later)
        assert late.sync.written == 0 and paths(late) == ["a.md"]


def test_a_file_added_or_removed_is_seen_by_the_folders_look(make_root) -> None:
    root = make_root({"MEMORY.md": "# M\n- [A](a.md) — x\n", "a.md": topic("A", body="alpha\n")})
    search("alpha", [root], clock=later)
    (root / "b.md").write_text(topic("B", body="alpha beta\n"), encoding="utf-8")
    assert paths(search("alpha", [root], check=FOLDERS, clock=later)) == ["a.md", "b.md"]
    (root / "a.md").unlink()
    assert paths(search("alpha", [root], check=FOLDERS, clock=later)) == ["b.md"]


def test_a_stale_row_is_dropped_by_the_recheck(make_root) -> None:
    root = make_root({"MEMORY.md": "# M\n", "a.md": topic("A", body="alpha\n"),
                      "b.md": topic("B", body="alpha\n")})
    search("alpha", [root], clock=later)
    with SearchIndex.open(later) as index:
        target = next(iter(index.root_ids([root])))
        (root / "a.md").unlink()
        result = search("alpha", [root], check=FOLDERS, index=index, clock=later, prune=False)
        assert paths(result) == ["b.md"]
        # the re-check alone (no sync at all) drops a row whose file is gone
        (root / "b.md").unlink()
        from memtui.core.stores.search import _Checker

        checker = _Checker(index, {target: str(root)}, parse_query("alpha"), '"alpha"', later)
        assert checker.check(index.candidates('"alpha"', [target], 5), False) == [None]
        checker.close()
        assert index.candidates('"alpha"', [target], 5) == []


def test_a_removed_roots_rows_go(make_root) -> None:
    one = make_root({"MEMORY.md": "# M\n", "a.md": topic("A", body="alpha\n")}, name="one")
    two = make_root({"MEMORY.md": "# M\n", "b.md": topic("B", body="alpha\n")}, name="two")
    search("alpha", [one, two])
    (two / "MEMORY.md").unlink()
    result = search("alpha", [one])
    assert str(two) in result.sync.gone
    with sqlite3.connect(db_path()) as conn:
        assert conn.execute("SELECT count(*) FROM docs").fetchone()[0] == 1
        assert [r for (r,) in conn.execute("SELECT real FROM roots")] == [os.path.realpath(one)]


# ---------------------------------------------------------------- a damaged or foreign database


def _root_with_words(make_root) -> Path:
    return make_root({"MEMORY.md": "# M\n- [A](a.md) — x\n", "a.md": topic("A", body="alpha\n"),
                      "b.md": topic("B", body="beta gamma\n")})


@pytest.mark.parametrize("damage", ["garbage", "truncated", "zeroed pages"])
def test_a_damaged_database_is_rebuilt(make_root, damage: str) -> None:
    root = _root_with_words(make_root)
    search("alpha", [root])
    path = db_path()
    with sqlite3.connect(path) as conn:  # everything into the main file
        conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    data = path.read_bytes()
    if damage == "garbage":
        path.write_bytes(b"not a database at all " * 200)
    elif damage == "truncated":
        path.write_bytes(data[: len(data) // 3])
    else:
        path.write_bytes(data[:4096] + b"\0" * (len(data) - 4096))
    result = search("beta", [root])
    assert result.sync.rebuilt and paths(result) == ["b.md"]
    assert paths(search("alpha", [root])) == ["a.md"]
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_database_of_another_version_is_rebuilt(make_root) -> None:
    root = _root_with_words(make_root)
    search("alpha", [root])
    with sqlite3.connect(db_path()) as conn:
        conn.execute("UPDATE meta SET value = '0' WHERE key = 'format'")
    result = search("alpha", [root])
    assert result.sync.rebuilt and paths(result) == ["a.md"]


def test_without_a_cache_the_index_lives_in_memory(make_root, monkeypatch) -> None:
    monkeypatch.setenv("MEMTUI_NO_CACHE", "1")
    root = _root_with_words(make_root)
    assert paths(search("gamma", [root])) == ["b.md"]
    assert not db_path().exists()


def test_the_database_is_private(make_root) -> None:
    search("alpha", [_root_with_words(make_root)])
    assert db_path().stat().st_mode & 0o077 == 0
    assert db_path().parent.stat().st_mode & 0o077 == 0


# ---------------------------------------------------------------- two memtuis at once

INDEXER = """
import sys
from pathlib import Path
from memtui.core.stores.search import search
roots = [Path(p) for p in sys.argv[1:]]
result = search("common", roots, 500)
print(len(result.hits))
"""


def test_two_processes_indexing_at_once_agree(make_root) -> None:
    roots = []
    for r in range(4):
        files = {"MEMORY.md": "# M\n"}
        files.update({f"n{i}.md": topic(f"N{i}", body=f"common words and unique{r}x{i}\n") for i in range(60)})
        roots.append(make_root(files, name=f"r{r}"))
    env = dict(os.environ, PYTHONPATH=str(Path(__file__).resolve().parents[2]))
    procs = [subprocess.Popen([sys.executable, "-c", INDEXER, *map(str, roots)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
             for _ in range(2)]
    outputs = [proc.communicate(timeout=120) for proc in procs]
    assert [proc.returncode for proc in procs] == [0, 0], [err for _, err in outputs]
    assert [out.strip() for out, _ in outputs] == ["240", "240"]
    with sqlite3.connect(db_path()) as conn:
        assert conn.execute("SELECT count(*), count(DISTINCT root || '/' || path) FROM docs").fetchone() == (240, 240)
        conn.execute("INSERT INTO fts(fts) VALUES ('integrity-check')")  # raises when the index is off
    assert paths(search("unique2x7", roots)) == ["n7.md"]
