"""What one connection asking for ``history`` as fast as it may costs everyone else.

A durable dab-server (its own process) holds 100 finished five-seat rounds of
one player. A pinger measures its round trip at 20 requests a second, first
alone, then while that player's connection sends ``history(limit=100)`` as fast
as the plain rate limit would let it, 20 a second (each counts as 10 messages,
PROTOCOL.md section 10, so most are ``rate_limited``, and a connection that
keeps on is dropped). Printed: the pinger's p50/p99
both ways, how many history requests were answered, and the server CPU time
each answered one cost.

    python benchmarks/bench_history.py [--seconds 5]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import tempfile
import time
from pathlib import Path

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


async def stored_rounds(data_dir: Path) -> str:
    """Play one five-seat round in process, store 100 copies of it; the player's token."""
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
    for round_no in range(3, 3 + ROUNDS):
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


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0)
    args = parser.parse_args()
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
