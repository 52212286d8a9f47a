"""What one connection asking for ``history`` as fast as it may costs everyone else; with ``--past``,
what a history page and a replay cost on a database of 100,000 stored rounds.

``--past`` (issue 17): a durable dab-server (its own process) opens a database of
100,000 finished rounds (2,000 tables of 50 rounds, five players each out of
1,000; one real five-seat round of Down and Back, its full record kept for the
first round of the player's 200 tables so those replay). One connection then
walks the player's ``past_rounds`` pages (15 lines each, ``next`` to ``next``)
and loads whole replays (every page of each), each of a different round, so no
replay is served from the server's cache. Printed: each load's median and p99
round trip, the server CPU time each request cost (``/proc``), and what that
comes to when one connection sends them as fast as the rate limit lets it
(PROTOCOL.md §10: 20 messages a second, a page of 15 counting 2, a replay 5),
beside ``ping`` at the same limit. The server runs with a raised
``--request-rate`` so the measurement does not wait on the limit itself.

A durable dab-server (its own process) holds 100 finished five-seat rounds of
one player. A pinger measures its round trip at 20 requests a second, first
alone, then while that player's connection sends ``history(limit=100)`` as fast
as the plain rate limit would let it, 20 a second (each counts as 10 messages,
PROTOCOL.md section 10, so most are ``rate_limited``, and a connection that
keeps on is dropped). Printed: the pinger's p50/p99
both ways, how many history requests were answered, and the server CPU time
each answered one cost.

    python benchmarks/bench_history.py [--seconds 5]
    python benchmarks/bench_history.py --past [--pages 200] [--replays 60]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(ROOT / "tests"))

from bench_server import Client, percentile, spawn  # noqa: E402
from protocol import messages as m  # noqa: E402
from scripted import ScriptedClient, autoplay  # noqa: E402
from server.lobby import Lobby, LobbyConfig  # noqa: E402
from server.net import GameServer, NetConfig  # noqa: E402
from server.store import Store  # noqa: E402
from server.table import TableConfig  # noqa: E402

ROUNDS = 100


async def stored_rounds(data_dir: Path, copies: int = ROUNDS) -> str:
    """Play one five-seat round in process, store ``copies`` copies of it; the player's token."""
    store = Store.open_dir(data_dir)
    config = LobbyConfig(table=TableConfig(bot_delay=0.0, away_delay=0.0, round_pause=0.0), store=store)
    server = GameServer(Lobby(config, "bench"), NetConfig(rate=1000, burst=1000))
    await server.start("127.0.0.1", 0)
    async with ScriptedClient(server.port, "ann") as ann:
        created = await ann.request(m.CreateTable, name="long", settings=m.TableSettings(rules={"stack": 100_000, "ante": 1}))
        for _ in range(4):
            await ann.request(m.AddBot)
        await ann.request(m.Start)
        await autoplay(ann, until_round=1, host=True)
        await ann.request(m.Leave)
        token = ann.link.token
    (record, public), = store.conn.execute(
        "SELECT record, public FROM rounds WHERE table_id = ? AND round_no = 1", (created["table_id"],)).fetchall()
    for round_no in range(3, 3 + copies):
        store.add_round(created["table_id"], dict(json.loads(record), round=round_no),
                        dict(json.loads(public), round=round_no))
    store.commit()
    await server.close(grace=1.0)
    assert token is not None
    return token


async def pinger(port: int, seconds: float) -> list[float]:
    client = await Client.open(port)
    await client.reply(client.send({"type": "hello", "version": 1, "name": "pinger"}))
    rtts = []
    until = time.perf_counter() + seconds
    while time.perf_counter() < until:
        sent = time.perf_counter()
        await client.reply(client.send({"type": "ping"}))
        rtts.append(time.perf_counter() - sent)
        await asyncio.sleep(max(0.0, 0.05 - (time.perf_counter() - sent)))
    client.close()
    return rtts


