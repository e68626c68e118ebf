"""``memtui validate | loaded | list | demo``: output, JSON shapes and exit codes."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from memtui.cli.main import main
from tests.support.roots import topic

CLEAN = {"MEMORY.md": "# M\n- [Alpha](a.md) — the alpha fact\n", "a.md": topic("Alpha", "a")}


def run(capsys, *args: str) -> tuple[int, str, str]:
    code = main(list(args))
    out, err = capsys.readouterr()
    return code, out, err


def test_validate_clean_root_exits_zero(make_root, capsys) -> None:
    code, out, _ = run(capsys, "validate", str(make_root(CLEAN)))
    assert code == 0 and "0 errors" in out


def test_validate_reports_rule_file_and_line(make_root, capsys) -> None:
    root = make_root({**CLEAN, "MEMORY.md": CLEAN["MEMORY.md"] + "- [Gone](gone.md) — x\n"})
    code, out, _ = run(capsys, "validate", str(root))
    assert code == 1
    assert "broken-link" in out and "MEMORY.md:3" in out


def test_validate_json_shape(make_root, capsys) -> None:
    root = make_root({**CLEAN, "b.md": topic("B", "b")})
    code, out, _ = run(capsys, "validate", str(root), "--json")
    data = json.loads(out)
    assert code == 1
    assert set(data) == {"root", "ok", "budget", "findings"}
    assert set(data["budget"]) >= {"lines", "max_lines", "bytes", "max_bytes", "utilization", "tokens"}
    assert data["ok"] is False
    assert data["findings"] == [{"rule": "orphan", "severity": "error", "path": "b.md", "line": None,
                                 "message": data["findings"][0]["message"]}]


def test_validate_several_roots_gives_a_list(make_root, tmp_path, capsys) -> None:
    make_root(CLEAN, name="top/one")
    make_root(CLEAN, name="top/two")
    code, out, _ = run(capsys, "validate", str(tmp_path / "top"), "--json")
    assert code == 0 and [Path(o["root"]).name for o in json.loads(out)] == ["one", "two"]


def test_validate_caps_and_quiet(make_root, capsys) -> None:
    root = make_root({**CLEAN, "MEMORY.md": CLEAN["MEMORY.md"] + "note\n" * 10})
    code, out, _ = run(capsys, "validate", str(root), "--max-lines", "5", "--quiet")
    assert code == 1 and "budget-lines" in out and "warning" not in out
    code, out, _ = run(capsys, "validate", str(make_root(CLEAN, name="c")), "--quiet")
    assert code == 0 and out == ""


def test_validate_records_pressure_unless_told_not_to(make_root, capsys, monkeypatch) -> None:
    root = make_root({**CLEAN, "MEMORY.md": CLEAN["MEMORY.md"] + "note\n" * 185})
    run(capsys, "validate", str(root))
    assert not (root / ".memory-pressure.jsonl").exists()  # tests set MEMTUI_NO_PRESSURE
    monkeypatch.delenv("MEMTUI_NO_PRESSURE")
    run(capsys, "validate", str(root), "--no-record")
    assert not (root / ".memory-pressure.jsonl").exists()
    run(capsys, "validate", str(root))
    assert len((root / ".memory-pressure.jsonl").read_text().splitlines()) == 1


@pytest.mark.parametrize("kind", ["missing", "file", "no-roots", "bad-cap"])
def test_user_mistakes_exit_two_with_one_line(tmp_path, capsys, kind: str) -> None:
    path = tmp_path / "p"
    args = ["validate", str(path)]
    if kind == "file":
        path.write_text("x")
    elif kind == "no-roots":
        path.mkdir()
    elif kind == "bad-cap":
        path.mkdir()
        args += ["--max-lines", "zero"]
    code, out, err = run(capsys, *args)
    assert code == 2 and out == ""
    assert len(err.strip().splitlines()) == 1 and "Traceback" not in err


def test_loaded_shows_the_cut_and_what_falls_past(make_root, capsys) -> None:
    index = "".join(f"- [T{i}](t{i}.md) — fact {i}\n" for i in range(5))
    files = {"MEMORY.md": index, **{f"t{i}.md": topic(f"T{i}", "t") for i in range(5)}}
    root = make_root(files)
    code, out, _ = run(capsys, "loaded", str(root), "--max-lines", "3", "--json")
    data = json.loads(out)
    assert code == 0 and data["cut_line"] == 4 and data["cut_reason"] == "line cap 3"
    assert data["loaded"] == "".join(index.splitlines(keepends=True)[:3]).rstrip("\n")  # joined, as Claude Code
    assert [p["target"] for p in data["past_cut"]] == ["t3.md", "t4.md"]
    code, out, _ = run(capsys, "loaded", str(root), "--max-lines", "3")
    assert "the loader cuts here, at line 4" in out and "t4.md" in out


def test_loaded_lists_every_entry_past_the_cut_piped_and_the_first_ones_on_a_screen(
        make_root, capsys, monkeypatch) -> None:
    from memtui.cli.loaded import PAST_SHOWN

    n = PAST_SHOWN + 13
    index = "".join(f"- [T{i}](t{i}.md) — fact {i}\n" for i in range(n))
    root = make_root({"MEMORY.md": index, **{f"t{i}.md": topic(f"T{i}", "t") for i in range(n)}})
    monkeypatch.delenv("COLUMNS", raising=False)
    code, out, _ = run(capsys, "loaded", str(root), "--max-lines", "3")
    listed = [line for line in out.splitlines() if line.startswith("  line ")]
    assert code == 0 and listed[0] == "  line 4: t3.md" and listed[-1] == f"  line {n}: t{n - 1}.md"
    assert len(listed) == n - 3 and "more (piped" not in out
    monkeypatch.setenv("COLUMNS", "100")  # a width chosen: printed as on a screen
    code, out, _ = run(capsys, "loaded", str(root), "--max-lines", "3")
    listed = [line for line in out.splitlines() if line.startswith("  line ")]
    assert len(listed) == PAST_SHOWN and f"… and {n - 3 - PAST_SHOWN} more" in out


def test_loaded_raw_is_byte_exact(make_root, tmp_path) -> None:
    root = make_root({"MEMORY.md": "\ufeffé\r\nline\r\n"})
    result = subprocess.run([sys.executable, "-m", "memtui", "loaded", str(root), "--raw"],
                            capture_output=True, check=True)
    assert result.stdout == (root / "MEMORY.md").read_bytes()


def test_list_reports_every_root(make_root, tmp_path, capsys) -> None:
    make_root(CLEAN, name="top/one")
    make_root({**CLEAN, "b.md": topic("B", "b")}, name="top/two")
    code, out, _ = run(capsys, "list", str(tmp_path / "top"), "--json")
    data = json.loads(out)
    assert code == 0
    assert [(Path(d["root"]).name, d["files"], d["errors"]) for d in data] == [("one", 1, 0), ("two", 2, 1)]
    code, out, _ = run(capsys, "list", str(tmp_path / "top"))
    assert "one" in out and "two" in out


def test_demo_writes_a_copy_and_refuses_a_non_empty_folder(tmp_path, capsys) -> None:
    out_dir = tmp_path / "demo"
    code, _, _ = run(capsys, "demo", "--out", str(out_dir))
    assert code == 0 and (out_dir / "memory" / "MEMORY.md").is_file()
    code, _, err = run(capsys, "demo", "--out", str(out_dir))
    assert code == 2 and "already exists" in err


def test_module_entry_point_runs_without_traceback(tmp_path) -> None:
    env = {**os.environ, "MEMTUI_NO_PRESSURE": "1"}
    result = subprocess.run([sys.executable, "-m", "memtui", "validate", str(tmp_path / "nope")],
                            capture_output=True, text=True, env=env)
    assert result.returncode == 2 and "no such folder" in result.stderr
    assert "Traceback" not in result.stderr
