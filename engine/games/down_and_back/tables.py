"""Lookup tables of every 4-card and 3-card hand, and the split loops generated against them.

Two evaluators compute the same thing. :func:`~.hands.classify4` / :func:`~.hands.classify3`
classify a hand from scratch, straight from the rule text; they are the
reference. :func:`evaluate4` / :func:`evaluate3` look the hand up in tables
of every possible hand that are built once, on first use, from rank and suit
*patterns* (a few thousand groups of hands that must share a value) rather
than hand by hand; the tests check the two against each other on all
270,725 + 22,100 hands.

Tables (about 70 ms to build on first use, plus about 70 ms more on the first
:func:`best_discard`): a list of all 4-card hands and one of all 3-card hands,
indexed by the colex rank of the sorted card indices, holding percentile
numerators; and, for :func:`best_discard`, for each 4-card hand the best of
its four 3-card subsets. The split loops are unrolled into straight-line
functions generated when the tables are built (35 splits of 7 cards; 70
down/back pairings of 8 cards), with the tables bound as fast locals. Nothing
is built at import.

The split recommendation built on these tables is in :mod:`.splits`.
"""

from __future__ import annotations

import itertools
import operator
from collections import deque
from math import comb
from typing import Iterable, Iterator, Sequence

from ...cards import Card
from .hands import (
    _B3, _B4, _F3, _F4, _H3, _H4, _JACK, _P3, _P4, _PR3, _PR4, _Q4, _R3, _R4, _TP4,
    Category3, Category4, HandError, HandValue, _as_sequence, _distinct_indices,
)

# --------------------------------------------------------------------------
# Tables of every hand, built on first use from rank/suit patterns.
#
# A hand is addressed by the colex rank of its sorted card indices
# i0 < i1 < ... : C(i0, 1) + C(i1, 2) + C(i2, 3) [+ C(i3, 4)], a dense index
# 0 .. C(52, n) - 1 into a plain list (a list lookup is several times faster
# than a dict lookup on a 52-bit mask once the table no longer fits in cache).
#
# Table entries are percentile *numerators*: for a key with ``below`` hands
# under it and ``n`` hands equal to it, A = 2 * below + n - 1, so that
# percentile = A / (2 * (hands - 1)). 4-card entries are stored times 64, so a
# split's product A4 * 64 * A3 is an exact integer in a float (< 2**42) whose
# low 6 bits are free: :func:`rank_splits` adds the split number there and
# sorts plain floats.

_N4 = 270_725
_N3 = 22_100
_D4 = 2 * (_N4 - 1)  # percentile4 = A4 / _D4
_D3 = 2 * (_N3 - 1)  # percentile3 = A3 / _D3
_PACK = 64  # 4-card entries are A4 * _PACK
_SCORE_DIV = float(_PACK * _D4 * _D3)  # score = L4 * L3 / _SCORE_DIV
_SPLIT_DIV = _D4 * _D3  # score = (packed >> 6) / _SPLIT_DIV

# _BINOM[k][n] = C(n, k) for n in 0..52
_BINOM: list[list[int]] = [[comb(n, k) for n in range(53)] for k in range(5)]
_C2, _C3, _C4 = _BINOM[2], _BINOM[3], _BINOM[4]


def _block(rank: int, suits: Sequence[int], slot: int) -> int:
    """Colex contribution of cards of one rank (suits ascending) at sorted ``slot``."""
    return sum(_BINOM[slot + k + 1][(rank - 1) * 4 + s] for k, s in enumerate(suits))


def _singles(rank: int, slot: int) -> list[int]:
    """Colex contribution of a lone card of ``rank`` at ``slot``, by suit."""
    return [_BINOM[slot + 1][(rank - 1) * 4 + s] for s in range(4)]


_SUIT_PAIRS = tuple(itertools.combinations(range(4), 2))


def _odd_ok(ps: tuple[int, int], t1: int, t2: int, face1: bool, face2: bool) -> bool:
    """The odd-card rule as a suit pattern (pair suits ``ps``, odd suits ``t1``, ``t2``)."""
    if face1 and face2:
        return True
    if not face1 and not face2:
        return t1 != t2 and t1 not in ps and t2 not in ps
    return (t2 if face1 else t1) not in ps


