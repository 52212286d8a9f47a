"""The evening test (issue 27 item 18): two friends and a bot spend an evening at a real server, each in the
real ``dab-client`` in a terminal of 80x24 or 120x40, for both games, by keys only, reading their screens.

The table is made in the lobby's form, the second friend joins from the lobby, the host adds a bot and
starts; they play rounds to the result panels, chat from every state they pass (the waiting room, their
turn, a decision's panel, a round's result, a question, the game over), sit out and come back, shrink the
terminal below 80x24 and back, drop their connection, leave and come back, end the game, play a rematch,
and look at their history and a replay. At each step the test reads what a player must be able to read
(both pegboard tracks and scores, the count's cards and the starter, the result, names untruncated) and
checks that no key did anything but what it was pressed for.

The harness is ``evening_helpers`` (see /work/coord/NOTES.md to add your own checks to these evenings).
"""

from __future__ import annotations

import re
import time

import pytest

from evening_helpers import STEPS, Evening, EveningServer, Terminal, checkpoint, play_until

SIZES = [(80, 24), (120, 40)]
SIZE_IDS = ["80x24", "120x40"]


def table_of(terminal: Terminal) -> bool:
    """At a table (its footer offers chat), not in the lobby or a dialog."""
    return "c Chat" in terminal.text() and "lobby" not in terminal.lines()[0]


def chat(terminal: Terminal, text: str, over: bool = False) -> None:
    """``c``, the line, Enter; ``over``: in the chat dialog (over a panel, a dialog, the game over)."""
    mark = terminal.mark()
    terminal.press("c")
    if over:
        terminal.wait_for("Chat to the table", since=mark)
    else:
        terminal.wait_for("Back to cards", since=mark)  # the chat line's footer: it has the keyboard
    terminal.type(text)
    terminal.wait_for(text)  # every letter in the line, none taken by a game key
    terminal.press("enter")
    if over:
        terminal.wait_gone("Chat to the table")
    else:
        terminal.wait_gone("Back to cards")


def hears(terminal: Terminal, who: str, text: str, since: int = 0) -> None:
    """``terminal`` shows ``who: text`` (a chat line), now or since ``since``."""
    terminal.wait_for(f"{who}: {text}", since=since)


def create_table(host: Terminal, game: str, seats: int, muggins: bool = False) -> None:
    """The lobby's form, by keys (each Tab once the field before has shown the keyboard): the game, the
    seats, the house rule; Create."""
    host.wait_for("lobby")
    host.press("n")
    host.wait_for("Private code")
    host.wait_focused("Ann's table", "Name")
    host.press("tab")
    host.wait_focused("Down and Back", "Game")
    if game == "cribbage":
        host.press("enter")  # open the game's list
        host.wait_for("Cribbage")
        host.press("down", "enter")
        host.wait_for("Stake")
        host.wait_focused("Cribbage", "Game")  # the keyboard stays on the game just chosen (item 15)
        form = host.text()
        assert "Skunks (a skunk pays double, a double skunk triple)" in form, form
        fields = [("100", "Stake"), ("4", "Seats (2-4)")]
    else:
        form = host.text()
        for label in ("Seven turns instead of six", "Early call (end drawing with this orbit)",
                      "No take-back (may skip instead)"):
            assert label in form, form
        fields = [("10", "Ante"), ("1000", "Stack"), ("5", "Seats (2-5)")]
    for field, label in fields:
        host.press("tab")
        host.wait_focused(field, label)
    host.type(str(seats))  # (the field's text is selected when it gets the keyboard: typing replaces it)
    host.wait_for(re.compile(rf"Seats \(\d-\d\)\s+{seats}\s"))
    if muggins:
        host.press("tab", "tab", "tab", "tab")  # the code, the short game, skunks, muggins
        host.wait_focused("Muggins", "│")  # (the box's own row)
        host.press("space")
        host.wait_for("[x] Muggins")
    host.press("ctrl+s")
    host.wait_for("You host this table")


