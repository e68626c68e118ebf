"""A folder from someone else gives findings and clean refusals — never a traceback, never raw
terminal escapes, never a missed interrupted change (issue 16, items 5, 7 and 8)."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from memtui.cli.main import main
from memtui.core import write
from memtui.core.read.store import load_root
from memtui.core.roots.discover import discover
from memtui.core.rules.validate import secret_findings, validate
from memtui.core.verbs import lifecycle as verbs
from memtui.core.write.fs import disk
from tests.support.roots import MakeRoot, topic
from tests.support.writer import VALID_ROOT, Crash, snap, tree

INDEX = "# Memory\n\n## Recent\n- [Alpha](a.md) — the alpha fact\n"
A = topic("Alpha", "alpha fact")


# ---------------------------------------------------------------- 5. an interrupted change is reported


@pytest.fixture
def interrupted(make_root: MakeRoot, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A root where a pin crashed half-way: alpha.md rewritten, MEMORY.md not yet."""
    root = make_root(dict(VALID_ROOT))
    snapshot = load_root(root)
    preview = write.plan(snapshot, verbs.pin(snapshot, "alpha.md"))
    original = disk.replace

    def crash(src: str, dst: str) -> None:
        if dst.endswith("MEMORY.md"):
            raise Crash()
        original(src, dst)

    monkeypatch.setattr(disk, "replace", crash)
    with pytest.raises(Crash):
        write.commit(preview)
    monkeypatch.undo()
    return root


@pytest.mark.parametrize("command", ["validate", "loaded", "list", "stale", "scan"])
def test_read_only_commands_report_an_interrupted_change_and_write_nothing(
        interrupted: Path, command: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = tree(interrupted, include_memtui=True)
    code = main([command, str(interrupted)])
    out, err = capsys.readouterr()
    assert "interrupted-change" in out + err
    assert "run any memtui change or open the app to recover" in " ".join((out + err).split())
    assert code == (0 if command == "list" else 1)  # list counts it among the root's errors
    assert tree(interrupted, include_memtui=True) == before


def test_validate_json_carries_the_interrupted_change(interrupted: Path,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["validate", "--json", str(interrupted)]) == 1
    [finding] = [f for f in json.loads(capsys.readouterr().out)["findings"]
                 if f["rule"] == "interrupted-change"]
    assert finding["severity"] == "error" and finding["path"].startswith(".memtui/journal/")
    write.recover(interrupted)  # any change or the app recovers; then it is gone
    assert not [f for f in validate(load_root(interrupted)) if f.rule == "interrupted-change"]


# ---------------------------------------------------------------- 7. no tracebacks


def test_a_memory_md_symlink_loop_is_a_finding(make_root: MakeRoot, tmp_path: Path,
                                               capsys: pytest.CaptureFixture[str]) -> None:
    root = make_root({"a.md": A})
    (root / "MEMORY.md").symlink_to("MEMORY.md")
    deeper = make_root({"x/a.md": A}, name="outer")  # anywhere below a folder given as PATH
    (deeper / "x" / "MEMORY.md").symlink_to("MEMORY.md")
    assert discover(deeper) == [deeper / "x"]
    for command in (["validate", str(root)], ["validate", str(deeper)], ["list", str(root)],
                    ["loaded", str(root)], ["stale", str(root)], ["scan", str(root)]):
        code = main(command)
        out, err = capsys.readouterr()
        assert "Traceback" not in out + err and code in (0, 1), command
    [finding] = [f for f in validate(load_root(root)) if f.rule == "index-missing"]
    assert "symlink loop" in finding.message
    assert main(["pin", "--root", str(root), str(root / "a.md")]) == 2  # one line: no MEMORY.md
    err = capsys.readouterr().err
    assert "MEMORY.md" in err and "Traceback" not in err


@pytest.mark.parametrize("verb", ["pin", "rebuild", "remember"])
def test_an_index_symlinked_outside_is_refused_without_a_traceback(
        make_root: MakeRoot, tmp_path: Path, verb: str, capsys: pytest.CaptureFixture[str]) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "MEMORY.md").write_text("# someone else's index\n")
    root = make_root({"a.md": A})
    (root / "MEMORY.md").symlink_to(outside / "MEMORY.md")
    before = snap(outside)
    args = {"pin": ["pin", "--root", str(root), str(root / "a.md")], "rebuild": ["rebuild", str(root)],
            "remember": ["remember", "--root", str(root), "New fact"]}[verb]
    code = main(args)
    err = capsys.readouterr().err
    assert code == 1, err
    assert "symlink leading outside" in err and "Traceback" not in err
    assert snap(outside) == before