def _pattern_groups4() -> Iterator[tuple[tuple[int, ...], list[int]]]:
    """Every 4-card hand exactly once, as ``(key, [colex positions])`` groups.

    Hands are grouped by their ranks; within a group the value depends only on
    the suits, through the few suit conditions the rules have.
    """
    R = range(1, 14)
    S = range(4)
    patterns = [(p, t1, t2) for p in range(6) for t1 in S for t2 in S]
    pair_split = {
        (f1, f2): (
            [x for x in patterns if _odd_ok(_SUIT_PAIRS[x[0]], x[1], x[2], f1, f2)],
            [x for x in patterns if not _odd_ok(_SUIT_PAIRS[x[0]], x[1], x[2], f1, f2)],
        )
        for f1 in (False, True) for f2 in (False, True)
    }
    # Four different ranks: bouncer/run or flush/high card.
    for r4, r3, r2, r1 in itertools.combinations(R, 4):  # r4 < r3 < r2 < r1
        w4, w3, w2, w1 = _singles(r4, 0), _singles(r3, 1), _singles(r2, 2), _singles(r1, 3)
        unsuited = [a + b + c + d for a in w4 for b in w3 for c in w2 for d in w1]
        suited = [unsuited[85 * s] for s in S]  # position of suits (s, s, s, s)
        for s in (3, 2, 1, 0):
            del unsuited[85 * s]
        if r1 - r4 == 3:
            yield (_B4, r1), suited
            yield (_R4, r1), unsuited
        else:
            yield (_F4, r1, r2, r3, r4), suited
            yield (_H4, r1, r2, r3, r4), unsuited
    # One pair and two odd cards o1 > o2.
    for p in R:
        for o2, o1 in itertools.combinations([r for r in R if r != p], 2):
            slot = {p: 0, o1: 0, o2: 0}
            filled = 0
            for r in sorted((p, o1, o2)):
                slot[r] = filled
                filled += 2 if r == p else 1
            pair = [_block(p, ps, slot[p]) for ps in _SUIT_PAIRS]
            hi, lo = _singles(o1, slot[o1]), _singles(o2, slot[o2])
            ok, bad = pair_split[o1 >= _JACK, o2 >= _JACK]
            yield (_P4, p, o1, o2), [pair[x] + hi[t1] + lo[t2] for x, t1, t2 in ok]
            yield (_H4, *sorted((p, p, o1, o2), reverse=True)), [pair[x] + hi[t1] + lo[t2] for x, t1, t2 in bad]
    # Two pair.
    for low, high in itertools.combinations(R, 2):
        lows = [_block(low, ps, 0) for ps in _SUIT_PAIRS]
        highs = [_block(high, ps, 2) for ps in _SUIT_PAIRS]
        yield (_TP4, high, low), [a + b for a in lows for b in highs]
    # Three of a kind and a fourth card f: Prial if f is of the fourth suit or a
    # face card; otherwise (by the odd-card rule) a Pair when the three are face
    # cards, else High card.
    for t in R:
        for f in R:
            if f == t:
                continue
            t_slot, f_slot = (1, 0) if f < t else (0, 3)
            prial, plain = [], []
            for missing in S:
                three = _block(t, [s for s in S if s != missing], t_slot)
                fourth = _singles(f, f_slot)
                for s in S:
                    (prial if s == missing or f >= _JACK else plain).append(three + fourth[s])
            yield (_PR4, t), prial
            if t >= _JACK:  # the pair, a face odd card (the third), the plain card
                yield (_P4, t, t, f), plain
            else:
                yield (_H4, *sorted((t, t, t, f), reverse=True)), plain
    for q in R:
        yield (_Q4, q), [_block(q, S, 0)]


