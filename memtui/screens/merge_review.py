"""The merge review: two files side by side, the gist to write, its provenance and the verdict.

Keys: ``ctrl+s`` (or ``a`` outside the editor) accepts, ``n`` skips to the next candidate, ``x``
rejects the pair for good, ``e`` edits the gist, ``esc`` leaves the editor or the screen.  The
screen never writes: accepting posts the reviewed plan (:class:`MergeReviewScreen.Accepted`) to
the app, which applies it through the gate as it was reviewed.
"""

from __future__ import annotations

from functools import partial
from typing import ClassVar, Sequence

from rich.style import Style
from rich.table import Table
from rich.text import Text
from textual import events, on, work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.message import Message
from textual.screen import Screen
from textual.timer import Timer
from textual.widgets import Footer, Static, TextArea
from textual.worker import Worker, WorkerState

from memtui.commands import BY_NAME
from memtui.core.model.changeset import Create, VerbError
from memtui.core.verbs.merge import gist_draft, merge
from memtui.screens.main import NARROW_BELOW
from memtui.services import writer
from memtui.services.diff import SideRow, side_by_side, similarity_summary
from memtui.services.scoring import Cluster, Proposal, ScanResult, files_of
from memtui.services.workspace import Workspace
from memtui.widgets.theme import foreground_only
from memtui.worker_errors import report_worker_error

MARKERS = {"same": " ", "changed": "~", "left": "−", "right": "+"}


def review_queue(candidate: Proposal, scan: ScanResult | None) -> list[tuple[str, ...]]:
    """The groups to review for a candidate: a pair, a whole cluster, or a loose cluster's pairs."""
    match candidate:
        case Cluster(review_pairwise=True) if scan is not None:
            members = set(candidate.files)
            return [(p.a, p.b) for p in scan.pairs if p.a in members and p.b in members]
    return [files_of(candidate)]


def _table(sides: int, show_header: bool) -> Table:
    """A borderless table of ``sides`` (marker, text) column pairs: the marker has a column of
    its own, so a long line wraps under its text and never under the marker."""
    table = Table(expand=True, show_edge=False, box=None, padding=(0, 1), collapse_padding=True,
                  pad_edge=False, show_header=show_header, header_style="bold")
    for _ in range(sides):
        table.add_column(width=1, no_wrap=True)
        table.add_column(ratio=1, overflow="fold")
    return table


def side_table(rows: Sequence[SideRow], left_name: str, right_name: str,
               removed: Style | str = "red", added: Style | str = "green",
               same: Style | str = "dim") -> Table:
    """The two files in two columns; − only left, + only right, ~ changed (differences bold)."""
    table = _table(2, show_header=True)
    table.columns[0].header, table.columns[1].header = "−", left_name
    table.columns[2].header, table.columns[3].header = "+", right_name
    for row in rows:
        table.add_row(*_side(row, row.left, row.left_spans, "left", removed, same),
                      *_side(row, row.right, row.right_spans, "right", added, same))
    return table


def stacked_table(rows: Sequence[SideRow], left_name: str, right_name: str,
                  removed: Style | str = "red", added: Style | str = "green",
                  same: Style | str = "dim") -> Table:
    """The two files in one column for narrow terminals, as a unified diff reads: a line both
    share once, a changed line as its − left then its + right version."""
    table = _table(1, show_header=False)
    table.add_row(Text("−", style=removed), Text(left_name, style="bold underline"))
    table.add_row(Text("+", style=added), Text(right_name, style="bold underline"))
    for row in rows:
        if row.kind == "same":
            table.add_row(*_side(row, row.left, row.left_spans, "left", removed, same))
            continue
        if row.left is not None:
            _, text = _side(row, row.left, row.left_spans, "left", removed, same)
            table.add_row(Text("−", style=removed), text)
        if row.right is not None:
            _, text = _side(row, row.right, row.right_spans, "right", added, same)
            table.add_row(Text("+", style=added), text)
    return table


def _side(row: SideRow, line: str | None, spans: Sequence[tuple[int, int]], side: str,
          style: Style | str, same: Style | str) -> tuple[Text, Text]:
    """One side of a row as its marker and its line, in its side's style, differences bold."""
    if line is None:
        return Text(), Text()
    other = "right" if side == "left" else "left"
    marker = Text(MARKERS[row.kind] if row.kind != other else " ")
    text = Text(line)
    if row.kind in (side, "changed"):
        marker.stylize(style)
        text.stylize(style)
    elif row.kind == "same":
        text.stylize(same)
    for start, end in spans:
        text.stylize("bold reverse", start, end)
    return marker, text