def join_from_lobby(player: Terminal, table_name: str) -> None:
    player.wait_for(table_name)
    player.press("enter")
    player.wait_for(lambda text: table_of(player))


def gather(server: EveningServer, size: tuple[int, int], game: str, **rules: bool) -> Evening:
    """Ann makes a table of three in the lobby's form, Bob joins it from the lobby, they say hello, Ann adds
    a bot and starts."""
    ann, bob = server.client("Ann", size), server.client("Bob", size)
    evening = Evening(server, game, size, ann, bob)
    for player in (ann, bob):
        player.wait_for("lobby")
    checkpoint(evening, "lobby")
    create_table(ann, game, seats=3, **rules)
    ann.wait_for("Ann's table")
    join_from_lobby(bob, "Ann's table")
    bob.wait_for("Waiting for Ann")
    ann.wait_for("2 Bob")
    chat(bob, "hello all")  # the waiting room
    hears(ann, "Bob", "hello all")
    checkpoint(evening, "waiting room")
    ann.press("b")
    ann.wait_for("(bot)")
    ann.press("g")
    return evening


def at_the_table(player: Terminal) -> bool:
    """At the table with no decision's dialog or panel up (the table's own keys act), and no deal being sealed
    (its first decision's dialog opens once the deck is fixed: FAIRNESS.md §3)."""
    text = player.text()
    top = text.splitlines()[0] if text else ""
    return (table_of(player) and not any(sign in text for sign in ("Cut here", "Showdown: arrange", "Close"))
            and not any(sign in top for sign in ("sealing", "seeds sealed")))


def sit_out_and_back(evening: Evening, asked: bool | None) -> None:
    """Ann sits out (mid-round she is asked first: she chats from the question, then says yes) and comes
    back (the menu's ``a``); Bob's screen says so both times. ``asked``: whether she must be asked (``None``:
    either)."""
    ann, bob = evening.players
    ann.press("a")
    ann.wait_for(lambda text: "Sit out?" in text or "You are sitting out" in text)
    if asked is not None:
        assert ("Sit out?" in ann.text()) == asked, ann.dump()
    if "Sit out?" in ann.text():
        chat(ann, "brb, making tea", over=True)
        hears(bob, "Ann", "brb, making tea")
        ann.wait_for("Sit out?")
        ann.press("y")
    ann.wait_for("You are sitting out")
    bob.wait_for("sitting out")
    checkpoint(evening, "sitting out", ann)
    # Back, from the table menu: played for, a player sitting out may be shown a round's result at any moment,
    # and a panel with the keyboard lets no table key act (a pressed then could do nothing); m works over it.
    ann.press("m")
    ann.wait_for("Table menu")
    ann.press("a")
    ann.wait_gone("You are sitting out")
    bob.wait_gone("sitting out")


def too_small_and_back(player: Terminal, size: tuple[int, int], keys: tuple[str, ...]) -> None:
    """Shrink below 80x24 (``keys`` then act on nothing) and grow back."""
    player.resize(70, 20)
    player.wait_for("Terminal too small")
    player.press(*keys)  # no key acts while the table cannot be seen, and the notice says so
    player.wait_for(f"({len(keys)} ignored)")
    player.resize(*size)
    player.wait_for(lambda text: "Ann's table" in text and "Terminal too small" not in text)


def drop_and_leave(evening: Evening) -> None:
    """Bob's connection drops (his client comes back by itself, to his seat); then he leaves, asked first,
    and comes back from the lobby to the seat kept for him."""
    ann, bob, game = evening.ann, evening.bob, evening.game
    bob.cut_connection()
    bob.wait_for("Reconnected")
    checkpoint(evening, "reconnected", bob)
    play_until([ann, bob], game, lambda: at_the_table(bob), what="Bob at the table")
    bob.press("l")
    bob.wait_for("Leave the table?")
    bob.press("y")
    bob.wait_for("lobby")
    join_from_lobby(bob, "Ann's table")
    bob.wait_for("2 Bob")
    checkpoint(evening, "rejoined", bob)


