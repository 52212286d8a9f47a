"""The real ``dab-server`` as a subprocess that tests kill and restart, and players that survive it.

A :class:`Player` is a scripted client that reconnects with its token whenever
the connection drops, checks that it gets the same seat back, plays with the
baseline bot, and remembers every action the server acknowledged (with the log
index the ``ok`` names) and every view it was shown, so a test can compare them
with what the database holds after the dust settles.
"""

from __future__ import annotations

import asyncio
import random
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from client.link import LinkError, RequestFailed
from engine.games.down_and_back.actions import action_from_data
from engine.games.down_and_back.bots import baseline_action
from engine.games.down_and_back.rules import Game, Settings
from engine.rng import HashRng
from engine.games.down_and_back.views import view_for
from protocol import messages as m
from scripted import ScriptedClient
from server.store import DB_NAME, Store, secret_hash

ROOT = Path(__file__).resolve().parents[2]
FAST = ["--bot-delay", "0", "--round-pause", "0.05", "--turn-timeout", "5", "--request-rate", "2000",
        "--seed-window", "0.05"]  # scripted clients send no seeds: a round waits the window for them



class FailingWrites:
    """The store's connection, with the next statement starting ``prefix`` failing with ``error``
    (a full disk unless told)."""

    def __init__(self, conn: sqlite3.Connection, prefix: str, error: str = "database or disk is full") -> None:
        self.conn, self.prefix, self.error = conn, prefix, error

    def execute(self, sql, params=()):
        if self.prefix and sql.startswith(self.prefix):
            self.prefix = ""
            raise sqlite3.OperationalError(self.error)
        return self.conn.execute(sql, params)

    def __getattr__(self, name):
        return getattr(self.conn, name)


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "server", *args], capture_output=True, text=True, timeout=30, cwd=ROOT)


def make_store(path: Path, players: int = 10) -> Path:
    store = Store.open_dir(path)
    for i in range(players):
        store.add_player(f"p{i}", f"name{i}", secret_hash(str(i)), 100)
    store.commit()
    store.close()
    return path / DB_NAME


def refused(data_dir: Path, *needles: str) -> None:
    db = data_dir / DB_NAME
    before = db.read_bytes() if db.exists() else None
    result = run_cli("--host", "127.0.0.1", "--port", "0", "--data-dir", str(data_dir))
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    for needle in needles:
        assert needle in result.stderr, result.stderr
    assert (db.read_bytes() if db.exists() else None) == before  # nothing was written


class ServerProcess:
    """``python -m server`` on an ephemeral port; ``up`` is set while it is listening."""

    def __init__(self, data_dir: Path, *flags: str) -> None:
        self.data_dir = data_dir
        self.flags = list(flags)
        self.process: asyncio.subprocess.Process | None = None
        self.port = 0
        self.up = asyncio.Event()
        self.starts = 0
        self.log: list[str] = []
        self._drain: asyncio.Task[None] | None = None

    @property
    def db(self) -> Path:
        return self.data_dir / DB_NAME

    def command(self) -> list[str]:
        return [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--data-dir", str(self.data_dir),
                *self.flags]

    async def start(self) -> None:
        self.process = await asyncio.create_subprocess_exec(*self.command(), stderr=asyncio.subprocess.PIPE, cwd=ROOT)
        while True:
            line = (await asyncio.wait_for(self.process.stderr.readline(), 20)).decode()
            self.log.append(line)
            assert line, "the server exited before listening:\n" + "".join(self.log[-20:])
            found = re.search(r"listening on [\d.]+:(\d+)", line)
            if found:
                break
        self.port = int(found.group(1))
        self.starts += 1
        self._drain = asyncio.ensure_future(self._read_rest(self.process))
        self.up.set()

    async def _read_rest(self, process: asyncio.subprocess.Process) -> None:
        while line := await process.stderr.readline():
            self.log.append(line.decode())

    async def stop(self, sig: int = signal.SIGKILL) -> int:
        """Send ``sig`` and wait for the exit; returns the exit code."""
        assert self.process is not None
        self.up.clear()
        if self.process.returncode is None:
            self.process.send_signal(sig)
        code = await asyncio.wait_for(self.process.wait(), 10)
        if self._drain is not None:
            await self._drain
        return code

    async def close(self) -> None:
        if self.process is not None and self.process.returncode is None:
            await self.stop(signal.SIGKILL)


class Disconnected(Exception):
    pass


