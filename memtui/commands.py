"""One registry of user actions: it feeds the key bindings, the command palette, help and the README.

Every action the user can take by key is one :class:`Command`: its keys, a short label, one
sentence of help, *when it applies* (``why_not``: None, or the reason it does not apply where the
cursor is) and *what it runs*.  The footer shows the commands marked ``footer`` that apply
(``check_action`` on the app asks :meth:`Command.state`); the help screen, the palette and
``python -m memtui.commands`` (the README's key table) list them all.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property, partial
from typing import TYPE_CHECKING, Callable, Iterator

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider

from memtui.core import verbs
from memtui.core.bulk import bulk
from memtui.core.changeset import Changeset
from memtui.core.group_fix import cover_orphans, drop_broken_links, orphan_families
from memtui.core.model import Finding, MemoryFile, Snapshot
from memtui.core.quickfix import QUICK_FIXES, quick_fix_for
from memtui.services.scoring import Cluster, Contradiction, Pair, Proposal
from memtui.services.workspace import Workspace
from memtui.services.writer import Request

if TYPE_CHECKING:
    from memtui.app import MemtuiApp


class Situation:
    """What the commands look at: the screen, the folder and what is under the cursor."""

    def __init__(self, app: MemtuiApp) -> None:
        self.app = app

    @cached_property
    def on_main(self) -> bool:
        return self.app.on_main_screen

    @property
    def workspace(self) -> Workspace | None:
        return self.app.workspace

    @cached_property
    def view(self) -> str:
        return self.app.main.active_view_name

    @cached_property
    def path(self) -> str | None:
        return self.app.main.selected_path()

    @cached_property
    def file(self) -> MemoryFile | None:
        workspace = self.workspace
        return workspace.file(self.path) if workspace is not None else None

    @cached_property
    def finding(self) -> Finding | None:
        return self.app.main.selected_finding() if self.view == "problems" else None

    @cached_property
    def candidate(self) -> Proposal | None:
        """The proposal to review: the selected one, or a pair holding the selected file."""
        if self.view == "consolidate":
            return self.app.main.selected_candidate()
        scan = self.workspace.candidates if self.workspace is not None else None
        if scan is None or self.path is None:
            return None
        return next((p for p in scan.pairs if self.path in (p.a, p.b)), None)

    @property
    def changes_blocked(self) -> str | None:
        """Why nothing can be changed right now (None when changes are possible)."""
        if self.app.read_only:
            return "read-only: changes are disabled (--read-only)"
        if self.workspace is None or not self.workspace.complete:
            return "still reading the folder"
        return None

    @cached_property
    def marked(self) -> tuple[str, ...]:
        """The marked files (a file verb then applies to all of them as one change)."""
        return tuple(sorted(getattr(self.app, "marks", ())))

    @cached_property
    def direct(self) -> bool:
        """The selected file has an entry of its own in MEMORY.md."""
        workspace = self.workspace
        return workspace is not None and any(
            line.resolved == self.path for line in workspace.snapshot.index.entries)


WhyNot = Callable[[Situation], "str | None"]
Run = Callable[["MemtuiApp", Situation], None]


def _always(s: Situation) -> str | None:
    return None


@dataclass(frozen=True)
class Command:
    """One thing the user can do: keys, words, when it applies, what it runs."""

    name: str  # unique; the binding runs ``app.command('<name>')``
    keys: str  # Textual key names, comma-separated
    label: str
    help: str
    group: str
    run: Run
    why_not: WhyNot = _always
    writes: bool = False  # changes the folder: disabled by --read-only
    footer: bool = False
    anywhere: bool = False  # applies on every screen, not only the main one
    key_display: str | None = None

    @property
    def shown_keys(self) -> str:
        if self.key_display:
            return self.key_display
        return " / ".join(_pretty_key(key) for key in self.keys.split(","))

    def reason(self, s: Situation) -> str | None:
        """Why this command does not apply here, or None when it does."""
        if not self.anywhere and not s.on_main:
            return "not on this screen"
        if self.writes and (blocked := s.changes_blocked):
            return blocked
        return self.why_not(s)

    def state(self, s: Situation) -> bool | None:
        """For ``check_action``: True applies, None shown disabled (still reading), False hidden
        (read-only, or it does not apply to what is selected).  A key that does not apply still
        answers: the app says why (:meth:`memtui.actions.UserActions.on_key`)."""
        if self.reason(s) is None:
            return True
        if self.writes and s.app.read_only:
            return False
        if self.writes and s.on_main and s.changes_blocked:
            return None
        return False


def _pretty_key(key: str) -> str:
    names = {"question_mark": "?", "slash": "/", "shift+tab": "shift+tab", "tab": "tab",
             "f1": "F1", "escape": "esc", "enter": "enter"}
    if key in names:
        return names[key]
    if key.startswith("ctrl+"):
        return "^" + key[5:]
    return key


# ---------------------------------------------------------------- when the commands apply


def _needs_file(s: Situation) -> str | None:
    return None if s.file is not None else "select a memory file first"


def _not_archived(s: Situation) -> str | None:
    if s.file is None:
        return "select a memory file first"
    return "the file is archived; restore it first" if s.file.archived else None


def _decay_why_not(s: Situation) -> str | None:
    if s.file is None:
        return "select a memory file first"
    if not s.direct:
        return "it has no entry in MEMORY.md to drop"
    return "pinned files do not decay; unpin it first" if s.file.pinned else None


def _promote_why_not(s: Situation) -> str | None:
    if s.file is None or s.path is None:
        return "select a memory file first"
    if s.direct:
        return "it already has an entry in MEMORY.md"
    return "archived: restore it instead" if s.path.startswith("archive/") else None


def _restore_why_not(s: Situation) -> str | None:
    if s.file is None or s.path is None:
        return "select a memory file first"
    archived = s.path.startswith("archive/") or s.file.status == "archived"
    return None if archived else "the file is not archived"


def _merge_why_not(s: Situation) -> str | None:
    match s.candidate:
        case None:
            return ("select a candidate" if s.view == "consolidate"
                    else "no merge candidate for this file")
        case Contradiction():
            return "a contradiction is superseded (s), not merged"
    return None


def _quick_fix_why_not(s: Situation) -> str | None:
    if s.view != "problems":
        return "quick fixes apply to the findings of the Problems view"
    group = s.app.main.view("problems").selected_group()
    if group is not None:
        return None if group.fix else f"no group fix for {group.rule}; select one finding"
    finding = s.finding
    if finding is None or finding.rule not in QUICK_FIXES:
        return "no quick fix for this finding"
    return None


def _reject_why_not(s: Situation) -> str | None:
    if s.view != "consolidate" or s.candidate is None:
        return "select a candidate in the Consolidate view"
    return None


def _filter_why_not(s: Situation) -> str | None:
    return "the candidate list has no filter" if s.view == "consolidate" else None


def _promote_layer_why_not(s: Situation) -> str | None:
    if s.file is None or s.path is None:
        return "select a memory file first"
    if s.file.archived:
        return "the file is archived; restore it first"
    if len(s.app.roots) < 2:
        return "no other memory root was found to promote into"
    return None


def _or_marked(why_not: WhyNot) -> WhyNot:
    """With files marked a file verb applies to them (each one is checked when it is built)."""

    def check(s: Situation) -> str | None:
        return None if s.marked else why_not(s)

    return check


FILE_VIEWS = ("working", "files", "staleness")


def _mark_why_not(s: Situation) -> str | None:
    if s.view not in FILE_VIEWS:
        return "marks are made in the Working set, Files and Staleness views"
    return None if s.path is not None else "select a memory file first"


def _mark_shown_why_not(s: Situation) -> str | None:
    if s.view not in FILE_VIEWS:
        return "marks are made in the Working set, Files and Staleness views"
    return None if s.app.main.view().shown_paths() else "the list shows no files"


def _clear_marks_why_not(s: Situation) -> str | None:
    return None if s.marked else "nothing is marked (space marks a file, * every file shown)"


def _mark_seen_why_not(s: Situation) -> str | None:
    if s.view != "inbox":
        return "marking seen applies to the Inbox view (6)"
    return None if s.app.main.selected_change() is not None else "no change selected"


def _mark_all_seen_why_not(s: Situation) -> str | None:
    if s.view != "inbox":
        return "marking seen applies to the Inbox view (6)"
    inbox = s.app.inbox
    return None if inbox is not None and inbox.changes else "nothing changed since the last look"


def _run_mark_seen(app: MemtuiApp, s: Situation) -> None:
    change = app.main.selected_change()
    if change is not None:
        app.mark_seen((change.path,))


def _revert_why_not(s: Situation) -> str | None:
    if s.view != "inbox":
        return "reverting applies to a change in the Inbox view (6)"
    return None if s.app.main.selected_change() is not None else "no change selected"


def _run_revert(app: MemtuiApp, s: Situation) -> None:
    """Take the selected outside change back through the gate (confirm first; ``u`` undoes it)."""
    from functools import partial

    from memtui.core.review import revert
    from memtui.services.writer import Request

    change = app.main.selected_change()
    if change is not None:
        app.run_change(Request(partial(revert, path=change.path), confirm=True))


def _index_why_not(s: Situation) -> str | None:
    if s.workspace is None:
        return "still reading the folder"
    return None if s.workspace.has_index else "there is no MEMORY.md in this root"


def _sessions_why_not(s: Situation) -> str | None:
    return None if s.view == "consolidate" else "session files are counted in the Consolidate view"


def _switch_why_not(s: Situation) -> str | None:
    return None if len(s.app.roots) > 1 else "only one memory root was found"


# ---------------------------------------------------------------- what the commands run


def _bulk_build(snapshot: Snapshot, verb: str, paths: tuple[str, ...]) -> Changeset:
    """``verb`` on the marked files as one changeset; the files it does not apply to are left
    out (the description says how many)."""
    return bulk(snapshot, verb, paths, confirm=True, skip=True).changeset


def _on_marked(app: MemtuiApp, s: Situation, verb: str) -> None:
    """A file verb on every marked file: one change, always shown first (one confirm, one undo)."""
    app.run_change(Request(partial(_bulk_build, verb=verb, paths=s.marked), confirm=True,
                           select=s.marked[0], on_marks=True))


def _change(build: Callable[..., object], confirm: bool = False, verb: str = "") -> Run:
    """Run a core verb on the selected file (its one argument after the snapshot), or on the
    marked files."""

    def run(app: MemtuiApp, s: Situation) -> None:
        if s.marked and verb:
            _on_marked(app, s, verb)
        elif s.path is not None:
            app.run_change(Request(partial(build, path=s.path), confirm=confirm, select=s.path))

    return run


def _run_pin(app: MemtuiApp, s: Situation) -> None:
    workspace = s.workspace
    if s.marked and workspace is not None:
        files = [workspace.file(path) for path in s.marked]
        _on_marked(app, s, "unpin" if all(f is not None and f.pinned for f in files) else "pin")
    elif s.path is not None and s.file is not None:
        build = verbs.unpin if s.file.pinned else verbs.pin
        app.run_change(Request(partial(build, path=s.path), select=s.path))


def _run_archive(app: MemtuiApp, s: Situation) -> None:
    if s.marked:
        _on_marked(app, s, "archive")
    elif s.path is not None and s.file is not None:
        build = partial(verbs.archive, path=s.path, confirm=s.file.pinned)
        app.run_change(Request(build, confirm=True, select=s.path))


def _run_promote_layer(app: MemtuiApp, s: Situation) -> None:
    if s.path is not None:
        app.promote_to_layer(s.path)


def _run_supersede(app: MemtuiApp, s: Situation) -> None:
    if s.marked:
        app.pick_successor(s.marked[0], s.marked)
    elif s.path is not None:
        app.pick_successor(s.path)


def _run_merge(app: MemtuiApp, s: Situation) -> None:
    if s.candidate is not None:
        app.review(s.candidate)


def _group_fix(snapshot: Snapshot, rule: str, paths: tuple[str, ...],
               lines: tuple[tuple[str, int], ...]) -> Changeset:
    """The fix of every finding of a rule, as one changeset (orphans, broken links)."""
    if rule == "orphan":
        return cover_orphans(snapshot, orphan_families(snapshot, paths))
    return drop_broken_links(snapshot, lines)


def _run_quick_fix(app: MemtuiApp, s: Situation) -> None:
    view = app.main.view("problems")
    group = view.selected_group()
    if group is not None and group.fix:
        findings = view.group_findings(group.rule)
        paths = tuple(f.path for f in findings)
        lines = tuple((f.path, f.line) for f in findings if f.line)
        app.run_change(Request(partial(_group_fix, rule=group.rule, paths=paths, lines=lines),
                               confirm=True))
        return
    if s.finding is not None and s.workspace is not None:
        request = quick_fix_request(s.finding, s.workspace)
        if request is not None:
            app.run_change(request)


def quick_fix_request(finding: Finding, workspace: Workspace) -> Request | None:
    """The change that fixes a finding, as the core's quick-fix table says."""
    fix = quick_fix_for(finding, workspace.snapshot)
    if fix is None:
        return None
    return Request(fix.build, confirm=fix.confirm, select=fix.path)


