"""``memtui search``: scopes (PATH, the project's layers, ``--all``), output, JSON and exit codes."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from memtui.cli.main import main
from tests.support.roots import topic


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def lesson_root(make_root, name: str, body: str) -> Path:
    return make_root({"MEMORY.md": "# M\n- [Lesson](feedback_tests.md) — how we test\n",
                      "feedback_tests.md": topic("Lesson", "how we test", "feedback", body)}, name=name)


@pytest.fixture
def claude_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A scratch ``CLAUDE_CONFIG_DIR`` holding three projects' memories, a user-level agent's
    memory and a project with no memory yet; the current folder is none of them."""
    config = tmp_path / "claude"
    for i, word in enumerate(["pelican", "walrus", "pelican walrus"]):
        memory = config / "projects" / f"-work-proj{i}" / "memory"
        memory.mkdir(parents=True)
        (memory / "MEMORY.md").write_text(f"# M\n- [Note](note_{i}.md) — project {i}\n", encoding="utf-8")
        (memory / f"note_{i}.md").write_text(topic(f"Note {i}", body=f"The {word} rule.\n"), encoding="utf-8")
    (config / "projects" / "-work-empty").mkdir(parents=True)
    agent = config / "agent-memory" / "reviewer"
    agent.mkdir(parents=True)
    (agent / "MEMORY.md").write_text("# M\n- [R](r.md) — review\n", encoding="utf-8")
    (agent / "r.md").write_text(topic("Review", body="Check the pelican twice.\n"), encoding="utf-8")
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(config))
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    monkeypatch.chdir(elsewhere)
    return config


def test_all_searches_every_project_and_agent_memory(claude_config, capsys) -> None:
    code, out, _ = run(capsys, "search", "pelican", "--all", "--json")
    data = json.loads(out)
    found = {(Path(hit["root"]).relative_to(claude_config).as_posix(), hit["path"]) for hit in data["hits"]}
    assert code == 0
    assert found == {("projects/-work-proj0/memory", "note_0.md"), ("projects/-work-proj2/memory", "note_2.md"),
                     ("agent-memory/reviewer", "r.md")}
    assert len(data["roots"]) == 4 and data["files"] == 4
    # every word must be found: only the third project holds both
    code, out, _ = run(capsys, "search", "pelican walrus", "--all", "--json")
    assert [hit["path"] for hit in json.loads(out)["hits"]] == ["note_2.md"]


def test_all_includes_the_roots_of_the_config(claude_config, tmp_path, monkeypatch, make_root, capsys) -> None:
    extra = lesson_root(make_root, "notes/team", "The pelican handbook.\n")
    (tmp_path / "xdg").mkdir()
    (tmp_path / "xdg" / "memtui").mkdir()
    (tmp_path / "xdg" / "memtui" / "config.json").write_text(json.dumps({"roots": [str(extra.parent)]}))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg"))
    code, out, _ = run(capsys, "search", "handbook", "--all", "--json")
    assert code == 0 and [hit["root"] for hit in json.loads(out)["hits"]] == [str(extra)]


def test_without_all_the_current_projects_layers(claude_config, tmp_path, monkeypatch, capsys) -> None:
    project = tmp_path / "work" / "proj1"
    project.mkdir(parents=True)
    (project / ".git").mkdir()
    monkeypatch.chdir(project)
    # Claude Code's folder for /…/work/proj1 is not -work-proj1 (the tmp path is longer): make it
    from memtui.core.roots.discover import claude_project_memory

    memory = claude_project_memory(project, claude_config.parent)
    memory = claude_config / "projects" / memory.parent.name / "memory"
    memory.mkdir(parents=True)
    (memory / "MEMORY.md").write_text("# M\n- [W](w.md) — w\n", encoding="utf-8")
    (memory / "w.md").write_text(topic("W", body="The walrus of this project.\n"), encoding="utf-8")
    code, out, _ = run(capsys, "search", "walrus", "--json")
    assert code == 0 and [(hit["root"], hit["path"]) for hit in json.loads(out)["hits"]] == [(str(memory), "w.md")]


def test_text_output_marks_the_match_and_says_how_it_loads(make_root, capsys) -> None:
    root = lesson_root(make_root, "one", "Always run the pelican suite first.\n")
    code, out, _ = run(capsys, "search", "pelican", str(root))
    assert code == 0
    assert "feedback_tests.md" in out and "loads at session start" in out
    assert "«pelican»" in out  # not a terminal: the match between « »


def test_nothing_found_exits_one(make_root, capsys) -> None:
    code, out, _ = run(capsys, "search", "zebra", str(lesson_root(make_root, "one", "x\n")))
    assert code == 1 and "nothing found for zebra" in out


@pytest.mark.parametrize("extra", [['""'], ["pelican", "--all"]])
def test_mistakes_exit_two(make_root, capsys, extra) -> None:
    """An empty query, and PATHs beside --all."""
    root = lesson_root(make_root, "one", "x\n")
    code, _, err = run(capsys, "search", extra[0], str(root), *extra[1:])
    assert code == 2 and "search:" in err


def test_control_characters_never_reach_the_terminal(make_root, capsys) -> None:
    root = make_root({"MEMORY.md": "# M\n- [E](e.md) — x\n",
                      "e.md": topic("Evil\x1b]0;title\x07", body="pelican \x1b[2J cleared\n")})
    code, out, _ = run(capsys, "search", "pelican", str(root))
    assert code == 0 and "\x1b" not in out and "\x07" not in out and "\\e" in out
    code, out, _ = run(capsys, "search", "pelican", str(root), "--json")
    assert "\x1b" not in out and json.loads(out)["hits"][0]["title"] == "Evil\x1b]0;title\x07"


def test_a_file_rewritten_in_place_is_printed_after_the_full_check(make_root, capsys) -> None:
    root = lesson_root(make_root, "one", "the ferret rule\n")
    run(capsys, "search", "ferret", str(root))
    with open(root / "feedback_tests.md", "r+", encoding="utf-8") as handle:
        handle.write(topic("Lesson", "how we test", "feedback", "the otter rule\n"))
        handle.truncate()
    code, out, _ = run(capsys, "search", "otter", str(root))
    assert code == 0 and "feedback_tests.md" in out


def test_json_shape(make_root, capsys) -> None:
    root = lesson_root(make_root, "one", "Always run the pelican suite first.\n")
    code, out, _ = run(capsys, "search", "pelican", str(root), "--json", "--limit", "1")
    data = json.loads(out)
    assert set(data) == {"query", "roots", "total", "files", "hits", "rebuilt"}
    hit = data["hits"][0]
    assert set(hit) == {"root", "path", "title", "type", "reach", "loads", "archived", "where", "rank",
                        "phrase", "snippet"}
    assert (hit["path"], hit["reach"], hit["loads"], hit["type"]) == ("feedback_tests.md", "entry", True, "feedback")
    start, end = hit["snippet"]["marks"][0]
    assert hit["snippet"]["text"][start:end] == "pelican"


def test_sqlite_stays_out_of_the_other_commands(make_root) -> None:
    root = lesson_root(make_root, "one", "x\n")
    code = ("import sys\nfrom memtui.cli.main import main, build_parser\nbuild_parser()\n"
            f"main(['validate', {str(root)!r}])\nmain(['list', {str(root)!r}])\n"
            "print('sqlite3' in sys.modules, '_sqlite3' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert done.stdout.strip().splitlines()[-1] == "False False"
