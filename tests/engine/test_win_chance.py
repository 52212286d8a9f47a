"""The calibrated win-both chance shown by the hand helper."""

import pytest

from engine.cards import parse_cards
from engine.games.down_and_back.splits import best_split, win_both_chance, win_both_estimate


def chance(down: str, back: str, opponents: int) -> float:
    return win_both_chance(parse_cards(down), parse_cards(back), opponents)


def test_a_monster_almost_always_wins_and_rubbish_almost_never():
    assert chance("KS KH KD KC", "QS QH QD", 4) > 0.95
    assert chance("2S 4H 6D 8C", "3S 5H 7D", 1) < 0.01


def test_more_opponents_never_help_and_none_means_certain():
    values = [chance("9H 9C QC 3S", "JH JD 8S", k) for k in range(5)]
    assert values[0] == 1.0
    assert all(a > b for a, b in zip(values, values[1:]))
    with pytest.raises(ValueError):
        chance("9H 9C QC 3S", "JH JD 8S", -1)


def test_it_is_more_sober_than_the_random_hand_estimate():
    """Opponents show their best split, not random hands: a pair-and-pair hand is no favourite."""
    option = best_split(parse_cards("9H 9C QC 3S JH JD 8S"))
    calibrated = win_both_chance(option.down, option.back, 3)
    assert calibrated < win_both_estimate(option, 3) / 10
    assert calibrated == win_both_chance(option.down, option.back, 3)  # a fixed sample: repeatable
