"""Offline Pilot tests of the table screen: views fed as the server would send them, at 80x24."""

from __future__ import annotations

import copy
from typing import Any

from protocol import messages as m
from test_client_snapshots import PLAY_VIEW, make_app
from tui_helpers import screen_name, screen_text, table_ready, wait_for

from client.widgets.table import HandHelper

SEVEN = ["KH", "KD", "7C", "AS", "4S", "3S", "2S"]
OTHERS_TURN = {**PLAY_VIEW, "hand": SEVEN, "legal": [], "turn": 1, "step": "draw", "to_act": [1]}


async def feed(pilot, view: dict[str, Any]) -> None:
    app = pilot.app
    app.receive(m.View(table_id="t1", view=copy.deepcopy(view)))
    await wait_for(pilot, lambda: table_ready(app) and app.table_screen.view["hand"] == view["hand"], what="view")
    await pilot.pause()


async def test_helper_grows_to_show_wins_both_when_a_card_is_drawn():
    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, OTHERS_TURN)
        await pilot.press("h")
        await wait_for(pilot, lambda: "Wins both" in screen_text(app), what="helper with 7 cards")
        await feed(pilot, PLAY_VIEW)  # 8 cards: the helper says what to throw, one line more
        text = await wait_for(pilot, lambda: "to keep" in screen_text(app) and screen_text(app), what="8 cards")
        assert "Wins both" in text
        assert app.table_screen.query_one(HandHelper).size.height == 4


async def test_a_split_that_timed_out_still_shows_the_showdown():
    from test_client_snapshots import RESULT, SHOWDOWN_VIEW

    app = make_app(ascii=False)
    async with app.run_test(size=(80, 24)) as pilot:
        await feed(pilot, SHOWDOWN_VIEW)
        await wait_for(pilot, lambda: screen_name(app) == "ShowdownScreen", what="arrangement open")
        # Time is up: the server splits for us, then sends the result and the next view (in that order).
        app.receive(m.Event(table_id="t1", events=({"kind": "timeout", "seat": 0}, copy.deepcopy(RESULT))))
        waiting = {**SHOWDOWN_VIEW, "phase": "waiting", "legal": [], "to_act": [], "deadline_ms": None}
        app.receive(m.View(table_id="t1", view=copy.deepcopy(waiting)))
        await wait_for(pilot, lambda: app.table_screen.view["phase"] == "waiting", what="waiting view")
        await pilot.pause()
        assert screen_name(app) == "RevealScreen"
        assert "Round 3 showdown" in screen_text(app)
