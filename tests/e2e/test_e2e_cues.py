"""Your turn outside the terminal (issue 27 item 7), read from the bytes a real dab-client writes to its
pseudo-terminal: the title (OSC 2) says so while the decision is ours and is put back after; a desktop
notification only when asked for; and no escape sequence reaches the terminal through a table's name, even
from a server that does not clean names (this one is made not to)."""

from __future__ import annotations

import fcntl
import json
import os
import pty
import re
import select
import signal
import struct
import subprocess
import sys
import termios
import threading
import time
from pathlib import Path

import pytest

import server.lobby
from client.cues import RESTORE_TITLE, SAVE_TITLE
from friends import Friends
from protocol import messages as m
from scripted import ScriptedClient
from server.lobby import Lobby, LobbyConfig
from server.net import GameServer, NetConfig
from server.table import TableConfig

ROOT = Path(__file__).resolve().parents[2]
HOSTILE = "tea\x1b]2;pwned\x07\x9d2;owned\x9c\x1b[31m room\u202e"  # an OSC, C1 controls, a colour, a bidi override
SHOWN = "tea2;owned room"  # what is left of it once every control is gone


class BackgroundServer(Friends):
    """A real dab-server (in-process, on the friends' event loop in its thread) and scripted players of it."""

    def __init__(self) -> None:
        super().__init__()

        async def start() -> GameServer:
            config = LobbyConfig(table=TableConfig(turn_timeout=3.0, bot_delay=0.2, away_delay=0.1, round_pause=30.0,
                                                   seed_window=0.05),  # bob never seeds: no wait for him
                                 seed=b"cues")
            game_server = GameServer(Lobby(config, "dab-server test"), NetConfig(rate=1000.0, burst=1000.0))
            await game_server.start("127.0.0.1", 0)
            return game_server

        self.server = self.call(start())
        self.port = self.server.port

    def close(self) -> None:
        for client in self.clients:
            self.call(client.link.close())
        self.clients.clear()
        self.call(self.server.close(grace=0.5))
        super().close()


