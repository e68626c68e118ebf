"""The CLI as a new user meets it: --help describes the app, exit codes follow DESIGN §8,
tables stay readable at 80 columns, the demo's copy goes with the terminal."""

from __future__ import annotations

import pytest

from memtui.cli.main import main


def test_help_documents_the_app(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exit_:
        main(["--help"])
    assert exit_.value.code == 0
    out = capsys.readouterr().out
    assert out.startswith("usage: memtui [PATH]")
    for option in ("--demo", "--keep", "--read-only", "--loader", "PATH is a memory root"):
        assert option in out, option
    assert "validate" in out  # the commands are still listed


def test_a_command_help_keeps_its_own_usage(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main(["validate", "--help"])
    assert capsys.readouterr().out.startswith("usage: memtui validate [-h]")
