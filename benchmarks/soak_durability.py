"""Soak: SIGKILL the real dab-server at hundreds of random points and check that nothing is lost.

The long form of ``tests/server/test_durability_kill.py`` (same machinery,
``durability_helpers.chaos``): batches of six games play to the end while
the server is killed after random pauses, its database checked while down, and
restarted; afterwards every round must be complete, every acknowledged action
in the log, every view a state the server continued from, and chips conserved.

    python benchmarks/soak_durability.py [--points 1000] [--seed 1] [--max-pause 0.3]
"""

from __future__ import annotations

import argparse
import asyncio
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "server")]

from durability_helpers import chaos  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--points", type=int, default=1000, help="distinct kill points to reach (default 1000)")
    parser.add_argument("--seed", type=int, default=1, help="seed of the kill schedule and the shuffles")
    parser.add_argument("--max-pause", type=float, default=0.3, help="longest play between kills, seconds")
    parser.add_argument("--keep", metavar="DIR", help="use DIR as the data directory and keep it")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        data_dir = Path(args.keep or tmp)
        summary = asyncio.run(chaos(data_dir, args.points, args.seed, args.max_pause,
                                    report=lambda text: print(text, flush=True)))
    print("ok:", ", ".join(f"{k} {v}" for k, v in summary.items()))


if __name__ == "__main__":
    main()
