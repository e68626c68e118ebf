"""The command palette (ctrl+p): every registry command by name, with its applicability.

The palette is a screen of its own; what a command applies to is the screen under it
(:attr:`Provider.screen`).  A command that applies there is listed with its help; one that does
not, with the registry's reason, below those that do, and choosing it says the reason instead
of running it.
"""

from __future__ import annotations

from functools import partial

from textual.command import DiscoveryHit, Hit, Hits, Provider

from .applicability import Situation
from .host import CommandHost
from .registry import COMMANDS, Command, shown_keys_of

#: the palette lists every command but the one that opens it
LISTED: tuple[Command, ...] = tuple(c for c in COMMANDS if c.name != "command_palette")

class MemtuiCommands(Provider):
    """Every registry command, as it applies on the screen under the palette."""

    def _host(self) -> CommandHost | None:
        app = self.app
        return app if isinstance(app, CommandHost) else None

    def applicability(self) -> list[tuple[Command, str | None]]:
        """Each listed command and why it does not apply under the palette (None: it does)."""
        host = self._host()
        if host is None:
            return []
        situation = Situation(host, self.screen)
        return [(command, command.reason(situation)) for command in LISTED]

    def _text(self, command: Command) -> str:
        host = self._host()
        keymap = host.keymap if host is not None else None
        return f"{command.label}  ({shown_keys_of(command, keymap)})"

    @staticmethod
    def _help(command: Command, reason: str | None) -> str:
        return command.help if reason is None else f"not here: {reason}"

    async def discover(self) -> Hits:
        for command, reason in sorted(self.applicability(), key=lambda item: item[1] is not None):
            yield DiscoveryHit(self._text(command), partial(self._choose, command),
                               help=self._help(command, reason))

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for command, reason in self.applicability():
            score = max(matcher.match(command.label), matcher.match(command.name.replace("_", " ")),
                        matcher.match(command.help) * 0.5)
            if score > 0:
                yield Hit(score * (1.0 if reason is None else 0.5),
                          matcher.highlight(self._text(command)), partial(self._choose, command),
                          help=self._help(command, reason))

    def _choose(self, command: Command) -> None:
        """Run the chosen command as it applies on the screen the palette was opened over."""
        host = self._host()
        if host is not None:
            host.run_command(command, self.screen)
