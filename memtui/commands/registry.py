"""One registry of user actions: it feeds the key bindings, the command palette, help and the README.

Every action the user can take by key is one :class:`Command`: its keys, a short label, one
sentence of help, *when it applies* (``why_not``: None, or the reason it does not apply where the
cursor is, :mod:`memtui.commands.applicability`) and *what it runs* on the
:class:`~memtui.commands.host.CommandHost`.  The footer shows the commands marked ``footer`` that
apply (``check_action`` on the app asks :meth:`Command.state`); the help screen, the palette
(:mod:`memtui.commands.palette`) and ``python -m memtui.commands`` (the README's key table) list
them all.  Each binding's id is the command's name: ``"keymap"`` in the user's config rebinds it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Callable, Iterator, Mapping

from textual.binding import Binding, BindingType

from memtui.core.model.changeset import Changeset
from memtui.core.model.snapshot import Finding, Snapshot
from memtui.core.verbs import lifecycle as verbs
from memtui.core.verbs.bulk import bulk
from memtui.core.verbs.group_fix import cover_orphans, drop_broken_links, orphan_families
from memtui.core.verbs.quickfix import quick_fix_for
from memtui.services.scoring import Cluster, Contradiction, Pair, Supersession
from memtui.services.writer import Request
from memtui.widgets.problems_view import ProblemsView
from memtui.widgets.row_list import RowList

from . import applicability as why
from .applicability import NOT_ON_THIS_SCREEN, Situation, WhyNot

if TYPE_CHECKING:
    from memtui.services.workspace import Workspace

    from .host import CommandHost

#: what a command runs: on the host, in the situation it was asked in
Run = Callable[["CommandHost", Situation], None]


@dataclass(frozen=True)
class Command:
    """One thing the user can do: keys, words, when it applies, what it runs."""

    name: str  # unique; the binding's id, and it runs ``app.command('<name>')``
    keys: str  # Textual key names, comma-separated (the defaults; a keymap may replace them)
    label: str
    help: str
    group: str
    run: Run
    why_not: WhyNot = why.always
    writes: bool = False  # changes the folder: disabled by --read-only
    footer: bool = False
    anywhere: bool = False  # applies on every screen, not only the main one
    key_display: str | None = None
    #: runs when the app receives the key, before the keys behind it are handed on: a command
    #: that moves the focus into an input (the filter) then gets every key typed after it, even
    #: in one burst (a paste, a multiplexer); an input that has the focus still takes the key
    priority: bool = False

    @property
    def shown_keys(self) -> str:
        if self.key_display:
            return self.key_display
        return keys_shown(self.keys)

    def reason(self, s: Situation) -> str | None:
        """Why this command does not apply here, or None when it does."""
        if not self.anywhere and not s.on_main:
            return NOT_ON_THIS_SCREEN
        if self.writes and (blocked := s.changes_blocked):
            return blocked
        return self.why_not(s)

    def state(self, s: Situation) -> bool | None:
        """For ``check_action``: True applies, None shown disabled (still reading), False hidden
        (read-only, or it does not apply to what is selected).  A key that does not apply still
        answers: the app says why (:meth:`memtui.actions.UserActions.on_key`)."""
        if self.reason(s) is None:
            return True
        if self.writes and s.host.read_only:
            return False
        if self.writes and s.on_main and s.changes_blocked:
            return None
        return False


def keys_shown(keys: str) -> str:
    """Textual key names (comma-separated) as help shows them: ``? / F1``, ``^r``."""
    return " / ".join(_pretty_key(key) for key in keys.split(","))


def _pretty_key(key: str) -> str:
    names = {"question_mark": "?", "slash": "/", "asterisk": "*", "escape": "esc", "f1": "F1",
             "down": "↓", "up": "↑", "home": "Home", "end": "End", "pagedown": "PgDn",
             "pageup": "PgUp"}
    key = key.strip()
    if key in names:
        return names[key]
    if key.startswith("ctrl+"):
        return "^" + key[5:]
    return key


# ---------------------------------------------------------------- what the commands run


def _run_mark_seen(host: CommandHost, s: Situation) -> None:
    change = host.main.selected_change()
    if change is not None:
        host.mark_seen((change.path,))


def _run_revert(host: CommandHost, s: Situation) -> None:
    """Take the selected outside change back through the gate (confirm first; ``u`` undoes it)."""
    from memtui.core.verbs.review import revert

    change = host.main.selected_change()
    if change is not None:
        host.run_change(Request(partial(revert, path=change.path), confirm=True))


def _bulk_build(snapshot: Snapshot, verb: str, paths: tuple[str, ...]) -> Changeset:
    """``verb`` on the marked files as one changeset; the files it does not apply to are left
    out (the description says how many)."""
    return bulk(snapshot, verb, paths, confirm=True, skip=True).changeset


def _on_marked(host: CommandHost, s: Situation, verb: str) -> None:
    """A file verb on every marked file: one change, always shown first (one confirm, one undo)."""
    host.run_change(Request(partial(_bulk_build, verb=verb, paths=s.marked), confirm=True,
                            select=s.marked[0], on_marks=True))


def _change(build: Callable[..., Changeset], confirm: bool = False, verb: str = "") -> Run:
    """Run a core verb on the selected file (its one argument after the snapshot), or on the
    marked files."""

    def run(host: CommandHost, s: Situation) -> None:
        if s.marked and verb:
            _on_marked(host, s, verb)
        elif s.path is not None:
            host.run_change(Request(partial(build, path=s.path), confirm=confirm, select=s.path))

    return run


def _run_pin(host: CommandHost, s: Situation) -> None:
    workspace = s.workspace
    if s.marked and workspace is not None:
        files = [workspace.file(path) for path in s.marked]
        _on_marked(host, s, "unpin" if all(f is not None and f.pinned for f in files) else "pin")
    elif s.path is not None and s.file is not None:
        build = verbs.unpin if s.file.pinned else verbs.pin
        host.run_change(Request(partial(build, path=s.path), select=s.path))


def _run_archive(host: CommandHost, s: Situation) -> None:
    if s.marked:
        _on_marked(host, s, "archive")
    elif s.path is not None and s.file is not None:
        build = partial(verbs.archive, path=s.path, confirm=s.file.pinned)
        host.run_change(Request(build, confirm=True, select=s.path))


def _run_promote_layer(host: CommandHost, s: Situation) -> None:
    if s.path is not None:
        host.promote_to_layer(s.path)


def _run_supersede(host: CommandHost, s: Situation) -> None:
    if s.marked:
        host.pick_successor(s.marked[0], s.marked)
    elif s.path is not None:
        host.pick_successor(s.path)


def _run_merge(host: CommandHost, s: Situation) -> None:
    if s.candidate is not None:
        host.review(s.candidate)


def _group_fix(snapshot: Snapshot, rule: str, paths: tuple[str, ...],
               lines: tuple[tuple[str, int], ...]) -> Changeset:
    """The fix of every finding of a rule, as one changeset (orphans, broken links)."""
    if rule == "orphan":
        return cover_orphans(snapshot, orphan_families(snapshot, paths))
    return drop_broken_links(snapshot, lines)


def _run_quick_fix(host: CommandHost, s: Situation) -> None:
    view = host.main.query_one(ProblemsView)
    group = view.selected_group()
    if group is not None and group.fix:
        findings = view.group_findings(group.rule)
        paths = tuple(f.path for f in findings)
        lines = tuple((f.path, f.line) for f in findings if f.line)
        host.run_change(Request(partial(_group_fix, rule=group.rule, paths=paths, lines=lines),
                                confirm=True))
        return
    if s.finding is not None and s.workspace is not None:
        request = quick_fix_request(s.finding, s.workspace)
        if request is not None:
            host.run_change(request)


def quick_fix_request(finding: Finding, workspace: Workspace) -> Request | None:
    """The change that fixes a finding, as the core's quick-fix table says."""
    fix = quick_fix_for(finding, workspace.snapshot)
    if fix is None:
        return None
    return Request(fix.build, confirm=fix.confirm, select=fix.path)