async def flooder(port: int, token: str, stop: asyncio.Event) -> dict[str, int]:
    """``history(limit=100)`` 20 times a second (the plain rate limit), until stopped or dropped."""
    client = await Client.open(port)
    await client.reply(client.send({"type": "hello", "version": 1, "name": "ann", "token": token}))
    counts = {"ok": 0, "rate_limited": 0, "dropped": 0}
    while not stop.is_set():
        sent = time.perf_counter()
        request_id = client.send({"type": "history", "limit": 100})
        while True:
            try:
                frame = await client.frame()
            except asyncio.IncompleteReadError:
                frame = {"type": "bye"}
            if frame["type"] == "bye":
                counts["dropped"] = 1
                return counts
            if frame.get("id") == request_id:
                break
        counts["ok" if frame["type"] == "ok" else frame["code"]] += 1
        await asyncio.sleep(max(0.0, 0.05 - (time.perf_counter() - sent)))
    client.close()
    return counts


def cpu_seconds(pid: int) -> float:
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / 100  # utime + stime, in clock ticks of 1/100 s


PAST_TABLES, PAST_ROUNDS, PAST_PLAYERS = 2_000, 50, 1_000  # 100,000 rounds
RATE, PAGE_COST, REPLAY_COST, PAGE = 20, 2, 5, 15  # PROTOCOL.md §10


async def one_real_round(data_dir: Path) -> tuple[str, str, dict[str, Any], dict[str, Any]]:
    """Ann and four bots play one round in process; her player id and token, the round's record and public form."""
    token = await stored_rounds(data_dir, copies=0)
    store = Store.open_dir(data_dir)
    (table_id, record, public), = store.conn.execute(
        "SELECT table_id, record, public FROM rounds WHERE round_no = 1").fetchall()
    store.close()
    return token.partition("_")[0], token, json.loads(record), json.loads(public)


def many_rounds(data_dir: Path, ann: str, record: dict[str, Any], public: dict[str, Any]) -> None:
    """Fill the database up to 100,000 finished rounds (see the module docstring), straight into its tables."""
    store = Store.open_dir(data_dir)
    conn = store.conn
    now = time.time()
    others = [f"bench{i:04d}" for i in range(PAST_PLAYERS)]
    conn.execute("BEGIN")
    conn.executemany("INSERT INTO players (player_id, name, secret_sha256, balance, created_at) VALUES (?, ?, ?, ?, ?)",
                     [(p, p, b"x" * 32, 10_000, now) for p in others])
    conn.executemany("INSERT INTO ledger (at, player_id, kind, amount) VALUES (?, ?, 'grant', 10000)",
                     [(now, p) for p in others])
    seq = conn.execute("SELECT coalesce(max(seq), 0) FROM rounds").fetchone()[0]
    for t in range(PAST_TABLES):
        table_id = f"b{t}"
        conn.execute("INSERT INTO tables (table_id, name, game, settings, host_id, state, created_at) "
                     "VALUES (?, ?, 'down-and-back', '{}', ?, 'closed', ?)", (table_id, f"bench {t}", ann, now))
        players = ([ann] if t % 10 == 0 else [others[t * 5 % PAST_PLAYERS]]) + [
            others[(t * 5 + k) % PAST_PLAYERS] for k in range(1, 5)]
        rounds, rows = [], []
        for number in range(1, PAST_ROUNDS + 1):
            seq += 1
            small = {"table_id": table_id, "round": number, "log": [], "actions": [], "stacks": {"0": 1000}}
            full = dict(record, table_id=table_id, round=number) if number == 1 and players[0] == ann else small
            rounds.append((table_id, number, 0, 0, now - 1e5 + seq, json.dumps(full),
                           json.dumps({"table_id": table_id, "round": number, "stacks": {"0": 1000}}), seq))
            rows += [(p, seq, table_id, number, seat, 10 - 5 * seat, "won the pot of 50" if seat == 0 else "lost")
                     for seat, p in enumerate(players)]
        conn.executemany("INSERT INTO rounds (table_id, round_no, first_seq, last_seq, finished_at, record, public, "
                         "seq) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", rounds)
        conn.executemany("INSERT INTO player_rounds (player_id, seq, table_id, round_no, seat, chips, result) "
                         "VALUES (?, ?, ?, ?, ?, ?, ?)", rows)
    conn.execute("COMMIT")
    store.close()


def summary(label: str, samples: list[float]) -> str:
    return (f"{label:34s} median {percentile(samples, 0.5) * 1000:7.2f} ms   p99 {percentile(samples, 0.99) * 1000:7.2f} ms"
            f"   ({len(samples)} loads)")


