"""Hand evaluation against the rules file (/work/shared/rules/down-and-back.md).

Golden whole-table tests (every 4-card and 3-card hand), every worked example
of the rules, the ordering inside each category, and names in words.
"""

from __future__ import annotations

import itertools
from collections import Counter

import pytest

from engine.cards import DECK, parse_cards
from engine.games.down_and_back.hands import Category3, Category4, classify3, classify4, HandValue
from engine.games.down_and_back.tables import evaluate, evaluate3, evaluate4, hand_counts3, hand_counts4, percentile3, percentile4

C4 = Category4
C3 = Category3

RULES_COUNTS4 = {
    C4.QUAD: 13, C4.PRIAL: 1_056, C4.BOUNCER: 40, C4.RUN: 2_520, C4.FLUSH: 2_820,
    C4.TWO_PAIR: 2_808, C4.PAIR: 25_308, C4.HIGH_CARD: 236_160,
}
RULES_COUNTS3 = {
    C3.PRIAL: 52, C3.BOUNCER: 44, C3.RUN: 660, C3.FLUSH: 1_100, C3.PAIR: 2_304, C3.HIGH_CARD: 17_940,
}


def v4(text: str) -> HandValue:
    return evaluate4(parse_cards(text))


def v3(text: str) -> HandValue:
    return evaluate3(parse_cards(text))


# ---------------------------------------------------------------- whole tables


def test_rules_counts_add_up() -> None:
    assert sum(RULES_COUNTS4.values()) == 270_725
    assert sum(RULES_COUNTS3.values()) == 22_100


def test_every_4_card_hand_counts_and_fast_path_matches_reference() -> None:
    """All 270,725 hands: the table path (evaluate4) and the from-scratch
    classifier (classify4) agree hand by hand, and the counts are the rules'."""
    counts: Counter[Category4] = Counter()
    lowest: dict[Category4, HandValue] = {}
    highest: dict[Category4, HandValue] = {}
    mismatches = []
    for hand in itertools.combinations(DECK, 4):
        fast = evaluate4(hand)
        cat = fast.category
        counts[cat] += 1
        if fast != classify4(hand):
            mismatches.append(hand)
        if cat not in lowest or fast < lowest[cat]:
            lowest[cat] = fast
        if cat not in highest or fast > highest[cat]:
            highest[cat] = fast
    assert mismatches == []
    assert dict(counts) == RULES_COUNTS4
    assert hand_counts4() == RULES_COUNTS4
    # Every hand of a category beats every hand of the categories below it.
    for low, high in itertools.pairwise(Category4):
        assert highest[low] < lowest[high]
    assert lowest[C4.RUN] == v4("AS 2H 3D 4C") and highest[C4.RUN] == v4("10S JH QD KC")
    assert lowest[C4.BOUNCER] == v4("AD 2D 3D 4D") and highest[C4.BOUNCER] == v4("10S JS QS KS")
    assert lowest[C4.PAIR].key == (C4.PAIR, 1, 3, 2)
    # High card compares all four ranks, repeats included (a failed Prial or Pair
    # falls here): the lowest is three aces with a plain two of one of their
    # suits, the highest a pair of kings with a queen and a ten of the pair's suit.
    assert lowest[C4.HIGH_CARD] == v4("AS AH AD 2S")
    assert lowest[C4.HIGH_CARD].key == (C4.HIGH_CARD, 2, 1, 1, 1)
    assert highest[C4.HIGH_CARD] == v4("KS KH QD 10S")


def test_every_3_card_hand_counts_and_fast_path_matches_reference() -> None:
    counts: Counter[Category3] = Counter()
    for hand in itertools.combinations(DECK, 3):
        fast = evaluate3(hand)
        counts[fast.category] += 1
        assert fast == classify3(hand), hand
    assert dict(counts) == RULES_COUNTS3
    assert hand_counts3() == RULES_COUNTS3


