"""The lobby's state pushes (``tables``, ``online``) per connection: coalesced, the newest always arriving,
and a table's own traffic never waiting for them (issue 30; PROTOCOL.md §5.2 ``tables``, ``online``)."""

from __future__ import annotations

import asyncio
import socket
import time

import pytest

from protocol import messages as m
from protocol.framing import FrameDecoder, encode_frame
from scripted import ScriptedClient, until
from server.net import NetConfig

HOSTS = 16  # tables in the lobby: each list some kilobytes, so a few fill a slow reader's buffers
NAME = "a long table name so that every list is a few kilobytes {:03}"[:m.TABLE_NAME_MAX]


@pytest.fixture
def net_config() -> NetConfig:
    return NetConfig(rate=1000.0, burst=1000.0, new_players_per_hour=1000, max_per_address=200)


class Counting(ScriptedClient):
    """A scripted lobby client that counts the lists pushed to it."""

    def __init__(self, port: int, name: str) -> None:
        super().__init__(port, name)
        self.lists: list[tuple[m.TableSummary, ...]] = []

    def _push(self, message: m.Message) -> None:
        if isinstance(message, m.Tables):
            self.lists.append(message.tables)
        super()._push(message)


def spectators(tables: tuple[m.TableSummary, ...], table_id: str) -> int | None:
    return next((t.spectators for t in tables if t.table_id == table_id), None)


async def hosts(port: int, count: int) -> list[tuple[ScriptedClient, str]]:
    """``count`` hosts, each at a table of its own (and its id)."""
    clients = []
    for i in range(count):
        client = ScriptedClient(port, f"host{i}")
        await client.__aenter__()
        clients.append((client, (await client.request(m.CreateTable, name=NAME.format(i)))["table_id"]))
    return clients


async def test_a_burst_of_lobby_changes_reaches_an_idle_lobby_as_a_few_lists_the_last_one_newest(server):
    async with ScriptedClient(server.port, "host") as host, ScriptedClient(server.port, "fan") as fan, \
            Counting(server.port, "idle") as idle:
        table_id = (await host.request(m.CreateTable, name="busy"))["table_id"]
        await idle.wait_for(lambda: spectators(idle.tables, table_id) == 0)
        before, began = len(idle.lists), time.monotonic()
        for _ in range(30):  # 60 changes of what the lobby shows, as fast as requests go
            await fan.request(m.Watch, table_id=table_id)
            await fan.request(m.Leave)
        await fan.request(m.Watch, table_id=table_id)  # the last state: one spectator
        await idle.wait_for(lambda: spectators(idle.tables, table_id) == 1)
        spent = time.monotonic() - began
        pushed = len(idle.lists) - before
        # at most about two a second (PROTOCOL.md), never one per change
        assert pushed <= 2 + spent / 0.5, (pushed, spent)
        assert pushed < 30, pushed
        await host.request(m.Ping)  # and nothing more is owed: no later list undoes the last one
        assert spectators(idle.tables, table_id) == 1 and idle.lists[-1] == idle.tables


