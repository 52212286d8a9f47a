"""Client benchmarks, measured on the real program in a pseudo-terminal at 80x24.

1. Start-up: the median time from spawning ``python -m client`` (a practice
   game: embedded server, table, three bots) to the first painted table, with
   the bytecode compiled (one uncounted start first). Target: under 0.5 s on
   an idle machine.
2. Bandwidth: the bytes the client writes to the terminal per opponent turn
   (a bot's draw and discard) at 80x24. Target: under 8 KB.

The client reports what it is doing on a side channel (the file descriptor in
``DAB_BENCH_FD``): ``paint`` once the first table has been drawn, and a line for
every view received. The benchmark counts the bytes that arrive on the
terminal between those markers.

    python benchmarks/bench_client.py [--runs 7] [--turns 24]
"""

from __future__ import annotations

import argparse
import fcntl
import os
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
COLUMNS, LINES = 80, 24
# An installed program has its bytecode compiled; an environment with
# PYTHONDONTWRITEBYTECODE would make every start compile ~40 modules afresh
# (~0.25 s). The children cache bytecode here instead (never in the tree).
PYCACHE = tempfile.TemporaryDirectory(prefix="dab-bench-pyc-")


class PtyClient:
    """``python -m client ARGS`` on a fresh 80x24 pseudo-terminal, with the bench side channel."""

    def __init__(self, args: list[str], exit_after_paint: bool) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", LINES, COLUMNS, 0, 0))
        self.marks_r, marks_w = os.pipe()
        self.config = tempfile.TemporaryDirectory()
        env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor", COLUMNS=str(COLUMNS),
                   LINES=str(LINES), DAB_BENCH_FD=str(marks_w), DAB_CONFIG_DIR=self.config.name,
                   PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        env.pop("TEXTUAL", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = PYCACHE.name
        if exit_after_paint:
            env["DAB_BENCH_EXIT"] = "1"
        self.started = time.perf_counter()
        self.proc = subprocess.Popen([sys.executable, "-m", "client", *args], cwd=ROOT, env=env,
                                     stdin=slave, stdout=slave, stderr=slave, pass_fds=(marks_w,),
                                     start_new_session=True)
        os.close(slave)
        os.close(marks_w)
        self.screen_bytes = 0
        self._partial = b""

    def poll(self, timeout: float) -> list[tuple[float, int, str]]:
        """Read what is ready; return the new markers as (arrival time, screen bytes so far, text)."""
        marks: list[tuple[float, int, str]] = []
        ready, _, _ = select.select([self.master, self.marks_r], [], [], timeout)
        if self.master in ready:
            try:
                self.screen_bytes += len(os.read(self.master, 1 << 16))
            except OSError:
                pass
        if self.marks_r in ready:
            data = os.read(self.marks_r, 1 << 16)
            if not data:
                raise EOFError("the client exited")
            self._partial += data
            *lines, self._partial = self._partial.split(b"\n")
            now = time.perf_counter()
            # Drain the terminal first, so bytes painted before the marker are counted before it.
            while select.select([self.master], [], [], 0)[0]:
                try:
                    chunk = os.read(self.master, 1 << 16)
                except OSError:
                    break
                if not chunk:
                    break
                self.screen_bytes += len(chunk)
            marks += [(now, self.screen_bytes, line.decode()) for line in lines]
        return marks

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(5)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        for fd in (self.master, self.marks_r):
            try:
                os.close(fd)
            except OSError:
                pass
        self.config.cleanup()


def time_to_first_table() -> float:
    client = PtyClient(["--bot-delay", "0.5"], exit_after_paint=True)
    try:
        deadline = client.started + 30
        while time.perf_counter() < deadline:
            for when, _, text in client.poll(0.05):
                if text.startswith("paint"):
                    return when - client.started
        raise TimeoutError("no table was painted within 30 s")
    finally:
        client.close()


def bytes_per_opponent_turn(turns: int, bot_delay: float) -> tuple[float, int, list[int]]:
    """Median and total bytes written to the terminal for each opponent (bot) turn.

    Each view the client receives is caused by one action, and the bytes the
    client writes until the next view are its repaint. An opponent's turn is
    two actions: the take (the view shows that opponent at the discard step)
    and the discard (the next view). We count the repaints of those two views.
    The benchmark plays our own seat by typing into the terminal as a person
    would (s, then Enter; Enter at the cut and the showdown).
    """
    client = PtyClient(["--bot-delay", str(bot_delay)], exit_after_paint=False)
    per_turn: list[int] = []
    previous: tuple[str, ...] | None = None  # (me, phase, turn, step) of the last view
    previous_count = 0
    taking = 0  # bytes of the take's repaint, while we wait for the discard's view
    in_turn = False
    answered: tuple[str, ...] | None = None
    try:
        deadline = time.perf_counter() + 120
        while len(per_turn) < turns and time.perf_counter() < deadline:
            for _, count, text in client.poll(0.05):
                parts = text.split()
                if parts[0] != "view":
                    continue
                _, _, me, mine, phase, turn, step, round_no = parts
                if previous is not None:
                    segment = count - previous_count  # the repaint of the previous view
                    p_me, p_phase, p_turn, p_step = previous
                    opponent_took = p_phase == "play" and p_step == "discard" and p_turn not in (p_me, "None")
                    if in_turn:  # the previous view was the opponent's discard
                        per_turn.append(taking + segment)
                        in_turn = False
                    if opponent_took and (phase, turn, step) != (p_phase, p_turn, p_step):
                        in_turn = True  # this view is that opponent's discard
                    taking = segment if opponent_took else 0
                previous, previous_count = (me, phase, turn, step), count
                decision = (phase, turn, step, round_no)
                if mine == "1" and decision != answered:
                    answered = decision
                    time.sleep(0.05)  # a person's reaction; the screen settles
                    os.write(client.master, b"s" if (phase, step) == ("play", "draw") else b"\r")
        if len(per_turn) < turns:
            raise TimeoutError(f"only {len(per_turn)} opponent turns seen")
        return statistics.median(per_turn), sum(per_turn), per_turn
    finally:
        client.close()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7, help="start-up runs (default 7)")
    parser.add_argument("--turns", type=int, default=24, help="opponent turns to measure (default 24)")
    parser.add_argument("--bot-delay", type=float, default=0.25, help="seconds between bot moves (default 0.25)")
    args = parser.parse_args()

    median = 0.0
    if args.runs:
        time_to_first_table()  # not counted: compiles the bytecode, as installing would
        times = [time_to_first_table() for _ in range(args.runs)]
        median = statistics.median(times)
        print(f"start-up to first painted table: median {median * 1000:.0f} ms "
              f"(min {min(times) * 1000:.0f}, max {max(times) * 1000:.0f}, {args.runs} runs; target < 500 ms idle)")

    median_bytes, total, per_turn = bytes_per_opponent_turn(args.turns, args.bot_delay)
    print("per turn:", " ".join(f"{b / 1024:.1f}" for b in per_turn))
    print(f"bytes written per opponent turn at {COLUMNS}x{LINES}: median {median_bytes / 1024:.2f} KB, "
          f"max {max(per_turn) / 1024:.2f} KB, mean {total / len(per_turn) / 1024:.2f} KB "
          f"over {len(per_turn)} turns (target < 8 KB)")
    ok = median < 0.5 and median_bytes < 8 * 1024
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
