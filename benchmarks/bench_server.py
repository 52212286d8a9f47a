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

With ``--knee`` it finds the server's own ceiling instead: it plays the same tables
(the same think time and seats per table) with more and more clients, a fresh server
each time, until the p99 of act -> own view first exceeds --knee-ms (50 ms), narrows
that count down between the last step below and the first above, and always also runs
--hold clients (5,000), which must play without an error. Each step prints the medians
and p99s, their ratio to the first (smallest) step of the same run, the server's CPU per
action and its event loop's lag over the measured window (the benchmark sends it SIGUSR1
as the window opens and closes: the health line it logs then covers the window alone),
and the cores the client processes used (they share the machine). It ends with one
machine-readable line (``SUMMARY knee_clients=N ...``). The benchmark raises its limit on
open files to the hard limit (``ulimit -Hn``), which the server and the workers inherit:
the server holds a socket per client, and is started with --max-connections to match.

    python benchmarks/bench_server.py [--clients 400] [--tables 100] [--seconds 20] [--warmup 5] [--processes 4]
    python benchmarks/bench_server.py --knee [--steps 400,1000,...] [--knee-ms 50] [--hold 5000] [--refine 2]
    python benchmarks/bench_server.py --knee --fast      # a few clients, a second each: the code path only
"""

from __future__ import annotations

import argparse
import asyncio
import multiprocessing
import os
import random
import re
import signal
import statistics
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
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


REPLY_TIMEOUT = 60.0  # s: an action's reply and view later than this counts as an error
SETUP_TIMEOUT = 900.0  # s: every worker's clients connected and seated (5,000 take a few seconds)


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
        except (OSError, EOFError) as exc:  # the server hung up (it says why in its log)
            errors.append(f"connection lost: {type(exc).__name__}")
            return
        await asyncio.sleep(think(pace))
        action = baseline_action(view).to_data()
        sent = time.monotonic()
        try:
            reply = await asyncio.wait_for(client.reply(client.send({"type": "act", "action": action})), REPLY_TIMEOUT)
            client.view = None  # a view that came before the reply is older than this action
            if reply["type"] != "ok":
                errors.append(reply.get("code", reply["type"]))  # only the seat to act sends: none expected
                continue
            if sent < measure_from:
                continue
            rtts.append(time.monotonic() - sent)
            while client.view is None:  # the new view follows the reply
                await asyncio.wait_for(client.frame(), REPLY_TIMEOUT)
        except asyncio.TimeoutError:
            errors.append(f"no reply or view within {REPLY_TIMEOUT:g} s")
            return
        except (OSError, EOFError) as exc:
            errors.append(f"connection lost: {type(exc).__name__}")
            return
        updates.append(client.view_at - sent)


# ----------------------------------------------------------------- the worker processes

def worker(kind: str, port: int, first: int, clients: int, tables: int, pace: float,
           ready: Any, go: Any, window: Any, results: Any) -> None:
    """One worker process: ``clients`` clients from number ``first`` (``tables`` whole tables of the game,
    or echo connections), set up, then (after every worker is ready) played and measured in the window."""
    results.put(asyncio.run(_worker(kind, port, first, clients, tables, pace, ready, go, window)))


async def _worker(kind: str, port: int, first: int, clients: int, tables: int, pace: float,
                  ready: Any, go: Any, window: Any) -> tuple[list[float], list[float], list[str],
                                                            tuple[float, list[float]]]:
    """The round trips, the updates, the errors (a client that could not connect, be seated or play on
    counts one, and plays no more: the others go on), the cores this process used while playing and
    its own loop's lag in the window."""
    errors: list[str] = []
    opened: list[Client] = []
    playing: list[Client] = []
    pinging = asyncio.ensure_future(keep_alive(opened))  # from the first: setting up thousands takes a while
    per_table = clients // tables if kind == "game" else 1
    for t in range(tables if kind == "game" else clients):
        # A table at a time, seated at once: a client in the lobby is pushed the table list (up to 56 KB,
        # twice a second) while tables are made, and these read only when they wait for a reply; thousands
        # of them waiting in the lobby would be cut off as slow readers (and nobody would play like that).
        seated: list[Client] = []
        try:
            for i in range(t * per_table, (t + 1) * per_table):
                seated.append(await Client.open(port))
                opened.append(seated[-1])
                if kind == "game":  # each says hello at once: the server drops a connection silent for 10 s
                    await seated[-1].request(m.Hello(id=1, version=m.PROTOCOL_VERSION, name=f"p{first + i}",
                                                     client="bench"))
            if kind == "game":
                created = await seated[0].request(m.CreateTable(
                    id=1, name=f"bench {first + t * per_table}",
                    settings=m.TableSettings(seats=per_table, rules={"stack": 10**6, "ante": 1})))
                for client in seated[1:]:
                    await client.request(m.Join(id=1, table_id=created["table_id"]))
                await seated[0].request(m.Start(id=1))
        except (OSError, EOFError, SystemExit) as exc:  # a table that could not be set up is left out
            errors.append(f"setup: {type(exc).__name__}: {exc}")
            continue
        playing += seated
    await asyncio.to_thread(ready.wait, SETUP_TIMEOUT)
    await asyncio.to_thread(go.wait, SETUP_TIMEOUT)
    pinging.cancel()
    measure_from, until = window[0], window[1]
    rtts: list[float] = []
    updates: list[float] = []
    cpu, started = time.process_time(), time.monotonic()
    lags: list[float] = []
    lagging = asyncio.ensure_future(loop_lag(measure_from, until, lags))
    if kind == "game":
        await asyncio.gather(*(play(c, until, pace, rtts, updates, errors, measure_from) for c in playing))
    else:
        await asyncio.gather(*(echo_client(c, until, pace, rtts, measure_from) for c in playing))
    cores = (time.process_time() - cpu) / max(1e-9, time.monotonic() - started)
    lagging.cancel()
    for client in opened:
        client.close()
    return rtts, updates, errors, (cores, lags)


