"""Server load: N protocol clients over M tables on loopback, beside a bare echo server.

Both servers run as separate processes, and so do the clients: --processes worker
processes (4) each drive their share of the clients (whole tables) on their own
event loop, so no client waits behind the measuring code or behind hundreds of
others on one loop. Each client "thinks" for a random time before each action (like a
person, and so the offered load is known), then measures the round trip from
sending ``act`` to its ``ok``, and the update: from sending ``act`` to holding
its own new view (the server sends it just after the reply).

The baseline is a bare asyncio msgpack echo server (the asyncio documentation's
streams echo server, with our framing), measured in the same run so the ratio
cancels machine noise, with as many connections offering the same request rate
as the game did. At a table only the seat to act sends, so the game's request
rate is about clients / (seats x think time); an echo server asked four times
as often idles less between requests and answers faster on a virtual machine
(CPU idle states, cold caches), which would flatter the baseline.

Two other baselines are printed for comparison: an echo built like dab-server's
I/O layer (an asyncio protocol handling frames in ``data_received``, no reader
task), at the same rate; and the streams echo at the clients' own think time.

Both measurements use the same minimal client (length-prefixed msgpack frames
in, plain dicts out, read by the waiting coroutine itself), so what differs
between the two is the server, not the client library.

Play runs --warmup seconds (5) before the --seconds it measures; the server's own
loop-lag figures (its health line at shutdown, warm-up included) are printed too,
with the CPU model and the load average before the run.

    python benchmarks/bench_server.py [--clients 400] [--tables 100] [--seconds 20] [--warmup 5] [--processes 4]
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import msgpack

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.games.down_and_back.bots import baseline_action  # noqa: E402
from protocol import messages as m  # noqa: E402
from protocol.framing import HEADER_SIZE, encode_frame  # noqa: E402

ECHO_PROLOGUE = """
import asyncio, sys
sys.path.insert(0, sys.argv[1])
from protocol.framing import FrameDecoder, encode_frame

def reply(frame):
    return encode_frame({"type": "ok", "id": frame["id"], "result": {}})

def listening(server):
    print("listening on 127.0.0.1:%d" % server.sockets[0].getsockname()[1], file=sys.stderr, flush=True)
"""
ECHO_SERVERS = {
    # The asyncio documentation's echo server (streams), with our framing: the baseline.
    "streams": ECHO_PROLOGUE + """
async def echo(reader, writer):
    decoder = FrameDecoder()
    while data := await reader.read(65536):
        decoder.feed(data)
        for frame in decoder:
            writer.write(reply(frame))

async def main():
    server = await asyncio.start_server(echo, "127.0.0.1", 0)
    listening(server)
    await server.serve_forever()

asyncio.run(main())
""",
    # The same I/O layer as dab-server: frames handled in data_received, no reader task.
    "protocol": ECHO_PROLOGUE + """
class Echo(asyncio.Protocol):
    def connection_made(self, transport):
        self.transport, self.decoder = transport, FrameDecoder()

    def data_received(self, data):
        self.decoder.feed(data)
        for frame in self.decoder:
            self.transport.write(reply(frame))

async def main():
    listening(await asyncio.get_running_loop().create_server(Echo, "127.0.0.1", 0))
    await asyncio.Event().wait()