def test_percentiles_over_all_hands() -> None:
    """Mean percentile is exactly 1/2; the best hand is 1; order is kept."""
    p4 = [percentile4(evaluate4(h)) for h in itertools.combinations(DECK[:24], 4)]
    assert all(0.0 <= p <= 1.0 for p in p4)
    total3 = sum(percentile3(evaluate3(h)) for h in itertools.combinations(DECK, 3))
    assert total3 == pytest.approx(22_100 / 2)
    assert percentile4(v4("KS KH KD KC")) == 1.0
    assert percentile3(v3("KS KH KD")) == pytest.approx(1 - 3 / 2 / 22_099)  # 4 tied prials of kings
    values = sorted({evaluate4(h) for h in itertools.combinations(DECK[:20], 4)})
    pct = [percentile4(v) for v in values]
    assert pct == sorted(pct) and len(set(pct)) == len(pct)


# ---------------------------------------------------------------- worked examples


@pytest.mark.parametrize("text", ["3H 3D 3C 8S", "7C 7H 7S QH"])
def test_example_prials(text: str) -> None:
    value = v4(text)
    assert value.category == C4.PRIAL
    assert value == classify4(parse_cards(text))


def test_example_three_jacks_with_plain_card_of_their_suit_is_a_pair() -> None:
    value = v4("JS JC JD 6C")
    assert value.category == C4.PAIR
    assert value.key == (C4.PAIR, 11, 11, 6)  # the pair, the face odd card, the plain card
    assert value.name == "Pair of jacks, jack and six"


def test_decision_three_plain_cards_with_plain_fourth_of_their_suit_is_high_card() -> None:
    value = v4("5S 5C 5D 6C")
    assert value.category == C4.HIGH_CARD
    assert value.key == (C4.HIGH_CARD, 6, 5, 5, 5)
    # ...but with the fourth suit, or a face fourth card, it is a Prial.
    assert v4("5S 5C 5D 6H").category == C4.PRIAL
    assert v4("5S 5C 5D QC").category == C4.PRIAL
    assert v4("JS JC JD QC").category == C4.PRIAL


def test_example_bouncers() -> None:
    lowest = v4("AD 2D 3D 4D")
    assert lowest.category == C4.BOUNCER
    assert lowest.name == "Bouncer to the four"
    for top in range(5, 14):
        cards = [c for c in DECK if c.suit.value == "H" and top - 3 <= c.rank <= top]
        assert evaluate4(cards).category == C4.BOUNCER and evaluate4(cards) > lowest
    not_bouncer = v4("JS QS KS AS")  # the ace is low
    assert not_bouncer.category == C4.FLUSH
    assert not_bouncer.key == (C4.FLUSH, 13, 12, 11, 1)


def test_example_flushes() -> None:
    assert v4("QH JH 3H 2H").category == C4.FLUSH
    assert v4("QS 10S 8S 7S").category == C4.FLUSH
    assert v4("QH JH 3H 2H") > v4("QS 10S 8S 7S")


def test_example_two_pairs() -> None:
    assert v4("KS KH QD QC") > v4("KD KC AS AH")  # K K Q Q beats K K A A (ace low)
    assert v4("10S 10H 2D 2C") > v4("9S 9H 8D 8C")
    for text in ("KS KH QD QC", "KD KC AS AH", "10S 10H 2D 2C", "9S 9H 8D 8C"):
        assert v4(text).category == C4.TWO_PAIR


@pytest.mark.parametrize("text", ["6C 6S 9H 2D", "8D 8C QC 5H", "10H 10S JD 5D", "9H 9S JS QS"])
def test_example_valid_4_card_pairs(text: str) -> None:
    assert v4(text).category == C4.PAIR


@pytest.mark.parametrize("text", ["JC JD 6H 2D", "9H 9S 4D 3D", "7H 7C KD AC"])
def test_example_invalid_4_card_pairs_are_high_card(text: str) -> None:
    value = v4(text)
    assert value.category == C4.HIGH_CARD
    assert value.key[1:] == tuple(sorted((int(c.rank) for c in parse_cards(text)), reverse=True))


def test_example_3_card_bouncers() -> None:
    assert v3("AC 2C 3C").category == C3.BOUNCER
    assert v3("QH KH AH").category == C3.FLUSH


@pytest.mark.parametrize("text", ["KH KD 7C", "8S 8D JD"])
def test_example_valid_3_card_pairs(text: str) -> None:
    assert v3(text).category == C3.PAIR


def test_example_invalid_3_card_pair() -> None:
    value = v3("JH JC 3C")
    assert value.category == C3.HIGH_CARD
    assert value.key == (C3.HIGH_CARD, 11, 11, 3)


# ---------------------------------------------------------------- categories and ordering


