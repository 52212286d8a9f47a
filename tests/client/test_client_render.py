"""Pure rendering: cards in Unicode/ASCII and two or four colours, log lines, cleaning, charts."""

from __future__ import annotations

from engine.games import find_game

from client.render import GREEN, BLUE, RED, Display, clean_data, plain, render_parts
from client.screens.gameover import sparkline, standings_content
from client.games.down_and_back.help import RULES
from client.screens.help import rules_markdown


def test_suit_colours_and_glyphs():
    two, four = Display(), Display(four_colour=True)
    assert [two.suit_style(s) for s in "SHDC"] == ["", RED, RED, ""]
    assert [four.suit_style(s) for s in "SHDC"] == ["", RED, BLUE, GREEN]
    assert two.card_text("10H") == "10♥" and Display(ascii=True).card_text("10H") == "10h"
    assert Display(ascii=True).ellipsis == "..." and two.ellipsis == "…"
    assert "♠" not in "".join(line.plain for line in Display(ascii=True).card_boxes(["AS", None]))


def test_log_lines_are_the_engines_wording_styled_with_you_for_our_own_seat():
    names = {0: "Ann", 1: "[b]Bob[/b]"}
    d = Display()
    describe = find_game("down-and-back").describe

    def line(event, me=None, **kw):
        return render_parts(describe(event), names, d, me, **kw).plain

    assert line({"kind": "discard", "seat": 1, "card": "7H"}) == "[b]Bob[/b] discards 7♥"  # literal, never markup
    assert line({"kind": "take_stock", "seat": 0, "card": "KC"}, me=0) == "You take K♣ from the stock"
    assert line({"kind": "take_stock", "seat": 1}, me=0) == "[b]Bob[/b] takes a card from the stock"
    assert line({"kind": "back", "seat": 0}, me=0) == "You are back"
    assert line({"kind": "cut", "seat": 0, "position": 23, "random": True}, me=0) == "You cut at 23 (random)"
    discard = describe({"kind": "discard", "seat": 0, "card": "10D"})
    assert render_parts(discard[1:], names, Display(ascii=True), 0).plain == " discard 10d"  # going on "You take ..."
    result = {"kind": "result", "pot": 1200, "winner": 0, "down_winner": 0, "back_winner": 0,
              "down_draws": [], "back_draws": []}
    assert line(result, me=0) == ("Going down: you win; Coming back: you win; "
                                  "you win both and take the pot of 1,200")
    assert line(result, me=1).endswith("Ann wins both and takes the pot of 1,200")


def test_plain_strips_escapes_and_controls():
    assert plain("\x1b[31mred\x1b[0m") == "red"
    assert plain("\x1b]0;title\x07x") == "x"
    assert plain("a\u202eb\u200bc") == "abc"
    assert plain("tab\tnew\nline") == "tab new line"
    assert clean_data({"players": [{"name": "\x1b[2Jz", "stack": 5}]}) == {"players": [{"name": "z", "stack": 5}]}


def test_sparkline_and_standings():
    assert sparkline([0, 5, 10], 0, 10) == "▁▅█" and sparkline([3, 3], 3, 3, ascii=True) == "++"
    view = {"seat": 0, "standings": [{"seat": 0, "name": "Ann", "stack": 1030, "brought": 1000},
                                     {"seat": 1, "name": "[i]Bo[/i]", "stack": 970, "brought": 1000}],
            "chip_history": [{"0": 1000, "1": 1000}, {"0": 1030, "1": 970}]}
    text = standings_content(view, Display()).plain
    assert "+30" in text and "-30" in text and "[i]Bo[/i]" in text and "Chips through the game" in text


def test_rules_examples_follow_the_display():
    assert "3♥ 3♦ 3♣ 8♠" in rules_markdown(Display(), RULES)
    assert "3h 3d 3c 8s" in rules_markdown(Display(ascii=True), RULES)


