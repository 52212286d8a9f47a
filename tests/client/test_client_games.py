"""The table shell mounts the board of the table's game, and says so when it has none."""

from __future__ import annotations

from typing import Any

import pytest

from protocol import messages as m
from tui_helpers import screen_text, table_ready, wait_for

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


@pytest.mark.parametrize("game, title", [("no-such-game", "no-such-game"), ("down-and-back", "Down and Back")])
async def test_a_game_without_a_board_here_says_so_and_keeps_chat_and_leaving(monkeypatch, game, title):
    monkeypatch.setattr(games, "BOARDS", {})  # so even a game the engine knows (its title shown) has no board
    app = DabApp(frozen_clock=True, player_name="Ann", server_label="test")
    async with app.run_test(size=(80, 24)) as pilot:
        app.receive(m.View(table_id="t1", view=waiting_room(game)))
        await wait_for(pilot, lambda: table_ready(app), what="table")
        assert isinstance(app.table_screen.board, UnsupportedBoard)
        app.receive(m.ChatMessage(table_id="t1", seat=0, name="Ann", text="anyone?", ts=1))
        text = await wait_for(pilot, lambda: "anyone?" in screen_text(app) and screen_text(app), what="chat")
        assert f"This client cannot show {title} tables." in text
        assert "Elsewhere" in text and "Ann" in text  # the shell's top bar and seats still show
        await pilot.press("l")
        await wait_for(pilot, lambda: any(kind == "Leave" for kind, _ in app.requests_sent), what="leave sent")


async def test_down_and_back_tables_get_its_board_also_from_a_server_that_names_no_game():
    app = DabApp(frozen_clock=True, player_name="Ann", server_label="test")
    async with app.run_test(size=(80, 24)) as pilot:
        app.receive(m.View(table_id="t1", view=waiting_room(None)))
        await wait_for(pilot, lambda: table_ready(app), what="table")
        assert isinstance(app.table_screen.board, DownAndBackBoard)
        assert "You host this table" in screen_text(app)
