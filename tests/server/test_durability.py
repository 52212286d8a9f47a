"""Durability: restarts resume exactly, balances carry over, histories replay, bad databases are refused.

The SIGKILL test is in ``test_durability_kill.py``. Here:

* a graceful restart (SIGTERM, start) mid-round resumes that round exactly,
  with a fresh deadline (``test_sigterm_mid_round_resumes_that_round_exactly``);
* returning players get their balance back, a wrong secret does not
  (``test_returning_players_get_their_balance_and_a_wrong_secret_does_not``);
* the exported hand history replays to the same final stacks
  (``test_exported_history_replays_to_the_same_final_stacks``);
* a corrupt, foreign or newer database, or a data directory in use, stops the
  server with exit code 2 and a clear message, leaving the file untouched;
  older schemas are migrated after a backup;
* in-process: the restored engine state equals the one before, bit for bit; a
  failed commit acknowledges nothing; buy-ins need chips; absent players'
  seats are released after the grace period.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import os
import signal
import shutil
import sqlite3
import stat
import threading
import time
from contextlib import AsyncExitStack

import pytest

from client.link import LinkError, RequestFailed
from engine.games.down_and_back.bots import baseline_action
from engine.games.down_and_back.rules import DISCARD, PLAY
from protocol import messages as m
from scripted import ScriptedClient, autoplay
from server import store as store_module
from server.lobby import Lobby, LobbyConfig
from server.net import GameServer
from server.keys import KEY_FILE
from server.store import DB_NAME, Store, StoreError

from durability_helpers import (FAST, FailingWrites, Player, ServerProcess, integrity, make_store, refused, replay,
                                run_cli, stored_tables, wait_until)


async def seat(server: ServerProcess, names: list[str], bots: int = 0, **settings) -> list[Player]:
    players = [Player(server, name) for name in names]
    for player in players:
        await player.connect()
    host = players[0]
    created = await host.request(m.CreateTable, name="t", settings=m.TableSettings(seats=len(names) + bots, rules=settings))
    host.table_id, host.seat = created["table_id"], created["seat"]
    for player in players[1:]:
        joined = await player.request(m.Join, table_id=host.table_id)
        player.table_id, player.seat = joined["table_id"], joined["seat"]
    for _ in range(bots):
        await host.request(m.AddBot)
    await host.request(m.Start)
    return players


def comparable(view: dict) -> dict:
    """A view without what a restart may rightly change: the deadline's remaining time."""
    return {k: v for k, v in view.items() if k != "deadline_ms"}


# ----------------------------------------------------------------- the real process


async def test_sigterm_mid_round_resumes_that_round_exactly(tmp_path):
    server = ServerProcess(tmp_path, *FAST, "--seed", "graceful")
    try:
        await server.start()
        ann, bob = await seat(server, ["ann", "bob"], bots=1, stack=200)
        humans = {ann.seat, bob.seat}

        def mid_turn(view: dict) -> bool:  # round 2, a person holds 8 cards and must discard
            return (view["round"] >= 2 and view["phase"] == PLAY and view["step"] == DISCARD
                    and view["turn"] in humans and len(view["round_discards"]) >= 3)

        assert await asyncio.wait_for(asyncio.gather(ann.play(stop=mid_turn), bob.play(stop=mid_turn)), 30) == [False, False]
        before = {p.name: p.client.view for p in (ann, bob)}
        to_act = ann if before["ann"]["turn"] == ann.seat else bob
        assert len(before[to_act.name]["hand"]) == 8
        await asyncio.sleep(2.0)  # use up part of the 5 s deadline
        assert await server.stop(signal.SIGTERM) == 0
        for player in (ann, bob):
            assert player.client.closed_with[0] == "shutting_down"
            await player.disconnect()

        restarting = time.monotonic()
        await server.start()
        for player in (ann, bob):
            await player.connect()  # same seat, checked inside
        for player in (ann, bob):
            def settled(player=player):
                view = player.client.views.get(player.table_id)
                members = player.client.facts[player.table_id]["members"] if view else []
                return view and all(member["connected"] for member in members) and view
            after = await player.client.wait_for(settled)
            assert comparable(after) == comparable(before[player.name])
        # The deadline started afresh: the downtime and the 2 s before it do not count. It ran at
        # most since the restart began (on a loaded machine reconnecting takes a while); the old
        # deadline would have had under 3 s left then.
        since_restart_ms = (time.monotonic() - restarting) * 1000
        assert to_act.client.deadline_ms > 5000 - since_restart_ms - 100

        results = await asyncio.wait_for(asyncio.gather(ann.play(end_after=3), bob.play()), 30)
        assert results == [True, True]
        assert await server.stop(signal.SIGTERM) == 0
    finally:
        await server.close()
    (table,) = stored_tables(server.db).values()
    assert table["state"] == "finished" and [r["round"] for r in table["rounds"]][:3] == [1, 2, 3]


