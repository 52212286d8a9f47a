"""What an idle client costs: the bytes it writes to its terminal and the CPU it uses per idle minute.

    python benchmarks/bench_idle.py [--seconds 30] [--size 80x24] [--tree DIR]

The real ``dab-client`` runs in a pseudo-terminal (read through pyte) against a
real ``dab-server`` on loopback:

1. **Lobby**: the client sits in the lobby, nothing on it moving.
2. **Seated**: the client has joined a table (``--join``) whose other player, a
   scripted TCP client, has started the game and then never acts: the client
   makes its own decisions by keys until it is the other's turn, and waits on
   it, its countdown ticking (a turn timeout of 10 minutes).

Each is measured over ``--seconds`` once the client is at rest (see ``settle``), from
the bytes that arrive on the terminal and ``/proc/PID/stat`` (user + system
CPU), and printed per minute. Targets (issue 30): seated <= 0.1 CPU-s and
<= 4 KB a minute; lobby <= 0.02 CPU-s a minute. ``--tree`` runs another
checkout's client against this tree's server (an older commit, for a
before/after). Ends with ``SUMMARY lobby_cpu_s_min=... lobby_kb_min=...
seated_cpu_s_min=... seated_kb_min=...``.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "e2e")]

from evening_helpers import EveningServer, Terminal, child_env, play_until  # noqa: E402
from protocol import messages as m  # noqa: E402
from scripted import ScriptedClient  # noqa: E402

SETTLE = 2.0  # seconds of rest (see settle) before counting


def cpu_seconds(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as stat:
        fields = stat.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")


def settle(pid: int, limit: float = 60.0) -> None:
    """Wait until the program is at rest: a table's first paint starts the hand helper's tables in a thread
    (~1.7 CPU-s, once per client), which is start-up, not idling. At rest: under 10 ms of CPU in SETTLE s."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = cpu_seconds(pid)
        time.sleep(SETTLE)  # a benchmark's settling period: sampled, nothing to wait on but time
        if cpu_seconds(pid) - before <= 0.01:
            return
    print(f"(pid {pid} never settled within {limit:.0f} s)")


def idle(terminal: Terminal, seconds: float) -> tuple[float, float]:
    """(CPU seconds, KB) per minute the terminal's program spends over ``seconds`` of idling."""
    settle(terminal.proc.pid)
    cpu, size, began = cpu_seconds(terminal.proc.pid), len(terminal.output), time.monotonic()
    time.sleep(seconds)
    spent = time.monotonic() - began
    return ((cpu_seconds(terminal.proc.pid) - cpu) * 60 / spent, (len(terminal.output) - size) / 1024 * 60 / spent)


def client(server: EveningServer, tree: Path, name: str, size: tuple[int, int], *args: str) -> Terminal:
    env = child_env(server.directory / f"config-{name}")
    env["PYTHONPATH"] = str(tree)  # (-P: not the current directory's client)
    terminal = Terminal([sys.executable, "-P", "-m", "client", f"127.0.0.1:{server.port}", "--name", name, *args],
                        size=size, env=env, name=name)
    server.terminals.append(terminal)
    return terminal


async def seated(server: EveningServer, tree: Path, size: tuple[int, int], seconds: float) -> tuple[float, float]:
    async with ScriptedClient(server.port, "Host") as host:
        table_id = (await host.request(m.CreateTable, name="idle table"))["table_id"]
        ann = client(server, tree, "Ann", size, "--join", table_id)
        await asyncio.to_thread(ann.wait_for, "idle table", 30)
        await host.wait_for(lambda: host.facts and len(host.table["members"]) >= 2)
        await host.request(m.Start)

        def waiting_on_host() -> bool:  # the host's turn alone, and Ann's screen counting it down
            view = host.views.get(table_id) or {}
            text = ann.text()
            return view.get("to_act") == [host.table["seat"]] and ("⏱" in text or "T-" in text)

        # Ann makes her decisions by keys (a cut, a draw...) until it is the host's turn, which never ends.
        await asyncio.to_thread(play_until, [ann], "down-and-back", waiting_on_host, 60.0, "the host's turn")
        return await asyncio.to_thread(idle, ann, seconds)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--size", default="80x24")
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose client is measured")
    args = parser.parse_args()
    size = tuple(int(n) for n in args.size.split("x"))
    with tempfile.TemporaryDirectory(prefix="dab-idle-") as tmp, \
            EveningServer(Path(tmp), turn_timeout=600.0, bot_delay=0.6, extra=("--seed-window", "0.05")) as server:
        lobby = client(server, args.tree, "Lia", size)
        lobby.wait_for("as Lia", 30)
        lobby_cpu, lobby_kb = idle(lobby, args.seconds)
        lobby.close()
        seated_cpu, seated_kb = asyncio.run(seated(server, args.tree, size, args.seconds))
    print(f"client {args.tree} at {args.size}, {args.seconds:.0f} s each; load {os.getloadavg()[0]:.2f} "
          f"on {os.cpu_count()} CPUs")
    print(f"lobby idle:  {lobby_cpu:.3f} CPU-s/min, {lobby_kb:.2f} KB/min (target <= 0.02 CPU-s)")
    print(f"seated idle: {seated_cpu:.3f} CPU-s/min, {seated_kb:.2f} KB/min (target <= 0.1 CPU-s, <= 4 KB)")
    print(f"SUMMARY lobby_cpu_s_min={lobby_cpu:.3f} lobby_kb_min={lobby_kb:.2f} "
          f"seated_cpu_s_min={seated_cpu:.3f} seated_kb_min={seated_kb:.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
