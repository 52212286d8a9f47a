"""Writes that fail: never a gap in a log, never a frozen server, never a lie about why.

* another program holding the write lock: the asker gets ``busy`` at once, the
  game is unchanged, others are served, timer steps wait and retry, and the
  restart restores everything (``test_a_busy_database_answers_busy_and_changes_nothing``);
* a write failing inside a request (not at the commit): nothing of it is sent,
  nothing later is committed, the server stops, and the restart restores the
  last commit with no gap (``test_a_write_failing_inside_a_request_leaves_no_gap``).
"""

from __future__ import annotations

import asyncio
import sqlite3
from contextlib import AsyncExitStack

import pytest

from client.link import RequestFailed
from engine.bots import baseline_action
from protocol import messages as m
from scripted import ScriptedClient
from server.lobby import Lobby, LobbyConfig
from server.net import GameServer
from server.store import DB_NAME, Store
from server.table import TableConfig


@pytest.fixture
async def durable(tmp_path, table_config, net_config):
    """``await durable(**config)`` starts a server on ``tmp_path``'s database (closed at the end)."""
    servers: list[GameServer] = []

    async def start(**overrides) -> GameServer:
        config = LobbyConfig(**{"table": table_config, "seed": b"failures", "store": Store.open_dir(tmp_path),
                                **overrides})
        server = GameServer(Lobby(config, "dab-server test"), net_config)
        await server.start("127.0.0.1", 0)
        servers.append(server)
        return server

    yield start
    for server in servers:
        if not server.shutting_down:
            await server.close(grace=1.0)


async def my_turn(client: ScriptedClient, table_id: str) -> dict:
    return await client.wait_for(lambda: client.views[table_id]["legal"] and client.views[table_id])


async def test_a_busy_database_answers_busy_and_changes_nothing(durable, tmp_path):
    server = await durable(table=TableConfig(turn_timeout=30.0, bot_delay=0.3, away_delay=0.0, round_pause=0.0))
    async with AsyncExitStack() as stack:
        ann = await stack.enter_async_context(ScriptedClient(server.port, "ann"))
        bob = await stack.enter_async_context(ScriptedClient(server.port, "bob"))
        tid = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2)))["table_id"]
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        table = server.lobby.tables[tid]
        acked = []
        for _ in range(4):
            view = await my_turn(ann, tid)
            acked.append((view["seat"], baseline_action(view).to_data(), (await ann.act(baseline_action(view).to_data()))["seq"]))
        before = table.game.to_data()
        other = sqlite3.connect(tmp_path / DB_NAME, isolation_level=None)  # say, a backup tool
        other.execute("BEGIN IMMEDIATE")
        try:
            if table.game.to_act() == [ann.link.welcome.seat]:
                with pytest.raises(RequestFailed) as info:
                    await asyncio.wait_for(ann.act(baseline_action(await my_turn(ann, tid)).to_data()), 1.0)
                assert info.value.code == "busy" and "try again" in info.value.message
            with pytest.raises(RequestFailed) as info:
                await asyncio.wait_for(bob.request(m.CreateTable, name="b", settings=m.TableSettings(seats=2)), 1.0)
            assert info.value.code == "busy"
            await asyncio.wait_for(bob.request(m.Ping), 1.0)  # what needs no write is served as usual
            # The bot's move (due after 0.3 s) finds the lock taken and waits for it, armed.
            loop = asyncio.get_running_loop()
            waited = loop.create_future()
            loop.call_later(0.8, waited.set_result, None)
            await waited
            assert table.game.to_data() == before and table.timing_problems() == []
        finally:
            other.execute("ROLLBACK")
            other.close()
        for _ in range(3):  # the game moves on, the bot included
            view = await my_turn(ann, tid)
            action = baseline_action(view).to_data()
            acked.append((view["seat"], action, (await ann.act(action))["seq"]))
        assert len(table.game.history) > len(before["history"]) + 3
        await server.close(grace=1.0)
    server = await durable()
    history = server.lobby.tables[tid].game.history  # restored: no gap, every acknowledged action in place
    for seat, action, seq in acked:
        assert history[seq] == (seat, action)


class FailingWrites:
    """The store's connection, with the next statement starting ``prefix`` failing like a full disk."""

    def __init__(self, conn: sqlite3.Connection, prefix: str) -> None:
        self.conn, self.prefix = conn, prefix

    def execute(self, sql, params=()):
        if self.prefix and sql.startswith(self.prefix):
            self.prefix = ""
            raise sqlite3.OperationalError("database or disk is full")
        return self.conn.execute(sql, params)

    def __getattr__(self, name):
        return getattr(self.conn, name)


@pytest.mark.parametrize("group_commit", [False, True])
async def test_a_write_failing_inside_a_request_leaves_no_gap(durable, group_commit, timing_watch):
    failures: list[BaseException] = []
    server = await durable(on_fatal=failures.append, group_commit=group_commit)
    async with AsyncExitStack() as stack:
        ann = await stack.enter_async_context(ScriptedClient(server.port, "ann"))
        tid = (await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2)))["table_id"]
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        acked = []
        for _ in range(3):
            view = await my_turn(ann, tid)
            action = baseline_action(view).to_data()
            acked.append((view["seat"], action, (await ann.act(action))["seq"]))
        store = server.lobby.store
        store.conn = FailingWrites(store.conn, "INSERT INTO actions")
        views = len(ann.all_views)
        for _ in range(2):  # the failed one, then one more: nothing may be written after the failure
            view = await my_turn(ann, tid)
            try:
                await asyncio.wait_for(ann.act(baseline_action(view).to_data()), 0.5)
            except RequestFailed as exc:
                assert exc.code == "internal"
            except asyncio.TimeoutError:
                assert group_commit  # the reply waits for a commit that never comes (the process exits)
            else:
                raise AssertionError("an action whose write failed was acknowledged")
        assert failures and "disk is full" in str(failures[0])
        assert len(ann.all_views) == views  # nobody was told about the failed action
        store.conn = store.conn.conn
        timing_watch.clear()  # in production the process is gone by now: its timers do not matter
        await server.close(grace=1.0)  # what the exit does in production: nothing more is committed
    server = await durable()  # the restart comes up: the log has no gap
    history = server.lobby.tables[tid].game.history
    for seat, action, seq in acked:
        assert history[seq] == (seat, action)