class Player:
    """A client that plays through server restarts, reconnecting with its token."""

    def __init__(self, server: ServerProcess, name: str) -> None:
        self.server = server
        self.name = name
        self.token: str | None = None
        self.player_id: str | None = None
        self.table_id: str | None = None
        self.seat: int | None = None
        self.acked: list[tuple[str, int, int, dict[str, Any]]] = []  # (table, seq, seat, action)
        self.views: list[dict[str, Any]] = []
        self.connections = 0
        self.client: ScriptedClient | None = None
        self.balance: int | None = None  # as the server last said

    async def connect(self, expect_seat: bool = True) -> ScriptedClient:
        """Connect (retrying while the server is down); a resumed player must get its seat back
        (unless not ``expect_seat``: the restore grace may have freed it)."""
        while True:
            await self.server.up.wait()
            client = ScriptedClient(self.server.port, self.name, self.token)
            try:
                await client.__aenter__()
            except LinkError:
                await client.link.close()
                await asyncio.sleep(0.02)
                continue
            welcome = client.link.welcome
            assert welcome is not None
            if self.token is not None:
                assert welcome.resumed and welcome.player_id == self.player_id
                if self.seat is not None and expect_seat:
                    assert (welcome.table_id, welcome.seat) == (self.table_id, self.seat), (self.name, welcome)
            self.token, self.player_id = welcome.token, welcome.player_id
            self.connections += 1
            self.client = client
            return client

    async def disconnect(self) -> None:
        if self.client is not None:
            self.views += self.client.all_views
            await self.client.link.close()
            self.client = None

    async def request(self, kind: type[m.Message], **fields: Any) -> dict[str, Any]:
        assert self.client is not None
        return await self.client.request(kind, **fields)

    async def play(self, end_after: int | None = None, stop: Any = None) -> bool:
        """Play until the game is over (True), or ``stop(view)`` says to pause (False).

        With ``end_after``, this player (the host) ends the game between rounds
        once that many rounds are done.
        """
        while True:
            client = self.client or await self.connect()
            try:
                return await self._play(client, end_after, stop)
            except (LinkError, Disconnected):
                await self.disconnect()

    async def _play(self, client: ScriptedClient, end_after: int | None, stop: Any) -> bool:
        acted_on = None  # the view of the last decision: the next one needs a newer view

        def ready() -> dict[str, Any] | None:
            if client.closed_with or client.link.closed:
                raise Disconnected
            view = client.views.get(self.table_id or "")
            if not view or view is acted_on:
                return None
            if stop is not None and stop(view):
                return view
            if view["phase"] == "over" or view["legal"]:
                return view
            if end_after is not None and view["phase"] == "waiting" and view["round"] >= end_after:
                return view
            return None

        while True:
            view = await client.wait_for(ready, 30)
            if stop is not None and stop(view):
                return False
            if view["phase"] == "over":
                await self.disconnect()
                return True
            acted_on = view  # its successor may arrive after the reply
            if not view["legal"]:
                try:
                    await client.request(m.EndGame)
                except RequestFailed as exc:
                    assert exc.code in ("no_game", "rate_limited"), exc
                continue
            action = baseline_action(view).to_data()
            try:
                result = await client.act(action)
            except RequestFailed as exc:  # a stale view: a deadline or a bot moved first
                assert exc.code in ("not_your_turn", "illegal_action", "no_game", "rate_limited"), exc
                continue
            self.acked.append((self.table_id, result["seq"], view["seat"], action))  # type: ignore[arg-type]


# ----------------------------------------------------------------- checking the database


def replay(table: dict[str, Any]) -> Game:
    """A stored or exported game replayed with the engine from its seed."""
    game = Game(Settings.from_data(table["game_settings"]), [tuple(p) for p in table["initial_players"]],
                HashRng.from_data(table["rng"]))
    for seat, action in table["actions"]:
        game.apply(seat, action_from_data(action))
    return game


def signature(view: dict[str, Any]) -> tuple:
    """What a seat's view says about the game (not connection flags or deadlines)."""
    return (
        view["round"], view["phase"], view["turn"], view["step"], view["pot"], tuple(view.get("hand", ())),
        tuple(view["discard_pile"]), tuple((p["seat"], p["stack"], p["cards"]) for p in view["players"]),
        tuple(view["to_act"]),
    )


def every_state(table: dict[str, Any]) -> dict[int, set[tuple]]:
    """Each seat's view signature after every action of the stored log."""
    game = Game(Settings.from_data(table["game_settings"]), [tuple(p) for p in table["initial_players"]],
                HashRng.from_data(table["rng"]))
    states: dict[int, set[tuple]] = {seat: set() for seat in game.players}
    for seat, action in table["actions"]:
        game.apply(seat, action_from_data(action))
        for s in states:
            states[s].add(signature(view_for(game, s)))
    return states


def integrity(db: Path) -> None:
    conn = sqlite3.connect(db)
    try:
        assert conn.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
    finally:
        conn.close()


