"""The baseline bot's draw and discard choices against the rule they implement."""

from __future__ import annotations

import random

from engine.games.down_and_back.actions import Discard, TakeDiscard, TakeStock
from engine.games.down_and_back.bots import TAKE_DISCARD_MARGIN, baseline_action
from engine.cards import DECK
from engine.games.down_and_back.splits import best_discard, best_split_score


def draw_view(hand: list[str], top: str) -> dict:
    legal = [{"kind": "take_stock"}, {"kind": "take_discard"}]
    return {"seat": 0, "phase": "play", "hand": hand, "discard_top": top, "legal": legal}


def discard_view(hand: list[str]) -> dict:
    return {"seat": 0, "phase": "play", "hand": hand, "discard_top": None,
            "legal": [{"kind": "discard", "cards": list(hand)}]}


def test_draw_and_discard_follow_the_best_split_rule() -> None:
    """Take the pile card exactly when keeping it (and throwing another) beats
    the current best split; then throw what best_discard throws."""
    rng = random.Random(99)
    taken = 0
    for _ in range(400):
        cards = rng.sample(DECK, 9)
        hand, top, stock = cards[:7], cards[7], cards[8]
        thrown, improved = best_discard(hand + [top])
        takes = thrown != top and improved > best_split_score(hand) + TAKE_DISCARD_MARGIN
        texts = [c.text for c in hand]
        action = baseline_action(draw_view(texts, top.text))
        assert action == (TakeDiscard() if takes else TakeStock())
        drawn = top if takes else stock
        taken += takes
        after = baseline_action(discard_view(texts + [drawn.text]))
        assert after == Discard(best_discard(hand + [drawn])[0])
    assert 50 < taken < 350  # both branches are exercised
