"""The table shell mounts the board of the table's game, and says so when it has none."""

from __future__ import annotations

from typing import Any

import pytest

import engine.games as engine_games
from engine.contract import SettingField
from protocol import messages as m
from tui_helpers import new_table_form, screen_text, table_ready, view_push, wait_for

from client import games
from client.app import DabApp
from client.games.board import UnsupportedBoard
from client.games.down_and_back.board import DownAndBackBoard

TABLE = {"table_id": "t1", "name": "Elsewhere", "state": "waiting", "host_seat": 0, "seats": 2,
         "spectators": 0, "private": False}


def waiting_room(game: str | None) -> dict[str, Any]:
    settings = {"seats": 2} if game is None else {"game": game, "seats": 2}
    return {"seat": 0, "phase": "lobby", "settings": settings, "table": TABLE, "to_act": [], "legal": [],
            "players": [{"seat": 0, "name": "Ann", "bot": False, "connected": True, "away": False}]}


@pytest.mark.parametrize("game, title", [("no-such-game", "no-such-game"), ("peg-test", "Peg Test")])
async def test_a_game_without_a_board_here_says_so_and_keeps_chat_and_leaving(monkeypatch, game, title):
    """A game the engine does not know (a newer server's), and one registered with no board here (its title
    shown: the engine knows it)."""
    monkeypatch.setitem(engine_games.GAMES, _PegGame.name, _PegGame())
    assert not games.has_board(game) and game not in games.playable_games()
    app = DabApp(frozen_clock=True, player_name="Ann", server_label="test")
    async with app.run_test(size=(80, 24)) as pilot:
        app.receive(view_push("t1", waiting_room(game)))
        await wait_for(pilot, lambda: table_ready(app), what="table")
        assert isinstance(app.table_screen.board, UnsupportedBoard)
        app.receive(m.ChatMessage(table_id="t1", seat=0, name="Ann", text="anyone?", ts=1))
        text = await wait_for(pilot, lambda: "anyone?" in screen_text(app) and screen_text(app), what="chat")
        assert f"This client cannot show {title} tables." in text
        assert "Elsewhere" in text and "Ann" in text  # the shell's top bar and seats still show
        await pilot.press("l")
        await wait_for(pilot, lambda: any(kind is m.Leave for kind, _ in app.requests_sent), what="leave sent")


async def test_down_and_back_tables_get_its_board_also_from_a_server_that_names_no_game():
    app = DabApp(frozen_clock=True, player_name="Ann", server_label="test")
    async with app.run_test(size=(80, 24)) as pilot:
        app.receive(view_push("t1", waiting_room(None)))
        await wait_for(pilot, lambda: table_ready(app), what="table")
        assert isinstance(app.table_screen.board, DownAndBackBoard)
        await wait_for(pilot, lambda: "You host this table" in screen_text(app), what="painted")


@pytest.fixture
def board_folder(tmp_path, monkeypatch):
    """``board_folder(game, source)``: a board module for ``game`` where the client's convention finds it
    (``client.games.<package>.board``, its folder on ``client.games``' package path for this test only)."""
    import sys

    monkeypatch.setattr(games, "__path__", [*games.__path__, str(tmp_path)])
    made: list[str] = []

    def make(game: str, source: str) -> None:
        package = tmp_path / game.replace("-", "_")
        package.mkdir()
        (package / "board.py").write_text(source)
        made.append(f"client.games.{package.name}")

    yield make
    for name in [n for n in sys.modules if any(n == p or n.startswith(p + ".") for p in made)]:
        del sys.modules[name]


def test_a_board_is_found_by_the_games_name_and_one_that_names_no_board_is_an_error(monkeypatch, board_folder):
    monkeypatch.setitem(engine_games.GAMES, _PegGame.name, _PegGame())
    monkeypatch.setitem(engine_games.GAMES, _EightSeats.name, _EightSeats())
    board_folder(_PegGame.name, "from client.games.board import Board\nclass PegBoard(Board):\n    pass\n"
                                "BOARD = PegBoard\n")
    board_folder(_EightSeats.name, "from client.games.board import Board\nclass EightBoard(Board):\n    pass\n")
    assert games.board_class(_PegGame.name).__name__ == "PegBoard"
    assert games.playable_games()[-2:] == [_PegGame.name, _EightSeats.name]  # the registry's order
    with pytest.raises(games.BoardError, match=r"client\.games\.eight_test\.board has no BOARD"):
        games.board_class(_EightSeats.name)
    # A name the server sends is looked up among the registry's ids only, never as a path.
    assert games.board_class("../peg_test") is UnsupportedBoard and games.board_class("peg_test") is UnsupportedBoard


