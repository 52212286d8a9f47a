"""The strong bot: determinized Monte Carlo against the hands opponents really end with.

The baseline bot values a hand by its percentiles among *random* hands. Opponents
who have drawn for six orbits show far stronger hands (a baseline player's final
going-down hand beats about 95 % of random ones), so the strong bot values every
hand against :data:`.final_hands.FINAL_SPLITS`, the splits baseline players show at
a table of that many players: a hand's *strength* is the share of those final hands
it beats (interpolated, ties half), and a split's value against one opponent is the
product of its two strengths; against ``k`` opponents, that to the power ``k``.
Those values live in tables shaped like the baseline's, so the same generated split
and discard loops (:mod:`.tables`) search them at the same speed.

Decisions, from the seat's view only (:func:`strong_action`):

- **draw** and **discard**: determinized Monte Carlo. Each of :data:`SAMPLES`
  determinizations deals the cards the bot has not seen (everything but its hand and
  the discard pile) into a random stock order, drawn with the injected RNG; the bot
  plays its next turns (at most :data:`HORIZON`) out with a fast policy (draw from the stock, keep the best
  seven by the strong tables) and scores the final hand ``value ** k``. The choice
  (stock or pile; which card to throw, among the best few) with the best mean on the
  same determinizations wins.
- **split**: the best few splits by the strong tables are scored exactly against the
  final-hand sample: the chance
  of beating one opponent in both comparisons ``W`` and of being beaten in both
  ``L``; the bot maximises ``W ** k - L * 2 ** (1 - k)`` (a pot an opponent takes is
  the bot's stake lost; a carried pot stays in play). With nothing to win it keeps
  the pot alive by beating the likely winner in one comparison.
- **early call** (house rule) when the hand already wins both with even odds.

Deterministic given the RNG: the same view and RNG state give the same action.
"""

from __future__ import annotations

import bisect
from typing import Any, Sequence

from ...cards import DECK, Card, parse_cards
from ...rng import Rng
from . import tables as _lookup
from .actions import Action, CallEnd, Cut, Discard, Split, TakeDiscard, TakeStock
from .final_hands import FINAL_SPLITS
from .splits import _display3, _display4
from .tables import _BACK_SOURCE8, _C2, _C3, _C4, _D3, _D4, _PACK, _SPLITS7, _compile_split_functions

SAMPLES = 12  # determinizations per draw or discard decision
CANDIDATES = 4  # discards weighed by Monte Carlo: the best few by the strong tables
HORIZON = 3  # turns a play-out looks ahead (more turns cost time and change few choices)
SPLIT_CANDIDATES = 6  # splits scored exactly against the final hands: the best few by the strong tables
CALL_END_CHANCE = 0.5  # early call: call once the hand wins both against everyone with this chance
_INDEX = {str(card): card.index for card in DECK}


def _strength(sample: Sequence[float]):  # noqa: ANN202
    """The share of a sorted sample of final hands (as random-hand percentiles in [0, 1]) that a hand
    of percentile ``p`` beats, linear between the sample's points (so every hand gets its own worth)."""
    n = len(sample)
    xs = [0.0] + list(sample) + [1.0]
    ys = [0.0] + [(i + 0.5) / n for i in range(n)] + [1.0]

    def share(p: float) -> float:
        j = bisect.bisect_right(xs, p)
        if j >= len(xs):
            return 1.0
        x0, x1 = xs[j - 1], xs[j]
        return ys[j - 1] if x1 == x0 else ys[j - 1] + (ys[j] - ys[j - 1]) * (p - x0) / (x1 - x0)

    return share


