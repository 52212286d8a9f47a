"""The tail (issue 19): the first bot move or timeout after a start does not stall other tables,
and the server measures its own event loop's lag for the operator (``server.health``).

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
import json
import logging
import re
import socket
import time

import pytest

from client.link import RequestFailed
from durability_helpers import ServerProcess
from protocol import messages as m
from scripted import ScriptedClient
from server.__main__ import main as cli_main
from server.health import LoopMonitor
from server.net import NetConfig

BOTS = 3


async def ping_times(client: ScriptedClient, count: int) -> list[float]:
    times = []
    for _ in range(count):
        started = time.perf_counter()
        await client.request(m.Ping)
        times.append(time.perf_counter() - started)
    return times


ATTEMPTS = 3  # a stall is there every time; a loaded machine's scheduling spike is not


async def test_first_bot_move_after_a_start_does_not_delay_another_tables_reply(tmp_path):
    results = []
    for attempt in range(ATTEMPTS):
        baseline, during = await _pings_around_the_first_moves(tmp_path / str(attempt))
        limit = 2 * max(baseline) + 0.005
        results.append(f"baseline max {max(baseline) * 1000:.1f} ms, around the first moves max "
                       f"{max(during) * 1000:.1f} ms over {len(during)} pings")
        print(results[-1])
        if max(during) <= limit:
            return
    raise AssertionError("a ping was delayed around the first bot move in every attempt: " + "; ".join(results))


async def _pings_around_the_first_moves(tmp_path) -> tuple[list[float], list[float]]:
    """The pinger's round trips on a fresh server: its baseline, and those while the first engine moves happen."""
    tmp_path.mkdir()
    # The bots wait a little, so the pings around their first move begin after the start's own reply.
    server = ServerProcess(tmp_path, "--bot-delay", "0.5", "--turn-timeout", "1", "--request-rate", "100000")
    await server.start()
    try:
        async with ScriptedClient(server.port, "pinger") as pinger, ScriptedClient(server.port, "host") as host:
            await pinger.request(m.CreateTable, name="other", settings=m.TableSettings(seats=2))
            await host.request(m.CreateTable, name="bots", settings=m.TableSettings(seats=BOTS + 1))
            for _ in range(BOTS):
                await host.request(m.AddBot)
            bots = {member["seat"] for member in host.table["members"] if member["bot"]}
            baseline = await ping_times(pinger, 200)

            before = len(host.events)  # (the bots' seats were told: joined)

            def engine_moved() -> bool:  # a bot acted, or the server played the host's timeout
                return any(e.get("kind") == "timeout" or (e.get("seat") in bots and e.get("kind") not in ("cut", "deal"))
                           for e in host.events[before:])

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
    return baseline, during


class _Lines(logging.Handler):
    """Collects the health lines and wakes the test when one comes."""

    def __init__(self) -> None:
        super().__init__()
        self.lines: list[str] = []
        self.came = asyncio.Event()

    def emit(self, record: logging.LogRecord) -> None:
        if record.getMessage().startswith("health:"):
            self.lines.append(record.getMessage())
            self.came.set()


async def test_the_health_line_reports_the_loops_lag_and_the_traffic():
    counts = [0, 0]
    lines = _Lines()
    logger = logging.getLogger("dab-server")
    level = logger.level
    logger.setLevel(logging.INFO)  # as dab-server runs it
    logger.addHandler(lines)
    monitor = LoopMonitor(lambda: (counts[0], counts[1], 3, 2), period=0.3)
    try:
        counts[:] = [30, 60]
        time.sleep(0.12)  # noqa: ASYNC251 - the stall the monitor must see, not a wait
        await asyncio.wait_for(lines.came.wait(), 5)
    finally:
        monitor.close()
        logger.removeHandler(lines)
        logger.setLevel(level)
    found = re.match(r"health: loop lag p50 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms; ([\d.]+) actions/s, "
                     r"([\d.]+) requests/s; 3 connections, 2 tables$", lines.lines[0])
    assert found, lines.lines[0]
    p50, p99, worst, actions, requests = map(float, found.groups())
    assert worst >= 60 and p50 <= p99 <= worst  # the 120 ms stall (from the first tick, due after 50 ms)
    assert actions > 0 and requests == pytest.approx(2 * actions, rel=0.01)  # 30 and 60 in the same period (rounded)


async def test_the_server_counts_requests_actions_connections_and_tables(server, connect):
    assert server.monitor is not None
    server.monitor.take()  # a period from now
    async with connect("ann") as ann, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2))
        await bob.request(m.Join, table_id=created["table_id"])
        await ann.request(m.Start)
        await ann.wait_for(lambda: ann.view.get("to_act"))
        figures = server.monitor.take()
    assert figures.connections == 2 and figures.tables == 1
    assert figures.requests_per_s > 0 and figures.actions_per_s > 0  # the start's deal is an action
    assert figures.lag_max >= figures.lag_p99 >= figures.lag_p50 >= 0


async def test_stats_tells_any_player_the_servers_health_and_nothing_private(server, connect):
    async with connect("ann") as ann, connect("bob") as bob:
        created = await ann.request(m.CreateTable, name="Ann's secret table", settings=m.TableSettings(seats=2),
                                    private_code="hush")
        await bob.request(m.Join, table_id=created["table_id"], private_code="hush")
        await ann.request(m.Start)
        await ann.wait_for(lambda: ann.view.get("to_act"))
        server.monitor.take()  # a report went out: stats still covers the last period too
        stats = await bob.request(m.Stats)
        assert set(stats) == {"uptime_s", "period_s", "lag_p50_ms", "lag_p99_ms", "lag_max_ms", "actions_per_s",
                              "requests_per_s", "connections", "tables", "tables_playing"}
        assert all(isinstance(value, (int, float)) for value in stats.values())  # counts and figures only
        assert (stats["connections"], stats["tables"], stats["tables_playing"]) == (2, 1, 1)
        assert stats["requests_per_s"] > 0 and stats["actions_per_s"] > 0
        assert stats["lag_max_ms"] >= stats["lag_p99_ms"] >= stats["lag_p50_ms"] >= 0
        assert 0 <= stats["period_s"] <= stats["uptime_s"] + 0.1  # since the start here (the first report)
    server.net.rate, server.net.burst = NetConfig.rate, NetConfig.burst  # rate-limited like any request: 40 at once
    async with connect("cat") as cat:
        replies = await asyncio.gather(*(cat.request(m.Stats) for _ in range(60)), return_exceptions=True)
    assert sum(isinstance(r, RequestFailed) and r.code == "rate_limited" for r in replies) >= 15


async def test_dab_server_stats_prints_the_figures_for_a_host(server, connect, capsys):
    async with connect("ann") as ann:
        await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2))
        code = await asyncio.to_thread(cli_main, ["stats", "--host", "127.0.0.1", "--port", str(server.port)])
        out = capsys.readouterr().out
        assert code == 0, out
        assert re.search(r"event-loop lag over the last \d+ s: p50 [\d.]+ ms, p99 [\d.]+ ms, max [\d.]+ ms", out), out
        assert "2 connections, 1 tables (0 playing)" in out  # ann and the stats client itself
        code = await asyncio.to_thread(cli_main, ["stats", "--port", str(server.port), "--json"])
        assert code == 0 and json.loads(capsys.readouterr().out)["tables"] == 1
    free = socket.socket()
    free.bind(("127.0.0.1", 0))
    port = free.getsockname()[1]
    free.close()
    assert await asyncio.to_thread(cli_main, ["stats", "--port", str(port)]) == 2
    assert "dab-server stats: error: 127.0.0.1:" in capsys.readouterr().err