HOSTILE_NAME = "title\x1b]0;pwned\x07\x1b[2Jx.md"


def test_escape_sequences_in_names_and_text_are_shown_escaped(
        make_root: MakeRoot, capsys: pytest.CaptureFixture[str]) -> None:
    root = make_root({"MEMORY.md": INDEX + "clear: \x1b[2J and [bold]markup[/bold]\n", "a.md": A,
                      HOSTILE_NAME: topic("Evil", "evil \x1b[31mred")})
    for command in ("validate", "loaded", "stale", "scan", "list"):
        main([command, str(root)])
        out, err = capsys.readouterr()
        assert "\x1b" not in out + err and "\x07" not in out + err, command
    main(["stale", str(root)])
    assert "\\e]0;pwned" in "".join(capsys.readouterr().out.split())  # shown, not acted on
    main(["loaded", str(root)])
    out = capsys.readouterr().out
    # Claude Code takes the ESC out before loading; the markup is printed as text, not styled
    assert "clear: [2J and [bold]markup[/bold]" in out
    main(["loaded", str(root), "--loader", "raw"])
    assert "clear: \\e[2J and [bold]markup[/bold]" in capsys.readouterr().out
    main(["loaded", "--raw", str(root)])
    assert "clear: \x1b[2J" in capsys.readouterr().out  # --raw alone prints the bytes as they are