class _Strong:
    """The strong tables for one number of players, and the split loops compiled against them."""

    def __init__(self, players: int) -> None:
        base = _lookup._get_tables()
        finals = FINAL_SPLITS[players]
        self.finals = finals  # (going-down, coming-back) numerators, sorted
        share4 = _strength(sorted(a / _D4 for a, _ in finals))
        share3 = _strength(sorted(b / _D3 for _, b in finals))
        # table entries: the baseline's are A4 * 64 and A3 (percentile numerators); ours are strengths
        by4 = {v: share4(v / _PACK / _D4) for v in set(base.l4)}
        by3 = {v: share3(v / _D3) for v in set(base.l3)}
        self.l4 = list(map(by4.__getitem__, base.l4))
        self.l3 = list(map(by3.__getitem__, base.l3))
        # the best 3 of 4 cards: the strength is monotone in the percentile, so the baseline's best 3 map over
        self.best3 = list(map(by3.__getitem__, base.best3))
        loops = _compile_split_functions(l4=self.l4, l3=self.l3, b3=self.best3)
        self.max7 = loops["_max7"]
        self.pairings8 = loops["_pairings8"]
        self.base_l4, self.base_l3 = base.l4, base.l3

    def keep(self, eight: list[int]) -> tuple[list[int], float]:
        """The best 7 of 8 ascending indices by the strong tables, and their value against one opponent."""
        scores = self.pairings8(*eight)
        best = max(scores)
        s0, s1, s2, s3 = source = _BACK_SOURCE8[scores.index(best)](eight)
        l3 = self.l3
        backs = (l3[s1 + _C2[s2] + _C3[s3]], l3[s0 + _C2[s2] + _C3[s3]],
                 l3[s0 + _C2[s1] + _C3[s3]], l3[s0 + _C2[s1] + _C3[s2]])
        thrown = source[backs.index(max(backs))]
        return [i for i in eight if i != thrown], best

    def value(self, seven: list[int]) -> float:
        return self.max7(*seven)


_strong: dict[int, _Strong] = {}


def strong_tables(players: int) -> _Strong:
    """The strong tables for a table of ``players`` (2 to 5), built on first use from the baseline's
    tables (about 30 ms; so the server's warm-up, which every start waits for, leaves them out)."""
    found = _strong.get(players)
    if found is None:
        found = _strong[players] = _Strong(players)
    return found


def warm_up() -> None:
    """Build the strong tables for every number of players."""
    for players in FINAL_SPLITS:
        strong_tables(players)


# ----------------------------------------------------------------- what the view tells


def _opponents(view: dict[str, Any]) -> int:
    return _table_size(view) - 1


def _turns_after_this(view: dict[str, Any]) -> int:
    """How many more draws the bot gets after the turn under way (at most :data:`HORIZON`)."""
    if view["called_by"] is not None:
        return 0
    me = next(p for p in view["players"] if p["seat"] == view["seat"])
    return min(HORIZON, max(0, view["settings"]["turns"] - me["turns_taken"] - 1))


def _unseen(view: dict[str, Any]) -> list[int]:
    """Cards the bot has not seen where they are now: not in its hand, not in the discard pile."""
    seen = set(view["hand"]) | set(view["discard_pile"])
    return [card.index for card in DECK if card.text not in seen]


def _draws(unseen: list[int], count: int, rng: Rng) -> list[list[int]]:
    """:data:`SAMPLES` determinizations: the first ``count`` cards of a random order of ``unseen``."""
    count = min(count, len(unseen))
    out = []
    for _ in range(SAMPLES):
        pool = list(unseen)
        drawn = []
        for i in range(count):
            j = i + rng.randbelow(len(pool) - i)
            pool[i], pool[j] = pool[j], pool[i]
            drawn.append(pool[i])
        out.append(drawn)
    return out


def _play_out(tables: _Strong, seven: list[int], draws: Sequence[int], opponents: int) -> float:
    """Final ``value ** k`` after drawing ``draws`` and keeping the best seven each time."""
    hand = seven
    for card in draws:
        hand, _ = tables.keep(sorted(hand + [card]))
    return tables.value(hand) ** opponents


def _mean_play_out(tables: _Strong, seven: list[int], samples: list[list[int]], opponents: int) -> float:
    return sum(_play_out(tables, seven, draws, opponents) for draws in samples)


# ----------------------------------------------------------------- decisions


def choose_draw(view: dict[str, Any], rng: Rng) -> Action:
    """Stock or pile (or an early call), by the mean outcome over the same determinizations."""
    kinds = {entry["kind"] for entry in view["legal"]}
    tables = strong_tables(_table_size(view))
    opponents = _opponents(view)
    hand = sorted(_INDEX[c] for c in view["hand"])
    if "call_end" in kinds and tables.value(hand) ** opponents >= CALL_END_CHANCE:
        return CallEnd()
    if "take_discard" not in kinds:
        return TakeStock()
    top = _INDEX[view["discard_top"]]
    later = _turns_after_this(view)
    samples = _draws(_unseen(view), later + 1, rng)
    no_take_back = view["settings"]["no_take_back"]
    pile = 0.0
    stock = 0.0
    for draws in samples:
        stock += _play_out(tables, hand, draws, opponents)
        if no_take_back:  # the pile card must stay: throw one of the seven held
            kept = max((sorted([c for c in hand if c != x] + [top]) for x in hand), key=tables.value)
        else:
            kept, _ = tables.keep(sorted(hand + [top]))
        pile += _play_out(tables, kept, draws[1:], opponents)
    return TakeDiscard() if pile > stock else TakeStock()


