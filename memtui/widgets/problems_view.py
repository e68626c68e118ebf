"""The Problems view: the validator's findings, errors first; Enter jumps to the file."""

from __future__ import annotations

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import Static

from memtui.core.model import Finding
from memtui.core.quickfix import QUICK_FIXES
from memtui.services.search import fuzzy_filter

from .filter_bar import FilterBar
from .header_line import HeaderLine
from .row_list import Cell, RowList, compose_row
from .view import ListView

class FindingList(RowList[Finding]):
    """One row per finding: severity, rule, where, message."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(empty_text="no problems — every rule passes", id=id)

    def item_key(self, item: Finding) -> object:
        return (item.rule, item.path, item.line, item.subject)

    def item_path(self, item: Finding) -> str | None:
        return None  # findings are not marked; the files they name are, in the file views

    def render_item(self, item: Finding, width: int) -> Text:
        error = item.severity == "error"
        mark = Text("✖" if error else "⚠", style=self.style_of("error" if error else "warn"))
        where = item.path + (f":{item.line}" if item.line else "")
        return compose_row(
            [
                Cell(mark, 1),
                Cell(Text(item.rule, style=self.style_of("error" if error else "warn")), 19),
                Cell(where, None, weight=1, min_width=12),
                Cell(Text(item.message, style=self.style_of("muted")), None, weight=3, min_width=10),
            ],
            width,
        )


class ProblemsView(ListView[Finding]):
    """Findings with the selected one's full message and its quick fix, if there is one."""

    FILTER_ID = "problems-filter"
    LIST_ID = "problems-list"

    class Jump(Message):
        """Enter on a finding: show the file (or the index line) it is about."""

        def __init__(self, finding: Finding) -> None:
            super().__init__()
            self.finding = finding

    def compose(self) -> ComposeResult:
        yield FilterBar("filter findings by rule, file or message…", id="problems-filter")
        yield HeaderLine(id="problems-header", classes="list-header")
        yield FindingList(id="problems-list")
        yield Static(id="problems-detail")

    def selected_finding(self) -> Finding | None:
        return self.highlighted

    def selected_path(self) -> str | None:
        finding = self.selected_finding()
        if finding is None or self.workspace is None:
            return None
        if finding.path in self.workspace.snapshot.files:
            return finding.path
        if finding.subject in self.workspace.snapshot.files:
            return finding.subject
        return None

    def refill(self) -> None:
        workspace = self.workspace
        if workspace is None:
            return
        findings = fuzzy_filter(self.filter_text, workspace.findings,
                                lambda f: f"{f.rule} {f.path} {f.message}")
        finding_list = self.row_list
        keep = finding_list.item_key(finding_list.highlighted) if finding_list.highlighted else None
        finding_list.set_items(findings, keep=keep)
        if not workspace.complete:
            header = "scanning the folder…"
        else:
            header = (f"{workspace.errors} error{'s' if workspace.errors != 1 else ''} · "
                      f"{workspace.warnings} warning{'s' if workspace.warnings != 1 else ''}"
                      + (f" · showing {len(findings)}" if len(findings) != len(workspace.findings) else "")
                      + " · enter jumps to the file · f applies the quick fix")
        self.query_one("#problems-header", HeaderLine).update(header)
        self._update_detail()

    def cursor_moved(self) -> None:
        self._update_detail()

    def _update_detail(self) -> None:
        finding = self.selected_finding()
        detail = self.query_one("#problems-detail", Static)
        if finding is None:
            detail.update("")
            return
        where = finding.path + (f", line {finding.line}" if finding.line else "")
        text = Text()
        text.append(f"{finding.rule}", style="bold")
        text.append(f" ({finding.severity}) in {where}\n")
        text.append(finding.message)
        fix = QUICK_FIXES.get(finding.rule)
        if fix is not None:
            text.append(f"\nquick fix (f): {fix.text}", style="italic")
        detail.update(text)

    @on(RowList.Selected, "#problems-list")
    def _on_selected(self, event: RowList.Selected) -> None:
        self.post_message(self.Jump(event.item))
