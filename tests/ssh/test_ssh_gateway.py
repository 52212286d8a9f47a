"""``dab-server --ssh-port``: the real OpenSSH client plays, resizes, drops and comes back by its key."""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import stat
import subprocess
import sys

import pytest

from protocol import messages as m
from scripted import ScriptedClient
from server.limits import CLIENT_NICENESS
from ssh_helpers import ROOT, Server, Tmux, hand, make_key, needs_openssh, wait_until

pytestmark = needs_openssh


@pytest.fixture(scope="module")
def keys(tmp_path_factory):
    directory = tmp_path_factory.mktemp("keys")
    return make_key(directory, "alice"), make_key(directory, "bob")


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    server = Server(tmp_path_factory.mktemp("server") / "data")
    yield server
    server.stop()


def test_host_key_is_private_and_its_fingerprint_printed_and_kept(server, tmp_path):
    import asyncssh

    path = server.data_dir / "ssh_host_ed25519_key"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE((server.data_dir / "ssh_identity.key").stat().st_mode) == 0o600
    assert asyncssh.read_private_key(path).get_fingerprint("sha256") == server.fingerprint
    shutil.copytree(server.data_dir, tmp_path / "data", ignore=shutil.ignore_patterns("*.sqlite3*", "*.sock"))
    again = Server(tmp_path / "data")  # a later start with that data directory: the same key
    try:
        assert again.fingerprint == server.fingerprint
    finally:
        again.stop()


def test_a_command_chooses_a_table_or_a_practice_game(tmp_path, tmux):
    server = Server(tmp_path / "data")  # a table of its own: "play now" elsewhere must not find it
    try:
        choose_by_command(server, tmux)
    finally:
        server.stop()


def choose_by_command(server: Server, tmux: Tmux) -> None:
    tmux.start("host", server.ssh(None, "hana", "-tt"))
    tmux.start("practice", server.ssh(None, "pia", "-tt", command="practice"))  # bots in a game of pia's own
    tmux.wait_for("host", "as hana")
    tmux.keys("host", "p")
    tmux.wait_for("host", "Add bot")

    async def hanas_table() -> str:
        async with ScriptedClient(server.game_port, "Lister") as lister:
            listed = await lister.request(m.ListTables)
        return next(t["table_id"] for t in listed["tables"] if t["name"] == "hana's table")

    tmux.start("guest", server.ssh(None, "jo", "-tt", command=asyncio.run(hanas_table())))  # to hana's table
    tmux.wait_for("host", "jo")
    assert "hana" in tmux.wait_for("guest", "Waiting for hana")
    screen = tmux.wait_for("practice", "(bot)")
    assert " Practice " in screen and "hana" not in screen  # the practice table, not one of this server's


def first_turn(tmux: Tmux, name: str) -> None:
    """The first round's first turn: the first dealer is drawn from the deal (FAIRNESS.md 3.4), so we may be
    the cutter first (the cut dialog: cut where it points)."""
    def turn_or_cut() -> str | None:
        screen = tmux.screen(name)
        return screen if "Your turn." in screen or "Cut the deck" in screen else None

    if "Your turn." not in wait_until(turn_or_cut, 30, f"{name}'s first turn or cut"):
        tmux.keys(name, "Enter")
        tmux.wait_for(name, "Your turn.")