asyncio.run(main())
""",
}


async def spawn(*args: str, log: list[str] | None = None) -> tuple[asyncio.subprocess.Process, int]:
    """Start a server (in this tree's root, so ``-m server`` is this tree's); ``log`` collects the rest of
    its stderr."""
    process = await asyncio.create_subprocess_exec(*args, stderr=asyncio.subprocess.PIPE, cwd=ROOT)
    while True:
        line = (await process.stderr.readline()).decode()
        if not line:
            raise SystemExit(f"server exited: {args}")
        found = re.search(r"listening on [\d.]+:(\d+)", line)
        if found:
            asyncio.ensure_future(_drain(process.stderr, [] if log is None else log))
            return process, int(found.group(1))


async def _drain(stream: asyncio.StreamReader, log: list[str]) -> None:
    while line := await stream.readline():
        log.append(line.decode())


def think(pace: float) -> float:
    return random.uniform(0.5 * pace, 1.5 * pace)


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class Client:
    """A minimal protocol client: frames out, plain dicts in, no background reader."""

    def __init__(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self.reader, self.writer = reader, writer
        self.ids = 0
        self.view: dict[str, Any] | None = None
        self.view_at = 0.0

    @classmethod
    async def open(cls, port: int) -> "Client":
        return cls(*await asyncio.open_connection("127.0.0.1", port))

    async def frame(self) -> dict[str, Any]:
        """The next frame; a view is kept (with when it arrived) as it passes."""
        body = await self.reader.readexactly(int.from_bytes(await self.reader.readexactly(HEADER_SIZE), "big"))
        frame = msgpack.unpackb(body)
        if frame["type"] == "view":
            self.view, self.view_at = frame["game"] or {}, time.monotonic()  # the game's view (a clock all processes share)
        return frame

    def send(self, message: dict[str, Any]) -> int:
        self.ids += 1
        self.writer.write(encode_frame({**message, "id": self.ids}, checked=True))
        return self.ids

    async def reply(self, request_id: int) -> dict[str, Any]:
        while True:
            frame = await self.frame()
            if frame["type"] in ("ok", "error", "welcome") and frame.get("id") == request_id:
                return frame

    async def request(self, message: m.Message) -> dict[str, Any]:
        """Set-up requests: sent as the protocol's own messages, must succeed."""
        wire = message.to_wire()
        del wire["id"]
        reply = await self.reply(self.send(wire))
        if reply["type"] == "error":
            raise SystemExit(f"{message.type} refused: {reply}")
        return reply.get("result", reply)

    async def my_turn(self) -> dict[str, Any]:
        """The newest view, once it offers this seat something to do."""
        while not (self.view and self.view.get("legal")):
            await self.frame()
        return self.view

    def close(self) -> None:
        self.writer.close()


async def echo_client(client: Client, until: float, pace: float, rtts: list[float], measure_from: float) -> None:
    while time.monotonic() < until:
        await asyncio.sleep(think(pace))
        sent = time.monotonic()
        await client.reply(client.send({"type": "act", "action": {"kind": "take_stock"}}))
        if sent >= measure_from:
            rtts.append(time.monotonic() - sent)


async def play(client: Client, until: float, pace: float, rtts: list[float], updates: list[float],
               errors: list[str], measure_from: float = 0.0) -> None:
    """Play until ``until``; actions sent before ``measure_from`` (the warm-up) are not measured."""
    while time.monotonic() < until:
        try:
            view = await asyncio.wait_for(client.my_turn(), max(0.01, until - time.monotonic()))
        except asyncio.TimeoutError:
            return
        await asyncio.sleep(think(pace))
        action = baseline_action(view).to_data()
        sent = time.monotonic()
        reply = await client.reply(client.send({"type": "act", "action": action}))
        client.view = None  # a view that came before the reply is older than this action
        if reply["type"] != "ok":
            errors.append(reply.get("code", reply["type"]))  # only the seat to act sends: none expected
            continue
        if sent < measure_from:
            continue
        rtts.append(time.monotonic() - sent)
        while client.view is None:  # the new view follows the reply
            await client.frame()
        updates.append(client.view_at - sent)


# ----------------------------------------------------------------- the worker processes

def worker(kind: str, port: int, first: int, clients: int, tables: int, pace: float,
           ready: Any, go: Any, window: Any, results: Any) -> None:
    """One worker process: ``clients`` clients from number ``first`` (``tables`` whole tables of the game,
    or echo connections), set up, then (after every worker is ready) played and measured in the window."""
    results.put(asyncio.run(_worker(kind, port, first, clients, tables, pace, ready, go, window)))