def game_over_and_rematch(evening: Evening, first_round: str) -> None:
    """The host ends the game (asked first): both read the standings, chat from there, play a rematch."""
    ann, bob, game = evening.ann, evening.bob, evening.game
    play_until([ann, bob], game, lambda: at_the_table(ann), what="Ann at the table")
    ann.press("E")
    ann.wait_for("End the game for everyone?")
    ann.press("y")
    for player in (ann, bob):
        over = player.wait_for("Game over")
        assert "Ann" in over and "Bob" in over and "(bot)" in over, over
    checkpoint(evening, "game over")
    chat(ann, "gg all", over=True)
    bob.press("c")
    bob.wait_for("Ann: gg all")  # the chat dialog shows the table's recent chat
    bob.press("escape")
    bob.wait_gone("Chat to the table")
    ann.press("r")
    bob.wait_for("Rematch offered")
    bob.press("y")
    for player in (ann, bob):
        player.wait_for(lambda text: first_round in text.splitlines()[0] and "Game over" not in text)
    checkpoint(evening, "rematch")


def history_and_replay(evening: Evening, title: str) -> None:
    """Ann leaves for the lobby, opens her history and a round's replay, and steps it once."""
    ann, game = evening.ann, evening.game
    play_until([ann], game, lambda: at_the_table(ann), what="Ann at the table")
    ann.press("l")
    ann.wait_for("Leave the table?")
    ann.press("y")
    ann.wait_for("lobby")
    ann.press("h")
    history = ann.wait_for(re.compile(rf"{title}\s+1\s"))  # the game's first round
    assert "Ann's ta" in history, history
    ann.wait_highlighted(title)  # the newest round, under the cursor
    if not ann.highlighted(re.search(rf"{title}\s+1\s.*", history).group(0)):
        ann.press("down")  # to the first round: a round played to its end
        ann.wait_highlighted(re.search(rf"{title}\s+1\s.*", history).group(0))
    checkpoint(evening, "history", ann)
    ann.press("enter")
    replay = ann.wait_for("Previous")  # the replay's footer: → Next ← Previous
    ann.press("right")
    ann.wait_for(lambda text: "Previous" in text and text != replay)  # one step on
    ann.press("escape")
    ann.wait_for(lambda text: "Previous" not in text and "Enter replays the round" in text)


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_an_evening_of_down_and_back(tmp_path, size):
    game = "down-and-back"
    with EveningServer(tmp_path / "server", round_pause=1.0) as server:
        evening = gather(server, size, game)
        ann, bob = evening.players
        play_until([ann, bob], game, lambda: "s take from stock" in ann.text(), what="Ann's turn")
        checkpoint(evening, "playing", ann)

        # Her turn: typing in chat takes no card (s, d, 1 and Enter are the line's).
        chat(ann, "sd1 nice")
        hears(bob, "Ann", "sd1 nice")
        assert "s take from stock" in ann.text() and "You take" not in ann.text()

        mark = {p.name: p.mark() for p in (ann, bob)}
        play_until([ann, bob], game, lambda: "Showdown: arrange your cards" in ann.text(), what="Ann's split")
        chat(ann, "splitting", over=True)  # over the arrangement's panel
        ann.wait_for("Showdown: arrange your cards")
        play_until([ann, bob], game, lambda: ann.seen("Round 1 showdown", mark["Ann"])
                   and bob.seen("Round 1 showdown", mark["Bob"]), what="the showdown's result")
        for player in (ann, bob):
            shown = player.seen("Round 1 showdown", mark[player.name])
            assert "Going down" in shown and "Coming back" in shown, shown
            assert "Ann" in shown and "Bob" in shown and "(bot)" in shown, shown
        hears(bob, "Ann", "splitting", since=mark["Bob"])
        # The result closes by itself with the next round: the next keys act on it.
        play_until([ann, bob], game, lambda: "Round 2" in ann.lines()[0] and "s take from stock" in bob.text(),
                   what="Bob's turn in round 2")
        assert "Round 1 showdown" not in ann.text()

        # While Bob decides: the last showdown again, a table key on it does nothing, chat over it.
        ann.press("v")
        ann.wait_for("Round 1 showdown")
        ann.press("a", "n")
        ann.wait_for("Round 1 showdown")
        chat(ann, "gg so far", over=True)
        hears(bob, "Ann", "gg so far")
        checkpoint(evening, "result", ann)
        screen = ann.wait_for("Round 1 showdown")
        assert "sitting out" not in screen and "bell" not in screen.lower()
        ann.press("escape")
        ann.wait_gone("Round 1 showdown")

        # Sit out (asks first mid-round; chat from the question), and come back.
        play_until([ann, bob], game, lambda: "s take from stock" in ann.text(), what="Ann's turn again")
        sit_out_and_back(evening, asked=True)

        too_small_and_back(ann, size, ("s", "a", "l"))
        assert "You are sitting out" not in ann.text()  # a (sit out) acted on nothing
        drop_and_leave(evening)
        game_over_and_rematch(evening, "Round 1")
        history_and_replay(evening, "Down and Back")
        assert evening.reached == list(STEPS)


