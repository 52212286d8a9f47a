"""Your past on this server: your rounds and games (paged), and the leaderboard.

Both screens show what the server answers (``past_rounds``, ``past_games``,
``leaderboard``: PROTOCOL.md 5.1), asked through :meth:`client.app.DabApp.ask`
from a worker; Enter on a round opens its replay (:mod:`client.screens.replay`).
From a table, the history shows that table's rounds only.
"""

from __future__ import annotations

import time
from typing import Any

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.content import Content
from textual.screen import Screen
from textual.widgets import DataTable, Footer, Static

from protocol import messages as m

from ..games import game_title
from ..render import chips
from .lobby import literal, row_height
from ..widgets.basics import TooSmall

PAGE = 15  # lines a page asks for: what fits an 80x24 terminal


def when(finished_at: float | None) -> str:
    """A line's date and time, in the local time zone."""
    return time.strftime("%d %b %H:%M", time.localtime(finished_at)) if finished_at else "?"


def signed(amount: int) -> Text:
    """Chips won (green, with a plus) or lost (red)."""
    style = "bold #87d787" if amount > 0 else ("bold #ff5f5f" if amount < 0 else "dim")
    return Text(f"{amount:+,}" if amount else "0", style=style)


# (title, width, share of the room left over): the table's name and the result take what the screen
# has beyond 80 columns; what still does not fit wraps onto a second line (a name is never cut).
ROUND_COLUMNS = (("Date", 12, 0), ("Table", 11, 1), ("Game", 13, 0), ("Rnd", 3, 0), ("Result", 20, 1),
                 ("Chips", 7, 0))
GAME_COLUMNS = (("Date", 12, 0), ("Table", 11, 1), ("Game", 13, 0), ("Rounds", 6, 0), ("Result", 17, 1),
                ("Chips", 7, 0))
CELL_PADDING = 1  # DataTable's, each side of a cell


