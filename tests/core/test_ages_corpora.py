"""On a fresh ``cp -r`` copy of every corpus folder — every modification time the copy's, as a
clone, a backup or a synced folder reaches its user — no file is "modified 0 days ago" from its
mtime, ``memtui stale`` says which ages are unknown and why, and the files the readers dated
(``data/labels/*.files.tsv``, ``date=``) are dated to that day.

The copy is made into the test's temporary folder at test time (nothing of the corpora is kept
in the project); the test is skipped when the corpora are absent.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from memtui.cli.main import main
from tests.support.roots import CORPORA

LABELS = Path(__file__).parent / "data" / "labels"
NOW = "2026-12-02"


@pytest.fixture(scope="module")
def copies(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if not CORPORA.is_dir():
        pytest.skip(f"corpora not available at {CORPORA}")
    top = tmp_path_factory.mktemp("copies")
    for folder in sorted(p for p in CORPORA.iterdir() if p.is_dir()):  # cp -r: times not kept
        shutil.copytree(folder, top / folder.name, copy_function=shutil.copyfile, symlinks=True)
    return top


@pytest.fixture(scope="module")
def reports(copies: Path) -> list[dict[str, object]]:
    import contextlib
    import io

    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        assert main(["stale", str(copies), "--now", NOW, "--json"]) == 0
    found = json.loads(out.getvalue())
    assert isinstance(found, list) and len(found) > 40  # every root of every folder
    return found


def test_no_copied_file_reads_modified_0_days_ago(reports: list[dict[str, object]]) -> None:
    for report in reports:
        for entry in report["files"]:  # type: ignore[attr-defined]
            assert entry["age_source"] != "mtime", (report["root"], entry["path"])
            if entry["age_source"] == "unknown":
                assert entry["age_days"] is None and entry["action"] != "keep"
                assert entry["age_unknown"].endswith(("no date in the file", "has no transcript here"))
                assert " were written within " in entry["age_unknown"]


def test_stale_says_which_ages_are_unknown_and_why(copies: Path, capsys: pytest.CaptureFixture[str],
                                                   monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # the table's legend (piped, the plain rows have none)
    root = copies / "emrecanmuslu__adena-baby-mobile__claude-memory"
    assert main(["stale", str(root), "--now", NOW]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "ages unknown (scored as one half-life of their type" in out
    assert "files were written within a second on " in out and "state no date of their own" in out
    assert "name a Claude Code session with no transcript here" in out


def _dated_labels() -> dict[str, str]:
    out = {}
    for path in sorted(LABELS.glob("*.files.tsv")):
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip() and not line.startswith("#"):
                root, rel, _, reason = line.split("\t")[:4]
                at = reason.find("date=")
                day = reason[at + 5:at + 15] if at >= 0 else ""
                if len(day) == 10 and day[4] == day[7] == "-":
                    out[f"{root}/{rel}"] = day
    return out


def test_the_files_the_readers_dated_are_dated_to_that_day(copies: Path,
                                                           reports: list[dict[str, object]]) -> None:
    """At least nine in ten of the scored files a reader gave a ``date=`` (102 today; 97 are
    dated to that day, the rest to a later dated update in the same note, or unknown)."""
    dated = {}
    for report in reports:
        base = Path(str(report["root"])).relative_to(copies).as_posix()
        for entry in report["files"]:  # type: ignore[attr-defined]
            dated[f"{base}/{entry['path']}"] = entry["dated"]
    labels = {key: day for key, day in _dated_labels().items() if key in dated}
    assert len(labels) >= 100
    right = sum(dated[key] == day for key, day in labels.items())
    assert right >= 0.9 * len(labels), sorted((k, d, dated[k]) for k, d in labels.items() if dated[k] != d)
