"""Down and Back's rules in short, for the help page (the full rules: docs/RULES.md)."""

RULES = """\
# Down and Back

A Lancashire pub game for 2 to 5 players. Everyone pays the **ante** into the
pot, gets **7 cards**, and draws and throws for six turns. Then each player
splits the 7 cards into a **4-card going-down hand** and a **3-card coming-back
hand**. Win **both** comparisons to take the whole pot; otherwise it carries on
to the next round and grows.

## A round

1. The dealer shuffles; the player to the dealer's right **cuts** (choose where,
   or cut at random). Seven cards each, one at a time; the next card starts the
   face-up **discard pile**, the rest is the **stock**.
2. Play goes clockwise from the dealer's left. On your turn **take** the top of
   the stock (`s`) or the top of the pile (`d`), then **throw** any card face up
   (`1`-`8` or arrows, then Enter). Six turns each; the dealer plays last.
3. **Showdown**: arrange 4 + 3 (the recommended split is filled in; swap cards
   with space). All splits are revealed together: going-down hands first, then
   coming-back hands, in playing order.
4. Each comparison has one winner. Ties: the tied players draw from the stock,
   highest rank wins, draw again while tied.

Cards rank **K Q J 10 9 8 7 6 5 4 3 2 A** - the ace is always low, no
wrap-around (Q K A is not a run). Suits never break a tie. J, Q and K are the
*face cards*.

## Going-down hands (4 cards), best first

| # | Hand | What it is | Example |
|---|------|------------|---------|
| 1 | Quad | four of one rank | KS KH KD KC |
| 2 | Prial | three of a rank + a card of the fourth suit or a face card | 3H 3D 3C 8S, 7C 7H 7S QH |
| 3 | Bouncer | four in sequence, one suit | 10S JS QS KS; AD 2D 3D 4D is the lowest |
| 4 | Run | four in sequence, mixed suits | 5C 6H 7H 8D |
| 5 | Flush | four of one suit | QH JH 3H 2H beats QS 10S 8S 7S |
| 6 | Two pair | two pairs | K K Q Q beats K K A A |
| 7 | Pair | a pair + two odd cards that pass the odd-card rule | 6C 6S 9H 2D; 8D 8C QC 5H |
| 8 | High card | anything else | JC JD 6H 2D is only high card |

**Odd-card rule** for the 4-card pair: the two odd cards are both face cards;
or neither is, and they differ in suit from each other and from the pair; or
exactly one is, and the other's suit differs from the pair's.

## Coming-back hands (3 cards), best first

| # | Hand | What it is | Example |
|---|------|------------|---------|
| 1 | Prial | three of one rank | 9S 9H 9C |
| 2 | Bouncer | three in sequence, one suit | AC 2C 3C (QH KH AH is not) |
| 3 | Run | three in sequence, mixed suits | 4S 5H 6D |
| 4 | Flush | three of one suit | 2D 8D KD |
| 5 | Pair | a pair + a face card or a card of a third suit | KH KD 7C; 8S 8D JD |
| 6 | High card | anything else | JH JC 3C is only high card |

## Money and the end

A player who cannot pay the ante is out. The game ends when the host ends it
(or fewer than two can pay); a pot still on the table is paid back to who put
it in. Most chips wins.

House rules a table may turn on: **seven turns**; **early call** (`e`: drawing
ends with this orbit); **no take-back** (a card taken from the pile cannot be
thrown the same turn; `k` skips the turn instead).
"""