def _pattern_groups3() -> Iterator[tuple[tuple[int, ...], list[int]]]:
    """Every 3-card hand exactly once, as ``(key, [colex positions])`` groups."""
    R = range(1, 14)
    S = range(4)
    for r3, r2, r1 in itertools.combinations(R, 3):
        w3, w2, w1 = _singles(r3, 0), _singles(r2, 1), _singles(r1, 2)
        unsuited = [a + b + c for a in w3 for b in w2 for c in w1]
        suited = [unsuited[21 * s] for s in S]
        for s in (3, 2, 1, 0):
            del unsuited[21 * s]
        if r1 - r3 == 2:
            yield (_B3, r1), suited
            yield (_R3, r1), unsuited
        else:
            yield (_F3, r1, r2, r3), suited
            yield (_H3, r1, r2, r3), unsuited
    for p in R:
        for t in R:
            if t == p:
                continue
            p_slot, t_slot = (1, 0) if t < p else (0, 2)
            third = _singles(t, t_slot)
            ok, bad = [], []
            for ps in _SUIT_PAIRS:
                pair = _block(p, ps, p_slot)
                for s in S:
                    (ok if t >= _JACK or s not in ps else bad).append(pair + third[s])
            yield (_P3, p, t), ok
            yield (_H3, *sorted((p, p, t), reverse=True)), bad
    for r in R:
        for missing in S:
            yield (_PR3, r), [_block(r, [s for s in S if s != missing], 0)]


def _fill(size: int, groups: list[tuple[tuple[int, ...], list[int]]], scale: int):
    """Count hands per key, then give every hand its percentile numerator."""
    counts: dict[tuple[int, ...], int] = {}
    for key, positions in groups:
        if positions:
            counts[key] = counts.get(key, 0) + len(positions)
    numerators: dict[tuple[int, ...], int] = {}
    below = 0
    for key in sorted(counts):
        numerators[key] = 2 * below + counts[key] - 1
        below += counts[key]
    table: list[float] = [-1.0] * below
    setitem = table.__setitem__
    entry = {key: float(a * scale) for key, a in numerators.items()}  # one float object per key
    for key, positions in groups:
        if positions:
            _consume(map(setitem, positions, itertools.repeat(entry[key])))
    category = Category4 if size == 4 else Category3
    values = {entry[key]: HandValue(category(key[0]), key) for key in counts}
    return counts, numerators, table, values


class _Tables:
    """The lookup tables and the split functions compiled against them."""

    def __init__(self) -> None:
        self.counts4, self.numerators4, self.l4, self.values4 = _fill(4, list(_pattern_groups4()), _PACK)
        self.counts3, self.numerators3, self.l3, self.values3 = _fill(3, list(_pattern_groups3()), 1)
        assert len(self.l4) == _N4 and len(self.l3) == _N3 and -1.0 not in self.l4 and -1.0 not in self.l3
        ns = _compile_split_functions(l4=self.l4, l3=self.l3)
        self.scores7 = ns["_scores7"]
        self.max7 = ns["_max7"]
        self._pairings8 = None
        self._best3: list[float] | None = None

    @property
    def best3(self) -> list[float]:
        """For each 4-card hand, the best 3-card numerator among its four subsets."""
        if self._best3 is None:
            self._best3 = _build_best3(self.l3)
        return self._best3

    @property
    def pairings8(self):  # noqa: ANN201
        if self._pairings8 is None:
            self._pairings8 = _compile_split_functions(l4=self.l4, b3=self.best3)["_pairings8"]
        return self._pairings8


def _build_best3(l3: list[float]) -> list[float]:
    """best3[colex(a, b, c, d)] = max of l3 over {a,b,c}, {a,b,d}, {a,c,d}, {b,c,d}."""
    # For every 3-card hand {a < b < c} in colex order, the colex ranks of its
    # pairs {a, b}, {a, c}, {b, c}; then the 3-card hands of {a, b, c, d} are
    # j, pab[j] + C(d, 3), pac[j] + C(d, 3) and pbc[j] + C(d, 3).
    pab: list[int] = []
    pac: list[int] = []
    pbc: list[int] = []
    for c in range(2, 52):
        for b in range(1, c):
            pab.extend(range(_C2[b], _C2[b] + b))
            pac.extend(range(_C2[c], _C2[c] + b))
            pbc.extend(itertools.repeat(b + _C2[c], b))
    get = l3.__getitem__
    add = operator.add
    rep = itertools.repeat
    best3: list[float] = []
    for d in range(3, 52):
        n = off = _C3[d]
        best3.extend(map(
            max,
            l3[:n],
            map(get, map(add, pab[:n], rep(off))),
            map(get, map(add, pac[:n], rep(off))),
            map(get, map(add, pbc[:n], rep(off))),
        ))
    return best3


