"""No client outlives its SSH session, however the session ends: 20 of them, counted as the server's children."""

from __future__ import annotations

import os
import signal

import pytest

from relay import CuttableRelay
from ssh_helpers import Server, Tmux, make_key, needs_openssh, wait_until

pytestmark = needs_openssh

ROUNDS = 4
ENDINGS = ("quit", "ssh killed", "network cut", "ssh killed at once", "network cut at once")
PER_ADDRESS = len(ENDINGS)  # a slot that leaked would refuse the next round's sessions


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().rsplit(")", 1)[1].split()[0] != "Z"
    except FileNotFoundError:
        return False


@pytest.fixture
def setup(tmp_path):
    server = Server(tmp_path / "data", "--ssh-max-per-address", str(PER_ADDRESS))
    proxy = CuttableRelay(server.ssh_port)
    tmux = Tmux("processes")
    key = make_key(tmp_path, "k")
    yield server, proxy, tmux, key
    tmux.close()
    proxy.close()
    server.stop()


def test_twenty_sessions_ending_every_way_leave_no_process(setup):
    server, proxy, tmux, key = setup
    clients: set[int] = set()
    connections = 0
    for round_no in range(ROUNDS):
        windows = {}
        for ending in ENDINGS:
            name = f"r{round_no}-{ENDINGS.index(ending)}"
            via_proxy = ending.startswith("network cut")
            command = server.ssh(key if ending == "quit" else None, f"p{name}", "-tt",
                                 port=proxy.port if via_proxy else None)
            tmux.start(name, command, linger=False)
            windows[name] = (ending, connections if via_proxy else None)
            connections += via_proxy
        before = set(clients)
        wait_until(lambda: len(server.children()) == len(ENDINGS), what="a client per session")
        clients.update(server.children())
        assert len(clients) == len(before) + len(ENDINGS)
        for name, (ending, connection) in windows.items():
            if not ending.endswith("at once"):
                tmux.wait_for(name, f"as p{name}")  # the lobby is painted: the session is in full flow
            if ending == "quit":
                tmux.keys(name, "C-q")
            elif ending.startswith("ssh killed"):
                os.kill(tmux.pid(name), signal.SIGKILL)
            else:
                proxy.cut(connection)
        wait_until(lambda: not server.children(), timeout=15, what="every client of the round to exit")
    assert not [pid for pid in clients if alive(pid)]
    assert server.proc.poll() is None and "Traceback" not in server.log()
