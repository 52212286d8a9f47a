"""Bot levels (issue 16): the host picks one with ``add_bot``; tables show it, bots play it, restarts keep it."""

from __future__ import annotations

from contextlib import AsyncExitStack

import pytest

from engine.games import find_game
from engine.games.down_and_back.bots import baseline_action
from protocol import messages as m
from client.link import RequestFailed
from scripted import ScriptedClient

DOWN_AND_BACK = find_game("down-and-back")


async def test_the_host_picks_a_level_and_everyone_sees_it(durable):
    server = await durable()
    async with AsyncExitStack() as stack:
        ann = await stack.enter_async_context(ScriptedClient(server.port, "ann"))
        games = {g["name"]: g for g in (await ann.request(m.ListTables))["games"]}
        assert games["down-and-back"]["bot_levels"] == ["easy", "normal", "strong"]
        assert games["down-and-back"]["default_bot_level"] == "normal"
        assert games["cribbage"]["bot_levels"] == ["normal", "strong"]
        await ann.request(m.CreateTable, name="levels", settings=m.TableSettings(seats=4))
        strong = (await ann.request(m.AddBot, level="strong"))["seat"]
        plain = (await ann.request(m.AddBot))["seat"]
        with pytest.raises(RequestFailed) as refused:
            await ann.request(m.AddBot, level="expert")
        assert refused.value.code == "bad_level" and "easy, normal, strong" in refused.value.message
        await ann.wait_for(lambda: len(ann.table["members"]) == 3)
        assert ann.member(strong)["level"] == "strong"
        assert ann.member(plain)["level"] == "normal"
        assert ann.member(0)["level"] is None  # a player has none


async def test_a_bot_plays_at_its_level_and_keeps_it_across_a_restart(durable, monkeypatch):
    played: list[tuple[int, str | None]] = []
    original = type(DOWN_AND_BACK).bot_action

    def spy(self, game, seat, level=None):
        played.append((seat, level))
        return original(self, game, seat, level)

    monkeypatch.setattr(type(DOWN_AND_BACK), "bot_action", spy)
    server = await durable()
    async with ScriptedClient(server.port, "ann") as ann:
        table_id = (await ann.request(m.CreateTable, name="keep", settings=m.TableSettings(seats=3)))["table_id"]
        await ann.request(m.AddBot, level="strong")
        await ann.request(m.AddBot, level="easy")
        token = ann.link.token
        await server.close(grace=1.0)  # a shutdown is not a goodbye: the table and its seats are kept
    again = await durable()
    async with ScriptedClient(again.port, "ann", token) as ann:
        assert ann.link.welcome.table_id == table_id
        await ann.wait_for(lambda: ann.facts and len(ann.table["members"]) == 3)
        assert [ann.member(s)["level"] for s in (1, 2)] == ["strong", "easy"]
        await ann.request(m.Start)
        both = lambda: {1, 2} <= {seat for seat, _ in played}  # noqa: E731
        while not both():  # ann plays her turns until both bots have played theirs
            if await ann.wait_for(lambda: both() or (ann.views and ann.view["legal"])) is True:
                break
            try:
                await ann.act(baseline_action(ann.view).to_data())
            except RequestFailed:
                pass  # a stale view: the game moved on first
    assert {seat: level for seat, level in played} == {1: "strong", 2: "easy"}