def stored_tables(db: Path) -> dict[str, dict[str, Any]]:
    """Every started table as the store holds it, checked: the replay matches the snapshot,
    chips are conserved on the table and across balances (the ledger audit)."""
    store = Store(db)
    try:
        assert store.audit() == []
        tables = {}
        for row in store.load_tables(("playing", "finished", "closed")):
            if row.rng is None:
                continue
            table = {
                "table_id": row.table_id, "state": row.state, "rng": row.rng, "actions": row.actions,
                "initial_players": row.initial_players, "game_settings": row.game_settings,
                "snapshot": row.snapshot, "rounds": store.rounds(row.table_id, 1 << 30),
            }
            game = replay(table)
            assert game.chips_in_play() == game.brought == sum(p[2] for p in row.initial_players)
            assert game.pot == row.snapshot["pot"] and {s: p.stack for s, p in game.players.items()} == row.snapshot["stacks"]
            table["game"] = game
            tables[row.table_id] = table
        return tables
    finally:
        store.close()


# ----------------------------------------------------------------- the SIGKILL chaos run

BATCH = [(2, 0), (3, 0), (1, 2)] * 2  # (humans, bots) per table: six tables, so each kill hits more points
RESTORE_GRACE = 0.3  # s: seats at finished tables whose players are away are freed this soon after a restart
AFTERMATH_KILLS = 4  # kills after the last batch, while only finished tables are left


async def seat_batch(server: ServerProcess, batch: int) -> list[tuple[Player, bool]]:
    """The tables of ``BATCH``: 2 people; 3 people; 1 person and 2 bots (twice). Returns (player, is host)."""
    players: list[tuple[Player, bool]] = []
    for t, (humans, bots) in enumerate(BATCH):
        group = [Player(server, f"b{batch}t{t}p{i}") for i in range(humans)]
        for player in group:
            await player.connect()
        host = group[0]
        created = await host.request(
            m.CreateTable, name=f"kill {batch}.{t}", settings=m.TableSettings(seats=humans + bots, rules={"ante": 10, "stack": 50}),
        )
        host.table_id, host.seat = created["table_id"], created["seat"]
        for player in group[1:]:
            joined = await player.request(m.Join, table_id=host.table_id)
            player.table_id, player.seat = joined["table_id"], joined["seat"]
        for _ in range(bots):
            await host.request(m.AddBot)
        await host.request(m.Start)
        players += [(player, player is host) for player in group]
    return players


STARTING_BALANCE = 10_000  # dab-server's default


async def leave_some(seated: list[tuple[Player, bool]], lingering: list, done: asyncio.Event) -> list[Player]:
    """After a batch's games are over: each table's host comes back and leaves the standings, the
    second of three people stays connected through every later kill (so keeps the seat), and the
    rest stay away (so the restore grace frees their seats). Returns the leavers."""
    groups: list[list[Player]] = []
    for player, host in seated:
        if host:
            groups.append([])
        groups[-1].append(player)
    leavers = []
    for group in groups:
        host = group[0]
        client = await host.connect(expect_seat=False)  # a kill after its game ended may have let the grace free it
        if client.link.welcome.table_id == host.table_id:
            await client.request(m.Leave)
        await host.disconnect()
        leavers.append(host)
        if len(group) > 2:
            lingering.append(asyncio.ensure_future(linger(group[1], done)))
    return leavers


async def linger(player: Player, done: asyncio.Event) -> None:
    """Stay connected, reconnecting after every restart, until ``done``."""
    while not done.is_set():
        client = await player.connect(expect_seat=False)
        ended = asyncio.ensure_future(client.wait_for(lambda: client.link.closed, None))
        stop = asyncio.ensure_future(done.wait())
        await asyncio.wait([ended, stop], return_when=asyncio.FIRST_COMPLETED)
        ended.cancel()
        stop.cancel()
        await player.disconnect()


def absent_seats(db: Path, everyone: list[Player]) -> list[tuple[str, int]]:
    """Seats at finished tables still held for players who are away (the grace has not freed them yet)."""
    away = {p.player_id for p in everyone if p.client is None}
    conn = sqlite3.connect(f"file:{db}?mode=ro", uri=True)
    try:
        rows = conn.execute("SELECT s.table_id, s.seat, s.player_id FROM seats s JOIN tables t USING (table_id) "
                            "WHERE t.state = 'finished'").fetchall()
    finally:
        conn.close()
    return [(table_id, seat) for table_id, seat, player_id in rows if player_id in away]


async def wait_until(condition: Any, timeout: float) -> None:
    """Poll ``condition`` (state another process owns) until it holds."""
    async def poll() -> None:
        while not condition():
            await asyncio.sleep(0.05)

    await asyncio.wait_for(poll(), timeout)


async def come_back(player: Player, leaver: bool) -> None:
    """Reconnect once more and note the balance; a leaver finds itself in the lobby."""
    client = await player.connect(expect_seat=False)
    if leaver:
        assert client.link.welcome.table_id is None, player.name
    else:
        assert client.link.welcome.table_id in (None, player.table_id), player.name
    player.balance = (await client.request(m.ListTables))["balance"]
    await player.disconnect()