def test_4_card_category_order() -> None:
    ladder = [
        "KS QH 9D 7C",  # high card
        "2S 2H 3D 4C",  # pair (neither odd card a face, suits all different)
        "2S 2H 3D 3C",  # two pair
        "2S 4S 6S 8S",  # flush
        "AS 2H 3D 4C",  # run
        "AS 2S 3S 4S",  # bouncer
        "2S 2H 2D 3C",  # prial (fourth suit)
        "AS AH AD AC",  # quad
    ]
    values = [v4(t) for t in ladder]
    assert [v.category for v in values] == list(C4)
    assert values == sorted(values)


def test_3_card_category_order() -> None:
    ladder = ["KS QH 9D", "2S 2H 3D", "2S 4S 6S", "AS 2H 3D", "AS 2S 3S", "2S 2H 2D"]
    values = [v3(t) for t in ladder]
    assert [v.category for v in values] == list(C3)
    assert values == sorted(values)


def test_ace_is_low_and_no_wrap_around() -> None:
    assert v4("AS 2H 3D 4C").category == C4.RUN
    lowest_run = v4("AS 2H 3D 4C")  # the lowest of all: see the whole-table test
    assert v4("2S 3H 4D 5C") > lowest_run
    assert v4("10S JH QD KC").key == (C4.RUN, 13)  # highest run
    for text in ("JS QH KD AC", "QS KH AD 2C", "KS AH 2D 3C"):
        assert v4(text).category == C4.HIGH_CARD, text
    assert v4("KS AH 2D 3C").key == (C4.HIGH_CARD, 13, 3, 2, 1)
    # 3 cards
    assert v3("AS 2H 3D").key == (C3.RUN, 3)
    assert v3("JS QH KD").key == (C3.RUN, 13)
    assert v3("QS KH AD").category == C3.HIGH_CARD
    assert v3("KS AH 2D").category == C3.HIGH_CARD
    assert v3("AS 2H 3D") < v3("2S 3H 4D") < v3("JS QH KD")
    # a high card with an ace is weaker than with a two
    assert v4("KS QH 9D AC") < v4("KS QH 9D 2C")
    assert v4("AS AH 7D 2C") < v4("2S 2H 7D 3C")  # pair of aces is the lowest pair


def test_ties_never_broken_by_suit() -> None:
    assert v4("QH JH 3H 2H") == v4("QS JS 3S 2S")
    assert v4("9S 10H JD QC") == v4("9H 10D JC QS")
    assert v4("9S 10S JS QS") == v4("9C 10C JC QC")
    assert v4("KS KH QD QC") == v4("KD KC QS QH")
    assert v4("8D 8C QC 5H") == v4("8S 8H QH 5D")
    assert v4("KS QH 9D 7C") == v4("KH QS 9C 7D")
    assert v4("7S 7H 7D 2C") == v4("7S 7C 7D 2H")
    assert v3("KH KD 7C") == v3("KS KC 7H")
    assert v3("AS 2H 3D") == v3("AH 2S 3C")
    assert hash(v4("QH JH 3H 2H")) == hash(v4("QS JS 3S 2S"))
    assert len({v4("QH JH 3H 2H"), v4("QS JS 3S 2S")}) == 1


