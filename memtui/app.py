"""The Textual app: which root is open, the workers that load, score and write, and the actions.

Widgets never touch the disk.  Loading, scoring, scanning and every change run in thread workers
that post messages back; the app turns those into calls down into the screens.  Changes go
through :mod:`memtui.services.writer` (the core's one writer, behind the gate).
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
from dataclasses import replace
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from textual import on, work
from textual.app import App, SuspendNotSupported
from textual.binding import Binding
from textual.message import Message
from textual.worker import get_current_worker

from memtui.commands import VERB_ACTIONS, MemtuiCommands, by_name
from memtui.core.model import INDEX_NAME, BudgetConfig, Finding
from memtui.core.store import RootError
from memtui.paths import styles_dir
from memtui.screens.confirm import ConfirmChange
from memtui.screens.help import HelpScreen
from memtui.screens.main import VIEWS, MainScreen
from memtui.screens.root_picker import RootPickerScreen
from memtui.services import scoring, writer
from memtui.services.watch import fingerprint
from memtui.services.workspace import Workspace, full_workspace, quick_workspace, workspace_of
from memtui.widgets.consolidate_view import ConsolidateView, kind_of
from memtui.widgets.problems_view import QUICK_FIXES, ProblemsView
from memtui.widgets.row_list import RowList
from memtui.widgets.working_set_view import WorkingSetView

#: seconds between two looks at the folder for changes made by someone else
WATCH_INTERVAL = 1.5

#: what ``f`` does for each quick-fixable rule: (verb, whether it asks first)
QUICK_FIX_VERBS = {
    "orphan": ("promote", False),
    "pinned-not-indexed": ("pin", False),
    "archived-in-index": ("decay", False),
    "superseded-active": ("decay", False),
}


class MemtuiApp(App[int]):
    """Triage one memory root (or pick one of several) by keystroke."""

    CSS_PATH = str(styles_dir() / "app.tcss")
    TITLE = "memtui"
    COMMANDS = App.COMMANDS | {MemtuiCommands}
    BINDINGS = [Binding("ctrl+q", "quit", "Quit", show=False, priority=True)]

    # ------------------------------------------------------------------ messages from workers

    class Loaded(Message):
        def __init__(self, workspace: Workspace, generation: int) -> None:
            super().__init__()
            self.workspace = workspace
            self.generation = generation

    class Scored(Message):
        def __init__(self, report: Any, generation: int) -> None:
            super().__init__()
            self.report = report
            self.generation = generation

    class Scanned(Message):
        def __init__(self, scan: Any, generation: int) -> None:
            super().__init__()
            self.scan = scan
            self.generation = generation

    class Failed(Message):
        def __init__(self, text: str, severity: str = "error") -> None:
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
                     workspace: Workspace | None = None) -> None:
            super().__init__()
            self.outcome = outcome
            self.select = select
            self.workspace = workspace

    # ------------------------------------------------------------------ setup

    def __init__(
        self,
        roots: list[Path],
        *,
        read_only: bool = False,
        now: datetime | None = None,
        watch: bool = True,
        config: BudgetConfig = BudgetConfig(),
        record_pressure: bool = True,
    ) -> None:
        super().__init__()
        self.roots = roots
        self.read_only = read_only
        self.fixed_now = now
        self.watch = watch
        self.config = config
        self.record_pressure = record_pressure and not read_only
        self.root: Path | None = None
        self.workspace: Workspace | None = None
        self._generation = 0
        self._keep: str | None = None
        self._after_edit: tuple[str, set[tuple[str, str, str]]] | None = None
        self._binding_state: tuple[object, ...] = ()

    @property
    def now(self) -> datetime:
        return self.fixed_now or datetime.now(timezone.utc)

    @property
    def main(self) -> MainScreen:
        return self.get_screen("main")  # type: ignore[return-value]

    async def on_mount(self) -> None:
        self.install_screen(MainScreen(), "main")
        await self.push_screen("main")
        if len(self.roots) == 1:
            self.open_root(self.roots[0])
        else:
            self.push_screen(RootPickerScreen(self.roots), self._picked)
        if self.watch:
            self.set_interval(WATCH_INTERVAL, self._poll_folder)

    def _picked(self, root: Path | None) -> None:
        if root is not None:
            self.open_root(root)

    def open_root(self, root: Path) -> None:
        """Show a root: the working set first, then every file, then scores and candidates."""
        self.root = root
        self.workspace = None
        self.main.query_one(WorkingSetView).loading = True
        self._load(quick=True)

    def reload(self, keep: str | None = None) -> None:
        """Read the root again; the cursor stays on ``keep`` (default: what is selected now)."""
        if self.root is None:
            return
        self._keep = keep if keep is not None else self.main.selected_path()
        self._load(quick=False)

    def _load(self, quick: bool) -> None:
        assert self.root is not None
        self._generation += 1
        self.main.set_busy("reading…")
        self._load_worker(self.root, quick, self._generation)

    # ------------------------------------------------------------------ workers

    @work(thread=True, exclusive=True, group="load")
    def _load_worker(self, root: Path, quick: bool, generation: int) -> None:
        worker = get_current_worker()
        try:
            if quick:
                self.post_message(self.Loaded(quick_workspace(root, self.config), generation))
            stamp = fingerprint(root)
            workspace = full_workspace(root, self.config, record=self.record_pressure,
                                       today=self.now.date())
        except RootError as exc:
            self.post_message(self.Failed(str(exc)))
            return
        self.post_message(self.Loaded(replace(workspace, fingerprint=stamp), generation))
        if not worker.is_cancelled:
            self._score_and_scan(workspace, generation)

    def _score_and_scan(self, workspace: Workspace, generation: int) -> None:
        """Staleness scores, then consolidation candidates, each posted when ready (thread)."""
        worker = get_current_worker()
        try:
            self.post_message(self.Scored(scoring.score(workspace.snapshot, self.now), generation))
        except Exception as exc:  # a scoring bug must not take the app down
            self.post_message(self.Failed(f"staleness scoring failed: {exc}", "warning"))
        if worker.is_cancelled:
            return
        try:
            self.post_message(self.Scanned(scoring.scan(workspace.snapshot), generation))
        except Exception as exc:
            self.post_message(self.Failed(f"consolidation scan failed: {exc}", "warning"))

    @work(thread=True, exclusive=True, group="watch")
    def _watch_worker(self, root: Path, known: int) -> None:
        if fingerprint(root) != known:
            self.post_message(self.FolderChanged())

    def _poll_folder(self) -> None:
        workspace = self.workspace
        if workspace is None or not workspace.complete or self.root != workspace.root:
            return
        busy = any(w.group in ("load", "write") and w.is_running for w in self.workers)
        if not busy:
            self._watch_worker(workspace.root, workspace.fingerprint)

    @work(thread=True, exclusive=True, group="write")
    def _plan_worker(self, verb: str, paths: tuple[str, ...], confirm: bool,
                     options: dict[str, Any]) -> None:
        workspace = self.workspace
        if workspace is None:
            return
        try:
            plan = writer.plan(workspace.snapshot, verb, paths, cache=workspace.cache, **options)
        except (writer.WriterUnavailable, writer.VerbRefused) as exc:
            self.post_message(self.Failed(str(exc), "warning"))
            return
        if not plan.accepted or confirm:
            self.post_message(self.PlanReady(plan, confirm))
            return
        self._commit(plan, workspace)

    @work(thread=True, exclusive=True, group="write")
    def _apply_worker(self, plan: writer.Plan) -> None:
        workspace = self.workspace
        if workspace is not None:
            self._commit(plan, workspace)

    def _commit(self, plan: writer.Plan, workspace: Workspace) -> None:
        """Apply a plan (in a worker thread) and post the folder as it is after it."""
        outcome = writer.apply(plan)
        after = None
        if outcome.ok and outcome.snapshot is not None:
            stamp = fingerprint(workspace.root)
            after = workspace_of(outcome.snapshot, workspace.pressure, outcome.cache)
            after = replace(after, fingerprint=stamp, staleness=workspace.staleness,
                            candidates=workspace.candidates)
        self.post_message(self.Applied(outcome, _select(plan), after))

    @work(thread=True, group="reject")
    def _reject_worker(self, root: Path, a: str, b: str) -> None:
        try:
            scoring.reject_pair(root, a, b)
        except (OSError, ValueError) as exc:
            self.post_message(self.Failed(f"could not remember the rejection: {exc}"))
            return
        self.post_message(self.Applied(writer.Outcome(True, f"rejected {a} ⇄ {b}; not proposed again")))

    # ------------------------------------------------------------------ worker results

    def on_memtui_app_loaded(self, message: Loaded) -> None:
        if message.generation != self._generation:
            return
        previous = self.workspace
        workspace = message.workspace
        if previous is not None and previous.root == workspace.root and workspace.complete:
            workspace = replace(workspace, staleness=previous.staleness,
                                candidates=previous.candidates)
        self.workspace = workspace
        main = self.main
        main.query_one(WorkingSetView).loading = False
        main.show_workspace(workspace, self.read_only)
        if workspace.complete:
            main.set_busy("")
            if self._keep:
                self._select_everywhere(self._keep)
                self._keep = None
            self._report_edit(workspace)
        if previous is None or previous.root != workspace.root:
            main.show_view(main.active_view_name)
        self._refresh_binding_state()

    def on_memtui_app_scored(self, message: Scored) -> None:
        if message.generation != self._generation or self.workspace is None:
            return
        self.workspace = self.workspace.with_staleness(message.report)
        self.main.show_workspace(self.workspace, self.read_only)

    def on_memtui_app_scanned(self, message: Scanned) -> None:
        if message.generation != self._generation or self.workspace is None:
            return
        self.workspace = self.workspace.with_candidates(message.scan)
        self.main.show_workspace(self.workspace, self.read_only)
        self._refresh_binding_state()

    def on_memtui_app_failed(self, message: Failed) -> None:
        self.main.set_busy("")
        self.main.query_one(WorkingSetView).loading = False
        self.notify(message.text, severity=message.severity, timeout=8)  # type: ignore[arg-type]

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

    def on_memtui_app_applied(self, message: Applied) -> None:
        outcome = message.outcome
        if outcome.ok:
            undoable = not outcome.message.startswith(("undo", "redo", "rejected"))
            self.notify(outcome.message + (" · u undoes it" if undoable else ""), timeout=4)
        else:
            detail = "\n".join(f"{f.rule}: {f.message}" for f in outcome.refusing)
            self.notify(outcome.message + (f"\n{detail}" if detail else ""), severity="error",
                        timeout=10)
        if message.workspace is None:
            self.reload(keep=message.select)
            return
        self._generation += 1
        self._keep = message.select or self.main.selected_path()
        self.post_message(self.Loaded(message.workspace, self._generation))
        self._score_worker(message.workspace, self._generation)

    @work(thread=True, exclusive=True, group="score")
    def _score_worker(self, workspace: Workspace, generation: int) -> None:
        """Score and scan again after a change (the folder itself is already shown)."""
        self._score_and_scan(workspace, generation)

    # ------------------------------------------------------------------ selection and bindings

    def _select_everywhere(self, path: str) -> None:
        """Put every view's cursor on a file (the working set only when it is showing)."""
        active = self.main.active_view_name
        for name in VIEWS:
            if name != "working" or active == "working":
                self.main.view(name).select_path(path)

    def selected_path(self) -> str | None:
        if not isinstance(self.screen, MainScreen):
            return None
        return self.main.selected_path()

    def on_row_list_highlighted(self, message: RowList.Highlighted) -> None:
        self._refresh_binding_state()

    def _refresh_binding_state(self) -> None:
        state = tuple(self.check_action(name, ()) for name in sorted(VERB_ACTIONS))
        if state != self._binding_state:
            self._binding_state = state
            self.refresh_bindings()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        spec = by_name(action)
        if spec is None:
            return True
        if action == "switch_root":
            return len(self.roots) > 1
        if not isinstance(self.screen, MainScreen):
            return action in ("quit", "show_help", "command_palette", "switch_root")
        workspace = self.workspace
        if spec.verb:
            if self.read_only or workspace is None or not workspace.complete:
                return None
            return self._verb_applies(action, workspace)
        if action == "filter_list":
            return self.main.active_view_name != "consolidate"
        return True

    def _verb_applies(self, action: str, workspace: Workspace) -> bool:
        view_name = self.main.active_view_name
        if action in ("undo_change", "redo_change"):
            return True
        if action == "rebuild_index":
            return True
        if action == "quick_fix":
            if view_name != "problems":
                return False
            finding = self.main.query_one(ProblemsView).selected_finding()
            return finding is not None and finding.rule in QUICK_FIXES
        if action in ("reject_candidate", "merge_review") and view_name == "consolidate":
            candidate = self.main.query_one(ConsolidateView).selected_candidate()
            if candidate is None:
                return False
            return action == "reject_candidate" or kind_of(candidate) != "contradiction"
        if action == "reject_candidate":
            return False
        path = self.main.selected_path()
        memory_file = workspace.file(path)
        if memory_file is None or path is None:
            return False
        direct = any(line.resolved == path for line in workspace.snapshot.index.entries)
        in_archive_folder = path.startswith("archive/")
        if action == "pin_entry":
            return not memory_file.archived
        if action == "decay_entry":
            return direct and not memory_file.pinned
        if action == "promote_entry":
            return not direct and not in_archive_folder
        if action == "archive_entry":
            return not memory_file.archived
        if action == "restore_entry":
            return in_archive_folder or memory_file.status == "archived"
        if action == "supersede_entry":
            return not memory_file.archived
        if action == "edit_file":
            return True
        if action == "merge_review":
            return self._pair_for(path) is not None
        return False

    def _pair_for(self, path: str) -> Any:
        scan = self.workspace.candidates if self.workspace is not None else None
        if scan is None:
            return None
        return next((p for p in scan.pairs if path in (p.a, p.b)), None)

    # ------------------------------------------------------------------ actions: views and moving

    def action_show_view(self, name: str) -> None:
        if isinstance(self.screen, MainScreen):
            self.main.show_view(name)

    def action_next_pane(self) -> None:
        self.main.next_pane(1)

    def action_previous_pane(self) -> None:
        self.main.next_pane(-1)

    def action_filter_list(self) -> None:
        if not self.main.view().open_filter():
            self.notify("this view has no filter", timeout=2)

    def action_show_help(self) -> None:
        self.push_screen(HelpScreen())

    def action_reload_root(self) -> None:
        self.reload()

    def action_switch_root(self) -> None:
        if len(self.roots) > 1:
            self.push_screen(RootPickerScreen(self.roots, can_go_back=True), self._picked)

    @on(ProblemsView.Jump)
    def _jump_to_finding(self, message: ProblemsView.Jump) -> None:
        finding: Finding = message.finding
        workspace = self.workspace
        if workspace is None:
            return
        main = self.main
        for path in (finding.path, finding.subject):
            if path and path in workspace.snapshot.files:
                main.show_view("files", focus=False)
                main.view("files").select_path(path)
                main.view("files").panes()[0].focus()
                return
        if finding.path == INDEX_NAME and finding.line:
            main.show_view("working", focus=False)
            if main.query_one(WorkingSetView).select_line(finding.line):
                return
        self.notify(f"{finding.path}: nothing to jump to for this finding", timeout=3)

    @on(ConsolidateView.Review)
    def _review_candidate(self, message: ConsolidateView.Review) -> None:
        candidate = message.candidate
        if kind_of(candidate) == "contradiction":
            self.run_verb("supersede", (candidate.old,), confirm=True, successor=candidate.new)
        else:
            self.open_merge_review(candidate)

    # ------------------------------------------------------------------ actions: changes

    def run_verb(self, verb: str, paths: tuple[str, ...], *, confirm: bool, **options: Any) -> None:
        """Plan a verb in a worker; apply at once, or confirm first, or show the refusal."""
        if self.read_only:
            self.notify("read-only: changes are disabled (--read-only)", severity="warning")
            return
        if not writer.available():
            self.notify(
                "changing memory is not available in this build yet — the writer (core/txn.py, "
                "core/verbs.py) is still being written; everything else works",
                severity="warning",
                timeout=6,
            )
            return
        self._plan_worker(verb, paths, confirm, options)

    def _selected_file(self) -> str | None:
        path = self.selected_path()
        if path is None:
            self.notify("select a memory file first", timeout=2)
        return path

    def action_pin_entry(self) -> None:
        path = self._selected_file()
        workspace = self.workspace
        if path is None or workspace is None:
            return
        memory_file = workspace.file(path)
        verb = "unpin" if memory_file is not None and memory_file.pinned else "pin"
        self.run_verb(verb, (path,), confirm=False)

    def action_decay_entry(self) -> None:
        if (path := self._selected_file()) is not None:
            self.run_verb("decay", (path,), confirm=False)

    def action_promote_entry(self) -> None:
        if (path := self._selected_file()) is not None:
            self.run_verb("promote", (path,), confirm=False)

    def action_archive_entry(self) -> None:
        if (path := self._selected_file()) is not None:
            memory_file = self.workspace.file(path) if self.workspace else None
            pinned = bool(memory_file and memory_file.pinned)
            self.run_verb("archive", (path,), confirm=True, confirm_pinned=pinned)

    def action_restore_entry(self) -> None:
        if (path := self._selected_file()) is not None:
            self.run_verb("restore", (path,), confirm=True)

    def action_rebuild_index(self) -> None:
        self.run_verb("rebuild", (), confirm=True)

    def action_undo_change(self) -> None:
        self.run_verb("undo", (), confirm=False)

    def action_redo_change(self) -> None:
        self.run_verb("redo", (), confirm=False)

    def action_supersede_entry(self) -> None:
        path = self._selected_file()
        workspace = self.workspace
        if path is None or workspace is None:
            return
        from memtui.screens.pick_file import PickFileScreen

        def picked(successor: str | None) -> None:
            if successor:
                self.run_verb("supersede", (path,), confirm=True, successor=successor)

        choices = [p for p, f in workspace.snapshot.files.items() if p != path and not f.archived]
        self.push_screen(PickFileScreen(f"Supersede {path} by…", choices), picked)

    def action_merge_review(self) -> None:
        main = self.main
        if main.active_view_name == "consolidate":
            candidate = main.query_one(ConsolidateView).selected_candidate()
        else:
            path = self.selected_path()
            candidate = self._pair_for(path) if path else None
        if candidate is None:
            self.notify("no merge candidate here", timeout=2)
            return
        self.open_merge_review(candidate)

    def open_merge_review(self, candidate: Any) -> None:
        if self.workspace is None:
            return
        if self.read_only:
            self.notify("read-only: changes are disabled (--read-only)", severity="warning")
            return
        from memtui.screens.merge_review import MergeReviewScreen

        self.push_screen(MergeReviewScreen(self.workspace, candidate))

    def apply_plan(self, plan: writer.Plan) -> None:
        """Apply a plan someone already reviewed (the merge review's accept)."""
        if not self.read_only:
            self._apply_worker(plan)

    def reject_pair(self, a: str, b: str) -> None:
        """Remember that a proposed pair is not a duplicate, so it is not proposed again."""
        if self.root is not None and not self.read_only:
            self._reject_worker(self.root, a, b)

    def action_reject_candidate(self) -> None:
        candidate = self.main.query_one(ConsolidateView).selected_candidate()
        if candidate is None or self.root is None:
            return
        kind = kind_of(candidate)
        if kind == "cluster":
            self.notify("reject the pairs of a cluster one by one", timeout=3)
            return
        a, b = (candidate.old, candidate.new) if kind == "contradiction" else (candidate.a, candidate.b)
        self.reject_pair(a, b)

    def action_quick_fix(self) -> None:
        finding = self.main.query_one(ProblemsView).selected_finding()
        if finding is None or finding.rule not in QUICK_FIX_VERBS:
            return
        path = finding.path if self.workspace and finding.path in self.workspace.snapshot.files else finding.subject
        verb, confirm = QUICK_FIX_VERBS[finding.rule]
        self.run_verb(verb, (path,), confirm=confirm)

    def action_edit_file(self) -> None:
        path = self._selected_file()
        workspace = self.workspace
        if path is None or workspace is None or self.root is None:
            return
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        command = [*shlex.split(editor), str(self.root / path)]
        before = {f.key for f in workspace.findings if f.severity == "error"}
        try:
            with self.suspend():
                code = subprocess.call(command)
        except SuspendNotSupported:
            code = subprocess.call(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        except OSError as exc:
            self.notify(f"could not start {editor!r}: {exc.strerror or exc}", severity="error")
            return
        if code != 0:
            self.notify(f"{editor} exited with status {code}", severity="warning", timeout=4)
        self._after_edit = (path, before)
        self.reload(keep=path)

    def _report_edit(self, workspace: Workspace) -> None:
        if self._after_edit is None:
            return
        path, before = self._after_edit
        self._after_edit = None
        new = [f for f in workspace.findings if f.severity == "error" and f.key not in before]
        if new:
            text = "\n".join(f"{f.rule}: {f.message}" for f in new[:5])
            self.notify(f"after editing {path}, {len(new)} new error(s):\n{text}", severity="error",
                        timeout=10)
        else:
            mine = [f for f in workspace.findings if f.path == path]
            self.notify(f"{path} re-read: no new errors"
                        + (f" ({len(mine)} warning(s) on it)" if mine else ""), timeout=4)


def _select(plan: writer.Plan) -> str | None:
    """Where the cursor should land after a change: the file it was about (or its successor)."""
    return plan.options.get("select") or (plan.paths[0] if plan.paths else None)


def run(args: argparse.Namespace) -> int:
    """Open the app for ``memtui [PATH] [--demo] [--read-only]``; the exit code for the shell."""
    from memtui.cli.common import UsageError
    from memtui.core.discover import discover
    from memtui.core.store import check_root

    if getattr(args, "demo", False):
        from memtui.core.demo import copy_demo

        try:
            roots = [copy_demo()]
        except RootError as exc:
            raise UsageError(str(exc)) from None
    else:
        path = getattr(args, "path", None)
        try:
            roots = discover(Path(path).expanduser() if path else None)
        except RootError as exc:
            if not path:
                raise UsageError(str(exc)) from None
            try:
                roots = [check_root(Path(path).expanduser())]  # no MEMORY.md: the empty states
            except RootError as missing:
                raise UsageError(str(missing)) from None
    app = MemtuiApp(roots, read_only=bool(getattr(args, "read_only", False)))
    result = app.run()
    return int(result or 0)