def _run_reject(host: CommandHost, s: Situation) -> None:
    match s.candidate:
        case Cluster():
            host.notify("reject the pairs of a cluster one by one", timeout=3)
        case Contradiction(old=a, new=b) | Supersession(old=a, new=b) | Pair(a=a, b=b):
            host.reject_pair(a, b)


def _run_filter(host: CommandHost, s: Situation) -> None:
    if not host.main.view().open_filter():
        host.notify("this view has no filter", timeout=2)


def _run_reload(host: CommandHost, s: Situation) -> None:
    host.notify("reading the folder again from disk…", timeout=2)
    host.reload()


def _show(view: str) -> Run:
    def run(host: CommandHost, s: Situation) -> None:
        host.main.show_view(view)

    return run


def _sorts(s: Situation) -> why.SortsRoots:
    found = why.sorting(s)
    if found is None:
        raise TypeError("the sort keys apply only in the root picker, Files and Staleness")
    return found


CHANGE = "Change the memory"
MARKS = "Marks"
NAVIGATE = "Move around"
VIEWS = "Views"
APP = "App"

COMMANDS: tuple[Command, ...] = (
    Command("pin_entry", "p", "Pin / unpin",
            "Pin the selected file (a direct entry in the Pinned block, exempt from decay), "
            "or unpin it; applies at once, u undoes. With files marked: every one of them, "
            "as one change shown first.", CHANGE, _run_pin, why.or_marked(why.not_archived),
            writes=True, footer=True),
    Command("decay_entry", "d", "Decay",
            "Drop the entry from the working set; the file stays where it is and stays "
            "reachable (a region or the archive index); applies at once.", CHANGE,
            _change(verbs.decay, verb="decay"), why.or_marked(why.decay_why_not), writes=True,
            footer=True),
    Command("promote_entry", "P", "Promote",
            "Give the selected file an entry in the Recent block (the reverse of decay).",
            CHANGE, _change(verbs.promote, verb="promote"), why.or_marked(why.promote_why_not),
            writes=True),
    Command("promote_layer", "L", "Promote to layer",
            "Move the selected file into another memory root (machine-local → shared) with "
            "promoted_from:; both roots change as one, u undoes both; shows the change first.",
            CHANGE, _run_promote_layer, why.promote_layer_why_not, writes=True),
    Command("archive_entry", "a", "Archive",
            "Move the file into archive/ with an archive-index entry; shows the change first.",
            CHANGE, _run_archive, why.or_marked(why.not_archived), writes=True, footer=True),
    Command("restore_entry", "r", "Restore",
            "Move an archived file back and give it a working-set entry.", CHANGE,
            _change(verbs.restore, confirm=True, verb="restore"), why.or_marked(why.restore_why_not),
            writes=True, footer=True),
    Command("merge_review", "m", "Merge review",
            "Review merging the selected candidate side by side, edit the gist, accept, skip "
            "or reject.", CHANGE, _run_merge, why.merge_why_not, writes=True, footer=True),
    Command("supersede_entry", "s", "Supersede",
            "Mark the selected file obsolete and pick its successor; shows the change first.",
            CHANGE, _run_supersede, why.or_marked(why.supersede_why_not), writes=True, footer=True),
    Command("rebuild_index", "R", "Rebuild index",
            "Edit MEMORY.md back within its contract: repairs, a prose dump made pointers, "
            "long lines and decay only past the fill target; shows the diff first.", CHANGE,
            lambda host, s: host.run_change(Request(verbs.rebuild, confirm=True)),
            writes=True, footer=True),
    Command("edit_file", "e", "Edit in $EDITOR",
            "Edit a copy of the selected file in $EDITOR; the result is written through the "
            "gate (undoable).", CHANGE, lambda host, s: host.edit_in_editor(s.path),
            why.needs_file, writes=True, footer=True),
    Command("quick_fix", "f", "Quick fix",
            "Apply the obvious fix for the selected problem (e.g. an entry for an orphan); on a "
            "rule's heading, fix all its findings as one change (orphans, broken links).",
            CHANGE, _run_quick_fix, why.quick_fix_why_not, writes=True, footer=True),
    Command("reject_candidate", "x", "Reject pair",
            "Never propose the selected pair again (remembered in .memtui/).", CHANGE,
            _run_reject, why.reject_why_not, writes=True, footer=True),
    Command("unreject_pair", "X", "Take back a rejection",
            "Propose the pair rejected last (x) again; the rejection is forgotten.", CHANGE,
            lambda host, s: host.unreject_pair(),
            why.unreject_why_not, writes=True),
    Command("undo_change", "u", "Undo", "Undo the newest change, through the same gate.",
            CHANGE, lambda host, s: host.run_change(Request.undo()), why.undo_why_not, writes=True,
            footer=True),
    Command("redo_change", "U", "Redo", "Redo the change undone last.", CHANGE,
            lambda host, s: host.run_change(Request.redo()), why.redo_why_not, writes=True),
    Command("toggle_mark", "space", "Mark / unmark",
            "Mark the selected file, or unmark it; pin, decay, promote, archive, restore and "
            "supersede then apply to every marked file as one change (one confirm, one undo).",
            MARKS, lambda host, s: host.toggle_mark(s.path) if s.path else None, why.mark_why_not,
            key_display="space"),
    Command("mark_shown", "asterisk", "Mark all shown",
            "Mark every file the list shows now (after a filter: every match).", MARKS,
            lambda host, s: host.mark_shown(), why.mark_shown_why_not, key_display="*"),
    Command("clear_marks", "escape", "Clear marks", "Unmark every file.", MARKS,
            lambda host, s: host.set_marks(frozenset()), why.clear_marks_why_not, key_display="esc"),
    Command("filter_list", "slash", "Filter",
            "Filter the current list (fuzzy; the Staleness view also takes action:, class: "
            "and type:).", NAVIGATE, _run_filter, why.filter_why_not, footer=True, key_display="/",
            priority=True),
    Command("next_pane", "tab", "Next pane", "Move to the next pane of the view.", NAVIGATE,
            lambda host, s: host.main.next_pane(1)),
    Command("previous_pane", "shift+tab", "Previous pane", "Move to the previous pane.",
            NAVIGATE, lambda host, s: host.main.next_pane(-1)),
    Command("zoom_pane", "plus", "Zoom pane",
            "Give the focused pane the whole screen (the status line and the footer stay); + "
            "or esc gives the room back.", NAVIGATE, lambda host, s: host.main.toggle_zoom(),
            key_display="+"),
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
            lambda host, s: host.show_index_text(), why.index_why_not),
    Command("toggle_sessions", "S", "Include logs",
            "Consolidate: include the logs of work (session notes, hand-offs, status reports) in "
            "the scan, or leave them out again (the default); the view says how many are left out.", VIEWS,
            lambda host, s: host.toggle_sessions(), why.sessions_why_not),
    Command("scope_filter", "A", "Scope filter",
            "Type the path you work in: entries that do not apply there (another scope, stale, "
            "superseded, archived) dim with the reason beside; an empty path clears it.", VIEWS,
            lambda host, s: host.ask_scope()),
    Command("show_inbox", "6", "Inbox",
            "What changed outside memtui since the last look, newest first, with diffs and the "
            "findings each change brought.", VIEWS, _show("inbox")),
    Command("mark_seen", "n", "Mark seen",
            "Take the selected change of the Inbox as seen.", CHANGE, _run_mark_seen,
            why.mark_seen_why_not, writes=True, footer=True),
    Command("revert_change", "v", "Revert change",
            "Take the selected change of the Inbox back: the bytes last seen are written back "
            "through the gate (an added file moves to archive/), one change that u undoes.",
            CHANGE, _run_revert, why.revert_why_not, writes=True, footer=True),
    Command("mark_all_seen", "N", "Mark all seen",
            "Take every change of the Inbox as seen.", CHANGE,
            lambda host, s: host.mark_seen(None), why.mark_all_seen_why_not, writes=True),
    Command("dream", "D", "Dream",
            "One maintenance pass as a checklist: history out of the index, repairs, declared "
            "supersessions, archive, merge, supersede, trims; the checked items are gated and "
            "applied as one change.", CHANGE,
            lambda host, s: host.open_dream(), footer=True),
    Command("relearned_review", "M", "Same note, many projects",
            "Scan every root on this machine for a lesson re-learned in several projects; review "
            "each group (the copy kept, the user layer it goes to, the copies archived), check "
            "the ones to promote and apply them as one change across the roots (u undoes it).",
            CHANGE, lambda host, s: host.open_relearned(), writes=True),
    Command("show_journal", "J", "Journal", "The open root's changes, newest first: what each "
            "did, to which files, and which were undone since (memtui log); enter shows a "
            "change's first file.", APP, lambda host, s: host.open_journal(), why.journal_why_not),
    Command("switch_root", "o", "Switch root", "Open another of the memory roots found.", APP,
            lambda host, s: host.pick_root(), why.switch_why_not, anywhere=True),
    Command("sort_roots", "greater_than_sign", "Sort by next column",
            "Order the rows by the next column, marked ▲ in its header (after the last: the "
            "list's own order again): the root picker (the order found, root, layer, files, "
            "lines, chars, use, cut, errors, warnings, pressure peak, the agent's last change, "
            "the dream's count, attention, as memtui list --all --sort does), Files and Staleness.", APP,
            lambda host, s: _sorts(s).cycle_sort(), why.sorts_roots_why_not, anywhere=True,
            key_display=">"),
    Command("reverse_roots", "I", "Reverse the order",
            "Turn the rows' order round (highest first, or lowest): the root picker, Files and "
            "Staleness.", APP,
            lambda host, s: _sorts(s).reverse_sort(), why.sorts_roots_why_not, anywhere=True),
    Command("search_roots", "ctrl+f", "Search every root",
            "Ranked full-text search of every memory file of the roots memtui opened (ctrl+t: of "
            "every root on this machine): words, \"a phrase\", prefix*; each hit says whether it "
            "loads at session start; enter opens it in its own root.", APP,
            lambda host, s: host.open_search(), anywhere=True),
    Command("reload_root", "ctrl+r", "Reload", "Read the folder again from disk.", APP,
            _run_reload),
    Command("show_help", "question_mark,f1", "Help", "Every key, by what it does.", APP,
            lambda host, s: host.show_help(), footer=True, anywhere=True, key_display="? / F1"),
    Command("command_palette", "ctrl+p", "Commands", "Search every action by name.", APP,
            lambda host, s: host.action_command_palette(), footer=True, anywhere=True),
    Command("quit", "q", "Quit", "Leave memtui.", APP, lambda host, s: host.exit(), footer=True,
            anywhere=True),
)

