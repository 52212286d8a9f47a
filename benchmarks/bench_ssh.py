"""SSH gateway: session start to first painted lobby, and many SSH sessions held while a game plays.

    python benchmarks/bench_ssh.py [--starts 10] [--sessions 50] [--rounds 4] [--memory]

1. ``--starts`` sessions one after another: from launching OpenSSH (in tmux) to the
   lobby on its screen (median, p90).
2. ``--sessions`` SSH sessions held at once (each a real client in the lobby); then two
   scripted players play ``--rounds`` rounds, timing each action to that player's own
   next view (p50, p99, max and which actions were slowest), with the CPU the server
   and its SSH clients used meanwhile; every SSH screen must show the new table (their
   updates still arrive). Loopback only; stops by itself. Needs ssh, ssh-keygen and tmux.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "ssh")]

from engine.games.down_and_back.bots import baseline_action  # noqa: E402
from protocol import messages as m  # noqa: E402
from scripted import ScriptedClient  # noqa: E402
from ssh_helpers import Server, Tmux, make_key, wait_until  # noqa: E402


def cpu_seconds(pids: list[int]) -> float:
    """User and system CPU time the processes have used so far (those still running)."""
    total = 0
    for pid in pids:
        try:
            with open(f"/proc/{pid}/stat") as stat:
                fields = stat.read().rsplit(")", 1)[1].split()
        except FileNotFoundError:
            continue
        total += int(fields[11]) + int(fields[12])
    return total / os.sysconf("SC_CLK_TCK")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))]


def starts(server: Server, tmux: Tmux, key: Path, count: int) -> list[float]:
    times = []
    for i in range(count):
        name = f"s{i}"
        began = time.perf_counter()
        tmux.start(name, server.ssh(key, name, "-tt"), linger=False)
        wait_until(lambda: f"as {name}" in tmux.screen(name), timeout=60, interval=0.01, what="the lobby")
        times.append(time.perf_counter() - began)
        tmux.kill(name)
    return times


async def play(game_port: int, rounds: int) -> tuple[list[float], str]:
    """Two scripted players: each action timed to the actor's next view."""
    latencies: list[float] = []
    async with ScriptedClient(game_port, "BenchA") as a, ScriptedClient(game_port, "BenchB") as b:
        created = await a.request(m.CreateTable, name="bench table", )
        table_id = created["table_id"]
        await b.request(m.Join, table_id=table_id)
        await a.request(m.Start)
        deadline = time.monotonic() + 300
        while time.monotonic() < deadline:
            for client in (a, b):
                view = client.views.get(table_id)
                if view and view.get("round", 0) > rounds:
                    return latencies, "bench table"
                if view and view.get("legal"):
                    seen = len(client.all_views)
                    action = baseline_action(view).to_data()  # decided before the clock starts: the
                    sent = time.perf_counter()  # first decision builds the bot's tables (~0.5 s), not the server's
                    try:
                        await client.act(action)
                    except Exception:
                        continue
                    await client.wait_for(lambda c=client, s=seen: len(c.all_views) > s)
                    latencies.append(time.perf_counter() - sent)
            await asyncio.sleep(0.01)  # a bench loop: poll both players' turns
        return latencies, "bench table"


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--starts", type=int, default=10)
    parser.add_argument("--sessions", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--memory", action="store_true",
                        help="no database: the SSH side alone, without the commits' fsyncs (on the event loop)")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        server = Server(Path(tmp) / "data", "--ssh-max-per-address", str(args.sessions + 1),
                        "--new-players-per-hour", str(args.sessions + 10),  # the held sessions are guests
                        "--ssh-login-rate", str(args.sessions),  # all at once from loopback
                        "--round-pause", "0.2", "--turn-timeout", "60", *(["--memory"] if args.memory else []))
        game_port = server.game_port
        tmux = Tmux("bench")
        key = make_key(Path(tmp), "k")
        try:
            times = starts(server, tmux, key, args.starts)
            print(f"session start -> lobby painted ({len(times)}): median {statistics.median(times) * 1000:.0f} ms, "
                  f"p90 {pct(times, 0.9) * 1000:.0f} ms")
            began = time.perf_counter()
            for i in range(args.sessions):
                tmux.start(f"h{i}", server.ssh(None, f"h{i}", "-tt"), linger=False)
            for i in range(args.sessions):
                wait_until(lambda i=i: f"as h{i}" in tmux.screen(f"h{i}"), timeout=300, interval=0.2,
                           what=f"session h{i}'s lobby")
            print(f"{args.sessions} SSH sessions in their lobbies after {time.perf_counter() - began:.1f} s; "
                  f"load {os.getloadavg()[0]:.1f}")
            clients = server.children()
            before = cpu_seconds([server.proc.pid]), cpu_seconds(clients), time.perf_counter()
            latencies, table = asyncio.run(play(game_port, args.rounds))
            spent = time.perf_counter() - before[2]
            print(f"with {args.sessions} SSH sessions held: action -> own view ({len(latencies)}): "
                  f"p50 {pct(latencies, 0.5) * 1000:.1f} ms, p99 {pct(latencies, 0.99) * 1000:.1f} ms, "
                  f"max {max(latencies) * 1000:.1f} ms (the slowest: actions "
                  f"{sorted(range(len(latencies)), key=latencies.__getitem__)[-3:]}); CPU over the {spent:.1f} s of play: server "
                  f"{(cpu_seconds([server.proc.pid]) - before[0]) / spent:.0%} of a core, its SSH clients "
                  f"{(cpu_seconds(clients) - before[1]) / spent:.0%}")
            updated = sum(table in tmux.screen(f"h{i}") for i in range(args.sessions))
            print(f"SSH lobbies showing the new table: {updated}/{args.sessions}; "
                  f"clients running: {len(server.children())}; load {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
        finally:
            tmux.close()
            server.stop()
    return 0


if __name__ == "__main__":
    sys.exit(main())
