"""The Textual app: which root is open, the workers that load, score and write, and the actions.

Widgets never touch the disk.  Loading, scoring, scanning and every change run in thread workers
that post messages back; the app turns those into calls down into the screens.  Changes go
through :mod:`memtui.services.writer` (the core's one writer, behind the gate).  The command
line that opens the app lives in :mod:`memtui.cli.open_app`.
"""

from __future__ import annotations

import gc
import os
import threading
from dataclasses import dataclass, replace
from datetime import datetime, timezone
from functools import wraps
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable, Mapping, Sequence, TypeVar

from textual import on, work
from textual.app import App, SystemCommand
from textual.binding import Binding
from textual.filter import LineFilter
from textual.message import Message
from textual.notifications import SeverityLevel
from textual.screen import Screen
from textual.widgets import TabbedContent
from textual.worker import Worker, WorkerState, get_current_worker

from memtui.actions import UserActions
from memtui.commands import MemtuiCommands
from memtui.core.judge.usage import Usage, usage_of
from memtui.core.model.snapshot import INDEX_NAME, BudgetConfig, Snapshot
from memtui.core.read.store import RootError
from memtui.core.stores import seen
from memtui.core.stores.seen_store import SeenError
from memtui.core.verbs import review
from memtui.core.verbs.editor import EditedCopy, LeftBehind, left_behind
from memtui.paths import styles_dir
from memtui.screens.confirm import ConfirmChange
from memtui.screens.dream import DreamScreen
from memtui.screens.main import MainScreen
from memtui.screens.merge_review import MergeReviewScreen
from memtui.screens.relearned import RelearnedScreen
from memtui.screens.root_picker import RootPickerScreen
from memtui.services import scoring, writer
from memtui.services.scoring import ScanResult, StalenessReport
from memtui.services.watch import Identity, OpenWriter, fingerprint, index_identity, index_replaced
from memtui.services.workspace import Workspace, full_workspace, quick_workspace, workspace_after
from memtui.widgets.control_filter import ControlFilter
from memtui.widgets.working_set_view import WorkingSetView
from memtui.worker_errors import report_worker_error

if TYPE_CHECKING:
    from memtui.commands import CommandHost
    from memtui.core import write

#: seconds between two looks at the folder for changes made by someone else
WATCH_INTERVAL = 1.5
#: roots up to this many files are scanned for duplicates at once; bigger ones when asked
AUTO_SCAN_MAX_FILES = 2_000
#: a root whose top folder holds more entries than this paints its working set before the scan
QUICK_PASS_FROM = 300
#: seconds the full scan waits for that first paint, at most
QUICK_PAINT_WAIT = 1.0

M = TypeVar("M", bound=Message)


def while_shown(handler: Callable[[MemtuiApp, M], None]) -> Callable[[MemtuiApp, M], None]:
    """A handler of a worker's result that does nothing while the main screen is not up (a
    worker that finishes while the app closes posts to an app whose views are going, one that
    finishes before the first frame to a screen not yet mounted)."""

    @wraps(handler)
    def handle(app: MemtuiApp, message: M) -> None:
        if app.shown_main is not None:
            handler(app, message)

    return handle


@dataclass(frozen=True)
class MarkSeen:
    """Changes of the Inbox to take as seen: these paths, or every change (``paths`` None)."""

    paths: tuple[str, ...] | None = None


