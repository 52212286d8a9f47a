"""Issue 27 item 14: no label, name or result is cut off at 80x24 (nor at 100x30), on any screen of an evening.

Each screen is shown offline with fixed data (what a server would send, the
longest names and results a table sees), and :func:`fit.cut_off` walks every
widget it shows, comparing what the widget holds with what the terminal shows
of it: the lobby and its footer, the new-table form of each game, a Down and
Back table (the hand helper, the showdown's arrangement and result, game
over), a Cribbage table (laying away, the play, the show, the cuts, a game's
end, the table over), the history of rounds and of games, the leaderboard and
a replay. The evening test (the real dab-client in a pseudo-terminal) checks
what a terminal shows of the same screens.
"""

from __future__ import annotations

import copy
from typing import Any, Awaitable, Callable

import pytest

from cribbage_views import after_show, laying_away, mid_play, play_until, push, skunked_over
from client.fairness import RoundStatus
from engine.fairness import PROOF_OWN, Verdict
from fit import cut_off
from protocol import messages as m
from test_client_history import CannedApp, engine_replay, utc  # noqa: F401  (utc: a fixture)
from test_client_snapshots import EVENTS, LOBBY_TABLES, PLAY_VIEW, RESULT, SHOWDOWN_VIEW
from tui_helpers import screen_name, screen_text, table_ready, view_push, wait_for

SIZES = [(80, 24), (100, 30)]
LONG = "Bartholomew-Featherstone"  # 24 characters: the longest name the server takes

ROUNDS = {"rounds": [
    {"table_id": "t7", "table_name": "alice's table", "game_name": "down-and-back", "round": 12, "seat": 0,
     "chips": 1240, "result": "won the pot of 1,250", "finished_at": 1796140800.0},
    {"table_id": "t8", "table_name": "Bartholomew-Featherstone's table", "game_name": "cribbage", "round": 27,
     "seat": 1, "chips": -300, "result": "lost game 12 (121-119)", "finished_at": 1796140700.0},
    {"table_id": "t9", "table_name": "alice's practice", "game_name": "cribbage", "round": 9, "seat": 1,
     "chips": 0, "result": "game 3, deal 14: 119-110", "finished_at": 1796137200.0},
], "next": 17}
GAMES = {"games": [
    {"table_id": "t7", "table_name": "alice's table", "game_name": "down-and-back", "rounds": 40, "seat": 1,
     "chips": 1240, "won": True, "finished_at": 1796140800.0},
    {"table_id": "t8", "table_name": "Bartholomew-Featherstone's table", "game_name": "cribbage", "rounds": 112,
     "seat": 3, "chips": -10500, "won": False, "finished_at": 1796140700.0},
], "next": None}
BOARD = {"by": "chips", "game": None, "total": 2, "rank": 2, "hidden": False, "players": [
    {"rank": 1, "name": LONG, "balance": 1_250_000, "at_tables": 300, "games": 120, "wins": 64},
    {"rank": 2, "name": "Ann", "balance": 9_700, "at_tables": 0, "games": 3, "wins": 1},
]}


class Canned(CannedApp):
    def __init__(self) -> None:
        super().__init__(False)
        self.answers = {m.PastRounds: ROUNDS, m.PastGames: GAMES, m.Replay: engine_replay(),
                        m.Leaderboard: BOARD}


async def assert_whole(pilot: Any, where: str) -> None:
    """Nothing cut off, once the screen has settled (a footer lays its keys out a frame late)."""
    import asyncio
    import time

    app = pilot.app
    deadline = time.monotonic() + 10.0  # (generous: a loaded machine lays out late)
    while (problems := cut_off(app)) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    assert not problems, f"{where}: cut off:\n" + "\n".join(problems) + "\n--- screen ---\n" + screen_text(app)


async def at_table(pilot: Any, push_: m.View, screen: str = "TableScreen") -> None:
    app = pilot.app
    app.receive(push_)
    await wait_for(pilot, lambda: table_ready(app), what="table")
    await wait_for(pilot, lambda: screen_name(app) == screen, what=screen)
    await pilot.pause()


def long_names(view: dict[str, Any]) -> dict[str, Any]:
    """The table's players with long names (a bot's name too)."""
    view = copy.deepcopy(view)
    names = [LONG, "Cleo-Marguerite (bot)", "Bert (bot)", "[bold red]x[/]"]
    for player, name in zip(view.get("players", []), names):
        player["name"] = name
    return view


async def dab_table(pilot: Any) -> None:
    await at_table(pilot, view_push("t1", long_names({**PLAY_VIEW, "table": {**PLAY_VIEW["table"],
                                                                          "name": "Bartholomew's Friday table"}})))
    pilot.app.receive(m.Event(table_id="t1", events=tuple(copy.deepcopy(EVENTS))))
    pilot.app.table_screen.show_deal(RoundStatus(3, verdict=Verdict(3, True, proof=PROOF_OWN)))  # the longest mark
    await pilot.pause()