async def past_main(args: argparse.Namespace) -> None:
    with tempfile.TemporaryDirectory() as data_dir:
        started = time.perf_counter()
        ann, token, record, public = await one_real_round(Path(data_dir))
        many_rounds(Path(data_dir), ann, record, public)
        built = time.perf_counter() - started
        process, port = await spawn(sys.executable, "-m", "server", "--data-dir", data_dir, "--host", "127.0.0.1",
                                    "--port", "0", "--log-level", "INFO", "--request-rate", "100000")
        try:
            client = await Client.open(port)
            await client.reply(client.send({"type": "hello", "version": m.PROTOCOL_VERSION, "name": "x",
                                            "token": token}))
            before = cpu_seconds(process.pid)
            for _ in range(500):
                await client.reply(client.send({"type": "ping"}))
            ping_cpu = (cpu_seconds(process.pid) - before) / 500
            pages, cursor = [], None
            before = cpu_seconds(process.pid)
            for _ in range(args.pages):
                sent = time.perf_counter()
                reply = await client.reply(client.send({"type": "past_rounds", "limit": PAGE, "before": cursor}))
                pages.append(time.perf_counter() - sent)
                assert reply["type"] == "ok" and len(reply["result"]["rounds"]) == PAGE, reply
                cursor = reply["result"]["next"]
            page_cpu = (cpu_seconds(process.pid) - before) / args.pages
            tables = [f"b{t}" for t in range(0, PAST_TABLES, 10)][:args.replays]
            replays, requests = [], 0
            before = cpu_seconds(process.pid)
            for table_id in tables:
                sent, step = time.perf_counter(), 0
                while step is not None:
                    reply = await client.reply(client.send({"type": "replay", "table_id": table_id, "round": 1,
                                                            "from_step": step}))
                    assert reply["type"] == "ok", reply
                    requests += 1
                    step = reply["result"]["next"]
                replays.append(time.perf_counter() - sent)
            replay_cpu = (cpu_seconds(process.pid) - before) / requests
            client.close()
        finally:
            process.terminate()
            await process.wait()
    print(f"database: {PAST_TABLES * PAST_ROUNDS:,} rounds, {PAST_PLAYERS + 1:,} players, built in {built:.1f} s; "
          f"load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(summary(f"past_rounds page ({PAGE} lines)", pages))
    print(summary(f"replay, whole ({requests / len(tables):.1f} pages)", replays))
    for label, cpu, cost in (("ping", ping_cpu, 1), ("past_rounds page", page_cpu, PAGE_COST),
                             ("replay page", replay_cpu, REPLAY_COST)):
        print(f"{label:18s} server CPU {cpu * 1000:6.2f} ms a request; at the rate limit ({RATE / cost:g}/s, "
              f"counting {cost}) one connection takes {cpu * RATE / cost * 100:5.1f}% of one core")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--past", action="store_true", help="history pages and replays on 100,000 stored rounds")
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--replays", type=int, default=60)
    args = parser.parse_args()
    if args.past:
        await past_main(args)
        return
    with tempfile.TemporaryDirectory() as data_dir:
        token = await stored_rounds(Path(data_dir))
        process, port = await spawn(sys.executable, "-m", "server", "--data-dir", data_dir, "--host", "127.0.0.1",
                                    "--port", "0", "--log-level", "INFO")
        try:
            alone = await pinger(port, args.seconds)
            stop = asyncio.Event()
            flood = asyncio.ensure_future(flooder(port, token, stop))
            before = cpu_seconds(process.pid)
            crowded = await pinger(port, args.seconds)
            stop.set()
            counts = await flood
            cpu = cpu_seconds(process.pid) - before
        finally:
            process.terminate()
            await process.wait()
    for label, rtts in (("ping alone", alone), ("ping beside the history flood", crowded)):
        print(f"{label:32s} p50 {percentile(rtts, 0.5) * 1000:6.2f} ms   p99 {percentile(rtts, 0.99) * 1000:6.2f} ms")
    print(f"history(limit=100): {counts['ok']} answered ({counts['ok'] / args.seconds:.1f}/s), "
          f"{counts['rate_limited']} rate_limited{', then dropped' if counts['dropped'] else ''}; "
          f"server CPU {cpu / args.seconds * 100:.1f}% of one core")


if __name__ == "__main__":
    asyncio.run(main())
