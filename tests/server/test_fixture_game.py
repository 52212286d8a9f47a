"""Issue 29, "What must be shown" 1 (the server's part): the fixture game plays through a real server.

High Card (tests/fixture_game.py) is registered for these tests only. Over
real sockets a player creates a High Card table, adds a bot, starts, and
plays three rounds with a client that seeds and checks every deal as ours
does; the lobby lists the game by its title; only the player's own dealt
card reaches her; every deal verifies with the player's seed in
it; ending the table gives the standings. Nothing in the server, the
protocol or the store knows the game: the registry line is all it takes.
"""

from __future__ import annotations

import pytest

from fixture_game import registered
from protocol import messages as m
from scripted import SeedingClient

pytestmark = pytest.mark.usefixtures("high_card")


@pytest.fixture
def high_card():
    """High Card registered; the lobby's list of games (built once per process) made again with it and
    without it after."""
    from server.lobby import games_offered

    games_offered.cache_clear()
    try:
        with registered() as game:
            yield game
    finally:
        games_offered.cache_clear()


async def test_high_card_plays_through_the_server_with_verified_deals(server):
    async with SeedingClient(server.port, "ann") as ann:
        games = {g["name"]: g for g in (await ann.request(m.ListTables))["games"]}
        assert games["high-card"]["title"] == "High Card" and games["high-card"]["bot_levels"] == ["normal"]
        await ann.request(m.CreateTable, name="high", settings=m.TableSettings(game="high-card", seats=2))
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        me = ann.table["seat"]
        acted = 0
        while True:
            view = await ann.wait_for(
                lambda: ann.views and ann.view and (ann.view["legal"] or ann.view["round"] > 3) and ann.view)
            if view["round"] > 3:
                break
            kinds = {entry["kind"] for entry in view["legal"]}
            await ann.act({"kind": "cut", "position": None} if "cut" in kinds else {"kind": "stand"})
            acted += 1
            await ann.wait_for(lambda: ann.view is not view)
        await ann.request(m.EndGame)
        over = await ann.wait_for(lambda: ann.view.get("phase") == "over" and ann.view)
        assert [row["seat"] for row in over["standings"]] and acted >= 3  # a stand each round, and her cuts
        assert sum(row["stack"] for row in over["standings"]) == sum(row["brought"] for row in over["standings"])
        await ann.wait_for(lambda: len(ann.verdicts) >= 3)
        assert all(v.ok for v in ann.verdicts), ann.verdicts
        assert any(v.proof.endswith("your seed included") for v in ann.verdicts), ann.verdicts
        won = [e for e in ann.events if e["kind"] == "won"]
        assert len(won) >= 3 and all(e["pot"] > 0 for e in won)
        hands = [e["hand"] for e in ann.events if e["kind"] == "deal" and "hand" in e]
        assert hands and all(e.get("seat") == me for e in ann.events if e["kind"] == "deal" and "hand" in e)
