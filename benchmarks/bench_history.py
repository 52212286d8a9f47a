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

``--spam`` (issue 32 item 15): what one address replaying rounds costs another
player, this tree beside an earlier commit (``--base``, checked out into a
temporary worktree) in the same run. A database holds 2,000 finished five-seat
rounds with what a replay needs, 200 for each of ten players; the base tree's
code builds it (so both servers can open it: a newer server upgrades its copy).
Each tree's dab-server (its own process, started from that tree) then has one
other player ping it 20 times a second, first alone, then while ten connections
from one address, one per player, each ask for the replay of a random round of
theirs as fast as the plain rate limit lets one connection (a replay counts 5
messages of 20 a second: 4 a second each), from another process. The trees
take turns for ``--rounds`` rounds. Printed: the pinger's p50 and p99 alone and
beside the spam, per tree, pooled over the rounds, the replays answered and
refused a second, and the CPU the server's processes spent (the server, and any
worker process of it), with ``SUMMARY`` lines.

    python benchmarks/bench_history.py [--seconds 5]
    python benchmarks/bench_history.py --past [--pages 200] [--replays 60]
    python benchmarks/bench_history.py --spam [--base COMMIT] [--seconds 10] [--rounds 2]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
# --tree PATH: import another tree's code (the spam benchmark builds its database with the base tree's).
CODE = Path(sys.argv[sys.argv.index("--tree") + 1]).resolve() if "--tree" in sys.argv else ROOT
sys.path.insert(0, str(ROOT / "benchmarks"))
sys.path.insert(0, str(CODE / "tests"))
sys.path.insert(0, str(CODE))

from protocol import messages as m  # noqa: E402
from scripted import ScriptedClient, autoplay  # noqa: E402
from server.lobby import Lobby, LobbyConfig  # noqa: E402
from server.net import GameServer, NetConfig  # noqa: E402
from server.store import Store  # noqa: E402
from server.table import TableConfig  # noqa: E402
# Last: it puts this tree first on the path, and the code under test (--tree) is imported already.
from bench_server import Client, machine, percentile, spawn  # noqa: E402

ROUNDS = 100


async def stored_rounds(data_dir: Path, copies: int = ROUNDS) -> str:
    """Play one five-seat round in process, store ``copies`` copies of it; the player's token."""
    store = Store.open_dir(data_dir)
    config = LobbyConfig(table=TableConfig(bot_delay=0.0, away_delay=0.0, round_pause=0.0, seed_window=0.0), store=store)
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
    await client.reply(client.send({"type": "hello", "version": m.PROTOCOL_VERSION, "name": "pinger"}))
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
    await client.reply(client.send({"type": "hello", "version": m.PROTOCOL_VERSION, "name": "ann", "token": token}))
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


# ----------------------------------------------------------------- --spam: one address replaying rounds

SPAMMERS, SPAM_ROUNDS = 10, 200  # players (one connection each, one address), replayable rounds of each
SPAM_SECRET = "benchmark-secret-of-a-spammer-0000"


def build_spam_db(data_dir: Path) -> None:
    """The spam benchmark's database (with whatever tree's code is imported): one real five-seat round
    stored again as 200 rounds of each of ten players, each with all a replay needs."""
    from server.tokens import secret_hash

    _, _, record, public = asyncio.run(one_real_round(data_dir))
    store = Store.open_dir(data_dir)
    conn = store.conn
    now = time.time()
    conn.execute("BEGIN")
    seq = conn.execute("SELECT coalesce(max(seq), 0) FROM rounds").fetchone()[0]
    for i in range(SPAMMERS):
        player = f"spam{i:02d}"
        conn.execute("INSERT INTO players (player_id, name, secret_sha256, balance, created_at) VALUES (?, ?, ?, ?, ?)",
                     (player, player, secret_hash(SPAM_SECRET), 10_000, now))
        conn.execute("INSERT INTO ledger (at, player_id, kind, amount) VALUES (?, ?, 'grant', 10000)", (now, player))
        for k in range(SPAM_ROUNDS):
            table_id = f"s{i}x{k}"
            seq += 1
            conn.execute("INSERT INTO tables (table_id, name, game, settings, host_id, state, created_at) "
                         "VALUES (?, ?, 'down-and-back', '{}', ?, 'closed', ?)", (table_id, table_id, player, now))
            conn.execute("INSERT INTO rounds (table_id, round_no, first_seq, last_seq, finished_at, record, public, seq) "
                         "VALUES (?, 1, 0, 0, ?, ?, ?, ?)",
                         (table_id, now - 1e5 + seq, json.dumps(dict(record, table_id=table_id)),
                          json.dumps(dict(public, table_id=table_id)), seq))
            conn.execute("INSERT INTO player_rounds (player_id, seq, table_id, round_no, seat, chips, result) "
                         "VALUES (?, ?, ?, 1, 0, 0, 'lost')", (player, seq, table_id))
    conn.execute("COMMIT")
    store.close()


