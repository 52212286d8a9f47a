"""SSH gateway at scale (issue 30): session starts, memory, idle cost, and hundreds of sessions held while a
game plays, for the fork server's sessions and for the exec path's, in the same run.

    python benchmarks/bench_ssh.py [--sessions 300] [--exec-sessions 60] [--starts 20] [--rounds 3]
                                   [--paths fork,exec] [--idle 30]

For each path (``dab-server --session-clients fork`` / ``exec``), a real server
with its SSH gateway on loopback, real OpenSSH clients in tmux:

1. **Start**: ``--starts`` sessions one after another, each timed to the lobby on
   its screen (tmux) from its client's start (``/proc`` start time, 10 ms steps:
   the SSH handshake and authentication are done by then), and from launching
   ``ssh``; beside them, ssh alone (no terminal asked: refused at once).
2. **Idle**: one session seated at a Cribbage table whose other player (a
   scripted TCP client) never acts: the session makes its own decisions by keys
   until it waits on the other, its countdown ticking; read through pyte in a
   pseudo-terminal: its client's CPU
   (/proc) and the bytes its terminal receives, per minute, over ``--idle`` s; and
   a lobby session's CPU.
3. **Held**: ``--sessions`` (exec path: ``--exec-sessions``, its clients cost
   ~80 MB each) SSH sessions at once, half seated each at a table of its own
   with a bot and a scripted host that starts the game and never acts (these
   first), half in the lobby, arriving 25 at a time. Their memory: PSS and USS per client (``/proc/PID/smaps_rollup``),
   medians, lobby and seated. While they are held, 4 scripted TCP players play
   ``--rounds`` rounds at two tables: each action timed to that player's next view
   (p50, p99). Every lobby screen must show a table created meanwhile, and every
   seated screen a chat line said meanwhile: the slowest screen's delay (swept,
   so up to a sweep's time late). Refused: sessions that never reached their
   lobby or table. Then every ssh is killed: leftover = clients still running 20 s
   later.

Each path ends with one ``SUMMARY`` line (``path=fork`` / ``path=exec``)::

    SUMMARY path=fork sessions=N start_p50_ms=... start_p90_ms=... pss_lobby_mb=... pss_seated_mb=...
        idle_seated_cpu_s_min=... idle_seated_kb_min=... tcp_p99_ms=... refused=... leftover=...

Loopback only; stops by itself; needs ssh, ssh-keygen and tmux.
"""

from __future__ import annotations

import argparse
import asyncio
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT), str(ROOT / "tests"), str(ROOT / "tests" / "ssh"), str(ROOT / "tests" / "e2e")]

from engine.games.down_and_back.bots import baseline_action  # noqa: E402
from evening_helpers import Terminal, play_until  # noqa: E402
from protocol import messages as m  # noqa: E402
from scripted import ScriptedClient  # noqa: E402
from ssh_helpers import Server, Tmux, make_key, wait_until  # noqa: E402

SETTLE = 2.0
BATCH = 25  # sessions started at once while the held ones arrive


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


def memory(pid: int) -> tuple[float, float] | None:
    """(PSS, USS) in MB of one process, or None if it has gone."""
    try:
        text = Path(f"/proc/{pid}/smaps_rollup").read_text()
    except OSError:
        return None
    fields = {line.split(":")[0]: int(line.split()[1]) for line in text.splitlines()[1:] if line.split()[1].isdigit()}
    return fields["Pss"] / 1024, (fields.get("Private_Clean", 0) + fields.get("Private_Dirty", 0)) / 1024


def session_name(pid: int) -> str | None:
    """The player a session's client plays as: a forked client's name is in its /proc comm ("dab NAME"),
    an exec'd one's on its command line (--name NAME)."""
    try:
        comm = Path(f"/proc/{pid}/comm").read_text().strip()
        argv = Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace").split("\0")
    except OSError:
        return None
    if comm.startswith("dab "):
        return comm[4:]
    if "--name" in argv:
        return argv[argv.index("--name") + 1]
    return next((arg.split("=", 1)[1] for arg in argv if arg.startswith("--name=")), None)


def pct(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(q * len(ordered)))] if ordered else float("nan")


