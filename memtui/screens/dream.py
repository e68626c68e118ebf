"""The Dream screen: one maintenance pass as a checklist, gated as a whole, applied as one change.

The plan (:func:`memtui.core.dream.plan.plan_dream`) is built in a worker.  Each item is a checkbox
(``space`` toggles; all on except those that wait for a person; ``l`` splits the strong
successors' item into one item per fold); the right side shows the
highlighted item's diff, built on the items checked before it, and the validator's verdict on
the whole checked set, recomputed in a worker whenever a box changes.  ``a`` applies the checked
set as ONE changeset: the screen posts the very preview the validator judged
(:class:`DreamScreen.Chosen`) and the app commits it (one journal record, one ``u``).
"""

from __future__ import annotations

import re
from datetime import datetime, timezone
from pathlib import Path

from rich.segment import Segment
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.screen import Screen
from textual.strip import Strip
from textual.widgets import Footer, SelectionList, Static
from textual.widgets.option_list import OptionDoesNotExist
from textual.widgets.selection_list import Selection
from textual.worker import Worker, WorkerState

from memtui.commands import BY_NAME
from memtui.core.dream import plan as dream
from memtui.core.dream.plan import DreamItem, DreamPlan
from memtui.core.model.changeset import VerbError
from memtui.core.model.snapshot import Finding
from memtui.core.stores.rejections import read_rejected
from memtui.core.write import Preview
from memtui.services.workspace import Workspace
from memtui.services.writer import Plan, Request
from memtui.widgets.diff_view import DiffView
from memtui.widgets.moves import MOVES, move_bindings
from memtui.worker_errors import report_worker_error


class Checklist(SelectionList[int]):
    """A selection list whose box also says by its glyph whether an item is checked (X or
    blank), not by its colour alone."""

    def render_line(self, y: int) -> Strip:
        strip = super().render_line(y)
        try:
            selection = self.get_option_at_index(round(self.scroll_offset.y) + y)
        except OptionDoesNotExist:
            return strip
        segments = list(strip)  # the box: its left side, its inner glyph, its right side, …
        if selection.value not in self.selected and len(segments) > 1:
            segments[1] = Segment(" " * len(segments[1].text), segments[1].style)
            return Strip(segments, strip.cell_length)
        return strip


_DATED_NAME = re.compile(r"^(?:[a-z]+[_-])?\d{4}-\d{2}-\d{2}[_-]", re.IGNORECASE)


def note_tail(path: str) -> str:
    """What tells one dated note from its neighbours in a narrow list: the file name less its
    folder, ``.md`` and a leading ``<type>_<date>_`` (``session_2026-06-10_justify-watch.md`` →
    ``justify-watch``); other names whole."""
    name = path.rsplit("/", 1)[-1]
    stem = name[:-3] if name.endswith(".md") else name
    tail = _DATED_NAME.sub("", stem)
    return tail if tail and tail != stem else path


def item_prompt(item: DreamItem) -> Text:
    """A checklist line: kind, files, and why it waits (if it does).  A successor's notes are
    named by what tells them apart (:func:`note_tail`), one note's as ``earlier → later``: the
    list is narrow, and every such line of a log would otherwise start with the same dated
    prefix."""
    text = Text()
    text.append(item.kind, style="bold")
    text.append(" " * max(1, 9 - len(item.kind)))  # a long kind still stands apart from its files
    if item.kind == "successor" and len(item.paths) == 2:
        shown = " → ".join(note_tail(p) for p in item.paths)
    else:
        name = note_tail if item.kind == "successor" else str
        shown = ", ".join(map(name, item.paths[:3])) + (f" +{len(item.paths) - 3}" if len(item.paths) > 3 else "")
    text.append(shown)
    if item.note:
        text.append(f"  — {item.note}", style="italic")
    return text


