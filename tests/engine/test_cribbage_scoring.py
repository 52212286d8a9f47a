"""Cribbage's scorers: the show (fast table, itemised count, independent reference) and the play."""

from __future__ import annotations

from collections import Counter
from itertools import combinations

import pytest
from hypothesis import given, settings as hsettings, strategies as st

from engine.cards import DECK, parse_cards
from engine.games.cribbage.reference import reference_score
from engine.games.cribbage.scoring import play_score, show_items, show_score, show_score_indices, spoken


def _show(hand: str, starter: str, crib: bool = False) -> int:
    return show_score(parse_cards(hand), parse_cards(starter)[0], crib)


# (hand, starter, as a hand, as the crib): each counted by hand from the rules.
HAND_SCORED = [
    ("5H 5D 5C JS", "5S", 29, 29),  # the highest hand: his nobs with the fourth five turned up
    ("5H 5D JS 5C", "5S", 29, 29),  # the order of the hand does not matter
    ("5H 5D 5C JH", "5S", 28, 28),  # the jack not of the starter's suit: no nobs
    ("5H 5D 5C 5S", "10H", 28, 28),
    ("3H 4D 4C 5S", "KS", 10, 10),  # a double run of three: two runs, a pair, one fifteen
    ("3H 3D 4C 4S", "5H", 20, 20),  # a double double run: four runs of three, two pairs, two fifteens
    ("4H 4D 4C 5S", "6H", 21, 21),  # a triple run: three runs of three, pair royal, three fifteens
    ("6H 7D 8C 8S", "9H", 16, 16),  # a double run of four
    ("7H 7D 8C 8S", "9H", 24, 24),  # double double run with four fifteens
    ("4H 4D 5C 5S", "6H", 24, 24),
    ("AH 2D 3C KS", "KH", 9, 9),  # fifteen two, fifteen four, a pair is six, and a run of three is nine
    ("AH 2D 3C 4S", "5H", 7, 7),  # a run of five that is also a fifteen
    ("2H 3H 4H 5H", "6H", 14, 14),  # a run of five and a flush of five
    ("2H 3H 4H 5H", "6S", 13, 9),  # a flush of four counts in the hand only
    ("2H 4H 6H 8H", "KS", 4, 0),
    ("2H 4H 6H 8H", "KH", 5, 5),
    ("3D 6D 9D QD", "2D", 9, 9),
    ("3D 6D 9D QD", "2C", 8, 4),
    ("JH 2C 4D 6S", "9H", 5, 5),  # his nobs
    ("JH 2C 4D 6S", "JS", 2, 2),  # a jack turned up is his heels, never nobs
    ("2C 4D 6S 8H", "10D", 0, 0),
    ("QH KD AC 7S", "2H", 0, 0),  # Q-K-A is no run: the ace is low
    ("9H 10D QC KS", "2H", 0, 0),  # 9, 10, Q is no run
    ("7H 7D 7C AS", "8H", 18, 18),
    ("6H 6D 6C 6S", "KH", 12, 12),  # double pair royal and no fifteen
    ("AH AD AC AS", "KH", 12, 12),
    ("9H 9D 3C 3S", "KH", 8, 8),
    ("10H JD QC KS", "5H", 12, 12),
    ("10H JH QC KS", "5H", 13, 13),  # ... with his nobs
    ("5H 5D JC QS", "5C", 21, 21),  # pair royal, seven fifteens, nobs
    ("10H JD JC QS", "AH", 8, 8),  # a double run of three without fifteens
    ("10H JD JC QS", "AD", 9, 9),
    ("6H 6D 9C 9S", "3H", 14, 14),
    ("2S 3S 4S 6S", "5S", 14, 14),  # run of five, flush of five, fifteens 2+3+4+6 and 4+5+6
]


@pytest.mark.parametrize("hand, starter, as_hand, as_crib", HAND_SCORED)
def test_hand_scored_cases(hand, starter, as_hand, as_crib):
    assert _show(hand, starter) == as_hand
    assert _show(hand, starter, crib=True) == as_crib
    cards, turned = parse_cards(hand), parse_cards(starter)[0]
    assert reference_score(cards, turned) == as_hand and reference_score(cards, turned, crib=True) == as_crib
    items = show_items(cards, turned)
    assert (items[-1]["total"] if items else 0) == as_hand == sum(item["points"] for item in items)


def test_at_least_thirty_hand_scored_cases():
    assert len(HAND_SCORED) >= 30 and len({(h, s) for h, s, _, _ in HAND_SCORED}) == len(HAND_SCORED)


def test_the_29_hand_is_called_item_by_item():
    items = show_items(parse_cards("5H 5D 5C JS"), parse_cards("5S")[0])
    assert [item["name"] for item in items] == ["fifteen"] * 8 + ["a double pair royal", "his nobs"]
    assert spoken(items).endswith("a double pair royal is twenty-eight, and his nobs is twenty-nine")


