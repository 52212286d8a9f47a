"""Showdown arrangement, the reveal and game over, at 80x24 against the real server."""

from __future__ import annotations


import pytest

from engine.cards import parse_cards
from protocol import messages as m
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


# ---------------------------------------------------------------- why a suit rule named a hand (issue 27 item 9)

SUIT_SETTINGS = {"ante": 10, "stack": 1000, "turns": 6, "early_call": False, "no_take_back": False}


def _suit_view(phase: str, hand: list[str], **extra) -> dict:
    players = [{"seat": s, "name": n, "stack": 990, "cards": 7, "in_round": True, "out": False, "away": False,
                "turns_taken": 6, "contributed": 10, "submitted": s == 1, "bot": s == 1, "connected": True}
               for s, n in ((0, "Ann"), (1, "Bert (bot)"))]
    return {"seat": 0, "phase": phase, "hand": hand, "discard_pile": ["9C"], "legal": [], "round": 1,
            "dealer": 1, "cutter": 0, "turn": None, "step": None, "to_act": [], "settings": SUIT_SETTINGS,
            "players": players, "pot": 20, "stock_count": 30, "round_discards": [], "called_by": None, "log": [],
            "showdown": None, "standings": None, "split": None, "table": {"name": "Suits", "host_seat": 0},
            "deadline_ms": 30000, **extra}


async def test_the_hand_helper_and_the_showdown_say_why_a_suit_rule_named_a_hand():
    """K K K 4 is "Pair of kings, king and four" and K K 9 2 "High card: king, king, ...": the helper, the
    arrangement and the reveal say why, in the engine's words, and the arrangement still fits 80x24."""
    from client.app import DabApp
    from client.games.down_and_back.widgets import HandHelper
    from tui_helpers import table_ready, view_push

    hand = ["KS", "KH", "KD", "4S", "9D", "9C", "2D"]  # best split: K K K 4 down is no prial
    app = DabApp(frozen_clock=True, player_name="Ann", server_label="test")
    async with app.run_test(size=(80, 24)) as pilot:
        app.receive(view_push("t1", _suit_view("play", hand, turn=1, step="draw", to_act=[1])))
        await wait_for(pilot, lambda: table_ready(app), what="table")
        helper = app.table_screen.query_one(HandHelper)
        helper.display = True
        helper.cards = ("JS", "3C", "9C", "10H", "KD", "2H", "KH")  # best split: K K 3 2 down, high card
        await pilot.pause()
        text = screen_text(app)
        assert "High card: king, king, three, two" in text and "no pair: the 2♥ beside it shares a suit" in text

        showdown = _suit_view("showdown", hand, legal=[{"kind": "split"}], to_act=[0])
        app.receive(view_push("t1", showdown))
        await wait_for(pilot, lambda: screen_name(app) == "SplitPanel", what="the arrangement")
        panel = app.table_screen.board.panel
        panel._set(["KS", "KH", "KD", "4S", "9D", "9C", "2D"])
        await pilot.pause()
        text = screen_text(app)
        assert "Pair of kings, king and four" in text
        assert "no prial: the 4♠ is neither a face card nor of the fourth suit" in text
        assert "confirms." in text  # the panel's last line is still on the screen
        panel._set(["KS", "KH", "9D", "2D", "KD", "4S", "9C"])
        await pilot.pause()
        text = screen_text(app)
        assert "no pair: the 9♦ and 2♦ beside it share a suit" in text and "confirms." in text

        result = {"kind": "result", "round": 1, "pot": 20, "winner": 1, "carried": 0, "down_winner": 1,
                  "back_winner": 1, "down_draws": [], "back_draws": [], "reveal": [
                      {"seat": 0, "down": ["KS", "KH", "KD", "4S"], "back": ["9D", "9S", "2C"],
                       "down_name": "Pair of kings, king and four", "back_name": "Pair of nines, two"},
                      {"seat": 1, "down": ["QS", "QH", "QD", "JS"], "back": ["7H", "7C", "3H"],
                       "down_name": "Prial of queens", "back_name": "High card: seven, seven, three"}]}
        app.receive(view_push("t1", _suit_view("waiting", hand)))
        app.receive(m.Event(table_id="t1", events=(result,)))
        await wait_for(pilot, lambda: screen_name(app) == "RevealPanel", what="the reveal")
        await wait_for(pilot, lambda: "Prial of queens" in screen_text(app), what="the reveal painted")
        text = screen_text(app)
        assert "no prial: the 4♠ is neither a face card nor of the fourth suit" in text
        assert "no pair: the 3♥ is neither a face card nor of a suit unlike the pair's" in text
        assert text.count("no p") == 2  # the valid pair of nines says nothing
