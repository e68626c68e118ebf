"""The Staleness view: every file sorted by score, filterable by action, class and type.

Two axes, named apart: the *action* follows the score (the age against the type's half-life,
plus what is missing), the *refs* column is the class — what became of the file's references —
so "no refs" beside "prune" reads as an old note with nothing to check.
"""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical

from memtui.core.judge.staleness import REFS_WORDS, StalenessResult
from memtui.core.judge.usage import Usage
from memtui.services.search import fuzzy_filter, parse_facets

from .badges import BUCKET_ROLE
from .column_header import ColumnHeader
from .filter_bar import FilterBar
from .header_line import HeaderLine
from .preview import Preview
from .read_column import READ_VALUES, READ_WIDTH, matches_read, read_header, read_label, shows_reads
from .row_list import Cell, RowList, Rule, compose_row
from .sorting import Sorting, SortKey
from .view import ListView

FACETS = ("action", "class", "type", "read")
CLASS_SHORT = {"EVERGREEN": "evergreen", "FRESH": "fresh", "PARTIALLY_STALE": "partly stale",
               "FULLY_STALE": "fully stale", "SUPERSEDED": "superseded", "ARCHIVED": "archived"}


def matches_facets(result: StalenessResult, facets: dict[str, str], usage: Usage | None = None) -> bool:
    for name, value in facets.items():
        if name == "read" and not matches_read(usage, result.path, value):
            return False
        if name == "action" and not result.action.value.startswith(value):
            return False
        if name == "type" and not result.type.startswith(value):
            return False
        if name == "class":
            text = result.cls.value.lower()
            words = (CLASS_SHORT[result.cls.value], REFS_WORDS[result.cls.value].replace(" ", "_"))
            if not (text.startswith(value) or any(w.startswith(value) for w in words)):
                return False
    return True


class StaleList(RowList[StalenessResult]):
    """One row per scored file: score, action, class, type, age, missing refs, guards, path."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(empty_text="no files match", id=id)
        self.usage: Usage | None = None
        self.sorting: Sorting[StalenessResult] | None = None  # the view's order, marked in the header

    def item_key(self, item: StalenessResult) -> object:
        return item.path

    def _cells(self, path: Text | str, score: Text | str, action: Text | str, cls: Text | str,
               type_: Text | str, age: Text | str, missing: Text | str,
               guards: Text | str, read: Text | str = "") -> list[Cell]:
        """The columns, name first: it is the one column never dropped at 80 columns."""
        cells = [
            Cell(path, None, min_width=24, weight=1),
            Cell(score, 6, justify="right"),  # room for the sort mark: "score▼"
            Cell(action, 6),
            Cell(cls, 10),
            Cell(type_, 9),
            Cell(age, 6, justify="right"),
            Cell(missing, 3),
            Cell(guards, 3),
        ]
        if shows_reads(self.usage):  # beside the score: a narrow list cuts from the right
            cells.insert(3, Cell(read, READ_WIDTH, justify="right"))
        return cells

    def header_cells(self) -> list[Cell]:
        title = self.sorting.title if self.sorting is not None else str
        return self._cells(*map(title, ("file", "score", "action", "refs", "type", "age", "✗", "◇", "read")))

    def render_item(self, item: StalenessResult, width: int) -> Text:
        role = BUCKET_ROLE[item.bucket.value]
        missing = len(item.missing)
        guards = len(item.guards)
        read, read_role = read_label(self.usage, item.path)
        return compose_row(
            self._cells(
                item.path,
                Text(f"{item.score:3.0f}", style=self.style_of(role)),
                Text(item.action.value, style=self.style_of(role)),
                Text(REFS_WORDS[item.cls.value], style=self.style_of("muted")),
                Text(item.type, style=self.style_of("muted")),
                f"{item.age.days:5.0f}d" if item.age.known else Text("    ?", style=self.style_of("warn")),
                Text(f"✗{missing}" if missing else "", style=self.style_of("error")),
                Text(f"◇{guards}" if guards else "", style=self.style_of("muted")),
                Text(read, style=self.style_of(read_role)),
            ),
            width,
        )


#: the values each facet knows, for naming a value that matches nothing
FACET_VALUES = {
    "action": ("prune", "review", "keep"),
    # the refs column's words (``class:no``, ``class:all_gone``), then the class names
    "class": tuple(w.replace(" ", "_") for w in REFS_WORDS.values())
    + ("evergreen", "fresh", "partly", "partially_stale", "fully", "fully_stale"),
    "type": ("value", "user", "feedback", "project", "reference", "unknown"),
    "read": READ_VALUES,
}


def facet_problems(facets: dict[str, str], unknown: tuple[str, ...]) -> list[str]:
    """What is wrong with a staleness filter's facets, in words (empty when nothing is)."""
    problems = [f"unknown facet {name}: (use action:, class:, type: or read:)" for name in unknown]
    for name, value in facets.items():
        if not any(known.startswith(value) for known in FACET_VALUES[name]):
            choices = ", ".join(v for v in FACET_VALUES[name] if not v.endswith("_stale"))
            problems.append(f"{name}:{value} matches nothing (use {choices})")
    return problems


