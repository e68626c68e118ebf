"""The same note in many projects: every root on this machine scanned for a lesson re-learned in
several projects (:func:`memtui.core.verbs.relearned.scan_machine`, what ``memtui scan --all``
runs), each group reviewed, the checked ones promoted to the user layer as one change.

The scan runs in a worker that says how far it is.  Each group is a checkbox (all start unchecked;
``space`` toggles): beside it the copy kept, the layer it goes to and the copies archived, each in
its root, and the kept text side by side with one copy (``c`` shows the next).  Whenever a box
changes a worker plans the checked groups (:func:`~memtui.core.verbs.relearned.relearned_changes`,
the promote verb behind ``memtui promote --retire``) and the gate judges every root's half;
``enter`` (or ``a``) posts the very group the gate judged (:class:`RelearnedScreen.Chosen`) and
the app commits it: one change across the roots, one ``u``.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.widgets import Footer, SelectionList, Static
from textual.widgets.selection_list import Selection
from textual.worker import Worker, WorkerState, get_current_worker

from memtui.core import write
from memtui.core.model.changeset import VerbError
from memtui.core.model.snapshot import BudgetConfig, MemoryFile
from memtui.core.read.store import RootError, load_root
from memtui.core.verbs.relearned import MachineScan, Relearned, relearned_changes, scan_machine
from memtui.screens.dream import REVIEW_KEYS, Checklist
from memtui.screens.merge_review import SideBySide
from memtui.screens.search import root_labels
from memtui.services.diff import SideRow, side_by_side, similarity_summary
from memtui.terminal_text import plain
from memtui.widgets.status_line import display_path
from memtui.worker_errors import report_worker_error

if TYPE_CHECKING:
    from memtui.core.verbs.relearned import Copy

#: below this many columns the two texts stand one above the other
NARROW_BELOW = 120


def group_prompt(note: Relearned, labels: dict[Path, str]) -> Text:
    """A checklist line: the note's title, how many projects hold it, and where the kept copy is."""
    text = Text()
    text.append(plain(note.kept.title), style="bold")
    text.append(f"  ×{len(note.copies)} projects · keep {plain(labels[note.kept.root])}", style="italic")
    return text


def differences(rows: list[SideRow]) -> str:
    """How a copy's text differs from the kept one, in a few words."""
    _, changed, only_kept, only_copy = similarity_summary(rows)
    lines = changed + only_kept + only_copy
    return "identical" if not lines else f"{lines} line{'s' * (lines != 1)} differ{'s' * (lines == 1)}"


def group_detail(note: Relearned, layer: Path, layer_ready: bool, labels: dict[Path, str],
                 differ: dict[Copy, str] | None = None) -> Text:
    """The group as its change: the copy kept and where it goes, the copies archived, each in its
    root (by its label: its last two folders, unless they would not tell it apart) with how its
    text differs from the kept one."""
    text = Text()
    text.append(plain(note.kept.title), style="bold")
    text.append(f" · in {len(note.copies)} projects · similarity {note.similarity:.2f}\n", style="dim")
    text.append("keep    ", style="bold")
    text.append(plain(f"{labels[note.kept.root]}/{note.kept.path}") + "\n")
    text.append("to      ", style="bold")
    text.append(plain(str(display_path(layer))) + " (the user layer"
                + ("" if layer_ready else ", not a memory root yet") + ")\n")
    for copy in note.retired:
        text.append("retire  ", style="bold")
        text.append(plain(f"{labels[copy.root]}/{copy.path}"))
        if differ and copy in differ:
            text.append(f" ({differ[copy]})", style="italic")
        text.append("\n")
    return text


def change_summary(notes: list[Relearned], roots: int) -> str:
    """The change in one line: how many notes go to the user layer, how many copies are archived,
    in how many roots."""
    copies = sum(len(note.retired) for note in notes)
    what = f"'{notes[0].kept.title}'" if len(notes) == 1 else f"{len(notes)} notes"
    return (f"promoted {what} to the user layer, {copies} other cop{'y' if copies == 1 else 'ies'} "
            f"archived — one change in {roots} roots")


