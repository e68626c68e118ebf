"""The budget gauge: lines and bytes of ``MEMORY.md`` against the loader's caps, tokens, pressure."""

from __future__ import annotations

from typing import Any, ClassVar, Mapping, Sequence

from rich.style import Style
from rich.text import Text
from textual.reactive import reactive
from textual.widget import Widget

from memtui.core.rules.budget import FILL_TARGET, PRESSURE_THRESHOLD, Budget
from memtui.widgets.theme import foreground_only

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

    # a new value repaints the gauge; :meth:`show` lays the screen out only when its height moves
    budget: reactive[Budget | None] = reactive(None)
    pressure: reactive[tuple[Mapping[str, Any], ...]] = reactive(())
    not_loaded: reactive[int] = reactive(0)
    #: one line, no border (a terminal under 120 columns, where the gauge sits above the preview)
    compact: reactive[bool] = reactive(False, layout=True)

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.border_title = "Budget"
        self._styles: dict[str, Style] = {}

    def show(self, budget: Budget, pressure: Sequence[Mapping[str, Any]], not_loaded: int) -> None:
        """Show these figures, drawing the gauge again only when what it shows changes, and
        laying the screen out again only when its height may change (a line comes or goes, or
        a line does not fit the width and wraps)."""
        pressure = tuple(pressure)
        width = self.content_region.width
        before = self._lines(self.budget, self.pressure, self.not_loaded, max(24, width))
        after = self._lines(budget, pressure, not_loaded, max(24, width))
        if width > 0 and after == before and _frame(budget) == _frame(self.budget):
            # the same text and border (a pin moved a few bytes): keep the figures, no repaint
            self.set_reactive(BudgetGauge.budget, budget)
            self.set_reactive(BudgetGauge.pressure, pressure)
            self.set_reactive(BudgetGauge.not_loaded, not_loaded)
            return
        self.budget = budget
        self.pressure = pressure
        self.not_loaded = not_loaded
        fits = width > 0 and all(line.cell_len <= width for line in (*before, *after))
        if not (fits and len(before) == len(after)):
            self.refresh(layout=True)

    def notify_style_update(self) -> None:
        super().notify_style_update()
        self._styles.clear()

    def watch_compact(self, compact: bool) -> None:
        self.set_class(compact, "-compact")

    def watch_budget(self, budget: Budget | None) -> None:
        subtitle, over, pressure = _frame(budget)
        self.set_class(over, "-over-budget")
        self.set_class(pressure, "-pressure")
        if subtitle is not None:
            self.border_subtitle = subtitle

    def _style(self, role: str) -> Style:
        style = self._styles.get(role)
        if style is None:
            style = self._styles[role] = foreground_only(
                self.get_component_rich_style(f"budget-gauge--{role}"))
        return style

    def _bar(self, used: int, cap: int, width: int) -> Text:
        """A bar of ``width`` cells filled to used/cap, with the 80% mark and overflow in red."""
        role, _ = state_of(used / cap if cap else 0.0)
        fraction = used / cap if cap else 0.0
        filled = min(width, round(min(fraction, 1.0) * width))
        mark = min(width - 1, round(FILL_TARGET * width))
        bar = Text()
        # in runs of one style (one span each, not one a cell: the bar is drawn on every change)
        for start, end in ((0, mark), (mark + 1, width)):
            bar.append("█" * max(0, min(filled, end) - start), style=self._style(role))
            bar.append("░" * (end - max(filled, start)) if filled < end else "",
                       style=self._style("track"))
            if end == mark:
                bar.append("┃" if mark < filled else "│", style=self._style("mark"))
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
        width = max(24, self.content_region.width or self.size.width)
        return Text("\n").join(self._lines(self.budget, self.pressure, self.not_loaded, width))

    def _lines(self, budget: Budget | None, pressure: Sequence[Mapping[str, Any]],
               not_loaded: int, width: int) -> list[Text]:
        """The gauge's lines for these figures at this width (before any wrapping)."""
        if budget is None:
            return [Text("reading MEMORY.md…", style=self._style("muted"))]
        if self.compact:
            return [self._one_line(budget, not_loaded, width)]
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
            if not_loaded:
                plural = "ies" if not_loaded != 1 else "y"
                cut.append(f" · {not_loaded} entr{plural} not loaded")
            lines.append(cut)
        history = Text.assemble(("peaks  ", self._style("label")))
        values = [float(s.get("utilization", 0) or 0) for s in pressure]
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
        return lines


    def _one_line(self, budget: Budget, not_loaded: int, width: int) -> Text:
        """``Budget ███░│ 54/200 lines · 21.9k/25.0k · 87% PRESSURE · ✂ line 180 · 4 not loaded``:
        the bar is the larger of the two utilisations, and comes only when there is room."""
        role, word = state_of(budget.utilization)
        line = Text.assemble(("Budget ", self._style("label") + Style(bold=True)))
        figures = Text.assemble(
            f"{budget.lines}/{budget.max_lines} lines · "
            f"{human_bytes(budget.bytes)}/{human_bytes(budget.max_bytes)} · ",
            (f"{budget.utilization:.0%} {word}", self._style(role) + Style(bold=True)))
        if budget.cut_line is not None:
            figures.append(f" · ✂ line {budget.cut_line}", style=self._style("error"))
            if not_loaded:
                figures.append(f" · {not_loaded} not loaded")
        room = width - line.cell_len - figures.cell_len - 1
        if room >= 8:
            used = round(budget.utilization * 1000)
            line.append_text(self._bar(used, 1000, min(room, 20)))
            line.append(" ")
        line.append_text(figures)
        return line


def _frame(budget: Budget | None) -> tuple[str | None, bool, bool]:
    """What a budget puts on the gauge's border: its subtitle, over budget, under pressure."""
    if budget is None:
        return None, False, False
    utilization = budget.utilization
    _, word = state_of(utilization)
    return (f"{utilization:.0%} {word}", utilization > 1.0,
            PRESSURE_THRESHOLD <= utilization <= 1.0)