async def _worker(kind: str, port: int, first: int, clients: int, tables: int, pace: float,
                  ready: Any, go: Any, window: Any) -> tuple[list[float], list[float], list[str]]:
    opened = []
    for i in range(clients):  # each says hello at once: the server drops a connection silent for 10 s
        opened.append(await Client.open(port))
        if kind == "game":
            await opened[-1].request(m.Hello(id=1, version=m.PROTOCOL_VERSION, name=f"p{first + i}", client="bench"))
    if kind == "game":
        per_table = clients // tables
        for t in range(tables):
            seated = opened[t * per_table:(t + 1) * per_table]
            created = await seated[0].request(m.CreateTable(
                id=1, name=f"bench {first + t * per_table}",
                settings=m.TableSettings(seats=per_table, rules={"stack": 10**6, "ante": 1})))
            for client in seated[1:]:
                await client.request(m.Join(id=1, table_id=created["table_id"]))
            await seated[0].request(m.Start(id=1))
    pinging = asyncio.ensure_future(keep_alive(opened))
    await asyncio.to_thread(ready.wait)
    await asyncio.to_thread(go.wait)
    pinging.cancel()
    measure_from, until = window[0], window[1]
    rtts: list[float] = []
    updates: list[float] = []
    errors: list[str] = []
    if kind == "game":
        await asyncio.gather(*(play(c, until, pace, rtts, updates, errors, measure_from) for c in opened))
    else:
        await asyncio.gather(*(echo_client(c, until, pace, rtts, measure_from) for c in opened))
    for client in opened:
        client.close()
    return rtts, updates, errors


async def keep_alive(clients: list[Client]) -> None:
    """Ping while the other workers set up: the server drops a connection silent for 60 s (the replies
    are skipped like any frame nobody waits for)."""
    while True:
        await asyncio.sleep(20)
        for client in clients:
            client.send({"type": "ping"})