def settle(pid: int, limit: float = 60.0) -> None:
    """Until the process is at rest (a table's first paint warms the hand helper's tables when not forked)."""
    deadline = time.monotonic() + limit
    while time.monotonic() < deadline:
        before = cpu_seconds([pid])
        time.sleep(SETTLE)  # sampling its rest
        if cpu_seconds([pid]) - before <= 0.01:
            return


def new_client(server: Server, known: set[int]) -> int:
    found = wait_until(lambda: set(server.children()) - known, what="the session's client")
    (pid,) = found
    return pid


# ---------------------------------------------------------------------------- 1. starts


def started_at(pid: int) -> float:
    """When the process started, on CLOCK_BOOTTIME (its /proc start time: 10 ms steps)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return int(fields[19]) / os.sysconf("SC_CLK_TCK")


def starts(server: Server, tmux: Tmux, key: Path, count: int) -> tuple[list[float], list[float], list[float]]:
    """Each session's start to its lobby on its screen: from launching ssh, and from its client's start (the
    SSH handshake and authentication done, the gateway's admission and the fork or exec included); and a
    refused session's whole life (ssh without a terminal: the handshake, authentication, the refusal)."""
    total, client, ssh_alone = [], [], []
    for i in range(count):
        name = f"s{i}"
        known = set(server.children())
        began = time.perf_counter()
        tmux.start(name, server.ssh(key, name, "-tt"), linger=False)
        pid = None
        while True:
            if pid is None and (new := set(server.children()) - known):
                (pid,) = new
                born = started_at(pid)
            if f"as {name}" in tmux.screen(name):
                painted, done = time.clock_gettime(time.CLOCK_BOOTTIME), time.perf_counter()
                break
            if time.perf_counter() - began > 60:
                raise AssertionError(f"session {name} never showed its lobby")
        if pid is None:
            (pid,) = set(server.children()) - known
            born = started_at(pid)
        total.append(done - began)
        client.append(painted - born)
        tmux.kill(name)
        began = time.perf_counter()
        subprocess.run(server.ssh(key, name, "-T"), capture_output=True, timeout=60)
        ssh_alone.append(time.perf_counter() - began)
    wait_until(lambda: not server.children(), timeout=30, what="the start sessions' clients to go")
    return total, client, ssh_alone


# ---------------------------------------------------------------------------- 2. idle


async def idle(server: Server, seconds: float) -> dict[str, float]:
    """A seated session (its host never acts) and a lobby session, through ssh in pseudo-terminals."""
    figures: dict[str, float] = {}
    async with ScriptedClient(server.game_port, "IdleHost") as host:
        table_id = (await host.request(m.CreateTable, name="idle table",  # (Cribbage: no helper tables to warm)
                                       settings=m.TableSettings(game="cribbage", seats=2)))["table_id"]
        known = set(server.children())
        seated = Terminal(server.ssh(None, "idler", "-tt", command=table_id), size=(80, 24), name="idler")
        try:
            client = await asyncio.to_thread(new_client, server, known)
            await asyncio.to_thread(seated.wait_for, "idle table", 60)
            await host.wait_for(lambda: host.facts and len(host.table["members"]) >= 2)
            await host.request(m.Start)

            def waiting_on_host() -> bool:  # the host's turn alone, and the session's screen counting it down
                view = host.views.get(table_id) or {}
                return view.get("to_act") == [host.table["seat"]] and "IdleHost ⏱" in seated.text()

            # The session makes its own decisions by keys until it is the host's turn, which never ends.
            await asyncio.to_thread(play_until, [seated], "cribbage", waiting_on_host, 60.0, "the host's turn")
            await asyncio.to_thread(settle, client)
            cpu, size, began = cpu_seconds([client]), len(seated.output), time.monotonic()
            await asyncio.sleep(seconds)  # idling is what is measured
            spent = time.monotonic() - began
            figures["seated_cpu"] = (cpu_seconds([client]) - cpu) * 60 / spent
            figures["seated_kb"] = (len(seated.output) - size) / 1024 * 60 / spent
        finally:
            seated.close()
    known = set(server.children())
    lobby = Terminal(server.ssh(None, "lounger", "-tt"), size=(80, 24), name="lounger")
    try:
        client = await asyncio.to_thread(new_client, server, known)
        await asyncio.to_thread(lobby.wait_for, "as lounger", 60)
        await asyncio.to_thread(settle, client)
        cpu, size, began = cpu_seconds([client]), len(lobby.output), time.monotonic()
        await asyncio.sleep(seconds)
        spent = time.monotonic() - began
        figures["lobby_cpu"] = (cpu_seconds([client]) - cpu) * 60 / spent
        figures["lobby_kb"] = (len(lobby.output) - size) / 1024 * 60 / spent
    finally:
        lobby.close()
    await asyncio.to_thread(wait_until, lambda: not server.children(), 30, "the idle sessions' clients to go")
    return figures


# ---------------------------------------------------------------------------- 3. held


async def play(game_port: int, rounds: int) -> list[float]:
    """Four scripted players at two tables: each action timed to the actor's next view."""
    latencies: list[float] = []

    async def table(n: int) -> None:
        async with ScriptedClient(game_port, f"Bench{n}A") as a, ScriptedClient(game_port, f"Bench{n}B") as b:
            table_id = (await a.request(m.CreateTable, name=f"bench {n}"))["table_id"]
            await b.request(m.Join, table_id=table_id)
            await a.request(m.Start)
            deadline = time.monotonic() + 300
            while time.monotonic() < deadline:
                for client in (a, b):
                    view = client.views.get(table_id)
                    if view and view.get("round", 0) > rounds:
                        return
                    if view and view.get("legal"):
                        seen = len(client.all_views)
                        action = baseline_action(view).to_data()  # decided before the clock starts
                        sent = time.perf_counter()
                        try:
                            await client.act(action)
                        except Exception:  # noqa: BLE001 (a stale view: the next one decides)
                            continue
                        await client.wait_for(lambda c=client, s=seen: len(c.all_views) > s)
                        latencies.append(time.perf_counter() - sent)
                await asyncio.sleep(0.01)  # a bench loop: poll both players' turns

    await asyncio.gather(table(1), table(2))
    return latencies


def sweep_until(tmux: Tmux, names: list[str], text: str, timeout: float = 60.0) -> tuple[float, int]:
    """Seconds until every window of ``names`` shows ``text`` (swept one by one), and how many never did."""
    began, left = time.perf_counter(), set(names)
    while left and time.perf_counter() - began < timeout:
        for name in list(left):
            try:
                if text in tmux.screen(name):
                    left.discard(name)
            except Exception:  # noqa: BLE001 (a window gone: counted as never)
                pass
    return time.perf_counter() - began, len(left)


async def held(server: Server, tmux: Tmux, count: int, rounds: int) -> dict[str, Any]:
    lobby_names = [f"l{i}" for i in range(count - count // 2)]
    seated_names = [f"t{i}" for i in range(count // 2)]
    hosts: list[ScriptedClient] = []
    figures: dict[str, Any] = {}
    try:
        def reached(name: str, text: str) -> bool:
            try:
                return text in tmux.screen(name)
            except Exception:  # noqa: BLE001
                return False

        async def arrive(waiting: dict[str, str], deadline: float) -> None:
            while waiting and time.monotonic() < deadline:
                for name, text in list(waiting.items()):
                    if reached(name, text):
                        del waiting[name]
                await asyncio.sleep(0.2)

        # The seated first, their games started, then the lobby sessions: a lobby is sent every change of the
        # table list, and 150 tables made and started under 150 lobbies would measure that, not sessions held.
        # Sessions arrive BATCH at a time (each batch on its screens before the next): a few hundred handshakes
        # at once in the gateway's one thread would outlast --ssh-auth-timeout, which is not what is measured.
        began = time.perf_counter()
        tables: dict[str, tuple[ScriptedClient, str]] = {}
        seated_waiting: dict[str, str] = {}
        for first in range(0, len(seated_names), BATCH):
            batch = {}
            for name in seated_names[first:first + BATCH]:
                host = ScriptedClient(server.game_port, f"H{name}")
                await host.__aenter__()
                hosts.append(host)
                table_id = (await host.request(m.CreateTable, name=f"table {name}"))["table_id"]
                await host.request(m.AddBot)
                tables[name] = (host, table_id)
                tmux.start(name, server.ssh(None, name, "-tt", command=table_id), linger=False)
                batch[name] = f"table {name}"
            await arrive(batch, time.monotonic() + 120)
            seated_waiting.update(batch)
        for name, (host, table_id) in tables.items():
            if name not in seated_waiting:
                await host.wait_for(lambda h=host: h.facts and len(h.table["members"]) >= 3, timeout=30)
                await host.request(m.Start)
        lobby_waiting: dict[str, str] = {}
        for first in range(0, len(lobby_names), BATCH):
            batch = {}
            for name in lobby_names[first:first + BATCH]:
                tmux.start(name, server.ssh(None, name, "-tt"), linger=False)
                batch[name] = f"as {name}"
            await arrive(batch, time.monotonic() + 120)
            lobby_waiting.update(batch)
        waiting = seated_waiting | lobby_waiting
        figures["refused"] = len(waiting)
        figures["up_s"] = time.perf_counter() - began
        await asyncio.sleep(5)  # the seated sessions' first table paint (a bench's pause before measuring)
        clients = server.children()
        names = {pid: session_name(pid) for pid in clients}
        lobby_pids = [pid for pid in clients if names[pid] in lobby_names]
        seated_pids = [pid for pid in clients if names[pid] in seated_names]
        lobby_memory = [x for x in map(memory, lobby_pids) if x]
        seated_memory = [x for x in map(memory, seated_pids) if x]
        figures["pss_lobby"] = statistics.median(p for p, _ in lobby_memory) if lobby_memory else float("nan")
        figures["uss_lobby"] = statistics.median(u for _, u in lobby_memory) if lobby_memory else float("nan")
        figures["pss_seated"] = statistics.median(p for p, _ in seated_memory) if seated_memory else float("nan")
        figures["uss_seated"] = statistics.median(u for _, u in seated_memory) if seated_memory else float("nan")
        figures["clients"] = len(clients)
        figures["load"] = os.getloadavg()[0]
        before = cpu_seconds([server.proc.pid]), cpu_seconds(clients), time.perf_counter()
        latencies = await play(server.game_port, rounds)
        spent = time.perf_counter() - before[2]
        figures["tcp"] = latencies
        figures["server_cpu"] = (cpu_seconds([server.proc.pid]) - before[0]) / spent
        figures["clients_cpu"] = (cpu_seconds(clients) - before[1]) / spent
        # Updates: a new table on every lobby screen; a chat line on every seated screen.
        async with ScriptedClient(server.game_port, "Newsie") as newsie:
            await newsie.request(m.CreateTable, name="fresh news")
            figures["lobby_update_s"], figures["lobby_missed"] = await asyncio.to_thread(
                sweep_until, tmux, [n for n in lobby_names if n not in waiting], "fresh news")
        for host, _ in tables.values():
            await host.request(m.Chat, text="hello all")
        figures["seated_update_s"], figures["seated_missed"] = await asyncio.to_thread(
            sweep_until, tmux, [n for n in seated_names if n not in waiting], "hello all")
    finally:
        for name in lobby_names + seated_names:
            try:
                os.kill(tmux.pid(name), 9)
            except Exception:  # noqa: BLE001 (its window has gone already)
                pass
        for host in hosts:
            await host.__aexit__(None, None, None)
    try:
        await asyncio.to_thread(wait_until, lambda: not server.children(), 20, "every client to exit")
    except AssertionError:
        pass
    figures["leftover"] = len(server.children())
    return figures


# ---------------------------------------------------------------------------- a path


def run_path(path: str, args: argparse.Namespace, tmp: Path) -> dict[str, Any]:
    sessions = args.sessions if path == "fork" else args.exec_sessions
    server = Server(tmp / path, "--session-clients", path, "--memory",
                    "--ssh-max-sessions", str(sessions + 20), "--ssh-max-per-address", str(sessions + 20),
                    "--new-players-per-hour", str(10 * sessions + 100), "--ssh-login-rate", str(sessions),
                    "--max-connections", str(4 * sessions + 100), "--max-per-address", str(4 * sessions + 100),
                    "--round-pause", "0.2", "--turn-timeout", "600", "--bot-delay", "0.6", "--seed-window", "0.05")
    tmux = Tmux(f"bench-{path}")
    key = make_key(tmp, f"k-{path}")
    figures: dict[str, Any] = {"path": path, "sessions": sessions}
    try:
        if path == "fork":
            wait_until(lambda: "forked by the fork server" in server.log(), 60, "the fork server")
        total, times, ssh_alone = starts(server, tmux, key, args.starts)
        figures["start_p50"], figures["start_p90"] = statistics.median(times) * 1000, pct(times, 0.9) * 1000
        print(f"[{path}] session start (its client started: authentication done) -> lobby painted ({len(times)}): "
              f"median {figures['start_p50']:.0f} ms, p90 {figures['start_p90']:.0f} ms; from launching ssh: median "
              f"{statistics.median(total) * 1000:.0f} ms, p90 {pct(total, 0.9) * 1000:.0f} ms (ssh alone, refused "
              f"for want of a terminal: median {statistics.median(ssh_alone) * 1000:.0f} ms); "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
        figures.update(asyncio.run(idle(server, args.idle)))
        print(f"[{path}] idle: seated {figures['seated_cpu']:.3f} CPU-s/min, {figures['seated_kb']:.2f} KB/min; "
              f"lobby {figures['lobby_cpu']:.3f} CPU-s/min, {figures['lobby_kb']:.2f} KB/min; "
              f"load {os.getloadavg()[0]:.1f}", flush=True)
        figures.update(asyncio.run(held(server, tmux, sessions, args.rounds)))
        tcp = figures["tcp"]
        print(f"[{path}] {sessions} SSH sessions up in {figures['up_s']:.0f} s ({figures['refused']} never "
              f"reached their screen), {figures['clients']} clients; load {figures['load']:.1f}", flush=True)
        print(f"[{path}] memory per client: lobby PSS {figures['pss_lobby']:.1f} MB (USS {figures['uss_lobby']:.1f}), "
              f"seated PSS {figures['pss_seated']:.1f} MB (USS {figures['uss_seated']:.1f})", flush=True)
        print(f"[{path}] 4 TCP players meanwhile: act -> own view ({len(tcp)}): p50 {pct(tcp, 0.5) * 1000:.1f} ms, "
              f"p99 {pct(tcp, 0.99) * 1000:.1f} ms; CPU: server {figures['server_cpu']:.0%} of a core, the SSH "
              f"clients {figures['clients_cpu']:.0%}", flush=True)
        print(f"[{path}] updates: every lobby showed a new table within {figures['lobby_update_s']:.2f} s "
              f"({figures['lobby_missed']} never), every table a chat line within {figures['seated_update_s']:.2f} s "
              f"({figures['seated_missed']} never); leftover clients after hang-up: {figures['leftover']}",
              flush=True)
    finally:
        tmux.close()
        server.stop()
    return figures


def summary(f: dict[str, Any]) -> str:
    return (f"SUMMARY path={f['path']} sessions={f['sessions']} start_p50_ms={f['start_p50']:.0f} "
            f"start_p90_ms={f['start_p90']:.0f} pss_lobby_mb={f['pss_lobby']:.1f} pss_seated_mb={f['pss_seated']:.1f} "
            f"idle_seated_cpu_s_min={f['seated_cpu']:.3f} idle_seated_kb_min={f['seated_kb']:.2f} "
            f"tcp_p99_ms={pct(f['tcp'], 0.99) * 1000:.1f} refused={f['refused']} leftover={f['leftover']}")


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, default=300, help="sessions held on the fork path")
    parser.add_argument("--exec-sessions", type=int, default=60, help="sessions held on the exec path")
    parser.add_argument("--starts", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--idle", type=float, default=30.0, help="seconds of each idle measure")
    parser.add_argument("--paths", default="fork,exec")
    args = parser.parse_args()
    cpu = next((line.split(":", 1)[1].strip() for line in Path("/proc/cpuinfo").read_text().splitlines()
                if line.startswith("model name")), "?")
    print(f"machine: {os.cpu_count()} CPUs ({cpu}), "
          f"{os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2 ** 30:.0f} GB; "
          f"load {os.getloadavg()[0]:.1f} at the start", flush=True)
    results = []
    with tempfile.TemporaryDirectory(prefix="dab-bench-ssh-") as tmp:
        for path in args.paths.split(","):
            results.append(run_path(path, args, Path(tmp)))
    for figures in results:
        print(summary(figures))
    return 0


if __name__ == "__main__":
    sys.exit(main())