CLIENT_TICK = 0.01  # s between the workers' own lag samples


async def loop_lag(measure_from: float, until: float, lags: list[float]) -> None:
    """How late this worker's own loop runs (samples in the measured window): a client's figures include
    its worker's delays, and on a shared machine those can be the larger part of the tail."""
    expected = time.monotonic() + CLIENT_TICK
    while expected < until:
        await asyncio.sleep(max(0.0, expected - time.monotonic()))
        now = time.monotonic()
        if now >= measure_from:
            lags.append(now - expected)
        expected = now + CLIENT_TICK


async def keep_alive(clients: list[Client]) -> None:
    """Ping while the other workers set up: the server drops a connection silent for 60 s (the replies
    are skipped like any frame nobody waits for)."""
    while True:
        await asyncio.sleep(20)
        for client in clients:
            client.send({"type": "ping"})


def run_workers(kind: str, port: int, clients: int, tables: int, processes: int, pace: float, warmup: float,
                seconds: float, on_window: Any = None,
                cores: list[float] | None = None,
                lags: list[float] | None = None) -> tuple[list[float], list[float], list[str]]:
    """Spread ``clients`` (whole tables) over ``processes`` workers; their measurements, merged.
    ``on_window(start, end)`` is told the measured window (``time.monotonic``) once it is fixed;
    ``cores``, if given, gets the cores each worker used while it played, ``lags`` their loops' lags."""
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
    ready.wait(SETUP_TIMEOUT)  # every client connected and seated
    window[0] = time.monotonic() + warmup
    window[1] = window[0] + seconds
    if on_window is not None:
        on_window(window[0], window[1])
    go.wait(SETUP_TIMEOUT)
    rtts: list[float] = []
    updates: list[float] = []
    errors: list[str] = []
    for _ in workers:
        some_rtts, some_updates, some_errors, (some_cores, some_lags) = results.get(
            timeout=warmup + seconds + 2 * REPLY_TIMEOUT)
        rtts += some_rtts
        updates += some_updates
        errors += some_errors
        if cores is not None:
            cores.append(some_cores)
        if lags is not None:
            lags += some_lags
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


def cpu_seconds(pid: int) -> tuple[float, float]:
    """A process's CPU time so far (user + system): in all, and its main thread's (the event loop's),
    from /proc (0 where there is none)."""
    def read(path: str) -> float:
        try:
            fields = open(path).read().rsplit(")", 1)[1].split()
        except OSError:
            return 0.0
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")

    return read(f"/proc/{pid}/stat"), read(f"/proc/{pid}/task/{pid}/stat")