BY_NAME: dict[str, Command] = {command.name: command for command in COMMANDS}

#: a user's keymap: command name (the binding id) → Textual key names, comma-separated
Keymap = Mapping[str, str]


def keys_of(command: Command, keymap: Keymap | None = None) -> str:
    """The keys that run a command: the keymap's, else the registry's."""
    return (keymap or {}).get(command.name) or command.keys


def shown_keys_of(command: Command, keymap: Keymap | None = None) -> str:
    """A command's keys as help and the palette show them, after the keymap."""
    if keymap and command.name in keymap:
        return keys_shown(keymap[command.name])
    return command.shown_keys


def by_key(keymap: Keymap | None = None) -> dict[str, Command]:
    """The command each key runs (Textual key names), after the keymap."""
    return {key.strip(): command for command in COMMANDS
            for key in keys_of(command, keymap).split(",")}


#: the command each default key runs
BY_KEY: dict[str, Command] = by_key()


def unknown_in_keymap(keymap: Keymap) -> tuple[str, ...]:
    """The names in a keymap that are no command of the registry."""
    return tuple(sorted(name for name in keymap if name not in BY_NAME))


def keymap_conflicts(keymap: Keymap) -> dict[str, tuple[str, ...]]:
    """Each key that runs more than one command after the keymap (the registry's own keys are
    each one command's), with those commands' names — which one a key press runs would be an
    accident of the registry's order."""
    runs: dict[str, list[str]] = {}
    for command in COMMANDS:
        for key in keys_of(command, keymap).split(","):
            runs.setdefault(key.strip(), []).append(command.name)
    return {key: tuple(names) for key, names in runs.items() if len(names) > 1}