def test_the_fixture_games_board_is_found_the_same_way_only_while_registered():
    from fixture_board import registered

    assert "high-card" not in games.playable_games()
    with registered():
        assert games.playable_games()[-1] == "high-card"
        assert games.board_class("high-card").__name__ == "HighCardBoard"
    assert games.board_class("high-card") is UnsupportedBoard and "high-card" not in games.playable_games()


class _Settings(dict):
    def to_data(self) -> dict[str, Any]:
        return dict(self)


class _PegGame:
    """A stand-in second game: only what a lobby's form asks of a GameType."""

    name, title, min_seats, max_seats = "peg-test", "Peg Test", 2, 3
    setting_fields = (SettingField("stake", "Stake", 5, minimum=1, maximum=100),
                      SettingField("target", "Game to", 121, choices=(61, 91, 121)),
                      SettingField("muggins", "Muggins", False, choices=(False, True), hint="claim missed points"))

    def settings(self, data: Any = None) -> _Settings:
        return _Settings({f.name: f.default for f in self.setting_fields}, **(data or {}))


async def test_the_new_table_form_offers_a_game_choice_and_asks_the_game_for_its_fields(monkeypatch, board_folder):
    from textual.widgets import Input, Select

    monkeypatch.setitem(engine_games.GAMES, _PegGame.name, _PegGame())
    board_folder(_PegGame.name, "from client.games.board import UnsupportedBoard as BOARD\n")
    app = DabApp(frozen_clock=True, player_name="Ann", server_label="test")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.lobby.is_mounted, what="lobby")
        form = await new_table_form(pilot, app)
        await pilot.pause()
        text = screen_text(app)
        assert "Game" in text and "Down and Back" in text and "Ante" in text and "Seats (2-5)" in text
        assert "Early call (end drawing with this orbit)" in text and "Seven turns instead of six" in text
        form.query_one("#name", Input).value = "Pegs"
        form.query_one("#game", Select).value = _PegGame.name
        await wait_for(pilot, lambda: "Stake" in screen_text(app), what="the other game's fields")
        text = screen_text(app)
        assert "Game to" in text and "Muggins (claim missed points)" in text and "Seats (2-3)" in text
        assert not form.query("#ante") and not form.query("#turns") and "Seven turns" not in text
        assert form.query_one("#name", Input).value == "Pegs"  # what was typed stays


async def test_a_single_game_has_no_game_choice(monkeypatch):
    from client.screens.lobby import form_games

    monkeypatch.setattr(games, "playable_games", lambda: ["down-and-back"])
    assert form_games() == ["down-and-back"]
    app = DabApp(frozen_clock=True, player_name="Ann", server_label="test")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.lobby.is_mounted, what="lobby")
        form = await new_table_form(pilot, app)
        await pilot.pause()
        assert not form.query("#game") and "Stack" in screen_text(app)


class _EightSeats(_PegGame):
    name, title, min_seats, max_seats = "eight-test", "Eight Test", 2, 8


@pytest.mark.parametrize("game, panels", [("down-and-back", 5), ("cribbage", 4), ("no-such-game", m.MAX_SEATS),
                                          (_EightSeats.name, 8)])
async def test_the_seat_panels_are_as_many_as_the_games_seats(monkeypatch, game, panels):
    """Issue 29 item 3: the shell sizes its seat panels from the game type's seat range (not five for every
    game): an eight-seat game shows all eight players; a game this client does not know, the protocol's most."""
    from client.widgets.table import SeatPanel

    monkeypatch.setitem(engine_games.GAMES, _EightSeats.name, _EightSeats())
    seats = min(panels, 8)
    view = waiting_room(game)
    view["settings"]["seats"] = seats
    view["table"] = {**TABLE, "seats": seats}
    view["players"] = [{"seat": s, "name": f"Pl{s + 1}", "bot": False, "connected": True, "away": False}
                       for s in range(seats)]
    app = DabApp(frozen_clock=True, player_name="Pl1", server_label="test")
    async with app.run_test(size=(160, 40)) as pilot:
        app.receive(view_push("t1", view))
        await wait_for(pilot, lambda: table_ready(app), what="table")
        text = await wait_for(pilot, lambda: f"Pl{seats}" in screen_text(app) and screen_text(app),
                              what="every seat shown")
        assert len(app.table_screen.query(SeatPanel)) == panels
        assert all(f"Pl{s + 1}" in text for s in range(seats))
