"""What durability costs: commits per second, and the action round trip with and without the store.

Two measurements, each durable beside in-memory in the same run:

1. The store alone (in this process): apply an engine action, append it, write
   the game's checkpoint and commit with fsync (WAL, synchronous=FULL): commits
   per second and the time per unit, against the engine applying the same
   actions with nothing stored.
2. The real server (``dab-server --memory`` and ``dab-server --data-dir``, as
   subprocesses): protocol clients play heads-up tables as fast as the server
   answers; each ``act`` is timed from sending it to holding its ``ok`` (by then
   the action is on disk). One table measures latency; many tables measure
   throughput, where every acknowledged action is one commit. The server's CPU
   time per action (the whole process, and its event loop's thread alone) is
   printed beside: unlike the round trips it hardly depends on what else the
   machine runs.

    python benchmarks/bench_durability.py [--seconds 5] [--tables 1,16]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from client.link import Link, RequestFailed  # noqa: E402
from engine.games.down_and_back.actions import StartRound  # noqa: E402
from engine.games.down_and_back.bots import baseline_action  # noqa: E402
from engine.games.down_and_back.rules import OVER, Game, Settings  # noqa: E402
from engine.rng import HashRng  # noqa: E402
from engine.games.down_and_back.views import decision_view  # noqa: E402
from protocol import messages as m  # noqa: E402
from server.store import Store  # noqa: E402
from server.restore import checkpoint_json  # noqa: E402
from bench_server import machine  # noqa: E402  (this directory is the script's own)

FLAGS = ["--bot-delay", "0", "--round-pause", "0", "--turn-timeout", "60", "--request-rate", "100000",
         "--starting-balance", "1000000", "--max-per-address", "10000", "--new-players-per-hour", "1000000",
         "--log-level", "INFO"]


# ----------------------------------------------------------------- 1. the store alone


def play_actions(count: int, seed: bytes) -> list[tuple[Game, int | None, object]]:
    """``count`` (game, seat, action) steps of bot play, applied on the way."""
    steps = []
    game = Game(Settings(ante=1, stack=1_000_000), [(0, "a"), (1, "b"), (2, "c")], HashRng(seed))
    while len(steps) < count:
        if game.phase in ("waiting", OVER):
            action, seat = StartRound(), None
        else:
            seat = game.to_act()[0]
            action = baseline_action(decision_view(game, seat))
        steps.append((seat, action))
        game.apply(seat, action)
    return steps


def bench_store(seconds: float) -> None:
    steps = play_actions(3000, b"bench")
    # in memory: the engine alone
    game = Game(Settings(ante=1, stack=1_000_000), [(0, "a"), (1, "b"), (2, "c")], HashRng(b"bench"))
    started = time.perf_counter()
    for seat, action in steps:
        game.apply(seat, action)
    memory = (time.perf_counter() - started) / len(steps)
    # durable: the same actions, each one unit of work (append, checkpoint, commit)
    with tempfile.TemporaryDirectory() as tmp:
        store = Store.open_dir(tmp)
        store.create_table("bench", "down-and-back", {}, "p", None)
        game = Game(Settings(ante=1, stack=1_000_000), [(0, "a"), (1, "b"), (2, "c")], HashRng(b"bench"))
        store.start_game("t1", game.initial_rng, game.initial_players, game.settings.to_data(), "bench")
        store.commit()
        times = []
        deadline = time.perf_counter() + seconds
        for seat, action in steps:
            t0 = time.perf_counter()
            game.apply(seat, action)
            store.append_action("t1", len(game.history) - 1, seat, game.history[-1][1])
            store.checkpoint("t1", checkpoint_json(game), len(game.history), game.round_no, game.phase, game.pot,
                             {s: p.stack for s, p in game.players.items()})
            store.commit()
            times.append(time.perf_counter() - t0)
            if t0 > deadline:
                break
        store.close()
    mean = statistics.fmean(times)
    print(f"store alone: {1 / mean:,.0f} commits/s (one action + checkpoint + fsync each); "
          f"{mean * 1e3:.3f} ms per unit (median {statistics.median(times) * 1e3:.3f}, "
          f"p99 {quantile(times, 0.99) * 1e3:.3f}) vs {memory * 1e3:.3f} ms for the engine alone "
          f"({len(times)} units)")


# ----------------------------------------------------------------- 2. the real server


async def spawn(*flags: str) -> tuple[asyncio.subprocess.Process, int, list[str]]:
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", *flags, *FLAGS,
        stderr=asyncio.subprocess.PIPE, cwd=ROOT,
    )
    lines: list[str] = []
    while True:
        line = (await process.stderr.readline()).decode()
        if not line:
            raise SystemExit(f"server exited: {flags}")
        found = re.search(r"listening on [\d.]+:(\d+)", line)
        if found:
            asyncio.ensure_future(_drain(process, lines))
            return process, int(found.group(1)), lines


async def _drain(process: asyncio.subprocess.Process, lines: list[str]) -> None:
    while line := await process.stderr.readline():
        lines.append(line.decode())


class Seat:
    """A protocol client that acts for its seat, with no think time, whenever its view says it may."""

    def __init__(self, port: int, name: str) -> None:
        self.view: dict | None = None
        self.views = 0
        self.changed = asyncio.Event()
        self.link = Link("127.0.0.1", port, name, on_push=self._push)

    def _push(self, message: m.Message) -> None:
        if isinstance(message, m.View):
            self.view = message.game  # the game's view (nil before the game)
            self.views += 1
            self.changed.set()

    async def play(self, until: float, rtts: list[float]) -> None:
        acted_on = -1  # views seen when we last acted: the next decision needs a newer one
        while time.perf_counter() < until:
            view = self.view
            if view is None or self.views == acted_on or not view["legal"] or view["phase"] == "over":
                self.changed.clear()
                try:
                    await asyncio.wait_for(self.changed.wait(), 0.5)
                except asyncio.TimeoutError:
                    pass
                continue
            action = baseline_action(view).to_data()
            acted_on = self.views
            started = time.perf_counter()
            try:
                await self.link.act(action)
            except RequestFailed:
                continue  # stale: wait for the next view
            rtts.append(time.perf_counter() - started)


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


async def run_tables(port: int, tables: int, seconds: float, server_pid: int) -> tuple[list[float], float, tuple[float, float]]:
    seats = []
    for t in range(tables):
        host, guest = Seat(port, f"h{t}"), Seat(port, f"g{t}")
        await host.link.connect()
        await guest.link.connect()
        created = await host.link.request(m.CreateTable, name=f"b{t}",
                                          settings=m.TableSettings(seats=2, rules={"ante": 1, "stack": 1_000_000}))
        await guest.link.request(m.Join, table_id=created["table_id"])
        await host.link.request(m.Start)
        seats += [host, guest]
    rtts: list[float] = []
    cpu = cpu_seconds(server_pid)
    started = time.perf_counter()
    await asyncio.gather(*(s.play(started + seconds, rtts) for s in seats))
    elapsed = time.perf_counter() - started
    cpu = tuple(after - before for after, before in zip(cpu_seconds(server_pid), cpu))
    for s in seats:
        await s.link.close()
    return rtts, elapsed, cpu


MODES = {
    "in-memory": ["--memory"],
    "durable": [],
    "durable, a commit per request": ["--no-group-commit"],
}


async def measure(mode: str, tables: int, seconds: float) -> tuple[list[float], float, tuple[float, float], int | None]:
    """Round trips, seconds measured, the server's CPU seconds meanwhile, and its commits (None in memory)."""
    with tempfile.TemporaryDirectory() as tmp:
        flags = MODES[mode] if mode == "in-memory" else ["--data-dir", tmp, *MODES[mode]]
        process, port, log = await spawn(*flags)
        try:
            rtts, elapsed, cpu = await run_tables(port, tables, seconds, process.pid)
        finally:
            process.terminate()
            await process.wait()
            await asyncio.sleep(0.05)
    commits = [int(m.group(1)) for line in log if (m := re.search(r"store: (\d+) commits", line))]
    return rtts, elapsed, cpu, commits[0] if commits else None


