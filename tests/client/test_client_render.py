"""Pure rendering: cards in Unicode/ASCII and two or four colours, log lines, cleaning, charts."""

from __future__ import annotations

from engine.games import find_game

from client.render import GREEN, BLUE, RED, Display, clean_data, plain, render_parts
from client.games.down_and_back.gameover import sparkline, standings_content
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
    assert render_parts([{"text": " discards "}, {"card": "10D"}], names, Display(ascii=True), 0,
                        after_me=True).plain == " discard 10d"  # going on "You take ..."
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
