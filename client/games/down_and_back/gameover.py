"""Game over: standings, chips won or lost against what each player brought, and a chart."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static

from protocol import messages as m

from ...messages import SendRequest
from ...render import Display, chips
from ...widgets.basics import TooSmall

BLOCKS = "▁▂▃▄▅▆▇█"
ASCII_LEVELS = "_.-=+*#@"
CHART_WIDTH = 40


def sparkline(values: Sequence[int], low: int, high: int, ascii: bool = False) -> str:
    levels = ASCII_LEVELS if ascii else BLOCKS
    if high <= low:
        return levels[len(levels) // 2] * len(values)
    top = len(levels) - 1
    return "".join(levels[round((v - low) / (high - low) * top)] for v in values)


def standings_content(view: Mapping[str, Any], display: Display) -> Content:
    standings = view.get("standings") or []
    me = view.get("seat")
    lines = [Content.styled("Game over", "bold"), Content("")]
    if not standings:
        lines.append(Content.styled("No standings: the game ended before any round.", "dim"))
    lines.append(Content.styled(f"{'':3}{'Player':<16}{'Chips':>9}{'Brought':>10}{'Won/lost':>10}", "dim"))
    for place, row in enumerate(standings, 1):
        diff = row.get("stack", 0) - row.get("brought", 0)
        diff_style = "bold #87d787" if diff > 0 else ("bold #ff5f5f" if diff < 0 else "")
        name = Content.styled(row.get("name", "?"), "bold" if row.get("seat") == me else "").truncate(16, pad=True,
                                                                                                      ellipsis=True)
        lines.append(Content.assemble(
            (f"{place:>2}.", "bold #ffd75f" if place == 1 else ""), name, f"{chips(row.get('stack', 0)):>9}", f"{chips(row.get('brought', 0)):>10}",
            (f"{diff:>+10,}", diff_style),
        ))
    history = view.get("chip_history") or []
    if len(history) >= 2 and standings:
        lines += [Content(""), Content.styled("Chips through the game", "bold")]
        series = {row["seat"]: [h.get(str(row["seat"]), h.get(row["seat"], 0)) for h in history][-CHART_WIDTH:]
                  for row in standings}
        low = min(min(v) for v in series.values())
        high = max(max(v) for v in series.values())
        for row in standings:
            values = series[row["seat"]]
            name = Content(row.get("name", "?")).truncate(16, pad=True, ellipsis=True)
            lines.append(Content.assemble(
                "   ", name, (sparkline(values, low, high, display.ascii), "#5fd7ff"), f"  {chips(values[-1])}",
            ))
    return Content("\n").join(lines)


class GameOverScreen(Screen[None]):
    BINDINGS = [Binding("enter", "lobby", "Back to the lobby", key_display="⏎", tooltip="back to the lobby")]

    def __init__(self, view: Mapping[str, Any]) -> None:
        super().__init__()
        self.view = dict(view)

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with VerticalScroll(id="gameover"):
            yield Static(standings_content(self.view, getattr(self.app, "display_options", Display())),
                         id="standings", markup=False)
        yield Footer(compact=True)

    def action_lobby(self) -> None:
        self.post_message(SendRequest(m.Leave))
