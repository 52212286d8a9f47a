"""Whole rounds through the Textual UI: two people at a real server, and the practice game."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from client.app import DabApp
from client.practice import PracticeOptions, start_practice
from client.render import Display
from client.session import Session
from engine.cards import parse_cards
from engine.games.down_and_back.tables import evaluate3, evaluate4
from server.table import TableConfig
from tui_helpers import drive, screen_name, screen_text, table_ready, wait_for, game_of

RANK = {r: i for i, r in enumerate(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"], 1)}


@pytest.fixture
def table_config() -> TableConfig:
    # Bots and the server play instantly; the pause after the showdown keeps the reveal up.
    return TableConfig(turn_timeout=30.0, bot_delay=0.0, away_delay=0.0, round_pause=30.0)


@pytest.fixture(autouse=True)
def config_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("DAB_CONFIG_DIR", str(tmp_path / "config"))


def check_showdown(showdown: dict[str, Any], hands: dict[int, list[str]]) -> None:
    """The server's showdown agrees with the rules, computed here from the revealed cards."""
    reveal = showdown["reveal"]
    for entry in reveal:
        down, back = parse_cards(entry["down"]), parse_cards(entry["back"])
        assert sorted(entry["down"] + entry["back"]) == sorted(hands[entry["seat"]])  # the cards they held
        assert evaluate4(down).name == entry["down_name"] and evaluate3(back).name == entry["back_name"]
    for which, evaluate, draws_key in (("down", evaluate4, "down_draws"), ("back", evaluate3, "back_draws")):
        values = {e["seat"]: evaluate(parse_cards(e[which])) for e in reveal}
        best = max(values.values())
        tied = [seat for seat, value in values.items() if value == best]
        for draw in showdown[draws_key]:
            assert sorted(d["seat"] for d in draw) == sorted(tied)
            top = max(RANK[d["card"][:-1]] for d in draw)
            tied = [d["seat"] for d in draw if RANK[d["card"][:-1]] == top]
        assert tied == [showdown[f"{which}_winner"]]
    both = showdown["down_winner"] == showdown["back_winner"]
    assert showdown["winner"] == (showdown["down_winner"] if both else None)
    assert showdown["carried"] == (0 if both else showdown["pot"])


async def test_two_people_play_a_round_through_their_screens(server):
    ann = DabApp(Session("127.0.0.1", server.port, "Ann"), player_name="Ann")
    bob = DabApp(Session("127.0.0.1", server.port, "Bob"), display=Display(ascii=True, four_colour=True),
                 player_name="Bob")
    async with ann.run_test(size=(80, 24)) as pa, bob.run_test(size=(80, 24)) as pb:
        await wait_for(pa, lambda: ann.connection_state == "connected" and ann.lobby.is_mounted)
        await pa.press("q")  # Ann creates a table
        await wait_for(pa, lambda: table_ready(ann))
        await wait_for(pb, lambda: bob.lobby.is_mounted and "Ann's table" in screen_text(bob), what="Bob's lobby")
        await pb.press("enter")  # Bob joins it
        await wait_for(pa, lambda: len(ann.view["table"]["members"]) == 2, what="Bob seated")
        await pa.press("g")  # Ann starts

        hands: dict[int, list[str]] = {}

        def remember(app: DabApp) -> None:
            game, seat = game_of(app), app.view["table"]["seat"]
            if game.get("phase") in ("play", "showdown") and seat is not None:
                hands[seat] = list(game["hand"])

        ann.on_view = lambda view: remember(ann)
        bob.on_view = lambda view: remember(bob)

        def revealed(app: DabApp) -> bool:
            return app.table_screen is not None and app.table_screen.board.last_showdown is not None

        await asyncio.gather(drive(pa, ann, lambda: revealed(ann), timeout=30, what="Ann's round"),
                             drive(pb, bob, lambda: revealed(bob), timeout=30, what="Bob's round"))
        showdown = ann.table_screen.board.last_showdown
        assert bob.table_screen.board.last_showdown == showdown  # everyone saw the same result
        assert showdown["round"] == 1 and len(showdown["reveal"]) == 2
        check_showdown(showdown, hands)

        for app, pilot in ((ann, pa), (bob, pb)):
            text = await wait_for(pilot, lambda app=app: screen_name(app) == "RevealPanel"
                                  and "Round 1 showdown" in screen_text(app) and screen_text(app), what="reveal shown")
            assert "Going down" in text and "Coming back" in text and "Ann" in text and "Bob" in text
            winner = showdown["winner"]
            if winner is None:
                assert "carries" in text
            else:
                name = next(p["name"] for p in game_of(app)["players"] if p["seat"] == winner)
                said = "You win both and take" if winner == app.view["table"]["seat"] else f"{name} wins both and takes"
                assert f"{said} the pot of 20" in text
        await wait_for(pa, lambda: game_of(ann).get("phase") == "waiting", what="the view after the round")
        stacks = {p["seat"]: p["stack"] for p in game_of(ann)["players"]}
        assert sum(stacks.values()) + game_of(ann).get("pot") == 2000  # chips are conserved
        if showdown["winner"] is not None:
            assert stacks[showdown["winner"]] == 1010


async def test_practice_game_reaches_a_finished_round_with_bots():
    options = PracticeOptions(bots=3, bot_delay=0.0, turn_timeout=30.0, round_pause=30.0, seed=b"e2e practice")
    server, session = await start_practice("Newcomer", options)
    try:
        app = DabApp(session, server_label="practice", player_name="Newcomer")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: table_ready(app), what="the practice table, straight away")
            names = [m["name"] for m in app.view["table"]["members"]]
            assert names[0] == "Newcomer" and all(name.endswith("(bot)") for name in names[1:]) and len(names) == 4
            await drive(pilot, app, lambda: app.table_screen.board.last_showdown is not None, timeout=30,
                        what="a finished round")
            showdown = app.table_screen.board.last_showdown
            assert len(showdown["reveal"]) == 4
            await wait_for(pilot, lambda: screen_name(app) == "RevealPanel" and "Round 1 showdown" in screen_text(app))
            await wait_for(pilot, lambda: game_of(app).get("phase") == "waiting" and game_of(app).get("round") == 1)
    finally:
        await session.close()
        await server.close(grace=0.5)


async def test_practice_opens_on_the_table_and_the_lobby_comes_when_leaving():
    """Start-up: no lobby is composed (and thrown away) before the practice table is drawn."""
    server, session = await start_practice("Newcomer", PracticeOptions(bots=1, bot_delay=5.0, turn_timeout=30.0))
    try:
        app = DabApp(session, server_label="practice", player_name="Newcomer", expect_table=True)
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: table_ready(app), what="the practice table")
            assert app.lobby not in app.screen_stack and not app.lobby.is_mounted
            await wait_for(pilot, lambda: (game_of(app).get("fair") or {}).get("fixed") and app.table_screen.prompt_for
                           and not app.table_screen.pending, what="the deal sealed")
            await pilot.pause()
            while screen_name(app) != "TableScreen":  # a cut of ours may be open
                await pilot.press("enter")
                await pilot.pause()
            await pilot.press("l")
            await wait_for(pilot, lambda: screen_name(app) == "ConfirmScreen", what="asked first")
            await pilot.press("y")
            await wait_for(pilot, lambda: screen_name(app) == "LobbyScreen" and "Practice" in screen_text(app),
                           what="the lobby, with the practice table listed")
    finally:
        await session.close()
        await server.close(grace=0.5)