def run_workers(kind: str, port: int, clients: int, tables: int, processes: int, pace: float, warmup: float,
                seconds: float, on_window: Any = None) -> tuple[list[float], list[float], list[str]]:
    """Spread ``clients`` (whole tables) over ``processes`` workers; their measurements, merged.
    ``on_window(start, end)`` is told the measured window (``time.monotonic``) once it is fixed."""
    context = multiprocessing.get_context("spawn")
    per_table = clients // tables
    shares = [tables // processes + (i < tables % processes) for i in range(processes)]
    shares = [s for s in shares if s]
    ready, go = context.Barrier(len(shares) + 1), context.Barrier(len(shares) + 1)
    window, results = context.Array("d", 2), context.Queue()
    workers, first = [], 0
    for share in shares:
        workers.append(context.Process(target=worker, args=(
            kind, port, first, share * per_table, share, pace, ready, go, window, results)))
        first += share * per_table
    for process in workers:
        process.start()
    ready.wait()  # every client connected and seated
    window[0] = time.monotonic() + warmup
    window[1] = window[0] + seconds
    if on_window is not None:
        on_window(window[0], window[1])
    go.wait()
    rtts: list[float] = []
    updates: list[float] = []
    errors: list[str] = []
    for _ in workers:
        some_rtts, some_updates, some_errors = results.get()
        rtts += some_rtts
        updates += some_updates
        errors += some_errors
    for process in workers:
        process.join()
    return rtts, updates, errors


async def measure_echo(kind: str, clients: int, seconds: float, pace: float, processes: int) -> list[float]:
    process, port = await spawn(sys.executable, "-c", ECHO_SERVERS[kind], str(ROOT))
    try:
        rtts, _, _ = await asyncio.to_thread(run_workers, "echo", port, clients, clients, processes, pace, 0.0,
                                             seconds)
    finally:
        process.terminate()
        await process.wait()
    return rtts


async def measure_game(
    clients: int, tables: int, seconds: float, pace: float, data_dir: str, warmup: float, processes: int,
) -> tuple[list[float], list[float], list[str], str]:
    """The round trips and updates after ``warmup`` s, the error replies, and the server's last health line
    (its loop's lag)."""
    log: list[str] = []
    process, port = await spawn(
        sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--bot-delay", "0",
        "--round-pause", "0", "--seed-window", "0", "--turn-timeout", "120", "--max-connections", str(clients + 10), "--memory",
        "--max-per-address", str(clients + 10), "--new-players-per-hour", str(clients + 10),
        "--data-dir", data_dir, log=log,
    )
    try:
        rtts, updates, errors = await asyncio.to_thread(run_workers, "game", port, clients, tables, processes, pace,
                                                        warmup, seconds)
    finally:
        process.terminate()
        await process.wait()
        await asyncio.sleep(0.1)  # the log's last lines
        warned = [line.strip() for line in log if " WARNING " in line or " ERROR " in line]
        if warned:  # e.g. clients dropped for not reading: say so beside the figures
            print(f"the server warned {len(warned)} times, first: " + " | ".join(warned[:3]))
    health = [line[line.index("health:"):].strip() for line in log if "health:" in line]
    return rtts, updates, errors, health[-1] if health else "no health line (no traffic?)"


def machine() -> str:
    """The CPU model and the load average, for the figures' context."""
    model = "unknown CPU"
    try:
        model = next(line.split(":", 1)[1].strip() for line in open("/proc/cpuinfo") if line.startswith("model name"))
    except (OSError, StopIteration):
        pass
    load = ", ".join(f"{x:.2f}" for x in os.getloadavg())
    return f"{model}, {os.cpu_count()} CPUs; load average before the run {load}"


def report(label: str, rtts: list[float], seconds: float) -> None:
    print(f"{label:<24} {len(rtts) / seconds:8.0f} actions/s   "
          f"p50 {statistics.median(rtts) * 1e3:6.2f} ms   p99 {percentile(rtts, 0.99) * 1e3:6.2f} ms   "
          f"p99.9 {percentile(rtts, 0.999) * 1e3:6.2f} ms   max {max(rtts) * 1e3:6.2f} ms   (n={len(rtts)})")


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=400)
    parser.add_argument("--tables", type=int, default=100)
    parser.add_argument("--seconds", type=float, default=20.0)
    parser.add_argument("--warmup", type=float, default=5.0, help="seconds of play before the measured ones (s)")
    parser.add_argument("--pace", type=float, default=1.0, help="mean think time per client action (s)")
    parser.add_argument("--processes", type=int, default=4, help="client worker processes (default 4)")
    args = parser.parse_args()
    print(f"{args.clients} clients, {args.tables} tables, {args.seconds:g} s each (after {args.warmup:g} s of "
          f"warm-up), think time {args.pace:g} s mean, clients in {args.processes} processes; {machine()}")
    with tempfile.TemporaryDirectory() as data_dir:
        game, updates, errors, health = await measure_game(args.clients, args.tables, args.seconds, args.pace, data_dir,
                                                   args.warmup, args.processes)
    game_rate = len(game) / args.seconds
    same_rate = args.clients / game_rate
    echo = await measure_echo("streams", args.clients, args.seconds, same_rate, args.processes)
    echo_protocol = await measure_echo("protocol", args.clients, args.seconds, same_rate, args.processes)
    echo_same_pace = await measure_echo("streams", args.clients, args.seconds, args.pace, args.processes)
    report("bare msgpack echo", echo, args.seconds)
    report("dab-server act -> ok", game, args.seconds)
    report("dab-server act -> own view", updates, args.seconds)
    p50 = statistics.median(game)
    print(f"action round-trip p50 / echo p50 at the same request rate = {p50 / statistics.median(echo):.2f}x "
          f"(target <= 2x); p99 action->update = {percentile(updates, 0.99) * 1e3:.2f} ms (target < 10 ms)")
    print(f"act -> own view p99 / p50 = {percentile(updates, 0.99) / statistics.median(updates):.2f}x (target <= 5x)")
    print(f"errors: {len(errors)}" + (f" ({', '.join(sorted(set(errors)))})" if errors else ""))
    print(f"server, same run (warm-up included): {health}")
    print("other baselines, for comparison:")
    for label, samples in (("protocol echo, same rate", echo_protocol), ("echo at the think time", echo_same_pace)):
        report(f"  {label}", samples, args.seconds)
        print(f"{'':26} action round-trip p50 / this echo p50 = {p50 / statistics.median(samples):.2f}x")


if __name__ == "__main__":
    asyncio.run(main())
