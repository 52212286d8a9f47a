"""Crafted SSH peers (asyncssh as a client that does what OpenSSH would not): huge and impossible terminal
sizes, many sessions on one connection, a login that opens nothing, a flood of logins, a flood of window
changes; and a ``client/`` planted where the server was started. None of them may cost the server more
than their own session, or start anything but the installed client."""

from __future__ import annotations

import asyncio
import fcntl
import os
import re
import socket
import struct
import termios
import time
from pathlib import Path

import pytest

from planted import plant_client

from ssh_helpers import Server, needs_openssh, wait_until

asyncssh = pytest.importorskip("asyncssh")
pytestmark = needs_openssh
ESCAPES = re.compile(rb"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])")


async def connect(server: Server, source: str = "127.0.0.1", user: str = "guest"):
    """A guest's connection (any password logs in as a guest) from ``source``, a loopback address."""
    return await asyncssh.connect("127.0.0.1", server.ssh_port, username=user, password="guest", known_hosts=None,
                                  client_keys=None, agent_path=None, local_addr=(source, 0))


async def lobby(process, timeout: float = 30.0, text: bytes = b"lobby") -> bytes:
    """The session's output until its client shows the lobby (or ``text``)."""
    seen = b""
    deadline = time.monotonic() + timeout
    while text not in ESCAPES.sub(b"", seen):
        left = deadline - time.monotonic()
        assert left > 0, f"no lobby: {ESCAPES.sub(b'', seen)[-500:]!r}"
        try:
            seen += await asyncio.wait_for(process.stdout.read(1 << 16), left)
        except asyncio.TimeoutError:
            continue
    return seen


def terminal_size(pid: int) -> tuple[int, int]:
    """The size of the terminal a session's client runs on (its standard input, the PTY)."""
    fd = os.open(f"/proc/{pid}/fd/0", os.O_RDONLY | os.O_NOCTTY)
    try:
        rows, columns = struct.unpack("HHHH", fcntl.ioctl(fd, termios.TIOCGWINSZ, bytes(8)))[:2]
    finally:
        os.close(fd)
    return columns, rows


@pytest.fixture
def server(tmp_path):
    server = Server(tmp_path / "data", "--ssh-auth-timeout", "2")
    yield server
    server.stop()


async def test_a_terminal_is_never_larger_than_500_by_200_first_or_after_a_change(server):
    async with await connect(server) as conn:
        process = await conn.create_process(term_type="xterm", term_size=(6000, 3000), encoding=None)
        (client,) = wait_until(server.children, what="the session's client")
        assert terminal_size(client) == (500, 200)  # from its first size on
        await lobby(process)
        process.change_terminal_size(100, 30)
        wait_until(lambda: terminal_size(client) == (100, 30), what="the new size")
        process.change_terminal_size(65535, 65535)
        wait_until(lambda: terminal_size(client) == (500, 200), what="the clamped size")
        process.change_terminal_size(90, 20)  # (a later change still applies)
        wait_until(lambda: terminal_size(client) == (90, 20), what="the last size")


async def test_sessions_are_counted_per_channel_per_connection_per_address_and_in_all(tmp_path):
    server = Server(tmp_path / "data", "--ssh-max-per-address", "2", "--ssh-max-sessions", "3")
    try:
        async with await connect(server) as first, await connect(server, "127.0.0.2") as second:
            def practice(conn):  # (a practice game each: one guest name cannot be online twice)
                return conn.create_process("practice", term_type="xterm", term_size=(80, 24), encoding=None)

            opened = [await practice(first) for _ in range(2)]  # the connection's slot, and one more: two
            with pytest.raises(asyncssh.ChannelOpenError, match="at most 2 SSH sessions from one address"):
                await practice(first)
            opened.append(await practice(second))
            with pytest.raises(asyncssh.ChannelOpenError, match="as many SSH sessions as it takes"):
                await practice(second)
            for process in opened:
                await lobby(process, text=b"(bot)")
            assert len(server.children()) == 3
    finally:
        server.stop()


