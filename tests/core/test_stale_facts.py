"""Staleness facts: a file scored from what does not move with the clock equals a full scoring,
at any moment, in numbers and in the JSON text ``memtui stale --json`` writes."""

from __future__ import annotations

import json
from datetime import date, datetime, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from memtui.cli.jsontext import Raw, dumps_indented
from memtui.cli.stale import _file_text
from memtui.core.judge.staleness import (
    StalenessReport,
    facts_of,
    row_json,
    rows_at,
    score_file,
)
from memtui.core.model.frontmatter import parse_frontmatter
from memtui.core.model.snapshot import MemoryFile
from memtui.core.read.project import Project, ProjectCache, ReferenceChecker

TYPES = ("project", "feedback", "reference", "user", "value", "nonsense", "")
DATES = ("2026-06-01", "2026-11-28T23:59:59.999999+02:00", "2026-11-20 08:00", "2027-01-01",
         "'2025-02-03'", "2026-13-01", "garbage", "2026-11-29T12:00:00")
BODIES = (
    "Plain prose.\n", "Never push on Fridays.\n", "Don’t touch `src/app.py` or `src/gone.py`.\n",
    "See https://example.com/x and https://docs.python.org/3/ and `loadThing()`.\n",
    "Branch `feature/x-y` and `main`; call `missingThing()` in lib/util.py.\n",
    "Ünïcødé \"quotes\" \\ back\tslash \x01 and a line\u2028separator.\n",
)
moments = st.one_of(
    st.dates(min_value=date(2025, 1, 1), max_value=date(2028, 1, 1)),
    st.datetimes(min_value=datetime(2025, 1, 1), max_value=datetime(2028, 1, 1),
                 timezones=st.sampled_from([None, timezone.utc, timezone(timedelta(hours=-7))])),
)
files = st.lists(
    st.tuples(st.sampled_from(TYPES), st.one_of(st.none(), st.sampled_from(DATES)),
              st.booleans(), st.sampled_from(BODIES),
              st.sampled_from(["a.md", "2026-11-01-notes.md", "é \"odd\" \\ name.md", "x/y.md",
                               "archive/z.md"]),
              st.floats(min_value=1.6e9, max_value=1.9e9)),
    min_size=1, max_size=6,
)


def memory_file(path: str, type_: str, when: str | None, pinned: bool, body: str,
                mtime: float) -> MemoryFile:
    head = ["---", "name: n", f"type: {type_}"] + ([f"updated: {when}"] if when else [])
    head += ["pinned: true"] if pinned else []
    text = "\n".join(head) + "\n---\n\n" + body
    return MemoryFile(path=path, size=len(text), mtime=mtime, text=text,
                      frontmatter=parse_frontmatter(text))


@pytest.fixture(scope="module")
def project(tmp_path_factory: pytest.TempPathFactory) -> Project:
    top = tmp_path_factory.mktemp("project")
    (top / "src").mkdir()
    (top / "src" / "app.py").write_text("def loadThing(): pass\n")
    (top / "lib").mkdir()
    return Project(top, "repo")


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(files, moments, moments, st.booleans())
def test_facts_scored_later_equal_a_full_scoring(project: Project, specs, first, later,
                                                  with_project) -> None:  # type: ignore[no-untyped-def]
    index = ProjectCache().get(project) if with_project else None
    checker = ReferenceChecker(index)
    dated = {path: datetime(2026, 3, 4, 5, 6, 7, 890123, tzinfo=timezone.utc)
             for _, _, _, _, path, _ in specs[:1]}  # one file may take its age from git
    made = {spec[4]: memory_file(spec[4], *spec[:4], spec[5]) for spec in specs}
    facts = [facts_of(score_file(f, first, checker, dated)) for f in made.values()]
    expected = sorted((score_file(f, later, checker, dated) for f in made.values()),
                      key=lambda r: (-r.score, r.path))
    rows = rows_at(facts, later)
    assert [row_json(row) for row in rows] == [r.to_json() for r in expected]
    exact = [(r.score, r.path, r.age.days, r.base_score) for r in expected]
    assert [row[:4] for row in rows] == exact  # the same floats, not only when rounded
    report = StalenessReport(Path("/m"), later, project if with_project else None, tuple(expected))
    data = report.to_json()
    text = dumps_indented(data | {"files": [Raw(_file_text, row) for row in rows]})
    assert text == json.dumps(data, indent=2, ensure_ascii=False)
    nested = dumps_indented([{"x": [data | {"files": [Raw(_file_text, row) for row in rows]}]}])
    assert nested == json.dumps([{"x": [data]}], indent=2, ensure_ascii=False)
