"""Down and Back's own rules under random legal play: the deal rotates, orbits are counted, games end.

The invariants every game keeps (cards, chips, hidden information, round
trips, replay, bots) are checked for every registered game in test_game_properties.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import HealthCheck, given, settings as hsettings, strategies as st

from engine.cards import DECK
from engine.contract import EndGame, SetAway, StartRound
from engine.games import find_game
from engine.errors import EngineError, IllegalAction
from engine.games.down_and_back.actions import CallEnd, Cut, Discard, Skip, Split, TakeDiscard, TakeStock
from engine.games.down_and_back.rules import OVER, PLAY, SHOWDOWN, WAITING, Game, Settings
from engine.rng import HashRng
from engine.games.down_and_back.views import view_for


def check_invariants(game: Game) -> None:
    """Down and Back's own bookkeeping (the invariants every game keeps are in test_game_properties)."""
    assert game.pot == sum(p.contributed for p in game.players.values())
    for seat in [None, *game.players]:
        view = view_for(game, seat)
        assert "stock" not in view
        if seat is not None:
            assert view["hand"] == [str(c) for c in game.players[seat].hand]


def play(game: Game, chooser: random.Random, rounds: int, check: bool = True) -> list[dict]:
    """Play up to ``rounds`` rounds choosing uniformly among legal actions."""
    summaries = []
    for _ in range(rounds):
        if game.phase == OVER or len(game.eligible_seats()) < 2:
            break
        dealer_before = game.dealer
        game.apply(None, StartRound())
        order = list(game.order)
        if dealer_before is not None and dealer_before in order:
            assert game.dealer == game.left_of(dealer_before, order)
        assert game.cutter == game.right_of(game.dealer, order)
        assert order[-1] == game.dealer and order[0] == game.left_of(game.dealer, order)
        turns_seen: Counter[int] = Counter()
        while game.phase not in (WAITING, OVER):
            seat = chooser.choice(game.to_act())
            if game.phase == PLAY and game.step == "draw":
                assert seat == order[turns_seen.total() % len(order)]
            actions = game.legal_actions(seat)
            assert actions
            action = chooser.choice(actions)
            game.apply(seat, action)
            if action.kind in ("discard", "skip"):
                turns_seen[seat] += 1
            if check:
                check_invariants(game)
        called = game.called_by is not None
        expected = {turns_seen[order[-1]]} if called else {game.settings.turns}
        assert set(turns_seen[s] for s in order) == expected
        if not called:
            assert all(game.players[s].turns_taken == game.settings.turns for s in order)
        summaries.append(dict(game.showdown or {}))
    return summaries


game_settings = st.builds(
    Settings,
    ante=st.sampled_from([1, 10, 50]),
    stack=st.sampled_from([50, 100, 1000]),
    turns=st.sampled_from([6, 7]),
    early_call=st.booleans(),
    no_take_back=st.booleans(),
)


@hsettings(max_examples=50, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    settings=game_settings,
    players=st.integers(2, 5),
    seed=st.integers(0, 2**32),
    rounds=st.integers(1, 3),
)
def test_random_play_rotates_the_deal_and_counts_the_orbits(settings, players, seed, rounds):
    seats = sorted(random.Random(seed).sample(range(5), players))
    game = Game(settings, [(s, f"p{s}") for s in seats], HashRng(seed))
    play(game, random.Random(seed), rounds)
    replayed = Game.replay(settings, game.initial_players, game.initial_rng, game.history)
    assert replayed.to_data() == game.to_data()


