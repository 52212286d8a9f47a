"""The ``history`` request: whose rounds, in which order, and what one request may cost."""

from __future__ import annotations

import asyncio
import json
import sqlite3
import time
from types import SimpleNamespace

import pytest

from client.link import RequestFailed
from protocol import messages as m
from scripted import ScriptedClient, autoplay
from server.lobby import Lobby, LobbyConfig
from server.net import GameServer, NetConfig
from server.store import DB_NAME, Store


async def play_a_game(client: ScriptedClient, name: str) -> str:
    """``client`` hosts a heads-up game against a bot, ends it after round 1 and leaves; returns the table id."""
    created = await client.request(m.CreateTable, name=name, settings=m.TableSettings(seats=2, rules={"stack": 100}))
    await client.request(m.AddBot)
    await client.request(m.Start)
    await autoplay(client, until_round=1, host=True)
    await client.request(m.Leave)
    client.views.clear()  # the next table's views are the ones to follow
    return created["table_id"]


@pytest.fixture(params=["memory", "durable"])
async def any_server(request, tmp_path, table_config, net_config):
    store = Store.open_dir(tmp_path) if request.param == "durable" else None
    server = GameServer(Lobby(LobbyConfig(table=table_config, seed=b"history", store=store), "test"), net_config)
    await server.start("127.0.0.1", 0)
    yield server
    await server.close(grace=1.0)


async def test_away_from_tables_history_is_the_last_rounds_you_played_anywhere(any_server):
    async with ScriptedClient(any_server.port, "ann") as ann, ScriptedClient(any_server.port, "bob") as bob:
        first = await play_a_game(ann, "first")
        second = await play_a_game(ann, "second")
        await play_a_game(bob, "not ann's")
        rounds = (await ann.request(m.History, limit=100))["rounds"]
        assert [(r["table_id"], r["round"]) for r in rounds] == [(first, 1), (first, 2), (second, 1), (second, 2)]
        assert [r["abandoned"] for r in rounds] == [False, True, False, True]
        assert (await ann.request(m.History, limit=1))["rounds"] == rounds[-1:]
        assert [r["table_id"] for r in (await bob.request(m.History))["rounds"]] == ["t3", "t3"]


async def test_last_rounds_keep_the_servers_order_when_the_clock_steps_back(tmp_path, table_config, net_config,
                                                                            monkeypatch):
    """Rounds are ordered by the log's own sequence, not by their wall-clock times."""
    clock = SimpleNamespace(now=2_000_000_000.0)
    monkeypatch.setattr(time, "time", lambda: clock.now)  # the wall clock only: asyncio runs on the monotonic one
    config = LobbyConfig(table=table_config, seed=b"clock", store=Store.open_dir(tmp_path))
    server = GameServer(Lobby(config, "test"), net_config)
    await server.start("127.0.0.1", 0)
    try:
        async with ScriptedClient(server.port, "ann") as ann:
            before = await play_a_game(ann, "before the step")
            clock.now -= 86_400.0  # the machine's clock is put back a day
            after = await play_a_game(ann, "after the step")
            rounds = (await ann.request(m.History, limit=3))["rounds"]
            assert [(r["table_id"], r["round"]) for r in rounds] == [(before, 2), (after, 1), (after, 2)]
            assert rounds[0]["finished_at"] > rounds[1]["finished_at"]  # the times do say otherwise
    finally:
        await server.close(grace=1.0)