HEALTH = re.compile(r"health: loop lag p50 ([\d.]+) ms, p99 ([\d.]+) ms, max ([\d.]+) ms; ([\d.]+) actions/s")


class CpuWindow:
    """The server's CPU seconds (in all, and its event loop's) over the measured window, read by a thread
    that sleeps until the window opens and until it closes (the workers play meanwhile). Given the
    server's ``log`` (its stderr lines, as they come), it also sends the server SIGUSR1 at both edges,
    and keeps the health line the second one makes: the loop's lag over the window alone."""

    def __init__(self, pid: int, log: list[str] | None = None) -> None:
        self.pid = pid
        self.log = log
        self.spent = (0.0, 0.0)
        self.health: str | None = None
        self._thread: threading.Thread | None = None

    def _health_line(self) -> str | None:
        """SIGUSR1 to the server, and the health line it logs in reply (None if none comes within 10 s)."""
        assert self.log is not None
        seen = sum("health:" in line for line in self.log)
        os.kill(self.pid, signal.SIGUSR1)
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            lines = [line for line in self.log if "health:" in line]
            if len(lines) > seen:
                return lines[seen][lines[seen].index("health:"):].strip()
            time.sleep(0.01)
        return None

    def watch(self, start: float, end: float) -> None:
        def read() -> None:
            time.sleep(max(0.0, start - time.monotonic()))
            before = cpu_seconds(self.pid)
            if self.log is not None:
                self._health_line()  # the set-up and the warm-up's: a new period begins
            time.sleep(max(0.0, end - time.monotonic()))
            spent = cpu_seconds(self.pid)
            self.spent = (spent[0] - before[0], spent[1] - before[1])
            if self.log is not None:
                self.health = self._health_line()

        self._thread = threading.Thread(target=read, daemon=True)
        self._thread.start()

    def join(self) -> None:
        if self._thread is not None:
            self._thread.join()


@dataclass
class GameRun:
    """One measurement of the game server: ``clients`` at ``clients / seats`` tables for ``seconds``."""

    clients: int
    seconds: float
    rtts: list[float]  # act -> ok, s
    updates: list[float]  # act -> own view, s
    errors: list[str]  # what the clients met: error replies, lost connections, set-up refusals
    warnings: list[str]  # the server's WARNING and ERROR lines
    health: str  # the server's last health line (warm-up included)
    window_health: str | None  # its health line over the measured window alone
    server_cpu: float  # s of CPU over the window, all threads
    loop_cpu: float  # ... the event loop's thread
    client_cores: list[float] = field(default_factory=list)  # cores each worker process used while playing
    client_lags: list[float] = field(default_factory=list)  # the workers' own loops' lag samples in the window, s

    @property
    def actions(self) -> int:
        return len(self.rtts)

    def cpu_ms_per_action(self) -> float:
        return self.server_cpu * 1e3 / max(1, self.actions)

    def lag(self) -> tuple[float, float, float] | None:
        """The loop's lag over the window: p50, p99, max (ms)."""
        found = HEALTH.search(self.window_health or "")
        return (float(found.group(1)), float(found.group(2)), float(found.group(3))) if found else None


async def measure_game(
    clients: int, tables: int, seconds: float, pace: float, data_dir: str, warmup: float, processes: int,
    quiet: bool = False,
) -> GameRun:
    """A fresh server played by ``clients`` at ``tables``: the round trips and updates after ``warmup`` s,
    the errors, the server's CPU and its loop's lag over the same window."""
    log: list[str] = []
    process, port = await spawn(
        sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--bot-delay", "0",
        "--round-pause", "0", "--seed-window", "0", "--turn-timeout", "120", "--max-connections", str(clients + 10), "--memory",
        "--max-per-address", str(clients + 10), "--new-players-per-hour", str(clients + 10),
        "--max-tables", str(tables + 10), "--data-dir", data_dir, log=log,
    )
    window = CpuWindow(process.pid, log)
    cores: list[float] = []
    lags: list[float] = []
    try:
        rtts, updates, errors = await asyncio.to_thread(run_workers, "game", port, clients, tables, processes, pace,
                                                        warmup, seconds, window.watch, cores, lags)
        await asyncio.to_thread(window.join)
    finally:
        process.terminate()
        await process.wait()
        await asyncio.sleep(0.1)  # the log's last lines
        warned = [line.strip() for line in log if " WARNING " in line or " ERROR " in line]
        if warned and not quiet:  # e.g. clients dropped for not reading: say so beside the figures
            print(f"the server warned {len(warned)} times, first: " + " | ".join(warned[:3]))
    health = [line[line.index("health:"):].strip() for line in log if "health:" in line]
    return GameRun(clients, seconds, rtts, updates, errors, warned, health[-1] if health else
                   "no health line (no traffic?)", window.health, *window.spent, cores, lags)


