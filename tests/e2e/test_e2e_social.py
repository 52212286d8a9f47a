"""A table of friends, in the real dab-client in a real terminal (tmux) against a real dab-server with its SSH
and browser gateways (issue 27 items 5-7): table ids, the join line, a --join that fails saying so where it lasts,
who is online, an invitation."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pytest

from friends import Friends
from protocol import messages as m

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "ssh"))
from ssh_helpers import ROOT, Server, Tmux, needs_openssh, wait_until  # noqa: E402  (the SSH tests' real server, tmux)

pytestmark = needs_openssh
SIZES = [(80, 24), (120, 40)]
GAMES = ["down-and-back", "cribbage"]


@pytest.fixture
def server(tmp_path):
    server = Server(tmp_path / "data", "--web-port", "0")
    server.web_port = int(wait_until(lambda: re.search(r"browsers: http://\S+:(\d+)/", server.log()),
                                     what="the browser gateway").group(1))
    yield server
    server.stop()


@pytest.fixture
def tmux(request):
    tmux = Tmux(request.node.name[-24:].replace("[", "").replace("]", ""))
    yield tmux
    tmux.close()


def client(server: Server, name: str, *extra: str, config: Path) -> list[str]:
    """The real dab-client of this tree, connected to the server's game port (sized by its terminal alone: a
    test process may have COLUMNS and LINES set, which the client would take over the terminal's size)."""
    return ["env", "-u", "COLUMNS", "-u", "LINES", f"PYTHONPATH={ROOT}", f"DAB_CONFIG_DIR={config}", "TERM=xterm-256color", sys.executable, "-m",
            "client", f"127.0.0.1:{server.game_port}", "--name", name, *extra]


@pytest.fixture
def friends(server):
    friends = Friends(server.game_port)
    yield friends
    friends.close()


def log_column(screen: str) -> str:
    """The words of the table's log and chat column (right of its ▕ border), its wrapped lines joined."""
    return " ".join(" ".join(line.split("▕", 1)[1].split()) for line in screen.splitlines() if "▕" in line)


def row_of(screen: str, text: str) -> str:
    return next(line for line in screen.splitlines() if text in line)


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_table_ids_and_the_join_line_on_the_screen(server, friends, tmux, tmp_path, size, game):
    """The lobby lists each table's id; the table's top bar starts with it, and the join line under it gives
    the commands for the gateways this server runs (as many as fit; j copies them all and shows them)."""
    width, height = size
    table_id = friends.table(friends.connect("bob"), game)
    tmux.start("ann", client(server, "ann", config=tmp_path / "ann"), width, height)
    screen = tmux.wait_for("ann", "bob's table")
    assert row_of(screen, "bob's table").split()[0] == table_id
    tmux.keys("ann", "j")
    screen = tmux.wait_for("ann", f"Join {table_id}:")
    assert screen.splitlines()[0].split()[:1] == [table_id]  # the top bar: the id, then the name
    ssh = f"ssh -t -p {server.ssh_port} <you>@127.0.0.1 {table_id}"
    game_line = f"dab-client 127.0.0.1:{server.game_port} --join {table_id}"
    web = f"http://127.0.0.1:{server.web_port}/"
    line = row_of(screen, f"Join {table_id}:")
    assert ssh in line
    if width >= 120:
        assert game_line in line
    if not (game_line in line and web in line):
        assert "j: all" in line
    tmux.keys("ann", "j")
    screen = tmux.wait_for("ann", "Copied: how friends")
    words = " ".join(screen.split())
    for command in (ssh, game_line, web):
        assert command in words, (command, screen)


def test_a_friend_over_ssh_sees_the_join_line_of_the_table_they_came_to(server, friends, tmux):
    """ssh -t ... t1: the gateway's client joins the table, and its join line names the host the SSH
    connection reached (the gateway's own connection to the game is loopback)."""
    table_id = friends.table(friends.connect("bob"), "down-and-back")
    tmux.start("jo", server.ssh(None, "jo", "-tt", command=table_id), 120, 40)
    screen = tmux.wait_for("jo", f"Join {table_id}:")
    assert f"ssh -t -p {server.ssh_port} <you>@127.0.0.1 {table_id}" in row_of(screen, "Join ")
    assert "Waiting for bob" in screen


