"""The action log: read as (seat, plain data) pairs, stored so the GC can skip it."""

from __future__ import annotations

import gc

import pytest

from engine.games.down_and_back.actions import Cut, Discard, Split, StartRound, action_from_data
from engine.records import ActionLog
from engine.games.down_and_back.bots import baseline_action
from engine.cards import Card, parse_cards
from engine.errors import InvalidAction
from engine.games.down_and_back.rules import WAITING, Game, Settings
from engine.rng import HashRng
from engine.games.down_and_back.views import decision_view


def played_round() -> Game:
    game = Game(Settings(), [(s, f"p{s}") for s in range(3)], HashRng(5))
    game.apply(None, StartRound())
    while game.phase != WAITING:
        for seat in game.to_act():
            game.apply(seat, baseline_action(decision_view(game, seat)))
    return game


def test_entries_read_back_as_plain_data_in_order():
    log = ActionLog()
    log.append(None, StartRound())
    log.append(2, Cut(9))
    log.append(0, Discard(Card.parse("7S")))
    log.append(1, Split(tuple(parse_cards("AS AH 2C 3D")), tuple(parse_cards("KS QS JS"))))
    assert len(log) == 4
    assert log[1] == (2, {"kind": "cut", "position": 9})
    assert log[-1] == (1, {"kind": "split", "down": ["AS", "AH", "2C", "3D"], "back": ["KS", "QS", "JS"]})
    assert log[1:3] == [(2, {"kind": "cut", "position": 9}), (0, {"kind": "discard", "card": "7S"})]
    assert [seat for seat, _ in log] == [None, 2, 0, 1]


def test_changing_what_was_read_does_not_change_the_log():
    log = ActionLog([(1, {"kind": "split", "down": ["AS", "AH", "2C", "3D"], "back": ["KS", "QS", "JS"]})], action_from_data)
    _, data = log[0]
    data["down"].append("4C")
    data["kind"] = "discard"
    assert log[0] == (1, {"kind": "split", "down": ["AS", "AH", "2C", "3D"], "back": ["KS", "QS", "JS"]})


def test_loading_checks_every_entry():
    with pytest.raises(InvalidAction):
        ActionLog([(0, {"kind": "discard", "card": "ZZ"})], action_from_data)
    with pytest.raises(InvalidAction):
        ActionLog([(0, {"kind": "fold"})], action_from_data)


def test_game_history_round_trips_through_plain_data():
    game = played_round()
    restored = Game.from_data(game.to_data())
    assert restored.history == game.history
    assert list(restored.history) == list(game.history)
    assert game.history[0] == (None, {"kind": "start_round"})


def test_logged_actions_are_not_left_for_the_gc_to_scan():
    game = played_round()
    gc.collect()  # tuples and dicts of atomic values are untracked by a full collection
    parts = [part for part in gc.get_referents(game.history) if type(part) is list]
    stored = [item for part in parts for item in gc.get_referents(part)]
    assert len(stored) == 2 * len(game.history)  # every seat and every action's data
    assert not [item for item in stored if gc.is_tracked(item)]