async def test_a_size_no_terminal_has_is_refused_and_leaks_nothing(server):
    async with await connect(server) as conn:  # a session first: what a session holds is not counted as a leak
        process = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
        await lobby(process)
        before = server.open_files()
        for size in ((70000, 24), (80, 65536), (2 ** 32 - 1, 2 ** 32 - 1)):
            async with await connect(server) as huge:
                with pytest.raises(asyncssh.ChannelOpenError, match="PTY request failed"):
                    await huge.create_process(term_type="xterm", term_size=size, encoding=None)
        process.change_terminal_size(70000, 70000)  # a window change no terminal has: left as it was
        (client,) = server.children()
        process.change_terminal_size(99, 33)
        wait_until(lambda: terminal_size(client) == (99, 33), what="the next good size")
        wait_until(lambda: server.open_files() <= before, what=f"the server's descriptors back to {before}")
    assert server.proc.poll() is None
    log = server.log()
    assert "Traceback" not in log and "never retrieved" not in log and "ushort" not in log, log


async def test_a_logged_in_connection_without_a_session_is_closed_after_the_auth_timeout(server):
    began = time.monotonic()
    async with await connect(server) as idle:  # logs in, opens nothing
        await asyncio.wait_for(idle.wait_closed(), 15)
    assert time.monotonic() - began < 12
    async with await connect(server) as done:  # its session ends (no terminal), the connection stays open
        ended = await done.create_process(encoding=None, stderr=asyncssh.STDOUT)
        assert b"needs a terminal" in await asyncio.wait_for(ended.stdout.read(), 20)
        await asyncio.wait_for(done.wait_closed(), 15)


async def test_the_client_run_is_the_installed_one_never_one_where_the_server_was_started(tmp_path):
    start, marker = plant_client(tmp_path)
    server = Server(tmp_path / "data", cwd=start)
    try:
        async with await connect(server) as conn:
            process = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
            await lobby(process)
            (client,) = server.children()
            command = Path(f"/proc/{client}/cmdline").read_bytes().split(b"\0")
            assert command[1] == b"-I" and Path(f"/proc/{client}/cwd").resolve() == Path("/")
        assert not marker.exists()
    finally:
        server.stop()


def banner(port: int) -> bytes:
    """Connect, read what the server says first (its version, or nothing if it drops us), and hang up."""
    with socket.create_connection(("127.0.0.1", port), timeout=10) as peer:
        try:
            return peer.recv(64)
        except ConnectionResetError:
            return b""


async def test_connections_that_end_without_logging_in_hold_their_address_back(server):
    """A login flood from one address: after ten failures its connections are dropped before the key exchange
    (one log line says so), while another address logs in at once."""
    answered = [banner(server.ssh_port).startswith(b"SSH-2.0-DownAndBack") for _ in range(40)]
    assert all(answered[:10]) and answered[10:].count(True) <= 3, answered
    async with await connect(server, "127.0.0.2") as other:
        process = await other.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
        await lobby(process)
    assert server.log().count("SSH connections held back") == 1, server.log()


async def test_keystrokes_and_window_changes_spend_the_sessions_budget(server):
    """400 window changes at once: the gateway reads them at its budget's pace (the first 200 at once, then 100 a
    second), so the key after them arrives about two seconds later, and only the last size is applied."""
    async with await connect(server) as conn:
        process = await conn.create_process(term_type="xterm", term_size=(80, 24), encoding=None)
        await lobby(process)
        (client,) = server.children()
        began = time.monotonic()
        for i in range(400):
            process.change_terminal_size(100 + i % 2, 30)
        process.change_terminal_size(120, 40)
        process.stdin.write(b"n")  # the new-table form
        await lobby(process, text=b"Private code")
        assert time.monotonic() - began > 1.5
        assert terminal_size(client) == (120, 40)
