"""What durability costs: commits per second, and the action round trip with and without the store.

Two measurements, each durable beside in-memory in the same run:

1. The store alone (in this process): apply an engine action, append it, write
   the game's checkpoint and commit with fsync (WAL, synchronous=FULL): commits
   per second and the time per unit, against the engine applying the same
   actions with nothing stored.
2. The real server (``dab-server --memory`` and ``dab-server --data-dir``, as
   subprocesses): heads-up tables played with no think time, as fast as the
   server answers, by clients spread over --processes worker processes
   (``bench_server.py``'s minimal client), so no client waits behind dozens of
   others on one loop; each ``act`` is timed from sending it to holding its
   ``ok`` (by then the action is on disk). The first --warmup seconds of each
   measurement are not counted, and the modes take turns for --rounds rounds,
   pooled, so a change in what else the machine runs falls on all of them.
   One table measures latency; many tables measure throughput, where every
   acknowledged action is one commit. The server's CPU time per action (the
   whole process, and its event loop's thread alone, over the same window) is
   printed beside: unlike the round trips it hardly depends on what else the
   machine runs.

    python benchmarks/bench_durability.py [--seconds 5] [--tables 1,16] [--rounds 3] [--warmup 1] [--processes 4]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from engine.games.down_and_back.actions import StartRound  # noqa: E402
from engine.games.down_and_back.bots import baseline_action  # noqa: E402
from engine.games.down_and_back.rules import OVER, Game, Settings  # noqa: E402
from engine.rng import HashRng  # noqa: E402
from engine.games.down_and_back.views import decision_view  # noqa: E402
from server.store import Store  # noqa: E402
from server.restore import checkpoint_json  # noqa: E402
from bench_server import CpuWindow, machine, percentile, run_workers, spawn  # noqa: E402  (this directory is the script's own)

FLAGS = ["--bot-delay", "0", "--round-pause", "0", "--seed-window", "0", "--turn-timeout", "60", "--request-rate", "100000",
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
          f"p99 {percentile(times, 0.99) * 1e3:.3f}) vs {memory * 1e3:.3f} ms for the engine alone "
          f"({len(times)} units)")


# ----------------------------------------------------------------- 2. the real server


MODES = {
    "in-memory": ["--memory"],
    "durable": [],
    "durable, a commit per request": ["--no-group-commit"],
}


@dataclass
class Pooled:
    """One mode's measurements over every round."""
    rtts: list[float] = field(default_factory=list)
    seconds: float = 0.0
    cpu: tuple[float, float] = (0.0, 0.0)
    errors: int = 0
    rounds: list[tuple[float, float]] = field(default_factory=list)  # each round's (median, p99)

    def add(self, rtts: list[float], seconds: float, cpu: tuple[float, float], errors: int) -> None:
        if not rtts:
            raise SystemExit(f"no action was acknowledged in {seconds:g} s ({errors} refused): is the server up?")
        self.rtts += rtts
        self.seconds += seconds
        self.cpu = (self.cpu[0] + cpu[0], self.cpu[1] + cpu[1])
        self.errors += errors
        self.rounds.append((statistics.median(rtts), percentile(rtts, 0.99)))


async def measure(mode: str, tables: int, seconds: float, warmup: float, processes: int,
                  into: Pooled) -> None:
    """One round of ``mode``: a fresh server, ``tables`` heads-up tables played by worker processes with
    no think time; the round trips after the warm-up, and the server's CPU time over the same window."""
    with tempfile.TemporaryDirectory() as tmp:
        flags = MODES[mode] if mode == "in-memory" else ["--data-dir", tmp, *MODES[mode]]
        process, port = await spawn(sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", *flags,
                                    *FLAGS)
        window = CpuWindow(process.pid)
        try:
            rtts, _updates, errors = await asyncio.to_thread(
                run_workers, "game", port, 2 * tables, tables, processes, 0.0, warmup, seconds, window.watch)
            window.join()
        finally:
            process.terminate()
            await process.wait()
    into.add(rtts, seconds, window.spent, len(errors))


async def bench_server(seconds: float, table_counts: list[int], rounds: int, warmup: float, processes: int) -> None:
    for tables in table_counts:
        results = {mode: Pooled() for mode in MODES}
        for _ in range(rounds):  # the modes take turns, so a change in the machine's load falls on each
            for mode, pooled in results.items():
                await measure(mode, tables, seconds, warmup, processes, pooled)
        base = results["in-memory"].rtts
        print(f"server, {tables} table(s) x 2 players, {rounds} round(s) of {seconds:g} s per mode "
              f"(each after {warmup:g} s of warm-up), clients in up to {processes} processes:")
        for mode, pooled in results.items():
            rtts, cpu = pooled.rtts, pooled.cpu
            line = (f"  {mode:30} {len(rtts) / pooled.seconds:7,.0f} actions/s; round trip median "
                    f"{statistics.median(rtts) * 1e3:6.2f} ms, p99 {percentile(rtts, 0.99) * 1e3:6.2f} ms; "
                    f"server CPU {cpu[0] / len(rtts) * 1e3:.3f} ms/action, its event loop "
                    f"{cpu[1] / len(rtts) * 1e3:.3f} ({cpu[1] / pooled.seconds:.0%} of a core)")
            if mode != "in-memory":
                line += (f"; vs in-memory: median {statistics.median(rtts) / statistics.median(base):.2f}x "
                         f"({(statistics.median(rtts) - statistics.median(base)) * 1e3:+.2f} ms), "
                         f"p99 {percentile(rtts, 0.99) / percentile(base, 0.99):.2f}x")
            if pooled.errors:
                line += f"; {pooled.errors} stale acts refused"
            print(line)
            print(f"  {'':30} rounds (median/p99 ms): "
                  + ", ".join(f"{median * 1e3:.2f}/{p99 * 1e3:.2f}" for median, p99 in pooled.rounds))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seconds", type=float, default=5.0, help="per measurement (default 5)")
    parser.add_argument("--tables", default="1,16", help="table counts for the server runs (default 1,16)")
    parser.add_argument("--rounds", type=int, default=3, help="measurements of each mode, taking turns (default 3)")
    parser.add_argument("--warmup", type=float, default=1.0, help="seconds of play before each measurement (default 1)")
    parser.add_argument("--processes", type=int, default=4, help="client worker processes (default 4)")
    args = parser.parse_args()
    print(machine())
    bench_store(args.seconds)
    asyncio.run(bench_server(args.seconds, [int(t) for t in args.tables.split(",")], args.rounds, args.warmup,
                             args.processes))


if __name__ == "__main__":
    main()