_consume = deque(maxlen=0).extend

# The 35 splits of 7 cards in their fixed order: split k puts the cards at
# positions _TRIPLES7[k] (of the 7 sorted by index) in the coming-back hand.
_TRIPLES7: tuple[tuple[int, int, int], ...] = tuple(itertools.combinations(range(7), 3))
_SPLITS7: tuple[tuple[tuple[int, ...], tuple[int, ...]], ...] = tuple(
    (tuple(i for i in range(7) if i not in t), t) for t in _TRIPLES7
)  # (going-down positions, coming-back positions) of each split
_SPLIT_GETTERS = tuple((operator.itemgetter(*d), operator.itemgetter(*b)) for d, b in _SPLITS7)
# 8 cards: the 35 4-card subsets that contain position 0. Pairing 2m has
# going-down hand _QUADS8[m] and coming-back hand from the other 4 cards;
# pairing 2m + 1 the other way round.
_QUADS8: tuple[tuple[int, ...], ...] = tuple((0, *t) for t in itertools.combinations(range(1, 8), 3))
# For pairing n, the positions (of the 8) of the 4 cards the coming-back hand comes from.
_BACK_SOURCE8 = tuple(
    operator.itemgetter(*(q if way else [i for i in range(8) if i not in q]))
    for q in _QUADS8 for way in (0, 1)
)


def _compile_split_functions(l4: list[float], l3: list[float] | None = None,
                             b3: list[float] | None = None) -> dict[str, object]:
    """Generate and compile the straight-line split loops.

    Positions of sorted card indices c0 < c1 < ...: a 4-card subset at
    positions q0 < q1 < q2 < q3 has table position
    ``c_q0 + C(c_q1, 2) + C(c_q2, 3) + C(c_q3, 4)``, computed as
    ``a_q0q1 + b_q2q3`` from shared partial sums; a 3-card subset t0 < t1 < t2
    has ``a_t0t1 + C(c_t2, 3)``. The tables are bound as default arguments,
    which makes them fast locals.
    """
    lines: list[str] = []

    def prologue(n: int) -> None:
        subsets4 = list(itertools.combinations(range(n), 4))
        subsets3 = list(itertools.combinations(range(n), 3)) if n == 7 else []
        u = sorted({q[1] for q in subsets4} | {t[1] for t in subsets3})
        v = sorted({q[2] for q in subsets4} | {t[2] for t in subsets3})
        w = sorted({q[3] for q in subsets4})
        a = sorted({q[:2] for q in subsets4} | {t[:2] for t in subsets3})
        b = sorted({q[2:] for q in subsets4})
        lines.extend(f"    u{i} = C2[c{i}]" for i in u)
        lines.extend(f"    v{i} = C3[c{i}]" for i in v)
        lines.extend(f"    w{i} = C4[c{i}]" for i in w)
        lines.extend(f"    a{i}{j} = c{i} + u{j}" for i, j in a)
        lines.extend(f"    b{i}{j} = v{i} + w{j}" for i, j in b)

    def idx4(q: Sequence[int]) -> str:
        return f"a{q[0]}{q[1]} + b{q[2]}{q[3]}"

    def idx3(t: Sequence[int]) -> str:
        return f"a{t[0]}{t[1]} + v{t[2]}"

    tables = "C2=C2, C3=C3, C4=C4"
    if l3 is not None:
        args = ", ".join(f"c{i}" for i in range(7))
        terms = []
        for k, t in enumerate(_TRIPLES7):
            q = [i for i in range(7) if i not in t]
            terms.append(f"L4[{idx4(q)}] * L3[{idx3(t)}]")
        # rank_splits: packed products (split number in the low 6 bits, so equal
        # products keep the split order), sorted best first.
        lines.append(f"def _scores7({args}, L4=L4, L3=L3, {tables}):")
        prologue(7)
        packed = ", ".join(f"{term} + {34 - k}" for k, term in enumerate(terms))
        lines.append(f"    s = [{packed}]")
        lines.append("    s.sort(reverse=True)")
        lines.append("    return s")
        lines.append("")
        lines.append(f"def _max7({args}, L4=L4, L3=L3, {tables}):")
        prologue(7)
        lines.append(f"    return max({', '.join(terms)})")
        lines.append("")
    if b3 is not None:
        args = ", ".join(f"c{i}" for i in range(8))
        lines.append(f"def _pairings8({args}, L4=L4, B3=B3, {tables}):")
        prologue(8)
        terms = []
        for q in itertools.combinations(range(8), 4):
            lines.append(f"    i{''.join(map(str, q))} = {idx4(q)}")
        for q in _QUADS8:
            rest = tuple(i for i in range(8) if i not in q)
            iq, ir = "i" + "".join(map(str, q)), "i" + "".join(map(str, rest))
            terms.append(f"L4[{iq}] * B3[{ir}], L4[{ir}] * B3[{iq}]")
        lines.append(f"    return [{', '.join(terms)}]")
    namespace: dict[str, object] = {"L4": l4, "L3": l3, "B3": b3, "C2": _C2, "C3": _C3, "C4": _C4}
    exec(compile("\n".join(lines), "<engine.games.down_and_back.tables split functions>", "exec"), namespace)  # noqa: S102
    return namespace


