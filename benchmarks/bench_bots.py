"""Bot benchmark (issue 16): the strong Down and Back bot against the baseline, and its decision times.

Two matches, each one long game with stacks too deep to run out (ante 10), through the
game contract exactly as the server plays bots (``bot_action(game, seat, level)``, the
strong bot's lots from ``engine.rng.bot_rng``):

1. heads-up: one ``strong`` bot against one ``normal`` (baseline) bot, ``--heads-up`` rounds;
2. one ``strong`` bot against three baselines, ``--four`` rounds.

The deal passes round the table, so every seat deals as often as the others. For each
match: the share of the *decided* pots (a pot that carries over is decided later, by the
round that wins it) the strong bot won, with a 95 % confidence interval (Wilson), against
the share a seat would get by chance; the pots that carried; and the chips the strong
bot won per round. Then the strong bot's decision times per kind of decision (draw,
discard, split at the showdown, cut): median and 99th percentile, measured around each
``bot_action`` call (view and all), in CPU time (the thread's: what a decision costs) and
in wall time (which other processes on a shared machine stretch). Run it from the repository root, under ``nice`` on a
shared machine (about 10 CPU minutes at the defaults)::

    nice -n 10 python benchmarks/bench_bots.py --out /tmp/bench_bots.txt
    python benchmarks/bench_bots.py --quick     # 1,000 and 500 rounds
"""

from __future__ import annotations

import argparse
import math
import os
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from engine.contract import StartRound, Status  # noqa: E402
from engine.games import find_game  # noqa: E402
from engine.games.down_and_back.rules import PLAY  # noqa: E402
from engine.games.down_and_back.strong import warm_up as warm_up_strong  # noqa: E402
from engine.rng import HashRng  # noqa: E402

GAME = find_game("down-and-back")
TARGET_HEADS_UP_SHARE = 0.60
TARGET_DECISION_MS = 50.0


def wilson(wins: int, n: int, z: float = 1.96) -> tuple[float, float]:
    """95 % Wilson score interval of a proportion."""
    if n == 0:
        return 0.0, 1.0
    p = wins / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return centre - half, centre + half


def match(players: int, rounds: int, seed: str, times: dict[str, list[tuple[float, float]]]) -> dict[str, float]:
    """Seat 0 strong, the others baseline, ``rounds`` rounds of one game; the strong bot's figures."""
    game = GAME.new(GAME.settings({"stack": 10**9}), [(s, f"p{s}", 10**9) for s in range(players)], HashRng(seed))
    levels = {s: "strong" if s == 0 else "normal" for s in range(players)}
    won = decided = carried = 0
    clock, cpu_clock = time.perf_counter, time.thread_time
    for _ in range(rounds):
        game.apply(None, StartRound())
        while game.status is Status.PLAYING:
            for seat in game.to_act():
                if levels[seat] == "strong":
                    kind = game.step if game.phase == PLAY else game.phase
                    start, cpu = clock(), cpu_clock()
                    action = GAME.bot_action(game, seat, "strong")
                    times.setdefault(kind, []).append((clock() - start, cpu_clock() - cpu))
                else:
                    action = GAME.bot_action(game, seat, "normal")
                game.apply(seat, action)
        winner = game.showdown["winner"]
        if winner is None:
            carried += 1
        else:
            decided += 1
            won += winner == 0
    chips = (game.players[0].stack + game.players[0].contributed - 10**9) / rounds
    low, high = wilson(won, decided)
    return {"players": players, "rounds": rounds, "decided": decided, "won": won, "share": won / max(1, decided),
            "low": low, "high": high, "chance": 1 / players, "carried": carried, "chips_per_round": chips}


def report(name: str, r: dict[str, float]) -> list[str]:
    return [
        f"== {name}: {r['rounds']} rounds, {r['players']} players ==",
        f"decided pots: {r['decided']} ({r['carried']} rounds carried the pot)",
        f"strong bot won {r['won']} of them: {r['share']:.1%} (95% CI {r['low']:.1%} .. {r['high']:.1%}); "
        f"a seat's share by chance: {r['chance']:.0%}",
        f"chips won per round by the strong bot: {r['chips_per_round']:+.2f} (ante 10)",
    ]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--heads-up", type=int, default=10_000, help="rounds of strong vs baseline")
    parser.add_argument("--four", type=int, default=5_000, help="rounds of strong vs three baselines")
    parser.add_argument("--seed", default="bench-bots-2026", help="the games' seed (the bots' lots derive from it)")
    parser.add_argument("--quick", action="store_true", help="1,000 and 500 rounds")
    parser.add_argument("--out", type=Path, default=None, help="also write the report here")
    args = parser.parse_args()
    if args.quick:
        args.heads_up, args.four = 1000, 500
    GAME.warm_up()
    warm_up_strong()  # the strong bot's tables (built on its first move otherwise): steady-state times
    lines = [f"bench_bots: seed {args.seed!r}, python {sys.version.split()[0]}, {os.cpu_count()} CPUs, "
             f"load average at start {os.getloadavg()[0]:.2f}"]
    print(lines[0], flush=True)
    times: dict[str, list[tuple[float, float]]] = {}
    started = time.perf_counter()
    for name, players, rounds in (("heads-up", 2, args.heads_up), ("one strong vs three baselines", 4, args.four)):
        if rounds <= 0:  # e.g. --heads-up 0: only the other match
            continue
        result = match(players, rounds, f"{args.seed}-{players}", times)
        part = report(name, result)
        if players == 2:
            part.append(f"target: at least {TARGET_HEADS_UP_SHARE:.0%} of decided pots heads-up: "
                        f"{'ok' if result['share'] >= TARGET_HEADS_UP_SHARE else 'MISSED'}")
        print("\n".join(part), flush=True)
        lines += part
    part = ["== strong bot decision time (both matches; per bot_action call, view included) ==",
            "CPU: the thread's CPU time (what the decision costs); wall: elapsed, which a loaded machine stretches"]
    for kind, pairs in sorted(times.items()):
        for what, samples in (("CPU", sorted(cpu for _, cpu in pairs)), ("wall", sorted(wall for wall, _ in pairs))):
            p50 = statistics.median(samples) * 1000
            p99 = samples[min(len(samples) - 1, int(len(samples) * 0.99))] * 1000
            part.append(f"{kind:9s} {what:4s} {len(samples):7d} decisions  median {p50:6.2f} ms  p99 {p99:6.2f} ms  "
                        f"max {samples[-1] * 1000:6.2f} ms  {'ok' if p99 <= TARGET_DECISION_MS else 'MISSED'}")
    part.append(f"wall time {time.perf_counter() - started:.0f} s, load average at the end {os.getloadavg()[0]:.2f}")
    print("\n".join(part), flush=True)
    lines += part
    if args.out:
        args.out.write_text("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
