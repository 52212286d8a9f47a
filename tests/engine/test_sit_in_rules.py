"""The ``sit_in`` table action: a new player takes a free seat of a running game (issue 12, item 7).

Down and Back deals them in from the next round (they ante like everyone);
Cribbage, whose deal and stakes are fixed for the players who began, refuses.
"""

from __future__ import annotations

import random

import pytest

from engine.contract import SitIn, StartRound, table_action_from_data
from engine.errors import IllegalAction, InvalidAction
from engine.games import find_game
from engine.games.down_and_back.actions import action_from_data
from engine.games.down_and_back.rules import PLAY, WAITING, Game
from engine.rng import HashRng

DOWN_AND_BACK = find_game("down-and-back")


def new_game() -> Game:
    return DOWN_AND_BACK.new(DOWN_AND_BACK.settings({"ante": 10, "stack": 100}), [(0, "Ann", 100), (2, "Bob", 100)],
                             HashRng(b"sit in"))


def play_round(game: Game, chooser: random.Random) -> None:
    while game.phase != WAITING:
        seat = chooser.choice(game.to_act())
        game.apply(seat, chooser.choice(game.legal_actions(seat)))


def test_a_player_sitting_in_mid_round_is_dealt_in_at_the_next_round():
    game, chooser = new_game(), random.Random(1)
    game.apply(None, StartRound())
    while game.phase != PLAY:
        seat = game.to_act()[0]
        game.apply(seat, game.legal_actions(seat)[0])
    hands_before = {s: list(p.hand) for s, p in game.players.items()}
    (record,) = game.apply(None, SitIn(1, "Cat", 80))
    assert DOWN_AND_BACK.describe(record.for_seat(None)) is not None
    assert list(game.players) == [0, 1, 2]  # seats stay in clockwise order
    assert game.players[1].hand == [] and not game.players[1].in_round  # this round goes on without them
    assert {s: p.hand for s, p in game.players.items() if s != 1} == hands_before
    assert game.legal_actions(1) == [] and 1 not in game.order
    assert game.chips_in_play() == 280 == game.brought
    play_round(game, chooser)
    game.apply(None, StartRound())
    assert 1 in game.order and game.players[1].in_round and game.players[1].stack == 70  # anted
    assert game.chips_in_play() == 280
    restored = DOWN_AND_BACK.from_data(game.to_data())
    assert restored.to_data() == game.to_data()
    replayed = Game.replay(game.settings, game.initial_players, game.initial_rng,
                           [(s, a) for s, a in game.history])  # the log replays it, sit-in included
    assert replayed.to_data() == game.to_data()
    game.apply(None, action_from_data({"kind": "end_game"}))
    assert {row["seat"]: row["brought"] for row in game.standings} == {0: 100, 1: 80, 2: 100}


def test_sitting_in_is_refused_where_the_rules_refuse_it():
    game = new_game()
    with pytest.raises(IllegalAction, match="seat 0 is taken"):
        game.apply(None, SitIn(0, "Cat", 80))
    with pytest.raises(IllegalAction, match="at least the ante"):
        game.apply(None, SitIn(1, "Cat", 5))
    with pytest.raises(IllegalAction, match="only the table"):
        game.apply(0, SitIn(1, "Cat", 80))
    for seat in (1, 3, 4):
        game.apply(None, SitIn(seat, f"p{seat}", 50))
    with pytest.raises(IllegalAction, match="at most 5 players"):
        game.apply(None, SitIn(5, "Six", 50))
    assert "sat_in" not in new_game().to_data()  # checkpoints of games nobody joined read as before


def test_cribbage_takes_no_new_players_during_a_game():
    cribbage = find_game("cribbage")
    game = cribbage.new(cribbage.settings(), [(0, "Ann", 100), (1, "Bob", 100)], HashRng(b"crib"))
    before = game.to_data()
    with pytest.raises(IllegalAction, match="Cribbage takes no new players"):
        game.apply(None, cribbage.action_from_data({"kind": "sit_in", "seat": 2, "name": "Cat", "chips": 50}))
    assert game.to_data() == before


def test_sit_in_data_is_checked():
    assert table_action_from_data({"kind": "sit_in", "seat": 1, "name": "Cat", "chips": 5}) == SitIn(1, "Cat", 5)
    for bad in ({"seat": True, "name": "Cat", "chips": 5}, {"seat": 1, "name": "", "chips": 5},
                {"seat": 1, "name": "Cat", "chips": "5"}):
        with pytest.raises(InvalidAction):
            action_from_data({"kind": "sit_in", **bad})