def test_the_count_is_called_as_at_the_table():
    items = show_items(parse_cards("AH 2D 3C KS"), parse_cards("KH")[0])
    assert spoken(items) == "fifteen two, fifteen four, a pair is six, and a run of three is nine"
    assert spoken(show_items(parse_cards("2C 4D 6S 8H"), parse_cards("10D")[0])) == "nothing"
    runs = [item for item in show_items(parse_cards("3H 3D 4C 4S"), parse_cards("5H")[0]) if "run" in item["name"]]
    assert len(runs) == 4 and len({tuple(item["cards"]) for item in runs}) == 4  # each run names its own cards


def _suit_classes():
    """One hand of every class up to renaming the suits (a score never depends on which suit is which),
    weighted by how many hands it stands for: every (hand, starter) pair is counted, through its class."""
    def relabelled(hand):
        names: dict[int, int] = {}
        for index in hand:
            names.setdefault(index & 3, len(names))
        return tuple(sorted((index & ~3) | names[index & 3] for index in hand))
    return Counter(map(relabelled, combinations(range(52), 4)))


# Every (4-card hand, starter) pair, 12,994,800 in all, by its show's score (the published distribution).
KNOWN_DISTRIBUTION = {
    0: 1009008, 1: 99792, 2: 2813796, 3: 505008, 4: 2855676, 5: 697508, 6: 1800268, 7: 751324, 8: 1137236,
    9: 361224, 10: 388740, 11: 51680, 12: 317340, 13: 19656, 14: 90100, 15: 9168, 16: 58248, 17: 11196,
    18: 2708, 20: 8068, 21: 2496, 22: 444, 23: 356, 24: 3680, 28: 76, 29: 4,
}


def test_every_hand_and_starter_19_25_26_27_are_impossible():
    distribution: Counter = Counter()
    for hand, weight in _suit_classes().items():
        a, b, c, d = hand
        for starter in range(52):
            if starter not in hand:
                distribution[show_score_indices(a, b, c, d, starter)] += weight
    assert sum(distribution.values()) == 270725 * 48 == 12994800
    assert not {19, 25, 26, 27} & set(distribution)
    assert dict(distribution) == KNOWN_DISTRIBUTION


@hsettings(max_examples=300, deadline=None)
@given(cards=st.permutations(DECK).map(lambda deck: deck[:5]), crib=st.booleans())
def test_fast_itemised_and_reference_scorers_agree(cards, crib):
    hand, starter = cards[:4], cards[4]
    items = show_items(hand, starter, crib)
    fast = show_score(hand, starter, crib)
    assert fast == reference_score(hand, starter, crib) == (items[-1]["total"] if items else 0)


def _played(texts: str) -> list[tuple[int, str]]:
    """(points, reason) of each card laid in turn, all in one series."""
    cards = parse_cards(texts)
    return [play_score(cards[: i + 1]) for i in range(len(cards))]


def test_the_seeds_play_examples():
    assert [p for p, _ in _played("9H 6D 8C 7S")] == [0, 2, 0, 4]
    assert _played("9H 6D 8C 7S")[3][1] == "a run of four for four"
    assert [p for p, _ in _played("8H 7D 7C 6S")] == [0, 2, 2, 0]  # the extra seven is a foreign card
    assert _played("8H 7D 7C 6S")[1][1] == "fifteen for two"
    assert [p for p, _ in _played("JH 9D 10C")] == [0, 0, 3]
    assert [p for p, _ in _played("9H 10D QC")] == [0, 0, 0]


@pytest.mark.parametrize("cards, points", [
    ("AH 2D 3C", 3), ("3H AD 2C", 3), ("4H 2D 3C AS", 4), ("AH 2D 3C 4S", 4),
    ("5H 3D AC 2S 4H", 2 + 5),  # the count is 15 too
    ("2H 3D 4C 5S 6H", 5), ("6H 4D 5C 3S 2H", 5),
    ("2H 4D 6C AS 3H 5D", 6), ("AH 2D 3C 4S 5H 6D", 6),
    ("7H 5D 3C AS 2H 4D 6C", 7), ("AH 2D 3C 4S 5H 6D 7C", 7),
])
def test_runs_of_three_to_seven_in_and_out_of_order(cards, points):
    assert _played(cards)[-1][0] == points


def test_pairs_pair_royal_and_double_pair_royal():
    assert [p for p, _ in _played("3H 3D 3C 3S")] == [0, 2, 6, 12]
    assert _played("3H 3D 3C 3S")[3][1] == "a double pair royal for twelve"
    assert [p for p, _ in _played("JH QD")] == [0, 0]  # a jack pairs only with a jack


def test_thirty_one_with_a_pair():
    assert _played("10H 9D 6C 6S")[-1] == (4, "thirty-one for two and a pair for two")
    assert _played("QH 7D 7C 7S")[-1] == (8, "thirty-one for two and a pair royal for six")
