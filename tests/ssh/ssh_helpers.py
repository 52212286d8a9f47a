"""A real dab-server with its SSH gateway, and the real OpenSSH client in tmux."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

import reaping

ROOT = Path(__file__).resolve().parents[2]
SSH, SSH_KEYGEN, TMUX = shutil.which("ssh"), shutil.which("ssh-keygen"), shutil.which("tmux")
needs_openssh = pytest.mark.skipif(not (SSH and SSH_KEYGEN and TMUX), reason="needs ssh, ssh-keygen and tmux")
LISTENING = re.compile(r"SSH gateway listening on \S+:(\d+); host key fingerprint (\S+)")
GAME_PORT = re.compile(r"Down and Back server listening on \S+:(\d+)")


@contextlib.contextmanager
def game_server():
    """A plain ``dab-server`` on loopback (no gateways, nothing kept, bots at once): its game port, for
    ``dab-client`` in a tmux window; stopped after."""
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    proc = subprocess.Popen([sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--memory",
                             "--bot-delay", "0", "--turn-timeout", "300"],
                            cwd=ROOT, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    try:
        while not (listening := GAME_PORT.search(proc.stderr.readline())):
            assert proc.poll() is None, "the server did not start"
        yield int(listening.group(1))
    finally:
        proc.terminate()
        proc.wait(15)


def wait_until(check, timeout: float = 20.0, what: str = "condition", interval: float = 0.05):
    """Poll ``check`` until it returns something truthy (and return that), or fail saying what."""
    deadline = time.monotonic() + timeout
    while True:
        result = check()
        if result:
            return result
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out waiting for {what}")
        time.sleep(interval)


def make_key(directory: Path, name: str) -> Path:
    path = directory / name
    subprocess.run([SSH_KEYGEN, "-q", "-t", "ed25519", "-N", "", "-C", name, "-f", str(path)], check=True)
    return path


class Server:
    """``dab-server --ssh-port 0`` on loopback, its log read for the ports and the host key fingerprint."""

    def __init__(self, data_dir: Path, *extra: str, cwd: Path = ROOT) -> None:
        self.data_dir = data_dir
        self.log_path = data_dir.parent / f"{data_dir.name}.log"
        self._log = open(self.log_path, "wb")
        env = dict(os.environ, PYTHONPATH=str(ROOT) + os.pathsep + os.environ.get("PYTHONPATH", ""))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "server", "--host", "127.0.0.1", "--port", "0", "--ssh-port", "0",
             "--data-dir", str(data_dir), "--bot-delay", "0", "--turn-timeout", "300", "--absent-grace", "300",
             "--seed", "ssh-tests",
             *extra], cwd=cwd, env=env, stdout=self._log, stderr=subprocess.STDOUT)
        found = wait_until(lambda: LISTENING.search(self.log()) or self._died(), what="the SSH gateway")
        self.ssh_port, self.fingerprint = int(found.group(1)), found.group(2)
        self.game_port = int(GAME_PORT.search(self.log()).group(1))

    def _died(self) -> None:
        if self.proc.poll() is not None:
            raise AssertionError(f"the server exited: {self.log()}")

    def log(self) -> str:
        return self.log_path.read_text(errors="replace")

    def open_files(self) -> int:
        """How many file descriptors the server holds."""
        return len(os.listdir(f"/proc/{self.proc.pid}/fd"))

    def children(self) -> list[int]:
        """The clients the server runs for SSH sessions: its fork server's children, or its own exec'd ones
        (its history worker, which a large client's side panel may start, is left out)."""
        return reaping.session_clients(self.proc.pid)

    def ssh(self, key: Path | None, user: str, *extra: str, port: int | None = None,
            command: str | None = None) -> list[str]:
        """The OpenSSH command line for a session as ``user`` (with ``key``, or none: a guest), with
        OpenSSH options ``extra`` and the session's ``command`` (a table, ``practice``)."""
        auth = ["-o", "IdentitiesOnly=yes", "-i", str(key)] if key else ["-o", "PubkeyAuthentication=no"]
        return [SSH, "-F", "/dev/null", "-p", str(port or self.ssh_port), "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR", *auth, *extra, f"{user}@127.0.0.1",
                *([command] if command else [])]

    def stop(self) -> None:
        """Stop the server; whatever it started and left behind (its sessions' clients) is killed with it."""
        try:
            reaping.stop(self.proc)
        finally:
            self._log.close()


class Tmux:
    """A private tmux server: one window per terminal, typed into and read as a person would."""

    def __init__(self, tag: str) -> None:
        self.socket = f"dab-ssh-{os.getpid()}-{tag}"
        self.run("new-session", "-d", "-s", "keep", "sleep 600")  # the server stays up between windows

    def run(self, *args: str) -> str:
        return subprocess.run([TMUX, "-L", self.socket, *args], capture_output=True, text=True, check=True).stdout

    def start(self, name: str, command: list[str], width: int = 100, height: int = 30, linger: bool = True) -> None:
        """Run ``command`` in a new window; with ``linger`` the window stays a while after it ends."""
        shell = " ".join(_quote(part) for part in command)
        shell = f"{shell}; sleep 30" if linger else f"exec {shell}"
        self.run("new-session", "-d", "-s", name, "-x", str(width), "-y", str(height), shell)

    def pid(self, name: str) -> int:
        """The process the window runs (the command itself, when started without ``linger``)."""
        return int(self.run("display-message", "-p", "-t", name, "#{pane_pid}"))

    def screen(self, name: str) -> str:
        return self.run("capture-pane", "-p", "-t", name)

    def wait_for(self, name: str, text: str, timeout: float = 30.0) -> str:
        def shown() -> str | None:
            screen = self.screen(name)
            return screen if text in screen else None

        try:
            return wait_until(shown, timeout, f"{text!r} on {name}'s screen")
        except AssertionError as exc:
            raise AssertionError(f"{exc}; it shows:\n{self.screen(name)}") from None

    def settled(self, name: str, timeout: float = 30.0) -> str:
        """The screen once two captures a moment apart agree (a capture can catch Textual mid-repaint)."""
        last: list[str | None] = [None]  # the first capture, compared with the next one a moment later

        def steady() -> str | None:
            screen = self.screen(name)
            if screen == last[0]:
                return screen
            last[0] = screen
            return None

        return wait_until(steady, timeout, f"{name}'s screen to settle", interval=0.1)

    def keys(self, name: str, *keys: str) -> None:
        self.run("send-keys", "-t", name, *keys)

    def resize(self, name: str, width: int, height: int) -> None:
        self.run("resize-window", "-t", name, "-x", str(width), "-y", str(height))

    def kill(self, name: str) -> None:
        self.run("kill-session", "-t", name)

    def close(self) -> None:
        subprocess.run([TMUX, "-L", self.socket, "kill-server"], capture_output=True)


def _quote(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"


def hand(screen: str) -> list[str]:
    """The cards of the hand row at the bottom of a table screen (their faces' first line)."""
    lines = screen.splitlines()
    tops = [i for i, line in enumerate(lines) if line.lstrip().startswith("╭────╮ ╭")]
    assert tops, screen
    return re.findall(r"│(\S+)\s*│", lines[tops[-1] + 1])
