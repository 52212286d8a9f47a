"""A few seconds of garbage at a live server while an honest game plays (issue 11).

The long form, a million frames with the honest table's latency, is
``benchmarks/bench_fuzz.py``.
"""

from __future__ import annotations

import asyncio
import logging
import random

from protocol import messages as m

from fuzzing import FuzzStats, documented_error_codes, fuzz_connections
from scripted import autoplay

FUZZ_SECONDS = 3.0
FUZZERS = 6
HONEST_ROUNDS_WITHIN = 30.0  # seconds of attack the honest game may take for two rounds


async def test_garbage_from_many_connections_breaks_nothing_and_the_honest_game_goes_on(server, connect, caplog):
    caplog.set_level(logging.WARNING)
    seed = random.randrange(2 ** 32)
    stats, stop = FuzzStats(), asyncio.Event()
    async with connect("ann") as ann, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="honest", settings=m.TableSettings(seats=2))
        await bob.request(m.Join, table_id=created["table_id"])
        await ann.request(m.Start)
        table = server.lobby.tables[created["table_id"]]
        honest = asyncio.gather(autoplay(ann, 10_000, host=True), autoplay(bob, 10_000))
        fuzzers = [asyncio.ensure_future(fuzz_connections(server.port, random.Random(seed + i), stats, stop))
                   for i in range(FUZZERS)]
        start_round = table.game.round_no
        await asyncio.sleep(FUZZ_SECONDS)  # the least length of the attack, not a synchronisation
        # The attack goes on until the honest game has played two rounds through it: on a loaded
        # machine that takes longer than the attack's least length, and a stalled game never does.
        deadline = asyncio.get_running_loop().time() + HONEST_ROUNDS_WITHIN
        while table.game.round_no < start_round + 2 and asyncio.get_running_loop().time() < deadline:
            await asyncio.sleep(0.05)
        stop.set()
        await asyncio.wait_for(asyncio.gather(*fuzzers), 10)
        assert table.game.round_no >= start_round + 2, f"the honest game stalled (seed {seed})"
        await ann.request(m.EndGame)
        await asyncio.wait_for(honest, 20)
        assert ann.view["phase"] == "over" and await bob.request(m.Ping) == {}
    assert stats.frames > 1000 and stats.connections > 20, stats
    assert stats.codes <= documented_error_codes(), (stats.codes - documented_error_codes(), seed)
    loud = [r for r in caplog.records if r.levelno >= logging.ERROR or r.exc_info or "socket.send()" in r.getMessage()]
    assert not loud, (seed, [r.getMessage() for r in loud[:5]])