def test_a_join_to_no_such_table_says_so_in_the_lobby_and_it_stays(server, friends, tmux, tmp_path):
    tmux.start("ann", client(server, "ann", "--join", "t99", config=tmp_path / "ann"), 80, 24)
    screen = tmux.wait_for("ann", "No table t99 here")
    assert "as ann" in screen  # in the lobby
    table_id = friends.table(friends.connect("bob"), "down-and-back")  # the lobby changes: the line stays
    screen = tmux.wait_for("ann", "bob's table")
    assert "No table t99 here" in screen and table_id in screen
    tmux.keys("ann", "Escape")  # until the player dismisses it (or joins a table)
    wait_until(lambda: "No table t99" not in tmux.screen("ann"), what="the line dismissed")


def test_a_join_to_a_private_table_asks_for_its_code(server, friends, tmux, tmp_path):
    table_id = friends.table(friends.connect("bob"), "cribbage", seats=2, code="sesame")
    tmux.start("ann", client(server, "ann", "--join", table_id, config=tmp_path / "ann"), 80, 24)
    screen = tmux.wait_for("ann", "is private. Its code:")  # the dialog asks at once
    assert f"{table_id} is private: give its code" in screen  # and the lobby says why, behind it
    tmux.keys("ann", "sesame", "Enter")
    screen = tmux.wait_for("ann", "Waiting for bob")
    assert screen.splitlines()[0].split()[0] == table_id


def test_a_join_to_a_full_table_watches_it_and_says_why(server, friends, tmux, tmp_path):
    table_id = friends.table(friends.connect("bob"), "down-and-back", seats=2, bots=1)
    tmux.start("ann", client(server, "ann", "--join", table_id, config=tmp_path / "ann"), 80, 24)
    tmux.wait_for("ann", "You are watching this table")
    said = f"Every seat is taken at {table_id}: you are watching it instead."
    wait_until(lambda: said in log_column(tmux.screen("ann")), what="the log says why")


@pytest.mark.parametrize("game", GAMES)
@pytest.mark.parametrize("size", SIZES, ids=["80x24", "120x40"])
def test_who_is_online_and_invitations_both_ways_on_the_screen(server, friends, tmux, tmp_path, size, game):
    """The lobby's line and o list who is online and where; bob's invitation to his private table is a
    notification, and i takes ann there with no code asked; then ann hosts a table and invites cat with i."""
    width, height = size
    cat = friends.connect("cat")
    friends.call(cat.request(m.ListOnline))  # cat's client takes invitations
    bob = friends.connect("bob")
    table_id = friends.table(bob, game, seats=3, code="sesame")
    tmux.start("ann", client(server, "ann", config=tmp_path / "ann"), width, height)
    screen = tmux.wait_for("ann", f"bob ({table_id})")
    line = row_of(screen, "Online (")
    assert "Online (3):" in line and "cat" in line and "o: all" in line
    tmux.keys("ann", "o")
    screen = tmux.wait_for("ann", "Who is online")
    assert f"seated at {table_id} bob's table" in screen and "in the lobby" in screen
    tmux.keys("ann", "Escape")
    wait_until(lambda: "Who is online" not in tmux.screen("ann"), what="the list closed")

    friends.call(bob.request(m.Invite, name="ann"))
    tmux.wait_for("ann", "Accept invitation")  # the key, in the footer; and the notification (painted apart)
    wait_until(lambda: "bob invites you to" in " ".join(tmux.screen("ann").split()), what="the invitation's notice")
    tmux.keys("ann", "i")
    screen = tmux.wait_for("ann", "Waiting for bob")  # at bob's private table: no code was asked
    assert screen.splitlines()[0].split()[0] == table_id and "is private. Its code:" not in screen

    tmux.keys("ann", "l")  # to the lobby, then a table of her own, and she invites cat
    tmux.wait_for("ann", "as ann")
    tmux.keys("ann", "n")
    tmux.wait_for("ann", "New table")
    tmux.keys("ann", "C-s")
    tmux.wait_for("ann", "i invite a player")
    tmux.keys("ann", "i")
    tmux.wait_for("ann", "Invite a player")
    screen = tmux.wait_for("ann", "cat")
    tmux.keys("ann", "Enter")
    tmux.wait_for("ann", "Invitation sent to cat")
    invitation = friends.call(cat.wait_for(lambda: cat.invitations and cat.invitations[-1]))
    assert invitation.host == "ann" and invitation.table_id != table_id