async def test_returning_players_get_their_balance_and_a_wrong_secret_does_not(tmp_path):
    server = ServerProcess(tmp_path, *FAST, "--seed", "balances", "--starting-balance", "500")
    try:
        await server.start()
        ann, bob = await seat(server, ["ann", "bob"], stack=200, ante=20)
        assert await asyncio.wait_for(asyncio.gather(ann.play(end_after=3), bob.play()), 30) == [True, True]
        (table,) = stored_tables(server.db).values()
        final = {s: p.stack for s, p in table["game"].players.items()}
        balances = {}
        for player in (ann, bob):
            await player.connect()
            balances[player.name] = (await player.request(m.ListTables))["balance"]
            assert balances[player.name] == 500 - 200 + final[player.seat]
            await player.disconnect()
        assert sum(balances.values()) == 1000
        assert await server.stop(signal.SIGTERM) == 0

        await server.start()  # next week: a new process on the same data directory
        back = Player(server, "ann")
        back.token, back.player_id = ann.token, ann.player_id
        await back.connect()
        assert (await back.request(m.ListTables))["balance"] == balances["ann"]

        player_id, _, secret = ann.token.partition("_")
        for forged in (f"{player_id}_{secret[:-1]}{'A' if secret[-1] != 'A' else 'B'}", f"{player_id}_", player_id):
            with pytest.raises(LinkError) as info:
                async with ScriptedClient(server.port, "ann", forged):
                    pass
            assert info.value.code == "bad_token"
        with pytest.raises(LinkError) as info:  # her name, no secret, while she is online: refused
            async with ScriptedClient(server.port, "Ann"):
                pass
        assert info.value.code == "bad_name"
        async with ScriptedClient(server.port, "anne") as impostor:  # no secret: a new player
            assert impostor.link.welcome.player_id != ann.player_id
            assert (await impostor.request(m.ListTables))["balance"] == 500

        # The carried balance is what she buys in with (all of it, if the stack is larger).
        await back.request(m.Leave)  # she is still at the finished table, with its standings
        created = await back.request(m.CreateTable, name="again", settings=m.TableSettings(seats=2, rules={"stack": 5000}))
        back.table_id, back.seat = created["table_id"], created["seat"]
        await back.request(m.AddBot)
        await back.request(m.Start)
        view = await back.client.wait_for(lambda: back.client.views.get(back.table_id, {}).get("round"))
        assert view and (await back.request(m.ListTables))["balance"] == 0
        me = next(p for p in back.client.views[back.table_id]["players"] if p["seat"] == back.seat)
        assert me["stack"] + me["contributed"] == balances["ann"]
        await back.disconnect()
    finally:
        await server.close()
    conn = sqlite3.connect(server.db)
    try:
        stored = dict(conn.execute("SELECT player_id, secret_sha256 FROM players").fetchall())
        dump = "\n".join(conn.iterdump())
    finally:
        conn.close()
    assert stored[ann.player_id] == hashlib.sha256(secret.encode()).digest()
    assert secret not in dump and ann.token not in dump


