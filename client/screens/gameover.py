"""Game over, the table shell's for every game: standings, chips won or lost against what each player brought,
a chart, and the rematch. A board opens it (or its subclass, with the game's own last words) when its game is over."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.screen import Screen
from textual.widgets import Footer, Static

from protocol import messages as m

from ..messages import SendRequest
from ..render import Display, chips
from .chat import CHAT_BINDING, TableChat
from ..widgets.basics import TooSmall, on_stack

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
    # The name column is as wide as the longest name (a name is never cut: 24 characters at most), "1. Ann".
    width = max([16, *(Content(row.get("name", "?")).cell_length for row in standings)])
    lines.append(Content.styled(f"{'':4}{'Player':<{width}}{'Chips':>9}{'Brought':>10}{'Won/lost':>10}", "dim"))
    for place, row in enumerate(standings, 1):
        diff = row.get("stack", 0) - row.get("brought", 0)
        diff_style = "bold #87d787" if diff > 0 else ("bold #ff5f5f" if diff < 0 else "")
        name = Content.styled(row.get("name", "?"), "bold" if row.get("seat") == me else "").pad_right(
            width - Content(row.get("name", "?")).cell_length)
        lines.append(Content.assemble(
            (f"{place:>2}. ", "bold #ffd75f" if place == 1 else ""), name, f"{chips(row.get('stack', 0)):>9}",
            f"{chips(row.get('brought', 0)):>10}", (f"{diff:>+10,}", diff_style),
        ))
    history = view.get("chip_history") or []
    if len(history) >= 2 and standings:
        lines += [Content(""), Content.styled("Chips through the game", "bold")]
        series = {row["seat"]: [h.get(str(row["seat"]), h.get(row["seat"], 0)) for h in history][-CHART_WIDTH:]
                  for row in standings}
        low = min(min(v) for v in series.values())
        high = max(max(v) for v in series.values())
        points = min(CHART_WIDTH, 72 - 4 - width - 2 - 9)  # what fits 80 columns beside the whole name
        for row in standings:
            values = series[row["seat"]][-points:]
            name = Content(row.get("name", "?"))
            lines.append(Content.assemble(
                "    ", name.pad_right(width - name.cell_length),
                (sparkline(values, low, high, display.ascii), "#5fd7ff"), f"  {chips(values[-1])}",
            ))
    return Content("\n").join(lines)


class GameOverScreen(TableChat, Screen[None]):
    """The standings, and the rematch: the host offers it, each player accepts or declines (``table.rematch``)."""

    BINDINGS = [
        Binding("enter", "lobby", "Back to the lobby", key_display="⏎", tooltip="back to the lobby"),
        Binding("r", "offer_rematch", "Rematch", tooltip="host: offer everyone a rematch, same seats, same settings"),
        Binding("y", "answer_rematch(True)", "Play again", tooltip="accept the rematch offered"),
        Binding("n", "answer_rematch(False)", "No rematch", tooltip="decline the rematch (it is off for everyone)"),
        CHAT_BINDING,
    ]

    def __init__(self, view: Mapping[str, Any]) -> None:
        super().__init__()
        self.view = dict(view)
        self.table: dict[str, Any] = {}  # the table's facts: who hosts, the rematch offered

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with VerticalScroll(id="gameover"):
            yield Static(self.standings(), id="standings", markup=False)
            yield Static(id="rematch", markup=False)
        yield Footer(compact=True)

    def standings(self) -> Content:
        return standings_content(self.view, getattr(self.app, "display_options", Display()))

    def on_mount(self) -> None:
        shell = getattr(self.app, "table_screen", None)
        self.table = dict(shell.table) if shell is not None else {}
        self._show_rematch()

    def table_changed(self, table: Mapping[str, Any]) -> None:
        """The table's facts changed (the table screen says so): show the rematch as it stands."""
        self.table = dict(table)
        if self.is_mounted:
            self._show_rematch()

    def _show_rematch(self) -> None:
        if not on_stack(self):  # closed: the table, or the app, is going
            return
        self.query_one("#rematch", Static).update(self._rematch_line())
        self.refresh_bindings()

    def _rematch_line(self) -> Content:
        offer, me = self.table.get("rematch"), self.table.get("seat")
        key = lambda k: Content.styled(k, "bold #ffd75f")  # noqa: E731
        if offer is None:
            if me is not None and me == self.table.get("host_seat"):
                return Content.assemble(key("r"), " offer a rematch: same seats, same settings")
            return Content("")
        shell = getattr(self.app, "table_screen", None)
        names = shell.names if shell is not None else {}
        waiting = ", ".join(names.get(seat, f"seat {seat + 1}") for seat in offer.get("waiting", []))
        line = [Content.styled("Rematch offered", "bold"), f": waiting for {waiting}" if waiting else ": starting",
                f" ({(offer.get('deadline_ms') or 0) // 1000} s)."]
        if me in offer.get("waiting", []):
            line += ["  ", key("y"), " play again, ", key("n"), " no"]
        elif me in offer.get("accepted", []):
            line += ["  ", key("n"), " call it off"]
        return Content.assemble(*line)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        offer, me = self.table.get("rematch"), self.table.get("seat")
        if action == "offer_rematch":
            return offer is None and me is not None and me == self.table.get("host_seat")
        if action == "answer_rematch":
            answers = (offer or {}).get("waiting", []) + ((offer or {}).get("accepted", []) if not parameters[0] else [])
            return me in answers
        return super().check_action(action, parameters)

    def action_lobby(self) -> None:
        self.post_message(SendRequest(m.Leave))

    def action_offer_rematch(self) -> None:
        self.post_message(SendRequest(m.OfferRematch))

    def action_answer_rematch(self, accept: bool) -> None:
        self.post_message(SendRequest(m.AnswerRematch, {"accept": accept}))