class StalenessView(ListView[StalenessResult]):
    """Sorted staleness scores with facets (``action:prune class:fully type:project``)."""

    FILTER_ID = "stale-filter"
    LIST_ID = "stale-list"
    PREVIEW_ID = "stale-preview"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.sorting: Sorting[StalenessResult] = Sorting([
            SortKey("score"), SortKey("file", lambda r: r.path), SortKey("action", lambda r: r.action.value),
            SortKey("refs", lambda r: REFS_WORDS[r.cls.value]), SortKey("type", lambda r: r.type),
            SortKey("age", lambda r: r.age.days if r.age.known else None),
            SortKey("✗", lambda r: len(r.missing)), SortKey("◇", lambda r: len(r.guards)),
        ], own_descending=True)  # its own order: the highest score first

    def cycle_sort(self) -> None:
        """Order the files by the next column (after the last: by score again)."""
        self.sorting.cycle()
        self._sorted()

    def reverse_sort(self) -> None:
        self.sorting.reverse()
        self._sorted()

    def _sorted(self) -> None:
        self.refill()
        self.stale_list.cursor_to_top()
        self.query_one("#stale-columns", ColumnHeader).refresh()

    def compose(self) -> ComposeResult:
        with Horizontal(classes="view-columns"):
            with Vertical(classes="list-column"):
                yield FilterBar("action:prune|review|keep class:fresh|partly|fully|evergreen "
                                "type:project read:dead|recent … and any text", id="stale-filter")
                yield HeaderLine(id="stale-header", classes="list-header")
                stale_list = StaleList(id="stale-list")
                stale_list.sorting = self.sorting
                yield ColumnHeader(stale_list, id="stale-columns")
                yield stale_list
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
        parsed = parse_facets(self.filter_text, FACETS)
        if self.stale_list.usage is not workspace.usage:
            self.stale_list.usage = workspace.usage
            self.query_one("#stale-columns", ColumnHeader).refresh()
        files = workspace.snapshot.files
        # archived files are scored too, but counted and listed apart (as `memtui stale` leaves
        # them out): the live files first, then the archived under their own heading
        live = [r for r in report.results if not (f := files.get(r.path)) or not f.archived]
        archived = [r for r in report.results if (f := files.get(r.path)) and f.archived]
        shown_live, shown_archived = (
            [r for r in group if matches_facets(r, parsed.facets, workspace.usage)]
            for group in (live, archived))
        if parsed.text:
            shown_live = fuzzy_filter(parsed.text, shown_live, lambda r: r.path)
            shown_archived = fuzzy_filter(parsed.text, shown_archived, lambda r: r.path)
        shown_live, shown_archived = list(self.sorting.apply(shown_live)), list(self.sorting.apply(shown_archived))
        items: list[StalenessResult | Rule] = list(shown_live)
        if shown_archived:
            items.append(Rule(f"archived · {len(shown_archived):,} (not counted above; "
                              "r restores)", "group"))
            items.extend(shown_archived)
        problems = facet_problems(parsed.facets, parsed.unknown)
        self.stale_list.empty_text = "; ".join(problems) if problems else "no files match the filter"
        keep = self.stale_list.highlighted.path if self.stale_list.highlighted is not None else None
        self.stale_list.set_items(items, keep=None if self.typing else keep)
        if self.typing:  # after a keystroke: the best match
            self.stale_list.cursor_to_top()
        counts = {"prune": 0, "review": 0, "keep": 0}
        for result in live:
            counts[result.action.value] += 1
        project = (f" · checked against {report.project.path}" if report.project
                   else " · no project: references unverifiable")
        shown = (f"showing {len(shown_live):,} of {len(live):,}" if len(shown_live) != len(live)
                 else f"{len(live):,} files")
        apart = f" · {len(archived):,} archived apart" if archived else ""
        unknown = sum(1 for r in live if not r.age.known)
        if unknown:
            apart += f" · ? {unknown:,} age{'s' * (unknown != 1)} unknown (a copy's times)"
        if report.documents:
            n = len(report.documents)
            apart += f" · {n:,} folder document{'s' * (n != 1)} not scored"
        if problems:
            header.update(Text("⚠ " + "; ".join(problems), style="bold"))
        else:
            header.update(
                f"{shown}{self.sorting.words()} · {counts['prune']} prune · {counts['review']} review · "
                f"{counts['keep']} keep{apart} · ✗ missing references · ◇ guards"
                f"{read_header(workspace.usage)}{project}"
            )
        self.schedule_preview()

    @on(RowList.Changed, "#stale-list")
    def _on_list_changed(self) -> None:
        self.query_one("#stale-columns", ColumnHeader).refresh()
