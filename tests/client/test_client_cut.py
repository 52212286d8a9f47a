"""The cutter picks where to cut (or a random cut) in the cut window."""

from __future__ import annotations

import contextlib
from typing import Any, AsyncIterator

from tui_helpers import drive, opponent_playing, screen_name, screen_text, start_two_player_game, wait_for


@contextlib.asynccontextmanager
async def at_anns_cut(make_app: Any, connect: Any) -> AsyncIterator[tuple[Any, Any, Any]]:
    """Ann's app at her first cut window of a game with Bob; yields (pilot, app, bob)."""
    app = make_app("Ann")
    async with app.run_test(size=(80, 24)) as pilot, connect("Bob") as bob:
        await start_two_player_game(pilot, app, bob)
        async with opponent_playing(bob):
            await drive(pilot, app, lambda: screen_name(app) == "CutScreen", what="Ann's cut", timeout=20)
            yield pilot, app, bob


async def anns_cut(app: Any, bob: Any) -> dict[str, Any]:
    """The cut event Bob is told of."""
    me = app.view["table"]["seat"]
    return await bob.wait_for(lambda: next((e for e in bob.events if e["kind"] == "cut" and e["seat"] == me), None))


async def test_a_cut_at_a_chosen_position(make_app, connect):
    async with at_anns_cut(make_app, connect) as (pilot, app, bob):
        text = await wait_for(pilot, lambda: "Cut the deck" in screen_text(app) and screen_text(app))
        assert "Lift 26 of the 52 cards in the deck (4 to 48)" in text
        await pilot.press("left", "left", "up")  # 26 - 2 + 5
        assert "Lift 29 of the 52" in screen_text(app)
        await pilot.press(*["down"] * 6)  # never below the minimum
        assert "Lift 4 of the 52" in screen_text(app)
        await pilot.press("up", "up", "right")
        assert "Lift 15 of the 52" in screen_text(app)
        await pilot.press("enter")
        cut = await anns_cut(app, bob)
        assert cut["position"] == 15 and not cut["random"]
        await wait_for(pilot, lambda: "You cut at 15" in screen_text(app))


async def test_a_random_cut(make_app, connect):
    async with at_anns_cut(make_app, connect) as (pilot, app, bob):
        await wait_for(pilot, lambda: "Cut the deck" in screen_text(app))
        await pilot.press("r")
        cut = await anns_cut(app, bob)
        assert cut["random"] and 4 <= cut["position"] <= 48
