"""The Problems view: the validator's findings, errors first; Enter jumps to the file."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Sequence

from rich.text import Text
from textual import on
from textual.app import ComposeResult
from textual.message import Message
from textual.widgets import Static

from memtui.core.model.snapshot import Finding
from memtui.core.verbs.quickfix import QUICK_FIXES
from memtui.services.search import fuzzy_filter

from .filter_bar import FilterBar
from .header_line import HeaderLine
from .row_list import Cell, RowList, Rule, compose_row
from .view import ListView, read_only


@dataclass(frozen=True)
class RuleGroup:
    """The heading row of one rule's findings: how many, and whether they are folded away."""

    rule: str
    severity: str
    count: int
    collapsed: bool
    fix: str = ""  # what the group fix does, when the rule has one


#: rules whose findings can be fixed all at once, and what that does
GROUP_FIXES = {
    "orphan": "cover the orphans: one region pointer per name family, archive-index entries for the rest",
    "broken-link": "drop every broken link line from the indexes",
}


def grouped(findings: list[Finding], collapsed: set[str]) -> list[RuleGroup | Finding]:
    """Findings under a heading per rule (errors first, else in the validator's order), folded
    groups hidden."""
    by_rule: dict[str, list[Finding]] = {}
    for finding in findings:
        by_rule.setdefault(finding.rule, []).append(finding)
    order = sorted(by_rule, key=lambda rule: by_rule[rule][0].severity != "error")  # stable
    rows: list[RuleGroup | Finding] = []
    for rule in order:
        group = by_rule[rule]
        rows.append(RuleGroup(rule, group[0].severity, len(group), rule in collapsed,
                              GROUP_FIXES.get(rule, "")))
        if rule not in collapsed:
            rows.extend(group)
    return rows


def _where(finding: Finding) -> str:
    return finding.path + (f":{finding.line}" if finding.line else "")


def distinct_labels(findings: list[Finding]) -> dict[Finding, str]:
    """How each finding's place is shown: past the start its group's names share (``…a_notes.md``
    rather than ``session_2026-05-23_a_no…`` four times), so the part that differs is seen."""
    wheres = [_where(f) for f in findings]
    if len(set(wheres)) < 2:
        return {}
    prefix = os.path.commonprefix(wheres)
    cut = max(prefix.rfind(sep) for sep in "_-/.") + 1 if prefix else 0
    if cut < 8:
        return {}
    return {f: "…" + where[cut:] for f, where in zip(findings, wheres)}


def _subject(finding: Finding) -> str:
    """What a finding is about besides its place (a link's target), when that is another path."""
    return finding.subject if finding.subject and finding.subject != finding.path else ""


