"""Issue 32 item 15: requests about the past are budgeted per address and answered off the event loop.

Real servers on ephemeral ports, scripted clients. A replay that takes as long
as it likes (the engine slowed in this process; the worker process stopped with
SIGSTOP) must delay nobody else, and the asker's own replies keep the order of
its requests; ten connections from one address share one budget.
"""

from __future__ import annotations

import asyncio
import os
import signal
import sys
import time

import pytest

import server.archive
from client.link import RequestFailed
from protocol import messages as m
from scripted import ScriptedClient, autoplay
from server.lobby import Lobby, LobbyConfig
from server.net import GameServer, NetConfig

from durability_helpers import ServerProcess
from test_past import full_replay

try:
    import server.history_worker as history_worker
except ImportError:  # a server without one (before issue 32) answers on its event loop
    history_worker = None


async def played_round(port: int, name: str = "ann") -> tuple[ScriptedClient, str]:
    """A client (connected; the caller closes it) that played one heads-up round against a bot, now over."""
    client = ScriptedClient(port, name)
    await client.link.connect()
    created = await client.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2))
    await client.request(m.AddBot)
    await client.request(m.Start)
    await autoplay(client, until_round=1, host=True)
    return client, created["table_id"]


async def ping_times(client: ScriptedClient, stop: asyncio.Event) -> list[float]:
    """Ping round trips, one after another, until ``stop``."""
    times = []
    while not stop.is_set():
        sent = time.perf_counter()
        await client.request(m.Ping)
        times.append(time.perf_counter() - sent)
        await asyncio.sleep(0.02)
    return times


@pytest.fixture(params=["memory", "durable"])
async def worker_server(request, tmp_path, table_config, net_config):
    """A server answering history in its worker process, keeping nothing or on a database."""
    store = None
    if request.param == "durable":
        from server.store import Store

        store = Store.open_dir(tmp_path)
    game_server = GameServer(Lobby(LobbyConfig(table=table_config, seed=b"worker", store=store), "dab-server test"),
                             net_config)
    await game_server.start("127.0.0.1", 0)
    yield game_server
    if not game_server.shutting_down:
        await game_server.close(grace=1.0)


async def test_a_slow_replay_delays_no_other_player(worker_server, monkeypatch):
    """The engine's replay is made to take 4 s wherever this process would run it: another player's pings
    meanwhile are answered without waiting for it (within 2.5 s even on a loaded machine), and the replay
    itself is the round's, whole."""
    from engine.replay import replay_steps as real

    def slow(*args, **kwargs):
        time.sleep(4.0)
        return real(*args, **kwargs)

    for module in (history_worker, server.archive):  # the archive ran replays on the event loop before
        if module is not None:
            monkeypatch.setattr(module, "replay_steps", slow, raising=False)
    ann, table_id = await played_round(worker_server.port)
    async with ScriptedClient(worker_server.port, "bob") as bob:
        stop = asyncio.Event()
        pings = asyncio.ensure_future(ping_times(bob, stop))
        replay = await full_replay(ann, table_id, 1)
        stop.set()
        times = await pings
    await ann.link.close()
    assert replay["seat"] == 0 and replay["total"] == len(replay["steps"]) > 10
    assert max(times) < 2.5, f"a ping waited {max(times):.2f} s for someone else's replay"


async def test_a_stuck_worker_holds_only_its_askers_later_replies_in_order(worker_server):
    ann, table_id = await played_round(worker_server.port)
    async with ScriptedClient(worker_server.port, "bob") as bob:
        await full_replay(ann, table_id, 1)  # the worker runs
        worker = worker_server.lobby.archive.worker._proc
        os.kill(worker.pid, signal.SIGSTOP)  # as slow as can be
        try:
            answered: list[str] = []

            async def ask(kind, **fields):
                await ann.request(kind, **fields)
                answered.append(kind.type)

            replay = asyncio.ensure_future(ask(m.Replay, table_id=table_id, round=1, from_step=1))
            ping = asyncio.ensure_future(ask(m.Ping))  # pipelined behind the replay
            for _ in range(5):  # everyone else is served meanwhile (the worker waits for ever)
                await asyncio.wait_for(bob.request(m.Ping), 5)
            await bob.request(m.ListTables)
            assert answered == []  # ann's ping waits for her replay's answer
        finally:
            os.kill(worker.pid, signal.SIGCONT)
        await asyncio.wait_for(asyncio.gather(replay, ping), 10)
        assert answered == ["replay", "ping"]
    await ann.link.close()


