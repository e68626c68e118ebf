"""The app's side of the commands: whether a key applies here, and the asks that need no worker.

:class:`UserActions` is the base of :class:`memtui.app.MemtuiApp`, kept apart so the app module
holds the workers and this one the decisions.  Every key runs ``app.command('<name>')``: the
registry (:mod:`memtui.commands`) says whether it applies and what it runs on the app, seen as
a :class:`~memtui.commands.CommandHost`.  Changes only ever ask for a plan
(:meth:`CommandHost.run_change`); the workers and the writer do the rest.
"""

from __future__ import annotations

import os
import subprocess
from functools import partial
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Mapping

from textual import events
from textual.app import App, SuspendNotSupported
from textual.screen import Screen
from textual.widgets import Input, TextArea

from memtui.commands import BY_KEY, BY_NAME, COMMANDS, Command, Situation, by_key
from memtui.core.judge.layers import layer_of, project_of
from memtui.core.model.snapshot import INDEX_NAME
from memtui.core.verbs.editor import EditedCopy, EditorFailed, edit_copy, editor_name
from memtui.core.verbs.lifecycle import compose, edit_file, supersede
from memtui.core.verbs.promote import promotion_parts
from memtui.screens.help import HelpScreen
from memtui.screens.index_text import IndexTextScreen
from memtui.screens.main import MainScreen
from memtui.screens.merge_review import MergeReviewScreen
from memtui.screens.pick_file import PickFileScreen
from memtui.screens.scope_prompt import ScopePromptScreen
from memtui.services.scoring import Contradiction, Proposal, Supersession
from memtui.services.workspace import Workspace
from memtui.services.writer import Request
from memtui.widgets.consolidate_view import ConsolidateView
from memtui.widgets.problems_view import ProblemsView
from memtui.widgets.row_list import RowList
from memtui.widgets.working_set_view import WorkingSetView

if TYPE_CHECKING:
    from memtui.commands import CommandHost
    from memtui.core.stores.seen import Inbox

#: the commands the footer may show; the footer is redrawn when their applicability changes
FOOTER_COMMANDS = tuple(command for command in COMMANDS if command.footer)


