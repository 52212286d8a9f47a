"""Every process a test's or a benchmark's server started goes with it, even when the test fails or the server
under test leaks its clients (an older commit measured beside this one, a regression).

A gateway's clients run in sessions of their own, so they are not in the server's process group; once the
server has gone they are the init process's, and ``pgrep -P SERVER`` no longer finds them. So the server's
descendants are listed while it still runs (:func:`kin`), and whichever of them outlived it are killed, with
their process groups (:func:`reap`)."""

from __future__ import annotations

import os
import signal
import subprocess
from pathlib import Path


def _stat(pid: int) -> tuple[int, int] | None:
    """(parent pid, start time) of ``pid``, or None if it has gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    fields = text[text.rindex(")") + 2:].split()  # (the command's name may hold spaces and parentheses)
    return int(fields[1]), int(fields[19])


def kin(pid: int) -> dict[int, int]:
    """The descendants of ``pid`` now: each one's pid and start time (so that a reused pid is never killed)."""
    parents: dict[int, list[int]] = {}
    started: dict[int, int] = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))) is not None:
            parents.setdefault(stat[0], []).append(int(entry))
            started[int(entry)] = stat[1]
    found: dict[int, int] = {}
    todo = list(parents.get(pid, []))
    while todo:
        child = todo.pop()
        if child not in found and child in started:
            found[child] = started[child]
            todo.extend(parents.get(child, []))
    return found


def reap(processes: dict[int, int]) -> list[int]:
    """Kill (SIGKILL) those of ``processes`` (from :func:`kin`) that are still there, each with its process group if
    it leads one; the pids that were still there."""
    left = []
    for pid, started in processes.items():
        stat = _stat(pid)
        if stat is None or stat[1] != started:
            continue
        left.append(pid)
        try:
            if os.getpgid(pid) == pid:
                os.killpg(pid, signal.SIGKILL)
            else:
                os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return left


def stop(proc: subprocess.Popen, wait: float = 15) -> list[int]:
    """Stop the server ``proc`` (SIGTERM, then SIGKILL after ``wait`` seconds) and kill whatever it had started
    that outlived it (:func:`reap`): the pids killed so."""
    left = kin(proc.pid) if proc.poll() is None else {}
    try:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(wait)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
    finally:
        killed = reap(left)
    return killed


def _cmdline(pid: int) -> bytes:
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:  # gone
        return b""


def _children(pid: int) -> list[int]:
    found = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout
    return [int(child) for child in found.split()]


def fork_server(pid: int) -> int | None:
    """The session-client fork server of the server ``pid`` (its child running client_zygote.py), if any."""
    return next((child for child in _children(pid) if b"client_zygote.py" in _cmdline(child)), None)


def session_clients(pid: int) -> list[int]:
    """The clients the server ``pid`` runs for its SSH sessions and browser tabs: the children of its fork
    server, and those it exec'd itself (its history worker and the fork server itself left out)."""
    clients = []
    for child in _children(pid):
        command = _cmdline(child)
        if b"client_zygote.py" in command:
            clients.extend(_children(child))
        elif b"server.history_worker" not in command:
            clients.append(child)
    return clients