async def test_exported_history_replays_to_the_same_final_stacks(tmp_path):
    server = ServerProcess(tmp_path, *FAST, "--seed", "export")
    try:
        await server.start()
        players = await seat(server, ["ann", "bob", "cat"], bots=1, stack=60)
        playing = [players[0].play(end_after=4)] + [p.play() for p in players[1:]]
        assert await asyncio.wait_for(asyncio.gather(*playing), 60) == [True] * 3
        seen = players[0].views[-1]
        exported = run_cli("export", "--data-dir", str(tmp_path), "--format", "json")  # while the server runs
        text = run_cli("export", "--data-dir", str(tmp_path), "--table", players[0].table_id)
    finally:
        await server.close()
    assert exported.returncode == 0, exported.stderr
    history = json.loads(exported.stdout)
    assert (history["format"], history["version"]) == ("down-and-back-history", 2)
    (table,) = history["tables"]
    assert table["game"] == "down-and-back"  # each table stamped with its game
    game = replay(table)
    final = {str(s): p.stack for s, p in game.players.items()}
    assert game.phase == "over" and final == table["final_stacks"]
    assert {str(s["seat"]): s["stack"] for s in seen["standings"]} == final
    assert [r["round"] for r in table["rounds"]] == list(range(1, game.round_no + 1))
    for entry in table["rounds"]:  # each round's own actions are a slice of the game's log
        assert entry["actions"] == table["actions"][entry["first_seq"]:entry["last_seq"] + 1]
        if entry["result"] is None:  # the host's end came after the next deal (a loaded machine): cut short
            assert entry is table["rounds"][-1] and entry["round"] > 4
        else:
            assert entry["result"]["round"] == entry["round"]
    assert text.returncode == 0, text.stderr
    assert "(Down and Back, finished)" in text.stdout and "--- Round 1\n" in text.stdout
    assert " deals, " in text.stdout and "is dealt" in text.stdout and "Final stacks:" in text.stdout
    missing = run_cli("export", "--data-dir", str(tmp_path), "--table", "t999")
    assert missing.returncode == 2 and "no table 't999'" in missing.stderr
    nothing = run_cli("export", "--data-dir", str(tmp_path / "elsewhere"))
    assert nothing.returncode == 2 and "there is no Down and Back database" in nothing.stderr
    assert not (tmp_path / "elsewhere").exists()


# ----------------------------------------------------------------- refusing bad databases


def test_a_file_that_is_not_a_database_is_refused(tmp_path):
    (tmp_path / DB_NAME).write_bytes(b"these are my notes, not a database\n" * 200)
    refused(tmp_path, "is not an SQLite database", str(tmp_path / DB_NAME))


def test_another_programs_sqlite_database_is_refused(tmp_path):
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.execute("CREATE TABLE recipes (name TEXT)")
    conn.commit()
    conn.close()
    refused(tmp_path, "not a Down and Back one")


def test_a_newer_schema_is_refused(tmp_path):
    db = make_store(tmp_path)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE schema_version SET version = 99")
    conn.commit()
    conn.close()
    refused(tmp_path, "newer dab-server", "version 99", "Upgrade dab-server")


def test_a_damaged_page_is_refused(tmp_path):
    db = make_store(tmp_path, players=3000)
    data = bytearray(db.read_bytes())
    page = 4096
    middle = len(data) // page // 2 * page
    data[middle:middle + page] = b"\xa5" * page
    db.write_bytes(bytes(data))
    refused(tmp_path, "corrupt")


def test_edited_chips_are_refused(tmp_path):
    db = make_store(tmp_path)
    conn = sqlite3.connect(db)
    conn.execute("UPDATE players SET balance = balance + 1000000 WHERE player_id = 'p3'")
    conn.commit()
    conn.close()
    refused(tmp_path, "chip accounts do not balance", "p3")


def test_two_servers_cannot_share_a_data_directory(tmp_path):
    holder = Store.open_dir(tmp_path)
    try:
        refused(tmp_path, "another dab-server")
    finally:
        holder.close()


