"""Joining a running table sits you in at the next deal (issue 12, item 7).

* a player joining mid-round gets a free seat at once, buys in, sees the round
  go on without them and is dealt in from the next round; the table comes back
  after a restart with them seated (``test_a_player_joining_mid_round_is_dealt_in_at_the_next_deal``);
* a running table whose seats are all taken says so (``table_full``), and a
  finished one offers watching (``test_a_full_or_finished_table_says_why_you_cannot_sit_in``).
"""

from __future__ import annotations

import asyncio
from contextlib import AsyncExitStack

import pytest

from client.link import RequestFailed
from protocol import messages as m
from scripted import ScriptedClient, autoplay, play_until


def me(view: dict, seat: int) -> dict:
    return next(p for p in view["players"] if p["seat"] == seat)


async def test_a_player_joining_mid_round_is_dealt_in_at_the_next_deal(durable):
    server = await durable()
    async with AsyncExitStack() as stack:
        ann, cat = [await stack.enter_async_context(ScriptedClient(server.port, n)) for n in ("ann", "cat")]
        table_id = (await ann.request(m.CreateTable, name="open", settings=m.TableSettings(seats=3, rules={"stack": 100})))[
            "table_id"]
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await ann.wait_for(lambda: ann.view.get("phase") not in (None, "waiting"))
        balance = (await cat.request(m.ListTables))["balance"]
        joined = await cat.request(m.Join, table_id=table_id)
        seat = joined["seat"]
        assert joined["table_id"] == table_id and seat == 2
        view = await cat.wait_for(lambda: cat.views.get(table_id))
        assert view["hand"] == [] and view["legal"] == [] and not me(view, seat)["in_round"]
        assert me(view, seat)["stack"] == 100 and view["round"] == 1  # bought in; this round goes on without them
        assert (await cat.request(m.ListTables))["balance"] == balance - 100
        await ann.wait_for(lambda: any(e["kind"] == "sit_in" and e["seat"] == seat for e in ann.events))
        await play_until([ann, cat], lambda: cat.view["round"] == 2)
        assert me(cat.view, seat)["in_round"] and me(cat.view, seat)["stack"] == 90  # dealt in, anted
        tokens = {c.name: c.link.token for c in (ann, cat)}
        await server.close(grace=1.0)

    server = await durable()  # the log replays the sit-in; the ledger audit agrees
    async with ScriptedClient(server.port, "cat", tokens["cat"]) as cat:
        assert (cat.link.welcome.table_id, cat.link.welcome.seat) == (table_id, seat)
        view = await cat.wait_for(lambda: cat.views.get(table_id))
        assert me(view, seat)["in_round"] and len(view["hand"]) in (0, 7)


async def test_a_full_or_finished_table_says_why_you_cannot_sit_in(server):
    async with AsyncExitStack() as stack:
        ann, bob, cat = [await stack.enter_async_context(ScriptedClient(server.port, n)) for n in ("ann", "bob", "cat")]
        table_id = (await ann.request(m.CreateTable, name="full", settings=m.TableSettings(seats=2, rules={"stack": 100})))[
            "table_id"]
        await bob.request(m.Join, table_id=table_id)
        await ann.request(m.Start)
        with pytest.raises(RequestFailed) as full:
            await cat.request(m.Join, table_id=table_id)
        assert full.value.code == "table_full"
        await asyncio.wait_for(asyncio.gather(autoplay(ann, 1, host=True), autoplay(bob, 0)), 30)
        with pytest.raises(RequestFailed) as over:
            await cat.request(m.Join, table_id=table_id)
        assert over.value.code == "game_running" and "watch" in str(over.value)