class UserActions(App[int]):
    """The registry's commands on the app: the hooks that decide, and the asks that need no worker."""

    #: the app as the commands see it (the app itself, checked against the protocol where set)
    host: CommandHost
    roots: list[Path]
    root: Path | None
    read_only: bool
    workspace: Workspace | None
    inbox: Inbox | None
    edit_copies: dict[str, EditedCopy]
    marks: frozenset[str] = frozenset()
    last_rejected: tuple[str, str] | None = None  # the pair rejected last (x), for X
    keymap: Mapping[str, str] = MappingProxyType({})  # the user's: command name → keys
    _keys: Mapping[str, Command] = BY_KEY  # the command each key runs, after the keymap
    _binding_state: tuple[bool | None, ...] = ()

    # ------------------------------------------------------------------ the registry's hooks

    @property
    def main(self) -> MainScreen:
        screen = self.get_screen("main")
        if not isinstance(screen, MainScreen):
            raise TypeError("the screen named 'main' is not the main screen")
        return screen

    @property
    def shown_main(self) -> MainScreen | None:
        """The main screen while its widgets are there to query, else None: installed but not
        yet pushed (or not yet mounted), and once the app has begun to close."""
        if not self.is_screen_installed("main"):
            return None
        screen = self.main
        return screen if screen.is_mounted and screen.is_attached else None

    def is_main(self, screen: Screen[object]) -> bool:
        return isinstance(screen, MainScreen)

    @property
    def on_main_screen(self) -> bool:
        return bool(self.screen_stack) and isinstance(self.screen, MainScreen)

    def apply_keymap(self, keymap: Mapping[str, str]) -> None:
        """Rebind commands by name (``{"pin_entry": "ctrl+t"}``): their bindings, the keys that
        say why a command does not apply, help and the palette follow."""
        self.keymap = MappingProxyType(dict(keymap))
        self._keys = by_key(keymap)
        self.set_keymap(dict(keymap))

    def situation(self, screen: Screen[object] | None = None) -> Situation:
        """What the commands look at on ``screen`` (default: the screen shown)."""
        return Situation(self.host, screen if screen is not None else self.screen)

    def command_state(self, command: Command) -> bool | None:
        """Whether a command applies here: True, None (shown disabled) or False (hidden)."""
        return command.state(self.situation())

    def why_not(self, command: Command, screen: Screen[object] | None = None) -> str | None:
        """Why a command does not apply on ``screen`` (default: here), or None when it does."""
        return command.reason(self.situation(screen))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "command" and parameters and str(parameters[0]) in BY_NAME:
            command = BY_NAME[str(parameters[0])]
            if command.priority and isinstance(self.focused, (Input, TextArea)):
                return False  # the input takes the key as a character (``/`` in a path)
            return self.command_state(command)
        return True

    def action_command(self, name: str) -> None:
        """Run a registry command by the name its binding gives."""
        self.run_command(BY_NAME[name])

    def run_command(self, command: Command, screen: Screen[object] | None = None) -> None:
        """Run a command as it applies on ``screen`` (default: the screen shown), or say in one
        line why it does not apply there."""
        situation = self.situation(screen)
        reason = command.reason(situation)
        if reason is None:
            command.run(self.host, situation)
        else:
            self.say_why_not(command, reason)

    def say_why_not(self, command: Command, reason: str) -> None:
        self.notify(f"{command.label}: {reason}", severity="warning", timeout=3)

    def on_key(self, event: events.Key) -> None:
        """A key whose command does not apply here answers with the reason.

        Key events reach the app after every widget had its turn (an input that takes the
        letter stops it), and before the app's bindings run; a command that applies is left to
        its binding.
        """
        if event.key == "escape" and self._clear_accepted_filter():
            event.stop()
            event.prevent_default()
            return
        command = self._keys.get(event.key)
        if command is None or not (self.on_main_screen or command.anywhere):
            return
        reason = self.why_not(command)
        if reason is None:
            return
        active = self.screen.active_bindings.get(event.key)
        if active is not None and active.enabled:
            return  # another binding takes the key here (the filter's esc, a dialog's keys)
        self.say_why_not(command, reason)

    def _clear_accepted_filter(self) -> bool:
        """esc on a list under a filter kept with enter: clear the filter (marks come first:
        with files marked, esc unmarks them and a second esc clears the filter)."""
        if self.marks or not isinstance(self.screen, MainScreen):
            return False
        filter_bar = self.main.view().filter_bar
        if filter_bar is None or not filter_bar.value or filter_bar.has_focus:
            return False
        filter_bar.action_clear_filter()
        self.notify("filter cleared", timeout=2)
        return True

    def selected_path(self) -> str | None:
        if not isinstance(self.screen, MainScreen):
            return None
        return self.main.selected_path()

    def _select_everywhere(self, path: str) -> None:
        """Keep the cursor on a file in the view that is showing (the others keep their own)."""
        self.main.view().select_path(path)

    def on_row_list_highlighted(self, message: RowList.Highlighted) -> None:
        self._refresh_binding_state()

    def _refresh_binding_state(self) -> None:
        """Redraw the footer only when one of its keys starts or stops applying (a redraw
        recomposes the footer, which costs more than moving the cursor; nothing to redraw once
        the last screen is gone, or while the app shuts down and removes the views)."""
        if not self.screen_stack or not self.is_running:
            return
        situation = self.situation()
        state = tuple(command.state(situation) for command in FOOTER_COMMANDS)
        if state != self._binding_state:
            self._binding_state = state
            self.refresh_bindings()

    # ------------------------------------------------------------------ marks

    def set_marks(self, marks: frozenset[str]) -> None:
        """Mark exactly these files: every list draws them, the status line counts them."""
        self.marks = marks
        if self.is_running and (main := self.shown_main) is not None:
            main.show_marks(marks)
            self._refresh_binding_state()

    def toggle_mark(self, path: str) -> None:
        self.set_marks(self.marks ^ {path})

    def mark_shown(self) -> None:
        """Mark every file the current view's list shows (the filter's result)."""
        shown = self.main.view().shown_paths()
        self.set_marks(self.marks | frozenset(shown))
        self.notify(f"{len(self.marks)} marked · a verb now applies to all of them · esc clears",
                    timeout=3)

    # ------------------------------------------------------------------ what commands ask for

    def show_help(self) -> None:
        self.push_screen(HelpScreen())

    def show_index_text(self) -> None:
        """MEMORY.md as it is on disk, with the loader's cut and the stripped lines drawn."""
        if self.workspace is not None:
            self.push_screen(IndexTextScreen(self.workspace))

    def pick_successor(self, path: str, marked: tuple[str, ...] = ()) -> None:
        """Ask which file supersedes ``path`` (or every marked file), then show that change."""
        workspace = self.workspace
        if workspace is None:
            return
        olds = marked or (path,)
        if marked:  # a marked file already superseded is left out, and said so, before the pick
            files = workspace.snapshot.files
            done = [p for p in marked if p in files and files[p].frontmatter.names("superseded_by")]
            olds = tuple(p for p in marked if p not in done)
            if done:
                self.notify(f"{len(done)} of the marked files {'is' if len(done) == 1 else 'are'} already "
                            "superseded (their superseded_by says by what) and left out"
                            + ("" if olds else "; nothing left to supersede"),
                            severity="warning", timeout=5)
            if not olds:
                return
            path = olds[0]

        def picked(successor: str | None) -> None:
            if successor:
                builders = [partial(supersede, old=old, new=successor, confirm=True)
                            for old in olds if old != successor]
                self.host.run_change(Request(partial(compose, builders=builders), confirm=True,
                                             select=olds[0], on_marks=bool(marked)))

        choices = [p for p, f in workspace.snapshot.files.items() if p not in olds and not f.archived]
        title = f"Supersede {path} by…" if len(olds) == 1 else f"Supersede the {len(olds)} marked files by…"
        scan = workspace.candidates
        proposed = next((c.new for c in scan.contradictions if c.old == path and c.ordered),
                        None) if scan is not None and not marked else None
        self.push_screen(PickFileScreen(title, choices, preselect=proposed), picked)

    def promote_to_layer(self, path: str) -> None:
        """Move a file into another root (another layer): the only other one, else the one picked."""
        here = os.path.realpath(self.root) if self.root is not None else ""
        others = {f"{layer_of(root)}: {root}": root for root in self.roots
                  if os.path.realpath(root) != here}

        def picked(choice: str | None) -> None:
            if choice in others:
                build = partial(promotion_parts, path=path, target_root=others[choice])
                self.host.run_change(Request(group=build, confirm=True, select=f"archive/{path}"))

        if len(others) == 1:
            picked(next(iter(others)))
        elif others:
            self.push_screen(PickFileScreen(f"Promote {path} into…", list(others), what="layer or folder"),
                             picked)

    def ask_scope(self) -> None:
        """Ask for the path the user works in, then dim what does not apply there."""
        current = self.main.scope_path
        if current is None and self.root is not None:
            project = project_of(self.root)
            current = str(project) if project is not None else os.getcwd()

        project = project_of(self.root) if self.root is not None else None
        base = str(project) if project is not None else os.getcwd()

        def answered(value: str | None) -> None:
            if value is None:
                return
            # a relative path is taken from the project the memory is about (else the cwd)
            path = os.path.normpath(os.path.join(base, os.path.expanduser(value))) if value else None
            scope = self.main.set_scope(path)
            if path is not None and not os.path.exists(path):  # a Scope: of another machine
                self.notify(f"scope: there is no {path} here (a relative path starts at {base}); "
                            "filtering as if you worked there", severity="warning", timeout=8)
                return
            if scope is None:
                self.notify("scope filter cleared: every entry shown", timeout=3)
            else:
                self.notify(f"{len(scope.applies)} apply at {scope.path}; "
                            f"{len(scope.excluded)} do not (dimmed, reason beside)", timeout=4)

        self.push_screen(ScopePromptScreen(current or ""), answered)

    def review(self, candidate: Proposal) -> None:
        """A contradiction's or a successor's supersede confirmation, or the merge review of a pair or cluster."""
        match candidate:
            case Contradiction(old=old, new=new, ordered=False):
                self._pick_current(old, new)
            case Contradiction(old=old, new=new) | Supersession(old=old, new=new):
                build = partial(supersede, old=old, new=new, confirm=True)
                self.host.run_change(Request(build, confirm=True, select=old))
            case _:
                if self.workspace is None:
                    return
                if self.read_only:
                    self.notify("read-only: changes are disabled (--read-only)", severity="warning")
                    return
                self.push_screen(MergeReviewScreen(self.workspace, candidate))

    def _pick_current(self, a: str, b: str) -> None:
        """A contradiction whose order is unknown: ask which file is current, supersede the other."""

        def picked(current: str | None) -> None:
            if current in (a, b):
                old = b if current == a else a
                build = partial(supersede, old=old, new=current, confirm=True)
                self.host.run_change(Request(build, confirm=True, select=old))

        self.push_screen(PickFileScreen("Order unknown — which one is current?", [a, b]), picked)

    def edit_in_editor(self, path: str | None) -> None:
        """Edit a private copy in $EDITOR, then write it back through the gate like any change.

        The edited bytes become an ``edit`` changeset (validated, journaled, undoable); the copy
        stays in its temp folder, so a refused edit is never lost.
        """
        workspace = self.workspace
        memory_file = workspace.file(path) if workspace is not None else None
        if memory_file is None or path is None:
            return
        if self.read_only:
            self.notify("read-only: changes are disabled (--read-only)", severity="warning")
            return
        try:
            edited = edit_copy(memory_file.name, memory_file.data, self._launch_editor,
                               origin=str(workspace.root / path) if workspace is not None else path)
        except EditorFailed as exc:
            self.notify(str(exc), severity="error")
            return
        if edited.status != 0:
            where = (f"your copy is at {edited.copy}" if edited.kept
                     else "nothing was typed, so no copy is kept")
            self.notify(f"{editor_name()} {edited.exit_text}; {where}", severity="warning",
                        timeout=6)
            return
        if not edited.changed:
            edited.discard()
            self.notify(f"{path} unchanged", timeout=2)
            return
        self.edit_copies[path] = edited  # removed once its bytes are in the folder (app.py)
        self.notify(f"checking your edit of {path} (your copy: {edited.copy})", timeout=4)
        self.host.run_change(Request(partial(edit_file, path=path, data=edited.data), select=path))

    def _launch_editor(self, command: list[str]) -> int:
        """Run the editor with the terminal handed over (or detached where it cannot be).

        Nothing may escape the ``suspend()`` block: Textual resumes the screen only when the
        block ends normally, so an editor that cannot be started (a missing program) is caught
        inside it and raised again once the app is back.
        """
        failure: OSError | None = None
        status = 0
        try:
            with self.suspend():
                try:
                    status = subprocess.call(command)
                except OSError as exc:
                    failure = exc
        except SuspendNotSupported:
            return subprocess.call(command, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        if failure is not None:
            raise failure
        return status

    # ------------------------------------------------------------------ messages from the views

    def on_problems_view_jump(self, message: ProblemsView.Jump) -> None:
        """Enter on a finding: show its file, or its line of the index."""
        finding = message.finding
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
        self.review(message.candidate)