async def test_a_lobby_that_does_not_read_is_owed_the_newest_list_not_sent_every_stale_one(server, monkeypatch):
    import server.lobby as lobby_module

    monkeypatch.setattr(lobby_module, "TABLES_PUSH_INTERVAL", 0.01)  # a list for (nearly) every change
    clients = await hosts(server.port, HOSTS)
    try:
        async with ScriptedClient(server.port, "fan") as fan, Counting(server.port, "reader") as reader:
            # A peer that greets and then reads nothing: its buffers fill with lists.
            sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            sock.setblocking(False)
            loop = asyncio.get_running_loop()
            await loop.sock_connect(sock, ("127.0.0.1", server.port))
            await loop.sock_sendall(sock, encode_frame({"type": "hello", "id": 1, "version": m.PROTOCOL_VERSION,
                                                        "name": "sleepy"}))
            await asyncio.wait_for(until(lambda: any(s.player_id for s in server.sessions if s.peer.endswith(
                f":{sock.getsockname()[1]}"))), 10)
            sleepy = next(s for s in server.sessions if s.peer.endswith(f":{sock.getsockname()[1]}"))
            table_id = reader.tables[0].table_id
            list_size = len(m.encode(m.Tables(tables=server.lobby.summaries())))
            changes = 0
            for _ in range(40):  # each change pushed (the reader sees every one), to the sleepy peer too
                for want in (1, 0):
                    await (fan.request(m.Watch, table_id=table_id) if want else fan.request(m.Leave))
                    await reader.wait_for(lambda w=want: spectators(reader.tables, table_id) == w)
                    changes += 1
                    # never more than the list that did not fit is waiting in the server for the sleepy peer
                    assert sleepy.backlog() <= 2 * list_size, (sleepy.backlog(), list_size)
            assert sleepy.backlog() > 0  # (it did fall behind: its kernel buffers are full)
            assert len(reader.lists) >= changes
            last = (await fan.request(m.CreateTable, name="the last change"))["table_id"]  # the last state
            await reader.wait_for(lambda: spectators(reader.tables, last) == 0)

            # Now it reads: it gets what fitted in its buffers, then the newest list, and no stale one after.
            decoder, lists = FrameDecoder(), []

            async def newest_arrives() -> None:
                while not lists or spectators(lists[-1].tables, last) is None:
                    decoder.feed(await loop.sock_recv(sock, 65536))
                    lists.extend(msg for msg in (m.from_wire(frame) for frame in decoder) if isinstance(msg, m.Tables))

            await asyncio.wait_for(newest_arrives(), 10)
            assert len(lists) < changes / 2, (len(lists), changes)
            await fan.request(m.Ping)
            assert sleepy.backlog() == 0  # nothing left for it: the newest list was the last one
            assert server.lobby.players[sleepy.player_id].lobby_owed == set()
            sock.close()
    finally:
        for client, _ in clients:
            await client.__aexit__(None, None, None)


async def test_a_seated_players_views_do_not_wait_for_the_lobbys_lists(server, monkeypatch):
    import server.lobby as lobby_module

    monkeypatch.setattr(lobby_module, "TABLES_PUSH_INTERVAL", 0.01)
    clients = await hosts(server.port, HOSTS)
    lobbies = [Counting(server.port, f"lobby{i}") for i in range(20)]
    try:
        for client in lobbies:
            await client.__aenter__()
        async with ScriptedClient(server.port, "ann") as ann, ScriptedClient(server.port, "bob") as bob, \
                ScriptedClient(server.port, "fan") as fan:
            table_id = (await ann.request(m.CreateTable, name="played", settings=m.TableSettings(seats=2)))["table_id"]
            await bob.request(m.Join, table_id=table_id)
            await ann.request(m.Start)
            busy = clients[0][1]

            async def churn() -> None:  # the lobby's list changing all along: 20 lobbies sent each change
                while True:
                    await fan.request(m.Watch, table_id=busy)
                    await fan.request(m.Leave)

            churner = asyncio.create_task(churn())
            latencies = []
            try:
                from engine.games.down_and_back.bots import baseline_action

                while len(latencies) < 12:
                    player = next((c for c in (ann, bob) if (c.views.get(table_id) or {}).get("legal")), None)
                    if player is None:
                        await ann.wait_for(lambda: any((c.views.get(table_id) or {}).get("legal") for c in (ann, bob)))
                        continue
                    seen, action = len(player.all_views), baseline_action(player.views[table_id]).to_data()
                    sent = time.perf_counter()
                    await player.act(action)
                    await player.wait_for(lambda p=player, s=seen: len(p.all_views) > s)
                    latencies.append(time.perf_counter() - sent)
            finally:
                churner.cancel()
            lists = sum(len(c.lists) for c in lobbies)
            assert lists > 20  # the lobbies were kept busy meanwhile
            # a view follows its action at once, lists or no lists (generous: a loaded machine)
            assert max(latencies) < 1.0, latencies
    finally:
        for client in [*lobbies, *(c for c, _ in clients)]:
            await client.__aexit__(None, None, None)
