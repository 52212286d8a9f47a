"""Issue 29, "What must be shown" 1 (the client's half): the fixture game plays through a real server and the
real client. High Card (tests/fixture_game.py) and its small board (tests/boards/high_card/board.py, found
by the client's convention from a test-only package path) are registered for these tests only; a player
creates a High Card table in the lobby's form, adds a bot, starts, cuts in the shell's cut dialog, stands or
folds by the board's keys, and reads the rounds in the log (in the second person) and the game over."""

from __future__ import annotations

import pytest
from textual.widgets import Select

from fixture_board import registered
from protocol import messages as m
from tui_helpers import new_table_form, screen_name, screen_text, table_ready, wait_for


pytestmark = pytest.mark.usefixtures("high_card")


@pytest.fixture
def high_card():
    with registered() as game:
        yield game


async def test_high_card_plays_through_a_real_server_on_its_board(make_app):
    from client.games import board_class

    board = board_class("high-card")
    assert board.__name__ == "HighCardBoard"
    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot:
        await wait_for(pilot, lambda: app.connection_state == "connected" and app.lobby.is_mounted, what="lobby")
        form = await new_table_form(pilot, app)
        form.query_one("#game", Select).value = "high-card"
        await wait_for(pilot, lambda: "Ante" in screen_text(app) and "Seats (2-4)" in screen_text(app),
                       what="High Card's fields")
        await pilot.press("ctrl+s")
        await wait_for(pilot, lambda: table_ready(app), what="the table")
        assert type(app.table_screen.board) is board and app.view["table"]["settings"]["game"] == "high-card"
        await pilot.press("b")
        await wait_for(pilot, lambda: len(app.view["table"]["members"]) == 2, what="a bot")
        await pilot.press("g")
        said = 0
        while said < 3:  # three of our turns: each a cut or a stand (the bot cuts when it is the last seat)
            game = await wait_for(pilot, lambda: (screen_name(app) == "CutScreen" or "stand" in (
                (app.view.get("game") or {}).get("legal") and {e["kind"] for e in app.view["game"]["legal"]}
                or ())) and not app.table_screen.pending and (app.view.get("game") or {}), what="our turn")
            if screen_name(app) == "CutScreen":
                assert "Cut the deck" in screen_text(app)
                await pilot.press("r")
            else:
                card = app.display_options.card_text(game["hand"][0])
                text = await wait_for(pilot, lambda: "Your turn: s stand, d fold" in screen_text(app)
                                      and screen_text(app), what="the prompt")
                assert f"Your card: {card}" in text and "Ann: in" in text
                await pilot.press("s")
            said += 1
        text = await wait_for(pilot, lambda: "the pot of" in screen_text(app) and screen_text(app),
                              what="a round won")
        assert "You stand" in text and ("You take the pot of" in text or "takes the pot of" in text)
        assert "Ann stands" not in text  # our own seat is "you"
        await pilot.press("E")
        await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen", what="asked first")
        await pilot.press("y")
        await wait_for(pilot, lambda: screen_name(app) == "GameOverScreen", what="the game over")
        assert "Game over" in screen_text(app) and "Ann" in screen_text(app)
        assert any(kind is m.EndGame for kind, _ in app.requests_sent)
