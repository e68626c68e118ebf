"""The staleness badge drawn in list rows: the score, coloured by its bucket."""

from __future__ import annotations

from typing import Callable, Protocol

from rich.style import Style
from rich.text import Text

from memtui.core.judge.staleness import bucket_for
from memtui.services.workspace import Workspace


class Styled(Protocol):
    """A widget that maps a colour role to its theme's style (every row list does)."""

    def style_of(self, role: str) -> Style: ...


BUCKET_ROLE = {"fresh": "ok", "aging": "muted", "review": "warn", "stale": "error"}

#: a file's staleness score, or None when it is not scored (yet)
ScoreFor = Callable[[str], "float | None"]


def no_scores(path: str) -> float | None:
    return None


#: why a file does not apply under the scope filter, or None when it does (or no filter is set)
ScopeReason = Callable[["str | None"], "str | None"]


def no_reason(path: str | None) -> str | None:
    return None


def scores_of(workspace: Workspace) -> ScoreFor:
    """A lookup of scores in a workspace's staleness report (none until it is scored)."""
    report = workspace.staleness
    if report is None:
        return no_scores

    def score_for(path: str) -> float | None:
        result = report.get(path)
        return result.score if result is not None else None

    return score_for


def badge(row_list: Styled, score: float | None) -> Text:
    """The score as a number (the signal) in its bucket's colour (a second signal)."""
    if score is None:
        return Text("")
    return Text(f"{score:3.0f}", style=row_list.style_of(BUCKET_ROLE[bucket_for(score).value]))
