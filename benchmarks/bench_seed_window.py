"""What fair deals' seed phases cost (issue 28): the time from a round's ``deal_commit`` to its fixed deck
with 4 connected humans on loopback, and the bytes per round the commit phase adds.

A real ``dab-server`` (a separate process, ``--memory``, its default 3 s seed window) and four minimal
protocol clients that seed as the reference client does (docs/FAIRNESS.md §3): each commits to a fresh
seed the moment the ``deal_commit`` arrives and reveals it the moment the ``seed_set`` holding its
commitment does. Every sample is a new table of the four (the host creates it, three join, the host
starts it: its first round's deal is sealed, then the host ends the game). Per sample: each client's
time from receiving the ``deal_commit`` to receiving the ``deck_fixed`` (and the last of the four), and
the server's own ``after_ms`` from the ``deck_fixed``.

The baseline, measured in the same run on the same four connections: two ``ping`` round trips one after
the other (the seed phases need two: a commitment, then a seed), all four clients at once, the last to
finish; the ratio says what the phases cost beyond the network's floor.

Bytes: each fair event's msgpack encoding as one member receives it, and each seed request and its reply,
per round (a table of four: every member receives every event); "the commit phase adds" is what version 1
did not have: the seed_commit requests and replies, the seed_commit and seed_set events, and the seats,
window and signature fields of the deal_commit and deal_reveal.

    python benchmarks/bench_seed_window.py [--rounds 200] [--warmup 10]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import secrets
import statistics
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import msgpack

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_server import Client, machine, percentile, spawn  # noqa: E402
from engine.fairness import seed_commitment  # noqa: E402
from protocol import messages as m  # noqa: E402
from protocol.framing import encode_frame  # noqa: E402

FAIR = ("deal_commit", "seed_commit", "seed_set", "client_seed", "deck_fixed", "deal_reveal")
V1_FIELDS = {"deal_commit": {"kind", "round", "version", "commitment"},
             "deal_reveal": {"kind", "round", "version", "commitment", "seed", "client_seeds", "state", "actions"}}


class Seeder(Client):
    """A client that seeds every round at once and notes when each phase reached it."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        super().__init__(reader, writer)
        self.seat: int | None = None
        self.seed = b""
        self.commit_at = self.fixed_at = 0.0
        self.after_ms: int | None = None
        self.fixed = asyncio.Event()
        self.bytes: dict[str, int] = defaultdict(int)
        self.waiting: dict[int, asyncio.Future[dict[str, Any]]] = {}
        self.reading: asyncio.Task[None] | None = None

    def start_reading(self) -> None:
        self.reading = asyncio.ensure_future(self._read())

    async def _read(self) -> None:
        while True:
            frame = await self.frame()
            if frame["type"] in ("ok", "error") and frame.get("id") in self.waiting:
                self.waiting.pop(frame["id"]).set_result(frame)
            elif frame["type"] == "view" and frame["table"]:
                self.seat = frame["table"]["seat"]
            elif frame["type"] == "event":
                for event in frame["events"]:
                    self._event(event)

    def _event(self, event: dict[str, Any]) -> None:
        kind = event["kind"]
        if kind in FAIR:
            self.bytes[kind] += len(msgpack.packb(event))
            if kind in V1_FIELDS:
                self.bytes[f"{kind} (fields new in version 2)"] += len(msgpack.packb(event)) - len(
                    msgpack.packb({k: v for k, v in event.items() if k in V1_FIELDS[kind]}))
        now = time.perf_counter()
        if kind == "deal_commit" and self.seat in event["seats"]:
            self.commit_at = now
            self.seed = secrets.token_bytes(32)
            commit = seed_commitment(bytes.fromhex(event["commitment"]), self.seat, self.seed).hex()
            self._send({"type": "seed_commit", "commit": commit}, "seed_commit")
        elif kind == "seed_set" and any(seat == self.seat for seat, _ in event["commits"]):
            self._send({"type": "client_seed", "seed": self.seed.hex()}, "client_seed")
        elif kind == "deck_fixed":
            self.fixed_at, self.after_ms = now, event["after_ms"]
            assert any(seat == self.seat for seat, _ in event["client_seeds"]), "a seed was left out"
            self.fixed.set()

    def _send(self, message: dict[str, Any], kind: str) -> None:
        request_id = self.send(message)
        self.bytes[f"{kind} request"] += len(encode_frame({**message, "id": request_id}))
        reply = asyncio.get_running_loop().create_future()
        reply.add_done_callback(lambda done: self.bytes.__setitem__(
            f"{kind} reply", self.bytes[f"{kind} reply"] + len(encode_frame(done.result()))))
        self.waiting[request_id] = reply

    async def call(self, message: dict[str, Any]) -> dict[str, Any]:
        reply = asyncio.get_running_loop().create_future()
        self.waiting[self.send(message)] = reply
        frame = await reply
        if frame["type"] == "error":
            raise SystemExit(f"{message['type']} refused: {frame}")
        return frame.get("result", {})


