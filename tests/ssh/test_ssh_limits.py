"""The SSH gateway's limits: sessions in all and per address, the time to authenticate, idle sessions;
none of them reaches a player at a table."""

from __future__ import annotations

import socket
import subprocess
import time

from ssh_helpers import Server, needs_openssh, wait_until

pytestmark = needs_openssh


def refusal(server: Server, user: str, source: str) -> str:
    """What OpenSSH says when a guest session from ``source`` (a loopback address) is refused."""
    command = [("LogLevel=INFO" if part == "LogLevel=ERROR" else part)  # INFO: the disconnect's reason shown
               for part in server.ssh(None, user, "-tt", "-b", source, "-o", "BatchMode=yes")]
    result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    return result.stderr


def test_sessions_in_all_and_per_address_and_the_time_to_authenticate(tmp_path, tmux):
    server = Server(tmp_path / "data", "--ssh-max-per-address", "1", "--ssh-max-sessions", "2",
                    "--ssh-auth-timeout", "1")
    try:
        with socket.create_connection(("127.0.0.1", server.ssh_port)) as idle:  # connects, never authenticates
            idle.settimeout(10)
            began = time.monotonic()
            received = b""
            while chunk := idle.recv(4096):  # the banner, then the end once the second is up
                received += chunk
            assert received.startswith(b"SSH-2.0-DownAndBack") and time.monotonic() - began < 8
        tmux.start("a", server.ssh(None, "ann", "-tt", "-b", "127.0.0.1"))
        tmux.start("c", server.ssh(None, "cid", "-tt", "-b", "127.0.0.2"))  # another address: room for it
        tmux.wait_for("a", "as ann")
        tmux.wait_for("c", "as cid")
        assert "at most 1 SSH sessions from one address" in refusal(server, "bea", "127.0.0.1")
        assert "as many SSH sessions as it takes" in refusal(server, "dee", "127.0.0.3")
        assert "as ann" in tmux.screen("a") and "as cid" in tmux.screen("c")  # nobody else was touched
        assert len(server.children()) == 2
    finally:
        server.stop()


def test_an_idle_session_is_closed_unless_its_player_is_at_a_table(tmp_path, tmux):
    server = Server(tmp_path / "data", "--ssh-idle-timeout", "1.5")
    try:
        tmux.start("seated", server.ssh(None, "sam", "-tt"))
        tmux.start("lobby", server.ssh(None, "lou", "-tt"))

        def sam_in_the_lobby() -> bool:
            tmux.keys("seated", "F12")  # sam keeps typing (a key the client ignores) while it starts
            return "as sam" in tmux.screen("seated")

        wait_until(sam_in_the_lobby, what="sam's lobby", interval=0.3)
        tmux.keys("seated", "p")  # play now: sam has a table of his own, and waits there
        last_key = time.monotonic()
        tmux.wait_for("seated", "Add bot")
        tmux.wait_for("lobby", "closed after a long time without a keystroke")  # lou, in the lobby, is not
        time.sleep(max(0.0, last_key + 2.0 - time.monotonic()))  # past sam's idle time too: nothing happens
        assert "Add bot" in tmux.screen("seated") and len(server.children()) == 1  # sam plays on
    finally:
        server.stop()