def test_within_category_ordering() -> None:
    # Quad, prial: by rank.
    assert v4("KS KH KD KC") > v4("QS QH QD QC") > v4("AS AH AD AC")
    assert v4("KS KH KD 2C") > v4("QS QH QD KC")  # the three's rank, not the fourth card
    # Bouncer, run: by highest card.
    assert v4("10S JS QS KS") > v4("9S 10S JS QS")
    assert v4("10S JH QS KS") > v4("9S 10H JS QS")
    # Flush: highest card, then next...
    assert v4("KS 4S 3S 2S") > v4("QS JS 10S 8S")
    assert v4("KS 9S 5S 3S") > v4("KH 9H 5H 2H")
    assert v4("KS 9S 6S 2S") > v4("KH 9H 5H 4H")
    assert v4("KS 10S 3S 2S") > v4("KH 9H 8H 7H")
    # Two pair: higher pair, then lower pair.
    assert v4("KS KH 2D 2C") > v4("QS QH JD JC")
    assert v4("QS QH 3D 3C") > v4("QD QC 2S 2H")
    # Pair: the pair, then the higher odd card, then the lower.
    assert v4("9S 9H 3D 2C") > v4("8D 8C KC QC")
    assert v4("8S 8H KD 2C") > v4("8D 8C QC 5H")
    assert v4("8S 8H QD 6C") > v4("8D 8C QC 5H")
    assert v4("8S 8H QD 5C") == v4("8D 8C QC 5H")
    assert v4("8D 8C QC 5H").key == (C4.PAIR, 8, 12, 5)
    # High card: highest, next, ...
    assert v4("KS 9H 5D 3C") > v4("KS 9H 5D 2C") > v4("KS 9H 4D 3C") > v4("QS JH 10D 8C")
    assert v4("QH QC 4S 2S") > v4("JS 10H 9D 7C")  # high card with a (failed) pair: Q Q 4 2
    # 3-card pair: the pair, then the third card.
    assert v3("KH KD 7C") > v3("KS KC 6H") > v3("QS QH KD")
    assert v3("8S 8D JD") > v3("8H 8C 10S")
    # 3-card flush and high card.
    assert v3("KS 3S 2S") > v3("QH JH 9H")
    assert v3("KS 9H 5D") > v3("KS 9H 4D")


def test_pair_rule_face_cases() -> None:
    # Both odd cards faces: always a pair, whatever the suits.
    assert v4("4S 4H JS QS").category == C4.PAIR
    assert v4("4S 4H KH QS").category == C4.PAIR
    # One face: the plain card must avoid the pair's suits.
    assert v4("4S 4H KS 9D").category == C4.PAIR
    assert v4("4S 4H KD 9S").category == C4.HIGH_CARD
    assert v4("4S 4H KD 9H").category == C4.HIGH_CARD
    # Neither face: both odd cards off the pair's suits and different from each other.
    assert v4("4S 4H 9D 2C").category == C4.PAIR
    assert v4("4S 4H 9D 2D").category == C4.HIGH_CARD
    assert v4("4S 4H 9D 2S").category == C4.HIGH_CARD
    # 3 cards: a face third card, or one of a suit unlike both pair cards.
    assert v3("4S 4H KS").category == C3.PAIR
    assert v3("4S 4H 9D").category == C3.PAIR
    assert v3("4S 4H 9H").category == C3.HIGH_CARD
    assert v3("KS KH 9H").category == C3.HIGH_CARD
    assert v3("KS KH QH").category == C3.PAIR


def test_comparing_4_and_3_card_values_is_an_error() -> None:
    with pytest.raises(TypeError):
        v4("AS 2H 3D 4C") < v3("AS 2S 3S")  # noqa: B015
    assert v4("AS 2S 3S 4S") != v3("2S 3S 4S")  # Run (4 cards) vs Bouncer (3 cards): same key number


def test_keys_are_category_first() -> None:
    for hand in itertools.islice(itertools.combinations(DECK, 4), 0, None, 997):
        value = evaluate4(hand)
        assert value.key[0] == value.category
        assert all(type(x) is int for x in value.key)
    assert v4("AS 2H 3D 4C").key == (4, 4)


# ---------------------------------------------------------------- inputs


def test_bad_input_raises_value_error() -> None:
    for bad in (parse_cards("AS 2S 3S"), parse_cards("AS 2S 3S 4S 5S"), parse_cards("AS AS 3S 4S"),
                ["AS", "2S", "3S", "4S"], "AS 2S 3S 4S", None, [1, 2, 3, 4]):
        with pytest.raises(ValueError):
            evaluate4(bad)  # type: ignore[arg-type]
        with pytest.raises(ValueError):
            classify4(bad)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="repeated"):
        evaluate3(parse_cards("AS AS 3S"))
    with pytest.raises(ValueError):
        evaluate(parse_cards("AS 2S"))


def test_any_iterable_of_cards() -> None:
    cards = parse_cards("QH JH 3H 2H")
    assert evaluate4(iter(cards)) == evaluate4(tuple(cards)) == evaluate4(set(cards)) == evaluate(cards)
    assert evaluate(parse_cards("KH KD 7C")) == v3("KH KD 7C")


# ---------------------------------------------------------------- names