class MemtuiApp(UserActions):
    """Triage one memory root (or pick one of several) by keystroke."""

    CSS_PATH = str(styles_dir() / "app.tcss")
    TITLE = "memtui"
    COMMANDS = App.COMMANDS | {MemtuiCommands}
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", show=False, priority=True)]

    #: seconds between two looks at the folder (tests call :meth:`poll_folder` themselves)
    watch_interval = WATCH_INTERVAL

    _controls = ControlFilter()

    def get_line_filters(self) -> Sequence[LineFilter]:
        """Textual's filters, then :class:`ControlFilter`: no line the app draws carries a memory
        file's control characters to the terminal."""
        return [*super().get_line_filters(), self._controls]

    # ------------------------------------------------------------------ messages from workers

    class Loaded(Message):
        def __init__(self, workspace: Workspace, generation: int) -> None:
            super().__init__()
            self.workspace = workspace
            self.generation = generation

    class Scored(Message):
        def __init__(self, report: StalenessReport | None, generation: int,
                     candidates: ScanResult | None = None) -> None:
            super().__init__()
            self.report = report
            self.generation = generation
            self.candidates = candidates

    class Scanned(Message):
        def __init__(self, scan: ScanResult, generation: int) -> None:
            super().__init__()
            self.scan = scan
            self.generation = generation

    class Failed(Message):
        def __init__(self, text: str, severity: SeverityLevel = "error") -> None:
            super().__init__()
            self.text = text
            self.severity = severity

    class FolderChanged(Message):
        pass

    class PlanReady(Message):
        def __init__(self, plan: writer.Plan, confirm: bool) -> None:
            super().__init__()
            self.plan = plan
            self.confirm = confirm

    class Applied(Message):
        def __init__(self, outcome: writer.Outcome, select: str | None = None,
                     workspace: Workspace | None = None, touched: tuple[str, ...] = (),
                     on_marks: bool = False) -> None:
            super().__init__()
            self.on_marks = on_marks
            self.outcome = outcome
            self.select = select
            self.workspace = workspace
            self.touched = touched

    class InboxReady(Message):
        def __init__(self, inbox: seen.Inbox, generation: int, marked: int | None = None) -> None:
            super().__init__()
            self.inbox = inbox
            self.generation = generation
            self.marked = marked  # how many changes a mark-seen took (None: a plain look)

    class UsageRead(Message):
        def __init__(self, usage: Usage, generation: int) -> None:
            super().__init__()
            self.usage = usage
            self.generation = generation

    class IndexSeen(Message):
        def __init__(self, identity: Identity, generation: int,
                     writers: tuple[OpenWriter, ...] = (), own: bool = False) -> None:
            super().__init__()
            self.identity = identity
            self.generation = generation
            self.writers = writers  # programs still writing to the index this one replaced
            self.own = own  # the replace was memtui's own change

    class AppliedElsewhere(Message):
        """A change over other roots than the open one was applied: ``root`` (one of them) opens."""

        def __init__(self, outcome: writer.Outcome, root: Path, select: str, roots: int) -> None:
            super().__init__()
            self.outcome = outcome
            self.root = root
            self.select = select
            self.roots = roots

    class Baseline(Message):
        def __init__(self, stamp: int, generation: int) -> None:
            super().__init__()
            self.stamp = stamp
            self.generation = generation

    # ------------------------------------------------------------------ setup

    def __init__(
        self,
        roots: list[Path],
        *,
        read_only: bool = False,
        now: datetime | None = None,
        watch: bool = True,
        config: BudgetConfig = BudgetConfig(),
        keymap: Mapping[str, str] | None = None,
    ) -> None:
        super().__init__()
        self.host: CommandHost = self
        self.roots = roots
        self.read_only = read_only
        self.fixed_now = now
        self.root_order: tuple[str, bool] = ("found", False)  # the root picker's order, kept while the app runs
        self.watch_folder = watch
        self.config = config
        self.root: Path | None = None
        self.workspace: Workspace | None = None
        self.inbox: seen.Inbox | None = None
        self._own_change = False
        self._generation = 0
        self._keep: str | None = None
        self._binding_state: tuple[bool | None, ...] = ()
        self._scan_requested = False
        self.scorer = scoring.Scorer()
        self._root_gone = False
        self._index: Identity = None  # the MEMORY.md the watcher last saw (device, inode)
        self._quick_shown = threading.Event()
        self.marks: frozenset[str] = frozenset()
        self.edit_copies: dict[str, EditedCopy] = {}  # $EDITOR copies whose edit has not landed
        self.include_sessions = False  # the Consolidate view's session toggle (S)
        self._freeze_scores = False  # the next scores come from a fresh read (see _freeze_heap)
        self.last_rejected: tuple[str, str] | None = None  # the pair rejected last (x), for X
        if keymap:
            self.apply_keymap(keymap)

    @property
    def now(self) -> datetime:
        return self.fixed_now or datetime.now(timezone.utc)

    async def on_mount(self) -> None:
        self.install_screen(MainScreen(), "main")
        await self.push_screen("main")
        if len(self.roots) == 1:
            self.open_root(self.roots[0])
        else:
            self.push_screen(RootPickerScreen(self.roots, config=self.config, now=self.fixed_now,
                                              order=self.root_order), self._picked)
        if self.watch_folder:
            self.set_interval(self.watch_interval, self.poll_folder)
        self._left_behind_worker()

    @work(thread=True, group="left-behind", description="look for edits left behind",
          exit_on_error=False)
    def _left_behind_worker(self) -> None:
        """The $EDITOR copies a memtui that ended while its editor ran left in the temp folder:
        the untouched ones go, one that holds typing is named (core.verbs.editor.left_behind)."""
        found = left_behind()
        if found:
            self.call_from_thread(self._say_left_behind, found)

    def _say_left_behind(self, found: list[LeftBehind]) -> None:
        newest = found[-1]
        more = f" (and {len(found) - 1} more beside it)" if len(found) > 1 else ""
        self.notify(f"an edit of {newest.origin or newest.copy.name} that never reached the folder is "
                    f"kept at {newest.copy}{more}: take what you typed from it, then delete its folder",
                    severity="warning", timeout=12, markup=False)

    def get_system_commands(self, screen: Screen[object]) -> Iterable[SystemCommand]:
        """Textual's system commands but its Quit: the registry's Quit is the palette's one."""
        return (command for command in super().get_system_commands(screen)
                if command.title != "Quit")

    def _picked(self, root: Path | None) -> None:
        if root is not None:
            self.open_root(root)

    def open_root(self, root: Path) -> None:
        """Show a root: the working set first, then every file, then scores and candidates."""
        self.root = root
        self.workspace = None
        self._index = None
        self.set_marks(frozenset())
        self.scorer = scoring.Scorer()
        self._scan_requested = False
        if (main := self.shown_main) is not None:
            main.query_one(WorkingSetView).loading = True
        self._load(quick=True)

    def reload(self, keep: str | None = None) -> None:
        """Read the root again; the cursor stays on ``keep`` (default: what is selected now)."""
        if self.root is None:
            return
        main = self.shown_main
        self._keep = keep if keep is not None or main is None else main.selected_path()
        self._load(quick=False)

    def _load(self, quick: bool) -> None:
        assert self.root is not None
        self._generation += 1
        if (main := self.shown_main) is not None:
            main.set_busy("reading…")
        self._load_worker(self.root, quick, self._generation)

    # ------------------------------------------------------------------ workers

    @work(thread=True, exclusive=True, group="load", description="reading the folder",
          exit_on_error=False)
    def _load_worker(self, root: Path, quick: bool, generation: int) -> None:
        worker = get_current_worker()
        if not self.read_only:
            try:
                recovery = writer.recover(root)
            except writer.UnsafeToChange as exc:
                self.post_message(self.Failed(f"changes are not possible here: {exc}", "warning"))
            except writer.RecoveryFailed as exc:
                self.post_message(self.Failed(f"could not finish an interrupted change: {exc}"))
            else:
                if recovery.notice:
                    self.post_message(self.Failed(recovery.notice, "warning"))
        try:
            if quick and _looks_big(root):
                self._quick_shown.clear()
                self.post_message(self.Loaded(quick_workspace(root, self.config), generation))
                # let the working set paint before the scan takes the interpreter for seconds
                self._quick_shown.wait(QUICK_PAINT_WAIT)
            self.post_message(self.IndexSeen(index_identity(root), generation))
            stamp = fingerprint(root)
            workspace = full_workspace(root, self.config)
        except RootError as exc:
            self.post_message(self.Failed(str(exc)))
            return
        self.post_message(self.Loaded(replace(workspace, fingerprint=stamp), generation))
        if not worker.is_cancelled:
            self._score_and_scan(workspace, generation)

    def _score_and_scan(self, workspace: Workspace, generation: int) -> None:
        """Staleness scores, then consolidation candidates (thread).  A small root gets both in
        one message (one redraw); a big one sees its scores first."""
        worker = get_current_worker()
        small = len(workspace.snapshot.files) <= AUTO_SCAN_MAX_FILES
        report = self.scorer.score(workspace.snapshot, self.now)
        if worker.is_cancelled:
            return
        if small:
            candidates = scoring.scan(workspace.snapshot, self.include_sessions)
            self.post_message(self.Scored(report, generation, candidates))
            return
        self.post_message(self.Scored(report, generation))
        if self._scan_requested:
            self._scan(workspace, generation)

    def _scan(self, workspace: Workspace, generation: int) -> None:
        scan = scoring.scan(workspace.snapshot, self.include_sessions)
        self.post_message(self.Scanned(scan, generation))

    @work(thread=True, exclusive=True, group="scan", description="the duplicate scan",
          exit_on_error=False)
    def _scan_worker(self, workspace: Workspace, generation: int) -> None:
        self._scan(workspace, generation)

    # ------------------------------------------------------------------ one worker error policy

    def on_worker_state_changed(self, event: Worker.StateChanged) -> None:
        """A worker that failed: a notice saying what failed, its traceback in the log, and the
        screen as it was (after a failed change the folder is read again: the plan worker also
        writes a change it need not confirm)."""
        if event.state is not WorkerState.ERROR:
            return
        worker = event.worker
        report_worker_error(self, worker)
        if (main := self.shown_main) is not None:
            main.set_busy("")
            main.query_one(WorkingSetView).loading = False
        if worker.group == "write":
            self.reload()

    @on(TabbedContent.TabActivated)
    def _view_activated(self, event: TabbedContent.TabActivated) -> None:
        """Another view: the footer follows what applies there (it recomposes only when that
        changed); big roots are scanned for duplicates once someone looks at the candidates."""
        self._refresh_binding_state()
        if event.pane.id != "consolidate" or self._scan_requested:
            return
        self._scan_requested = True
        workspace = self.workspace
        main = self.shown_main
        if main is not None and workspace is not None and workspace.complete and workspace.candidates is None:
            main.set_busy("scanning for near-duplicates…")
            self._scan_worker(workspace, self._generation)

    @work(thread=True, exclusive=True, group="watch", description="looking for changes on disk",
          exit_on_error=False)
    def _watch_worker(self, root: Path, known: int | None, generation: int,
                      index: Identity) -> None:
        if not root.is_dir():
            if not self._root_gone:
                self._root_gone = True
                self.post_message(self.Failed(f"{root} is gone; showing what was last read"))
            return
        self._root_gone = False
        stamp = fingerprint(root)
        identity, writers = index_replaced(root, index)
        if identity != index:  # no fingerprint: memtui's own change was the last one
            self.post_message(self.IndexSeen(identity, generation, writers, own=known is None))
        if known is None:
            self.post_message(self.Baseline(stamp, generation))
        elif stamp != known:
            self.post_message(self.FolderChanged())

    def on_memtui_app_baseline(self, message: Baseline) -> None:
        if message.generation == self._generation and self.workspace is not None:
            self.workspace = replace(self.workspace, fingerprint=message.stamp)

    def on_memtui_app_index_seen(self, message: IndexSeen) -> None:
        if message.generation != self._generation:
            return
        self._index = message.identity
        after = "after memtui's change" if message.own else "since MEMORY.md was replaced"
        for program in message.writers:
            self.notify(f"a program still writes to the old MEMORY.md (pid {program.pid}, "
                        f"{program.name}) — its writes {after} will be lost; close it and re-open "
                        "the file", severity="warning", timeout=15, markup=False)

    def poll_folder(self) -> None:
        """Look for changes made by someone else (in a worker), unless a load or write runs."""
        workspace = self.workspace
        if workspace is None or not workspace.complete or self.root != workspace.root:
            return
        busy = any(w.group in ("load", "write") and w.is_running for w in self.workers)
        if not busy:
            self._watch_worker(workspace.root, workspace.fingerprint, self._generation, self._index)

    @work(thread=True, exclusive=True, group="write", description="planning the change",
          exit_on_error=False)
    def _plan_worker(self, request: writer.Request) -> None:
        workspace = self.workspace
        if workspace is None:
            return
        shown = False
        _hold_gc()
        try:
            try:
                plan = writer.plan(workspace.snapshot, request, workspace.cache)
            except writer.VerbRefused as exc:
                self.post_message(self.Failed(str(exc), "warning"))
                return
            if not plan.accepted or request.confirm:
                _ = plan.diff  # the dialog shows it: made here, off the UI thread
                self.post_message(self.PlanReady(plan, request.confirm))
                return
            shown = self._commit(plan, workspace)
        finally:
            if not shown:
                _release_gc()

    @work(thread=True, exclusive=True, group="write", description="applying the change",
          exit_on_error=False)
    def _apply_worker(self, plan: writer.Plan) -> None:
        workspace = self.workspace
        if workspace is not None:
            shown = False
            _hold_gc()
            try:
                shown = self._commit(plan, workspace)
            finally:
                if not shown:
                    _release_gc()

    def _commit(self, plan: writer.Plan, workspace: Workspace) -> bool:
        """Apply a plan (in a worker thread) and post the folder as it is after it; True when
        that folder was posted (the frame showing it releases the collector)."""
        outcome = writer.apply(plan)
        if outcome.ok and outcome.snapshot is not None:
            after = workspace_after(workspace, outcome.snapshot, outcome.cache, plan.touched)
            # no fingerprint: the watcher takes a new baseline instead of reloading our own change
            self.post_message(self.Applied(outcome, _select(plan), replace(after, fingerprint=None),
                                           plan.touched, plan.request.on_marks))
            return True
        self.post_message(self.Applied(outcome, _select(plan)))
        return False

    @work(thread=True, group="reject", description="remembering the rejection",
          exit_on_error=False)
    def _reject_worker(self, root: Path, a: str, b: str, undo: bool = False) -> None:
        try:
            scoring.reject_pair(root, a, b, undo=undo)
        except (OSError, ValueError) as exc:
            self.post_message(self.Failed(f"could not remember the rejection: {exc}"))
            return
        said = (f"{a} ⇄ {b} may be proposed again" if undo else
                f"rejected {a} ⇄ {b}; not proposed again · X takes it back")
        self.post_message(self.Applied(writer.Outcome(True, said)))

    @work(thread=True, exclusive=True, group="inbox", description="the inbox", exit_on_error=False)
    def _inbox_worker(self, snapshot: Snapshot, generation: int, mark: MarkSeen | None = None) -> None:
        """Look at what changed outside memtui (the first look seeds the baseline); ``mark``
        takes its changes as seen first."""
        try:
            marked = seen.mark_seen(snapshot, mark.paths) if mark is not None else None
            inbox = seen.inbox(snapshot, persist=not self.read_only)
            usage = self.workspace.usage if self.workspace is not None else None
            inbox = review.with_sessions(inbox, snapshot,
                                         usage.writers_of() if usage is not None else None)
        except (SeenError, OSError, ValueError) as exc:  # ValueError: a damaged journal record
            # one state in the inbox itself (not a stale list under a passing warning)
            said = f"the inbox is unavailable: {exc}"
            self.post_message(self.InboxReady(seen.Inbox(snapshot.root, (), (), False, "", False, 0,
                                                         note=said), generation))
            self.post_message(self.Failed(said, "warning"))
            return
        self.post_message(self.InboxReady(inbox, generation, marked))

    @work(thread=True, exclusive=True, group="usage", description="reading Claude Code's transcripts",
          exit_on_error=False)
    def _usage_worker(self, snapshot: Snapshot, generation: int) -> None:
        """Read the evidence of use from Claude Code's transcripts (read-only, cached)."""
        try:
            found = usage_of(snapshot)
        except (OSError, ValueError) as exc:
            self.post_message(self.Failed(f"Claude Code's transcripts are unreadable: {exc}", "warning"))
            return
        self.post_message(self.UsageRead(found, generation))

    @while_shown
    def on_memtui_app_usage_read(self, message: UsageRead) -> None:
        if message.generation != self._generation or self.workspace is None:
            return
        self.workspace = self.workspace.with_usage(message.usage)
        self.main.show_workspace(self.workspace, self.read_only)

    @while_shown
    def on_memtui_app_inbox_ready(self, message: InboxReady) -> None:
        if message.generation != self._generation:
            return
        self.inbox = message.inbox
        self.main.show_inbox(message.inbox)
        if message.marked is not None:
            self.notify(f"marked {message.marked} change{'s' if message.marked != 1 else ''} as seen",
                        timeout=3)
        self._refresh_binding_state()

    def mark_seen(self, paths: tuple[str, ...] | None) -> None:
        """Take the selected change (``paths``), or every change (None), as seen."""
        workspace = self.workspace
        if workspace is not None and workspace.complete:
            self._inbox_worker(workspace.snapshot, self._generation, MarkSeen(paths))

    # ------------------------------------------------------------------ what commands ask for

    def run_change(self, request: writer.Request) -> None:
        """Plan a change in a worker; apply at once, or confirm first, or show the refusal."""
        if self.read_only:
            self.notify("read-only: changes are disabled (--read-only)", severity="warning")
            return
        if request.on_marks and not request.pinned:
            request = replace(request, pinned=self._pinned_among_marks(request))
        self._plan_worker(request)

    def _pinned_among_marks(self, request: writer.Request) -> tuple[str, ...]:
        """The pinned files a change of the marked files reaches (pinning them again and
        unpinning them are what the verb says, so those two verbs ask nothing more)."""
        verb = getattr(request.build, "keywords", {}).get("verb")
        workspace = self.workspace
        if verb in ("pin", "unpin") or workspace is None:
            return ()
        return tuple(sorted(path for path in self.marks
                            if (f := workspace.file(path)) is not None and f.pinned))

    def apply_reviewed(self, plan: writer.Plan) -> None:
        """Apply a plan exactly as it was reviewed (the merge review's or the Dream's)."""
        if self.read_only:
            self.notify("read-only: changes are disabled (--read-only)", severity="warning")
            return
        self._apply_worker(plan)

    def on_merge_review_screen_accepted(self, message: MergeReviewScreen.Accepted) -> None:
        self.apply_reviewed(message.plan)

    def on_merge_review_screen_rejected(self, message: MergeReviewScreen.Rejected) -> None:
        self.reject_pair(message.a, message.b)

    def on_dream_screen_chosen(self, message: DreamScreen.Chosen) -> None:
        self.apply_reviewed(message.plan)

    def on_relearned_screen_chosen(self, message: RelearnedScreen.Chosen) -> None:
        self.apply_relearned(message.group, message.user_layer, message.select, message.summary)

    def apply_relearned(self, group: write.GroupPreview, user_layer: Path, select: str,
                        summary: str = "") -> None:
        """Commit the reviewed promotion of re-learned notes: as the open root's change when it is
        one of its roots (``u`` here undoes it everywhere), else in a worker, then the user layer
        opens with the note promoted (``u`` there undoes it everywhere)."""
        if self.read_only:
            self.notify("read-only: changes are disabled (--read-only)", severity="warning")
            return
        halves = {os.path.realpath(p.before.root): p for p in group.previews}
        here = halves.get(os.path.realpath(self.root)) if self.root is not None else None
        if here is not None:
            self.apply_reviewed(writer.Plan(writer.Request(), here, group, summary))
            return
        layer = halves[os.path.realpath(user_layer)]
        self._apply_elsewhere_worker(writer.Plan(writer.Request(select=select), layer, group, summary),
                                     Path(layer.before.root), select)

    @work(thread=True, exclusive=True, group="write", description="applying the change",
          exit_on_error=False)
    def _apply_elsewhere_worker(self, plan: writer.Plan, root: Path, select: str) -> None:
        roots = len(plan.group.previews) if plan.group is not None else 1
        self.post_message(self.AppliedElsewhere(writer.apply(plan), root, select, roots))

    @while_shown
    def on_memtui_app_applied_elsewhere(self, message: AppliedElsewhere) -> None:
        outcome = message.outcome
        if not outcome.ok:
            detail = "\n".join(str(line) for line in outcome.reasons)
            self.notify(outcome.message + (f"\n{detail}" if detail else ""), severity="error",
                        timeout=10, markup=False)
            return
        self.notify(f"{outcome.message}; the user layer is shown now · u undoes it in all "
                    f"{message.roots} roots", timeout=6, markup=False)
        if not any(os.path.realpath(r) == os.path.realpath(message.root) for r in self.roots):
            self.roots.append(message.root)
        self.main.show_view("files")
        self.open_root(message.root)
        self._keep = message.select

    def open_relearned(self) -> None:
        """The review of the notes re-learned across projects, over every root on this machine."""
        if self.read_only:
            self.notify("read-only: changes are disabled (--read-only)", severity="warning")
            return
        self.push_screen(RelearnedScreen(self.config))

    def reject_pair(self, a: str, b: str) -> None:
        """Remember that a proposed pair is not a duplicate, so it is not proposed again."""
        if self.root is not None and not self.read_only:
            self.last_rejected = (a, b)
            self._reject_worker(self.root, a, b)

    def unreject_pair(self) -> None:
        """Take back the last rejection of this session: the pair may be proposed again."""
        if self.root is not None and not self.read_only and self.last_rejected is not None:
            a, b = self.last_rejected
            self.last_rejected = None
            self._reject_worker(self.root, a, b, undo=True)

    def toggle_sessions(self) -> None:
        """Include the logs of work in the duplicate scan, or leave them out again; rescans."""
        self.include_sessions = not self.include_sessions
        what = "included" if self.include_sessions else "left out"
        workspace = self.workspace
        self._scan_requested = True
        if workspace is None or not workspace.complete:
            self.notify(f"logs of work {what} once the folder is read", timeout=3)
            return
        self.notify(f"logs of work {what}: scanning again…", timeout=3)
        self.main.set_busy("scanning for near-duplicates…")
        self._scan_worker(workspace, self._generation)

    def pick_root(self) -> None:
        if len(self.roots) > 1:
            self.push_screen(RootPickerScreen(self.roots, can_go_back=True, current=self.root,
                                              config=self.config, now=self.fixed_now,
                                              order=self.root_order), self._picked)

    def on_root_picker_screen_sorted(self, message: RootPickerScreen.Sorted) -> None:
        self.root_order = (message.column, message.descending)

    def open_search(self) -> None:
        """The search screen over the roots memtui opened; a hit picked opens in its own root,
        switching roots as the root picker does (a root found only by the search joins the list
        ``o`` offers)."""
        from memtui.screens.search import SearchScreen

        if isinstance(self.screen, SearchScreen):
            self.screen.action_to_query()
            return

        def picked(found: tuple[Path, str] | None) -> None:
            if found is not None:  # once the main screen has its focus back (which would
                self.call_after_refresh(show, *found)  # bring its last pane's view back)

        def show(root: Path, path: str) -> None:
            if not any(os.path.realpath(r) == os.path.realpath(root) for r in self.roots):
                self.roots.append(root)
            self.main.show_view("files")
            if self.root is not None and os.path.realpath(self.root) == os.path.realpath(root):
                self.main.view().select_path(path)
                return
            self.open_root(root)
            self._keep = path

        self.push_screen(SearchScreen(list(self.roots)), picked)

    def open_journal(self) -> None:
        """The journal of the open root; a change picked shows its first file in the Files view."""
        from memtui.screens.journal import JournalScreen

        workspace = self.workspace
        if workspace is None:
            return
        root = workspace.root

        def picked(paths: tuple[str, ...] | None) -> None:
            if not paths or self.root != root or self.workspace is None:
                return
            files = self.workspace.snapshot.files
            shown = next((p for p in paths if p in files), None)
            if shown is not None:
                self.call_after_refresh(self._show_file, shown)
            elif INDEX_NAME in paths and self.workspace.snapshot.index.exists:
                self.call_after_refresh(self.show_index_text)  # a change of the index alone
            else:
                self.notify(f"{', '.join(paths)}: no longer in the folder (moved or archived by a "
                            "later change)", timeout=4, markup=False)

        self.push_screen(JournalScreen(root), picked)

    def _show_file(self, path: str) -> None:
        self.main.show_view("files")
        self.main.view().select_path(path)

    def open_dream(self) -> None:
        """The Dream screen on the folder as it is now."""
        workspace = self.workspace
        if workspace is None or not workspace.complete:
            self.notify("still reading the folder", timeout=2)
            return
        self.push_screen(DreamScreen(workspace))

    # ------------------------------------------------------------------ worker results

    @while_shown
    def on_memtui_app_loaded(self, message: Loaded) -> None:
        if message.generation != self._generation:
            return
        previous = self.workspace
        workspace = message.workspace
        if previous is not None and previous.root == workspace.root and workspace.complete:
            workspace = replace(workspace, staleness=previous.staleness,
                                candidates=previous.candidates, usage=previous.usage)
        self.workspace = workspace
        if workspace.complete and self.marks - workspace.snapshot.files.keys():
            self.set_marks(self.marks & workspace.snapshot.files.keys())  # files gone meanwhile
        if not workspace.complete:
            self.call_after_refresh(self._quick_shown.set)
        else:
            for screen in self.screen_stack:
                if isinstance(screen, MergeReviewScreen):
                    screen.workspace_changed(workspace)
        main = self.main
        main.query_one(WorkingSetView).loading = False
        main.show_workspace(workspace, self.read_only)
        if workspace.complete:
            main.set_busy("")
            if not self._own_change:  # memtui's own changes are never news: no new look
                self._inbox_worker(workspace.snapshot, self._generation)
                self._usage_worker(workspace.snapshot, self._generation)
                _freeze_heap()
                self._freeze_scores = True
            else:  # the frame showing memtui's own change: the collector may run after it
                self.call_after_refresh(_release_gc)
            self._own_change = False
            if self._keep:
                self._select_everywhere(self._keep)
                self._keep = None
        if previous is None or previous.root != workspace.root:
            main.show_view(main.active_view_name)
        self._refresh_binding_state()

    @while_shown
    def on_memtui_app_scored(self, message: Scored) -> None:
        if message.generation != self._generation or self.workspace is None:
            return
        self.workspace = self.workspace.with_staleness(message.report)
        if message.candidates is not None:
            self.workspace = self.workspace.with_candidates(message.candidates)
        self.main.show_workspace(self.workspace, self.read_only)
        self._refresh_binding_state()
        if self._freeze_scores:  # the scores of a fresh read: as long-lived as the files
            self._freeze_scores = False
            _freeze_heap()

    @while_shown
    def on_memtui_app_scanned(self, message: Scanned) -> None:
        if message.generation != self._generation or self.workspace is None:
            return
        self.main.set_busy("")
        self.workspace = self.workspace.with_candidates(message.scan)
        self.main.show_workspace(self.workspace, self.read_only)
        self._refresh_binding_state()

    @while_shown
    def on_memtui_app_failed(self, message: Failed) -> None:
        self.main.set_busy("")
        self.main.query_one(WorkingSetView).loading = False
        # plain text: names from the folder may hold brackets that are not markup
        self.notify(message.text, severity=message.severity, timeout=8, markup=False)

    @while_shown
    def on_memtui_app_folder_changed(self, message: FolderChanged) -> None:
        self.notify("the folder changed on disk — reloaded", timeout=3)
        self.reload()

    def on_memtui_app_plan_ready(self, message: PlanReady) -> None:
        plan = message.plan
        if not plan.accepted:
            self.push_screen(ConfirmChange(plan))
            return

        def decided(apply: bool | None) -> None:
            if apply:
                self._apply_worker(plan)

        self.push_screen(ConfirmChange(plan), decided)

    @while_shown
    def on_memtui_app_applied(self, message: Applied) -> None:
        outcome = message.outcome
        if outcome.ok and message.on_marks:
            self.set_marks(frozenset())
        if outcome.ok:
            self.notify(outcome.message + (" · u undoes it" if outcome.undoable else ""), timeout=4)
            self._discard_landed_edits(outcome.snapshot)
        else:
            detail = "\n".join(str(line) for line in outcome.reasons)
            self.notify(outcome.message + (f"\n{detail}" if detail else ""), severity="error",
                        timeout=10)
        if message.workspace is None:
            self.reload(keep=message.select)
            return
        self._generation += 1
        self._keep = message.select or self.main.selected_path()
        self._own_change = True
        self.post_message(self.Loaded(message.workspace, self._generation))
        # after the frame showing the change: a worker started now holds the interpreter
        # while that frame is laid out and drawn
        self.call_after_refresh(self._rescore_later, message.workspace, message.touched,
                                self._generation)
        if self._touches_inbox(message.touched):  # a revert, or a change to a listed file: look again
            self.call_after_refresh(self._inbox_worker, message.workspace.snapshot, self._generation)

    def _touches_inbox(self, touched: tuple[str, ...]) -> bool:
        """Whether a change of memtui's touched a path the Inbox lists."""
        listed = {p for c in (self.inbox.changes if self.inbox else ()) for p in (c.path, c.old_path) if p}
        return bool(listed.intersection(touched))

    def _rescore_later(self, workspace: Workspace, touched: tuple[str, ...], generation: int) -> None:
        """Start the rescore of a change unless a newer change or load has begun meanwhile."""
        if generation == self._generation:
            self._rescore_worker(workspace, touched, generation)

    def _discard_landed_edits(self, snapshot: Snapshot | None) -> None:
        """Remove the $EDITOR copies whose bytes are now in the folder; a refused edit keeps its copy."""
        if snapshot is None:
            return
        for path, edited in list(self.edit_copies.items()):
            memory_file = snapshot.files.get(path)
            if memory_file is not None and memory_file.data == edited.data:
                edited.discard()
                del self.edit_copies[path]

    @work(thread=True, exclusive=True, group="score", description="scoring the change",
          exit_on_error=False)
    def _rescore_worker(self, workspace: Workspace, touched: tuple[str, ...], generation: int) -> None:
        """Score the touched files again and rescan if candidates are shown (after a change)."""
        report = self.scorer.rescore(workspace.staleness, workspace.snapshot, touched, self.now)
        candidates: ScanResult | None = None
        if workspace.candidates is not None or self._scan_requested:
            candidates = scoring.scan(workspace.snapshot, self.include_sessions)
        self.post_message(self.Scored(report, generation, candidates))