def verdict_text(preview: Preview | None, count: int, error: str = "", read_only: bool = False) -> Text:
    """The gate's word on the checked set, in one or a few lines (``read_only``: nothing can be
    applied here, and it says so in place of how to apply)."""
    text = Text()
    if error:
        text.append("✖ ", style="bold")
        text.append(error)
    elif preview is None:
        text.append(f"{count} item{'s' if count != 1 else ''} checked: nothing to apply")
    elif preview.accepted:
        text.append("✔ ", style="bold")
        how = ("read-only (--read-only): shown, not applied" if read_only
               else "a applies · u undoes it afterwards")
        text.append(f"the validator accepts the {count} checked item{'s' if count != 1 else ''} "
                    f"as one change · {how}")
    else:
        text.append("✖ refused: ", style="bold")
        text.append(preview.refusal_message().removeprefix("refused by the validator — "))
    return text


#: the keys every checklist review shares: the registry's help key (its id lets a keymap move it)
#: and the moving keys of every list (:mod:`memtui.widgets.moves`)
REVIEW_KEYS = (
    Binding(BY_NAME["show_help"].keys, "app.command('show_help')", "Help", show=False, id="show_help"),
    *move_bindings({move: f"cursor('{move}')" for move in MOVES}),
)


class DreamScreen(Screen[None]):
    """Plan, review and apply one dream pass over the open root."""

    BINDINGS = [
        Binding("a", "apply", "Apply checked", show=True),
        Binding("l,right", "split", "Split", show=True),
        Binding("escape,q", "close", "Close", show=True),
        *REVIEW_KEYS,
    ]

    DEFAULT_CSS = """
    DreamScreen #dream-body { height: 1fr; }
    DreamScreen #dream-items { width: 2fr; height: 1fr; }
    DreamScreen #dream-side { width: 3fr; height: 1fr; border-left: solid $foreground 30%; }
    DreamScreen #dream-reason { height: auto; max-height: 8; padding: 0 1; }
    DreamScreen #dream-diff { height: 1fr; padding: 0 1; }
    DreamScreen #dream-verdict { height: auto; padding: 0 1; background: $boost; }
    """

    class Chosen(Message):
        """The checked items, planned and gated as reviewed: the app applies this plan."""

        def __init__(self, plan: Plan) -> None:
            super().__init__()
            self.plan = plan

    class Planned(Message):
        def __init__(self, plan: DreamPlan, errors_left: tuple[Finding, ...] = ()) -> None:
            super().__init__()
            self.plan = plan
            self.errors_left = errors_left  # a plan of no item: the errors no pass fixes

    class Judged(Message):
        def __init__(self, plan: DreamPlan, selected: frozenset[int], preview: Preview | None,
                     error: str = "") -> None:
            super().__init__()
            self.plan = plan  # the plan the positions are of (a split renumbers them)
            self.selected = selected
            self.preview = preview
            self.error = error

    class Diffed(Message):
        def __init__(self, plan: DreamPlan, position: int, diff: str) -> None:
            super().__init__()
            self.plan = plan
            self.position = position
            self.diff = diff

    def __init__(self, workspace: Workspace) -> None:
        super().__init__()
        self.workspace = workspace
        self.plan: DreamPlan | None = None
        self.preview: Preview | None = None
        self.judged: frozenset[int] | None = None

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Dream — one maintenance pass: planning…", id="dream-title", classes="list-header")
            with Horizontal(id="dream-body"):
                yield Checklist(id="dream-items")
                with Vertical(id="dream-side"):
                    yield Static(id="dream-reason")
                    yield DiffView("", id="dream-diff")
            yield Static(id="dream-verdict")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#dream-items").loading = True
        self._plan_worker(self.workspace)

    # ------------------------------------------------------------------ workers

    @work(thread=True, exclusive=True, group="dream-plan", description="planning the dream", exit_on_error=False)
    def _plan_worker(self, workspace: Workspace) -> None:
        now: datetime = getattr(self.app, "now", None) or datetime.now(timezone.utc)
        plan = dream.plan_dream(workspace.snapshot, now, rejected=read_rejected(Path(workspace.root)),
                                cache=workspace.cache)
        self.post_message(self.Planned(plan, errors_left=plan.errors_left))  # (validates here, off the UI)

    @work(thread=True, exclusive=True, group="dream-verdict", description="checking the dream",
          exit_on_error=False)
    def _judge_worker(self, plan: DreamPlan, selected: frozenset[int]) -> None:
        if not selected:
            self.post_message(self.Judged(plan, selected, None))
            return
        try:
            preview = dream.preview(plan, selected)
        except VerbError as exc:
            message = str(exc)
            self.post_message(self.Judged(plan, selected, None,
                                          "" if message.startswith("nothing to do") else message))
            return
        self.post_message(self.Judged(plan, selected, preview))

    @work(thread=True, exclusive=True, group="dream-diff", description="the item's diff", exit_on_error=False)
    def _diff_worker(self, plan: DreamPlan, position: int, selected: frozenset[int]) -> None:
        self.post_message(self.Diffed(plan, position, dream.item_diff(plan, position, selected)))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The app's one worker error policy, for this screen's workers: a notice and the
        traceback in the log, and the screen says which part could not be made."""
        if event.state is not WorkerState.ERROR:
            return
        report_worker_error(self, event.worker)
        group = event.worker.group
        if group == "dream-plan":
            self.items_list.loading = False
            self.query_one("#dream-title", Static).update("Dream — could not plan (see the notice) · esc closes")
        elif group == "dream-verdict":
            self.query_one("#dream-verdict", Static).update(
                Text("✖ the validator could not check these items (see the notice)"))

    # ------------------------------------------------------------------ results

    @property
    def items_list(self) -> SelectionList[int]:
        return self.query_one("#dream-items", SelectionList)

    @property
    def selected(self) -> frozenset[int]:
        return frozenset(self.items_list.selected)

    def on_dream_screen_planned(self, message: Planned) -> None:
        items = self.items_list
        items.loading = False
        title = self.query_one("#dream-title", Static)
        plan = self.plan = message.plan
        if not plan.items:
            self.query_one("#dream-body").display = False  # no item, no diff: nothing to show
            left = message.errors_left
            if not left:
                title.update("Dream — nothing to do: the folder needs no maintenance · esc closes")
            else:
                title.update(f"Dream — nothing a pass can do: {len(left)} error{'s' * (len(left) != 1)} "
                             f"need{'s' * (len(left) == 1)} a person · esc closes")
                shown = [Text(f"{f.rule} {f.path}{f':{f.line}' if f.line else ''} — {f.message}")
                         for f in left[:dream.ERRORS_SHOWN]]
                more = len(left) - dream.ERRORS_SHOWN
                shown.append(Text((f"… and {more} more; " if more > 0 else "")
                                  + "no pass fixes these: the Problems view lists them"))
                self.query_one("#dream-verdict", Static).update(Text("\n").join(shown))
            self.refresh_bindings()  # nor to apply
            return
        items.add_options([Selection(item_prompt(item), i, item.checked) for i, item in enumerate(plan.items)])
        self._update_title()
        items.highlighted = 0
        items.focus()
        self._judge_worker(plan, self.selected)
        self._show_item(0)

    def _update_title(self) -> None:
        """The header's counts, from the boxes checked now."""
        plan = self.plan
        if plan is None or not plan.items:
            return
        selected = self.selected
        waiting = sum(1 for i, item in enumerate(plan.items) if not item.checked and i not in selected)
        items = len(plan.items)
        self.query_one("#dream-title", Static).update(
            f"Dream — {items} item{'s' if items != 1 else ''}, {len(selected)} checked"
            + (f", {waiting} waiting for you" if waiting else "")
            + (" · space toggles · read-only: the plan is shown, nothing applied · esc closes"
               if self._read_only else " · space toggles · a applies the checked items as one change · esc closes"))

    def on_dream_screen_judged(self, message: Judged) -> None:
        if message.plan is not self.plan or message.selected != self.selected:
            return  # a newer toggle (or a split) is being judged
        self.preview, self.judged = message.preview, message.selected
        self.query_one("#dream-verdict", Static).update(
            verdict_text(message.preview, len(message.selected), message.error, self._read_only))

    def on_dream_screen_diffed(self, message: Diffed) -> None:
        if message.plan is self.plan and message.position == self.items_list.highlighted:
            self.query_one("#dream-diff", DiffView).set_items(message.diff.splitlines())

    def _show_item(self, position: int | None) -> None:
        plan = self.plan
        if plan is None or position is None:
            return
        item = plan.items[position]
        reason = Text(item.reason)
        if item.parts:
            reason.append(f"\nl splits it into {len(item.parts)} items, one per fold", style="italic")
        if item.note:
            reason.append(f"\n{item.note}", style="italic")
        for line in item.evidence:
            reason.append(f"\n· {line}", style="dim")
        self.query_one("#dream-reason", Static).update(reason)
        self.query_one("#dream-diff", DiffView).set_items(["building the diff…"])
        self._diff_worker(plan, position, self.selected)

    @on(SelectionList.SelectionHighlighted, "#dream-items")
    def _on_highlighted(self, event: SelectionList.SelectionHighlighted[int]) -> None:
        self._show_item(event.selection_index)
        self.refresh_bindings()  # Split applies to some items only

    @on(SelectionList.SelectedChanged, "#dream-items")
    def _on_toggled(self) -> None:
        if self.plan is None:
            return
        self._update_title()
        self.query_one("#dream-verdict", Static).update("asking the validator…")
        self._judge_worker(self.plan, self.selected)
        self._show_item(self.items_list.highlighted)

    # ------------------------------------------------------------------ actions

    def action_apply(self) -> None:
        if self._read_only:  # the plan can be looked at, not applied
            self.notify("read-only: changes are disabled (--read-only); the plan is shown only",
                        severity="warning", timeout=4)
            return
        plan, selected = self.plan, self.selected
        if plan is None or not selected:
            self.notify("nothing checked to apply", severity="warning", timeout=3)
            return
        if self.judged != selected or self.preview is None:
            self.notify("the validator is still judging the checked items", timeout=2)
            return
        if not self.preview.accepted:
            self.notify("the validator refuses the checked items; uncheck what it names",
                        severity="error", timeout=4)
            return
        self.app.post_message(self.Chosen(Plan(Request(), self.preview)))
        self.dismiss(None)

    def on_key(self, event: events.Key) -> None:
        """Read-only, Apply is off the footer (:meth:`check_action`), and its key says why."""
        if self._read_only and event.key == "a":
            event.stop()
            self.action_apply()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "split":
            return self._splittable() is not None
        if action == "apply":
            if self._read_only:
                return False  # off the footer; the key still says why (action_apply)
            return self.plan is None or bool(self.plan.items)  # a plan of no items has nothing to apply
        return True

    @property
    def _read_only(self) -> bool:
        return bool(getattr(self.app, "read_only", False))

    def _splittable(self) -> int | None:
        """The highlighted item's position when it splits into parts (:func:`dream.split`)."""
        plan, position = self.plan, self.items_list.highlighted if self.is_mounted else None
        if plan is None or position is None or position >= len(plan.items) or not plan.items[position].parts:
            return None
        return position

    def action_split(self) -> None:
        """One item a fold: the strong successors' item becomes its parts, each checked as the
        item was, so that a wrong fold can be left out; the rest keep their boxes."""
        position = self._splittable()
        plan = self.plan
        if position is None or plan is None:
            return
        was_checked = position in self.selected
        parts = len(plan.items[position].parts)
        kept = {i if i < position else i + parts - 1 for i in self.selected if i != position}
        if was_checked:
            kept |= set(range(position, position + parts))
        plan = self.plan = dream.split(plan, position)
        self.judged = self.preview = None  # judged on the positions before the split
        items = self.items_list
        with items.prevent(SelectionList.SelectedChanged, SelectionList.SelectionHighlighted):
            items.clear_options()
            items.add_options([Selection(item_prompt(item), i, i in kept) for i, item in enumerate(plan.items)])
            items.highlighted = position
        self._update_title()
        self.query_one("#dream-verdict", Static).update("asking the validator…")
        self._judge_worker(plan, self.selected)
        self._show_item(position)
        self.refresh_bindings()

    def action_cursor(self, where: str) -> None:
        """The moving keys move the checklist's cursor (a list's keys, :mod:`memtui.widgets.moves`)."""
        items = self.items_list
        if items.option_count:
            {"down": items.action_cursor_down, "up": items.action_cursor_up,
             "page_down": items.action_page_down, "page_up": items.action_page_up,
             "first": items.action_first, "last": items.action_last}[where]()

    def action_close(self) -> None:
        self.dismiss(None)
