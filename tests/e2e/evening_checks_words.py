"""ev-words' checks of the evening (issue 27 items 10, 13 and 14), registered with ``evening_helpers.at``:
what a player reads whole and in the right words, on the real dab-client at 80x24 and 120x40."""

from __future__ import annotations

import re

from evening_helpers import Evening, at

ELLIPSIS = ("…", "...")


@at("lobby")
def the_lobby_footer_has_history_and_leaders(evening: Evening) -> None:
    """Item 14: h and t were never in the lobby's footer (it was full); every key but refresh fits now."""
    for player in evening.players:
        footer = player.wait_for(lambda text: "Practice" in text.splitlines()[-1]).splitlines()[-1]
        for key in ("n New", "j Join", "p Play now", "b Practice", "h History", "t Leaders"):
            assert key in footer, f"{key!r} not in the lobby footer {footer!r}"


@at("waiting room", "playing", "sitting out", "rematch")
def the_top_bar_is_whole(evening: Evening) -> None:
    """Item 14: the top bar was cut ("deal verif…"); it takes a second line rather than an ellipsis."""
    for player in evening.players:
        top = player.wait_for(lambda text: bool(text.splitlines()[0].strip())).splitlines()[0]
        assert not any(mark in top for mark in ELLIPSIS), top


@at("playing", games=("cribbage",))
def a_cribbage_seat_says_what_its_chips_are(evening: Evening) -> None:
    """Item 10: a stake-100 seat read "300" unexplained: it says what is at the table and what is at risk."""
    for player in evening.players:
        player.wait_for(re.compile(r"300 at table, 100 at risk|300, 100 at risk"))


@at("game over")
def the_standings_read_place_then_the_whole_name(evening: Evening) -> None:
    """Item 13: "1.carol"; item 14: the standings cut names to 16 characters."""
    for player in evening.players:
        text = player.wait_for(re.compile(r"^\s*1\. \S", re.M))
        assert not re.search(r"^\s*\d\.\S", text, re.M), text
        assert re.search(r"^\s*\d\. (Ann|Bob)\b", text, re.M), text


@at("history")
def the_history_shows_names_and_results_whole(evening: Evening) -> None:
    """Item 14: the history cut table names ("alice's ta") and results ("119-11")."""
    text = evening.ann.wait_for("Your rounds on this server")
    assert "Ann's table" in text, text  # (a longer name wraps onto a second line of its row: whole)
    rows = text.splitlines()[2:-2]
    assert not any(mark in line for line in rows for mark in ELLIPSIS), text
