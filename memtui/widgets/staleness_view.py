"""The Staleness view: every file sorted by score, filterable by action, class and type."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical

from memtui.core.staleness import StalenessResult
from memtui.services.search import fuzzy_filter, split_facets

from .badges import BUCKET_ROLE
from .filter_bar import FilterBar
from .header_line import HeaderLine
from .preview import Preview
from .row_list import Cell, RowList, compose_row
from .view import ListView

FACETS = ("action", "class", "type")
CLASS_SHORT = {"EVERGREEN": "evergreen", "FRESH": "fresh", "PARTIALLY_STALE": "partly stale",
               "FULLY_STALE": "fully stale"}


def matches_facets(result: StalenessResult, facets: dict[str, str]) -> bool:
    for name, value in facets.items():
        if name == "action" and not result.action.value.startswith(value):
            return False
        if name == "type" and not result.type.startswith(value):
            return False
        if name == "class":
            text = result.cls.value.lower()
            if not (text.startswith(value) or CLASS_SHORT[result.cls.value].startswith(value)):
                return False
    return True


class StaleList(RowList[StalenessResult]):
    """One row per scored file: score, action, class, type, age, missing refs, guards, path."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(empty_text="no files match", id=id)

    def item_key(self, item: StalenessResult) -> object:
        return item.path

    def render_item(self, item: StalenessResult, width: int) -> Text:
        role = BUCKET_ROLE[item.bucket.value]
        missing = len(item.missing)
        guards = len(item.guards)
        return compose_row(
            [
                Cell(Text(f"{item.score:3.0f}", style=self.style_of(role)), 3, justify="right"),
                Cell(Text(item.action.value, style=self.style_of(role)), 6),
                Cell(Text(CLASS_SHORT[item.cls.value], style=self.style_of("muted")), 12),
                Cell(Text(item.type, style=self.style_of("muted")), 9),
                Cell(f"{item.age.days:5.0f}d", 6, justify="right"),
                Cell(Text(f"✗{missing}" if missing else "", style=self.style_of("error")), 3),
                Cell(Text(f"◇{guards}" if guards else "", style=self.style_of("muted")), 3),
                Cell(item.path, None, min_width=10),
            ],
            width,
        )


class StalenessView(ListView[StalenessResult]):
    """Sorted staleness scores with facets (``action:prune class:fully type:project``)."""

    FILTER_ID = "stale-filter"
    LIST_ID = "stale-list"
    PREVIEW_ID = "stale-preview"

    def compose(self) -> ComposeResult:
        with Horizontal():
            with Vertical(classes="list-column"):
                yield FilterBar("action:prune|review|keep class:fresh|partly|fully|evergreen "
                                "type:project … and any text", id="stale-filter")
                yield HeaderLine(id="stale-header", classes="list-header")
                yield StaleList(id="stale-list")
            yield Preview(id="stale-preview")

    @property
    def stale_list(self) -> StaleList:
        return self.query_one("#stale-list", StaleList)

    def select_path(self, path: str) -> bool:
        return self.row_list.select_key(path)

    def shown_paths(self) -> list[str]:
        return self.stale_list.shown_paths()

    def refill(self) -> None:
        workspace = self.workspace
        header = self.query_one("#stale-header", HeaderLine)
        if workspace is None:
            return
        report = workspace.staleness
        if report is None:
            self.stale_list.empty_text = ("scoring staleness…" if workspace.complete
                                          else "scanning the folder…")
            self.stale_list.set_items([])
            header.update("")
            return
        facets, text = split_facets(self.filter_text, FACETS)
        rows = [r for r in report.results if matches_facets(r, facets)]
        rows = fuzzy_filter(text, rows, lambda r: r.path) if text else rows
        self.stale_list.empty_text = "no files match the filter"
        keep = self.stale_list.highlighted.path if self.stale_list.highlighted is not None else None
        self.stale_list.set_items(rows, keep=keep)
        counts = {"prune": 0, "review": 0, "keep": 0}
        for result in report.results:
            counts[result.action.value] += 1
        project = f" · checked against {report.project.path}" if report.project else " · no project: references unverifiable"
        shown = f"showing {len(rows):,} of {len(report.results):,}" if len(rows) != len(report.results) else f"{len(rows):,} files"
        header.update(
            f"{shown} · {counts['prune']} prune · {counts['review']} review · {counts['keep']} keep"
            f" · ✗ missing references · ◇ guards{project}"
        )
        self.schedule_preview()