@hsettings(max_examples=40, deadline=None)
@given(settings=game_settings, players=st.integers(2, 5), seed=st.integers(0, 2**32))
def test_long_games_rotate_the_deal_and_end_when_chips_run_out(settings, players, seed):
    game = Game(settings, [(s, f"p{s}") for s in range(players)], HashRng(seed))
    chooser = random.Random(seed)
    dealers = []
    for _ in range(12):
        if game.phase == OVER:
            break
        if chooser.random() < 0.2:
            seat = chooser.choice(list(game.players))
            game.apply(None, SetAway(seat, not game.players[seat].away))
        if len(game.eligible_seats()) < 2:
            game.apply(None, SetAway(next(iter(game.players)), False))
            for s in game.players:
                game.apply(None, SetAway(s, False))
            if len(game.eligible_seats()) < 2:
                break
        play(game, chooser, 1, check=False)
        dealers.append((game.dealer, list(game.order)))
        assert game.chips_in_play() == game.brought
    for (before, _), (after, order) in zip(dealers, dealers[1:]):
        if before in order:
            assert after == game.left_of(before, order)
    if game.phase == OVER:
        assert game.pot == 0 and sum(p.stack for p in game.players.values()) == game.brought


def every_candidate(game: Game, seat: int) -> list:
    """Every action of every kind a seat might send now, legal or not."""
    hand = game.players[seat].hand
    candidates = [Cut(None), *(Cut(k) for k in range(0, 53)), TakeStock(), TakeDiscard(), Skip(), CallEnd()]
    candidates += [Discard(card) for card in DECK]
    if len(hand) == 7:
        candidates += [Split(tuple(hand[:4]), tuple(hand[4:])), Split(tuple(hand[:3]), tuple(hand[3:6]))]
        candidates += [Split(tuple(hand[:4]), (hand[4], hand[5], next(c for c in DECK if c not in hand)))]
    return candidates


@hsettings(max_examples=15, deadline=None)
@given(settings=game_settings, seed=st.integers(0, 2**32))
def test_check_accepts_exactly_what_legal_actions_lists(settings, seed):
    """Legality has one source (Game.allowed): check, legal_actions and the view's summary agree."""
    game = Game(settings, [(0, "a"), (1, "b"), (2, "c")], HashRng(seed))
    chooser = random.Random(seed)
    game.apply(None, StartRound())
    for _ in range(60):
        if game.phase in (WAITING, OVER):
            break
        for seat in game.players:
            legal = game.legal_actions(seat)
            summary = {entry["kind"] for entry in view_for(game, seat)["legal"]}
            assert summary == {action.kind for action in legal}
            for action in every_candidate(game, seat):
                try:
                    game.check(seat, action)
                    accepted = True
                except EngineError:
                    accepted = False
                listed = action in legal or (action.kind == "split" and game.phase == SHOWDOWN and seat in game.to_act()
                                             and set(action.down) | set(action.back) == set(game.players[seat].hand)
                                             and len(action.down) == 4)
                assert accepted == listed, (seat, action, accepted)
        seat = chooser.choice(game.to_act())
        game.apply(seat, chooser.choice(game.legal_actions(seat)))


def test_taking_from_an_empty_discard_pile_is_refused_and_changes_nothing():
    game = Game(Settings(), [(0, "a"), (1, "b")], HashRng(3))
    game.apply(None, StartRound())
    game.apply(game.to_act()[0], Cut(None))
    game.stock.extend(game.discard_pile)  # the pile emptied, as a reshuffle of a one-card pile leaves it
    game.discard_pile.clear()
    before = game.to_data()
    with pytest.raises(IllegalAction, match="the discard pile is empty"):
        game.apply(game.to_act()[0], TakeDiscard())
    assert game.to_data() == before
    assert TakeDiscard() not in game.legal_actions(game.to_act()[0])


def test_down_and_back_summaries_name_the_round_and_the_leader():
    game_type = find_game("down-and-back")
    game = game_type.new(game_type.settings({"ante": 10, "stack": 20}), [(0, "Ann", 20), (1, "Bob", 30)], HashRng(1))
    assert game_type.summary(game) == "Not started"
    game.apply(None, StartRound())
    assert game_type.summary(game) == "Round 1, pot 20: Bob leads with 20"
    game.apply(None, EndGame())
    assert game_type.summary(game) == "Game over after 1 round: Bob finished with 30"
