"""Each game's events have one wording (its GameType.describe), read by the export table by table."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import server.export
import server.store
from engine.contract import plain_text
from engine.games import find_game
from engine.records import Record
from server.export import DamagedHistory, history_text

GAME = find_game("down-and-back")
NAMES = {0: "Ann", 1: "Bob"}


def line(record: Record, viewer: int | None = None) -> str | None:
    parts = GAME.describe(record.for_seat(viewer))
    return None if parts is None else plain_text(parts, lambda seat: NAMES.get(seat, "the table"))


def test_every_event_kind_reads_as_one_plain_line():
    result = {"round": 1, "reveal": [], "down_winner": 0, "back_winner": 1, "pot": 40, "winner": None, "carried": 40,
              "down_draws": [[{"seat": 0, "card": "5H"}, {"seat": 1, "card": "5C"}], [{"seat": 0, "card": "KD"},
                                                                                  {"seat": 1, "card": "2S"}]],
              "back_draws": []}
    expected = [
        (Record("round", None, {"round": 1, "dealer": 1, "cutter": 0, "ante": 10, "pot": 20}),
         "Bob deals, Ann cuts; antes of 10 each: pot 20"),
        (Record("cut", 1, {"position": 17, "random": True}), "Bob cuts at 17 (random)"),
        (Record("deal", 0, {"cards": 7}, {"hand": ["AS", "2H"]}), "Ann is dealt AS 2H"),
        (Record("up_card", None, {"card": "9D", "stock": 37}), "Up card 9D, 37 cards in the stock"),
        (Record("take_stock", 0, {}, {"card": "QC"}), "Ann takes QC from the stock"),
        (Record("take_discard", 1, {"card": "9D"}), "Bob takes 9D from the discard pile"),
        (Record("discard", 1, {"card": "10H"}), "Bob discards 10H"),
        (Record("skip", 0), "Ann skips"),
        (Record("call_end", 0, {"orbit": 3}), "Ann calls the end after orbit 3"),
        (Record("reshuffle", None, {"stock": 30, "up_card": "4S"}), "The discard pile is shuffled into a new stock of 30"),
        (Record("showdown", None, {"seats": [0, 1]}), "Showdown"),
        (Record("reveal", 0, {"down": ["KS", "KH", "KD", "KC"], "back": ["2S", "3S", "4S"],
                              "down_name": "Quad of kings", "back_name": "Bouncer to the four"}),
         "Ann: down KS KH KD KC (Quad of kings), back 2S 3S 4S (Bouncer to the four)"),
        (Record("result", None, result), "Going down: Ann wins after tie-break draws Ann 5H, Bob 5C; Ann KD, Bob 2S; "
                                        "Coming back: Bob wins; no one wins both: the pot of 40 carries over"),
        (Record("result", 1, {**result, "winner": 1, "down_draws": []}),
         "Going down: Ann wins; Coming back: Bob wins; Bob wins both and takes the pot of 40"),
        (Record("away", 1), "Bob sits out"),
        (Record("back", 1), "Bob is back"),
        (Record("game_over", None, {"reason": "ended by the table", "refunds": [], "standings": []}),
         "Game over: ended by the table"),
        (Record("split_in", 0, {}, {"down": ["KS"], "back": []}), None),
    ]
    for record, text in expected:
        assert line(record, record.seat) == text


def test_a_reader_who_may_not_see_the_card_reads_a_card():
    assert line(Record("take_stock", 0, {}, {"card": "QC"}), viewer=1) == "Ann takes a card from the stock"


def test_the_export_words_events_through_the_game():
    log = [Record("take_stock", 0, {}, {"card": "QC"}).to_data(), Record("skip", 1).to_data()]
    table = {"table_id": "t1", "name": "T", "game": "down-and-back", "state": "finished", "settings": {},
             "final_stacks": None,
             "game_settings": {"ante": 10, "stack": 100, "turns": 6}, "initial_players": [[0, "Ann", 100], [1, "Bob", 100]],
             "rounds": [{"round": 1, "names": {"0": "Ann", "1": "Bob"}, "dealer": 1, "cutter": 0, "log": log,
                         "result": {"winner": 0}, "pot": 0, "stacks": {"0": 110, "1": 90}}]}
    text = history_text({"tables": [table]})
    assert "  Ann takes QC from the stock\n  Bob skips\n" in text


def test_each_exported_table_is_stamped_and_worded_by_its_own_game():
    """Two games in one export: each table's title, settings and events come from its game (find_game)."""
    down_and_back = {"table_id": "t1", "name": "Pot", "game": "down-and-back", "state": "finished", "settings": {},
                     "final_stacks": {"0": 110, "1": 90}, "initial_players": [[0, "Ann", 100], [1, "Bob", 100]],
                     "game_settings": {"ante": 10, "stack": 100, "turns": 6, "early_call": True, "no_take_back": False},
                     "rounds": [{"round": 1, "log": [Record("skip", 1).to_data()], "result": None,
                                 "stacks": {"0": 110, "1": 90}}]}
    cribbage = {"table_id": "t2", "name": "Pegs", "game": "cribbage", "state": "playing", "settings": {},
                "final_stacks": None, "initial_players": [[0, "Cat", 50], [1, "Dan", 50]], "game_settings": None,
                "rounds": [{"round": 1, "log": [Record("go", 1).to_data()], "result": {}, "stacks": {"0": 50, "1": 50}}]}
    text = history_text({"tables": [down_and_back, cribbage]})
    assert '=== Table t1 "Pot" (Down and Back, finished): ante 10, stack 100, turns 6, early call\n' in text
    assert "  Bob skips\n  The game ended before this round did\n  Stacks: Ann 110, Bob 90\n" in text
    assert "Final stacks: Ann 110, Bob 90\n" in text
    assert '=== Table t2 "Pegs" (Cribbage, playing)\n' in text and "  Dan says go\n" in text


def test_an_exported_table_of_an_unknown_game_is_named():
    table = {"table_id": "t9", "name": "X", "game": "go-fish", "state": "finished", "settings": {},
             "final_stacks": None, "initial_players": None, "game_settings": None, "rounds": []}
    with pytest.raises(DamagedHistory, match="table t9: no game called 'go-fish'"):
        history_text({"tables": [table]})


def test_the_store_and_the_export_know_no_game():
    """server/store.py and server/export.py reach games only through engine.games (find_game)."""
    for module in (server.store, server.export):
        tree = ast.parse(Path(module.__file__).read_text())
        imported = {node.module for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)}
        imported |= {alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names}
        assert not {name for name in imported if name and name.startswith("engine.games.")}, module.__name__