def test_every_word_about_our_seat_is_in_the_second_person_in_every_game():
    """The engine marks the words that agree with a player; "You drew the lowest card, 4♠, and deal first"."""
    names = {0: "Ann", 1: "Bob"}
    d = Display()
    crib = find_game("cribbage").describe

    def line(event, me=0):
        return render_parts(crib(event), names, d, me).plain

    assert line({"kind": "dealer", "seat": 0, "card": "4S"}) == "You drew the lowest card, 4♠, and deal first"
    assert line({"kind": "dealer", "seat": 0, "card": "4S"}, me=1) == "Ann drew the lowest card, 4♠, and deals first"
    assert line({"kind": "draw", "seat": 0, "position": 12, "random": False, "card": "9H"}) == \
        "You cut at 12 and draw 9♥"
    assert line({"kind": "show", "seat": 0, "what": "crib", "cards": ["5H", "5D", "JC", "KS"], "starter": "5C",
                 "items": [], "points": 0, "score": 10}).startswith("Your crib 5♥ 5♦ J♣ K♠ with 5♣")
    assert line({"kind": "show", "seat": 1, "what": "hand", "cards": ["5H", "5D", "JC", "KS"], "starter": "5C",
                 "items": [], "points": 0, "score": 10}).startswith("Bob's hand")
    assert line({"kind": "away", "seat": 0}) == "You are away (the table plays for you)"
    assert line({"kind": "muggins", "seat": 0, "of": 1, "take": True, "missed": 2, "points": 2,
                 "items": [], "score": 30}).startswith("You call muggins and take the 2 missed")
    won = {"kind": "game_won", "seat": 0, "game": 1, "winners": [0], "scores": [121, 80],
           "losses": [{"seat": 1, "chips": 100, "multiplier": 1}], "gains": [{"seat": 0, "chips": 100}]}
    assert line(won).startswith("You win game 1") and "Bob pays 100" in line(won)
    assert "you pay 100" in line(won, me=1)
    rematch = find_game("down-and-back").describe({"kind": "rematch", "seat": 0})
    assert render_parts(rematch, names, d, 0).plain.startswith("You offer a rematch")

    # What the client words itself about players goes through the same builder (issue 29 item 5): the show's
    # titles and muggins, a game's end, the crib's owner, the prompts.
    from client.games.cribbage.screens import result_rows
    from client.games.cribbage.widgets import show_rows

    counted = {"seat": 0, "what": "hand", "cards": ["5H", "5D", "JC", "KS"], "starter": "5C", "points": 2,
               "score": 10, "items": [], "muggins": {"seat": 1, "take": True, "points": 4}}
    crib = {**counted, "seat": 1, "what": "crib", "muggins": {"seat": 0, "take": True, "points": 3}}

    def shown(me):
        return "\n".join(row.plain for row in show_rows([counted, crib], names, d, me=me))

    assert "Your hand" in shown(0) and "muggins: Bob takes 4" in shown(0) and "Bob's crib" in shown(0)
    assert "muggins: you take 3" in shown(0) and "Ann" not in shown(0)
    assert "Ann's hand" in shown(1) and "muggins: you take 4" in shown(1) and "Your crib" in shown(1)
    assert "muggins: Ann takes 3" in shown(1) and "Bob" not in shown(1)
    result = {"game": 1, "target": 121, "winners": [0], "scores": [121, 80],
              "losses": [{"seat": 1, "chips": 100, "multiplier": 2}], "gains": [{"seat": 0, "chips": 100}]}
    sides = [{"seats": [0]}, {"seats": [1]}]

    def ended(me):
        return [row.plain for row in result_rows(result, sides, names, me, d)]

    assert ended(0)[0] == "You won game 1 at 121" and "Bob pays 100  SKUNKED: PAYS DOUBLE" in ended(0)
    assert "You take 100" in ended(0)
    assert ended(1)[0] == "Ann won game 1 at 121" and "You pay 100  SKUNKED: PAYS DOUBLE" in ended(1)
    assert "Ann takes 100" in ended(1)
    assert ended(None)[0] == "Ann won game 1 at 121" and "Bob pays 100  SKUNKED: PAYS DOUBLE" in ended(None)
    pair = {**result, "winners": [2, 0], "gains": [{"seat": 2, "chips": 50}, {"seat": 0, "chips": 50}]}
    assert [row.plain for row in result_rows(pair, sides, {**names, 2: "Cleo"}, 0, d)][0].startswith(
        "You & Cleo won")