def raise_open_files() -> tuple[int, int]:
    """Raise this process's soft limit on open files to its hard limit (the server and the workers
    inherit it: the server holds a socket per client, the workers theirs); the limits then."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    wanted = hard if hard != resource.RLIM_INFINITY else max(soft, 1 << 20)
    if soft != resource.RLIM_INFINITY and soft < wanted:
        try:
            resource.setrlimit(resource.RLIMIT_NOFILE, (wanted, hard))
        except (ValueError, OSError):
            pass
    return resource.getrlimit(resource.RLIMIT_NOFILE)


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


def ms(seconds: float) -> float:
    return seconds * 1e3


def describe_run(run: GameRun) -> str:
    """The window's server CPU, loop lag and the clients' cores, for the default mode's report."""
    lag = run.lag()
    return (f"server over the measured window: {run.cpu_ms_per_action():.3f} ms CPU per action "
            f"({run.server_cpu / run.seconds:.2f} cores, the loop's thread {run.loop_cpu / run.seconds:.2f}); "
            + (f"loop lag p50 {lag[0]:.2f} ms, p99 {lag[1]:.2f} ms, max {lag[2]:.2f} ms" if lag else
               "no health line for the window")
            + f"; the client processes used {sum(run.client_cores):.2f} cores, their loops' lag p99 "
            f"{ms(percentile(run.client_lags, 0.99)) if run.client_lags else float('nan'):.2f} ms")


async def plain(args: argparse.Namespace) -> None:
    """The default: one client count beside the echo servers."""
    print(f"{args.clients} clients, {args.tables} tables, {args.seconds:g} s each (after {args.warmup:g} s of "
          f"warm-up), think time {args.pace:g} s mean, clients in {args.processes} processes; {machine()}")
    with tempfile.TemporaryDirectory() as data_dir:
        run = await measure_game(args.clients, args.tables, args.seconds, args.pace, data_dir, args.warmup,
                                 args.processes)
    game, updates, errors = run.rtts, run.updates, run.errors
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
    print(describe_run(run))
    print(f"server, same run (warm-up included): {run.health}")
    print("other baselines, for comparison:")
    for label, samples in (("protocol echo, same rate", echo_protocol), ("echo at the think time", echo_same_pace)):
        report(f"  {label}", samples, args.seconds)
        print(f"{'':26} action round-trip p50 / this echo p50 = {p50 / statistics.median(samples):.2f}x")


KNEE_HEADER = (f"{'clients':>7} {'act/s':>6} | {'act -> ok':^15} | {'act -> own view':^23} | {'x step 1':^11} | "
               f"{'server':^16} | {'loop lag, ms':^16} | {'clients':^13} {'errors':>6}")
KNEE_UNITS = (f"{'':>7} {'':>6} | {'p50 ms':>7} {'p99 ms':>7} | {'p50 ms':>7} {'p99 ms':>7} {'p99/p50':>7} | "
              f"{'p50':>5} {'p99':>5} | {'ms/act':>7} {'cores':>5} | {'p50':>5} {'p99':>5} {'max':>5} | "
              f"{'cores':>5} {'lag99':>7} {'':>6}")


