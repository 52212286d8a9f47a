"""The strong Down and Back bot (issue 16): always legal, sees only its view, repeatable given its RNG."""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from engine.contract import StartRound, Status
from engine.games import find_game
from engine.games.down_and_back.rules import PLAY, Game, Settings
from engine.games.down_and_back.strong import strong_action
from engine.rng import HashRng, bot_rng

DOWN_AND_BACK = find_game("down-and-back")


def random_state(players: int, rules: dict, seed: int, steps: int) -> Game:
    """A game some random legal actions into a round (``steps`` of them, rounds restarted as needed)."""
    game = DOWN_AND_BACK.new(Settings(**rules), [(s, f"p{s}", 1000) for s in range(players)], HashRng(seed))
    chooser = random.Random(seed)
    game.apply(None, StartRound())
    for _ in range(steps):
        if game.status is Status.BETWEEN_ROUNDS:
            game.apply(None, StartRound())
        if game.status is not Status.PLAYING:
            break
        seat = game.to_act()[0]
        game.apply(seat, chooser.choice(game.legal_actions(seat)))
    return game


states = st.builds(
    random_state,
    players=st.integers(2, 5),
    rules=st.fixed_dictionaries({"turns": st.sampled_from([6, 7]), "early_call": st.booleans(),
                                 "no_take_back": st.booleans()}),
    seed=st.integers(0, 2**32),
    steps=st.integers(0, 90),
)


@hsettings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(states)
def test_strong_moves_are_always_legal(game: Game) -> None:
    """In any state of any setting, every seat to act gets a legal move from every level."""
    for seat in game.to_act():
        legal = game.legal_actions(seat)
        for level in DOWN_AND_BACK.bot_levels:
            action = DOWN_AND_BACK.bot_action(game, seat, level)
            assert action in legal, f"{level} chose {action}, not legal in {game.phase}"


def hide_differently(game: Game, seat: int, seed: int) -> Game:
    """The same game but for the cards ``seat`` cannot see: opponents' hands and the stock dealt anew."""
    other = Game.from_data(game.to_data())
    hidden = list(other.stock)
    for s, player in other.players.items():
        if s != seat:
            hidden += player.hand
    random.Random(seed).shuffle(hidden)
    for s, player in other.players.items():
        if s != seat:
            player.hand, hidden = hidden[:len(player.hand)], hidden[len(player.hand):]
    other.stock = hidden
    return other


@hsettings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(states, st.integers(0, 2**32))
def test_hidden_cards_cannot_change_the_choice(game: Game, shuffle_seed: int) -> None:
    """A change of the cards the seat cannot see (the other hands and the stock dealt anew) that
    leaves its view as it was cannot change its choice, given the same RNG."""
    for seat in game.to_act():
        other = hide_differently(game, seat, shuffle_seed)
        if other.view(seat) != game.view(seat):
            continue  # the view shows something of the moved cards (e.g. the showdown reveal)
        assert other.to_data() != game.to_data() or not game.stock
        assert strong_action(other.view(seat), HashRng(7)) == strong_action(game.view(seat), HashRng(7))
        assert DOWN_AND_BACK.bot_action(other, seat, "strong") == DOWN_AND_BACK.bot_action(game, seat, "strong")


def test_the_choice_is_the_same_for_the_same_game_and_decision() -> None:
    """The bot's lots come from the game's seed and the decision: the same state, the same choice; a
    different seed can choose differently (the lots are real)."""
    choices = set()
    for seed in range(12):
        game = random_state(3, {}, seed, 10)
        seat = game.to_act()[0]
        first = DOWN_AND_BACK.bot_action(game, seat, "strong")
        again = DOWN_AND_BACK.bot_action(Game.from_data(game.to_data()), seat, "strong")
        assert first == again
        choices.add(first)
    assert len(choices) > 1


def test_bot_rng_is_per_decision_and_leaves_the_game_alone() -> None:
    game = random_state(2, {}, 3, 5)
    before = game.to_data()
    a = [bot_rng(game.initial_rng, 5, 1).randbelow(10**9) for _ in range(2)]
    b = bot_rng(game.initial_rng, 6, 1).randbelow(10**9)
    assert a[0] == a[1] and a[0] != b
    DOWN_AND_BACK.bot_action(game, game.to_act()[0], "strong")
    assert game.to_data() == before  # the game's own stream is untouched: the deal stays as it would be


@pytest.mark.parametrize("level", DOWN_AND_BACK.bot_levels)
def test_every_level_plays_a_whole_round(level: str) -> None:
    game = random_state(4, {"early_call": True}, 11, 0)
    while game.status is Status.PLAYING:
        for seat in game.to_act():
            game.apply(seat, DOWN_AND_BACK.bot_action(game, seat, level))
    assert game.showdown is not None and game.phase != PLAY
