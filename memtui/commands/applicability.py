"""When a command applies: what it looks at (:class:`Situation`) and the reasons it does not.

Each ``why_not`` takes the situation under the cursor of one screen and says why a command does
not apply there, or None when it does.  The registry (:mod:`memtui.commands.registry`) names one
for each command; the footer, a key, the palette and help all ask the same one.
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Callable, Protocol, runtime_checkable

from memtui.core.model.snapshot import Finding, MemoryFile
from memtui.core.verbs.quickfix import QUICK_FIXES
from memtui.services.scoring import Contradiction, Proposal, Supersession
from memtui.widgets.problems_view import ProblemsView

if TYPE_CHECKING:
    from textual.screen import Screen

    from memtui.services.workspace import Workspace

    from .host import CommandHost


class Situation:
    """What the commands look at: the screen, the folder and what is under the cursor.

    Made for one question (a key, a footer redraw, a palette search) on one screen: the
    screen under the palette, not the palette itself.
    """

    def __init__(self, host: CommandHost, screen: Screen[object]) -> None:
        self.host = host
        self.screen = screen

    @cached_property
    def on_main(self) -> bool:
        return self.host.is_main(self.screen)

    @property
    def workspace(self) -> Workspace | None:
        return self.host.workspace

    @cached_property
    def view(self) -> str:
        return self.host.main.active_view_name

    @cached_property
    def path(self) -> str | None:
        return self.host.main.selected_path()

    @cached_property
    def file(self) -> MemoryFile | None:
        workspace = self.workspace
        return workspace.file(self.path) if workspace is not None else None

    @cached_property
    def finding(self) -> Finding | None:
        return self.host.main.selected_finding() if self.view == "problems" else None

    @cached_property
    def candidate(self) -> Proposal | None:
        """The proposal to review: the selected one, or a pair holding the selected file."""
        if self.view == "consolidate":
            return self.host.main.selected_candidate()
        scan = self.workspace.candidates if self.workspace is not None else None
        if scan is None or self.path is None:
            return None
        return next((p for p in scan.pairs if self.path in (p.a, p.b)), None)

    @property
    def changes_blocked(self) -> str | None:
        """Why nothing can be changed right now (None when changes are possible)."""
        if self.host.read_only:
            return "read-only: changes are disabled (--read-only)"
        if self.workspace is None or not self.workspace.complete:
            return "still reading the folder"
        return None

    @cached_property
    def marked(self) -> tuple[str, ...]:
        """The marked files (a file verb then applies to all of them as one change)."""
        return tuple(sorted(self.host.marks))

    @cached_property
    def direct(self) -> bool:
        """The selected file has an entry of its own in MEMORY.md."""
        workspace = self.workspace
        return workspace is not None and any(
            line.resolved == self.path for line in workspace.snapshot.index.entries)


#: why a command does not apply in a situation (None: it applies)
WhyNot = Callable[[Situation], "str | None"]

#: the reason every command that is not ``anywhere`` gives off the main screen
NOT_ON_THIS_SCREEN = "not on this screen"


def always(s: Situation) -> str | None:
    return None


def needs_file(s: Situation) -> str | None:
    return None if s.file is not None else "select a memory file first"


def not_archived(s: Situation) -> str | None:
    if s.file is None:
        return "select a memory file first"
    return "the file is archived; restore it first" if s.file.archived else None


def supersede_why_not(s: Situation) -> str | None:
    """Not an archived file, nor one already superseded: its author's ``superseded_by`` says by
    what, and the Dream archives it as declared (said before a successor is picked)."""
    reason = not_archived(s)
    if reason is None and s.file is not None and (already := s.file.frontmatter.names("superseded_by")):
        return f"it is already superseded by {', '.join(already)}; the Dream (D) archives it as declared"
    return reason


def decay_why_not(s: Situation) -> str | None:
    if s.file is None:
        return "select a memory file first"
    if not s.direct:
        return "it has no entry in MEMORY.md to drop"
    return "pinned files do not decay; unpin it first" if s.file.pinned else None


def promote_why_not(s: Situation) -> str | None:
    if s.file is None or s.path is None:
        return "select a memory file first"
    if s.direct:
        return "it already has an entry in MEMORY.md"
    return "archived: restore it instead" if s.path.startswith("archive/") else None


def restore_why_not(s: Situation) -> str | None:
    if s.file is None or s.path is None:
        return "select a memory file first"
    archived = s.path.startswith("archive/") or s.file.status == "archived"
    return None if archived else "the file is not archived"


def merge_why_not(s: Situation) -> str | None:
    match s.candidate:
        case None:
            return ("select a candidate" if s.view == "consolidate"
                    else "no merge candidate for this file")
        case Contradiction():
            return "a contradiction is superseded (s), not merged"
        case Supersession():
            return "a successor is superseded (s), not merged"
    return None


def quick_fix_why_not(s: Situation) -> str | None:
    if s.view != "problems":
        return "quick fixes apply to the findings of the Problems view"
    group = s.host.main.query_one(ProblemsView).selected_group()
    if group is not None:
        return None if group.fix else f"no group fix for {group.rule}; select one finding"
    finding = s.finding
    if finding is None or finding.rule not in QUICK_FIXES:
        return "no quick fix for this finding"
    return None


def reject_why_not(s: Situation) -> str | None:
    if s.view != "consolidate" or s.candidate is None:
        return "select a candidate in the Consolidate view"
    return None


def filter_why_not(s: Situation) -> str | None:
    return "the candidate list has no filter" if s.view == "consolidate" else None


def promote_layer_why_not(s: Situation) -> str | None:
    if s.file is None or s.path is None:
        return "select a memory file first"
    if s.file.archived:
        return "the file is archived; restore it first"
    if len(s.host.roots) < 2:
        return "no other memory root was found to promote into"
    return None


def or_marked(why_not: WhyNot) -> WhyNot:
    """With files marked a file verb applies to them (each one is checked when it is built)."""

    def check(s: Situation) -> str | None:
        return None if s.marked else why_not(s)

    return check


FILE_VIEWS = ("working", "files", "staleness")


def mark_why_not(s: Situation) -> str | None:
    if s.view not in FILE_VIEWS:
        return "marks are made in the Working set, Files and Staleness views"
    return None if s.path is not None else "select a memory file first"


def mark_shown_why_not(s: Situation) -> str | None:
    if s.view not in FILE_VIEWS:
        return "marks are made in the Working set, Files and Staleness views"
    return None if s.host.main.view().shown_paths() else "the list shows no files"


def clear_marks_why_not(s: Situation) -> str | None:
    return None if s.marked else "nothing is marked (space marks a file, * every file shown)"


def mark_seen_why_not(s: Situation) -> str | None:
    if s.view != "inbox":
        return "marking seen applies to the Inbox view (6)"
    return None if s.host.main.selected_change() is not None else "no change selected"


def revert_why_not(s: Situation) -> str | None:
    if s.view != "inbox":
        return "reverting applies to a change in the Inbox view (6)"
    return None if s.host.main.selected_change() is not None else "no change selected"


def mark_all_seen_why_not(s: Situation) -> str | None:
    if s.view != "inbox":
        return "marking seen applies to the Inbox view (6)"
    inbox = s.host.inbox
    return None if inbox is not None and inbox.changes else "nothing changed since the last look"



def index_why_not(s: Situation) -> str | None:
    if s.workspace is None:
        return "still reading the folder"
    return None if s.workspace.has_index else "there is no MEMORY.md in this root"


def sessions_why_not(s: Situation) -> str | None:
    return None if s.view == "consolidate" else "logs of work are counted in the Consolidate view"


@runtime_checkable
class SortsRoots(Protocol):
    """A screen or view whose rows the sort keys order (the root picker; the Files and
    Staleness views)."""

    def cycle_sort(self) -> None: ...

    def reverse_sort(self) -> None: ...


def sorting(s: Situation) -> SortsRoots | None:
    """What the sort keys order here: the screen (the root picker), or the main screen's view."""
    if isinstance(s.screen, SortsRoots):
        return s.screen
    if s.on_main:
        view = s.host.main.view()
        if isinstance(view, SortsRoots):
            return view
    return None


def sorts_roots_why_not(s: Situation) -> str | None:
    return None if sorting(s) is not None else "only in the root picker (o), Files (3) and Staleness (4)"


def switch_why_not(s: Situation) -> str | None:
    return None if len(s.host.roots) > 1 else "only one memory root was found"


def journal_why_not(s: Situation) -> str | None:
    return None if s.workspace is not None else "no root is open"


def undo_why_not(s: Situation) -> str | None:
    workspace = s.workspace
    if workspace is not None and not workspace.history.undoable:
        return "nothing to undo: no change was made here yet, or every one was undone"
    return None


def redo_why_not(s: Situation) -> str | None:
    workspace = s.workspace
    if workspace is not None and not workspace.history.redoable:
        return "nothing to redo: only a change u took back can be redone"
    return None


def unreject_why_not(s: Situation) -> str | None:
    return None if s.host.last_rejected else "nothing was rejected in this session"