def _run_reject(app: MemtuiApp, s: Situation) -> None:
    match s.candidate:
        case Cluster():
            app.notify("reject the pairs of a cluster one by one", timeout=3)
        case Contradiction(old=a, new=b) | Pair(a=a, b=b):
            app.reject_pair(a, b)


def _run_filter(app: MemtuiApp, s: Situation) -> None:
    if not app.main.view().open_filter():
        app.notify("this view has no filter", timeout=2)


def _run_reload(app: MemtuiApp, s: Situation) -> None:
    app.notify("reading the folder again from disk…", timeout=2)
    app.reload()


def _show(view: str) -> Run:
    def run(app: MemtuiApp, s: Situation) -> None:
        app.main.show_view(view)

    return run


CHANGE = "Change the memory"
MARKS = "Marks"
NAVIGATE = "Move around"
VIEWS = "Views"
APP = "App"

COMMANDS: tuple[Command, ...] = (
    Command("pin_entry", "p", "Pin / unpin",
            "Pin the selected file (a direct entry in the Pinned block, exempt from decay), "
            "or unpin it; applies at once, u undoes. With files marked: every one of them, "
            "as one change shown first.", CHANGE, _run_pin, _or_marked(_not_archived),
            writes=True, footer=True),
    Command("decay_entry", "d", "Decay",
            "Drop the entry from the working set; the file stays where it is and stays "
            "reachable (a region or the archive index); applies at once.", CHANGE,
            _change(verbs.decay, verb="decay"), _or_marked(_decay_why_not), writes=True,
            footer=True),
    Command("promote_entry", "P", "Promote",
            "Give the selected file an entry in the Recent block (the reverse of decay).",
            CHANGE, _change(verbs.promote, verb="promote"), _or_marked(_promote_why_not),
            writes=True),
    Command("promote_layer", "L", "Promote to layer",
            "Move the selected file into another memory root (machine-local → shared) with "
            "promoted_from:; both roots change as one, u undoes both; shows the change first.",
            CHANGE, _run_promote_layer, _promote_layer_why_not, writes=True),
    Command("archive_entry", "a", "Archive",
            "Move the file into archive/ with an archive-index entry; shows the change first.",
            CHANGE, _run_archive, _or_marked(_not_archived), writes=True, footer=True),
    Command("restore_entry", "r", "Restore",
            "Move an archived file back and give it a working-set entry.", CHANGE,
            _change(verbs.restore, confirm=True, verb="restore"), _or_marked(_restore_why_not),
            writes=True, footer=True),
    Command("merge_review", "m", "Merge review",
            "Review merging the selected candidate side by side, edit the gist, accept, skip "
            "or reject.", CHANGE, _run_merge, _merge_why_not, writes=True, footer=True),
    Command("supersede_entry", "s", "Supersede",
            "Mark the selected file obsolete and pick its successor; shows the change first.",
            CHANGE, _run_supersede, _or_marked(_not_archived), writes=True, footer=True),
    Command("rebuild_index", "R", "Rebuild index",
            "Edit MEMORY.md back within its contract: repairs, a prose dump made pointers, "
            "long lines and decay only past the fill target; shows the diff first.", CHANGE,
            lambda app, s: app.run_change(Request(verbs.rebuild, confirm=True)),
            writes=True, footer=True),
    Command("edit_file", "e", "Edit in $EDITOR",
            "Edit a copy of the selected file in $EDITOR; the result is written through the "
            "gate (undoable).", CHANGE, lambda app, s: app.edit_in_editor(s.path),
            _needs_file, writes=True, footer=True),
    Command("quick_fix", "f", "Quick fix",
            "Apply the obvious fix for the selected problem (e.g. an entry for an orphan); on a "
            "rule's heading, fix all its findings as one change (orphans, broken links).",
            CHANGE, _run_quick_fix, _quick_fix_why_not, writes=True, footer=True),
    Command("reject_candidate", "x", "Reject pair",
            "Never propose the selected pair again (remembered in .memtui/).", CHANGE,
            _run_reject, _reject_why_not, writes=True, footer=True),
    Command("unreject_pair", "X", "Take back a rejection",
            "Propose the pair rejected last (x) again; the rejection is forgotten.", CHANGE,
            lambda app, s: app.unreject_pair(),
            lambda s: None if getattr(s.app, "last_rejected", None) else
            "nothing was rejected in this session", writes=True),
    Command("undo_change", "u", "Undo", "Undo the newest change, through the same gate.",
            CHANGE, lambda app, s: app.run_change(Request.undo()), writes=True, footer=True),
    Command("redo_change", "U", "Redo", "Redo the change undone last.", CHANGE,
            lambda app, s: app.run_change(Request.redo()), writes=True),
    Command("toggle_mark", "space", "Mark / unmark",
            "Mark the selected file, or unmark it; pin, decay, promote, archive, restore and "
            "supersede then apply to every marked file as one change (one confirm, one undo).",
            MARKS, lambda app, s: app.toggle_mark(s.path) if s.path else None, _mark_why_not,
            key_display="space"),
    Command("mark_shown", "asterisk", "Mark all shown",
            "Mark every file the list shows now (after a filter: every match).", MARKS,
            lambda app, s: app.mark_shown(), _mark_shown_why_not, key_display="*"),
    Command("clear_marks", "escape", "Clear marks", "Unmark every file.", MARKS,
            lambda app, s: app.set_marks(frozenset()), _clear_marks_why_not, key_display="esc"),
    Command("filter_list", "slash", "Filter",
            "Filter the current list (fuzzy; the Staleness view also takes action:, class: "
            "and type:).", NAVIGATE, _run_filter, _filter_why_not, footer=True, key_display="/"),
    Command("next_pane", "tab", "Next pane", "Move to the next pane of the view.", NAVIGATE,
            lambda app, s: app.main.next_pane(1)),
    Command("previous_pane", "shift+tab", "Previous pane", "Move to the previous pane.",
            NAVIGATE, lambda app, s: app.main.next_pane(-1)),
    Command("show_working", "1", "Working set",
            "The working set: Pinned, Recent, Regions, the budget and a preview.", VIEWS,
            _show("working")),
    Command("show_problems", "2", "Problems",
            "The validator's findings; enter jumps to the file.", VIEWS, _show("problems")),
    Command("show_files", "3", "Files",
            "Every memory file, archived and region-covered ones too.", VIEWS, _show("files")),
    Command("show_staleness", "4", "Staleness",
            "Every file by staleness score, with the reasons.", VIEWS, _show("staleness")),
    Command("show_consolidate", "5", "Consolidate",
            "Near-duplicate pairs, clusters and contradictions.", VIEWS, _show("consolidate")),
    Command("show_index", "i", "Index text",
            "MEMORY.md as it is on disk, with line numbers, the loader's cut drawn and the lines "
            "the loader profile strips marked (c jumps to the cut; esc closes).", VIEWS,
            lambda app, s: app.show_index_text(), _index_why_not),
    Command("toggle_sessions", "S", "Include sessions",
            "Consolidate: include the session files (session_*, session-*) in the scan, or leave "
            "them out again (the default); the view says how many are left out.", VIEWS,
            lambda app, s: app.toggle_sessions(), _sessions_why_not),
    Command("scope_filter", "A", "Scope filter",
            "Type the path you work in: entries that do not apply there (another scope, stale, "
            "superseded, archived) dim with the reason beside; an empty path clears it.", VIEWS,
            lambda app, s: app.ask_scope()),
    Command("show_inbox", "6", "Inbox",
            "What changed outside memtui since the last look, newest first, with diffs and the "
            "findings each change brought.", VIEWS, _show("inbox")),
    Command("mark_seen", "n", "Mark seen",
            "Take the selected change of the Inbox as seen.", CHANGE, _run_mark_seen,
            _mark_seen_why_not, writes=True),
    Command("revert_change", "v", "Revert change",
            "Take the selected change of the Inbox back: the bytes last seen are written back "
            "through the gate (an added file moves to archive/), one change that u undoes.",
            CHANGE, _run_revert, _revert_why_not, writes=True),
    Command("mark_all_seen", "N", "Mark all seen",
            "Take every change of the Inbox as seen.", CHANGE,
            lambda app, s: app.mark_seen(None), _mark_all_seen_why_not, writes=True),
    Command("dream", "D", "Dream",
            "One maintenance pass as a checklist: history out of the index, repairs, declared "
            "supersessions, archive, merge, supersede, trims; the checked items are gated and "
            "applied as one change.", CHANGE,
            lambda app, s: app.open_dream(), footer=True),
    Command("switch_root", "o", "Switch root", "Open another of the memory roots found.", APP,
            lambda app, s: app.pick_root(), _switch_why_not, anywhere=True),
    Command("reload_root", "ctrl+r", "Reload", "Read the folder again from disk.", APP,
            _run_reload),
    Command("show_help", "question_mark,f1", "Help", "Every key, by what it does.", APP,
            lambda app, s: app.show_help(), footer=True, anywhere=True, key_display="? / F1"),
    Command("command_palette", "ctrl+p", "Commands", "Search every action by name.", APP,
            lambda app, s: app.action_command_palette(), footer=True, anywhere=True),
    Command("quit", "q", "Quit", "Leave memtui.", APP, lambda app, s: app.exit(), footer=True,
            anywhere=True),
)