def test_older_schemas_are_migrated_in_order_after_a_backup(tmp_path, monkeypatch):
    db = make_store(tmp_path)
    now = store_module.schema_version()
    steps = store_module.MIGRATIONS + [
        (now + 1, "players get a note", store_module._script("ALTER TABLE players ADD COLUMN note TEXT;")),
        (now + 2, "notes default to hello", store_module._script("UPDATE players SET note = 'hello';")),
    ]
    monkeypatch.setattr(store_module, "MIGRATIONS", steps)
    with pytest.raises(StoreError, match="start dab-server once"):
        Store.open_dir(tmp_path, migrate=False)
    store = Store.open_dir(tmp_path)
    try:
        assert store.version == now + 2
        assert store.conn.execute("SELECT count(*) FROM players WHERE note = 'hello'").fetchone()[0] == 10
    finally:
        store.close()
    assert stat.S_IMODE(os.stat(f"{db}.v{now}.bak").st_mode) == 0o600  # private from its creation
    backup = sqlite3.connect(f"{db}.v{now}.bak")
    try:
        assert backup.execute("SELECT version FROM schema_version").fetchone()[0] == now
        assert backup.execute("SELECT count(*) FROM players").fetchone()[0] == 10
    finally:
        backup.close()
    monkeypatch.setattr(store_module, "MIGRATIONS", steps[:-2])
    with pytest.raises(StoreError, match="newer dab-server"):
        Store.open_dir(tmp_path)
    integrity(db)


# ----------------------------------------------------------------- in-process


async def test_a_restart_rebuilds_every_table_bit_for_bit(durable):
    server = await durable()
    async with AsyncExitStack() as stack:
        ann, bob, cat, dan = [await stack.enter_async_context(ScriptedClient(server.port, n)) for n in
                              ("ann", "bob", "cat", "dan")]
        tokens = {c.name: c.link.token for c in (ann, bob, cat, dan)}
        # t1: finished; t2: mid-round (ann and bob with a bot); t3: waiting, private, cat hosting a bot.
        done = await ann.request(m.CreateTable, name="done", settings=m.TableSettings(seats=2, rules={"stack": 100}))
        await bob.request(m.Join, table_id=done["table_id"])
        await ann.request(m.Start)
        await asyncio.wait_for(asyncio.gather(autoplay(ann, 2, host=True), autoplay(bob, 2)), 30)
        await ann.request(m.Leave)
        await bob.request(m.Leave)
        live = await ann.request(m.CreateTable, name="live", settings=m.TableSettings(seats=3, rules={"stack": 300}))
        await bob.request(m.Join, table_id=live["table_id"])
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        waiting = await cat.request(m.CreateTable, name="later", settings=m.TableSettings(seats=4), private_code="pw")
        await cat.request(m.AddBot)
        await dan.request(m.Watch, table_id=waiting["table_id"], private_code="pw")
        lobby = server.lobby
        table = lobby.tables[live["table_id"]]
        tid = live["table_id"]
        for _ in range(9):  # a few actions into the round
            await ann.wait_for(lambda: table.game.to_act() and table.game.to_act()[0] in (0, 1))
            client = ann if table.game.to_act()[0] == 0 else bob
            view = await client.wait_for(lambda: client.views[tid]["legal"] and client.views[tid])
            await client.act(baseline_action(view).to_data())
        before = {tid: (t.game.to_data() if t.game else None, dict(t.seats), t.host_id, t.private_code, t.state)
                  for tid, t in lobby.tables.items()}
        balances = {pid: p.balance for pid, p in lobby.players.items()}
        history = await ann.request(m.History, limit=10)
        await server.close(grace=1.0)  # while everyone is connected: a shutdown is not a goodbye

    server = await durable()
    lobby = server.lobby
    after = {tid: (t.game.to_data() if t.game else None, dict(t.seats), t.host_id, t.private_code, t.state)
             for tid, t in lobby.tables.items()}
    assert after == before and len(after) == 2  # t1 closed when its players left it
    assert {pid: p.balance for pid, p in lobby.players.items()} == balances
    # Spectators come back like players: dan still watches the waiting table, and his client is put back there.
    dan_id = tokens["dan"].partition("_")[0]
    assert lobby.tables[waiting["table_id"]].spectators == {dan_id}
    async with ScriptedClient(server.port, "dan", tokens["dan"]) as dan:
        assert (dan.link.welcome.table_id, dan.link.welcome.seat) == (waiting["table_id"], None)
        facts = await dan.wait_for(lambda: dan.facts.get(waiting["table_id"]))
        assert facts["seat"] is None and facts["spectators"] == 1
    async with ScriptedClient(server.port, "ann", tokens["ann"]) as ann:
        assert (ann.link.welcome.table_id, ann.link.welcome.seat) == (live["table_id"], 0)
        assert await ann.request(m.History, limit=10) == history == {"rounds": []}  # t2's first round is on
        await ann.request(m.EndGame)
        await ann.request(m.Leave)
        mine = (await ann.request(m.History, limit=100))["rounds"]  # away from tables: her own last rounds
        assert [(r["table_id"], r["abandoned"]) for r in mine][-1] == (live["table_id"], True)
        finished = [r for r in mine if r["table_id"] == done["table_id"]]
        assert len(finished) >= 2 and [r["round"] for r in finished] == list(range(1, len(finished) + 1))
        for entry in finished:
            if entry["abandoned"]:  # autoplay's host ends the game during round 3
                assert entry["round"] == 3 and all(p["down"] is None for p in entry["players"])
                continue
            assert all(len(p["down"]) == 4 and len(p["back"]) == 3 for p in entry["players"])
            assert sum(entry["stacks"].values()) + (entry["carried"] or 0) == 200