async def dab_helper(pilot: Any) -> None:
    await dab_table(pilot)
    await pilot.press("h")
    await pilot.pause()


async def dab_split(pilot: Any) -> None:
    await at_table(pilot, view_push("t1", long_names(SHOWDOWN_VIEW)), "SplitPanel")


async def dab_reveal(pilot: Any) -> None:
    waiting = {**PLAY_VIEW, "phase": "waiting", "legal": [], "to_act": [], "turn": None, "step": None,
               "deadline_ms": None, "hand": SHOWDOWN_VIEW["hand"]}
    await at_table(pilot, view_push("t1", long_names(waiting)))
    pilot.app.receive(m.Event(table_id="t1", events=(copy.deepcopy(RESULT),)))
    await wait_for(pilot, lambda: screen_name(pilot.app) == "RevealPanel", what="the reveal")
    await pilot.pause()


async def dab_over(pilot: Any) -> None:
    over = {**long_names(PLAY_VIEW), "phase": "over", "legal": [], "to_act": [], "turn": None, "step": None,
            "deadline_ms": None, "table": {**PLAY_VIEW["table"], "state": "finished"},
            "standings": [{"seat": s, "name": n, "stack": st, "brought": 1000}
                          for s, n, st in ((0, LONG, 2960), (2, "Bert (bot)", 1030), (3, "Cleo (bot)", 10),
                                           (1, "[bold red]x[/]", 0))],
            "chip_history": [{"0": 1000, "1": 1000, "2": 1000, "3": 1000}, {"0": 2960, "1": 0, "2": 1030, "3": 10}]}
    await at_table(pilot, view_push("t1", over), "GameOverScreen")


async def crib(pilot: Any, view: dict[str, Any], screen: str = "TableScreen", keys: tuple[str, ...] = ()) -> None:
    pushed = push(view)
    for seat, name in zip(pushed.game["seats"], (LONG, "Cleo-Marguerite (bot)")):
        seat["name"] = name
    for member, name in zip(pushed.table["members"], (LONG, "Cleo-Marguerite (bot)")):
        member["name"] = name
    pilot.app.receive(pushed)
    await wait_for(pilot, lambda: table_ready(pilot.app), what="table")
    for key in keys:
        await pilot.press(key)
    await wait_for(pilot, lambda: screen_name(pilot.app) == screen, what=screen)
    await pilot.pause()


async def lobby(pilot: Any) -> None:
    app = pilot.app
    await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen", what="lobby")
    long = copy.deepcopy(LOBBY_TABLES[1])
    long.update(table_id="t9", name="Bartholomew-Featherstone's Friday table",
                players=[{"name": LONG}, {"name": "Cleo-Marguerite"}])
    app._remember_tables(copy.deepcopy(LOBBY_TABLES) + [long])
    app.balance, app.at_tables = 1_250_000, 1_300
    app.lobby.at_tables = 1_300
    app.lobby.balance = 1_250_000
    await pilot.pause()


async def form(pilot: Any, game: str) -> None:
    from textual.widgets import Select

    await lobby(pilot)
    await pilot.press("n")
    await wait_for(pilot, lambda: screen_name(pilot.app) == "CreateTableScreen", what="the form")
    pilot.app.screen.query_one("#game", Select).value = game
    await wait_for(pilot, lambda: pilot.app.screen.game == game and pilot.app.screen.query("#seats"), what=game)
    await pilot.pause()


async def history(pilot: Any, games: bool = False) -> None:
    await lobby(pilot)
    await pilot.press("h")
    await wait_for(pilot, lambda: screen_name(pilot.app) == "HistoryScreen" and pilot.app.screen.lines,
                   what="history")
    if games:
        await pilot.press("g")
        await wait_for(pilot, lambda: pilot.app.screen.games and pilot.app.screen.lines, what="games")
    await pilot.pause()


async def replay(pilot: Any) -> None:
    await history(pilot)
    await pilot.press("enter")
    await wait_for(pilot, lambda: screen_name(pilot.app) == "ReplayScreen", what="replay")
    for _ in range(7):
        await pilot.press("right")
    await pilot.pause()


async def leaderboard(pilot: Any) -> None:
    await lobby(pilot)
    await pilot.press("t")
    await wait_for(pilot, lambda: screen_name(pilot.app) == "LeaderboardScreen", what="leaderboard")
    await wait_for(pilot, lambda: pilot.app.screen.query_one("#board-table").row_count, what="its rows")
    await pilot.pause()


