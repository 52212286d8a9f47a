"""The gateways under hostile tabs and SSH peers (issue 32): what one flooding address costs everyone else.

    python benchmarks/bench_gateways.py [--tree PATH] [--seconds 25] [--only web,children,burst,memory,logins]

Each part starts its own ``dab-server`` from ``--tree`` (default: this checkout), so
``benchmarks/compare_commits.py --only gateways`` measures an older commit beside this
one in the same run. The hostile peers run in processes of their own.

* **web**: an honest tab (100x30, in a lobby of three tables) presses cursor keys, each
  timed to the next frame of its screen, while a TCP player pings the game server every
  50 ms; first quiet, then while five tabs from one address flood resizes and keys for
  ``--seconds`` (``tests/web/flood_tabs.py``). Printed: key -> frame median and p90, ping
  p99, and the game loop's lag p99 and max (the server's ``stats``), quiet and flooded.
* **children**: 20 crafted tabs that open a 500x200 terminal, flood resizes and close;
  the server's child processes 30 s later (every client should have gone).
* **burst**: 30 tabs from 30 loopback addresses sign in and open at once (the default
  limit of 20 tabs): how many are admitted.
* **memory**: an SSH session that asks for a 65535x65535 terminal: its client's memory
  once it shows the lobby, beside one at 80x24 (only a tree that clamps sizes; without a
  clamp that client would ask for ~48 GB).
* **logins**: a TCP player's ping p99 while one address floods the SSH gateway with
  failing logins (8 at a time, for ``--seconds``), and how many of them got as far as the
  key exchange, beside the quiet ping.

Loopback only; stops by itself. Figures end in ``SUMMARY`` lines.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "web")]

from protocol import messages as m  # noqa: E402
import reaping  # noqa: E402
from scripted import ScriptedClient  # noqa: E402
from web_helpers import aiohttp, browser, key_to_frame, screen_of, sign_in  # noqa: E402

FLOOD = ROOT / "tests" / "web" / "flood_tabs.py"
LISTENING = re.compile(r"Down and Back server listening on \S+:(\d+)")
BROWSERS = re.compile(r"browsers: (http://\S+)")
SSH_PORT = re.compile(r"SSH gateway listening on \S+:(\d+)")


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


class Served:
    """A ``dab-server`` of ``tree`` on loopback, its log read for its ports."""

    def __init__(self, tree: Path, scratch: Path, *extra: str) -> None:
        self.log_path = scratch / f"server-{time.monotonic_ns()}.log"
        self._log = open(self.log_path, "wb")
        env = dict(os.environ, PYTHONPATH=str(tree))
        self.proc = subprocess.Popen([sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0",
                                      "--memory", "--bot-delay", "0", "--turn-timeout", "300", *extra],
                                     cwd=tree, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 30
        wanted = [LISTENING] + ([BROWSERS] if "--web-port" in extra else []) + \
            ([SSH_PORT] if "--ssh-port" in extra else [])
        while not all(p.search(self.log()) for p in wanted):
            if self.proc.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"the server did not start:\n{self.log()}")
            time.sleep(0.05)
        text = self.log()
        self.game_port = int(LISTENING.search(text).group(1))
        self.url = BROWSERS.search(text).group(1) if "--web-port" in extra else ""
        self.ssh_port = int(SSH_PORT.search(text).group(1)) if "--ssh-port" in extra else 0

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def children(self) -> list[int]:
        found = subprocess.run(["pgrep", "-P", str(self.proc.pid)], capture_output=True, text=True).stdout
        return [int(pid) for pid in found.split()]

    def stop(self) -> None:
        """Stop the server; what it leaves behind (an older tree's leaked clients, init's once the server has
        gone) is killed, and said."""
        try:
            killed = reaping.stop(self.proc, wait=20)
        finally:
            self._log.close()
        if killed:
            print(f"({len(killed)} processes of the server outlived it: killed)", flush=True)


async def pinging(client: ScriptedClient, pings: list[float], stop: asyncio.Event) -> None:
    while not stop.is_set():
        began = time.monotonic()
        await client.request(m.Ping)
        pings.append(time.monotonic() - began)
        await asyncio.sleep(0.05)


async def honest_phase(served: Served, tabs: int, seconds: float) -> dict[str, float]:
    """The honest tab's key -> frame and a player's pings for ``seconds``, with ``tabs`` flooding (0: quiet)."""
    url = served.url
    async with browser(url) as http, ScriptedClient(served.game_port, "Pinger") as pinger, \
            ScriptedClient(served.game_port, "Hal") as hal, ScriptedClient(served.game_port, "Hugh") as hugh:
        for i, creator in enumerate((pinger, hal, hugh)):
            await creator.request(m.CreateTable, name=f"Table {i}", settings=m.TableSettings(seats=2))
        _, address = await sign_in(http, url, "Honest")
        async with http.ws_connect(address + "?width=100&height=30") as honest:
            await screen_of(honest, until="Table 2")
            flooder = None
            if tabs:
                flooder = await asyncio.create_subprocess_exec(sys.executable, str(FLOOD), url, str(tabs),
                                                               str(seconds + 5), stdout=asyncio.subprocess.PIPE)
                line = await asyncio.wait_for(flooder.stdout.readline(), 120)
                assert line == b"flooding\n", line
                await asyncio.sleep(2)  # under way
            pings: list[float] = []
            stop = asyncio.Event()
            ping_task = asyncio.create_task(pinging(pinger, pings, stop))
            latencies = []
            end = time.monotonic() + seconds
            keys = ["\x1b[B", "\x1b[A"]
            while time.monotonic() < end:
                latencies.append(await key_to_frame(honest, keys[len(latencies) % 2]))
                await asyncio.sleep(0.2)
            stop.set()
            await ping_task
            lag = await pinger.request(m.Stats)
            if flooder is not None:
                flooder.kill()
                await flooder.wait()
    return {"key_median": statistics.median(latencies), "key_p90": pct(latencies, 0.9), "key_max": max(latencies),
            "ping_p99": pct(pings, 0.99), "lag_p99": lag["lag_p99_ms"] / 1000, "lag_max": lag["lag_max_ms"] / 1000,
            "samples": len(latencies)}


def web_part(tree: Path, scratch: Path, seconds: float) -> None:
    options = ("--web-port", "0", "--web-max-per-address", "20", "--new-players-per-hour", "100")
    results = {}
    for label, tabs in (("quiet", 0), ("flooded", 5)):
        served = Served(tree, scratch, *options)
        try:
            results[label] = asyncio.run(honest_phase(served, tabs, seconds))
        finally:
            served.stop()
    quiet, flooded = results["quiet"], results["flooded"]
    for label, figures in results.items():
        print(f"web {label:>7}: honest tab key -> frame median {figures['key_median'] * 1000:.0f} ms, p90 "
              f"{figures['key_p90'] * 1000:.0f} ms, max {figures['key_max'] * 1000:.0f} ms ({figures['samples']}); "
              f"ping p99 {figures['ping_p99'] * 1000:.1f} ms; loop lag p99 {figures['lag_p99'] * 1000:.1f} ms, "
              f"max {figures['lag_max'] * 1000:.1f} ms")
    print(f"web flood / quiet: key -> frame median {flooded['key_median'] / quiet['key_median']:.2f}x, "
          f"loop lag p99 {flooded['lag_p99'] / max(quiet['lag_p99'], 1e-4):.2f}x")
    print(f"SUMMARY web_key_frame_quiet_ms={quiet['key_median'] * 1000:.0f} "
          f"web_key_frame_flooded_ms={flooded['key_median'] * 1000:.0f} "
          f"web_lag_p99_quiet_ms={quiet['lag_p99'] * 1000:.1f} web_lag_p99_flooded_ms={flooded['lag_p99'] * 1000:.1f} "
          f"web_ping_p99_flooded_ms={flooded['ping_p99'] * 1000:.1f}")


async def flood_and_close(http, url: str, name: str) -> None:
    status, address = await sign_in(http, url, name)
    if status != 200:
        raise RuntimeError(f"{name}: {address}")
    socket = await http.ws_connect(address + "?width=500&height=200")
    await socket.receive(timeout=60)

    async def flood() -> None:
        for i in range(30000):
            await socket.send_str(json.dumps(["resize", {"width": 500 - i % 2, "height": 200}]))

    try:
        await asyncio.wait_for(flood(), 3)
    except asyncio.TimeoutError:
        pass
    try:
        await asyncio.wait_for(socket.close(), 1)
    except asyncio.TimeoutError:
        pass


def children_part(tree: Path, scratch: Path) -> None:
    served = Served(tree, scratch, "--web-port", "0", "--web-max-per-address", "20", "--new-players-per-hour", "100")

    async def crafted() -> None:
        for batch in range(4):
            async with browser(served.url) as http:
                await asyncio.gather(*(flood_and_close(http, served.url, f"F{batch}x{i}") for i in range(5)))

    try:
        asyncio.run(crafted())
        deadline = time.monotonic() + 30
        while served.children() and time.monotonic() < deadline:
            time.sleep(0.2)
        left = len(served.children())
    finally:
        served.stop()
    print(f"web: server's child processes 30 s after 20 crafted close-while-flooding tabs: {left}")
    print(f"SUMMARY web_children_left={left}")


def burst_part(tree: Path, scratch: Path) -> None:
    served = Served(tree, scratch, "--web-port", "0", "--new-players-per-hour", "100")

    async def one(i: int) -> str:
        connector = aiohttp.TCPConnector(local_addr=(f"127.0.0.{i + 2}", 0))
        async with browser(served.url, connector=connector) as http:
            status, address = await sign_in(http, served.url, f"Burst{i}")
            if status != 200:
                return address
            async with http.ws_connect(address + "?width=100&height=30") as socket:
                return await screen_of(socket)

    async def burst() -> list[str]:
        return await asyncio.gather(*(one(i) for i in range(30)))

    try:
        screens = asyncio.run(burst())
    finally:
        served.stop()
    admitted = sum("lobby" in s for s in screens)
    told = sum("as many browser players" in s for s in screens)
    print(f"web: a burst of 30 tabs from 30 addresses, limit 20: {admitted} admitted, {told} told the server is full")
    print(f"SUMMARY web_burst_admitted={admitted} web_burst_limit=20")


def rss_mb(pid: int) -> float:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / 1024
    return float("nan")


async def ssh_session_memory(served: Served, size: tuple[int, int]) -> float:
    import asyncssh

    async with asyncssh.connect("127.0.0.1", served.ssh_port, username=f"m{size[0]}", password="x",
                                known_hosts=None, client_keys=None, agent_path=None) as conn:
        process = await conn.create_process(term_type="xterm", term_size=size, encoding=None)
        seen = b""
        deadline = time.monotonic() + 120
        while b"lobby" not in seen and time.monotonic() < deadline:
            seen += await asyncio.wait_for(process.stdout.read(1 << 20), 120)
        await asyncio.sleep(1)
        (client,) = served.children()
        return rss_mb(client)


def memory_part(tree: Path, scratch: Path) -> None:
    clamps = (tree / "server" / "gateway.py").exists()
    sizes = [(80, 24)] + ([(65535, 65535)] if clamps else [])
    for size in sizes:
        served = Served(tree, scratch, "--ssh-port", "0")
        try:
            mb = asyncio.run(ssh_session_memory(served, size))
        finally:
            served.stop()
        print(f"ssh: a session that asked for {size[0]}x{size[1]}: its client holds {mb:.0f} MB")
        print(f"SUMMARY ssh_rss_{size[0]}x{size[1]}_mb={mb:.0f}")
    if not clamps:
        print("ssh: 65535x65535 not measured: this tree does not clamp sizes (its client would ask for ~48 GB)")


LOGIN_FLOOD = r"""
import asyncio, sys, time
import asyncssh

