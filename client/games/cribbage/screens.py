"""Cribbage's overlays: the show item by item (a panel in place of the board's table, as Down and Back's
showdown), a game's end (with its skunks), the table's game over."""

from __future__ import annotations

from typing import Any, Mapping

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from ...render import chips
from ...screens.gameover import GameOverScreen
from ...widgets.basics import display_of
from ..board import Panel
from .widgets import show_rows

SKUNKS = {2: "skunked: pays double", 3: "double skunked: pays triple"}


def result_rows(result: Mapping[str, Any], sides: list[dict[str, Any]], names: Mapping[int, str]) -> list[Content]:
    """A game's end: who won, the scores by side, what each loser paid (and whether skunked)."""
    side_names = [" & ".join(names.get(s, "?") for s in side.get("seats", ())) for side in sides]
    winners = " & ".join(names.get(s, "?") for s in result.get("winners", ()))
    target = result.get("target")
    scores = [min(score, target) if target else score for score in result.get("scores") or []]  # the game hole
    at = f" at {target}" if target else ""
    rows = [Content.styled(f"{winners} won game {result.get('game', '?')}{at}", "bold #ffd75f")]
    rows.append(Content.styled(", ".join(f"{name} {score}" for name, score in zip(side_names, scores)), "bold"))
    for loss in result.get("losses") or ():
        multiplier = loss.get("multiplier", 1)
        skunk = SKUNKS.get(multiplier)
        rows.append(Content.assemble(Content.styled(names.get(loss.get("seat"), "?"), "bold"),
                                     f" pays {chips(loss.get('chips', 0))}",
                                     (f"  {skunk.upper()}" if skunk else "", "bold #ff5f5f")))
    for gain in result.get("gains") or ():
        rows.append(Content.assemble(Content.styled(names.get(gain.get("seat"), "?"), "bold"),
                                     (f" takes {chips(gain.get('chips', 0))}", "#87d787")))
    return rows


class ShowPanel(Panel):
    """The show of this deal, each count item by item as it is called at the table (until it is closed,
    our next decision comes or the next deal does)."""

    ROUND_RESULT = True

    BINDINGS = [Binding("enter", "close", "Close", key_display="⏎", tooltip="close the show"),
                Binding("escape", "close", "Close", show=False, tooltip="close the show"),
                Binding("space", "close", "Close", show=False, tooltip="close the show")]

    def __init__(self, show: list[dict[str, Any]], names: Mapping[int, str], result: list[Content]) -> None:
        super().__init__(id="show")
        self.counted = [dict(counted) for counted in show]
        self.names = dict(names)
        self.result = result

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self._rows(), id="show-body", markup=False)

    def _rows(self) -> Content:
        """The show, each item on a line of its own when that fits the panel, else flowing on; a hint to
        scroll when even that does not fit (never a count out of sight without a word)."""
        display = display_of(self)
        room = self.size.height if self.is_mounted and self.size.height else 17
        width = self.content_region.width if self.is_mounted and self.content_region.width else 76
        body: list[Content] = []
        for compact in (False, True):
            body = show_rows(self.counted, self.names, display, compact=compact, width=width)
            if self.result:
                body += [Content(""), *self.result]
            if len(body) + 1 <= room:
                break
        more = len(body) + 1 > room
        hint = ("   more below: down or PgDn" if display.ascii else "   more below: ↓ or PgDn") if more else ""
        title = Content.assemble(("The show", "bold"), (hint, "bold #ffd75f"))
        return Content("\n").join([title, *body])

    def on_resize(self) -> None:
        self._refresh_rows()

    def _refresh_rows(self) -> None:
        if self.is_mounted:
            self.query_one("#show-body", Static).update(self._rows())

    def update(self, show: list[dict[str, Any]], result: list[Content]) -> None:
        """Counts come one event at a time; the panel grows as they do."""
        counted = [dict(counted) for counted in show]
        if (counted, result) == (self.counted, self.result):
            return  # nothing new: no repaint
        self.counted, self.result = counted, result
        self._refresh_rows()

    def action_close(self) -> None:
        self.dismiss(None)


class CribbageOverScreen(GameOverScreen):
    """The table is over: the last game's end (its skunks), then the standings and the chips chart."""

    def __init__(self, view: Mapping[str, Any], names: Mapping[int, str]) -> None:
        super().__init__(view)
        self.names = dict(names)

    def standings(self) -> Content:
        rows = []
        if self.view.get("result"):
            rows = [*result_rows(self.view["result"], self.view.get("sides") or [], self.names), Content("")]
        return Content("\n").join([*rows, super().standings()])