async def test_a_history_request_reads_only_what_its_reply_holds(tmp_path, table_config, net_config):
    """100 stored rounds of a five-seat table: the largest request costs a few milliseconds, not ~50."""
    store = Store.open_dir(tmp_path)
    server = GameServer(Lobby(LobbyConfig(table=table_config, seed=b"cost", store=store), "test"), net_config)
    await server.start("127.0.0.1", 0)
    try:
        async with ScriptedClient(server.port, "ann") as ann:
            created = await ann.request(m.CreateTable, name="busy", settings=m.TableSettings(rules={"stack": 100_000, "ante": 1}))
            for _ in range(4):
                await ann.request(m.AddBot)
            await ann.request(m.Start)
            await autoplay(ann, until_round=1, host=True)
            (record, public), = store.conn.execute(
                "SELECT record, public FROM rounds WHERE table_id = ? AND round_no = 1", (created["table_id"],)
            ).fetchall()
            for round_no in range(3, 103):  # copies of round 1, each with its whole deal and action log
                store.add_round(created["table_id"], dict(json.loads(record), round=round_no),
                                dict(json.loads(public), round=round_no))
            store.commit()
            lobby, player_id = server.lobby, ann.link.welcome.player_id
            for where in ("at the table", "away from tables"):
                if where == "away from tables":
                    await ann.request(m.Leave)
                costs = []
                for _ in range(5):  # CPU time, which other processes on a loaded machine do not inflate
                    started = time.thread_time()
                    reply = lobby.handle(player_id, m.History(id=1, limit=100))
                    costs.append(time.thread_time() - started)
                assert reply is None  # sent with the unit's flush
                assert min(costs) < 0.015, (where, costs)
            rounds = (await ann.request(m.History, limit=100))["rounds"]
            assert 40 < len(rounds) < 100 and rounds[-1]["round"] == 102  # the newest that fit in 48 KiB
    finally:
        await server.close(grace=1.0)


async def test_history_counts_against_the_rate_limit_by_the_rounds_it_asks_for(table_config):
    """At the default limits (20 a second, bursts of 40) one connection gets at most four
    100-round requests at once and two a second after that."""
    server = GameServer(Lobby(LobbyConfig(table=table_config), "test"), NetConfig())
    await server.start("127.0.0.1", 0)
    try:
        async with ScriptedClient(server.port, "ann") as ann:
            outcomes = await asyncio.gather(*(ann.request(m.History, limit=100) for _ in range(6)),
                                            return_exceptions=True)
            codes = [o.code if isinstance(o, RequestFailed) else "ok" for o in outcomes]
            assert codes == ["ok"] * 3 + ["rate_limited"] * 3 or codes == ["ok"] * 4 + ["rate_limited"] * 2, codes
            # (the hello took one message of the burst: 39 left, so three or four fit)
            assert await ann.request(m.Ping) == {}  # small requests still pass
    finally:
        await server.close(grace=1.0)


def test_rounds_stored_before_the_upgrade_get_their_public_form_and_order(tmp_path):
    """Migration 2 fills in ``public`` and ``seq`` for rounds written by schema 1."""
    store = Store.open_dir(tmp_path)
    store.add_player("p1", "Ann", b"x" * 32, 100)
    table_id = store.create_table("old", "down-and-back", {}, "p1", None)
    base = {"table_id": table_id, "dealer": 0, "cutter": 1, "seats": [0, 1], "names": {"0": "Ann", "1": "Bob"},
            "first_seq": 0, "last_seq": 0, "actions": [], "log": [], "result": None, "pot": 20,
            "stacks": {"0": 90, "1": 90}}
    for round_no, at in ((1, 30.0), (2, 10.0), (3, 20.0)):
        store.add_round(table_id, dict(base, round=round_no, finished_at=at), {})
    store.commit()
    store.close()
    conn = sqlite3.connect(tmp_path / DB_NAME)  # put the file back to schema 1
    conn.executescript("DROP TABLE mutes; DROP TABLE bans; DROP TABLE removals; "  # version 9's
                       "ALTER TABLE tables DROP COLUMN checkpoint_at; "  # version 8's
                       "ALTER TABLE seats DROP COLUMN bot_level; "  # version 7's
                       "DROP TABLE player_rounds; DROP TABLE player_games; "  # version 6's
                       "ALTER TABLE players DROP COLUMN hidden; "
                       "DROP TABLE chat; "  # version 5's
                       "ALTER TABLE tables DROP COLUMN game; "  # version 4's
                       "DROP TABLE spectators; "  # version 3's
                       "DROP INDEX rounds_by_seq; ALTER TABLE rounds DROP COLUMN seq; "
                       "ALTER TABLE rounds DROP COLUMN public; CREATE INDEX rounds_by_time ON rounds (finished_at); "
                       "UPDATE schema_version SET version = 1;")
    conn.close()
    store = Store.open_dir(tmp_path)
    try:
        rows = store.conn.execute("SELECT round_no, seq, public FROM rounds ORDER BY seq").fetchall()
        assert [(r, s) for r, s, _ in rows] == [(2, 1), (3, 2), (1, 3)]  # old rounds: in the order of their times
        assert json.loads(rows[0][2])["abandoned"] is True and json.loads(rows[0][2])["finished_at"] == 10.0
    finally:
        store.close()