def spam_clients(port: int, seconds: float, spread: bool) -> None:
    """(In its own process.) Ten connections, one per player, each asking for the replay of a random round of
    theirs 4 times a second (a replay counts 5 of the 20 messages a second one connection may send), for
    ``seconds``, from 127.0.0.1 or (``spread``) each from its own loopback address; prints the answers it got
    as JSON."""
    async def one(i: int, counts: dict[str, int]) -> None:
        client = Client(*await asyncio.open_connection(
            "127.0.0.1", port, local_addr=(f"127.0.0.{i + 2}" if spread else "127.0.0.1", 0)))
        await client.reply(client.send({"type": "hello", "version": m.PROTOCOL_VERSION, "name": f"spam{i:02d}",
                                        "token": f"spam{i:02d}_{SPAM_SECRET}"}))
        until = time.perf_counter() + seconds
        while time.perf_counter() < until:
            sent = time.perf_counter()
            reply = await client.reply(client.send({"type": "replay", "table_id": f"s{i}x{random.randrange(SPAM_ROUNDS)}",
                                                    "round": 1}))
            key = "ok" if reply["type"] == "ok" else reply["code"]
            counts[key] = counts.get(key, 0) + 1
            await asyncio.sleep(max(0.0, 0.25 - (time.perf_counter() - sent)))
        client.close()

    async def run() -> dict[str, int]:
        counts: dict[str, int] = {}
        await asyncio.gather(*(one(i, counts) for i in range(SPAMMERS)))
        return counts

    print(json.dumps(asyncio.run(run())))


def process_cpu(pid: int) -> float:
    """CPU seconds of ``pid`` and of its children now (a worker process, when the server has one)."""
    total = cpu_seconds(pid)
    for task in os.listdir(f"/proc/{pid}/task"):
        with open(f"/proc/{pid}/task/{task}/children") as f:
            for child in f.read().split():
                try:
                    total += cpu_seconds(int(child))
                except FileNotFoundError:
                    pass
    return total


SCENARIOS = {"one": "from one address", "ten": "from ten addresses"}


async def spam_round(tree: Path, db: Path, seconds: float) -> dict[str, Any]:
    """One tree's server on a copy of the database: the pinger alone, then beside the replay spam from one
    address, then from ten (each connection from its own loopback address)."""
    with tempfile.TemporaryDirectory() as data_dir:
        shutil.copytree(db, data_dir, dirs_exist_ok=True)
        env = {**os.environ, "PYTHONPATH": str(tree)}
        process = await asyncio.create_subprocess_exec(
            sys.executable, "-m", "server", "--data-dir", data_dir, "--host", "127.0.0.1", "--port", "0",
            "--log-level", "INFO", "--max-per-address", "1000", stderr=asyncio.subprocess.PIPE, cwd=tree, env=env)
        try:
            port = await listening(process)
            await asyncio.sleep(2.0)  # let a worker process start, if the server has one
            result: dict[str, Any] = {"alone": await pinger(port, seconds / 2)}
            for scenario in SCENARIOS:
                before = process_cpu(process.pid)
                spam = await asyncio.create_subprocess_exec(
                    sys.executable, str(Path(__file__).resolve()), "--spam-clients", str(port), str(seconds),
                    scenario, "--tree", str(tree), stdout=asyncio.subprocess.PIPE)
                crowded = await pinger(port, seconds)
                out, _ = await spam.communicate()
                result[scenario] = {"pings": crowded, "counts": json.loads(out),
                                    "cpu": (process_cpu(process.pid) - before) / seconds}
        finally:
            if process.returncode is None:
                process.terminate()
            await process.wait()
    return result


async def listening(process: asyncio.subprocess.Process) -> int:
    """The port a dab-server says it listens on (its other log lines are read and dropped)."""
    said = []
    while True:
        line = (await process.stderr.readline()).decode()
        said.append(line)
        if not line:
            raise SystemExit("the server exited:\n" + "".join(said[-10:]))
        found = re.search(r"listening on [\d.]+:(\d+)", line)
        if found:
            asyncio.ensure_future(_discard(process.stderr))
            return int(found.group(1))


async def _discard(stream: asyncio.StreamReader) -> None:
    while await stream.readline():
        pass