TRACK = r"[·○●.o@]{5} "  # five holes of a pegboard track (unicode or ASCII), pegs included


def pegboard_names(text: str) -> list[str]:
    """The names the pegboard shows for the tracks that have a score beside them: a side's name is the label
    of its track's first row, or (when a name is too long for that column) a line of its own above it."""
    lines = text.splitlines()
    names = []
    for above, line in zip(lines, lines[1:]):
        if re.match(rf"^\s*\d+\s+{TRACK}", line):  # the score row
            beside = re.match(rf"^\s*(\S.*?)\s+{TRACK}", above)
            names.append(beside.group(1) if beside else re.split(r"\s{2,}", above.strip())[0])
    return names


def count_row(player: Terminal, size: tuple[int, int]) -> str | None:
    """The play's count and its cards as the player reads them: the screen, if it shows ``Count N`` with the
    cards laid since it started (at 80x24 in a row of card names under it, larger as card faces)."""
    text = player.text()
    lines = text.splitlines()
    at = next((i for i, line in enumerate(lines) if re.search(r"Count \d+", line)), None)
    if at is None or re.search(r"Count 0\b", lines[at]):
        return None
    below = "\n".join(lines[at + 1: at + 8])
    cards = re.search(r"(10|[2-9AJQK])[♠♥♦♣]", lines[at + 1]) if size == (80, 24) else "╭" in below
    # (a frame can be drawn half-way through a change: wait for one that shows all of it)
    whole = "Starter" in text and " crib" in text and len(re.findall(r"^\s*\d+\s+[·○●]", text, re.M)) == 3
    return text if cards and whole else None