class FindingList(RowList["RuleGroup | Finding"]):
    """Findings grouped by rule: a heading row per rule (enter folds it), then one row each.

    The place comes first and gets the room it needs (up to all but :data:`REST` cells), a long
    one cut in its middle; the subject and the message share the rest.
    """

    #: the cells left to the subject and the message however long the places are
    REST = 30

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(empty_text="no problems — every rule passes", id=id)
        self.labels: dict[Finding, str] = {}
        self._place_len = 0  # the longest place the rows show
        self._subject_len = 0  # the longest subject (0: no row has one)

    def set_items(self, items: Sequence[RuleGroup | Finding | Rule], keep: object | None = None) -> None:
        findings = [item for item in items if isinstance(item, Finding)]
        self._place_len = max((len(self.labels.get(f) or _where(f)) for f in findings), default=0)
        self._subject_len = max((len(_subject(f)) for f in findings), default=0)
        super().set_items(items, keep)

    def item_key(self, item: RuleGroup | Finding) -> object:
        if isinstance(item, RuleGroup):
            return ("group", item.rule)
        return (item.rule, item.path, item.line, item.subject)

    def item_path(self, item: RuleGroup | Finding) -> str | None:
        return None  # findings are not marked; the files they name are, in the file views

    def render_item(self, item: RuleGroup | Finding, width: int) -> Text:
        if isinstance(item, RuleGroup):
            error = item.severity == "error"
            role = "error" if error else "warn"
            title = Text(("▸ " if item.collapsed else "▾ ") + item.rule, style=self.style_of(role))
            title.stylize("bold")
            kind = "error" if error else "warning"
            count = f"{item.count} {kind}{'s' if item.count != 1 else ''}"
            fixes = item.fix and not read_only(self)
            hint = ("f fixes them all" if fixes else "") + (" · enter unfolds" if item.collapsed
                                                             else " · enter folds")
            return compose_row([Cell(title, 21), Cell(count, 12),
                                Cell(Text(hint.strip(" ·"), style=self.style_of("muted")), None)],
                               width)
        error = item.severity == "error"
        mark = Text("✖" if error else "⚠", style=self.style_of("error" if error else "warn"))
        where = self.labels.get(item) or _where(item)
        cells = [Cell("", 1), Cell(mark, 1)]
        room = width - 2 - (4 if self._subject_len else 3)  # less the mark and the gaps
        place = min(self._place_len, max(16, room - self.REST))
        cells.append(Cell(where, place, middle=True))
        if self._subject_len:
            subject = min(self._subject_len, max(8, (room - place) // 3))
            cells.append(Cell(Text(_subject(item), style=self.style_of("accent")), subject,
                              keep_end=True))
        cells.append(Cell(Text(item.message, style=self.style_of("muted")), None, min_width=10))
        return compose_row(cells, width)


class ProblemsView(ListView["RuleGroup | Finding"]):
    """Findings grouped by rule, with the selected one's full message and its quick fix (or its
    group's fix)."""

    FILTER_ID = "problems-filter"
    LIST_ID = "problems-list"

    class Jump(Message):
        """Enter on a finding: show the file (or the index line) it is about."""

        def __init__(self, finding: Finding) -> None:
            super().__init__()
            self.finding = finding

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.collapsed: set[str] = set()

    def compose(self) -> ComposeResult:
        yield FilterBar("filter findings by rule, file or message…", id="problems-filter")
        yield HeaderLine(id="problems-header", classes="list-header")
        yield FindingList(id="problems-list")
        yield Static(id="problems-detail")

    def selected_finding(self) -> Finding | None:
        item = self.highlighted
        return item if isinstance(item, Finding) else None

    def selected_group(self) -> RuleGroup | None:
        item = self.highlighted
        return item if isinstance(item, RuleGroup) else None

    def group_findings(self, rule: str) -> list[Finding]:
        """Every finding of a rule (the filter aside): what a group fix repairs."""
        return [f for f in self.workspace.findings if f.rule == rule] if self.workspace else []

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
        finding_list = self.query_one(f"#{self.LIST_ID}", FindingList)
        keep = finding_list.item_key(finding_list.highlighted) if finding_list.highlighted else None
        by_rule: dict[str, list[Finding]] = {}
        for finding in findings:
            by_rule.setdefault(finding.rule, []).append(finding)
        finding_list.labels = {f: label for group in by_rule.values()
                               for f, label in distinct_labels(group).items()}
        rows = grouped(findings, self.collapsed)
        finding_list.set_items(rows, keep=None if self.typing else keep)
        if self.typing or keep is None:  # the first (best) finding, not its rule's heading
            first = next((i for i, row in enumerate(rows) if isinstance(row, Finding)), 0)
            finding_list.cursor = first
        if not workspace.complete:
            header = "scanning the folder…"
        else:
            header = (f"{workspace.errors} error{'s' if workspace.errors != 1 else ''} · "
                      f"{workspace.warnings} warning{'s' if workspace.warnings != 1 else ''}"
                      + (f" · showing {len(findings)}" if len(findings) != len(workspace.findings) else "")
                      + " · enter jumps to the file (on a rule: folds it)"
                      + ("" if read_only(self) else " · f fixes"))
        self.query_one("#problems-header", HeaderLine).update(header)
        self._update_detail()

    def cursor_moved(self) -> None:
        self._update_detail()

    def _update_detail(self) -> None:
        finding = self.selected_finding()
        detail = self.query_one("#problems-detail", Static)
        group = self.selected_group()
        if group is not None:
            text = Text()
            text.append(group.rule, style="bold")
            text.append(f": {group.count} finding{'s' if group.count != 1 else ''}\n")
            if read_only(self):
                text.append(f"group fix (disabled in --read-only): {group.fix}" if group.fix else
                            "no group fix", style="italic")
            else:
                text.append(f"group fix (f): {group.fix}" if group.fix else
                            "no group fix: select a finding for its own quick fix", style="italic")
            detail.update(text)
            return
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
            key = "disabled in --read-only" if read_only(self) else "f"
            text.append(f"\nquick fix ({key}): {fix.text}", style="italic")
        detail.update(text)

    @on(RowList.Selected, "#problems-list")
    def _on_selected(self, event: RowList.Selected) -> None:
        if isinstance(event.item, RuleGroup):
            self.collapsed ^= {event.item.rule}
            self.refill()
            return
        self.post_message(self.Jump(event.item))
