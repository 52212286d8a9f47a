"""A deal of Cribbage through the Textual UI: two people at a real server on 127.0.0.1, playing by keys."""

from __future__ import annotations

import asyncio
import time
from typing import Any, Callable

import pytest
from textual.pilot import Pilot

from client.app import DabApp
from client.games.cribbage.board import CribbageBoard
from client.practice import PracticeOptions, start_practice
from client.render import Display, rank_key
from client.session import Session
from engine.games.cribbage.scoring import call
from server.table import TableConfig
from tui_helpers import game_of, press_and_wait, screen_name, screen_text, table_ready, wait_for


@pytest.fixture
def table_config() -> TableConfig:
    # The server plays at once; the pause after a deal keeps its show up.
    return TableConfig(turn_timeout=30.0, bot_delay=0.0, away_delay=0.0, round_pause=30.0)


@pytest.fixture(autouse=True)
def config_dir(tmp_path, monkeypatch):
    monkeypatch.setenv("DAB_CONFIG_DIR", str(tmp_path / "config"))


async def play_step(pilot: Pilot, app: DabApp) -> bool:
    """If ``app`` has a Cribbage decision, make it with keys as a person would; True if it did."""
    screen = app.screen
    if screen_name(app) == "CutScreen" and screen.is_mounted:
        await press_and_wait(pilot, "enter", lambda: app.screen is not screen)
        return True
    table = app.table_screen
    if table is None or table.pending or screen is not table:
        return False
    sent = len(app.requests_sent)
    legal = table.legal
    hand = sorted((game_of(app).get("hand") or ()), key=rank_key)
    if "discard" in legal:  # the first two cards to the crib
        for key in ("1", "2"):
            app.simulate_key(key)
        await press_and_wait(pilot, "enter", lambda: len(app.requests_sent) > sent)
        return True
    if "play" in legal:  # the lowest card that fits
        card = next(c for c in hand if c in legal["play"]["cards"])
        app.simulate_key(str(hand.index(card) + 1))
        await press_and_wait(pilot, "enter", lambda: len(app.requests_sent) > sent)
        return True
    return False


async def drive(pilots: list[tuple[Pilot, DabApp]], until: Callable[[], Any], timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while not until():
        if time.monotonic() > deadline:
            raise AssertionError("timed out\n" + "\n---\n".join(screen_text(app) for _, app in pilots))
        acted = [await play_step(pilot, app) for pilot, app in pilots]
        if not any(acted):
            await asyncio.sleep(0.005)


def dealt_once(app: DabApp) -> bool:
    game = game_of(app)
    return game.get("phase") == "waiting" and len(game.get("show") or ()) == 3


async def test_two_people_play_a_deal_of_cribbage_by_keys(server):
    from textual.widgets import Select

    ann = DabApp(Session("127.0.0.1", server.port, "Ann"), player_name="Ann")
    bob = DabApp(Session("127.0.0.1", server.port, "Bob"), display=Display(ascii=True), player_name="Bob")
    async with ann.run_test(size=(80, 24)) as pa, bob.run_test(size=(80, 24)) as pb:
        await wait_for(pa, lambda: ann.connection_state == "connected" and ann.lobby.is_mounted)
        await pa.press("n")  # Ann's new table: a Cribbage one
        form = await wait_for(pa, lambda: screen_name(ann) == "CreateTableScreen" and ann.screen, what="form")
        form.query_one("#game", Select).value = "cribbage"
        await wait_for(pa, lambda: "Stake" in screen_text(ann), what="Cribbage's fields")
        form.query_one("#seats").value = "2"
        await pa.press("ctrl+s")
        await wait_for(pa, lambda: table_ready(ann), what="Ann's table")
        await wait_for(pb, lambda: bob.lobby.is_mounted and "Ann's table" in screen_text(bob), what="Bob's lobby")
        await pb.press("enter")  # Bob joins it
        await wait_for(pa, lambda: len(ann.view["table"]["members"]) == 2, what="Bob seated")
        await pa.press("g")

        await drive([(pa, ann), (pb, bob)], lambda: dealt_once(ann) and dealt_once(bob))

        for app in (ann, bob):
            assert isinstance(app.table_screen.board, CribbageBoard)
            game = game_of(app)
            assert sorted(len(cards) for cards in game["played"].values()) == [4, 4]  # each played all four
            show = game["show"]
            assert [counted["what"] for counted in show] == ["hand", "hand", "crib"]
            assert show[-1]["seat"] == game["dealer"] and show[0]["seat"] != game["dealer"]
            calls = [call(item) for counted in show for item in counted["items"]]  # the show as called
            await wait_for(pa if app is ann else pb, lambda: screen_name(app) == "ShowPanel"
                           and "The show" in screen_text(app), what="the show")
            text = screen_text(app)
            assert all(said in text for said in calls[:6])
        # Both see the same pegs: what each side scored in the deal.
        assert game_of(ann)["sides"] == game_of(bob)["sides"]
        assert max(side["score"] for side in game_of(ann)["sides"]) > 0


async def test_practice_cribbage_against_a_bot_opens_the_cribbage_board():
    options = PracticeOptions(game="cribbage", bot_delay=0.0, turn_timeout=30.0, round_pause=30.0, seed=b"crib")
    server, session = await start_practice("Newcomer", options)
    try:
        app = DabApp(session, server_label="practice", player_name="Newcomer")
        async with app.run_test(size=(80, 24)) as pilot:
            await wait_for(pilot, lambda: table_ready(app), what="the practice table")
            assert isinstance(app.table_screen.board, CribbageBoard)
            assert len(app.view["table"]["members"]) == 2 and app.view["table"]["settings"]["game"] == "cribbage"
            await drive([(pilot, app)], lambda: dealt_once(app))
            assert sum(len(cards) for cards in game_of(app)["played"].values()) == 8
    finally:
        await session.close()
        await server.close(grace=0.2)
