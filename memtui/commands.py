"""One registry of user actions: it feeds the key bindings, the command palette and the help screen.

The footer shows the actions marked ``footer`` that apply where the cursor is (``check_action``
hides the rest): pin, decay, undo, filter, help, the palette and quit everywhere; merge review
and reject on a candidate; quick fix on a problem that has one.

Every action the user can take by key is listed here once, with its keys, a short label, one
sentence of help and whether it changes the folder (``verb``: disabled by ``--read-only``).
The actions themselves live on the app (``action_<name>``); ``check_action`` there decides what
applies to the current selection.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import partial
from typing import TYPE_CHECKING, Iterator

from textual.binding import Binding
from textual.command import DiscoveryHit, Hit, Hits, Provider

if TYPE_CHECKING:
    from textual.app import App


@dataclass(frozen=True)
class UserAction:
    """One thing the user can do: its action, keys, words and whether it writes."""

    action: str  # the app's action, e.g. "pin_entry" or "show_view('files')"
    keys: str  # Textual key names, comma-separated
    label: str
    help: str
    group: str
    verb: bool = False
    footer: bool = False
    key_display: str | None = None

    @property
    def name(self) -> str:
        """The action name without parameters (what ``check_action`` receives)."""
        return self.action.split("(", 1)[0]

    @property
    def shown_keys(self) -> str:
        if self.key_display:
            return self.key_display
        return " / ".join(_pretty_key(key) for key in self.keys.split(","))


def _pretty_key(key: str) -> str:
    names = {"question_mark": "?", "slash": "/", "shift+tab": "shift+tab", "tab": "tab",
             "f1": "F1", "escape": "esc", "enter": "enter"}
    if key in names:
        return names[key]
    if key.startswith("ctrl+"):
        return "^" + key[5:]
    return key


CHANGE = "Change the memory"
NAVIGATE = "Move around"
VIEWS = "Views"
APP = "App"

ACTIONS: tuple[UserAction, ...] = (
    UserAction("pin_entry", "p", "Pin / unpin",
               "Pin the selected file (a direct entry in the Pinned block, exempt from decay), "
               "or unpin it; applies at once, u undoes.", CHANGE, verb=True, footer=True),
    UserAction("decay_entry", "d", "Decay",
               "Drop the entry from the working set; the file stays where it is and stays "
               "reachable (a region or the archive index); applies at once.", CHANGE, verb=True,
               footer=True),
    UserAction("promote_entry", "P", "Promote",
               "Give the selected file an entry in the Recent block (the reverse of decay).",
               CHANGE, verb=True),
    UserAction("archive_entry", "a", "Archive",
               "Move the file into archive/ with an archive-index entry; shows the change first.",
               CHANGE, verb=True),
    UserAction("restore_entry", "r", "Restore",
               "Move an archived file back and give it a working-set entry.", CHANGE, verb=True),
    UserAction("merge_review", "m", "Merge review",
               "Review merging the selected candidate side by side, edit the gist, accept, skip "
               "or reject.", CHANGE, verb=True, footer=True),
    UserAction("supersede_entry", "s", "Supersede",
               "Mark the selected file obsolete and pick its successor; shows the change first.",
               CHANGE, verb=True),
    UserAction("rebuild_index", "R", "Rebuild index",
               "Regenerate MEMORY.md from disk (Pinned, Recent to 80%, regions); shows the diff "
               "first.", CHANGE, verb=True),
    UserAction("edit_file", "e", "Edit in $EDITOR",
               "Edit a copy of the selected file in $EDITOR; the result is written through the gate (undoable).", CHANGE,
               verb=True),
    UserAction("quick_fix", "f", "Quick fix",
               "Apply the obvious fix for the selected problem (e.g. an entry for an orphan).",
               CHANGE, verb=True, footer=True),
    UserAction("reject_candidate", "x", "Reject pair",
               "Never propose the selected pair again (remembered in .memtui/).", CHANGE,
               verb=True, footer=True),
    UserAction("undo_change", "u", "Undo", "Undo the newest change, through the same gate.",
               CHANGE, verb=True, footer=True),
    UserAction("redo_change", "U", "Redo", "Redo the change undone last.", CHANGE, verb=True),
    UserAction("filter_list", "slash", "Filter",
               "Filter the current list (fuzzy; the Staleness view also takes action:, class: "
               "and type:).", NAVIGATE, footer=True, key_display="/"),
    UserAction("next_pane", "tab", "Next pane", "Move to the next pane of the view.", NAVIGATE),
    UserAction("previous_pane", "shift+tab", "Previous pane", "Move to the previous pane.",
               NAVIGATE),
    UserAction("show_view('working')", "1", "Working set",
               "The working set: Pinned, Recent, Regions, the budget and a preview.", VIEWS),
    UserAction("show_view('problems')", "2", "Problems",
               "The validator's findings; enter jumps to the file.", VIEWS),
    UserAction("show_view('files')", "3", "Files",
               "Every memory file, archived and region-covered ones too.", VIEWS),
    UserAction("show_view('staleness')", "4", "Staleness",
               "Every file by staleness score, with the reasons.", VIEWS),
    UserAction("show_view('consolidate')", "5", "Consolidate",
               "Near-duplicate pairs, clusters and contradictions.", VIEWS),
    UserAction("switch_root", "o", "Switch root", "Open another of the memory roots found.",
               APP),
    UserAction("reload_root", "ctrl+r", "Reload", "Read the folder again from disk.", APP),
    UserAction("show_help", "question_mark,f1", "Help", "Every key, by what it does.", APP,
               footer=True, key_display="? / F1"),
    UserAction("command_palette", "ctrl+p", "Commands", "Search every action by name.", APP,
               footer=True),
    UserAction("quit", "q", "Quit", "Leave memtui.", APP, footer=True),
)

#: keys handled by the lists themselves, listed in the help screen
NAVIGATION_KEYS: tuple[tuple[str, str, str], ...] = (
    ("j / ↓", "Down", "Move the cursor down."),
    ("k / ↑", "Up", "Move the cursor up."),
    ("g / Home", "First", "Go to the first row."),
    ("G / End", "Last", "Go to the last row."),
    ("PgUp / PgDn", "Page", "A page up or down."),
    ("enter", "Open", "Jump to the file of a problem, review a candidate, pick a root."),
    ("esc", "Back", "Clear the filter, leave the editor, close a dialog."),
)

def by_name(name: str) -> UserAction | None:
    return next((action for action in ACTIONS if action.name == name), None)


def bindings(namespace: str = "") -> list[Binding]:
    """Bindings for every action (``namespace`` like ``"app."`` when bound on a screen)."""
    out: list[Binding] = []
    for action in ACTIONS:
        target = action.action if action.name == "command_palette" else namespace + action.action
        out.append(
            Binding(
                action.keys,
                target,
                action.label,
                show=action.footer,
                key_display=action.key_display if action.key_display and "/" not in action.key_display else None,
            )
        )
    return out


def help_groups() -> Iterator[tuple[str, list[tuple[str, str, str]]]]:
    """(group, [(keys, label, help)]) in registry order, then the list keys."""
    groups: dict[str, list[tuple[str, str, str]]] = {}
    for action in ACTIONS:
        groups.setdefault(action.group, []).append((action.shown_keys, action.label, action.help))
    groups.setdefault(NAVIGATE, []).extend(NAVIGATION_KEYS)
    yield from groups.items()


def key_table_markdown() -> str:
    """The key table for the README, generated from the registry."""
    lines = ["| Key | Action | What it does |", "|---|---|---|"]
    for action in ACTIONS:
        keys = action.shown_keys.replace("|", "\\|")
        lines.append(f"| `{keys}` | {action.label} | {action.help} |")
    for keys, label, text in NAVIGATION_KEYS:
        lines.append(f"| `{keys}` | {label} | {text} |")
    return "\n".join(lines)


class MemtuiCommands(Provider):
    """The command palette: every registry action that applies right now, by name."""

    def _available(self) -> list[UserAction]:
        app: App[object] = self.app
        out = []
        for action in ACTIONS:
            if action.name in ("command_palette",):
                continue
            try:
                state = app.check_action(action.name, _params(action.action))
            except Exception:  # a check must never break the palette
                state = False
            if state:
                out.append(action)
        return out

    async def discover(self) -> Hits:
        for action in self._available():
            yield DiscoveryHit(
                f"{action.label}  ({action.shown_keys})",
                partial(self.app.run_action, action.action),
                help=action.help,
            )

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for action in self._available():
            text = f"{action.label}  ({action.shown_keys})"
            score = max(matcher.match(action.label), matcher.match(action.help) * 0.5)
            if score > 0:
                yield Hit(score, matcher.highlight(text), partial(self.app.run_action, action.action),
                          help=action.help)


def _params(action: str) -> tuple[object, ...]:
    if "(" not in action:
        return ()
    inner = action.split("(", 1)[1].rstrip(")")
    return tuple(part.strip().strip("'\"") for part in inner.split(",") if part.strip())


if __name__ == "__main__":  # ``python -m memtui.commands`` prints the README's key table
    print(key_table_markdown())