class SideBySide(Static):
    """The two files of a pair in two columns (or, when ``stacked``, one above the other),
    coloured from the stylesheet."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "side-by-side--removed", "side-by-side--added", "side-by-side--same",
    }

    stacked = False
    _shown: tuple[Sequence[SideRow], str, str] | None = None

    def show(self, rows: Sequence[SideRow], left_name: str, right_name: str) -> None:
        def role(name: str) -> Style:
            return foreground_only(self.get_component_rich_style(f"side-by-side--{name}"))

        self._shown = (rows, left_name, right_name)
        layout = stacked_table if self.stacked else side_table
        self.update(layout(rows, left_name, right_name, role("removed"), role("added"),
                           role("same")))

    def set_stacked(self, stacked: bool) -> None:
        """Lay the two sides out one above the other (or side by side again)."""
        if stacked != self.stacked:
            self.stacked = stacked
            if self._shown is not None:
                self.show(*self._shown)


class MergeReviewScreen(Screen[None]):
    """Review one candidate at a time: accept, skip or reject.

    Each group is planned on the folder as it is now: after an accepted merge the screen waits
    for the app's fresh workspace (:meth:`workspace_changed`) before it shows the next group,
    in which a file merged meanwhile stands for the gist it was folded into.
    """

    BINDINGS = [
        Binding("ctrl+s", "accept", "Accept", show=True, priority=True),
        Binding("a", "accept", "Accept", show=False),
        Binding("n", "skip", "Skip", show=True),
        Binding("x", "reject", "Reject", show=True),
        Binding("e", "edit_gist", "Edit gist", show=True),
        Binding("escape", "back", "Back", show=True),
        # the registry's help key, here too (its id lets a keymap move it)
        Binding(BY_NAME["show_help"].keys, "app.command('show_help')", "Help", show=False, id="show_help"),
    ]

    class Accepted(Message):
        """The reviewed merge, to apply as it was reviewed."""

        def __init__(self, plan: writer.Plan) -> None:
            super().__init__()
            self.plan = plan

    class Rejected(Message):
        """A pair the user says is no duplicate: never propose it again."""

        def __init__(self, a: str, b: str) -> None:
            super().__init__()
            self.a = a
            self.b = b

    class Verdict(Message):
        def __init__(self, plan: writer.Plan | None, error: str = "", gist: str = "") -> None:
            super().__init__()
            self.plan = plan
            self.error = error
            self.gist = gist

    #: seconds the gist must rest unedited before the validator checks it again (0: at once)
    RECHECK_DELAY = 0.6

    def __init__(self, workspace: Workspace, candidate: Proposal) -> None:
        super().__init__()
        self.workspace = workspace
        self.queue = review_queue(candidate, workspace.candidates)
        self.position = 0
        self.plan: writer.Plan | None = None
        self._planned_gist: str | None = None  # the gist text self.plan was made with
        self._folded: dict[str, str] = {}  # a source merged during this review → its gist
        self._applying = False
        self._debounce: Timer | None = None
        self._loading_gist = False
        self._accept_when_checked = False

    @property
    def group(self) -> tuple[str, ...]:
        """The files of the group under review, each merged one replaced by its gist."""
        out: list[str] = []
        for path in self.queue[self.position]:
            while path in self._folded:
                path = self._folded[path]
            if path not in out:
                out.append(path)
        return tuple(out)

    def workspace_changed(self, workspace: Workspace) -> None:
        """The app read the folder again; after an accepted merge, go on to the next group."""
        self.workspace = workspace
        if self._applying:
            self._applying = False
            self._advance()

    def compose(self) -> ComposeResult:
        with Vertical(id="merge"):
            yield Static(id="merge-title")
            with VerticalScroll(id="merge-sides"):
                yield SideBySide(id="merge-table")
            with Horizontal(id="merge-bottom"):
                yield TextArea(id="merge-gist", soft_wrap=True, tab_behavior="focus")
                with VerticalScroll(id="merge-side-panel"):
                    yield Static(id="merge-verdict")
                    yield Static(id="merge-provenance")
        yield Footer()

    def on_mount(self) -> None:
        self._show_group()

    def on_resize(self, event: events.Resize) -> None:
        narrow = event.size.width < NARROW_BELOW
        self.set_class(narrow, "-narrow")
        self.query_one("#merge-table", SideBySide).set_stacked(narrow)

    # ------------------------------------------------------------------ showing a group

    def _show_group(self) -> None:
        files = self.workspace.snapshot.files
        group = [p for p in self.group if p in files]
        if len(group) < 2:
            self._advance("one side no longer exists — skipped")
            return
        count = f"{self.position + 1} of {len(self.queue)}" if len(self.queue) > 1 else "1 of 1"
        left, right = group[0], group[1]
        rows = side_by_side(files[left].body, files[right].body)
        same, changed, only_left, only_right = similarity_summary(rows)
        more = f" (+{len(group) - 2} more in the cluster)" if len(group) > 2 else ""
        title = Text()
        title.append(f"Merge review · {count} · ", style="bold")
        title.append(f"{left} ⇄ {right}{more}")
        title.append(f"   {same} same · {changed} changed · −{only_left} · +{only_right} lines")
        self.query_one("#merge-title", Static).update(title)
        self.query_one("#merge-table", SideBySide).show(rows, left, right)
        try:
            draft = gist_draft(self.workspace.snapshot, group)
        except VerbError as exc:
            self._advance(f"cannot merge {left} and {right}: {exc} — skipped")
            return
        gist = self.query_one("#merge-gist", TextArea)
        self._loading_gist = True
        gist.text = draft.body
        gist.border_title = f"Gist → {draft.path}  (e edits · esc leaves the editor)"
        provenance = Text()
        provenance.append("\nProvenance that will be written\n", style="bold underline")
        for line in draft.provenance:
            provenance.append(f"• {line}\n")
        pinned = [p for p in group if files[p].pinned]
        if pinned:
            provenance.append(f"\n★ {', '.join(pinned)} is pinned: accepting confirms the merge "
                              "and the gist inherits pinned\n", style="bold")
        self.query_one("#merge-provenance", Static).update(provenance)
        self.query_one("#merge-sides").focus()
        self._compute_verdict()

    def _advance(self, note: str = "") -> None:
        if note:
            self.notify(note, timeout=3)
        if self.position + 1 >= len(self.queue):
            self.dismiss(None)
            return
        self.position += 1
        self._show_group()

    # ------------------------------------------------------------------ the verdict

    @work(thread=True, exclusive=True, group="merge-verdict", description="checking the merge",
          exit_on_error=False)
    def _verdict_worker(self, workspace: Workspace, group: tuple[str, ...], gist: str) -> None:
        build = partial(merge, paths=group, body=gist, confirm_pinned=True)
        try:
            plan = writer.plan(workspace.snapshot, writer.Request(build), workspace.cache)
        except writer.VerbRefused as exc:
            self.post_message(self.Verdict(None, str(exc), gist))
            return
        self.post_message(self.Verdict(plan, gist=gist))

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """The app's one worker error policy, for this screen's worker: a notice, not a crash."""
        if event.state is WorkerState.ERROR:
            report_worker_error(self, event.worker)
            self.query_one("#merge-verdict", Static).update(
                Text("✖ the validator could not check this merge (see the notice)\n"))

    def _compute_verdict(self) -> None:
        verdict = self.query_one("#merge-verdict", Static)
        verdict.update(Text("checking with the validator…\n", style="italic"))
        self.plan = None
        self._verdict_worker(self.workspace, self.group, self.query_one("#merge-gist", TextArea).text)

    def on_merge_review_screen_verdict(self, message: Verdict) -> None:
        if self._applying:
            return
        self.plan = message.plan
        self._planned_gist = message.gist
        if self._accept_when_checked:
            self._accept_when_checked = False
            if message.plan is not None:
                self.call_after_refresh(self.action_accept)
        text = Text()
        if message.plan is None:
            text.append("✖ cannot merge: ", style="bold")
            text.append(message.error)
        elif message.plan.accepted:
            text.append("✔ ", style="bold")
            text.append(message.plan.verdict)
            for op in message.plan.operations:
                text.append(f"\n  {op}")
            text.append("\n")
        else:
            text.append("✖ the validator refuses this merge\n", style="bold")
            for line in message.plan.reasons:
                text.append(f"  {line}\n")
        self.query_one("#merge-verdict", Static).update(text)

    @on(TextArea.Changed, "#merge-gist")
    def _gist_changed(self) -> None:
        if self._loading_gist:
            self._loading_gist = False
            return
        if self._debounce is not None:
            self._debounce.stop()
            self._debounce = None
        if self.RECHECK_DELAY <= 0:
            self._compute_verdict()
            return
        self._debounce = self.set_timer(self.RECHECK_DELAY, self._compute_verdict)

    # ------------------------------------------------------------------ actions

    def action_accept(self) -> None:
        if self._applying:
            return
        plan = self.plan
        gist = self.query_one("#merge-gist", TextArea).text
        if plan is not None and self._planned_gist != gist:
            plan = None  # the gist was edited since the verdict: check the new text first
        if plan is None:
            self._accept_when_checked = True
            if self._debounce is not None:
                self._debounce.stop()
            self._compute_verdict()
            return
        if not plan.accepted:
            from memtui.screens.confirm import ConfirmChange

            self.app.push_screen(ConfirmChange(plan))
            return
        # the gist is the merge's first created file: later groups name it instead of the sources
        gist_path = next(op.path for op in plan.preview.changeset.ops if isinstance(op, Create))
        self._folded.update((path, gist_path) for path in self.group)
        self._applying = True
        self.plan = None
        self.query_one("#merge-verdict", Static).update(Text("merging…\n", style="italic"))
        self.post_message(self.Accepted(plan))

    def action_skip(self) -> None:
        self._advance("skipped")

    def action_reject(self) -> None:
        group = self.group
        if len(group) != 2:
            self.notify("reject the pairs of a cluster one by one", timeout=3)
            return
        self.post_message(self.Rejected(*group))
        self._advance()

    def action_edit_gist(self) -> None:
        self.query_one("#merge-gist", TextArea).focus()

    def action_back(self) -> None:
        gist = self.query_one("#merge-gist", TextArea)
        if gist.has_focus:
            self.query_one("#merge-sides").focus()
        else:
            self.dismiss(None)
