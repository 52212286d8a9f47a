"""The table's story in the log (issue 27 item 8), read off the real terminals of the evening at both sizes:
who joined, sat out, left and came back. (A connection cut and back at once is no news: nothing is said. The
fair deal's plumbing is not in the log either: ``test_e2e_fair_status.py``.)"""

from __future__ import annotations

import re

from evening_helpers import Evening, at

BORDERS = re.compile(r"[▏▕│]")

SAT_OUT = {"down-and-back": ("sits out", "sit out"), "cribbage": ("is away", "are away")}


def logged(sentence: str):
    """A screen predicate: ``sentence`` is a line of the log, which may wrap it over the rows below at the
    column it starts at (a narrow log: Cribbage's, 20 columns beside the pegboard)."""
    first = sentence.split()[0]

    def found(text: str) -> bool:
        rows = text.splitlines()
        for i, row in enumerate(rows):
            for hit in re.finditer(re.escape(first), row):
                collected = ""
                for below in rows[i:i + 4]:
                    collected = " ".join((collected + " " + BORDERS.split(below[hit.start():])[0]).split())
                    if collected.startswith(sentence):
                        return True
        return False

    found.__name__ = f"the log line {sentence!r}"
    return found


@at("waiting room")
def the_host_reads_who_joined(evening: Evening) -> None:
    """Bob joined from the lobby: Ann's log says so (her own joining is said to her as "You")."""
    evening.ann.wait_for(logged("Bob joins the table"))


@at("sitting out")
def the_table_reads_who_sat_out(evening: Evening) -> None:
    """Ann sat out: Bob's log names her, hers says "You ..." (the second person of the same event); each game
    words it its own way (Cribbage: away, the table playing for her)."""
    third, second = SAT_OUT[evening.game]
    evening.bob.wait_for(logged(f"Ann {third}"), since=0)
    evening.ann.wait_for(logged(f"You {second}"), since=0)


@at("rejoined")
def the_host_reads_who_left_and_came_back(evening: Evening) -> None:
    """Bob left for the lobby (his seat kept) and came back to it: Ann read both. (Not in Cribbage at 80x24:
    its log beside the pegboard has two rows of 20 columns there, so a line wrapped over three is only ever
    seen by its end: there only that end is read.)"""
    ann = evening.ann
    if evening.game == "cribbage" and evening.size[1] < 30:
        ann.wait_for(logged("the table"), since=0)  # the end of "... comes back to the table"
        return
    ann.wait_for(logged("Bob leaves the table: the seat is kept"), since=0)
    ann.wait_for(logged("Bob comes back to the table"), since=0)