class Terminal:
    """The real dab-client on a pseudo-terminal (80x24); every byte it writes is kept, as a terminal gets it."""

    def __init__(self, args: list[str], config: Path, **env: str) -> None:
        self.master, slave = pty.openpty()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
        environ = {k: v for k, v in os.environ.items() if k not in ("COLUMNS", "LINES", "TERM_PROGRAM", "VTE_VERSION",
                                                                     "KITTY_WINDOW_ID", "LC_TERMINAL")}
        environ.update(TERM="xterm-256color", DAB_CONFIG_DIR=str(config), PYTHONPATH=str(ROOT), **env)
        self.proc = subprocess.Popen([sys.executable, "-m", "client", *args], cwd=ROOT, env=environ, stdin=slave,
                                     stdout=slave, stderr=slave, start_new_session=True)
        os.close(slave)
        self.output = bytearray()
        self._changed = threading.Condition()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        while True:
            try:
                ready, _, _ = select.select([self.master], [], [], 0.5)
                if not ready:
                    if self.proc.poll() is not None:
                        return
                    continue
                chunk = os.read(self.master, 1 << 16)
            except OSError:
                return
            if not chunk:
                return
            with self._changed:
                self.output += chunk
                self._changed.notify_all()

    def wait_for(self, predicate, timeout: float = 30.0, what: str = ""):
        deadline = time.monotonic() + timeout
        with self._changed:
            while not (result := predicate(bytes(self.output))):
                left = deadline - time.monotonic()
                if left <= 0 or self.proc.poll() is not None:
                    raise AssertionError(f"timed out waiting for {what}; the last bytes: {bytes(self.output[-600:])!r}")
                self._changed.wait(min(left, 0.5))
            return result

    def close(self) -> None:
        if self.proc.poll() is None:
            os.killpg(self.proc.pid, signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()
        os.close(self.master)


@pytest.fixture
def served(monkeypatch):
    monkeypatch.setattr(server.lobby, "clean_table_name", lambda name: name)  # a server that cleans nothing
    served = BackgroundServer()
    yield served
    served.close()


def titles(output: bytes) -> list[str]:
    """Every window title (OSC 2) the terminal was given, in order."""
    return [t.decode() for t in re.findall(rb"\x1b\]2;(.*?)(?:\x07|\x1b\\)", output)]


def bobs_table(served: BackgroundServer, game: str) -> tuple[ScriptedClient, str]:
    bob = served.connect("bob")
    created = served.call(bob.request(m.CreateTable, name=HOSTILE, settings=m.TableSettings(game=game, seats=2)))
    return bob, created["table_id"]


def start_with_bob_away(served: BackgroundServer, bob: ScriptedClient) -> None:
    """bob starts the game and sits out: his seat is played at once, so ann's decisions come quickly."""
    async def start() -> None:
        await bob.wait_for(lambda: len(bob.table["members"]) == 2)
        await bob.request(m.Start)
        await bob.request(m.SitOut, away=True)

    served.call(start())


@pytest.mark.parametrize("game", ["down-and-back", "cribbage"])
def test_the_title_says_your_turn_then_is_put_back_and_no_name_injects_a_sequence(served, tmp_path, game):
    bob, table_id = bobs_table(served, game)
    terminal = Terminal([f"127.0.0.1:{served.server.port}", "--name", "ann", "--join", table_id], tmp_path / "cfg")
    try:
        terminal.wait_for(lambda out: b"Waiting for" in out or b"bob" in out, what="at bob's table")
        start_with_bob_away(served, bob)
        turn = f"▶ your turn — {SHOWN}"
        terminal.wait_for(lambda out: turn in titles(out), what="the title of our turn")
        # ann does nothing: her deadline (3 s) passes, the server plays for her, and the title goes back
        terminal.wait_for(lambda out: RESTORE_TITLE.encode() in out.split(turn.encode(), 1)[-1],
                          what="the title put back")
        output = bytes(terminal.output)
    finally:
        terminal.close()
    first = output.index(b"\x1b]2;")
    assert output.rfind(SAVE_TITLE.encode(), 0, first) >= 0  # the terminal's own title saved before ours
    after = output[output.index(turn.encode()):]
    restore = after.index(RESTORE_TITLE.encode())
    assert titles(after[:restore])[-1] == "Down and Back"  # (a terminal with no title stack keeps this)
    for title in titles(output):
        assert title in (turn, "Down and Back"), title
    assert b"pwned" not in output and b"\xc2\x9d" not in output and b"\xc2\x9c" not in output  # nothing injected
    assert b"\x1b]9;" not in output and b"\x1b]777;" not in output  # no desktop notification: not asked for


def test_a_desktop_notification_when_asked_for(served, tmp_path):
    config = tmp_path / "cfg"
    config.mkdir()
    (config / "client.json").write_text(json.dumps({"notify": True}))  # N at the table, remembered
    bob, table_id = bobs_table(served, "down-and-back")
    terminal = Terminal([f"127.0.0.1:{served.server.port}", "--name", "ann", "--join", table_id], config,
                        TERM_PROGRAM="iTerm.app")
    try:
        terminal.wait_for(lambda out: b"bob" in out, what="at bob's table")
        start_with_bob_away(served, bob)
        said = f"\x1b]9;Down and Back: your turn at {SHOWN.replace(';', ',')}\x07".encode()
        terminal.wait_for(lambda out: said in out, what="the desktop notification (OSC 9)")
        os.write(terminal.master, b"\x11")  # ann quits in the middle of her turn (ctrl+q, asked: ctrl+q again)
        terminal.wait_for(lambda out: b"Quit the game?" in out, what="asked first")
        os.write(terminal.master, b"\x11")
        assert terminal.proc.wait(15) == 0
        terminal._reader.join(5)
        output = bytes(terminal.output)
    finally:
        terminal.close()
    assert b"pwned" not in output
    assert RESTORE_TITLE.encode() in output[output.index(said):]  # the terminal gets its own title back