@pytest.mark.parametrize("text, name", [
    ("7C 7H 7S QH", "Prial of sevens"),
    ("KS KH KD KC", "Quad of kings"),
    ("8H 9H 10H JH", "Bouncer to the jack"),
    ("AD 2D 3D 4D", "Bouncer to the four"),
    ("8H 9S 10H JH", "Run to the jack"),
    ("KS QS 7S 3S", "Flush: king, queen, seven, three"),
    ("KS KH 5D 5C", "Two pair, kings and fives"),
    ("KS KH QD 5C", "Pair of kings, queen and five"),
    ("KS 9H 5D 2C", "High card: king, nine, five, two"),
    ("JS QH KD AC", "High card: king, queen, jack, ace"),
])
def test_names_4(text: str, name: str) -> None:
    assert v4(text).name == name
    assert str(v4(text)) == name


@pytest.mark.parametrize("text, name", [
    ("8S 8D JD", "Pair of eights, jack"),
    ("7S 7H 7D", "Prial of sevens"),
    ("AC 2C 3C", "Bouncer to the three"),
    ("JS QH KD", "Run to the king"),
    ("QH KH AH", "Flush: king, queen, ace"),
    ("KS 9H 5D", "High card: king, nine, five"),
])
def test_names_3(text: str, name: str) -> None:
    assert v3(text).name == name


def test_category_labels() -> None:
    assert C4.TWO_PAIR.label == "Two pair"
    assert C4.HIGH_CARD.label == "High card"
    assert C3.BOUNCER.label == "Bouncer"


# -------------------------------------------------------------------- why a suit rule named a hand


def _note(text: str) -> str | None:
    from engine.contract import plain_text
    from engine.games.down_and_back.hands import suit_note

    note = suit_note(parse_cards(text.split()))
    return None if note is None else plain_text(note, str)


def test_a_suit_rule_that_changes_a_hands_name_says_why() -> None:
    """Issue 27 item 9: "Pair of kings, king and four" for K K K 4 and "High card: king, king, ..." say why."""
    assert _note("KS KH KD 4S") == "no prial: the 4S is neither a face card nor of the fourth suit"
    assert _note("7S 7H 7D 4S") == "no prial or pair: the 4S is neither a face card nor of the fourth suit"
    assert _note("KS KH 9D 2D") == "no pair: the 9D and 2D beside it share a suit"
    assert _note("JC JD 6H 2D") == "no pair: the 2D beside it shares a suit with the pair"
    assert _note("7H 7C KD AC") == "no pair: beside a face card, the AC shares a suit with the pair"
    assert _note("JH JC 3C") == "no pair: the 3C is neither a face card nor of a suit unlike the pair's"
    for text in ("3H 3D 3C 8S", "6C 6S 9H 2D", "KH KD 7C", "QH JH 3H 2H", "KS KH QD QC", "KS 9H 5D 2C"):
        assert _note(text) is None  # nothing a suit rule took away


def test_a_note_comes_exactly_with_a_name_a_suit_rule_lowered() -> None:
    """Every 3-card hand, and every 4-card hand of some ranks: a note iff the ranks alone would name a better hand
    (three of a kind a Prial, one pair a Pair); the note is one line at 80 columns."""
    import random

    from engine.games.down_and_back.hands import suit_note

    def lowered(cards) -> bool:
        counts = sorted(Counter(int(c.rank) for c in cards).values())
        value = classify4(cards) if len(cards) == 4 else classify3(cards)
        if counts[-1] == 3 and len(cards) == 4:
            return value.category != Category4.PRIAL
        if counts.count(2) == 1 and len(counts) == len(cards) - 1:
            return value.category.name == "HIGH_CARD"
        return False

    rng = random.Random(27)
    hands = list(itertools.combinations(DECK, 3)) + [tuple(rng.sample(DECK, 4)) for _ in range(4000)]
    for _ in range(1500):  # cards of three ranks: pairs and three of a kind are common among these
        ranks = rng.sample(range(1, 14), 3)
        hands.append(tuple(rng.sample([d for d in DECK if int(d.rank) in ranks], 4)))
    notes = 0
    for cards in hands:
        note = suit_note(cards)
        assert (note is not None) == lowered(list(cards)), cards
        if note is not None:
            notes += 1
            assert sum(len(p.get("text", "")) + 3 * ("card" in p) for p in note) <= 71  # with 3 of indent: 74
    assert notes > 1000