BY_NAME: dict[str, Command] = {command.name: command for command in COMMANDS}
#: the command each key runs (Textual key names)
BY_KEY: dict[str, Command] = {key: command for command in COMMANDS for key in command.keys.split(",")}

#: keys handled by the lists themselves, listed in the help screen
NAVIGATION_KEYS: tuple[tuple[str, str, str], ...] = (
    ("j / ↓", "Down", "Move the cursor down."),
    ("k / ↑", "Up", "Move the cursor up."),
    ("g / Home", "First", "Go to the first row."),
    ("G / End", "Last", "Go to the last row."),
    ("PgUp / PgDn", "Page", "A page up or down."),
    ("enter", "Open", "Jump to the file of a problem, review a candidate, pick a root."),
    ("esc", "Back", "Clear the filter, leave the editor, close a dialog."),
    ("c", "Cut", "In the index text (i): jump to the loader's cut line."),
)


def bindings() -> list[Binding]:
    """A binding per command, each running ``app.command('<name>')``."""
    return [
        Binding(
            command.keys,
            f"app.command({command.name!r})",
            command.label,
            show=command.footer,
            key_display=(command.key_display
                         if command.key_display and "/" not in command.key_display else None),
        )
        for command in COMMANDS
    ]


def help_groups() -> Iterator[tuple[str, list[tuple[str, str, str]]]]:
    """(group, [(keys, label, help)]) in registry order, then the list keys."""
    groups: dict[str, list[tuple[str, str, str]]] = {}
    for command in COMMANDS:
        groups.setdefault(command.group, []).append((command.shown_keys, command.label, command.help))
    groups.setdefault(NAVIGATE, []).extend(NAVIGATION_KEYS)
    yield from groups.items()