_tables: _Tables | None = None


def _get_tables() -> _Tables:
    global _tables
    if _tables is None:
        _tables = _Tables()
    return _tables


def warm_up(discard: bool = True) -> None:
    """Build the lookup tables now (otherwise the first call that needs them does).

    ``discard=True`` also builds the extra table :func:`best_discard` uses.
    """
    tables = _get_tables()
    if discard:
        tables.pairings8  # noqa: B018


def hand_counts4() -> dict[Category4, int]:
    """Number of 4-card hands (of all 270,725) in each category."""
    out = {c: 0 for c in Category4}
    for key, n in _get_tables().counts4.items():
        out[Category4(key[0])] += n
    return out


def hand_counts3() -> dict[Category3, int]:
    """Number of 3-card hands (of all 22,100) in each category."""
    out = {c: 0 for c in Category3}
    for key, n in _get_tables().counts3.items():
        out[Category3(key[0])] += n
    return out


# --------------------------------------------------------------------------
# Fast evaluation and percentiles


def evaluate4(cards: Iterable[Card]) -> HandValue:
    """Value of a going-down hand: any iterable of 4 distinct cards."""
    a, b, c, d = _distinct_indices(cards, 4)
    t = _tables or _get_tables()
    return t.values4[t.l4[a + _C2[b] + _C3[c] + _C4[d]]]


def evaluate3(cards: Iterable[Card]) -> HandValue:
    """Value of a coming-back hand: any iterable of 3 distinct cards."""
    a, b, c = _distinct_indices(cards, 3)
    t = _tables or _get_tables()
    return t.values3[t.l3[a + _C2[b] + _C3[c]]]


def evaluate(cards: Iterable[Card]) -> HandValue:
    """:func:`evaluate4` or :func:`evaluate3`, by the number of cards."""
    cards = _as_sequence(cards, 4)
    if len(cards) == 4:
        return evaluate4(cards)
    if len(cards) == 3:
        return evaluate3(cards)
    raise HandError(f"a hand has 4 (going down) or 3 (coming back) cards, got {len(cards)}")


def percentile4(value: HandValue) -> float:
    """Fraction of the other 4-card hands that ``value`` beats (ties count half)."""
    if value.size != 4:
        raise HandError("percentile4 needs a going-down (4-card) hand value")
    return _get_tables().numerators4[value.key] / _D4


def percentile3(value: HandValue) -> float:
    """Fraction of the other 3-card hands that ``value`` beats (ties count half)."""
    if value.size != 3:
        raise HandError("percentile3 needs a coming-back (3-card) hand value")
    return _get_tables().numerators3[value.key] / _D3


def percentile(value: HandValue) -> float:
    """:func:`percentile4` or :func:`percentile3`, by the value's size."""
    return percentile4(value) if value.size == 4 else percentile3(value)
