"""Issue 32 item 16 in a real terminal: the real dab-client in tmux, against a real dab-server process.

At 80x24 and 120x40, for both games: the host opens the people at the table
(``p``), mutes a spectator (whose chat then no longer shows), removes a player
(asked first), hears the operator's ``dab-server say``, and is banned by
``dab-server ban``: the client ends saying so, with the reason.
"""

from __future__ import annotations

import asyncio
import os
import shutil
import subprocess
import sys
import time
import uuid
from pathlib import Path

import pytest

from operator_cli import cli
from protocol import messages as m
from scripted import ScriptedClient

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "server"))
from durability_helpers import ServerProcess  # noqa: E402

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.skipif(shutil.which("tmux") is None, reason="needs tmux")


class Tmux:
    """One dab-client in a tmux session of its own (a private tmux server), read as the screen shows it."""

    def __init__(self, width: int, height: int, command: list[str], env: dict[str, str]) -> None:
        self.socket = f"dab-mod-{uuid.uuid4().hex[:8]}"
        self.env = env
        line = " ".join(f"'{part}'" for part in command)
        exports = " ".join(f"{key}='{value}'" for key, value in env.items())
        # (env -i: nothing of the test process's environment but HOME, since a test before may have left
        # COLUMNS and LINES there, which would override the pane's size, or anything else a client reads)
        self._tmux("new-session", "-d", "-s", "t", "-x", str(width), "-y", str(height),
                   f"env -i HOME='{os.environ.get('HOME', '/')}' {exports} {line}")
        self._tmux("set-option", "-t", "t", "remain-on-exit", "on")

    def _tmux(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True, timeout=20,
                              check=True).stdout

    def screen(self) -> str:
        """The pane as shown (lines a wrap split joined again), and the lines scrolled off above it."""
        return self._tmux("capture-pane", "-p", "-J", "-S", "-100", "-t", "t")

    def keys(self, *keys: str) -> None:
        self._tmux("send-keys", "-t", "t", *keys)

    async def shows(self, *texts: str, timeout: float = 30.0) -> str:
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if all(text in screen for text in texts):
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen never showed {texts}:\n{screen}")
            await asyncio.sleep(0.1)

    async def gone(self, text: str, timeout: float = 30.0) -> str:
        """The screen once ``text`` has left it (a dialog closed: the next key is the screen's below)."""
        deadline = time.monotonic() + timeout
        while True:
            screen = self.screen()
            if text not in screen:
                return screen
            if time.monotonic() > deadline:
                raise AssertionError(f"the screen still shows {text!r}:\n{screen}")
            await asyncio.sleep(0.1)

    def close(self) -> None:
        subprocess.run(["tmux", "-L", self.socket, "kill-server"], capture_output=True, timeout=20)


@pytest.mark.parametrize("game", ["down-and-back", "cribbage"])
@pytest.mark.parametrize("size", [(80, 24), (120, 40)], ids=["80x24", "120x40"])
async def test_the_host_mutes_removes_hears_the_operator_and_is_banned_in_a_real_terminal(tmp_path, game, size):
    server = ServerProcess(tmp_path / "data")
    await server.start()
    env = {"DAB_CONFIG_DIR": str(tmp_path / "config"), "PYTHONPATH": str(ROOT), "TERM": "xterm-256color",
           "LANG": "C.UTF-8", "PATH": os.environ.get("PATH", "/usr/bin:/bin")}
    async with ScriptedClient(server.port, "bob") as bob, ScriptedClient(server.port, "eve") as eve:
        created = await bob.request(m.CreateTable, name="Friday", settings=m.TableSettings(game=game, seats=3))
        table_id = created["table_id"]
        ann = Tmux(*size, [sys.executable, "-m", "client", f"127.0.0.1:{server.port}", "--name", "ann",
                           "--join", table_id], env)
        try:
            await ann.shows("Friday")
            await bob.request(m.Leave)  # the host role passes to ann
            await bob.request(m.Join, table_id=table_id)
            await eve.request(m.Watch, table_id=table_id)
            await eve.request(m.Chat, text="hello from the rail")
            await ann.shows("You host this table", "hello from the rail")

            ann.keys("p")
            screen = await ann.shows("People at this table", "bob", "seat 1", "eve", "watching", "m mute")
            assert "r remove from the table" in screen
            ann.keys("Down", "m")  # eve, the second in the list
            await ann.shows("You muted eve")
            await ann.shows("muted")
            ann.keys("Escape")
            await ann.gone("People at this table")  # (a key sent before it closes would be the list's)
            await eve.request(m.Chat, text="spam spam spam")
            await bob.request(m.Chat, text="bob is here")
            screen = await ann.shows("bob is here")
            assert "spam spam spam" not in screen

            ann.keys("p")
            await ann.shows("People at this table")
            ann.keys("r")  # bob, the first
            await ann.shows("Remove bob from this table?", "cannot come back")
            ann.keys("y")
            await ann.shows("bob was removed from the table")
            await bob.wait_for(lambda: any(e["kind"] == "removed" and e.get("you") for e in bob.events))
            ann.keys("Escape")
            await ann.gone("People at this table")
            await ann.shows("bob was removed from")  # in the table's log (its column may wrap the rest)

            said = await asyncio.to_thread(cli, server.data_dir, "say", "the server restarts at 22:00")
            assert said.returncode == 0, said.stderr
            await ann.shows("restarts at 22:00")

            banned = await asyncio.to_thread(cli, server.data_dir, "ban", "player", "ann", "--reason",
                                             "testing bans")
            assert banned.returncode == 0 and "1 connection closed" in banned.stdout, banned.stdout + banned.stderr
            screen = await ann.shows("you are banned from this server: testing bans")
        finally:
            ann.close()
            await server.close()
