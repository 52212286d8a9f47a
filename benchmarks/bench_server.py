"""Server load: N protocol clients over M tables on loopback, beside a bare echo server.

Both servers run as separate processes; this process drives every client on one
event loop. Each client "thinks" for a random time before each action (like a
person, and so the offered load is known), then measures the round trip from
sending ``act`` to its ``ok``, and the update: from sending ``act`` to holding
its own new view (the server sends it just before the reply). The baseline is
a bare asyncio msgpack echo server answering the same number of clients at the
same pace, measured in the same run, so the ratio cancels machine noise.

    python benchmarks/bench_server.py [--clients 400] [--tables 100] [--seconds 20]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from client.link import Link, RequestFailed  # noqa: E402
from engine.bots import baseline_action  # noqa: E402
from protocol import messages as m  # noqa: E402
from protocol.framing import FrameDecoder, encode_frame  # noqa: E402

ECHO_SERVER = """
import asyncio, sys
sys.path.insert(0, sys.argv[1])
from protocol.framing import FrameDecoder, encode_frame

async def echo(reader, writer):
    decoder = FrameDecoder()
    while data := await reader.read(65536):
        decoder.feed(data)
        for frame in decoder:
            writer.write(encode_frame({"type": "ok", "id": frame["id"], "result": {}}))

async def main():
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    print("listening on 127.0.0.1:%d" % server.sockets[0].getsockname()[1], file=sys.stderr, flush=True)
    await server.serve_forever()

asyncio.run(main())
"""


async def spawn(*args: str) -> tuple[asyncio.subprocess.Process, int]:
    process = await asyncio.create_subprocess_exec(*args, stderr=asyncio.subprocess.PIPE)
    while True:
        line = (await process.stderr.readline()).decode()
        if not line:
            raise SystemExit(f"server exited: {args}")
        found = re.search(r"listening on [\d.]+:(\d+)", line)
        if found:
            asyncio.ensure_future(_drain(process.stderr))
            return process, int(found.group(1))


async def _drain(stream: asyncio.StreamReader) -> None:
    while await stream.readline():
        pass


def think(pace: float) -> float:
    return random.uniform(0.5 * pace, 1.5 * pace)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


async def echo_client(port: int, until: float, pace: float, rtts: list[float]) -> None:
    reader, writer = await asyncio.open_connection("127.0.0.1", port)
    decoder = FrameDecoder()
    request_id = 0
    while time.perf_counter() < until:
        await asyncio.sleep(think(pace))
        request_id += 1
        sent = time.perf_counter()
        writer.write(encode_frame({"type": "act", "id": request_id, "action": {"kind": "take_stock"}}))
        while (frame := decoder.next_frame()) is None:
            decoder.feed(await reader.read(65536))
        rtts.append(time.perf_counter() - sent)
    writer.close()


class Player:
    def __init__(self, port: int, name: str) -> None:
        self.view: dict | None = None
        self.views = 0
        self.view_at = 0.0
        self.changed = asyncio.Event()
        self.link = Link("127.0.0.1", port, name, on_push=self._push)

    def _push(self, message: m.Message) -> None:
        if isinstance(message, m.View):
            self.view = message.view
            self.views += 1
            self.view_at = time.perf_counter()
            self.changed.set()

    async def next_view(self, after: int) -> float:
        """When the first view after the ``after``-th arrived."""
        while self.views <= after:
            self.changed.clear()
            await self.changed.wait()
        return self.view_at

    async def my_turn(self) -> dict:
        while not (self.view and self.view.get("legal")):
            self.changed.clear()
            await self.changed.wait()
        return self.view


async def play(player: Player, until: float, pace: float, rtts: list[float], updates: list[float]) -> None:
    while time.perf_counter() < until:
        try:
            view = await asyncio.wait_for(player.my_turn(), max(0.01, until - time.perf_counter()))
        except asyncio.TimeoutError:
            return
        await asyncio.sleep(think(pace))
        action = baseline_action(view).to_data()
        seen = player.views
        sent = time.perf_counter()
        try:
            await player.link.act(action)
        except RequestFailed:
            continue  # the view went stale while thinking (a deadline): not a measured action
        rtts.append(time.perf_counter() - sent)
        updates.append(await player.next_view(seen) - sent)  # already here: it came first


async def measure_echo(clients: int, seconds: float, pace: float) -> list[float]:
    process, port = await spawn(sys.executable, "-c", ECHO_SERVER, str(ROOT))
    rtts: list[float] = []
    until = time.perf_counter() + seconds
    try:
        await asyncio.gather(*(echo_client(port, until, pace, rtts) for _ in range(clients)))
    finally:
        process.terminate()
        await process.wait()
    return rtts


async def measure_game(
    clients: int, tables: int, seconds: float, pace: float, data_dir: str,
) -> tuple[list[float], list[float]]:
    process, port = await spawn(
        sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--bot-delay", "0",
        "--round-pause", "0", "--turn-timeout", "120", "--max-connections", str(clients + 10), "--memory",
        "--data-dir", data_dir,
    )
    players = [Player(port, f"p{i}") for i in range(clients)]
    try:
        for chunk in range(0, clients, 50):
            await asyncio.gather(*(p.link.connect() for p in players[chunk:chunk + 50]))
        per_table = clients // tables
        for t in range(tables):
            seated = players[t * per_table:(t + 1) * per_table]
            created = await seated[0].link.request(
                m.CreateTable, name=f"bench {t}", settings=m.TableSettings(seats=per_table, stack=10**6, ante=1)
            )
            for player in seated[1:]:
                await player.link.request(m.Join, table_id=created["table_id"])
            await seated[0].link.request(m.Start)
        rtts: list[float] = []
        updates: list[float] = []
        until = time.perf_counter() + seconds
        await asyncio.gather(*(play(p, until, pace, rtts, updates) for p in players))
    finally:
        for p in players:
            await p.link.close()
        process.terminate()
        await process.wait()
    return rtts, updates


def report(label: str, rtts: list[float], seconds: float) -> None:
    print(f"{label:<24} {len(rtts) / seconds:8.0f} actions/s   "
          f"p50 {statistics.median(rtts) * 1e3:6.2f} ms   p99 {percentile(rtts, 0.99) * 1e3:6.2f} ms   "
          f"(n={len(rtts)})")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=400)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--pace", type=float, default=1.0, help="mean think time per client action (s)")
    args = parser.parse_args()
    print(f"{args.clients} clients, {args.tables} tables, {args.seconds:g} s each, "
          f"think time {args.pace:g} s mean; CPUs: {os.cpu_count()}")
    echo = await measure_echo(args.clients, args.seconds, args.pace)
    report("bare msgpack echo", echo, args.seconds)
    with tempfile.TemporaryDirectory() as data_dir:
        game, updates = await measure_game(args.clients, args.tables, args.seconds, args.pace, data_dir)
    report("dab-server act -> ok", game, args.seconds)
    report("dab-server act -> own view", updates, args.seconds)
    ratio = statistics.median(game) / statistics.median(echo)
    print(f"action round-trip p50 / echo p50 = {ratio:.2f}x (target <= 2x); "
          f"p99 action->update = {percentile(updates, 0.99) * 1e3:.2f} ms (target < 10 ms)")


if __name__ == "__main__":
    asyncio.run(main())
