"""Writes that fail: never a gap in a log, never a frozen server, never a lie about why.

* another program holding the write lock: the asker gets ``busy`` at once, the
  game is unchanged, others are served, timer steps wait and retry, and the
  restart restores everything (``test_a_busy_database_answers_busy_and_changes_nothing``);
* a write failing inside a request (not at the commit): nothing of it is sent,
  nothing later is committed, the server stops, and the restart restores the
  last commit with no gap (``test_a_write_failing_inside_a_request_leaves_no_gap``);
* a damaged stored round is named by the start-up (which refuses) and by
  ``export`` (``test_a_damaged_round_is_named_at_start_and_by_export``); 60
  random 16-byte overwrites never get a traceback from either
  (``test_random_damage_never_gets_a_traceback``).
"""

from __future__ import annotations

import asyncio
import random
import sqlite3
from contextlib import AsyncExitStack
from pathlib import Path

import pytest

from client.link import RequestFailed
from engine.games.down_and_back.bots import baseline_action
from protocol import messages as m
from scripted import ScriptedClient, autoplay
from server.__main__ import main as cli_main
from server.lobby import Lobby, LobbyConfig
from server.net import GameServer
from server.store import DB_NAME, Store, StoreError
from server.table import TableConfig

from durability_helpers import FailingWrites, refused


@pytest.fixture
def durable_seed() -> bytes:
    return b"failures"


async def my_turn(client: ScriptedClient, table_id: str) -> dict:
    return await client.wait_for(lambda: client.views[table_id]["legal"] and client.views[table_id])


async def test_a_busy_database_answers_busy_and_changes_nothing(durable, tmp_path):
    server = await durable(table=TableConfig(turn_timeout=30.0, bot_delay=0.3, away_delay=0.0, round_pause=0.0,
                                             seed_window=0.05))
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
            assert table.game.to_data() == before and table.pacer.timing_problems() == []
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
        views = None
        for _ in range(2):  # the failed one, then one more: nothing may be written after the failure
            view = await my_turn(ann, tid)
            views = len(ann.all_views) if views is None else views  # (the bot may have moved before her turn)
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


# ----------------------------------------------------------------- damaged stored rounds


@pytest.fixture
async def played(tmp_path, table_config, net_config) -> Path:
    """A data directory holding one finished game (ann and a bot, a few rounds), ann still at its table."""
    data = tmp_path / "played"
    lobby = Lobby(LobbyConfig(table=table_config, seed=b"damage", store=Store.open_dir(data)), "dab-server test")
    server = GameServer(lobby, net_config)
    await server.start("127.0.0.1", 0)
    async with ScriptedClient(server.port, "ann") as ann:
        await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2, rules={"stack": 100}))
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await asyncio.wait_for(autoplay(ann, 3, host=True), 30)
    await server.close(grace=1.0)
    return data


def export(data: Path, capsys, *flags: str) -> tuple[int, str, str]:
    code = cli_main(["export", "--data-dir", str(data), *flags])
    out, err = capsys.readouterr()
    return code, out, err


async def test_a_damaged_round_is_named_at_start_and_by_export(played, capsys):
    conn = sqlite3.connect(played / DB_NAME)
    conn.execute("UPDATE rounds SET record = substr(record, 1, 60) WHERE round_no = 2")
    conn.commit()
    conn.close()
    refused(played, "table t1, round 2", "damaged", "restore the database from a backup")
    for flags in ((), ("--format", "json")):
        code, out, err = export(played, capsys, *flags)
        assert code == 2 and "table t1, round 2" in err and "damaged" in err and "Traceback" not in err, err


async def test_random_damage_never_gets_a_traceback(played, tmp_path, capsys, table_config):
    """Overwrite 16 random bytes, 60 times: start-up refuses with a clear message or the server
    starts, and export then answers with the history or one clear error line."""
    original = (played / DB_NAME).read_bytes()
    rng = random.Random(16)
    outcomes = {"refused": 0, "started": 0, "exported": 0}
    for attempt in range(60):
        data = tmp_path / f"damaged{attempt}"
        data.mkdir(mode=0o700)
        damaged = bytearray(original)
        at = rng.randrange(len(damaged) - 16)
        damaged[at:at + 16] = rng.randbytes(16)
        (data / DB_NAME).write_bytes(bytes(damaged))
        try:
            lobby = Lobby(LobbyConfig(table=table_config, store=Store.open_dir(data)), "dab-server test")
        except StoreError as exc:
            assert str(exc) and "Traceback" not in str(exc)
            outcomes["refused"] += 1
            continue
        lobby.close()
        outcomes["started"] += 1
        for flags in ((), ("--format", "json")):
            code, out, err = export(data, capsys, *flags)
            assert code in (0, 2) and "Traceback" not in err, err
            assert code == 0 or err.startswith("dab-server export: error: "), err
            outcomes["exported"] += code == 0
    assert outcomes["refused"] and outcomes["started"], outcomes