async def spam_main(args: argparse.Namespace) -> None:
    base = Path(tempfile.mkdtemp(prefix="dab-bench-base-"))
    subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(base), args.base], check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    trees = {"base": base, "this": ROOT}
    pooled: dict[str, dict[str, Any]] = {
        t: {"alone": [], **{s: {"pings": [], "counts": {}, "cpu": []} for s in SCENARIOS}} for t in trees}
    try:
        with tempfile.TemporaryDirectory() as db:
            subprocess.run([sys.executable, str(Path(__file__).resolve()), "--build-spam-db", db, "--tree", str(base)],
                           check=True, env={**os.environ, "PYTHONPATH": str(base)}, cwd=base)
            print(machine())
            for turn in range(args.rounds):
                for label in (list(trees) if turn % 2 == 0 else list(trees)[::-1]):
                    result = await spam_round(trees[label], Path(db), args.seconds)
                    into = pooled[label]
                    into["alone"] += result["alone"]
                    for scenario in SCENARIOS:
                        got, kept = result[scenario], into[scenario]
                        kept["pings"] += got["pings"]
                        kept["cpu"].append(got["cpu"])
                        for key, value in got["counts"].items():
                            kept["counts"][key] = kept["counts"].get(key, 0) + value
    finally:
        subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(base)], check=False)
    print(f"load average after the run {', '.join(f'{x:.2f}' for x in os.getloadavg())}")
    spent = args.seconds * args.rounds
    p99: dict[tuple[str, str], float] = {}
    for label, into in pooled.items():
        print(f"{f'base ({args.base})' if label == 'base' else 'this tree'}:")
        alone = into["alone"]
        print(f"  another player's ping alone{'':26s} p50 {percentile(alone, 0.5) * 1000:7.2f} ms   "
              f"p99 {percentile(alone, 0.99) * 1000:7.2f} ms   ({len(alone)} pings)")
        for scenario, words in SCENARIOS.items():
            kept = into[scenario]
            pings, counts = kept["pings"], kept["counts"]
            p99[(label, scenario)] = percentile(pings, 0.99)
            print(f"  ... beside ten connections' replays {words:19s} p50 {percentile(pings, 0.5) * 1000:7.2f} ms   "
                  f"p99 {p99[(label, scenario)] * 1000:7.2f} ms   ({len(pings)} pings)")
            print(f"      replays answered {counts.get('ok', 0) / spent:5.1f}/s, refused (rate_limited) "
                  f"{counts.get('rate_limited', 0) / spent:5.1f}/s; the server's CPU {statistics_mean(kept['cpu']) * 100:5.1f}% "
                  "of one core (with its worker process, if any)")
            print(f"SUMMARY bench_history spam tree={label} from={scenario} "
                  f"ping_alone_p99_ms={percentile(alone, 0.99) * 1000:.2f} "
                  f"ping_p50_ms={percentile(pings, 0.5) * 1000:.2f} ping_p99_ms={p99[(label, scenario)] * 1000:.2f} "
                  f"replays_ok_per_s={counts.get('ok', 0) / spent:.1f}")
    for scenario, words in SCENARIOS.items():
        ratio = p99[("this", scenario)] / p99[("base", scenario)]
        print(f"another player's ping p99 beside replay spam {words}: this tree / base = {ratio:.3f}x")
        print(f"SUMMARY bench_history spam from={scenario} ping_p99_ratio={ratio:.3f}")


def statistics_mean(values: list[float]) -> float:
    return sum(values) / len(values) if values else 0.0


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    parser.add_argument("--past", action="store_true", help="history pages and replays on 100,000 stored rounds")
    parser.add_argument("--pages", type=int, default=200)
    parser.add_argument("--replays", type=int, default=60)
    parser.add_argument("--spam", action="store_true", help="one address's replay spam beside another player's ping, "
                        "this tree against --base in the same run")
    parser.add_argument("--base", default="a610566", help="the earlier commit --spam compares with (default a610566, "
                        "the last before replays moved off the event loop)")
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--tree", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--build-spam-db", default=None, help=argparse.SUPPRESS)
    parser.add_argument("--spam-clients", nargs=3, default=None, help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.past:
        await past_main(args)
        return
    if args.spam:
        await spam_main(args)
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
    if "--build-spam-db" in sys.argv:
        build_spam_db(Path(sys.argv[sys.argv.index("--build-spam-db") + 1]))
    elif "--spam-clients" in sys.argv:
        at = sys.argv.index("--spam-clients")
        spam_clients(int(sys.argv[at + 1]), float(sys.argv[at + 2]), sys.argv[at + 3] == "ten")
    else:
        asyncio.run(main())