def _cut_view(phase: str) -> dict[str, Any]:
    return play_until(lambda v: v["phase"] == phase and any(e["kind"] == "cut" for e in v["legal"]))


SCREENS: dict[str, Callable[[Any], Awaitable[None]]] = {
    "lobby": lobby,
    "new table, Down and Back": lambda p: form(p, "down-and-back"),
    "new table, Cribbage": lambda p: form(p, "cribbage"),
    "Down and Back table": dab_table,
    "Down and Back hand helper": dab_helper,
    "showdown arrangement": dab_split,
    "showdown result": dab_reveal,
    "Down and Back game over": dab_over,
    "Cribbage laying away": lambda p: crib(p, laying_away()),
    "Cribbage play": lambda p: crib(p, mid_play()),
    "Cribbage show": lambda p: crib(p, after_show(), "ShowPanel", ("v",)),
    "Cribbage cut for the starter": lambda p: crib(p, _cut_view("starter"), "CutScreen"),
    "Cribbage draw for the deal": lambda p: crib(p, _cut_view("draw"), "CutScreen"),
    "Cribbage table over": lambda p: crib(p, skunked_over(), "CribbageOverScreen"),
    "history of rounds": history,
    "history of games": lambda p: history(p, games=True),
    "leaderboard": leaderboard,
    "replay": replay,
}


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
@pytest.mark.parametrize("where", list(SCREENS))
async def test_nothing_is_cut_off(where, size, utc):
    app = Canned()
    async with app.run_test(size=size) as pilot:
        await SCREENS[where](pilot)
        await assert_whole(pilot, where)


async def test_the_check_sees_a_cut_label():
    """The check itself: a label narrower than its text, and a table column narrower than a cell, are cut off."""
    from textual.app import App, ComposeResult
    from textual.widgets import DataTable, Label

    class Tight(App[None]):
        CSS = "Label { width: 10; height: 1; text-wrap: nowrap; text-overflow: ellipsis; }"

        def compose(self) -> ComposeResult:
            yield Label("alice's table", id="name")
            yield DataTable(id="past")

        def on_mount(self) -> None:
            table = self.query_one(DataTable)
            table.add_column("Table", width=10)
            table.add_row("alice's table")

    app = Tight()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause()
        problems = cut_off(app)
        assert any("Label#name" in p for p in problems) and any("column 'Table'" in p for p in problems)


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_the_lobby_footer_has_every_key_but_refresh(size):
    """h (history) and t (leaders) were never in the lobby's footer: it was full."""
    app = Canned()
    async with app.run_test(size=size) as pilot:
        await lobby(pilot)
        await assert_whole(pilot, "lobby")
        footer = screen_text(app).splitlines()[-1]
        for key in ("n New", "j Join", "w Watch", "p Play now", "b Practice", "h History", "t Leaders"):
            assert key in footer


async def test_the_lobby_and_the_leaderboard_say_what_each_chip_number_is():
    """Issue 27 item 10: the lobby's and the leaderboard's balances left out chips sitting at tables."""
    app = Canned()
    app.answers[m.ListTables] = {"tables": [], "total": 0, "games": [], "balance": 9_700, "at_tables": 300,
                                 "features": []}
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen", what="lobby")
        await pilot.press("r")
        title = await wait_for(pilot, lambda: "9,700" in screen_text(app).splitlines()[0]
                               and screen_text(app).splitlines()[0], what="the balance")
        assert "9,700 chips + 300 at tables" in title
        await pilot.press("t")
        await wait_for(pilot, lambda: screen_name(app) == "LeaderboardScreen", what="leaderboard")
        text = await wait_for(pilot, lambda: "At tables" in screen_text(app) and screen_text(app), what="its rows")
        row = next(line for line in text.splitlines() if LONG in line)
        assert "1,250,000" in row and "300" in row.split("1,250,000")[1]
        assert "-" in next(line for line in text.splitlines() if " Ann " in line).split("9,700")[1]
        await assert_whole(pilot, "leaderboard")


@pytest.mark.parametrize("size", SIZES, ids=[f"{w}x{h}" for w, h in SIZES])
async def test_the_game_over_shows_whole_names_after_their_place(size):
    """Issue 27 items 13 and 14: the standings read "1.carol" and cut a name to 16 characters (a cut made
    before the screen, which the general check cannot see: it compares the widget's text with the screen)."""
    app = Canned()
    async with app.run_test(size=size) as pilot:
        await dab_over(pilot)
        await assert_whole(pilot, "game over")
        lines = screen_text(app).splitlines()
        assert any(f" 1. {LONG} " in line for line in lines), "\n".join(lines)
        assert any(" 4. [bold red]x[/] " in line for line in lines)
        chart = [line for line in lines if LONG in line]
        assert len(chart) == 2  # the standings and the chart, each with the whole name