async def bench_server(seconds: float, table_counts: list[int]) -> None:
    for tables in table_counts:
        results = {mode: await measure(mode, tables, seconds) for mode in MODES}
        base = results["in-memory"][0]
        print(f"server, {tables} table(s) x 2 players, {seconds:g} s each:")
        for mode, (rtts, elapsed, cpu, commits) in results.items():
            line = (f"  {mode:30} {len(rtts) / elapsed:7,.0f} actions/s; round trip median "
                    f"{statistics.median(rtts) * 1e3:6.2f} ms, p99 {quantile(rtts, 0.99) * 1e3:6.2f} ms; "
                    f"server CPU {cpu[0] / len(rtts) * 1e3:.3f} ms/action, its event loop "
                    f"{cpu[1] / len(rtts) * 1e3:.3f} ({cpu[1] / elapsed:.0%} of a core)")
            if commits is not None:
                line += (f"; {commits / elapsed:6,.0f} commits/s; vs in-memory: median "
                         f"{statistics.median(rtts) / statistics.median(base):.2f}x "
                         f"({(statistics.median(rtts) - statistics.median(base)) * 1e3:+.2f} ms), "
                         f"p99 {quantile(rtts, 0.99) / quantile(base, 0.99):.2f}x")
            print(line)


def quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement (default 5)")
    parser.add_argument("--tables", default="1,16", help="table counts for the server runs (default 1,16)")
    args = parser.parse_args()
    print(machine())
    bench_store(args.seconds)
    asyncio.run(bench_server(args.seconds, [int(t) for t in args.tables.split(",")]))


if __name__ == "__main__":
    main()
