"""Print the expected crib tables the strong Cribbage bot embeds (engine/games/cribbage/bots.py).

The expected show of a crib, given the cards one player lays away, with the
other cards of the crib and the starter uniformly random among the cards that
player has not seen (exactly enumerated, not sampled): by the ranks of two
cards laid away (two players), and of one card (three or four players). Suits
are taken different, so the table leaves out the rare five-card crib flush.

    python benchmarks/cribbage_crib_table.py
"""

from __future__ import annotations

from itertools import combinations

from engine.games.cribbage.scoring import show_score_indices


def expected_crib(laid: list[int]) -> float:
    """The mean crib score over every way to fill the crib and turn the starter from the other cards."""
    rest = [i for i in range(52) if i not in laid]
    total = count = 0
    for others in combinations(rest, 4 - len(laid)):
        crib = laid + list(others)
        for starter in rest:
            if starter not in others:
                total += show_score_indices(*crib, starter, crib=True)
                count += 1
    return total / count


def main() -> None:
    print("CRIB_TWO = {  # (lower rank, higher rank) laid away -> expected crib")
    for low in range(1, 14):
        row = [f"({low}, {high}): {expected_crib([(low - 1) * 4, (high - 1) * 4 + 1]):.2f}" for high in range(low, 14)]
        print("    " + ", ".join(row) + ",")
    print("}")
    print("CRIB_ONE = {  # rank laid away -> expected crib")
    print("    " + ", ".join(f"{rank}: {expected_crib([(rank - 1) * 4]):.2f}" for rank in range(1, 14)) + ",")
    print("}")


if __name__ == "__main__":
    main()
