"""Split ranking, the best-split recommendation and the bots' fast helpers."""

from __future__ import annotations

import itertools
import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from engine.cards import DECK, Card, parse_cards
from engine.games.down_and_back.hands import Category3, Category4
from engine.games.down_and_back.tables import evaluate3, evaluate4, percentile3, percentile4
from engine.games.down_and_back.splits import best_discard, best_discard_index, best_split, best_split_score, DiscardSearch, rank_split_scores, rank_splits, rank_splits_reference, SplitOption, win_both_estimate

hands7 = st.lists(st.sampled_from(DECK), min_size=7, max_size=7, unique=True)
hands8 = st.lists(st.sampled_from(DECK), min_size=8, max_size=8, unique=True)


def as_sets(option: SplitOption) -> tuple[frozenset[Card], frozenset[Card]]:
    return frozenset(option.down), frozenset(option.back)


def brute_best_discard(eight: list[Card]) -> tuple[Card, float]:
    """Try every discard; equal scores throw the lowest card (by index)."""
    scored = [(best_split_score([c for c in eight if c != x]), x) for x in eight]
    best = max(s for s, _ in scored)
    return min((x for s, x in scored if s == best), key=lambda c: c.index), best


# ---------------------------------------------------------------- rank_splits


@settings(max_examples=150, deadline=None)
@given(hands7)
def test_rank_splits_are_the_35_partitions_best_first(seven: list[Card]) -> None:
    ranked = rank_splits(seven)
    assert len(ranked) == 35
    seen = set()
    for option in ranked:
        assert len(option.down) == 4 and len(option.back) == 3
        assert set(option.down) | set(option.back) == set(seven)
        assert not set(option.down) & set(option.back)
        assert 0.0 <= option.score <= 1.0
        assert option.down_value == evaluate4(option.down)
        assert option.back_value == evaluate3(option.back)
        assert option.score == pytest.approx(percentile4(option.down_value) * percentile3(option.back_value),
                                             rel=1e-12)
        seen.add(as_sets(option))
    assert len(seen) == 35
    scores = [o.score for o in ranked]
    assert scores == sorted(scores, reverse=True)
    assert scores == ranked.scores()
    assert best_split(seven) == ranked[0]
    assert best_split_score(seven) == ranked[0].score


@settings(max_examples=150, deadline=None)
@given(hands7)
def test_rank_splits_matches_the_straightforward_ranking(seven: list[Card]) -> None:
    fast = rank_splits(seven)
    slow = rank_splits_reference(seven)
    assert [(as_sets(o), o.score) for o in fast] == [
        ((frozenset(down), frozenset(back)), score) for score, down, back in slow
    ]


@settings(max_examples=100, deadline=None)
@given(hands7, st.randoms(use_true_random=False))
def test_ranking_does_not_depend_on_card_order(seven: list[Card], rnd: random.Random) -> None:
    shuffled = list(seven)
    rnd.shuffle(shuffled)
    assert [(as_sets(o), o.score) for o in rank_splits(seven)] == [
        (as_sets(o), o.score) for o in rank_splits(shuffled)
    ]
    assert best_split(seven) == best_split(shuffled)  # same cards, same display order
    assert best_split_score(seven) == best_split_score(tuple(shuffled))


def test_rank_split_scores_and_split_numbers() -> None:
    seven = parse_cards("9S JD 3D 2C 2D 9C 9D")
    ranked = rank_splits(seven)
    pairs = rank_split_scores(seven)
    assert [s for s, _ in pairs] == ranked.scores()
    assert [k for _, k in pairs] == ranked.split_numbers()
    ordered = sorted(seven, key=lambda c: c.index)
    triples = list(itertools.combinations(range(7), 3))
    for (score, k), option in zip(pairs, ranked):
        assert set(option.back) == {ordered[i] for i in triples[k]}


def test_ties_keep_a_fixed_order() -> None:
    # Two interchangeable pairs of cards: many equal scores.
    seven = parse_cards("2S 2H 9D 9C KS KH 5D")
    ranked = rank_splits(seven)
    slow = rank_splits_reference(seven)
    assert [as_sets(o) for o in ranked] == [(frozenset(d), frozenset(b)) for _, d, b in slow]
    assert len(set(ranked.scores())) < 35
    assert [as_sets(o) for o in rank_splits(list(reversed(seven)))] == [as_sets(o) for o in ranked]


def test_rank_splits_is_a_read_only_sequence() -> None:
    ranked = rank_splits(parse_cards("AS 2S 3S 4S 5H 6H 7H"))
    assert ranked[0] is ranked[0]  # built once
    assert ranked[-1] == list(ranked)[-1]
    assert ranked[:3] == [ranked[0], ranked[1], ranked[2]]
    assert ranked.index(ranked[5]) == 5
    assert ranked[0] in ranked
    with pytest.raises(IndexError):
        ranked[35]


# ---------------------------------------------------------------- the recommendation


def test_quad_and_prial() -> None:
    option = best_split(parse_cards("5S KS KH 5H KD 5D KC"))
    assert set(option.down) == set(parse_cards("KS KH KD KC"))
    assert set(option.back) == set(parse_cards("5S 5H 5D"))
    assert option.down_value.category == Category4.QUAD
    assert option.back_value.category == Category3.PRIAL
    assert option.down == tuple(parse_cards("KS KH KD KC"))  # display order: by suit
    assert option.score > 0.99