def _bot_events(game_type, seed: int = 7, actions: int = 120):
    """The events of a seeded game two bots play, as seat 0 is sent them."""
    from engine.contract import StartRound, Status
    from engine.rng import HashRng

    game = game_type.new(game_type.settings(), [(0, "Ann", 1000), (1, "Bob", 1000)], HashRng(seed))
    events = [record.for_seat(0) for record in game.apply(None, StartRound())]
    for _ in range(actions):
        if game.status is not Status.PLAYING:
            break
        if not game.to_act():
            events += [record.for_seat(0) for record in game.apply(None, StartRound())]
            continue
        seat = game.to_act()[0]
        events += [record.for_seat(0) for record in game.apply(seat, game_type.bot_action(game, seat))]
    return events


def test_no_sentence_names_our_own_seat_in_any_game():
    """Every registered game and the fixture game: each event a game's bots make, as our seat (0, "Ann")
    reads it, says "you" for us, each of its verbs agreeing ("You cut the pack and draw", never "You
    cuts"); the same event read by the other seat names us."""
    import re

    from engine.games import GAMES
    from fixture_game import registered

    names, d = {0: "Ann", 1: "Bob"}, Display()
    third_person = re.compile(r"\b[Yy]ou (is|has|was|\w*[^s\W]s)\b")
    with registered():
        games = list(GAMES.values())
    for game_type in games:
        said = 0
        for event in _bot_events(game_type):
            parts = game_type.describe(event)
            if not parts:
                continue
            ours, theirs = render_parts(parts, names, d, 0).plain, render_parts(parts, names, d, 1).plain
            assert "Ann" not in ours and not third_person.search(ours), (game_type.name, ours)
            if event.get("seat") == 0:
                said += 1
                assert "Ann" in theirs or "the table" in theirs, (game_type.name, theirs)
        assert said >= 3, game_type.name


def test_large_cards_are_9x7_faces_with_their_index_at_two_corners_and_a_pip():
    """Issue 27 item 17: a larger terminal's cards, rank over suit at the top left, a pip in the middle, suit
    over rank at the bottom right; a back is patterned all over, an empty place blank; numbers under them."""
    from client.render import LARGE_CARD, SMALL_CARD

    lines = [line.plain for line in Display().card_boxes(["10H", None, ""], labels=["1", "2", "3"], large=True)]
    assert len(lines) == LARGE_CARD[1] + 1 and {len(line) for line in lines} == {3 * LARGE_CARD[0] + 2}
    faces = [line[:LARGE_CARD[0]] for line in lines]
    assert faces == ["╭───────╮", "│10     │", "│♥      │", "│   ♥   │", "│      ♥│", "│     10│", "╰───────╯",
                     "    1    "]
    back, empty = (([line[start:start + LARGE_CARD[0]] for line in lines[1:6]]) for start in (10, 20))
    assert set(back) == {"│░░░░░░░│"} and set(empty) == {"│       │"}
    ascii = [line.plain for line in Display(ascii=True).card_boxes(["QS"], large=True)]
    assert ascii == ["+-------+", "|Q      |", "|s      |", "|   s   |", "|      s|", "|      Q|", "+-------+"]
    small = [line.plain for line in Display().card_boxes(["10H"])]
    assert small == ["╭────╮", "│10♥ │", "│ 10♥│", "╰────╯"] and len(small[0]) == SMALL_CARD[0]
    selected = Display().card_boxes(["AS", "2S"], selected=1, large=True)
    reversed_cells = [{i for span in line.spans if "reverse" in str(span.style) for i in range(span.start, span.end)}
                      for line in selected[1:6]]
    assert reversed_cells == [set(range(11, 18))] * 5  # the second card's whole face, not its frame


def test_a_fan_of_cards_shows_each_index_and_the_last_card_whole():
    display = Display()
    fan = [line.plain for line in display.card_fan(["3H", "6C", "10S"], 3)]
    assert [len(line) for line in fan] == [3 + 3 + 9] * 7
    assert fan[1] == "│3 │6 │10     │" and fan[2] == "│♥ │♣ │♠      │" and fan[5] == "│  │  │     10│"
    apart = [line.plain for line in display.card_fan(["3H", "6C"], 10)]  # a card's width and one more
    assert apart == [line.plain for line in display.card_boxes(["3H", "6C"], large=True)]
    assert display.card_fan([], 3) == []