def choose_discard(view: dict[str, Any], allowed: list[str], rng: Rng) -> Action:
    """The card to throw: the best few by the strong tables, weighed by Monte Carlo play-outs."""
    tables = strong_tables(_table_size(view))
    opponents = _opponents(view)
    eight = sorted(_INDEX[c] for c in view["hand"])
    options = []
    for text in allowed:
        thrown = _INDEX[text]
        rest = [i for i in eight if i != thrown]
        options.append((tables.value(rest), -thrown, rest, text))
    options.sort(reverse=True)
    later = _turns_after_this(view)
    if later == 0 or len(options) == 1:
        return Discard(Card.parse(options[0][3]))
    samples = _draws(_unseen(view), later, rng)
    best = max(options[:CANDIDATES], key=lambda o: (_mean_play_out(tables, o[2], samples, opponents), o[0], o[1]))
    return Discard(Card.parse(best[3]))


def choose_split(view: dict[str, Any]) -> Split:
    """The split with the best ``W ** k - L * 2 ** (1 - k)`` against the final-hand sample (module docstring)."""
    tables = strong_tables(_table_size(view))
    opponents = _opponents(view)
    cards = parse_cards(view["hand"])
    cards.sort(key=lambda c: c.index)
    idx = [c.index for c in cards]
    l4, l3 = tables.base_l4, tables.base_l3
    finals = tables.finals
    n = len(finals)
    downs = [a for a, _ in finals]
    weight = 2.0 ** (1 - opponents)
    options = []
    for down_at, back_at in _SPLITS7:
        a, b, c, d = (idx[i] for i in down_at)
        e, f, g = (idx[i] for i in back_at)
        at4, at3 = a + _C2[b] + _C3[c] + _C4[d], e + _C2[f] + _C3[g]
        options.append((tables.l4[at4] * tables.l3[at3], at4, at3, down_at, back_at))
    options.sort(reverse=True)
    best_score, best_split = None, None
    for _, at4, at3, down_at, back_at in options[:SPLIT_CANDIDATES]:
        mine4 = int(l4[at4]) // _PACK
        mine3 = int(l3[at3])
        below = bisect.bisect_left(downs, mine4)
        above = bisect.bisect_right(downs, mine4)
        won = sum(1.0 if back < mine3 else 0.5 if back == mine3 else 0.0 for _, back in finals[:below])
        won += sum(0.5 if back < mine3 else 0.25 if back == mine3 else 0.0 for _, back in finals[below:above])
        lost = sum(1.0 if back > mine3 else 0.5 if back == mine3 else 0.0 for _, back in finals[above:])
        lost += sum(0.5 if back > mine3 else 0.25 if back == mine3 else 0.0 for _, back in finals[below:above])
        score = (won / n) ** opponents - weight * lost / n
        if best_score is None or score > best_score:
            best_score, best_split = score, (down_at, back_at)
    down_at, back_at = best_split  # type: ignore[misc]
    return Split(_display4(*(idx[i] for i in down_at)), _display3(*(idx[i] for i in back_at)))


def _table_size(view: dict[str, Any]) -> int:
    """Players dealt in this round (2 to 5): whose final hands the bot must beat."""
    return min(5, max(2, sum(1 for p in view["players"] if p["in_round"])))


def strong_action(view: dict[str, Any], rng: Rng) -> Action:
    """The strong bot's choice for the seat whose (full) view this is; chance only from ``rng``."""
    entries = view["legal"]
    first = entries[0]["kind"]  # cut, split and discard lead their lists; a draw starts take_stock
    if first == "cut":
        return Cut(None)
    if first == "split":
        return choose_split(view)
    if first == "discard":
        return choose_discard(view, entries[0]["cards"], rng)
    return choose_draw(view, rng)