def test_prefers_a_balanced_split_to_the_strongest_going_down_hand() -> None:
    # The strongest 4-card hand is the Prial of nines, but it leaves
    # 2D 2C 3D (a failed pair: High card, three-two-two), which loses the
    # coming-back comparison almost always. Two pair + a flush wins both far
    # more often.
    seven = parse_cards("9S JD 3D 2C 2D 9C 9D")
    ranked = rank_splits(seven)
    strongest = max(ranked, key=lambda o: o.down_value)
    assert strongest.down_value.name == "Prial of nines"
    assert strongest.back_value.name == "High card: three, two, two"
    assert strongest.back_percentile < 0.01
    best = ranked[0]
    assert best.down_value.name == "Two pair, nines and twos"
    assert best.back_value.name == "Flush: jack, nine, three"
    assert best.down_value < strongest.down_value
    assert best.score > 0.9 > 0.01 > strongest.score
    assert set(best.down) == set(parse_cards("9S 9C 2D 2C"))


def test_decision_pair_of_jacks_can_be_the_right_going_down_hand() -> None:
    # J J J + a plain ace of one of their suits is a Pair (the Decision), and
    # keeping it lets 8-7-6 come back as a Run.
    best = best_split(parse_cards("JD AD 7H 8C 6S JH JC"))
    assert best.down_value.name == "Pair of jacks, jack and ace"
    assert best.back_value.name == "Run to the eight"


def test_display_order() -> None:
    best = best_split(parse_cards("10S 10C AH 10H 3C 6D 6S"))
    assert [str(c) for c in best.back] == ["10S", "10H", "10C"]
    assert [str(c) for c in best.down] == ["6S", "6D", "3C", "AH"]  # pair first, then high to low
    assert best.cards == best.down + best.back
    assert "Prial of tens" in repr(best)


def test_deterministic() -> None:
    rng = random.Random(7)
    for _ in range(50):
        seven = rng.sample(DECK, 7)
        assert best_split(seven) == best_split(list(seven))
        assert rank_split_scores(seven) == rank_split_scores(seven)


def test_win_both_estimate() -> None:
    option = best_split(parse_cards("9S JD 3D 2C 2D 9C 9D"))
    p4, p3 = option.down_percentile, option.back_percentile
    for k in range(1, 5):
        assert win_both_estimate(option, k) == pytest.approx(p4 ** k * p3 ** k)
    assert win_both_estimate(option, 0) == 1.0
    assert win_both_estimate(0.5, 2) == 0.25
    with pytest.raises(ValueError):
        win_both_estimate(option, -1)


def test_bad_hands_raise_value_error() -> None:
    for bad in (parse_cards("AS 2S 3S 4S 5S 6S"), parse_cards("AS AS 3S 4S 5S 6S 7S"),
                ["AS", "2S", "3S", "4S", "5S", "6S", "7S"], "AS 2S 3S 4S 5S 6S 7S", 7):
        for fn in (rank_splits, best_split, best_split_score, rank_split_scores):
            with pytest.raises(ValueError):
                fn(bad)  # type: ignore[arg-type]
    for bad in (parse_cards("AS 2S 3S 4S 5S 6S 7S"), parse_cards("AS AS 3S 4S 5S 6S 7S 8S"), None):
        with pytest.raises(ValueError):
            best_discard(bad)  # type: ignore[arg-type]


def test_generators_are_accepted() -> None:
    seven = parse_cards("9S JD 3D 2C 2D 9C 9D")
    assert best_split(iter(seven)) == best_split(seven)
    assert best_split_score(c for c in seven) == best_split_score(seven)
    eight = seven + parse_cards("KH")
    assert best_discard(iter(eight)) == best_discard(eight)


# ---------------------------------------------------------------- best_discard


@settings(max_examples=200, deadline=None)
@given(hands8)
def test_best_discard_agrees_with_brute_force(eight: list[Card]) -> None:
    card, score = best_discard(eight)
    assert (card, score) == brute_best_discard(eight)
    assert any(card is c for c in eight)
    assert score == best_split_score([c for c in eight if c != card])


def test_best_discard_on_many_random_hands() -> None:
    rng = random.Random(2024)
    for _ in range(300):
        eight = rng.sample(DECK, 8)
        assert best_discard(eight) == brute_best_discard(eight)


def test_best_discard_ties_throw_the_lowest_card() -> None:
    # Throwing any king leaves quad queens + prial kings, the best; the four
    # kings tie, so the lowest by index (spades) goes.
    eight = parse_cards("QC KH QS KC QH KD QD KS")
    card, score = best_discard(eight)
    assert card == Card.parse("KS")
    assert score == best_split_score(parse_cards("QC KH QS KC QH KD QD"))
    # Two interchangeable junk cards (same rank, suits equivalent): lowest index.
    eight = parse_cards("KS KH KD KC 7S 7H 2S 2H")
    assert best_discard(eight) == brute_best_discard(eight)


def test_discard_search_gives_what_best_discard_index_gives() -> None:
    """The score first, the throw on request: the same answer, ties included."""
    rng = random.Random(77)
    few_ranks = [[c for c in DECK if c.rank in ranks] for ranks in ([12, 13], [2, 7, 13], [1, 5, 9, 10])]
    hands = [rng.sample(DECK, 8) for _ in range(2000)] + [rng.sample(rng.choice(few_ranks), 8) for _ in range(500)]
    for eight in hands:
        idx = sorted(c.index for c in eight)
        search = DiscardSearch(idx)
        assert (search.throw_index(), search.score) == best_discard_index(idx)


def test_best_discard_keeps_the_obvious_hand() -> None:
    card, score = best_discard(parse_cards("5S KS KH 5H KD 5D KC 2C"))
    assert card == Card.parse("2C")
    assert score == best_split_score(parse_cards("5S KS KH 5H KD 5D KC"))
