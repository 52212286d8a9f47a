"""The real program and its terminal: it refuses to run into a pipe and leaves when the terminal goes."""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "benchmarks"))

from bench_client import PtyClient  # noqa: E402  (the benchmark's pseudo-terminal runner)


def painted(client: PtyClient, timeout: float = 30.0) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if any(text.startswith("paint") for _, _, text in client.poll(0.05)):
            return
    raise AssertionError("no table was painted")


def test_refuses_to_start_without_a_terminal(tmp_path):
    """``ssh host dab-client`` without ``-t``: one clear line, not a full-screen app writing into a pipe."""
    env = dict(os.environ, DAB_CONFIG_DIR=str(tmp_path), PYTHONPATH=str(ROOT))
    result = subprocess.run([sys.executable, "-m", "client", "--bots", "1"], cwd=ROOT, env=env,
                            stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=30)
    assert result.returncode != 0
    assert "needs a terminal" in result.stderr and "ssh -t" in result.stderr
    assert result.stderr.count("\n") == 1 and "Traceback" not in result.stderr
    assert result.stdout == ""  # no escape codes written into the pipe


def test_exits_when_the_terminal_goes_away():
    """The terminal closes (the SSH connection dropped): the client ends instead of spinning on EOF."""
    client = PtyClient(["--bot-delay", "0.5"], exit_after_paint=False)
    try:
        painted(client)
        os.close(client.master)
        client.master = -1
        assert client.proc.wait(10) is not None
    finally:
        client.close()


def test_exits_cleanly_on_sighup():
    client = PtyClient(["--bot-delay", "0.5"], exit_after_paint=False)
    try:
        painted(client)
        client.proc.send_signal(signal.SIGHUP)
        assert client.proc.wait(10) == 128 + signal.SIGHUP  # an orderly exit, not killed by the signal
    finally:
        client.close()


def _controlling_terminal() -> None:
    """In the child, after setsid: the PTY becomes its controlling terminal, as under sshd or the SSH gateway."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)


def test_a_hang_up_as_the_server_goes_ends_every_client(tmp_path):
    """A hang-up sends SIGHUP and SIGCONT; with the connection lost at the same moment (the notices
    being drawn), Textual resumed a terminal that was gone and some clients never exited."""
    env = dict(os.environ, PYTHONPATH=str(ROOT), DAB_CONFIG_DIR=str(tmp_path), TERM="xterm-256color")
    server = subprocess.Popen([sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--memory"],
                              cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    clients: list[tuple[subprocess.Popen[bytes], int]] = []
    try:
        while not (listening := re.search(r"listening on \S+:(\d+)", server.stderr.readline())):
            assert server.poll() is None
        port = int(listening.group(1))
        for n in range(3):
            master, slave = pty.openpty()
            fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
            proc = subprocess.Popen([sys.executable, "-m", "client", f"127.0.0.1:{port}", "--name", f"c{n}"],
                                    cwd=ROOT, env=env, stdin=slave, stdout=slave, stderr=slave,
                                    start_new_session=True, preexec_fn=_controlling_terminal)
            os.close(slave)
            clients.append((proc, master))
        for proc, master in clients:  # each in its lobby
            screen, deadline = b"", time.monotonic() + 30
            while b"lobby" not in screen:
                assert time.monotonic() < deadline and proc.poll() is None, screen
                if select.select([master], [], [], 0.1)[0]:
                    screen += os.read(master, 1 << 16)
        server.kill()  # the connections drop while every terminal hangs up
        for _, master in clients:
            os.close(master)
        for proc, _ in clients:
            assert proc.wait(10) is not None
    finally:
        for proc, _ in clients:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        server.kill()
        server.wait()
