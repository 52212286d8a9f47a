"""Cribbage's rules in short, with the scoring table, for the help page (in full: shared/rules/cribbage.md)."""

RULES = """\
# Cribbage

Two or three play each for themselves; four play as two partnerships (partners
opposite). The first side to **121** points (or 61) wins the game, the moment it
gets there, even in the middle of the play or the show. Points are pegged on the
**board**: each side has two pegs, the front one is the score, the back one
where it was before the last points (they leapfrog).

## A deal

1. Cut for the first deal: the lowest card deals (ace low). Deals alternate;
   the loser of a game deals the next. The dealer's right cuts before the deal.
2. Six cards each with two players (five with three or four). Everyone **lays
   away** two cards (one with three or four) face down to the dealer's **crib**
   (`1`-`6` or arrows and space choose, Enter lays away; `h` shows the hand
   helper: the expected points of each choice).
3. The dealer's left cuts the **starter**; a jack gives the dealer **his heels**, 2.
4. **The play**: from the dealer's left, each lays a card and calls the count,
   never past 31. Whoever cannot play says "go"; the last to play pegs 1 (the
   go, or the last card), or 2 for exactly 31; the count starts again.
5. **The show**: the non-dealer's hand, then the dealer's, then the crib, each
   with the starter.

## Scoring in the play

| For | Points |
|---|---|
| making the count 15 | 2 |
| making it 31 | 2 |
| a pair (same rank as the card before) | 2 |
| a pair royal (three of a rank) | 6 |
| a double pair royal (four) | 12 |
| a run of 3 or more, in any order, among the last cards | 1 a card |
| the go, or the last card (not on 31) | 1 |

Only cards since the count last started again combine: 9, 6, 8, 7 pegs 2 for
15 then 4 for the run; 8, 7, 7, 6 pegs 2, then 2 for the pair, and no run.

## Scoring in the show

| For | Points |
|---|---|
| each combination of cards making 15 | 2 |
| each pair | 2 (three of a rank 6, four 12) |
| each run of 3 or more (duplicates make separate runs) | 1 a card |
| a flush: the hand's four cards of one suit | 4, or 5 with the starter |
| a flush in the crib: all five cards of one suit | 5 |
| his nobs: the jack of the starter's suit | 1 |

The count is called item by item: "fifteen two, fifteen four, a pair is six,
and a run of three is nine". The most a hand can hold is 29 (5 5 5 JH with 5H
the starter); 19, 25, 26 and 27 cannot be made ("nineteen" means nothing).

## Stakes and skunks

Each loser pays the **stake** in chips. With the **skunks** rule a loser who has
not passed 90 (30 in a 61-point game) is **skunked** and pays double; one who
has not passed 60 is **double skunked** and pays triple.

**Muggins** (a house rule): in the show each claims their own count (`+`/`-`,
then Enter); points a claim misses may be taken by the next opponent (`y` take,
`n` let them go).
"""
