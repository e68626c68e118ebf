"""What the user's keys do: applicability (``check_action``) and every ``action_*`` of the registry.

A mixin of :class:`memtui.app.MemtuiApp`, kept apart so the app module holds the workers and this
one the decisions.  Actions that change the folder only ever ask for a plan
(:meth:`run_verb`); the workers and the writer do the rest.
"""

from __future__ import annotations

import os
import shlex
import subprocess
import tempfile
from pathlib import Path
from typing import TYPE_CHECKING, Any

from textual.app import SuspendNotSupported

from memtui.commands import ACTIONS, by_name
from memtui.core.model import INDEX_NAME, Finding
from memtui.screens.help import HelpScreen
from memtui.screens.main import MainScreen
from memtui.screens.root_picker import RootPickerScreen
from memtui.services import writer
from memtui.services.workspace import Workspace
from memtui.widgets.consolidate_view import ConsolidateView, kind_of
from memtui.widgets.problems_view import QUICK_FIXES, ProblemsView
from memtui.widgets.row_list import RowList
from memtui.widgets.working_set_view import WorkingSetView

if TYPE_CHECKING:
    from textual.app import App
    from textual.worker import Worker

    _Base = App[int]
else:
    _Base = object

#: what ``f`` does for each quick-fixable rule: (verb, whether it asks first)
QUICK_FIX_VERBS = {
    "orphan": ("promote", False),
    "pinned-not-indexed": ("pin", False),
    "archived-in-index": ("decay", False),
    "superseded-active": ("decay", False),
    "broken-link": ("drop-line", True),
    "region-empty": ("drop-line", True),
}


#: the actions the footer may show; the footer is redrawn when their applicability changes
FOOTER_ACTIONS = tuple(action.name for action in ACTIONS if action.footer)


class UserActions(_Base):
    """The registry's actions on the app, and which of them apply where the cursor is."""

    # provided by MemtuiApp
    roots: list[Path]
    root: Path | None
    read_only: bool
    workspace: Workspace | None
    _binding_state: tuple[object, ...]

    if TYPE_CHECKING:

        @property
        def main(self) -> MainScreen: ...

        def reload(self, keep: str | None = None) -> None: ...

        def _picked(self, root: Path | None) -> None: ...

        def _plan_worker(self, verb: str, paths: tuple[str, ...], confirm: bool,
                         options: dict[str, Any]) -> Worker[None]: ...

        def _apply_worker(self, plan: writer.Plan) -> Worker[None]: ...

        def _reject_worker(self, root: Path, a: str, b: str) -> Worker[None]: ...

    # ------------------------------------------------------------------ selection and bindings

    def _select_everywhere(self, path: str) -> None:
        """Keep the cursor on a file in the view that is showing (the others keep their own)."""
        self.main.view().select_path(path)

    def selected_path(self) -> str | None:
        if not isinstance(self.screen, MainScreen):
            return None
        return self.main.selected_path()

    def on_row_list_highlighted(self, message: RowList.Highlighted) -> None:
        self._refresh_binding_state()

    def _refresh_binding_state(self) -> None:
        """Redraw the footer only when one of its keys starts or stops applying (a redraw
        recomposes the footer, which costs more than moving the cursor)."""
        state = tuple(self.check_action(name, ()) for name in FOOTER_ACTIONS)
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

    def on_problems_view_jump(self, message: ProblemsView.Jump) -> None:
        """Enter on a finding: show its file, or its line of the index."""
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

    def on_consolidate_view_review(self, message: ConsolidateView.Review) -> None:
        """Enter on a candidate: the merge review, or the supersede confirmation."""
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
        verb, confirm = QUICK_FIX_VERBS[finding.rule]
        if verb == "drop-line":
            if finding.line is None:
                return
            self.run_verb(verb, (), confirm=confirm, index=finding.path, line=finding.line)
            return
        files = self.workspace.snapshot.files if self.workspace else {}
        path = finding.path if finding.path in files else finding.subject
        self.run_verb(verb, (path,), confirm=confirm)

    def action_edit_file(self) -> None:
        """Edit a private copy in $EDITOR, then write it back through the gate like any change.

        The file in the root is never opened by the editor: the edited bytes become an ``edit``
        changeset (validated, journaled, undoable).  The copy stays in a temp folder, so a
        refused edit is never lost.
        """
        path = self._selected_file()
        workspace = self.workspace
        if path is None or workspace is None or self.root is None:
            return
        memory_file = workspace.snapshot.files.get(path)
        if memory_file is None:
            return
        if self.read_only:
            self.notify("read-only: changes are disabled (--read-only)", severity="warning")
            return
        folder = Path(tempfile.mkdtemp(prefix="memtui-edit-"))
        copy = folder / memory_file.name
        copy.write_bytes(memory_file.data)
        os.chmod(copy, 0o600)
        editor = os.environ.get("VISUAL") or os.environ.get("EDITOR") or "vi"
        command = [*shlex.split(editor), str(copy)]
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
            self.notify(f"{editor} exited with status {code}; your copy is at {copy}",
                        severity="warning", timeout=6)
            return
        edited = copy.read_bytes()
        if edited == memory_file.data:
            self.notify(f"{path} unchanged", timeout=2)
            return
        self.notify(f"checking your edit of {path} (your copy: {copy})", timeout=4)
        self.run_verb("edit", (path,), confirm=False, data=edited)