@pytest.mark.parametrize("group_commit", [False, True])
async def test_a_failed_commit_acknowledges_nothing(durable, group_commit):
    failures = []
    server = await durable(on_fatal=failures.append, group_commit=group_commit)
    async with ScriptedClient(server.port, "ann") as ann:
        await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2))
        store = server.lobby.store
        store.conn = FailingWrites(store.conn, "COMMIT", "disk I/O error")  # in the writer thread, or here
        pushes = len(ann.all_views)
        if group_commit:  # the reply waits for a commit that never comes (in production the process exits)
            with pytest.raises(asyncio.TimeoutError):
                await asyncio.wait_for(ann.request(m.AddBot), 1.0)
        else:
            with pytest.raises(RequestFailed) as info:
                await ann.request(m.AddBot)
            assert info.value.code == "internal"
        assert failures and "disk I/O error" in str(failures[0])
        assert len(ann.all_views) == pushes  # the view showing the bot was never sent
        assert store.failed is not None and not store.conn.in_transaction  # rolled back; nothing more is written
        store.conn = store.conn.conn


class HeldCommits:
    """The store's connection, its COMMITs held (in the writer thread) until ``release`` is set."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn, self.release, self.entered = conn, threading.Event(), threading.Event()

    def execute(self, sql, params=()):
        if sql == "COMMIT":
            self.entered.set()
            assert self.release.wait(10), "the commit was never released (was it run on the event loop?)"
        return self.conn.execute(sql, params)

    def __getattr__(self, name):
        return getattr(self.conn, name)


async def test_a_commit_in_flight_holds_its_replies_but_never_the_event_loop(durable):
    failures: list[BaseException] = []
    server = await durable(on_fatal=failures.append)
    lobby, loop = server.lobby, asyncio.get_running_loop()
    async with ScriptedClient(server.port, "ann") as ann, ScriptedClient(server.port, "bob") as bob:
        await ann.request(m.CreateTable, name="a", settings=m.TableSettings(seats=2))
        store = lobby.store
        commits, views = store.commits, len(ann.all_views)
        held = store.conn = HeldCommits(store.conn)
        add_bot = asyncio.ensure_future(ann.request(m.AddBot))
        assert await loop.run_in_executor(None, held.entered.wait, 10)  # the writer thread is in the COMMIT
        started = loop.time()
        await asyncio.sleep(0.05)  # the loop runs its timers meanwhile
        assert loop.time() - started < 1.0
        held.entered.clear()
        create = asyncio.ensure_future(bob.request(m.CreateTable, name="b", settings=m.TableSettings(seats=2)))
        await wait_until(lambda: "t2" in lobby.tables, 5)  # bob's unit ran during the commit: memory changed...
        assert not add_bot.done() and not create.done() and len(ann.all_views) == views  # ...nobody was told
        held.release.set()
        assert (await asyncio.wait_for(add_bot, 5))["seat"] == 1
        assert (await asyncio.wait_for(create, 5))["table_id"] == "t2"
        assert store.commits == commits + 2  # one in flight at a time: bob's was the next
        assert len(ann.all_views) > views and not failures
        store.conn = held.conn


async def test_buying_in_needs_chips(durable):
    server = await durable(starting_balance=15)
    async with ScriptedClient(server.port, "ann") as ann, ScriptedClient(server.port, "bob") as bob:
        with pytest.raises(RequestFailed) as info:
            await ann.request(m.CreateTable, name="dear", settings=m.TableSettings(seats=2, rules={"ante": 20, "stack": 100}))
        assert info.value.code == "insufficient_chips"
        created = await ann.request(m.CreateTable, name="cheap", settings=m.TableSettings(seats=2, rules={"ante": 10, "stack": 100}))
        await bob.request(m.Join, table_id=created["table_id"])
        await ann.request(m.Start)
        view = await ann.wait_for(lambda: ann.views and ann.view)
        assert [p["stack"] + p["contributed"] for p in view["players"]] == [15, 15]  # all they had
        assert (await ann.request(m.ListTables))["balance"] == 0


async def test_absent_players_seats_are_released_after_the_grace(durable):
    server = await durable()
    async with ScriptedClient(server.port, "ann") as ann, ScriptedClient(server.port, "bob") as bob:
        created = await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=3))
        await bob.request(m.Join, table_id=created["table_id"])
        token = bob.link.token
        await server.close(grace=1.0)  # a shutdown (with everyone still connected) keeps the seats
    server = await durable(restore_grace=0.3)
    table = server.lobby.tables[created["table_id"]]
    assert len(table.seats) == 2
    async with ScriptedClient(server.port, "bob", token) as bob:
        assert bob.link.welcome.seat == 1
        await asyncio.sleep(0.6)
        assert list(table.seats) == [1]  # ann never came back; bob keeps his seat
        assert table.host_id == bob.link.welcome.player_id


async def start_a_game(server: GameServer, stack: AsyncExitStack, actions: int = 7) -> tuple[ScriptedClient, str]:
    """ann and a bot, a few of ann's actions into round 1; returns ann's client and the table id."""
    ann = await stack.enter_async_context(ScriptedClient(server.port, "ann"))
    created = await ann.request(m.CreateTable, name="t", settings=m.TableSettings(seats=2))
    await ann.request(m.AddBot)
    await ann.request(m.Start)
    tid = created["table_id"]
    for _ in range(actions):
        view = await ann.wait_for(lambda: ann.views[tid]["legal"] and ann.views[tid])
        await ann.act(baseline_action(view).to_data())
    return ann, tid


async def test_a_game_survives_an_engine_upgrade_from_its_checkpoint(durable, monkeypatch, caplog):
    server = await durable()
    async with AsyncExitStack() as stack:
        ann, tid = await start_a_game(server, stack)
        token = ann.link.token
        before = server.lobby.tables[tid].game.to_data()
        await server.close(grace=1.0)
    # The upgrade: the same seed now deals differently, and the fingerprint says so.
    from engine.rng import HashRng
    from server import restore as restore_module
    original = HashRng.randbelow
    monkeypatch.setattr(HashRng, "randbelow", lambda self, n: (original(self, n) + 1) % n)
    monkeypatch.setattr(restore_module, "fingerprint", lambda game_type: "an-upgraded-engine")
    server = await durable()
    table = server.lobby.tables[tid]
    assert table.game.to_data() == before  # same hands, same stock, same turn
    assert "restoring it from its checkpoint" in caplog.text
    async with ScriptedClient(server.port, "ann", token) as ann:
        assert ann.link.welcome.seat == 0  # the welcome came after the restore's commit
        assert server.lobby.store.conn.execute("SELECT engine FROM tables").fetchone() == (None,)
        await asyncio.wait_for(autoplay(ann, 2, host=True), 30)
        assert ann.views[tid]["phase"] == "over"
        assert sum(s["stack"] for s in ann.views[tid]["standings"]) == 2000
    await server.close(grace=1.0)
    server = await durable()  # and again: now it always restores from its checkpoint
    assert server.lobby.tables[tid].game.to_data()["standings"] == ann.views[tid]["standings"]


async def crash_image(server: GameServer, ann: ScriptedClient, tid: str, directory) -> dict:
    """What a kill -9 would leave now, in ``directory`` (SQLite's online backup of what is committed),
    once the game waits for ann (so nothing more is being written); and the game as it stands."""
    await ann.wait_for(lambda: ann.views[tid]["legal"])
    directory.mkdir()
    target = sqlite3.connect(directory / DB_NAME)
    source = sqlite3.connect(server.lobby.store.path)
    source.backup(target)
    source.close()
    target.close()
    os.chmod(directory / DB_NAME, 0o600)
    key = os.path.join(os.path.dirname(server.lobby.store.path), KEY_FILE)  # the server's signing key goes along
    shutil.copy(key, directory / KEY_FILE)
    return server.lobby.tables[tid].game.to_data()


def checkpoint_columns(db) -> tuple[int, int]:
    conn = sqlite3.connect(db)
    try:
        return conn.execute("SELECT actions, checkpoint_at FROM tables").fetchone()
    finally:
        conn.close()


async def test_a_crash_between_checkpoints_restores_the_exact_game(durable, tmp_path, table_config):
    """The whole state is checkpointed after each draw of chance and each change of status, not after
    every action: a crash image taken mid-round has actions after its checkpoint, and the restore
    replays them to exactly the game that was running (hands, stock, turn, stacks)."""
    server = await durable()
    async with AsyncExitStack() as stack:
        ann, tid = await start_a_game(server, stack, actions=5)
        running = await crash_image(server, ann, tid, tmp_path / "crashed")
    actions, checkpoint_at = checkpoint_columns(tmp_path / "crashed" / DB_NAME)
    assert 0 < checkpoint_at < actions  # the checkpoint after the deal; the draws and discards after it
    restored = Lobby(LobbyConfig(table=table_config, store=Store.open_dir(tmp_path / "crashed")), "restored")
    try:
        assert restored.tables[tid].game.to_data() == running
    finally:
        restored.close()
    assert checkpoint_columns(tmp_path / "crashed" / DB_NAME) == (actions, actions)  # a shutdown writes it whole


async def test_an_upgraded_engine_continues_a_crashed_game_from_its_checkpoint_and_the_actions_after_it(
        durable, tmp_path, table_config, monkeypatch):
    """After a crash and an engine upgrade, the game continues from its last checkpoint, the actions
    after it applied by the new engine: they draw nothing, so every card is where it was."""
    server = await durable()
    async with AsyncExitStack() as stack:
        ann, tid = await start_a_game(server, stack, actions=5)
        running = await crash_image(server, ann, tid, tmp_path / "crashed")
    from engine.rng import HashRng
    from server import restore as restore_module
    original = HashRng.randbelow
    monkeypatch.setattr(HashRng, "randbelow", lambda self, n: (original(self, n) + 1) % n)
    monkeypatch.setattr(restore_module, "fingerprint", lambda game_type: "an-upgraded-engine")
    actions, checkpoint_at = checkpoint_columns(tmp_path / "crashed" / DB_NAME)
    assert checkpoint_at < actions
    restored = Lobby(LobbyConfig(table=table_config, store=Store.open_dir(tmp_path / "crashed")), "restored")
    try:
        assert restored.tables[tid].game.to_data() == running
    finally:
        restored.close()


async def test_a_database_of_schema_7_is_upgraded_and_its_game_restored(durable, tmp_path, table_config):
    """Version 8 adds ``checkpoint_at``: every checkpoint written before it was taken after every action."""
    server = await durable()
    async with AsyncExitStack() as stack:
        ann, tid = await start_a_game(server, stack, actions=5)
        await ann.wait_for(lambda: ann.views[tid]["legal"])
        running = server.lobby.tables[tid].game.to_data()
        await server.close(grace=1.0)
    conn = sqlite3.connect(tmp_path / DB_NAME)
    conn.executescript("ALTER TABLE tables DROP COLUMN checkpoint_at; DROP TABLE mutes; DROP TABLE bans; "
                       "DROP TABLE removals; UPDATE schema_version SET version = 7;")  # as version 7 wrote it
    conn.close()
    restored = Lobby(LobbyConfig(table=table_config, store=Store.open_dir(tmp_path)), "upgraded")
    try:
        assert restored.store.version == 9 == store_module.schema_version()
        assert restored.tables[tid].game.to_data() == running
        actions, checkpoint_at = restored.store.conn.execute("SELECT actions, checkpoint_at FROM tables").fetchone()
        assert checkpoint_at == actions > 0
    finally:
        restored.close()
    assert (tmp_path / f"{DB_NAME}.v7.bak").exists()


@pytest.mark.parametrize("edit, message", [
    ("""UPDATE actions SET action = '{"kind":"cut","position":20}' WHERE seq = 1""", "does not replay"),
    ("UPDATE tables SET checkpoint = replace(checkpoint, '\"turn_index\":', '\"turn_index\":1')",
     "does not reach the stored checkpoint"),
    ("UPDATE tables SET checkpoint = substr(checkpoint, 1, 100)", "t1: stored data is damaged"),
])
async def test_an_edited_game_is_refused(durable, tmp_path, edit, message):
    server = await durable()
    async with AsyncExitStack() as stack:
        await start_a_game(server, stack)
        await server.close(grace=1.0)
    conn = sqlite3.connect(tmp_path / DB_NAME)
    assert conn.execute(edit).rowcount == 1
    conn.commit()
    conn.close()
    refused(tmp_path, message)


async def test_messages_held_for_a_group_commit_never_reach_a_session_before_its_welcome(durable):
    server = await durable()
    lobby = server.lobby
    async with ScriptedClient(server.port, "ann") as ann:
        token, player_id = ann.link.token, ann.link.welcome.player_id
        old = lobby.players[player_id].session

        class NewSession:  # a reconnect whose welcome has not gone out yet
            closed = False
            host = "127.0.0.1"
            pushed: list = []
            arrived = asyncio.Event()

            def push(self, message, encoded=None):
                self.pushed.append(message)
                self.arrived.set()

            def cork(self):
                return False

            def uncork(self):
                pass

            def close_with(self, reason, text):
                self.closed = True

        with lobby.atomic():  # a unit with writes: its messages wait for the group commit
            lobby.store.set_table_state("t0", "closed")
            held = m.Tables(tables=())
            lobby.send(player_id, held)
        assert lobby._commit_pending
        welcome = lobby.hello(NewSession(), m.Hello(id=1, version=m.PROTOCOL_VERSION, name="ann", token=token))
        assert welcome.resumed and NewSession.pushed == []  # the welcome waits for the commit too
        assert old.closed  # replaced; the held message was meant for it
        await asyncio.wait_for(NewSession.arrived.wait(), 5)
        assert NewSession.pushed[0] is welcome and all(p is not held for p in NewSession.pushed)