def knee_row(run: GameRun, base: GameRun) -> str:
    if not run.updates:
        return f"{run.clients:>7} no action measured; errors {len(run.errors)}: {sorted(set(run.errors))[:3]}"
    lag = run.lag() or (float("nan"),) * 3
    p50, p99 = statistics.median(run.updates), percentile(run.updates, 0.99)
    b50, b99 = statistics.median(base.updates), percentile(base.updates, 0.99)
    client_lag = ms(percentile(run.client_lags, 0.99)) if run.client_lags else float("nan")
    return (f"{run.clients:>7} {run.actions / run.seconds:>6.0f} | {ms(statistics.median(run.rtts)):>7.2f} "
            f"{ms(percentile(run.rtts, 0.99)):>7.2f} | {ms(p50):>7.2f} {ms(p99):>7.2f} {p99 / p50:>7.1f} | "
            f"{p50 / b50:>5.1f} {p99 / b99:>5.1f} | {run.cpu_ms_per_action():>7.3f} "
            f"{run.server_cpu / run.seconds:>5.2f} | {lag[0]:>5.2f} {lag[1]:>5.1f} {lag[2]:>5.1f} | "
            f"{sum(run.client_cores):>5.2f} {client_lag:>7.1f} {len(run.errors):>6}")


async def knee(args: argparse.Namespace) -> int:
    """More and more clients, a fresh server each, until act -> own view p99 passes ``--knee-ms``; the
    count narrowed down; ``--hold`` clients, which must play without an error; a SUMMARY line."""
    per_table = args.clients // args.tables
    whole = per_table  # each step: whole tables

    def rounded(n: int) -> int:
        return max(whole, round(n / whole) * whole)

    soft, hard = raise_open_files()
    room = (soft - 200) if soft != -1 else 1 << 30  # the server holds one socket per client, and a few files
    steps = sorted({rounded(int(n)) for n in args.steps.split(",")} | {rounded(args.hold)})
    if steps[-1] > room:
        print(f"open files limit {soft} (hard {hard}): steps above {room} clients left out; raise ulimit -Hn")
        steps = [n for n in steps if n <= room]
    hold = rounded(args.hold)
    print(f"the knee: act -> own view p99 > {args.knee_ms:g} ms; {per_table} clients a table, think time "
          f"{args.pace:g} s mean, {args.seconds:g} s measured after {args.warmup:g} s of warm-up, a fresh server "
          f"each step, clients in {args.processes} processes; open files limit {soft}; {machine()}")
    print(KNEE_HEADER)
    print(KNEE_UNITS)
    runs: dict[int, GameRun] = {}

    async def at(n: int) -> GameRun:
        with tempfile.TemporaryDirectory() as data_dir:
            run = await measure_game(n, n // per_table, args.seconds, args.pace, data_dir, args.warmup,
                                     args.processes, quiet=True)
        runs[n] = run
        print(knee_row(run, runs[steps[0]]), flush=True)
        if run.warnings:
            print(f"{'':>7} the server warned {len(run.warnings)} times, first: {run.warnings[0][:160]}")
        return run

    def over(run: GameRun) -> bool:
        return not run.updates or ms(percentile(run.updates, 0.99)) > args.knee_ms

    below = above = None
    for n in steps:
        if above is not None and n != hold:
            continue  # past the knee: only the hold count is still to run
        if n in runs:
            continue
        run = await at(n)
        if above is None:
            if over(run):
                above = n
            else:
                below = n
    for _ in range(args.refine if above is not None and below is not None else 0):
        middle = rounded((below + above) // 2)
        if middle in (below, above):
            break
        run = runs[middle] if middle in runs else await at(middle)
        if over(run):
            above = middle
        else:
            below = middle
    base = runs[steps[0]]
    print(f"baseline: the first step, {base.clients} clients (the benchmark's own run is 400); ratios above are "
          "to it, from the same run")
    held = runs.get(hold)
    if above is None:
        print(f"no knee up to {max(runs)} clients: p99 stayed within {args.knee_ms:g} ms")
    else:
        print(f"the knee: {above} clients (p99 > {args.knee_ms:g} ms)" +
              (f"; {below} clients stayed within it" if below is not None else "; the first step was already over"))
    if held is not None:
        print(f"{hold} clients: {len(held.errors)} errors" +
              (f" ({', '.join(sorted(set(held.errors))[:5])})" if held.errors else "") +
              f", {len(held.warnings)} server warnings")
    at_knee = runs[above] if above is not None else runs[max(runs)]

    def figures(prefix: str, run: GameRun | None) -> list[str]:
        if run is None or not run.updates:
            return [f"{prefix}p99_ms=nan"]
        lag = run.lag() or (float("nan"),) * 3
        nan = float("nan")
        return [f"{prefix}p50_ms={ms(statistics.median(run.updates)):.2f}",
                f"{prefix}p99_ms={ms(percentile(run.updates, 0.99)):.2f}",
                f"{prefix}cpu_ms_per_action={run.cpu_ms_per_action():.3f}",
                f"{prefix}loop_lag_p99_ms={lag[1]:.2f}", f"{prefix}loop_lag_max_ms={lag[2]:.2f}",
                f"{prefix}server_cores={run.server_cpu / run.seconds:.2f}",
                f"{prefix}client_cores={sum(run.client_cores):.2f}",
                f"{prefix}client_lag_p99_ms={ms(percentile(run.client_lags, 0.99)) if run.client_lags else nan:.2f}",
                f"{prefix}actions_per_s={run.actions / run.seconds:.0f}"]

    summary = [f"knee_clients={above if above is not None else 'none'}",
               f"below_knee_clients={below if below is not None else 'none'}",
               f"knee_ms={args.knee_ms:g}", f"measured_clients={at_knee.clients}"]
    at = figures("", at_knee)
    summary += [item.replace("_ms=", "_ms_at_knee=", 1) if item.startswith(("p50", "p99")) else item for item in at]
    if at_knee.updates and base.updates:
        ratio = percentile(at_knee.updates, 0.99) / percentile(base.updates, 0.99)
        summary.append(f"p99_ratio_to_baseline={ratio:.1f}")
    summary += [f"baseline_clients={base.clients}"] + figures("baseline_", base)
    if held is not None:
        summary += [f"clients_{hold}_errors={len(held.errors)}", f"clients_{hold}_server_warnings={len(held.warnings)}"]
        summary += figures(f"clients_{hold}_", held)
    print("SUMMARY " + " ".join(summary))
    return 1 if held is None or held.errors else 0


async def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--clients", type=int, default=400)
    parser.add_argument("--tables", type=int, default=100, help="tables for --clients (their ratio is the seats "
                        "per table, kept by --knee)")
    parser.add_argument("--seconds", type=float, default=None, help="seconds measured (default 20; --knee: 10 "
                        "each step)")
    parser.add_argument("--warmup", type=float, default=None, help="seconds of play before the measured ones "
                        "(default 5; --knee: 3)")
    parser.add_argument("--pace", type=float, default=1.0, help="mean think time per client action (s)")
    parser.add_argument("--processes", type=int, default=4, help="client worker processes (default 4)")
    parser.add_argument("--knee", action="store_true", help="find the client count where act -> own view p99 "
                        "first passes --knee-ms")
    parser.add_argument("--steps", default="400,1000,2000,3000,4000,5000,6000,7000,8000,10000,12000",
                        help="--knee: the client counts tried, in order, until one is over (rounded to whole "
                        "tables)")
    parser.add_argument("--knee-ms", type=float, default=50.0, help="--knee: the p99 act -> own view limit (ms)")
    parser.add_argument("--hold", type=int, default=5000, help="--knee: a count run whatever the knee, which must "
                        "play without an error (default 5000)")
    parser.add_argument("--refine", type=int, default=2, help="--knee: halvings between the last step within the "
                        "limit and the first over it (default 2)")
    parser.add_argument("--fast", action="store_true", help="--knee with a few clients and a second a step: the "
                        "code path, not a measurement")
    args = parser.parse_args()
    if args.fast:
        args.knee = True
        args.clients, args.tables, args.processes = 8, 2, 2
        args.steps = args.steps if "--steps" in sys.argv else "8,16"
        args.hold = args.hold if "--hold" in sys.argv else 16
        args.seconds = 1.0 if args.seconds is None else args.seconds
        args.warmup = 0.3 if args.warmup is None else args.warmup
    args.seconds = (10.0 if args.knee else 20.0) if args.seconds is None else args.seconds
    args.warmup = (3.0 if args.knee else 5.0) if args.warmup is None else args.warmup
    if args.knee:
        return await knee(args)
    raise_open_files()
    await plain(args)
    return 0


if __name__ == "__main__":
    sys.exit(asyncio.run(main()))