async def attempt(port):
    # True if the login got as far as being refused (a key exchange and an authentication)
    try:
        conn = await asyncio.wait_for(asyncssh.connect("127.0.0.1", port, username="x", password="wrong",
                                      known_hosts=None, client_keys=None, agent_path=None), 10)
        conn.close()
    except asyncssh.PermissionDenied:
        return True
    except Exception:
        pass
    return False

async def main(port, seconds):
    end = time.monotonic() + seconds
    counts = [0, 0]
    async def worker():
        while time.monotonic() < end:
            counts[await attempt(port)] += 1
    await asyncio.gather(*(worker() for _ in range(8)))
    print(counts[0] + counts[1], counts[1])

asyncio.run(main(int(sys.argv[1]), float(sys.argv[2])))
"""


async def login_phase(served: Served, seconds: float, flood: bool) -> tuple[float, int, int]:
    flooder = None
    if flood:
        flooder = await asyncio.create_subprocess_exec(sys.executable, "-c", LOGIN_FLOOD, str(served.ssh_port),
                                                       str(seconds + 1), stdout=asyncio.subprocess.PIPE)
        await asyncio.sleep(1)
    async with ScriptedClient(served.game_port, "Pinger") as pinger:
        pings: list[float] = []
        stop = asyncio.Event()
        task = asyncio.create_task(pinging(pinger, pings, stop))
        await asyncio.sleep(seconds)
        stop.set()
        await task
    attempts = refused = 0
    if flooder is not None:
        out, _ = await flooder.communicate()
        attempts, refused = (int(n) for n in out.split())
    return pct(pings, 0.99), attempts, refused


def logins_part(tree: Path, scratch: Path, seconds: float) -> None:
    figures = {}
    for label, flood in (("quiet", False), ("flooded", True)):
        served = Served(tree, scratch, "--ssh-port", "0", "--no-ssh-guests")
        try:
            figures[label] = asyncio.run(login_phase(served, seconds, flood))
        finally:
            served.stop()
    (quiet, _, _), (flooded, attempts, refused) = figures["quiet"], figures["flooded"]
    print(f"ssh login flood ({attempts} failing logins from one address in {seconds:.0f} s, 8 at a time; {refused} "
          f"got as far as a key exchange): another player's ping p99 {flooded * 1000:.1f} ms (quiet "
          f"{quiet * 1000:.1f} ms)")
    print(f"SUMMARY ssh_login_flood_ping_p99_ms={flooded * 1000:.1f} ssh_quiet_ping_p99_ms={quiet * 1000:.1f} "
          f"ssh_login_attempts={attempts} ssh_login_key_exchanges={refused}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--tree", type=Path, default=ROOT, help="the checkout whose server runs (default: this one)")
    parser.add_argument("--seconds", type=float, default=25.0, help="length of each flood (default 25)")
    parser.add_argument("--only", default="web,children,burst,memory,logins")
    args = parser.parse_args()
    tree = args.tree.resolve()
    parts = args.only.split(",")
    print(f"gateways of {tree}; load {', '.join(f'{x:.1f}' for x in os.getloadavg())} on {os.cpu_count()} CPUs")
    with tempfile.TemporaryDirectory() as scratch:
        if "web" in parts:
            web_part(tree, Path(scratch), args.seconds)
        if "children" in parts:
            children_part(tree, Path(scratch))
        if "burst" in parts:
            burst_part(tree, Path(scratch))
        if "memory" in parts:
            memory_part(tree, Path(scratch))
        if "logins" in parts:
            logins_part(tree, Path(scratch), args.seconds)
    print(f"after: load {', '.join(f'{x:.1f}' for x in os.getloadavg())}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
