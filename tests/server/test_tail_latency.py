"""The tail (issue 19): the first bot move or timeout after a start does not stall other tables.

A fresh ``dab-server`` process (so no earlier test built the games' tables in
it) serves two clients: one pings in a loop, the other starts a game with
bots. The pinger's round trips while the first engine-driven moves happen are
compared with its own baseline (as many pings again, before and after, on
the same server), so the test holds on a loaded machine. Before the server warmed the games' lookup
tables when it started, that first move built them on the event loop and
delayed every table's reply by about 0.4-0.8 s.
"""

from __future__ import annotations

import asyncio
import time

from durability_helpers import ServerProcess
from protocol import messages as m
from scripted import ScriptedClient

BOTS = 3


async def ping_times(client: ScriptedClient, count: int) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        await client.request(m.Ping)
        times.append(time.perf_counter() - started)
    return times


async def test_first_bot_move_after_a_start_does_not_delay_another_tables_reply(tmp_path):
    # The bots wait a little, so the pings around their first move begin after the start's own reply.
    server = ServerProcess(tmp_path, "--bot-delay", "0.2", "--turn-timeout", "0.5", "--request-rate", "2000")
    await server.start()
    try:
        async with ScriptedClient(server.port, "pinger") as pinger, ScriptedClient(server.port, "host") as host:
            await pinger.request(m.CreateTable, name="other", settings=m.TableSettings(seats=2))
            await host.request(m.CreateTable, name="bots", settings=m.TableSettings(seats=BOTS + 1))
            for _ in range(BOTS):
                await host.request(m.AddBot)
            bots = {member["seat"] for member in host.table["members"] if member["bot"]}
            baseline = await ping_times(pinger, 200)

            def engine_moved() -> bool:  # a bot acted, or the server played the host's timeout
                return any(e.get("kind") == "timeout" or (e.get("seat") in bots and e.get("kind") not in ("cut", "deal"))
                           for e in host.events)

            during: list[float] = []

            async def ping_until_moved() -> None:
                while not engine_moved():
                    during.extend(await ping_times(pinger, 1))
                during.extend(await ping_times(pinger, 5))  # the replies queued behind the move, if any

            await host.request(m.Start)
            assert not engine_moved()
            pinging = asyncio.ensure_future(ping_until_moved())
            await host.wait_for(engine_moved, timeout=10)
            await asyncio.wait_for(pinging, 10)
            baseline += await ping_times(pinger, len(during))  # as many again, warm, while the bots play on
    finally:
        await server.close()
    limit = 2 * max(baseline) + 0.005
    print(f"baseline max {max(baseline) * 1000:.2f} ms; around the first moves max {max(during) * 1000:.2f} ms "
          f"over {len(during)} pings")
    assert max(during) <= limit, f"a ping took {max(during) * 1000:.0f} ms around the first bot move " \
                                 f"(baseline max {max(baseline) * 1000:.1f} ms)"