def _binding_rows(bindings: list[Binding]) -> list[tuple[str, str, str]]:
    return [(keys_shown(b.key), b.description, b.tooltip) for b in bindings]


def _navigation_keys() -> tuple[tuple[str, str, str], ...]:
    """The keys the lists handle themselves, from their own bindings (and the index text's
    jump to the cut), then the one esc that backs out of everything."""
    from memtui.widgets.index_text import IndexText

    rows = [b for b in RowList.BINDINGS if isinstance(b, Binding)]
    cut = [b for b in IndexText.BINDINGS if isinstance(b, Binding) and b.action == "to_cut"]
    return (*_binding_rows(rows), *_binding_rows(cut),
            ("esc", "Back", "Clear the filter, leave the editor, close a dialog."))


#: keys handled by the lists themselves, listed in the help screen and the README
NAVIGATION_KEYS: tuple[tuple[str, str, str], ...] = _navigation_keys()


def bindings() -> list[BindingType]:
    """A binding per command, each running ``app.command('<name>')``; its id is the command's
    name (what a keymap names) and its tooltip the command's help."""
    return [
        Binding(
            command.keys,
            f"app.command({command.name!r})",
            command.label,
            show=command.footer,
            key_display=(command.key_display
                         if command.key_display and "/" not in command.key_display else None),
            id=command.name,
            tooltip=command.help,
            priority=command.priority,
        )
        for command in COMMANDS
    ]


def help_groups(keymap: Keymap | None = None) -> Iterator[tuple[str, list[tuple[str, str, str]]]]:
    """(group, [(keys, label, help)]) in registry order (keys after the keymap), then the
    list keys."""
    groups: dict[str, list[tuple[str, str, str]]] = {}
    for command in COMMANDS:
        groups.setdefault(command.group, []).append(
            (shown_keys_of(command, keymap), command.label, command.help))
    groups.setdefault(NAVIGATE, []).extend(NAVIGATION_KEYS)
    yield from groups.items()


def key_table_markdown() -> str:
    """The key table for the README, generated from the registry: the default keys, and the
    id a keymap rebinds."""
    lines = ["| Key | Action | Id | What it does |", "|---|---|---|---|"]
    for command in COMMANDS:
        keys = command.shown_keys.replace("|", "\\|")
        lines.append(f"| `{keys}` | {command.label} | `{command.name}` | {command.help} |")
    for keys, label, text in NAVIGATION_KEYS:
        lines.append(f"| `{keys}` | {label} | | {text} |")
    return "\n".join(lines)