async def connect(port: int, name: str) -> Seeder:
    client = Seeder(*await asyncio.open_connection("127.0.0.1", port))
    client.send(m.Hello(id=0, version=m.PROTOCOL_VERSION, name=name).to_wire())
    while (await client.frame())["type"] != "welcome":
        pass
    client.start_reading()
    return client


async def one_round(clients: list[Seeder]) -> tuple[list[float], float, int]:
    host, *others = clients
    for client in clients:
        client.fixed.clear()
    table = await host.call({"type": "create_table", "name": "bench", "settings": {"seats": 4}})
    for client in others:
        await client.call({"type": "join", "table_id": table["table_id"]})
    await host.call({"type": "start"})
    await asyncio.wait_for(asyncio.gather(*(c.fixed.wait() for c in clients)), 30)
    times = [c.fixed_at - c.commit_at for c in clients]
    await host.call({"type": "end_game"})
    for client in clients:
        await client.call({"type": "leave"})
    return times, max(times), host.after_ms or 0


async def two_pings(clients: list[Seeder]) -> float:
    async def pings(client: Seeder) -> float:
        start = time.perf_counter()
        await client.call({"type": "ping"})
        await client.call({"type": "ping"})
        return time.perf_counter() - start

    return max(await asyncio.gather(*(pings(c) for c in clients)))


def summary(label: str, samples: list[float]) -> str:
    return (f"{label:<44} median {statistics.median(samples) * 1e3:7.2f} ms   p99 {percentile(samples, 0.99) * 1e3:7.2f} ms"
            f"   max {max(samples) * 1e3:7.2f} ms   (n={len(samples)})")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--rounds", type=int, default=200)
    parser.add_argument("--warmup", type=int, default=10)
    args = parser.parse_args()
    print(machine())
    process, port = await spawn(sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--memory",
                                "--bot-delay", "0", "--round-pause", "0", "--turn-timeout", "120",
                                "--max-per-address", "100", "--new-players-per-hour", "100", "--request-rate", "1000")
    try:
        clients = [await connect(port, f"p{i}") for i in range(4)]
        each, last, server, floor = [], [], [], []
        for i in range(args.warmup + args.rounds):
            if i == args.warmup:
                for client in clients:
                    client.bytes.clear()
            times, slowest, after_ms = await one_round(clients)
            ping = await two_pings(clients)
            if i >= args.warmup:
                each += times
                last.append(slowest)
                server.append(after_ms / 1000)
                floor.append(ping)
        print(f"{args.rounds} rounds, 4 connected humans, seed window 3 s (never waited for: all seed at once)")
        print(summary("deal_commit to deck_fixed, each client", each))
        print(summary("deal_commit to deck_fixed, the last of four", last))
        print(summary("the server's after_ms (deal_commit to fix)", server))
        print(summary("baseline: two pings, the last of four", floor))
        ratio = statistics.median(last) / statistics.median(floor)
        p99_ratio = percentile(last, 0.99) / percentile(floor, 0.99)
        print(f"ratio to the baseline: median {ratio:.2f}x, p99 {p99_ratio:.2f}x")
        per_member = {k: v / args.rounds / len(clients) for k, v in sorted(
            (k, sum(c.bytes[k] for c in clients)) for k in {k for c in clients for k in c.bytes})}
        print("bytes per round, per member (each member receives every fair event; requests are its own):")
        for kind, size in per_member.items():
            print(f"  {kind:<44} {size:8.1f}")
        adds = ["seed_commit request", "seed_commit reply", "seed_commit", "seed_set",
                "deal_commit (fields new in version 2)", "deal_reveal (fields new in version 2)"]
        added = sum(per_member.get(k, 0) for k in adds) * len(clients)
        total = sum(v for k, v in per_member.items() if "fields new" not in k) * len(clients)
        print(f"the commit phase adds {added:.0f} bytes per round at a table of four "
              f"(all fair-deal traffic: {total:.0f} bytes per round)")
        print(f"SUMMARY seed_window_ms median={statistics.median(last) * 1e3:.2f} p99={percentile(last, 0.99) * 1e3:.2f} "
              f"baseline_median={statistics.median(floor) * 1e3:.2f} baseline_p99={percentile(floor, 0.99) * 1e3:.2f} "
              f"ratio={ratio:.2f} bytes_added={added:.0f} load={os.getloadavg()[0]:.2f}")
        for client in clients:
            if client.reading is not None:
                client.reading.cancel()
            client.close()
    finally:
        process.terminate()
        await process.wait()


if __name__ == "__main__":
    asyncio.run(main())