def column_widths(columns: tuple[tuple[str, int, int], ...], width: int) -> list[tuple[str, int]]:
    """Each column's width at a screen ``width`` cells wide: the room beyond the columns' own widths goes
    to the ones that take a share (a scroll bar's 2 cells kept free)."""
    used = sum(w + 2 * CELL_PADDING for _, w, _ in columns) + 2
    spare = max(0, width - used)
    shares = sum(share for _, _, share in columns) or 1
    widths = [(label, w + spare * share // shares) for label, w, share in columns]
    return widths


def game_result(line: dict[str, Any]) -> str:
    """How a game went for us, in the words a player would use: who came out best, ahead or behind."""
    chips = line.get("chips", 0)
    if line.get("won"):
        return "won (most chips)"
    if chips:
        return "came out ahead" if chips > 0 else "came out behind"
    return "broke even"


class HistoryScreen(Screen[None]):
    """Your finished rounds (or games), newest first, a page at a time."""

    AUTO_FOCUS = "#past"
    BINDINGS = [
        Binding("enter", "replay", "Replay", key_display="⏎", priority=True,
                tooltip="replay the selected round step by step"),
        Binding("n", "page(1)", "Older", tooltip="the next page: older rounds"),
        Binding("p", "page(-1)", "Newer", tooltip="the page before: newer rounds"),
        Binding("g", "switch", "Games/rounds", tooltip="your games instead of your rounds, and back"),
        Binding("escape", "close", "Back", tooltip="back to where you were"),
    ]

    def __init__(self, table_id: str | None = None, table_name: str = "") -> None:
        super().__init__()
        self.table_id = table_id  # from a table: only its rounds
        self.table_name = table_name
        self.games = False  # showing games instead of rounds
        self.cursors: list[int | None] = [None]  # the ``before`` of each page seen so far; the last is shown
        self.lines: list[dict[str, Any]] = []
        self.more: int | None = None  # the next page's cursor

    def compose(self) -> ComposeResult:
        yield TooSmall()
        yield Static(id="past-title", markup=False)
        yield DataTable(id="past", cursor_type="row", zebra_stripes=True)
        yield Static(id="past-note", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.load()

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action == "page":
            return self.more is not None if parameters[0] == 1 else len(self.cursors) > 1
        if action == "replay":
            return not self.games and bool(self.lines)
        if action == "switch":
            return self.table_id is None
        return True

    def load(self) -> None:
        self.run_worker(self._load(), group="past", exclusive=True, exit_on_error=False)

    async def _load(self) -> None:
        fields: dict[str, Any] = {"limit": PAGE, "before": self.cursors[-1]}
        if self.games:
            result = await self.app.ask(m.PastGames, fields)  # type: ignore[attr-defined]
        else:
            result = await self.app.ask(m.PastRounds, {**fields, "table_id": self.table_id})  # type: ignore[attr-defined]
        if result is not None:
            self.show_page(result)

    def show_page(self, result: dict[str, Any]) -> None:
        """Draw one page of the server's answer (``rounds`` or ``games``, and ``next``)."""
        self.lines = list(result.get("games" if self.games else "rounds") or [])
        self.more = result.get("next")
        table = self.query_one(DataTable)
        table.clear(columns=True)
        widths = dict(column_widths(GAME_COLUMNS if self.games else ROUND_COLUMNS, self.app.size.width))
        for label, width in widths.items():
            table.add_column(label, width=width)
        for i, line in enumerate(self.lines):
            name = literal(line.get("table_name", ""))
            common = (when(line.get("finished_at")), name, game_title(line.get("game_name", "")))
            result = literal(game_result(line) if self.games else line.get("result", ""))
            height = row_height([(name, widths["Table"]), (result, widths["Result"])], self.app.console)
            number = line.get("rounds", "") if self.games else line.get("round", "")
            table.add_row(*common, str(number), result, signed(line.get("chips", 0)), key=str(i), height=height)
        self._titles()
        self.refresh_bindings()

    def _titles(self) -> None:
        what = "games" if self.games else "rounds"
        where = f" at {self.table_name}" if self.table_id else " on this server"
        page = len(self.cursors)
        self.query_one("#past-title", Static).update(Content.assemble(
            (f"Your {what}{where}", "bold"), (f"  page {page}, newest first", "dim")))
        if not self.lines:
            note = Content.styled(f"No {what} yet: finished {what} you played appear here.", "dim")
        else:
            keys = "Enter replays the round, " if not self.games else ""
            note = Content.styled(f"{keys}n older, p newer{'' if self.table_id else ', g ' + ('rounds' if self.games else 'games')}"
                                  ", Esc back", "dim")
        self.query_one("#past-note", Static).update(note)

    def action_page(self, step: int) -> None:
        if step > 0 and self.more is not None:
            self.cursors.append(self.more)
        elif step < 0 and len(self.cursors) > 1:
            self.cursors.pop()
        else:
            return
        self.load()

    def action_switch(self) -> None:
        self.games = not self.games
        self.cursors = [None]
        self.load()

    def action_close(self) -> None:
        self.dismiss()

    def action_replay(self) -> None:
        table = self.query_one(DataTable)
        if self.games or not self.lines:
            return
        line = self.lines[min(table.cursor_row, len(self.lines) - 1)]
        self.run_worker(self._replay(line), group="replay", exclusive=True, exit_on_error=False)

    async def _replay(self, line: dict[str, Any]) -> None:
        from .replay import ReplayScreen, load_replay

        replay = await load_replay(self.app, line["table_id"], line["round"])
        if replay is not None:
            self.app.push_screen(ReplayScreen(replay, line.get("table_name", "")))


class LeaderboardScreen(Screen[None]):
    """The server's players by chips or by games won, per game; you may hide yourself."""

    AUTO_FOCUS = "#board-table"
    BINDINGS = [
        Binding("c", "by('chips')", "By chips", tooltip="rank by chip balance"),
        Binding("w", "by('wins')", "By wins", tooltip="rank by games won"),
        Binding("g", "game", "Game", tooltip="count one game only, the next one, or every game"),
        Binding("h", "hide", "Hide me", tooltip="leave yourself out of the leaderboard, or back in (kept)"),
        Binding("escape", "close", "Back", tooltip="back to the lobby"),
    ]

    def __init__(self, games: list[str]) -> None:
        super().__init__()
        self.games: list[str | None] = [None, *games]  # None: every game
        self.by = "chips"
        self.game: str | None = None
        self.hidden = False

    def compose(self) -> ComposeResult:
        yield TooSmall()
        yield Static(id="board-title", markup=False)
        yield DataTable(id="board-table", cursor_type="row", zebra_stripes=True)
        yield Static(id="board-note", markup=False)
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.load()

    def load(self) -> None:
        self.run_worker(self._load(), group="board", exclusive=True, exit_on_error=False)

    async def _load(self) -> None:
        result = await self.app.ask(m.Leaderboard, {"by": self.by, "game": self.game, "limit": 50})  # type: ignore[attr-defined]
        if result is not None:
            self.show_board(result)

    def show_board(self, result: dict[str, Any]) -> None:
        self.hidden = bool(result.get("hidden"))
        table = self.query_one(DataTable)
        table.clear(columns=True)
        # Balance: chips kept on the server; at tables: chips sitting at tables with a game running.
        for label, width in (("#", 4), ("Player", 24), ("Balance", 11), ("At tables", 9), ("Games", 5),
                             ("Wins", 5)):
            table.add_column(label, width=width)
        for entry in result.get("players") or []:
            at_tables = entry.get("at_tables", 0)
            table.add_row(str(entry.get("rank", "")), literal(entry.get("name", ""), "bold"),
                          chips(entry.get("balance", 0)), chips(at_tables) if at_tables else "-",
                          str(entry.get("games", 0)), str(entry.get("wins", 0)))
        which = game_title(self.game) if self.game else "every game"
        ranked = "chip balance" if self.by == "chips" else "games won"
        self.query_one("#board-title", Static).update(Content.assemble(
            ("Leaderboard", "bold"), (f"  by {ranked}, {which}", "dim")))
        if self.hidden:
            you = "You are hidden from the leaderboard (h: show me)."
        elif result.get("rank"):
            you = f"You are number {result['rank']} of {result.get('total', 0)} (h: hide me)."
        else:
            you = "You are not ranked yet: finish a game to be (h: hide me)."
        self.query_one("#board-note", Static).update(Content.styled(you, "dim"))
        self.refresh_bindings()

    def action_by(self, by: str) -> None:
        self.by = by
        self.load()

    def action_game(self) -> None:
        self.game = self.games[(self.games.index(self.game) + 1) % len(self.games)]
        self.load()

    def action_hide(self) -> None:
        self.run_worker(self._hide(not self.hidden), group="board", exclusive=True, exit_on_error=False)

    async def _hide(self, hidden: bool) -> None:
        if await self.app.ask(m.SetHidden, {"hidden": hidden}) is not None:  # type: ignore[attr-defined]
            await self._load()

    def action_close(self) -> None:
        self.dismiss()
