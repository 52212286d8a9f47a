"""Fuzz soak: a million garbage frames at the real dab-server while an honest table plays.

The long form of ``tests/server/test_fuzz.py``. The server runs as a
subprocess (``--memory``, rate limits raised so that every garbage frame is
read and handled rather than refused; the default 0.6 s bot delay, so the bot
games the fuzzers start cost what they would in production); the fuzzers run in a second subprocess,
so this process only plays the honest heads-up table and times it. First the
honest table plays alone (the baseline, in the same run on the same machine),
then with the fuzzers until they have sent ``--frames`` frames. Printed: the
honest ``act -> ok`` round trip (p50, p99, max) in both phases and the ratio
of the p99s, the fuzzers' frames, connections and error codes (each checked
against PROTOCOL.md), and what the server logged: tracebacks and errors must
be 0.

    python benchmarks/bench_fuzz.py [--frames 1000000] [--fuzzers 8] [--baseline 15]

To look inside the server: ``PYTHONASYNCIODEBUG=1`` makes it log (and this
print) every callback slower than 0.1 s; ``BENCH_SERVER_PREFIX="-m cProfile -o
prof.out"`` profiles it.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests")]

from fuzzing import FuzzStats, documented_error_codes, fuzz_connections  # noqa: E402
from protocol import messages as m  # noqa: E402
from scripted import ScriptedClient, autoplay  # noqa: E402

SERVER_FLAGS = ["--memory", "--host", "127.0.0.1", "--port", "0", "--round-pause", "0", "--seed-window", "0",
                "--request-rate", "1000000", "--max-connections", "10000", "--max-per-address", "10000",
                "--new-players-per-hour", "1000000", "--log-level", "INFO"]


def percentile(samples: list[float], q: float) -> float:
    ordered = sorted(samples)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


class ServerProcess:
    def __init__(self) -> None:
        self.lines: list[str] = []

    async def start(self) -> int:
        self.process = await asyncio.create_subprocess_exec(
            sys.executable, *os.environ.get("BENCH_SERVER_PREFIX", "").split(), "-m", "server", *SERVER_FLAGS, stderr=asyncio.subprocess.PIPE, cwd=ROOT)
        while True:
            line = (await self.process.stderr.readline()).decode()
            if not line:
                raise SystemExit("the server exited:\n" + "".join(self.lines))
            self.lines.append(line)
            found = re.search(r"listening on [\d.]+:(\d+)", line)
            if found:
                self._drain = asyncio.ensure_future(self.drain())
                return int(found.group(1))

    async def drain(self) -> None:
        while line := await self.process.stderr.readline():
            self.lines.append(line.decode(errors="replace"))

    async def stop(self) -> None:
        self.process.terminate()
        await self.process.wait()
        await self._drain

    def count(self, pattern: str) -> int:
        return sum(1 for line in self.lines if re.search(pattern, line))


class HonestTable:
    """Two protocol clients playing heads-up with the baseline bot, timing every act."""

    def __init__(self, port: int) -> None:
        self.port = port
        self.latencies: list[float] = []
        self.lags: list[float] = []  # this process's own event-loop lag: how late a 10 ms sleep wakes
        self.rounds = 0

    async def watch_lag(self) -> None:
        while True:
            started = time.perf_counter()
            await asyncio.sleep(0.01)
            self.lags.append(time.perf_counter() - started - 0.01)

    async def play(self, stop: asyncio.Event) -> None:
        async with ScriptedClient(self.port, "ann") as ann, ScriptedClient(self.port, "bob") as bob:
            while not stop.is_set():
                created = await ann.request(m.CreateTable, name="honest",
                                            settings=m.TableSettings(seats=2, rules={"ante": 1, "stack": 10_000}))
                await bob.request(m.Join, table_id=created["table_id"])
                ann.views.clear()
                bob.views.clear()
                await ann.request(m.Start)
                game = asyncio.gather(autoplay(ann, 10 ** 9, host=True, latencies=self.latencies),
                                      autoplay(bob, 10 ** 9, latencies=self.latencies))
                await stop.wait()
                await ann.request(m.EndGame)
                await asyncio.wait_for(game, 30)
                self.rounds += ann.view["round"]

    async def measure(self, during: asyncio.Future) -> tuple[object, list[float], list[float]]:
        """``during``'s result, and the honest latencies and this process's lags recorded while it ran."""
        first, first_lag = len(self.latencies), len(self.lags)
        result = await during
        return result, self.latencies[first:], self.lags[first_lag:]


async def run_fuzzers(port: int, frames: int, fuzzers: int, seed: int) -> dict:
    stats, stop = FuzzStats(), asyncio.Event()

    async def watch() -> None:
        while stats.frames < frames:
            await asyncio.sleep(0.1)
        stop.set()

    started = time.perf_counter()
    tasks = [fuzz_connections(port, random.Random(seed + i), stats, stop, batch=400, fatal=0.01, listen=0.3)
             for i in range(fuzzers)]
    await asyncio.gather(watch(), *tasks)
    return {"frames": stats.frames, "connections": stats.connections, "codes": sorted(stats.codes),
            "byes": sorted(stats.byes), "seconds": time.perf_counter() - started}


def report(name: str, samples: list[float]) -> str:
    return (f"{name:<22} {len(samples):>7} acts  p50 {percentile(samples, 0.5) * 1000:7.2f} ms  "
            f"p99 {percentile(samples, 0.99) * 1000:7.2f} ms  max {max(samples) * 1000:7.2f} ms")


async def main(args: argparse.Namespace) -> int:
    server = ServerProcess()
    port = await server.start()
    honest = HonestTable(port)
    stop = asyncio.Event()
    playing = asyncio.ensure_future(honest.play(stop))
    lag = asyncio.ensure_future(honest.watch_lag())
    print(f"CPU: {os.cpu_count()} cores; load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    _, baseline, baseline_lag = await honest.measure(asyncio.ensure_future(asyncio.sleep(args.baseline)))
    seed = args.seed if args.seed is not None else random.randrange(2 ** 32)
    fuzzer = await asyncio.create_subprocess_exec(
        sys.executable, __file__, "--fuzz-port", str(port), "--frames", str(args.frames), "--fuzzers",
        str(args.fuzzers), "--seed", str(seed), stdout=asyncio.subprocess.PIPE, cwd=ROOT)
    (stdout, _), attacked, attacked_lag = await honest.measure(asyncio.ensure_future(fuzzer.communicate()))
    stop.set()
    await asyncio.wait_for(playing, 60)
    lag.cancel()
    await server.stop()
    fuzz = json.loads(stdout.decode().strip().splitlines()[-1])
    undocumented = sorted(set(fuzz["codes"]) - documented_error_codes())
    print(f"load average after: {' '.join(f'{x:.2f}' for x in os.getloadavg())}")
    print(f"fuzz: {fuzz['frames']:,} frames on {fuzz['connections']:,} connections in {fuzz['seconds']:.0f} s "
          f"(seed {seed}); error codes: {', '.join(fuzz['codes'])}; bye reasons: {', '.join(fuzz['byes'])}")
    print(f"undocumented error codes: {undocumented or 'none'}")
    print(f"server log: {server.count('Traceback')} tracebacks, {server.count(' ERROR ')} errors, "
          f"{server.count(' CRITICAL ')} critical, {server.count(' WARNING ')} warnings, "
          f"{server.count('socket.send')} socket.send() warnings")
    for line in sorted({re.sub(r"^\S+ \S+ ", "", line).strip() for line in server.lines if " WARNING " in line})[:8]:
        print(f"  e.g. {line[:150]}")
    for line in [line for line in server.lines if "took" in line][:10]:
        print(f"  slow: {line.strip()[:300]}")
    print(f"honest rounds played: {honest.rounds}")
    print(report("honest, alone", baseline))
    print(report("honest, under fuzz", attacked))
    print(f"the measuring process's own loop lag (max): alone {max(baseline_lag) * 1000:.0f} ms, "
          f"under fuzz {max(attacked_lag) * 1000:.0f} ms (a late wake-up here inflates the latencies above)")
    ratio = percentile(attacked, 0.99) / percentile(baseline, 0.99)
    print(f"honest p99 under fuzz / alone: {ratio:.2f}")
    clean = not undocumented and not server.count("Traceback") and not server.count(" ERROR ")
    return 0 if clean and fuzz["frames"] >= args.frames else 1


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--frames", type=int, default=1_000_000)
    parser.add_argument("--fuzzers", type=int, default=8, help="concurrent hostile connections")
    parser.add_argument("--baseline", type=float, default=15.0, help="seconds of the honest table alone")
    parser.add_argument("--seed", type=int, default=None)
    parser.add_argument("--fuzz-port", type=int, default=None, help=argparse.SUPPRESS)  # the fuzzer subprocess
    arguments = parser.parse_args()
    if arguments.fuzz_port is not None:
        result = asyncio.run(run_fuzzers(arguments.fuzz_port, arguments.frames, arguments.fuzzers, arguments.seed))
        print(json.dumps(result), flush=True)
        sys.exit(0)
    sys.exit(asyncio.run(main(arguments)))