def key_table_markdown() -> str:
    """The key table for the README, generated from the registry."""
    lines = ["| Key | Action | What it does |", "|---|---|---|"]
    for command in COMMANDS:
        keys = command.shown_keys.replace("|", "\\|")
        lines.append(f"| `{keys}` | {command.label} | {command.help} |")
    for keys, label, text in NAVIGATION_KEYS:
        lines.append(f"| `{keys}` | {label} | {text} |")
    return "\n".join(lines)


class MemtuiCommands(Provider):
    """The command palette: every registry command by name; one that does not apply here is
    listed with the reason (and choosing it says so instead of running)."""

    def _commands(self) -> list[tuple[Command, str | None]]:
        app: MemtuiApp = self.app  # type: ignore[assignment]
        return [(command, app.why_not(command)) for command in COMMANDS
                if command.name != "command_palette"]

    def _available(self) -> list[Command]:
        return [command for command, reason in self._commands() if reason is None]

    @staticmethod
    def _text(command: Command) -> str:
        return f"{command.label}  ({command.shown_keys})"

    @staticmethod
    def _help(command: Command, reason: str | None) -> str:
        return command.help if reason is None else f"not here: {reason}"

    async def discover(self) -> Hits:
        for command, reason in sorted(self._commands(), key=lambda item: item[1] is not None):
            yield DiscoveryHit(self._text(command), partial(self._run, command),
                               help=self._help(command, reason))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command, reason in self._commands():
            score = max(matcher.match(command.label), matcher.match(command.name.replace("_", " ")),
                        matcher.match(command.help) * 0.5)
            if score > 0:
                yield Hit(score * (1.0 if reason is None else 0.5),
                          matcher.highlight(self._text(command)), partial(self._run, command),
                          help=self._help(command, reason))

    def _run(self, command: Command) -> None:
        app: MemtuiApp = self.app  # type: ignore[assignment]
        app.run_command(command)


if __name__ == "__main__":  # ``python -m memtui.commands`` prints the README's key table
    print(key_table_markdown())