def _freeze_heap() -> None:
    """Keep what a fresh read of the folder left alive out of the cyclic collector's scans.

    A root of ten thousand files is millions of long-lived objects (the files, their findings
    and scores); a full collection walks them all (0.1–0.3 s at 10k on a 2-core machine) at a
    moment no keystroke chooses.  They are acyclic and freed by reference counting when
    replaced; only a cycle alive at this moment and dropped later is never collected.
    """
    gc.freeze()


#: seconds the collector stays off for one change at most (its frame normally releases it)
GC_HOLD_MAX = 2.0
_gc_lock = threading.Lock()
_gc_held: list[threading.Timer] = []  # the safety timer of the hold in force, if any


def _hold_gc() -> None:
    """Keep the cyclic collector from running between a change's key and the frame showing it.

    A full collection lands on a random allocation and takes 15–25 ms (the app's own cycles:
    widgets, messages, toasts); inside a pin it was the slowest tenth of pins.  Reference
    counting still frees everything acyclic; the collection runs once the frame is shown.
    Leaves the collector alone if something else has turned it off.
    """
    with _gc_lock:
        if _gc_held or not gc.isenabled():
            return
        gc.disable()
        timer = threading.Timer(GC_HOLD_MAX, _release_gc)
        timer.daemon = True
        _gc_held.append(timer)
        timer.start()


def _release_gc() -> None:
    """Turn the collector back on after :func:`_hold_gc` (no-op when nothing is held)."""
    with _gc_lock:
        if _gc_held:
            _gc_held.pop().cancel()
            gc.enable()


def _looks_big(root: Path) -> bool:
    """Whether a root is worth a quick first pass (its top folder alone has many entries)."""
    try:
        with os.scandir(root) as entries:
            return sum(1 for _ in entries) > QUICK_PASS_FROM
    except OSError:
        return False


def _select(plan: writer.Plan) -> str | None:
    """Where the cursor should land after a change: the file it was about."""
    return plan.request.select