@pytest.mark.parametrize("size", SIZES, ids=SIZE_IDS)
def test_an_evening_of_cribbage(tmp_path, size):
    game = "cribbage"
    with EveningServer(tmp_path / "server", round_pause=1.0) as server:
        evening = gather(server, size, game, muggins=True)
        ann, bob = evening.players
        play_until([ann, bob], game, lambda: "Lay away 1:" in ann.text(), what="Ann laying away")
        checkpoint(evening, "playing", ann)

        # Laying away: typing in chat lays nothing away (1, 2, space and Enter are the line's).
        chat(ann, "12 lay 1 away")
        hears(bob, "Ann", "12 lay 1 away")
        text = ann.text()
        assert "Lay away 1: 0 chosen" in text and re.search(r"^\s*1\s+2\s+3\s+4\s+5\s", text, re.M), text  # none chosen

        # The play: each reads both pegboard tracks with their scores, the count and its cards, the starter.
        shown = play_until([ann, bob], game, lambda: count_row(ann, size), what="a count with cards, on Ann's screen")
        for name in ("Ann", "Bob", "Ada (bot)"):
            assert name in pegboard_names(shown), shown
        assert len(re.findall(r"^\s*\d+\s+[·○●]", shown, re.M)) == 3, shown  # three scores beside their tracks
        assert "Starter" in shown and " crib" in shown, shown
        bob_shown = play_until([ann, bob], game, lambda: count_row(bob, size), what="a count with cards, on Bob's")
        assert "Starter" in bob_shown and " crib" in bob_shown, bob_shown

        # The show, under muggins: each claims 0 (short) and the other lets the points go; while one decides
        # that, the one who claimed has the show in view: chat over it.
        def showing_the_show(player: Terminal) -> bool:
            text = player.text()
            return "The show" in text and "Close" in text.splitlines()[-1]

        def waiting_on_the_other() -> Terminal | None:
            for first, second in ((ann, bob), (bob, ann)):
                if showing_the_show(first) and any(sign in second.text() for sign in ("short!", "Claim your")):
                    return first
            return None

        spared_until = time.monotonic() + 15

        def spare(player: Terminal, text: str) -> bool:  # let the other's screen show the show first
            return "short!" in text and time.monotonic() < spared_until

        mark = {p.name: p.mark() for p in (ann, bob)}
        first = play_until([ann, bob], game, waiting_on_the_other, spare=spare, what="a claim or muggins to wait on")
        second = bob if first is ann else ann
        chat(first, "counting", over=True)
        assert showing_the_show(first), first.dump()
        checkpoint(evening, "result", first)
        assert showing_the_show(first), first.dump()
        hears(second, first.name, "counting", since=mark[second.name])
        play_until([ann, bob], game, lambda: ann.seen(re.compile(r"\bpegs \d+"), mark["Ann"])
                   and bob.seen(re.compile(r"\bpegs \d+"), mark["Bob"]), what="the show counted on both screens")

        # The next deal closes the show by itself (for whoever had left it up): laying away again. (Which deal
        # that is depends on the deals: a claim to wait on may have come only in a later one.)
        def deal_no(text: str) -> int:
            found = re.search(r"\bdeal (\d+)", text.splitlines()[0] if text else "")
            return int(found.group(1)) if found else 0

        shown_in, since = deal_no(ann.text()), ann.mark()
        play_until([ann, bob], game, lambda: ann.seen(lambda text: deal_no(text) > shown_in and "Lay away" in text,
                                                      since), what="the next deal")
        assert "The show" not in ann.text()

        # Sit out between deals or mid-deal (asked first mid-deal, chat from the question), and come back.
        sit_out_and_back(evening, asked=None)

        too_small_and_back(ann, size, ("1", "a", "l"))
        assert "You are sitting out" not in ann.text()
        drop_and_leave(evening)
        game_over_and_rematch(evening, "deal 1")
        history_and_replay(evening, "Cribbage")
        assert evening.reached == list(STEPS)


def test_the_evenings_checks_run_at_their_steps_and_say_where_they_failed(monkeypatch):
    """The harness's hook (for other work's checks): a check runs at the steps it registered for, in the
    games it names, and a failing one says the game, the size, the step and its name; unknown steps are refused."""
    import evening_helpers

    evening_helpers.load_checks()  # (the real ones, then set aside for this test)
    monkeypatch.setattr(evening_helpers, "CHECKS", {step: [] for step in STEPS})
    ran: list[tuple[str, str]] = []

    @evening_helpers.at("lobby", "history")
    def noted(evening: Evening) -> None:
        ran.append((evening.game, evening.step))

    @evening_helpers.at("result", games=("cribbage",))
    def fails(evening: Evening) -> None:
        assert evening.who is None, "the result's player"

    evening = Evening(None, "down-and-back", (80, 24), None, None)  # type: ignore[arg-type]
    for step in STEPS:
        checkpoint(evening, step, who="Ann" if step == "result" else None)  # type: ignore[arg-type]
    assert ran == [("down-and-back", "lobby"), ("down-and-back", "history")]
    assert evening.reached == list(STEPS)
    cribbage = Evening(None, "cribbage", (120, 40), None, None)  # type: ignore[arg-type]
    checkpoint(cribbage, "lobby")
    with pytest.raises(AssertionError, match=r"cribbage at 120x40, step 'result', check fails: the result's player"):
        checkpoint(cribbage, "result", who="Bob")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        evening_helpers.at("lunch")
