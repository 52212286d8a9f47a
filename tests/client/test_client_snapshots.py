"""Snapshots at 80x24, Unicode and ASCII: the table, the showdown arrangement and the reveal.

The views are fixed data (what the server would send), fed to an offline app
with a frozen countdown, so the pictures never depend on timing or shuffles.
Update with ``pytest tests/client/test_client_snapshots.py --snapshot-update``.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from textual.widgets import Input

from protocol import messages as m
from tui_helpers import screen_name, table_ready, view_push, wait_for

from client.app import DabApp
from client.render import Display

SETTINGS = {"ante": 10, "stack": 1000, "turns": 6, "early_call": False, "no_take_back": False}
TABLE = {"table_id": "t1", "name": "Friday night", "state": "playing", "host_seat": 0, "seats": 5,
         "spectators": 1, "private": False}


def player(seat: int, name: str, stack: int, cards: int = 7, **extra: Any) -> dict[str, Any]:
    return {"seat": seat, "name": name, "stack": stack, "cards": cards, "in_round": True, "out": False,
            "away": False, "turns_taken": 2, "contributed": 20, "submitted": False, "bot": False,
            "connected": True, **extra}


PLAY_VIEW: dict[str, Any] = {
    "seat": 0, "phase": "play", "hand": ["KH", "KD", "7C", "AS", "4S", "3S", "2S", "10D"],
    "discard_pile": ["9C", "JD", "5H", "QC"],
    "legal": [{"kind": "discard", "cards": ["KH", "KD", "7C", "AS", "4S", "3S", "2S", "10D"]}],
    "round": 3, "dealer": 3, "cutter": 2, "turn": 0, "step": "discard", "to_act": [0],
    "settings": SETTINGS,
    "players": [
        player(0, "Ann", 970, 8),
        player(1, "[bold red]x[/]", 980, connected=False),
        player(2, "Bert (bot)", 1030, bot=True),
        player(3, "Cleo (bot)", 960, bot=True),
    ],
    "pot": 60, "stock_count": 19,
    "round_discards": [{"seat": 0, "card": "8H"}, {"seat": 1, "card": "9C"}, {"seat": 2, "card": "JD"},
                       {"seat": 3, "card": "5H"}, {"seat": 0, "card": "6C"}, {"seat": 1, "card": "QC"}],
    "called_by": None, "log": [], "showdown": None, "standings": None, "split": None,
    "table": TABLE, "deadline_ms": 42000,
}
EVENTS = [
    {"kind": "round", "round": 3, "dealer": 3, "cutter": 2, "seats": [0, 1, 2, 3], "ante": 10, "pot": 60},
    {"kind": "cut", "seat": 2, "position": 23, "random": True},
    {"kind": "discard", "seat": 1, "card": "QC"},
    {"kind": "take_stock", "seat": 0, "card": "10D"},
]

SHOWDOWN_VIEW: dict[str, Any] = {
    **PLAY_VIEW, "phase": "showdown", "hand": ["KH", "KD", "7C", "AS", "4S", "3S", "2S"], "turn": None,
    "step": None, "legal": [{"kind": "split"}], "to_act": [0, 2], "deadline_ms": 27000,
    "players": [player(0, "Ann", 970), player(1, "[bold red]x[/]", 980, submitted=True),
                player(2, "Bert (bot)", 1030, bot=True), player(3, "Cleo (bot)", 960, bot=True, submitted=True)],
}

RESULT = {
    "kind": "result", "round": 3, "pot": 60, "winner": None, "carried": 60,
    "down_winner": 1, "back_winner": 0,
    "down_draws": [[{"seat": 1, "card": "9H"}, {"seat": 3, "card": "9S"}], [{"seat": 1, "card": "KC"},
                                                                            {"seat": 3, "card": "2D"}]],
    "back_draws": [],
    "reveal": [
        {"seat": 0, "down": ["KH", "KD", "7C", "AS"], "back": ["4S", "3S", "2S"],
         "down_name": "Pair of kings, seven and ace", "back_name": "Bouncer to the four"},
        {"seat": 1, "down": ["QH", "QS", "QD", "KS"], "back": ["JH", "10C", "5D"],
         "down_name": "Prial of queens", "back_name": "High card: jack, ten, five"},
        {"seat": 2, "down": ["8S", "9S", "10S", "6H"], "back": ["2H", "2C", "JC"],
         "down_name": "High card: ten, nine, eight, six", "back_name": "Pair of twos, jack"},
        {"seat": 3, "down": ["QC", "QH", "QD", "KD"], "back": ["6D", "7D", "3C"],
         "down_name": "Prial of queens", "back_name": "High card: seven, six, three"},
    ],
}


@pytest.fixture(autouse=True, scope="module")
def warm_meter() -> None:
    """The hand helper shows the win-both meter once its pool is built (the board builds it in a thread):
    built before any snapshot here, so each shows the same figure however fast that thread runs."""
    from engine.games.down_and_back import meter

    meter.warm_up()


def make_app(ascii: bool) -> DabApp:
    return DabApp(display=Display(ascii=ascii), frozen_clock=True, player_name="Ann", server_label="snapshot")


def feed(view: dict[str, Any], events: list[dict[str, Any]] = (), screen: str = "TableScreen"):  # type: ignore[assignment]
    async def run_before(pilot) -> None:
        app = pilot.app
        app.receive(view_push("t1", copy.deepcopy(view)))
        await wait_for(pilot, lambda: table_ready(app), what="table")
        if events:
            app.receive(m.Event(table_id="t1", events=tuple(copy.deepcopy(events))))
        app.receive(m.ChatMessage(table_id="t1", seat=1, name="[bold red]x[/]", text="gl [b]all[/b]", ts=1))
        await wait_for(pilot, lambda: screen_name(app) == screen, what=screen)
        await pilot.pause()

    return run_before


@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
def test_table_snapshot(snap_compare, ascii):
    assert snap_compare(make_app(ascii), run_before=feed(PLAY_VIEW, EVENTS), terminal_size=(80, 24))


@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
def test_table_with_helper_snapshot(snap_compare, ascii):
    assert snap_compare(make_app(ascii), run_before=feed(PLAY_VIEW, EVENTS), press=["h", "3"],
                        terminal_size=(80, 24))


@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
def test_showdown_arrangement_snapshot(snap_compare, ascii):
    assert snap_compare(make_app(ascii), run_before=feed(SHOWDOWN_VIEW, screen="SplitPanel"),
                        press=["1", "space", "7", "space"], terminal_size=(80, 24))


@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
def test_reveal_snapshot(snap_compare, ascii):
    waiting = {**PLAY_VIEW, "phase": "waiting", "legal": [], "to_act": [], "turn": None, "step": None,
               "deadline_ms": None, "hand": SHOWDOWN_VIEW["hand"]}
    assert snap_compare(make_app(ascii), run_before=feed(waiting, [RESULT], screen="RevealPanel"),
                        terminal_size=(80, 24))


LOBBY_TABLES = [
    {"table_id": "t1", "name": "Friday night", "players": [{"name": n} for n in ("Ann", "Bob", "Cleo", "Bartholomew")],
     "seats": 5, "state": "playing", "private": True,
     "settings": {"game": "down-and-back", "seats": 5,
                  "rules": {"ante": 10, "stack": 1000, "turns": 7, "early_call": True, "no_take_back": True}}},
    {"table_id": "t2", "name": "[b]Open[/b] table", "players": [{"name": "Zed"}], "seats": 3, "state": "waiting",
     "private": False, "settings": {"game": "down-and-back", "seats": 3,
                                    "rules": {"ante": 25, "stack": 50000, "turns": 6, "early_call": False,
                                              "no_take_back": False}}},
]


def in_lobby(press_after: tuple[str, ...] = ()):
    async def run_before(pilot) -> None:
        app = pilot.app
        await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen", what="lobby")
        app._remember_tables(copy.deepcopy(LOBBY_TABLES))
        await pilot.pause()
        if press_after:
            await pilot.press(*press_after)
            await pilot.pause()

    return run_before


@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
def test_lobby_snapshot(snap_compare, ascii):
    assert snap_compare(make_app(ascii), run_before=in_lobby(), terminal_size=(80, 24))


@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
def test_new_table_form_snapshot(snap_compare, ascii):
    """The house-rule boxes read [x] or [ ] (one is ticked), not the same mark in two colours."""
    async def run_before(pilot) -> None:
        await in_lobby(("n",))(pilot)
        pilot.app.screen.query_one("#early_call").value = True
        for field in pilot.app.screen.query(Input):
            field.cursor_blink = False  # the focused field's cursor shows whenever the picture is taken
        await pilot.pause()

    assert snap_compare(make_app(ascii), run_before=run_before, terminal_size=(80, 24))


@pytest.mark.parametrize("ascii", [False, True], ids=["unicode", "ascii"])
def test_table_menu_snapshot(snap_compare, ascii):
    assert snap_compare(make_app(ascii), run_before=feed(PLAY_VIEW, EVENTS), press=["m"], terminal_size=(80, 24))
