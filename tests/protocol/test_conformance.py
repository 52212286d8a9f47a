"""The server against docs/PROTOCOL.md: error codes, results, views and events, over real sockets.

The spec's tables are read from PROTOCOL.md itself (:mod:`protocol_spec`), so a
field or code added to the server but not the spec, or the reverse, fails here.
"""

from __future__ import annotations

import pytest

from client.link import RequestFailed
from protocol import messages as m
from scripted import autoplay


async def failure(call) -> str:
    """The error code a request is answered with (it must fail)."""
    with pytest.raises(RequestFailed) as info:
        await call
    return info.value.code


async def test_act_and_sit_out_from_the_lobby_are_not_seated(connect):
    async with connect("ann") as ann:
        assert await failure(ann.act({"kind": "take_stock"})) == "not_seated"
        assert await failure(ann.request(m.SitOut, away=True)) == "not_seated"


async def test_act_and_sit_out_before_the_start_and_after_the_end_are_no_game(connect):
    async with connect("ann") as ann:
        await ann.request(m.CreateTable, name="early", settings=m.TableSettings(seats=2))
        await ann.request(m.AddBot)
        assert await failure(ann.act({"kind": "cut", "position": 20})) == "no_game"
        assert await failure(ann.request(m.SitOut, away=True)) == "no_game"
        await ann.request(m.Start)
        await autoplay(ann, until_round=0, host=True)
        assert ann.view["phase"] == "over"
        assert await failure(ann.act({"kind": "take_stock"})) == "no_game"
        assert await failure(ann.request(m.SitOut, away=False)) == "no_game"


async def test_a_spectator_acting_is_not_seated(connect):
    async with connect("ann") as ann, connect("sam") as sam:
        created = await ann.request(m.CreateTable, name="watched", settings=m.TableSettings(seats=2))
        await ann.request(m.AddBot)
        await sam.request(m.Watch, table_id=created["table_id"])
        await ann.request(m.Start)
        assert await failure(sam.act({"kind": "cut", "position": 20})) == "not_seated"
        assert await failure(sam.request(m.SitOut, away=True)) == "not_seated"


async def test_spectators_get_split_and_players_who_left_the_finished_table_keep_bot_and_connected(connect):
    async with connect("ann") as ann, connect("bob") as bob, connect("sam") as sam:
        created = await ann.request(m.CreateTable, name="over", settings=m.TableSettings(seats=2))
        await bob.request(m.Join, table_id=created["table_id"])
        await sam.request(m.Watch, table_id=created["table_id"])
        await ann.request(m.Start)
        await sam.wait_for(lambda: sam.view["phase"] == "cut")
        assert "split" in sam.view and sam.view["split"] is None
        await ann.request(m.EndGame)
        await bob.wait_for(lambda: bob.view["phase"] == "over")
        await bob.request(m.Leave)
        view = await ann.wait_for(lambda: ann.view["table"]["state"] == "finished" and len(ann.view["table"]) and
                                  not ann.view["players"][1]["connected"] and ann.view)
        assert view["phase"] == "over"
        assert {p["seat"]: (p["bot"], p["connected"]) for p in view["players"]} == {0: (False, True), 1: (False, False)}
