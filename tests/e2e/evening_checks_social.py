"""ev-social's checks of the evening (issue 27 items 5, 6 and 7), registered with ``evening_helpers.at``: who is
online in the lobby, the table's id in its top bar and the join line in the waiting room (and during the
game where the terminal has the rows for it), and the terminal's title on Ann's turn and after it."""

from __future__ import annotations

import re

from client.cues import RESTORE_TITLE, title, turn_title
from evening_helpers import Evening, Terminal, at, wait_until

TOP_BAR = re.compile(r"^ (t\d+) Ann's table")
JOIN_ROWS = 30  # client.screens.table.TableScreen.JOIN_LINE_ROWS: during a game the join line needs these rows


def _online_line(text: str) -> str:
    return next((line for line in text.splitlines() if line.lstrip().startswith("Online (")), "")


@at("lobby")
def who_is_online_in_the_lobby(evening: Evening) -> None:
    """Both in the lobby: each one's online line counts two and names the other, "in the lobby"."""
    for player, other in ((evening.ann, "Bob"), (evening.bob, "Ann")):
        player.wait_for(lambda text, other=other: "Online (2):" in _online_line(text) and other in _online_line(text))


def _table_id(player: Terminal) -> str:
    text = player.wait_for(lambda text: TOP_BAR.match(text.splitlines()[0]) is not None)
    found = TOP_BAR.match(text.splitlines()[0])
    assert found is not None
    return found.group(1)


def _join_line(evening: Evening, table_id: str) -> str:
    return f"Join {table_id}: dab-client 127.0.0.1:{evening.server.port} --join {table_id}"


@at("waiting room")
def the_join_line_in_the_waiting_room(evening: Evening) -> None:
    """Host and guest: the top bar starts with the table's id, and under it the join line gives the command
    for this server's game port (the only way in it runs), whole, with j to copy it."""
    for player in evening.players:
        table_id = _table_id(player)
        expected = _join_line(evening, table_id)
        text = player.wait_for(lambda text: any(expected in line for line in text.splitlines()[1:3]))
        line = next(line for line in text.splitlines() if expected in line)
        assert line.rstrip().endswith("j copies"), line


@at("playing")
def the_join_line_during_the_game(evening: Evening) -> None:
    """During the game the join line stays where the terminal has the rows (120x40) and gives its row to the
    log where it has not (80x24); the table's id stays in the top bar either way."""
    ann = evening.ann
    table_id = _table_id(ann)
    expected = _join_line(evening, table_id)
    if evening.size[1] >= JOIN_ROWS:
        ann.wait_for(lambda text: expected in text)
    else:
        ann.wait_for(lambda text: not any(line.lstrip().startswith(f"Join {table_id}") for line in text.splitlines()))


TURN_TITLE = title(turn_title("Ann's table")).encode()  # OSC 2: "▶ your turn — Ann's table"


@at("playing")
def the_title_says_it_is_your_turn(evening: Evening) -> None:
    """Ann has a decision: her terminal was sent the OSC 2 title of her turn (read from the pty's bytes)."""
    wait_until(lambda: TURN_TITLE in bytes(evening.ann.output), what="Ann's terminal titled for her turn")


@at("sitting out")
def the_title_goes_back_when_it_is_not_your_turn(evening: Evening) -> None:
    """Sitting out, Ann has no decision: after the last title of her turn her terminal got its own title
    back (XTWINOPS 23, the title stack)."""
    def put_back() -> bool:
        output = bytes(evening.ann.output)
        return TURN_TITLE in output and RESTORE_TITLE.encode() in output[output.rindex(TURN_TITLE):]

    wait_until(put_back, what="Ann's terminal's own title put back")
