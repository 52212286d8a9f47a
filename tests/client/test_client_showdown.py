"""Showdown arrangement, the reveal and game over, at 80x24 against the real server."""

from __future__ import annotations


import pytest

from engine.cards import parse_cards
from engine.games.down_and_back.splits import best_split
from server.table import TableConfig
from tui_helpers import drive, screen_name, screen_text, start_two_player_game, wait_for, opponent_playing, game_of

from client.games.down_and_back.showdown import SplitPanel


@pytest.fixture
def table_config() -> TableConfig:
    # A long pause after the showdown, so the reveal stays while we look at it.
    return TableConfig(turn_timeout=30.0, bot_delay=0.0, away_delay=0.0, round_pause=30.0)


async def test_arrange_swap_confirm_reveal_and_game_over(make_app, connect):
    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot, connect("Bob") as bob:
        await start_two_player_game(pilot, app, bob)
        async with opponent_playing(bob):
            me = app.view["table"]["seat"]
            await drive(pilot, app, lambda: screen_name(app) == "SplitPanel", what="the showdown", timeout=20)
            screen = app.table_screen.board.panel
            assert isinstance(screen, SplitPanel) and app.screen is app.table_screen  # a panel, not a screen
            hand = game_of(app).get("hand")
            best = best_split(parse_cards(hand))
            recommended = (tuple(map(str, best.down)), tuple(map(str, best.back)))
            await pilot.pause()
            assert screen.arrangement == recommended  # pre-filled with the recommendation
            text = screen_text(app)
            assert best.down_value.name in text and best.back_value.name in text
            assert "Going down (4)" in text and "Coming back (3)" in text and "You ⏱" in text

            await pilot.press("1", "space", "5", "space")  # swap the first cards of the two hands
            down, back = screen.arrangement
            assert down[0] == recommended[1][0] and back[0] == recommended[0][0]
            await pilot.press("b")  # back to the best split
            assert screen.arrangement == recommended
            await pilot.press("right", "space", "down", "space")  # card 2 <-> card 6
            chosen = screen.arrangement
            assert chosen[0][1] == recommended[1][1] and chosen[1][1] == recommended[0][1]
            await pilot.press("enter")

            await wait_for(pilot, lambda: screen_name(app) == "RevealPanel", what="the reveal")
            result = app.table_screen.board.last_showdown
            mine = next(r for r in result["reveal"] if r["seat"] == me)
            assert (tuple(mine["down"]), tuple(mine["back"])) == chosen
            text = screen_text(app)
            assert "Going down" in text and "Coming back" in text
            for entry in result["reveal"]:
                assert entry["down_name"][:30] in text and entry["back_name"][:30] in text
            won = "You win both and take the pot" if result["winner"] == me else "wins both and takes the pot"
            assert (won in text) == (result["winner"] is not None)
            assert ("carries" in text) == (result["winner"] is None)

            await pilot.press("enter")
            await wait_for(pilot, lambda: screen_name(app) == "TableScreen")
            assert "see the showdown" in screen_text(app)
            await pilot.press("v")  # the last showdown again
            await wait_for(pilot, lambda: screen_name(app) == "RevealPanel")
            await pilot.press("enter")

            await pilot.press("E")  # the host ends the game, after saying yes
            await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen")
            await pilot.press("y")
            await wait_for(pilot, lambda: screen_name(app) == "GameOverScreen", what="game over")
            text = screen_text(app)
            standings = game_of(app).get("standings")
            assert "Game over" in text and "Brought" in text and "Won/lost" in text
            for row in standings:
                assert row["name"] in text
                assert f"{row['stack'] - row['brought']:+,}" in text
            assert "Chips through the game" in text and ("▁" in text or "█" in text)
            assert sum(r["stack"] for r in standings) == sum(r["brought"] for r in standings)

            await pilot.press("enter")  # back to the lobby
            await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen", what="lobby")
