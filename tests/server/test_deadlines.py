"""Turn deadlines: each decision gets the whole turn time, however the timer is kept."""

from __future__ import annotations

import asyncio

from engine.game import PLAY
from protocol import messages as m

TURN = 0.6


async def test_a_decision_made_late_gives_the_next_one_its_full_time(server, connect):
    server.lobby.config.table.turn_timeout = TURN
    loop = asyncio.get_running_loop()
    async with connect("ann") as ann, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="clock", settings=m.TableSettings(seats=2))
        await bob.request(m.Join, table_id=created["table_id"])
        await ann.request(m.Start)
        table = server.lobby.tables[created["table_id"]]
        await ann.wait_for(lambda: table.game.phase == PLAY)  # the cut timed out or was made
        seat = table.game.turn_seat
        player = ann if ann.view["seat"] == seat else bob
        await player.wait_for(lambda: player.view["legal"] and player.view["legal"][0]["kind"] == "take_stock")
        await asyncio.sleep(TURN * 0.6)  # use most of the draw's time on purpose
        seen = len(player.events)
        await player.act({"kind": "take_stock"})
        acted = loop.time()
        assert TURN * 1000 - 100 <= player.view["deadline_ms"] <= TURN * 1000
        await player.wait_for(lambda: any(e["kind"] == "timeout" and e["seat"] == seat for e in player.events[seen:]))
        waited = loop.time() - acted
        assert TURN - 0.05 <= waited < TURN + 0.5  # not at the draw's deadline, and not never
        assert table.game.players[seat].turns_taken >= 1  # the discard was played for the seat