async def test_a_dead_worker_is_replaced_and_ends_with_the_server(worker_server):
    ann, table_id = await played_round(worker_server.port)
    await full_replay(ann, table_id, 1)
    worker = worker_server.lobby.archive.worker._proc
    os.kill(worker.pid, signal.SIGKILL)
    await worker.wait()
    try:  # the job in hand when it died may be told internal; the next one gets a new worker
        replay = await full_replay(ann, table_id, 1)
    except RequestFailed as exc:
        assert exc.code == "internal"
        replay = await full_replay(ann, table_id, 1)
    assert replay["total"] == len(replay["steps"])
    again = worker_server.lobby.archive.worker._proc
    assert again.pid != worker.pid and again.returncode is None
    await ann.link.close()
    await worker_server.close(grace=1.0)
    assert again.returncode is not None  # ended (and reaped) with the server


async def test_ten_connections_from_one_address_share_one_history_budget(table_config):
    """Each connection alone may send 8 replay requests at once (5 messages each: its whole burst of 40);
    ten connections from 127.0.0.1 together get the address's one budget, about 8 in all."""
    net = NetConfig(rate=20.0, burst=40.0)
    game_server = GameServer(Lobby(LobbyConfig(table=table_config, seed=b"budget"), "dab-server test"), net)
    await game_server.start("127.0.0.1", 0)
    try:
        clients = [ScriptedClient(game_server.port, f"p{i}") for i in range(10)]
        for client in clients:
            await client.link.connect()
        started = time.monotonic()

        async def ask(client: ScriptedClient) -> str:
            try:
                await client.request(m.Replay, table_id="t1", round=1)
            except RequestFailed as exc:
                return exc.code
            return "ok"

        codes = await asyncio.gather(*(ask(c) for c in clients for _ in range(8)))
        elapsed = time.monotonic() - started
        answered = [code for code in codes if code != "rate_limited"]
        assert answered and set(answered) == {"no_such_round"}
        # (the defaults of NetConfig.history_burst and history_rate: a server before them has neither)
        burst, rate = getattr(net, "history_burst", 40.0), getattr(net, "history_rate", 10.0)
        allowed = (burst + elapsed * rate) / 5
        assert len(answered) <= allowed + 1, (len(answered), allowed)
        for client in clients:  # a refusal of the address's budget is no flood of the connection
            assert client.closed_with is None
            await client.link.close()
    finally:
        await game_server.close(grace=1.0)


@pytest.mark.skipif(not sys.platform.startswith("linux"), reason="PR_SET_PDEATHSIG is Linux's")
async def test_the_worker_starts_with_the_first_request_and_dies_with_a_killed_server(tmp_path):
    """A dab-server nobody asked about the past runs no worker; kill -9 of one that did leaves none behind."""
    server = ServerProcess(tmp_path)
    await server.start()
    try:
        def children() -> list[int]:
            found = []
            for task in os.listdir(f"/proc/{server.process.pid}/task"):
                with open(f"/proc/{server.process.pid}/task/{task}/children") as f:
                    found += [int(p) for p in f.read().split()]
            return found

        async with ScriptedClient(server.port, "ann") as ann:
            await ann.request(m.ListTables)
            assert children() == []
            assert (await ann.request(m.PastRounds))["rounds"] == []  # answered by the worker
            (worker,) = children()
    finally:
        await server.close()  # SIGKILL
    deadline = time.monotonic() + 10
    while os.path.exists(f"/proc/{worker}") and _state(worker) != "Z":
        assert time.monotonic() < deadline, "the history worker outlived the killed server"
        await asyncio.sleep(0.05)


def _state(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0]
    except FileNotFoundError:
        return "gone"
