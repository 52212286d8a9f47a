"""No client outlives its SSH session, however the session ends: 20 of them, counted as the server's clients
(its fork server's children); and the fork server (issue 30 item 1): a crashing client takes only its own
session, the fork server's death is survived, a browser tab's client is forked by the same one."""

from __future__ import annotations

import os
import signal

import pytest

import reaping
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
        assert {parent(pid) for pid in server.children()} == {reaping.fork_server(server.proc.pid)}  # forked
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


# ---------------------------------------------------------------------------- the session-client fork server

def parent(pid: int) -> int:
    with open(f"/proc/{pid}/stat") as stat:
        return int(stat.read().rsplit(")", 1)[1].split()[1])


def windows(tmux: Tmux) -> set[str]:
    return set(tmux.run("list-sessions", "-F", "#{session_name}").split())


def answers(tmux: Tmux, name: str) -> None:
    """The session's client still answers its keys: F1 opens the help, Escape closes it."""
    tmux.keys(name, "F1")
    tmux.wait_for(name, "This page scrolls")
    tmux.keys(name, "Escape")
    tmux.wait_for(name, f"as {name}")


def test_sessions_are_forked_and_a_crashing_one_takes_only_itself(setup):
    """Every session's client is a child of the one fork server; one that crashes (SIGSEGV) ends its own
    session alone: the other session plays on, and the fork server forks the next one."""
    server, _proxy, tmux, _key = setup  # guests: two sessions of one key would be one player
    for name in ("ann", "bob"):
        tmux.start(name, server.ssh(None, name, "-tt"), linger=False)
    for name in ("ann", "bob"):
        tmux.wait_for(name, f"as {name}")
    forks = reaping.fork_server(server.proc.pid)
    assert forks is not None and "session clients are forked by the fork server" in server.log()
    clients = server.children()
    assert len(clients) == 2 and {parent(pid) for pid in clients} == {forks}
    crashed = clients[0]
    os.kill(crashed, signal.SIGSEGV)
    wait_until(lambda: not alive(crashed), what="the crashed client to be gone")
    wait_until(lambda: len(windows(tmux) & {"ann", "bob"}) == 1, what="the crashed session's ssh to end")
    (survivor,) = windows(tmux) & {"ann", "bob"}
    answers(tmux, survivor)
    assert reaping.fork_server(server.proc.pid) == forks and alive(forks)
    tmux.start("cat", server.ssh(None, "cat", "-tt"), linger=False)
    tmux.wait_for("cat", "as cat")
    assert {parent(pid) for pid in server.children()} == {forks}
    assert server.proc.poll() is None and "Traceback" not in server.log()


def test_the_fork_servers_death_is_survived_and_hang_ups_leave_nothing(setup):
    """The fork server killed: the sessions it had forked play on, it is started again, the next session is
    forked by the new one; once everyone hangs up, no client and no fork server's child is left."""
    server, _proxy, tmux, _key = setup  # guests: two sessions of one key would be one player
    tmux.start("ann", server.ssh(None, "ann", "-tt"), linger=False)
    tmux.wait_for("ann", "as ann")
    first = reaping.fork_server(server.proc.pid)
    (ann_client,) = server.children()
    os.kill(first, signal.SIGKILL)
    wait_until(lambda: reaping.fork_server(server.proc.pid) not in (None, first), what="a new fork server")
    second = reaping.fork_server(server.proc.pid)
    assert alive(ann_client)
    answers(tmux, "ann")
    tmux.start("bob", server.ssh(None, "bob", "-tt"), linger=False)
    tmux.wait_for("bob", "as bob")
    bob_client = next(pid for pid in server.children() if pid != ann_client)
    assert parent(bob_client) == second
    tmux.keys("bob", "C-q")
    os.kill(tmux.pid("ann"), signal.SIGKILL)  # ann's ssh dies: her orphaned client is hung up
    wait_until(lambda: not alive(ann_client) and not alive(bob_client), timeout=15, what="both clients to exit")
    assert reaping.session_clients(server.proc.pid) == []
    assert "the session-client fork server ended" in server.log() and "Traceback" not in server.log()


def test_the_browser_gateway_forks_its_tabs_clients_from_the_same_fork_server(tmp_path):
    """One server with both gateways: an SSH session's client and a browser tab's are children of one fork
    server; the tab's goes when the tab closes."""
    import asyncio
    import re
    import sys
    from pathlib import Path

    sys.path.insert(0, str(Path(__file__).parents[1] / "web"))
    from web_helpers import browser, screen_of, sign_in

    server = Server(tmp_path / "data", "--web-port", "0")
    tmux = Tmux("forked-tabs")
    try:
        url = re.search(r"browsers: (http://\S+)", server.log()) or wait_until(
            lambda: re.search(r"browsers: (http://\S+)", server.log()), what="the browser gateway")
        tmux.start("ann", server.ssh(None, "ann", "-tt"), linger=False)
        tmux.wait_for("ann", "as ann")
        (ann_client,) = server.children()

        async def tab() -> None:
            async with browser(url.group(1)) as http:
                status, address = await sign_in(http, url.group(1), "Tab")
                assert status == 200
                async with http.ws_connect(address + "?width=100&height=30") as socket:
                    assert "as Tab" in await screen_of(socket, until="as Tab")
                    clients = server.children()
                    assert len(clients) == 2 and {parent(pid) for pid in clients} == {parent(ann_client)}
                    assert parent(ann_client) == reaping.fork_server(server.proc.pid)

        asyncio.run(tab())
        wait_until(lambda: server.children() == [ann_client], what="the tab's client to go with its tab")
    finally:
        tmux.close()
        server.stop()
