"""The budget gauge: lines and bytes of ``MEMORY.md`` against the loader's caps, tokens, pressure."""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Sequence

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from memtui.widgets.theme import foreground_only
from memtui.core.budget import FILL_TARGET, PRESSURE_THRESHOLD, Budget

SPARKS = "▁▂▃▄▅▆▇█"


def state_of(utilization: float) -> tuple[str, str]:
    """(css role, word) for a utilisation: ok below 80%, full to 90%, pressure, over past 100%."""
    if utilization > 1.0:
        return "error", "OVER BUDGET"
    if utilization >= PRESSURE_THRESHOLD:
        return "warn", "PRESSURE"
    if utilization >= FILL_TARGET:
        return "ok", "full"
    return "ok", "ok"


def human_bytes(n: int) -> str:
    return f"{n:,}" if n < 10_000 else f"{n / 1000:.1f}k"


def sparkline(values: Sequence[float], width: int) -> str:
    """Block characters for the last ``width`` utilisations, from 80% (lowest) to 120% or the
    highest value (highest): samples are only taken at 90% and above, so that is the range."""
    values = list(values)[-width:]
    low = min([FILL_TARGET, *values])
    high = max([1.2, *values])
    steps = len(SPARKS) - 1
    return "".join(SPARKS[max(0, min(steps, round((v - low) / (high - low) * steps)))] for v in values)


class BudgetGauge(Widget):
    """Lines and bytes as bars with the 80% fill mark, estimated tokens and pressure history."""

    COMPONENT_CLASSES: ClassVar[set[str]] = {
        "budget-gauge--ok",
        "budget-gauge--warn",
        "budget-gauge--error",
        "budget-gauge--track",
        "budget-gauge--mark",
        "budget-gauge--label",
        "budget-gauge--muted",
    }

    DEFAULT_CSS = """
    BudgetGauge { height: auto; }
    """

    budget: reactive[Budget | None] = reactive(None, layout=True)
    pressure: reactive[tuple[Mapping[str, Any], ...]] = reactive((), layout=True)
    not_loaded: reactive[int] = reactive(0)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Budget"

    def show(self, budget: Budget, pressure: Sequence[Mapping[str, Any]], not_loaded: int) -> None:
        self.budget = budget
        self.pressure = tuple(pressure)
        self.not_loaded = not_loaded

    def watch_budget(self, budget: Budget | None) -> None:
        utilization = budget.utilization if budget is not None else 0.0
        self.set_class(utilization > 1.0, "-over-budget")
        self.set_class(PRESSURE_THRESHOLD <= utilization <= 1.0, "-pressure")
        if budget is not None:
            role, word = state_of(utilization)
            self.border_subtitle = f"{utilization:.0%} {word}"

    def _style(self, role: str) -> Style:
        return foreground_only(self.get_component_rich_style(f"budget-gauge--{role}"))

    def _bar(self, used: int, cap: int, width: int) -> Text:
        """A bar of ``width`` cells filled to used/cap, with the 80% mark and overflow in red."""
        role, _ = state_of(used / cap if cap else 0.0)
        fraction = used / cap if cap else 0.0
        filled = min(width, round(min(fraction, 1.0) * width))
        mark = min(width - 1, round(FILL_TARGET * width))
        bar = Text()
        for i in range(width):
            if i == mark:
                bar.append("┃" if i < filled else "│", style=self._style("mark"))
            elif i < filled:
                bar.append("█", style=self._style(role))
            else:
                bar.append("░", style=self._style("track"))
        return bar

    def _meter(self, label: str, used: int, cap: int, shown: str, width: int) -> Text:
        """``label  ████░░│░  used/cap  pct`` on one line."""
        role, _ = state_of(used / cap if cap else 0.0)
        value = f"{shown:>11} {used / cap:4.0%}" if cap else shown
        bar_width = max(8, width - 7 - len(value) - 1)
        line = Text.assemble((f"{label:<6} ", self._style("label")))
        line.append_text(self._bar(used, cap, bar_width))
        line.append(value[:-5] if cap else value)
        if cap:
            line.append(value[-5:], style=self._style(role))
        return line

    def render(self) -> Text:
        budget = self.budget
        width = max(24, self.content_region.width or self.size.width)
        if budget is None:
            return Text("reading MEMORY.md…", style=self._style("muted"))
        lines = [
            self._meter("lines", budget.lines, budget.max_lines,
                        f"{budget.lines}/{budget.max_lines}", width),
            self._meter("bytes", budget.bytes, budget.max_bytes,
                        f"{human_bytes(budget.bytes)}/{human_bytes(budget.max_bytes)}", width),
        ]
        role, word = state_of(budget.utilization)
        state = Text.assemble(("state  ", self._style("label")))
        glyph = {"error": "✖", "warn": "⚠"}.get(role, "✔")
        state.append(f"{glyph} {word}", style=self._style(role) + Style(bold=True))
        state.append(f" · {budget.utilization:.0%} of the cap", style=self._style("muted"))
        lines.append(state)
        tokens = Text.assemble(("tokens ", self._style("label")))
        tokens.append(f"≈ {budget.tokens:,}")
        tokens.append(" loaded each session", style=self._style("muted"))
        lines.append(tokens)
        if budget.cut_line is not None:
            cut = Text.assemble(("cut    ", self._style("label")))
            cut.append(f"✂ line {budget.cut_line}", style=self._style("error") + Style(bold=True))
            if self.not_loaded:
                plural = "ies" if self.not_loaded != 1 else "y"
                cut.append(f" · {self.not_loaded} entr{plural} not loaded")
            lines.append(cut)
        history = Text.assemble(("press. ", self._style("label")))
        values = [float(s.get("utilization", 0) or 0) for s in self.pressure]
        if values:
            spark_width = max(4, width - 7 - 14)
            history.append(sparkline(values, spark_width), style=self._style("warn"))
            days = len(values)
            history.append(f" {days} day{'s' if days != 1 else ''} ≥90%", style=self._style("muted"))
        else:
            history.append("no day at ≥90% recorded", style=self._style("muted"))
        lines.append(history)
        legend = Text.assemble(("       ", self._style("label")))
        legend.append("│", style=self._style("mark"))
        legend.append(f" marks {FILL_TARGET:.0%}, the working-set target", style=self._style("muted"))
        lines.append(legend)
        return Text("\n").join(lines)
