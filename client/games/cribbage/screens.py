"""Cribbage's overlays: the show item by item (a panel in place of the board's table, as Down and Back's
showdown), a game's end (with its skunks), the table's game over."""

from __future__ import annotations

from typing import Any, Mapping

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.widgets import Static

from engine.contract import about

from ...render import Display, chips, render_parts
from ...screens.gameover import GameOverScreen
from ...widgets.basics import display_of
from ..board import Panel
from .widgets import show_rows

SKUNKS = {2: "skunked: pays double", 3: "double skunked: pays triple"}


def result_rows(result: Mapping[str, Any], sides: list[dict[str, Any]], names: Mapping[int, str],
                me: int | None = None, display: Display | None = None) -> list[Content]:
    """A game's end: who won, the scores by side, what each loser paid (and whether skunked); built as the
    engine's events are worded (:func:`~client.render.render_parts`), so our seat ``me`` is in the second
    person ("You won", "You pay 100", "you take 100")."""
    display = display or Display()

    def said(parts: list[Any]) -> Content:
        return render_parts(parts, names, display, me)

    side_names = [" & ".join(names.get(s, "?") for s in side.get("seats", ())) for side in sides]
    won_by = sorted(result.get("winners", ()), key=lambda seat: seat != me)  # "You & Cleo won"
    winners = [part for i, seat in enumerate(won_by) for part in ([{"text": " & "}] if i else []) + [{"seat": seat}]]
    target = result.get("target")
    scores = [min(score, target) if target else score for score in result.get("scores") or []]  # the game hole
    at = f" at {target}" if target else ""
    rows = [Content.styled(said([*winners, {"text": f" won game {result.get('game', '?')}{at}"}]).plain,
                           "bold #ffd75f")]
    rows.append(Content.styled(", ".join(f"{name} {score}" for name, score in zip(side_names, scores)), "bold"))
    for loss in result.get("losses") or ():
        skunk = SKUNKS.get(loss.get("multiplier", 1))
        seat = loss.get("seat")
        rows.append(Content.assemble(said([{"seat": seat}, *about(seat, f" {{pays}} {chips(loss.get('chips', 0))}")]),
                                     (f"  {skunk.upper()}" if skunk else "", "bold #ff5f5f")))
    for gain in result.get("gains") or ():
        seat = gain.get("seat")
        taken = said([{"seat": seat}])
        rows.append(Content.assemble(taken, said(about(seat, f" {{takes}} {chips(gain.get('chips', 0))}"))
                                     .stylize("#87d787")))
    return rows


class ShowPanel(Panel):
    """The show of this deal, each count item by item as it is called at the table (until it is closed,
    our next decision comes or the next deal does)."""

    ROUND_RESULT = True

    BINDINGS = [Binding("enter", "close", "Close", key_display="⏎", tooltip="close the show"),
                Binding("escape", "close", "Close", show=False, tooltip="close the show"),
                Binding("space", "close", "Close", show=False, tooltip="close the show")]

    def __init__(self, show: list[dict[str, Any]], names: Mapping[int, str], result: list[Content],
                 me: int | None = None) -> None:
        super().__init__(id="show")
        self.counted = [dict(counted) for counted in show]
        self.names = dict(names)
        self.me = me  # our seat: its counts are "Your hand"
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
            body = show_rows(self.counted, self.names, display, compact=compact, width=width, me=self.me)
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


class GameEndPanel(Panel):
    """A game's end at a table that plays on: who won and the score, the skunk, the chips paid and where
    everyone stands, then the choice (play on to the next game, dealt after the pause; leave; the host may
    end the table). It stays until closed or until our first decision of the next game."""

    BINDINGS = [Binding("enter", "close", "Play on", key_display="⏎", tooltip="play on: the next game is dealt"),
                Binding("escape", "close", "Play on", show=False, tooltip="play on: the next game is dealt"),
                Binding("space", "close", "Play on", show=False, tooltip="play on: the next game is dealt"),
                Binding("v", "last_show", "The show", tooltip="the last deal's show"),
                Binding("l", "leave", "Leave", tooltip="leave the table (asks first)"),
                Binding("E", "end_table", "End table", tooltip="host: end the table here, everyone's chips go back")]

    def __init__(self, view: Mapping[str, Any], names: Mapping[int, str], me: int | None, host: bool) -> None:
        super().__init__(id="game-end")
        self.view = dict(view)
        self.names = dict(names)
        self.me = me
        self.host = host

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(self._rows(), id="game-end-body", markup=False)

    def _rows(self) -> Content:
        view = self.view
        result = view.get("result") or {}
        rows = [Content.styled(f"Game {result.get('game', '?')} is over", "bold"),
                *result_rows(result, view.get("sides") or [], self.names, self.me, display_of(self)), Content("")]
        seats = sorted(view.get("seats") or [], key=lambda s: -(s.get("stack", 0) + s.get("staked", 0)))
        standing = ", ".join(f"{'you' if s.get('seat') == self.me else self.names.get(s.get('seat'), '?')} "
                             f"{chips(s.get('stack', 0) + s.get('staked', 0))}" for s in seats)
        rows.append(Content.assemble(("At the table now: ", "bold"), standing))
        key = lambda k: Content.styled(k, "bold #ffd75f")  # noqa: E731
        enter = "Enter" if display_of(self).ascii else "⏎"
        following = result.get("game", 0) + 1 if isinstance(result.get("game"), int) else "the next"
        rows += [Content(""), Content.assemble(key(enter), f" play on: game {following} is dealt in a moment")]
        if view.get("show"):
            rows.append(Content.assemble(key("v"), " the last deal's show"))
        rows.append(Content.assemble(key("l"), " leave the table (your seat is played for you until it ends)"))
        if self.host:
            rows.append(Content.assemble(key("E"), " end the table here: everyone's chips go back"))
        return Content("\n").join(rows)

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "end_table":
            return self.host
        if action == "last_show":
            return bool(self.view.get("show"))
        return True

    def action_close(self) -> None:
        self.dismiss(None)

    def action_last_show(self) -> None:
        board = self.board
        self.dismiss(None)
        if board is not None:
            board.call_after_refresh(board.open_show, True)  # type: ignore[attr-defined]

    def action_leave(self) -> None:
        self.screen.action_leave()  # type: ignore[attr-defined]

    def action_end_table(self) -> None:
        self.screen.action_end_game()  # type: ignore[attr-defined]


class CribbageOverScreen(GameOverScreen):
    """The table is over: the last game's end (its skunks), then the standings and the chips chart."""

    def __init__(self, view: Mapping[str, Any], names: Mapping[int, str]) -> None:
        super().__init__(view)
        self.names = dict(names)

    def standings(self) -> Content:
        rows = []
        if self.view.get("result"):
            rows = [*result_rows(self.view["result"], self.view.get("sides") or [], self.names,
                                 self.view.get("seat"), display_of(self)), Content("")]
        return Content("\n").join([*rows, super().standings()])