def test_play_resize_drop_and_come_back_by_key(server, keys, tmux):
    alice, bob = keys
    tmux.start("a", server.ssh(alice, "alice", "-tt"))
    tmux.wait_for("a", "as alice")
    tmux.keys("a", "p")  # play now: a table of alice's own
    tmux.wait_for("a", "Add bot")
    tmux.keys("a", "b")
    tmux.wait_for("a", "(bot)")
    tmux.keys("a", "g")
    first_turn(tmux, "a")
    tmux.keys("a", "s")  # the decision: take the top card of the stock
    tmux.wait_for("a", "Throw a card:")  # which card depends on the deal (the client adds its seed)

    def eight_cards() -> str | None:  # the prompt may be painted a frame before the hand holds the card drawn
        screen = tmux.screen("a")
        return screen if "Throw a card:" in screen and len(hand(screen)) == 8 else None

    screen = wait_until(eight_cards, 30, "alice's hand of 8")
    cards = hand(screen)

    tmux.resize("a", 130, 40)  # the window grows: SIGWINCH reaches the client, which redraws to fit
    def redrawn():
        lines = tmux.screen("a").splitlines()
        return len(lines) == 40 and "Quit" in lines[-1] and len(lines[0].rstrip()) > 100
    wait_until(redrawn, what="a redraw at 130x40")

    tmux.kill("a")  # the SSH connection drops mid-turn
    tmux.start("a2", server.ssh(alice, "alice", "-tt"))
    screen = tmux.wait_for("a2", "Throw a card:")  # straight back to the table, mid-decision, no lobby
    assert sorted(hand(screen)) == sorted(cards)  # the same seat, the same hand, the decision still ours
    assert "▶1 alice" in screen

    # Another key is another player: alice's name is taken while she plays, bob is new with his own chips.
    result = subprocess.run(server.ssh(bob, "alice", "-tt"), stdin=subprocess.DEVNULL, capture_output=True,
                            timeout=30)
    assert result.returncode != 0 and b"cannot play as 'alice'" in result.stderr + result.stdout
    tmux.start("b", server.ssh(bob, "bob", "-tt"))
    screen = tmux.wait_for("b", "as bob")
    assert "10,000 chips" in screen and "alice's table" in screen
    tmux.keys("a2", "1", "Enter")  # alice plays on from her first session's decision: the throw
    tmux.wait_for("a2", "You discard")


def test_a_session_without_a_terminal_is_told_to_use_ssh_t(server, keys):
    result = subprocess.run(server.ssh(keys[0], "carol", "-T"), stdin=subprocess.DEVNULL, capture_output=True,
                            timeout=30)
    assert result.returncode == 1
    assert b"use ssh -t" in result.stderr and result.stdout == b""


def test_a_guest_without_a_key_plays_under_their_name(server, tmux):
    tmux.start("g", server.ssh(None, "dora", "-tt"))
    screen = tmux.wait_for("g", "as dora")
    assert "10,000 chips" in screen
    clients = server.children()  # and, like every session's client, it yields the CPU to the server
    nicer = min(os.getpriority(os.PRIO_PROCESS, server.proc.pid) + CLIENT_NICENESS, 19)  # niceness stops at 19
    assert clients and {os.getpriority(os.PRIO_PROCESS, pid) for pid in clients} == {nicer}


def test_without_guests_a_keyless_session_is_refused(tmp_path, keys):
    server = Server(tmp_path / "data", "--no-ssh-guests")
    try:
        command = [("LogLevel=INFO" if part == "LogLevel=ERROR" else part)  # INFO: the banner is shown
                   for part in server.ssh(None, "dora", "-tt", "-o", "BatchMode=yes")]
        result = subprocess.run(command, stdin=subprocess.DEVNULL, capture_output=True, timeout=30)
        assert result.returncode == 255 and b"SSH key only" in result.stderr
    finally:
        server.stop()


def test_ssh_port_names_the_missing_extra(tmp_path):
    code = ("import sys; sys.modules['asyncssh'] = None; from server.__main__ import main; "
            "sys.exit(main(['--memory', '--ssh-port', '0']))")
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=30)
    assert result.returncode == 2
    assert re.search(r"pip install 'down-and-back\[ssh\]'", result.stderr), result.stderr


def test_new_identities_are_limited_per_ssh_address_not_as_loopback(tmp_path, keys, tmux):
    """The gateway's clients all come from loopback: the game server lets them be, the gateway counts SSH peers."""
    server = Server(tmp_path / "data", "--new-players-per-hour", "2", "--max-per-address", "1")
    try:
        tmux.start("g1", server.ssh(None, "gina", "-tt"))
        tmux.wait_for("g1", "as gina")  # a guest: one new identity
        tmux.start("k1", server.ssh(keys[0], "kim", "-tt"))
        tmux.wait_for("k1", "as kim")  # a key never seen: the second (and a second loopback connection)
        result = subprocess.run(server.ssh(keys[1], "lee", "-tt"), stdin=subprocess.DEVNULL, capture_output=True,
                                timeout=30)
        assert result.returncode == 1 and b"too many new players from your address" in result.stderr
        tmux.kill("k1")
        tmux.start("k2", server.ssh(keys[0], "kim", "-tt"))  # a known key is not new: no limit
        tmux.wait_for("k2", "as kim")
    finally:
        server.stop()