async def chaos(data_dir: Path, kill_points: int, seed: int, max_pause: float = 0.3,
                report: Any = None) -> dict[str, Any]:
    """SIGKILL a real server at random moments until ``kill_points`` distinct points of play were hit.

    Batches of games are played to the end through the kills; while the
    server is down the database is checked (integrity, conservation, replay).
    Afterwards every invariant of the durability issue is asserted; returns a
    summary.
    """
    rng = random.Random(seed)
    started = time.monotonic()
    server = ServerProcess(data_dir, *FAST, "--seed", f"chaos-{seed}", "--restore-grace", str(RESTORE_GRACE))
    everyone: list[Player] = []
    leavers: list[Player] = []
    points: set[tuple[str, int]] = set()
    kills = batch = 0
    done = asyncio.Event()
    lingering: list[asyncio.Future[None]] = []

    async def kill_and_restart() -> None:
        nonlocal kills
        assert await server.stop(signal.SIGKILL) == -signal.SIGKILL
        kills += 1
        integrity(server.db)
        for table_id, table in stored_tables(server.db).items():
            if table["state"] == "playing":
                points.add((table_id, len(table["actions"])))
        await server.start()  # every restart comes up, whatever the finished tables look like
        if report is not None and kills % 50 == 0:
            report(f"{kills} kills, {len(points)} points, {time.monotonic() - started:.0f} s")

    try:
        await server.start()
        while len(points) < kill_points:
            seated = await seat_batch(server, batch)
            everyone += [p for p, _ in seated]
            games = [asyncio.ensure_future(p.play(end_after=15 if host else None)) for p, host in seated]
            while not all(g.done() for g in games):
                await asyncio.wait(games, timeout=rng.uniform(0.0, max_pause))
                if all(g.done() for g in games) or len(points) >= kill_points:
                    continue  # enough: let the batch finish in peace
                await kill_and_restart()
            for game in games:
                assert game.result() is True
            leavers += await leave_some(seated, lingering, done)
            batch += 1
        # The tables the batches left behind (half left, half lingering) restore at random moments of the
        # grace; then as the grace timer leaves them.
        for _ in range(AFTERMATH_KILLS):
            await asyncio.sleep(rng.uniform(0.0, 2 * RESTORE_GRACE))  # chaos timing, not synchronisation
            await kill_and_restart()
        await wait_until(lambda: not absent_seats(server.db, everyone), 10)
        await kill_and_restart()
        done.set()
        await asyncio.gather(*lingering)
        for player in everyone:  # every player comes back: a leaver to the lobby, chips where they belong
            await come_back(player, leaver=player in leavers)
        tables = stored_tables(server.db)
    finally:
        done.set()
        for task in lingering:
            task.cancel()
        await server.close()
    integrity(server.db)

    assert len(tables) == len(BATCH) * batch
    for table_id, table in tables.items():
        game = table["game"]
        assert table["state"] in ("finished", "closed") and game.phase == "over"  # closed: everyone left
        assert game.chips_in_play() == game.brought and game.pot == 0
        rounds = table["rounds"]
        assert [r["round"] for r in rounds] == list(range(1, game.round_no + 1)), table_id
        assert all(r["result"] is not None for r in rounds), f"{table_id}: a round was cut short"

    states = {table_id: every_state(table) for table_id, table in tables.items()}
    acked = shown = 0
    for player in everyone:
        log = tables[player.table_id]["actions"]
        for table_id, seq, seat, action in player.acked:
            assert log[seq] == (seat, action), f"{player.name}: acknowledged action {seq} lost"
            acked += 1
        for view in player.views:
            if view:  # a game view (none before the game)
                assert sum(p["stack"] for p in view["players"]) + view["pot"] == tables[player.table_id]["game"].brought
                assert signature(view) in states[player.table_id][player.seat], f"{player.name} saw a lost state"
                shown += 1
    for player in everyone:
        table = tables[player.table_id]
        brought = next(stack for seat, _, stack in table["initial_players"] if seat == player.seat)
        assert player.balance == STARTING_BALANCE - brought + table["game"].players[player.seat].stack, player.name
    assert max(p.connections for p in everyone) > 1
    bad = [i for i, line in enumerate(server.log) if "ERROR" in line or "Traceback" in line or "CRITICAL" in line]
    assert not bad, "".join(server.log[bad[0]:bad[0] + 60])
    return {
        "batches": batch, "games": len(tables), "kills": kills, "points": len(points), "left": len(leavers),
        "acknowledged": acked, "views": shown, "reconnects": sum(p.connections - 1 for p in everyone),
        "seconds": round(time.monotonic() - started, 1),
    }
