"""Client benchmarks, measured on the real program in a pseudo-terminal at 80x24 (or ``--size``).

1. Start-up: the median time from spawning ``python -m client`` (a practice
   game: embedded server, table, three bots) to the first painted table, with
   the bytecode compiled (one uncounted start first). Target: under 0.5 s on
   an idle machine. Beside it the client's own CPU time to that paint (a
   client that reports it), which a loaded machine inflates far less, and the
   same two figures for a bare Textual app (``bare_textual.py``: one line of
   text) started alternately with it, the floor: the client's time is printed
   as a multiple of it, a figure a busy machine moves less than either.
2. Bandwidth: the bytes the client writes to the terminal per opponent turn
   (a bot's draw and discard) at 80x24. Target: under 8 KB. And the turn
   that opens the showdown (the round's last discard: the split to arrange
   appears). Target: under 10 KB.

The client reports what it is doing on a side channel (the file descriptor in
``DAB_BENCH_FD``): ``paint`` once the first table has been drawn, and a line for
every view received. The benchmark counts the bytes that arrive on the
terminal between those markers.

    python benchmarks/bench_client.py [--runs 7] [--turns 24] [--tree DIR] [--size 120x40]

``--size``: the terminal's, 80x24 unless given (the targets are 80x24's; from
120x36 up the client draws its larger layout, docs/CLIENT.md "Larger
terminals"). ``--tree`` runs another checkout's client (``compare_commits.py`` measures an
earlier commit with this script, so both trees are counted the same way).
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


BARE_APP = [str(Path(__file__).resolve().parent / "bare_textual.py")]


class PtyClient:
    """``python -m client ARGS`` (or ``python COMMAND``) on a fresh pseudo-terminal of ``size`` (columns,
    lines), with the bench side channel."""

    def __init__(self, args: list[str], exit_after_paint: bool, tree: Path = ROOT,
                 command: list[str] | None = None, size: tuple[int, int] = (COLUMNS, LINES)) -> None:
        columns, lines = size
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", lines, columns, 0, 0))
        self.marks_r, marks_w = os.pipe()
        self.config = tempfile.TemporaryDirectory()
        env = dict(os.environ, TERM="xterm-256color", COLORTERM="truecolor", COLUMNS=str(columns),
                   LINES=str(lines), DAB_BENCH_FD=str(marks_w), DAB_CONFIG_DIR=self.config.name,
                   PYTHONPATH=str(tree) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        env.pop("TEXTUAL", None)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = PYCACHE.name
        if exit_after_paint:
            env["DAB_BENCH_EXIT"] = "1"
        self.started = time.perf_counter()
        self.proc = subprocess.Popen([sys.executable, *(command or ["-m", "client", *args])], cwd=tree, env=env,
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


def time_to_first_table(tree: Path = ROOT, command: list[str] | None = None,
                        size: tuple[int, int] = (COLUMNS, LINES)) -> tuple[float, float | None]:
    """Seconds from the spawn to the first painted table, and the client's CPU seconds by then
    (``None`` from a client whose ``paint`` marker does not say); ``command``: of that program instead."""
    client = PtyClient(["--bot-delay", "0.5"], exit_after_paint=True, tree=tree, command=command, size=size)
    try:
        deadline = client.started + 30
        while time.perf_counter() < deadline:
            for when, _, text in client.poll(0.05):
                if text.startswith("paint"):
                    fields = text.split()
                    return when - client.started, float(fields[2]) if len(fields) > 2 else None
        raise TimeoutError("no table was painted within 30 s")
    finally:
        client.close()


def bytes_per_opponent_turn(turns: int, bot_delay: float, tree: Path = ROOT,
                            size: tuple[int, int] = (COLUMNS, LINES)) -> tuple[list[int], list[int]]:
    """The bytes written to the terminal for each opponent (bot) turn, and for those among them that
    opened a showdown; at least ``turns`` turns and one showdown-opening turn.

    Each view the client receives is caused by one action, and the bytes the
    client writes until the next view are its repaint. An opponent's turn is
    two actions: the take (the view shows that opponent at the discard step)
    and the discard (the next view). We count the repaints of those two views.
    The turn whose discard opens the showdown is reported too (the split to
    arrange appears); we split only once the next view has come (a bot's split),
    so our own keys are not in that turn's count. What the client paints after
    that view counts towards the next one: on a loaded machine give a longer
    ``--bot-delay`` (1.0), or the showdown's paint may fall outside its turn.
    The benchmark plays our own seat by typing into the terminal as a person
    would (s, then Enter; Enter at the cut and the showdown).
    """
    client = PtyClient(["--bot-delay", str(bot_delay)], exit_after_paint=False, tree=tree, size=size)
    per_turn: list[int] = []
    opening: list[int] = []  # the turns whose discard opened the showdown
    opened = False  # the last view is a discard that opened the showdown
    previous: tuple[str, ...] | None = None  # (me, phase, turn, step) of the last view
    previous_count = 0
    taking = 0  # bytes of the take's repaint, while we wait for the discard's view
    in_turn = False
    answered: tuple[str, ...] | None = None
    try:
        deadline = time.perf_counter() + 120
        while (len(per_turn) < turns or not opening) and time.perf_counter() < deadline:
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
                        if opened:
                            opening.append(taking + segment)
                        in_turn = False
                    opened = False
                    if opponent_took and (phase, turn, step) != (p_phase, p_turn, p_step):
                        in_turn = True  # this view is that opponent's discard
                        opened = phase == "showdown"
                    taking = segment if opponent_took else 0
                previous, previous_count = (me, phase, turn, step), count
                decision = (phase, turn, step, round_no)
                if mine == "1" and decision != answered and not opened:  # a showdown: split at the next view
                    answered = decision
                    time.sleep(0.05)  # a person's reaction; the screen settles
                    os.write(client.master, b"s" if (phase, step) == ("play", "draw") else b"\r")
        if len(per_turn) < turns or not opening:
            raise TimeoutError(f"only {len(per_turn)} opponent turns seen, {len(opening)} opening a showdown")
        return per_turn, opening
    finally:
        client.close()


def terminal_size(text: str) -> tuple[int, int]:
    """``120x40`` -> (120, 40)."""
    columns, _, lines = text.lower().partition("x")
    try:
        size = int(columns), int(lines)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not COLUMNSxLINES: {text!r}") from None
    if size[0] < 1 or size[1] < 1:
        raise argparse.ArgumentTypeError(f"not a terminal's size: {text!r}")
    return size


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--runs", type=int, default=7, help="start-up runs (default 7)")
    parser.add_argument("--turns", type=int, default=24, help="opponent turns to measure, at least (default 24; "
                                                              "the run goes on to the first showdown)")
    parser.add_argument("--bot-delay", type=float, default=0.25, help="seconds between bot moves (default 0.25)")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose client runs (default: this one)")
    parser.add_argument("--size", type=terminal_size, default=(COLUMNS, LINES),
                        help=f"the terminal, COLUMNSxLINES (default {COLUMNS}x{LINES}; the targets are for it)")
    args = parser.parse_args()
    tree, size = args.tree.resolve(), args.size
    targeted = size == (COLUMNS, LINES)  # the bandwidth targets are 80x24's
    print(f"client of {tree} at {size[0]}x{size[1]}; "
          f"load {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")

    median = 0.0
    if args.runs:
        time_to_first_table(tree, size=size)  # not counted: compiles the bytecode, as installing would
        time_to_first_table(tree, BARE_APP, size)
        runs, bare = [], []
        for i in range(args.runs):  # alternately first, so a drift of the load weighs on both alike
            for measure in ((runs, None), (bare, BARE_APP))[::1 if i % 2 == 0 else -1]:
                measure[0].append(time_to_first_table(tree, measure[1], size))
        times = sorted(wall for wall, _ in runs)
        median = statistics.median(times)
        print(f"start-up to first painted table: median {median * 1000:.0f} ms "
              f"(p90 {times[min(len(times) - 1, round(0.9 * (len(times) - 1)))] * 1000:.0f}, "
              f"min {times[0] * 1000:.0f}, max {times[-1] * 1000:.0f}, {args.runs} runs; target < 500 ms idle)")
        cpu = [c for _, c in runs if c is not None]
        if cpu:
            print(f"client CPU time to first painted table: median {statistics.median(cpu) * 1000:.0f} ms "
                  f"(min {min(cpu) * 1000:.0f})")
        bare_wall = statistics.median(wall for wall, _ in bare)
        bare_cpu = statistics.median(c for _, c in bare if c is not None)
        print(f"bare Textual app to first paint: median {bare_wall * 1000:.0f} ms, CPU {bare_cpu * 1000:.0f} ms; "
              f"the client takes {median / bare_wall:.2f}x its time"
              + (f", {statistics.median(cpu) / bare_cpu:.2f}x its CPU" if cpu else ""))

    per_turn, opening = bytes_per_opponent_turn(args.turns, args.bot_delay, tree, size)
    median_bytes = statistics.median(per_turn)
    print("per turn:", " ".join(f"{b / 1024:.1f}" for b in per_turn))
    print(f"bytes written per opponent turn at {size[0]}x{size[1]}: median {median_bytes / 1024:.2f} KB, "
          f"max {max(per_turn) / 1024:.2f} KB, mean {sum(per_turn) / len(per_turn) / 1024:.2f} KB "
          f"over {len(per_turn)} turns{' (target < 8 KB)' if targeted else ''}")
    print(f"bytes written by the showdown-opening turn: {max(opening) / 1024:.2f} KB "
          f"({len(opening)} seen{'; target < 10 KB' if targeted else ''})")
    print(f"after: load {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    ok = median < 0.5 and (not targeted or median_bytes < 8 * 1024 and max(opening) < 10 * 1024)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