def test_a_verb_refusal_escapes_the_names_it_quotes(make_root: MakeRoot,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    root = make_root({"MEMORY.md": INDEX, "a.md": A, HOSTILE_NAME: topic("Evil", "evil")})
    os.chmod(root / HOSTILE_NAME, 0o444)
    main(["pin", str(root / HOSTILE_NAME)])
    err = capsys.readouterr().err
    assert "read-only file" in err and "\x1b" not in err


# ---------------------------------------------------------------- 8. validator gaps


def test_every_link_leaving_the_root_is_link_escapes_root(make_root: MakeRoot) -> None:
    root = make_root({"MEMORY.md": INDEX.replace("the alpha fact", "alpha, see [x](../../etc/passwd)")
                      + "See [pw](../../etc/passwd) and [[../../../etc/shadow]] here.\n"
                      + "Fine: [a](a.md), [web](https://example.com), [top](#recent).\n", "a.md": A})
    hits = [(f.line, f.subject) for f in validate(load_root(root)) if f.rule == "link-escapes-root"]
    assert hits == [(4, "../../etc/passwd"), (5, "../../../etc/shadow.md"), (5, "../../etc/passwd")]


def test_unreadable_targets_say_what_they_are(make_root: MakeRoot, tmp_path: Path) -> None:
    (tmp_path / "secret.md").write_text("outside\n")
    root = make_root({"MEMORY.md": INDEX + "- [Out](out.md) — o\n- [Pipe](pipe.md) — p\n"
                      "- [Big](big.md) — b\n", "a.md": A})
    (root / "out.md").symlink_to(tmp_path / "secret.md")
    os.mkfifo(root / "pipe.md")
    with open(root / "big.md", "wb") as handle:  # sparse: 65 MiB on paper, nothing on disk
        handle.truncate(65 * 1024 * 1024)
    findings = {f.subject: f for f in validate(load_root(root)) if f.severity == "error"}
    assert findings["out.md"].rule == "link-escapes-root"
    assert "FIFO" in findings["pipe.md"].message and "skipped" in findings["pipe.md"].message
    assert "64 MiB" in findings["big.md"].message and "skipped" in findings["big.md"].message
    assert not any("does not exist" in f.message for f in findings.values())


@pytest.mark.parametrize("name", ["new\nline.md", "back\\slash.md", "tab\there.md", "esc\x1bx.md"])
def test_rebuild_lists_awkward_file_names_on_one_line(make_root: MakeRoot, name: str) -> None:
    root = make_root({"MEMORY.md": INDEX, "a.md": A, name: topic("Odd", "an odd name")})
    snapshot = load_root(root)
    assert [f.rule for f in validate(snapshot) if f.severity == "error"] == ["orphan"]
    write.run(snapshot, verbs.rebuild(snapshot))  # accepted: the gate sees the name reached
    after = load_root(root)
    assert [f for f in validate(after) if f.severity == "error"] == []
    for index in (after.index, after.archive_index):
        assert all("\n" not in line.raw and "\r" not in line.raw for line in index.lines)


SECRETS = {
    "aws_secret": "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYz1y2x3w4v5",
    "password": "db password: Tr0ub4dor&3",
    "password=": "password=hunter22",
    "jwt": "token eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0."
           "dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U",
    "stripe": "billing key sk_live_" + "4eC39HqLyjWDarjtT1zdp7dc",
    "url_password": "postgres://app:Pg5ecret@db.internal/prod",
}

PLACEHOLDERS = [
    "we use the sk-assessment-framework", "password: <your password>", "SA_PASSWORD=YourPassword123!",
    'SA_PASSWORD: "Your_Password123!"', "password=${DB_PASSWORD}", "password: stored in the vault",
    "password = os.environ['PW']", "aws_secret_access_key = wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY",
    "postgres://user:<password>@host/db", "password: changeme", "Password: ********",
    "passwordless login; bypass=abc123!x", "https://user:token@github.com", "postgres://localhost/db",
]


@pytest.mark.parametrize("kind", list(SECRETS))
def test_secret_kinds_are_found_and_never_echoed(make_root: MakeRoot, kind: str) -> None:
    text = SECRETS[kind]
    body = topic("Alpha", "a", body=f"note\n{text}\n")
    root = make_root({"MEMORY.md": INDEX, "a.md": body})
    [finding] = [f for f in validate(load_root(root)) if f.rule == "secret"]
    assert finding.subject == f"{kind.rstrip('=')}:{body.count(chr(10))}"
    value = text.split()[-1].split("=")[-1].split("@")[0].split(":")[-1]
    assert value not in finding.message and value not in finding.subject


@pytest.mark.parametrize("text", PLACEHOLDERS)
def test_placeholder_values_are_not_secrets(text: str) -> None:
    assert secret_findings("a.md", f"intro\n{text}\n") == []


def test_the_issue_s_own_examples_are_found() -> None:
    for text in ("postgres://user:pass@host/db", "aws_secret_access_key = " + "A" * 40,
                 "password=hunter22", "db password: s3cret!"):
        assert secret_findings("a.md", text), text


def test_a_cached_validation_still_sees_a_change_interrupted_since(make_root: MakeRoot) -> None:
    from memtui.core.stores.statcache import validate_root

    root = make_root(dict(VALID_ROOT))
    later = lambda: time.time_ns() + 10 * 10**9  # noqa: E731 - the files are old enough to trust
    assert validate_root(root, clock=later).snapshot is not None
    assert validate_root(root, clock=later).snapshot is None  # the answer came from the cache
    journal = root / ".memtui" / "journal"
    journal.mkdir(parents=True)
    (journal / "00000001-do.pending.json").write_text("{}")
    again = validate_root(root, clock=later)
    assert [f.rule for f in again.findings if f.severity == "error"] == ["interrupted-change"]
    (journal / "00000001-do.pending.json").rename(journal / "00000001-do.rolled-back.json")
    assert [f for f in validate_root(root, clock=later).findings if f.severity == "error"] == []