def verdict_text(group: write.GroupPreview | None, count: int, error: str = "") -> Text:
    """The gate's word on the checked groups, as one change over every root they touch."""
    text = Text()
    if error:
        text.append("✖ ", style="bold")
        text.append(plain(error))
    elif group is None:
        text.append(f"{count} group{'s' * (count != 1)} checked: nothing to apply · space checks one")
    elif group.accepted:
        roots = len(group.previews)
        text.append("✔ ", style="bold")
        text.append(f"the validator accepts the {count} checked group{'s' * (count != 1)} as one "
                    f"change in {roots} roots · enter applies · u undoes it in every one")
    else:
        text.append("✖ refused: ", style="bold")
        text.append(plain(group.refusal_message()))
    return text


class RelearnedScreen(Screen[None]):
    """Review the notes re-learned across projects and promote the checked ones as one change."""

    BINDINGS = [
        Binding("enter", "apply", "Apply checked", show=True, priority=True),
        Binding("a", "apply", "Apply checked", show=False),
        Binding("c", "next_copy", "Next copy", show=True),
        Binding("escape,q", "close", "Close", show=True),
        *REVIEW_KEYS,
    ]

    DEFAULT_CSS = """
    RelearnedScreen #relearned-body { height: 1fr; }
    RelearnedScreen #relearned-groups { width: 2fr; height: 1fr; }
    RelearnedScreen #relearned-side { width: 3fr; height: 1fr; border-left: solid $foreground 30%; }
    RelearnedScreen #relearned-detail { height: auto; max-height: 10; padding: 0 1; }
    RelearnedScreen #relearned-texts { height: 1fr; padding: 0 1; }
    RelearnedScreen #relearned-verdict { height: auto; padding: 0 1; background: $boost; }
    RelearnedScreen.-narrow #relearned-body { layout: vertical; }
    RelearnedScreen.-narrow #relearned-groups { width: 1fr; height: auto; max-height: 8; }
    RelearnedScreen.-narrow #relearned-side { width: 1fr; height: 1fr; border-left: none;
                                              border-top: solid $foreground 30%; }
    """

    class Progress(Message):
        """The scan has read ``done`` of ``total`` roots."""

        def __init__(self, done: int, total: int) -> None:
            super().__init__()
            self.done = done
            self.total = total

    class Scanned(Message):
        def __init__(self, scan: MachineScan | None, error: str = "") -> None:
            super().__init__()
            self.scan = scan
            self.error = error

    class Judged(Message):
        def __init__(self, selected: frozenset[int], group: write.GroupPreview | None,
                     error: str = "") -> None:
            super().__init__()
            self.selected = selected
            self.group = group
            self.error = error

    class Chosen(Message):
        """The checked groups, planned and gated as reviewed: the app commits this group;
        ``user_layer`` is the root every such change touches, ``select`` the note to show there."""

        def __init__(self, group: write.GroupPreview, user_layer: Path, select: str,
                     summary: str) -> None:
            super().__init__()
            self.group = group
            self.user_layer = user_layer
            self.select = select
            self.summary = summary

    def __init__(self, config: BudgetConfig = BudgetConfig()) -> None:
        super().__init__()
        self.config = config
        self.scan: MachineScan | None = None
        self.labels: dict[Path, str] = {}
        self.group: write.GroupPreview | None = None
        self.judged: frozenset[int] | None = None
        self.copy_shown = 0  # which retired copy the texts compare with the kept one

    def compose(self) -> ComposeResult:
        with Vertical():
            yield Static("Same note in many projects — scanning every root on this machine…",
                         id="relearned-title", classes="list-header")
            with Horizontal(id="relearned-body"):
                yield Checklist(id="relearned-groups")
                with Vertical(id="relearned-side"):
                    yield Static(id="relearned-detail")
                    with VerticalScroll(id="relearned-texts"):
                        yield SideBySide(id="relearned-table")
            yield Static(id="relearned-verdict")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self._narrow(self.size.width)
        self.groups.loading = True
        self._scan_worker(self.config)

    def on_resize(self, event: events.Resize) -> None:
        self._narrow(event.size.width)

    def _narrow(self, width: int) -> None:
        narrow = width < NARROW_BELOW
        self.set_class(narrow, "-narrow")
        self.query_one("#relearned-table", SideBySide).set_stacked(narrow)

    # ------------------------------------------------------------------ workers

    @work(thread=True, exclusive=True, group="relearned-scan", description="the scan of every root",
          exit_on_error=False)
    def _scan_worker(self, config: BudgetConfig) -> None:
        worker = get_current_worker()

        def progress(done: int, total: int) -> None:
            self.post_message(self.Progress(done, total))

        try:
            scan = scan_machine(config, progress=progress, cancelled=lambda: worker.is_cancelled)
        except ValueError as exc:  # memtui's config names its roots in words that are not JSON
            self.post_message(self.Scanned(None, str(exc)))
            return
        self.post_message(self.Scanned(scan))

    @work(thread=True, exclusive=True, group="relearned-verdict", description="checking the promotion",
          exit_on_error=False)
    def _judge_worker(self, scan: MachineScan, selected: frozenset[int]) -> None:
        if not selected:
            self.post_message(self.Judged(selected, None))
            return
        if not scan.layer_ready:
            self.post_message(self.Judged(selected, None, (
                f"the user layer {scan.user_layer} holds no MEMORY.md yet: make it a memory root "
                'first (a folder with a MEMORY.md), or name another in the config ("user_layer")')))
            return
        try:
            layer = load_root(scan.user_layer, self.config)
            notes = [scan.notes[i] for i in sorted(selected)]
            group = write.plan_group(relearned_changes(notes, scan.snapshots, layer))
        except (VerbError, RootError, OSError) as exc:  # a name taken in the layer, a copy gone …
            self.post_message(self.Judged(selected, None, str(exc)))
            return
        self.post_message(self.Judged(selected, group))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The app's one worker error policy, for this screen's workers: a notice, not a crash."""
        if event.state is not WorkerState.ERROR:
            return
        report_worker_error(self, event.worker)
        if event.worker.group == "relearned-scan":
            self.groups.loading = False
            self._title("could not scan the roots (see the notice) · esc closes")
        else:
            self.query_one("#relearned-verdict", Static).update(
                Text("✖ the validator could not check this promotion (see the notice)"))

    # ------------------------------------------------------------------ results

    @property
    def groups(self) -> SelectionList[int]:
        return self.query_one("#relearned-groups", SelectionList)

    @property
    def selected(self) -> frozenset[int]:
        return frozenset(self.groups.selected)

    def _title(self, text: str) -> None:
        self.query_one("#relearned-title", Static).update(
            Text("Same note in many projects — " + text))

    def on_relearned_screen_progress(self, message: Progress) -> None:
        if self.scan is None and message.done < message.total:
            self._title(f"scanning {message.total} root{'s' * (message.total != 1)} "
                        f"({message.done} read)…")
        elif self.scan is None:
            self._title(f"{message.total} root{'s' * (message.total != 1)} read: comparing "
                        "their notes…")

    def on_relearned_screen_scanned(self, message: Scanned) -> None:
        groups = self.groups
        groups.loading = False
        if message.scan is None:
            self._title(f"{message.error} · esc closes")
            return
        scan = self.scan = message.scan
        roots = f"{len(scan.snapshots)} root{'s' * (len(scan.snapshots) != 1)} read" + (
            f", {len(scan.unreadable)} unreadable" if scan.unreadable else "")
        if not scan.notes:
            self.query_one("#relearned-body").display = False
            self._title(f"none found: no lesson is re-learned in several projects ({roots}) · esc closes")
            self.refresh_bindings()
            return
        self.labels = root_labels(list(dict.fromkeys(c.root for n in scan.notes for c in n.copies)))
        groups.add_options([Selection(group_prompt(note, self.labels), i, False)
                            for i, note in enumerate(scan.notes)])
        self._update_title()
        groups.highlighted = 0
        groups.focus()
        self.query_one("#relearned-verdict", Static).update(verdict_text(None, 0))
        self._show_group(0)

    def _update_title(self) -> None:
        scan = self.scan
        if scan is None or not scan.notes:
            return
        count = len(scan.notes)
        self._title(f"{count} group{'s' * (count != 1)} in {len(scan.snapshots)} roots, "
                    f"{len(self.selected)} checked · space toggles")

    def on_relearned_screen_judged(self, message: Judged) -> None:
        if message.selected != self.selected:
            return  # a newer toggle is being judged
        self.group, self.judged = message.group, message.selected
        self.query_one("#relearned-verdict", Static).update(
            verdict_text(message.group, len(message.selected), message.error))

    def _show_group(self, position: int | None) -> None:
        scan = self.scan
        if scan is None or position is None or position >= len(scan.notes):
            return
        note = scan.notes[position]
        kept = self._file(note.kept)
        compared = {c: side_by_side(kept.text if kept else "", f.text if (f := self._file(c)) else "")
                    for c in note.retired}
        self.query_one("#relearned-detail", Static).update(group_detail(
            note, scan.user_layer, scan.layer_ready, self.labels,
            {c: differences(rows) for c, rows in compared.items()}))
        copy = note.retired[self.copy_shown % len(note.retired)]
        rows = compared[copy]
        which = (f" ({self.copy_shown % len(note.retired) + 1} of {len(note.retired)}, c: next)"
                 if len(note.retired) > 1 else "")
        self.query_one("#relearned-table", SideBySide).show(
            rows, f"kept · {self.labels[note.kept.root]}", f"retired · {self.labels[copy.root]}{which}")

    def _file(self, copy: Copy) -> MemoryFile | None:
        """A copy's file as the scan read it."""
        scan = self.scan
        real = os.path.realpath(copy.root)
        snapshot = next((s for s in scan.snapshots if os.path.realpath(s.root) == real), None) if scan else None
        return snapshot.files.get(copy.path) if snapshot is not None else None

    @on(SelectionList.SelectionHighlighted, "#relearned-groups")
    def _on_highlighted(self, event: SelectionList.SelectionHighlighted[int]) -> None:
        self.copy_shown = 0
        self._show_group(event.selection_index)

    @on(SelectionList.SelectedChanged, "#relearned-groups")
    def _on_toggled(self) -> None:
        if self.scan is None:
            return
        self._update_title()
        self.query_one("#relearned-verdict", Static).update("asking the validator…")
        self._judge_worker(self.scan, self.selected)

    # ------------------------------------------------------------------ actions

    def action_apply(self) -> None:
        scan, selected = self.scan, self.selected
        if getattr(self.app, "read_only", False):
            self.notify("read-only: changes are disabled (--read-only); the groups are shown only",
                        severity="warning", timeout=4)
            return
        if scan is None or not selected:
            self.notify("nothing checked to apply (space checks a group)", severity="warning", timeout=3)
            return
        if self.judged != selected:
            self.notify("the validator is still judging the checked groups", timeout=2)
            return
        if self.group is None or not self.group.accepted:
            self.notify("the checked groups cannot be applied: the line at the bottom says why",
                        severity="error", timeout=4)
            return
        notes = [scan.notes[i] for i in sorted(selected)]
        self.app.post_message(self.Chosen(self.group, scan.user_layer, notes[0].kept.path,
                                          change_summary(notes, len(self.group.previews))))
        self.dismiss(None)

    def action_next_copy(self) -> None:
        """Compare the kept text with the group's next retired copy."""
        self.copy_shown += 1
        self._show_group(self.groups.highlighted)

    def action_cursor(self, where: str) -> None:
        """j k g G move the checklist's cursor as the arrows and home/end do."""
        groups = self.groups
        if groups.option_count:
            {"down": groups.action_cursor_down, "up": groups.action_cursor_up,
             "first": groups.action_first, "last": groups.action_last}[where]()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("apply", "next_copy"):
            return self.scan is None or bool(self.scan.notes)
        return True

    def action_close(self) -> None:
        self.dismiss(None)
