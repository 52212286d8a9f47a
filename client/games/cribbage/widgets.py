"""Cribbage's widgets: the pegboard of 121 holes, the play (count, starter, crib), your hand, the hand helper,
and the side panel's scoring table and deals played.

Like the shell's widgets they take plain values and repaint only when those change.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Sequence

from textual.app import RenderResult
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from engine.contract import about, possessive

from ...render import EMPTY, LARGE_CARD, Display, render_parts
from ...widgets.basics import RowsWidget, display_of
from ...widgets.table import HandCards

HOLES = 120  # the game hole (121) comes after them
ROWS = 3  # each side's track, out and back again, as rows of 40 holes
PER_ROW = HOLES // ROWS
GROUP = 5  # holes are counted in fives
LABEL = 8
SIDE_COLOURS = ("#ff5f5f", "#5fd7ff", "#87d787")


@dataclass(frozen=True)
class Side:
    """One side on the pegboard: who, its front peg (the score) and its back peg."""

    name: str
    score: int
    back: int
    mine: bool = False


def _glyphs(display: Display) -> tuple[str, str, str, str]:
    """An empty hole, the back peg, the front peg, the game hole."""
    return (".", "o", "@", "*") if display.ascii else ("·", "○", "●", "◎")


def shown_score(score: int, target: int) -> int:
    """A side's score as the board shows it: the game hole is the last (no "122" on a 121-hole board)."""
    return min(score, target)


def track_width(target: int = 121) -> int:
    """The cells of one row of a side's track (its holes in fives, then the game hole)."""
    holes = HOLES if target > 61 else target - 1
    per_row = PER_ROW if target > 61 else -(-holes // ROWS)
    return per_row + (per_row - 1) // GROUP + 2


def track_rows(side: Side, colour: str, display: Display, target: int = 121, label: int = LABEL,
               named: bool = True) -> list[Content]:
    """One side's track: ``ROWS`` rows of holes in fives, the pegs in the side's colour, the game hole last,
    after a ``label`` cells wide column: the name and the score (``named``), else the score alone (the
    name then has a line of its own above the track, :func:`side_rows`).

    A 61-point game goes once round the same board (the game hole is then hole 61).
    """
    hole, back_peg, front_peg, game_hole = _glyphs(display)
    holes = HOLES if target > 61 else target - 1
    per_row = PER_ROW if target > 61 else -(-holes // ROWS)
    front, back = min(side.score, holes + 1), min(side.back, holes + 1)
    rows = []
    score = f"{shown_score(side.score, target):>3}"
    labels = [side.name, score, ""] if named else [score, "", ""]
    for r in range(ROWS):
        cells: list[Content] = []
        for i in range(r * per_row + 1, min((r + 1) * per_row, holes) + 1):
            if i > 1 and (i - 1) % GROUP == 0 and i != r * per_row + 1:
                cells.append(Content(" "))
            if i == front:
                cells.append(Content.styled(front_peg, f"bold {colour}"))
            elif i == back:
                cells.append(Content.styled(back_peg, colour))
            else:
                cells.append(Content.styled(hole, "dim"))
        if r == ROWS - 1:
            won = front == holes + 1
            cells.append(Content(" "))
            cells.append(Content.styled(front_peg if won else game_hole, f"bold {colour}" if won else "dim"))
        style = f"bold {colour}" if r == 0 and named else "bold"
        text = Content.styled(labels[r], style)
        rows.append(Content.assemble(text.truncate(label - 1, pad=True), " ", *cells))
    return rows


def side_rows(sides: Sequence[Side], display: Display, target: int, width: int) -> list[Content]:
    """Every side's track. The names go in the column beside the tracks when each fits there; else each side
    has a line for its name above its track (a name is never cut: "Ada (bot)", "Ann & Cleo")."""
    label = max(LABEL, width - track_width(target))
    named = all(len(side.name) <= label - 1 for side in sides)
    rows: list[Content] = []
    for i, side in enumerate(sides):
        colour = SIDE_COLOURS[i % len(SIDE_COLOURS)]
        if not named:
            rows.append(Content.styled(side.name, f"bold {colour}"))
        rows.extend(track_rows(side, colour, display, target, label if named else 4, named))
    return rows


class PegBoard(RowsWidget):
    """The cribbage board: each side's track with its two pegs, leapfrogging as points are scored."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.sides: tuple[Side, ...] = ()
        self.target = 121

    def show(self, sides: Sequence[Side], target: int) -> None:
        if (tuple(sides), target) != (self.sides, self.target):
            self.sides, self.target = tuple(sides), target
            self.changed()

    def build(self) -> list[Content]:
        display = display_of(self)
        if not self.sides:
            return [Content.styled("The pegboard: the game has not started.", "dim")]
        return side_rows(self.sides, display, self.target, self.content_region.width or 57)


class PlayRows(RowsWidget):
    """What the play shows (the count, the cards laid since it was last reset, the starter, whose crib), drawn
    by :meth:`rows`: :class:`PlayPanel` as lines, :class:`PlayTable` as large cards."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state: tuple[Any, ...] = ()

    def show(self, count: int | None, series: Sequence[Any], starter: str | None, crib_owner: str | None,
             crib_cards: int, went: str = "") -> None:
        """``series``: the cards laid since the count was last reset, in order."""
        state = (count, tuple(series), starter, crib_owner, crib_cards, went)
        if state != self.state:
            self.state = state
            self.changed()

    def build(self) -> list[Content]:
        if not self.state:
            return [Content.styled("No cards dealt yet.", "dim")]
        return self.rows(display_of(self), *self.state)

    def rows(self, display: Display, count: int | None, series: Sequence[Any], starter: str | None,
             owner: str | None, crib_cards: int, went: str) -> list[Content]:
        raise NotImplementedError


class PlayPanel(PlayRows):
    """The play as lines: the count and the cards laid since it was last reset, the starter, whose crib."""

    def rows(self, display: Display, count: int | None, series: Sequence[Any], starter: str | None,
             owner: str | None, crib_cards: int, went: str) -> list[Content]:
        rows = []
        if count is not None:
            rows.append(Content.assemble(("Count ", "dim"), (f"{count}", "bold #ffd75f"),
                                         (f"  {went}" if went else "", "dim")))
            rows.append(display.cards(series) if series else Content.styled("(no card yet)", "dim"))
        rows.append(Content.assemble(("Starter ", "dim"), display.card(starter) if starter
                                     else Content.styled(display.back_glyph, "#5f87af")))
        if owner is not None:
            backs = Content.styled(display.back_glyph * crib_cards, "#5f87af") if crib_cards else Content("-")
            rows.append(Content.assemble((f"{owner} crib ", "dim"), backs))
        return rows


class PlayTable(PlayRows):
    """The play on a larger terminal, in place of :class:`PlayPanel`: the cards laid since the count was last
    reset as large cards (who laid each under it), the starter, and the crib's cards face down, whose it is.
    Its ``series`` are (who laid it, the card), in order.

    Always :attr:`HEIGHT` rows (the board gives it that height), whatever the phase: nothing moves as the
    play begins and ends."""

    HEIGHT = LARGE_CARD[1] + 2  # the heading, the cards, who laid them

    def rows(self, display: Display, count: int | None, series: Sequence[Any], starter: str | None,
             owner: str | None, crib_cards: int, went: str) -> list[Content]:
        width = max(40, self.content_region.width or 57)
        card = LARGE_CARD[0]
        # At the right: the starter, and the crib's cards face down (an empty place before any is laid away).
        crib_label = f"{owner or 'The'} crib"[:16]
        crib = display.card_fan([None] * crib_cards if crib_cards else [EMPTY], 2)
        crib_width = max(crib[0].cell_length, len(crib_label))
        right = [Content.assemble(s, "  ", c.pad_right(crib_width - c.cell_length))
                 for s, c in zip(display.card_boxes([starter], large=True), crib)]
        labels = Content.assemble(("Starter".ljust(card + 2), "dim"), (crib_label.ljust(crib_width), "dim"))
        room = width - right[0].cell_length - 2  # at the left, for the count's cards
        if count is not None:
            heading = Content.assemble(("Count ", "dim"), (f"{count}", "bold #ffd75f"),
                                       (f"  {went}" if went else "", "dim")).truncate(room)
        else:
            heading = Content.styled("The play: no count yet" if owner is not None else "", "dim")
        cards, who = [c for _, c in series], [w for w, _ in series]
        fits = max(1, (room - card) // 3 + 1)  # fanned 3 columns apart, each card still shows its index
        cards, who = cards[-fits:], who[-fits:]
        step = min(card + 1, (room - card) // (len(cards) - 1)) if len(cards) > 1 else card + 1
        left = display.card_fan(cards, step) if cards else [Content("")] * LARGE_CARD[1]
        rows = [Content.assemble(heading, " " * (room + 2 - heading.cell_length), labels)]
        rows += [Content.assemble(l, " " * (room + 2 - l.cell_length), r) for l, r in zip(left, right)]
        rows.append(Content("").join([Content.styled(name[:step - 1].ljust(step), "dim") for name in who])
                    if step > 3 else Content(""))
        return rows


class CribHand(HandCards):
    """Your cards, large, sorted by rank: the cursor, the cards chosen for the crib, the ones you may not play."""

    allowed: reactive[frozenset[str]] = reactive(frozenset())  # what may be chosen now (empty: nothing)
    cursor: reactive[str | None] = reactive(None)
    chosen: reactive[frozenset[str]] = reactive(frozenset())  # laid away if Enter is pressed

    def marks(self, shown: list[str]) -> tuple[int | None, list[int], list[int], list[str]]:
        selected = shown.index(self.cursor) if self.allowed and self.cursor in shown else None
        return (selected, [i for i, c in enumerate(shown) if c in self.chosen],
                [i for i, c in enumerate(shown) if self.allowed and c not in self.allowed],
                [("crib" if c in self.chosen else str(i + 1)) for i, c in enumerate(shown)])


def helper_rows(hand: Sequence[str], own_crib: bool, display: Display, limit: int = 15) -> list[Content]:
    """The hand helper: each way to lay away, best first, with the kept hand's and the crib's expected points."""
    from engine.cards import parse_cards
    from engine.games.cribbage.bots import discard_choices

    if len(hand) not in (5, 6):
        return [Content.styled("Hand helper: the expected points of each discard, when you lay away.", "dim")]
    whose = "your" if own_crib else "their"
    rows = [Content.styled(f"{'Lay away':<10}{'hand':>6}  {whose + ' crib':>10}", "dim")]
    sign = "+" if own_crib else "-"
    for laid, kept, crib in discard_choices(parse_cards(list(hand)), own_crib)[:limit]:
        cards = display.cards(str(c) for c in laid)
        rows.append(Content.assemble(cards, " " * max(1, 10 - cards.cell_length), (f"{kept:6.1f}", "bold"),
                                     f"  {sign}", (f"{crib:8.1f}", "#87d787" if own_crib else "#ff5f5f")))
    return rows


class HandHelper(RowsWidget):
    """While laying away, the expected points of every discard choice (``h`` hides it); in the show,
    the last count item by item (``v`` shows them all)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.state: tuple[Any, ...] = ((), False, None, (), None)

    def show(self, hand: Sequence[str], own_crib: bool, counted: dict[str, Any] | None = None,
             names: dict[int, str] | None = None, me: int | None = None) -> None:
        state = (tuple(hand), own_crib, counted, tuple(sorted((names or {}).items())), me)
        if state != self.state:
            self.state = state
            self.changed()

    def build(self) -> list[Content]:
        hand, own_crib, counted, names, me = self.state
        if not hand and counted is not None:
            return show_rows([counted], dict(names), display_of(self), compact=True,
                             width=self.content_region.width or 56, me=me)
        room = self.content_region.height or 16  # as many choices as it shows (never a list cut in half)
        return helper_rows(hand, own_crib, display_of(self), limit=max(1, min(15, room - 1)))


def show_rows(show: Sequence[dict[str, Any]], names: dict[int, str], display: Display, compact: bool = False,
              width: int = 72, me: int | None = None) -> list[Content]:
    """The show, item by item as it is called: whose count, its cards and the starter and what it pegs, then
    each item with the cards it counts and the running total ("fifteen two", "a pair is four"). ``compact``:
    the items of a count flow on as few lines of ``width`` as they take (the show of three counts then fits
    the board's rows at 80x24). Our seat ``me`` is in the second person: "Your hand", "muggins: you take 2"."""
    from engine.games.cribbage.scoring import call

    rows: list[Content] = []
    for counted in show:
        title = Content.styled(render_parts([possessive(counted.get("seat")), {"text": f" {counted.get('what', 'hand')}"}],
                                            names, display, me).plain, "bold")
        items = counted.get("items")
        pegs = Content("") if items is None else Content.assemble(
            ("  pegs ", "dim"), (str(counted.get("points", 0)), "bold #87d787"), (f" (now {counted.get('score', 0)})", "dim"))
        rows.append(Content.assemble(title, "  ", display.cards(counted.get("cards") or ()),
                                     (" + ", "dim"), display.card(counted["starter"]) if counted.get("starter")
                                     else Content(""), pegs))
        if items is None:
            rows.append(Content.styled(f"  claimed {counted.get('claimed')}: short, muggins is being decided",
                                       "italic"))
            continue
        if not items:
            rows.append(Content.styled("  nineteen (nothing)", "dim"))
        elif compact:
            flow = Content(", ").join([Content.assemble(call(item), " ", display.cards(item.get("cards") or ()))
                                       for item in items])
            rows.extend(Content.assemble("  ", line) for line in flow.wrap(max(20, width - 2)))
        else:
            for item in items:
                rows.append(Content.assemble("  ", (call(item).ljust(28), ""), display.cards(item.get("cards") or ())))
        taken = counted.get("muggins")
        if taken and taken.get("take"):
            taker = taken.get("seat")
            rows.append(Content.styled(render_parts([{"text": "  muggins: "}, {"seat": taker},
                                                     *about(taker, f" {{takes}} {taken['points']}")],
                                                    names, display, me).plain, "#ff5f5f"))
    return rows


# The scoring table of the side panel: (what, in the play, in the show); the help page has it in full.
SCORING = (
    ("fifteen", "2", "2 each"),
    ("pair", "2", "2 each"),
    ("three of a rank", "6", "6"),
    ("four of a rank", "12", "12"),
    ("run, a card", "1", "1"),
    ("31 / go, last", "2/1", ""),
    ("flush", "", "4; 5 with starter"),
    ("crib flush", "", "5: all five"),
    ("his nobs", "", "1"),
)


class ScoringTable(Widget):
    """The side panel's reference: what scores in the play and in the show (drawn once: it never changes)."""

    DEFAULT_CSS = "ScoringTable { height: auto; }"

    def render(self) -> RenderResult:
        rows = [Content.assemble(("Scoring".ljust(15), "bold"), ("Play".rjust(4), "bold"), ("  Show", "bold"))]
        for what, play, show in SCORING:
            rows.append(Content.assemble(what.ljust(15), (play.rjust(4), "bold #87d787"), "  ",
                                         (show, "bold #87d787")))
        return Content("\n").join(rows)


DEAL_ROWS = 5  # the deals and games the ledger shows, the newest


class DealsPlayed(RowsWidget):
    """The side panel's scores: each side's points in each deal of this game (the one under way so far),
    and each finished game's final score, the newest last. A fixed height (a heading and
    :data:`DEAL_ROWS` rows): a new deal never moves the chat under it."""

    DEFAULT_CSS = f"DealsPlayed {{ height: {DEAL_ROWS + 1}; }}"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.sides: tuple[tuple[str, bool], ...] = ()  # (who, ours) by side
        self.scores: dict[tuple[int, int], tuple[int, ...]] = {}  # (game, deal) -> each side's score after it
        self.games: dict[int, tuple[tuple[int, ...], tuple[int, ...]]] = {}  # game -> (scores, winning sides)
        self.current: tuple[int, int] | None = None

    def record(self, sides: Sequence[tuple[str, bool]], game: int, deal: int, scores: Sequence[int],
               current: bool = True) -> None:
        """The sides' scores after deal ``deal`` of game ``game``: as it stands, the deal under way, if
        ``current``; else a finished deal's (the table's history), which never replaces what a view said."""
        before = (self.sides, dict(self.scores), self.current)
        self.sides = tuple(sides)
        if current:
            self.scores[(game, deal)] = tuple(scores)
            self.current = (game, deal)
        else:
            self.scores.setdefault((game, deal), tuple(scores))
        if (self.sides, self.scores, self.current) != before:
            self.changed()

    def game_won(self, game: int, scores: Sequence[int], winners: Sequence[int]) -> None:
        """Game ``game`` ended with ``scores`` by side, won by the sides ``winners`` (their indices)."""
        entry = (tuple(scores), tuple(winners))
        if self.games.get(game) != entry:
            self.games[game] = entry
            self.changed()

    def build(self) -> list[Content]:
        if not self.sides or not (self.scores or self.games):
            return [Content.styled("Deals: each side's points are listed here.", "dim")]
        width = max(5, min(10, ((self.content_region.width or 38) - 8) // max(1, len(self.sides))))
        heading = [Content.styled("Deal".ljust(8), "bold")]
        heading += [Content.styled(who[:width - 1].rjust(width), "bold #ffd75f" if ours else "bold")
                    for who, ours in self.sides]
        rows: list[Content] = []
        game = self.current[0] if self.current else max(self.games, default=0)
        for number in sorted(self.games):
            scores, winners = self.games[number]
            rows.append(Content.assemble(f"game {number}".ljust(8), *[
                Content.styled(str(score).rjust(width), "bold #87d787" if side in winners else "dim")
                for side, score in enumerate(scores)]))
        deals = sorted(deal for g, deal in self.scores if g == game and game not in self.games)
        for deal in deals:
            scores = self.scores[(game, deal)]
            before = self.scores.get((game, deal - 1)) if deal > 1 else tuple(0 for _ in scores)
            mark = " ·" if (game, deal) == self.current else ""
            # (a deal whose start this client did not see: the scores so far, in brackets)
            cells = [str(s - b) for s, b in zip(scores, before)] if before is not None else [f"({s})" for s in scores]
            rows.append(Content.assemble((f"{deal:>3}{mark}".ljust(8), "dim"),
                                         *[Content(cell.rjust(width)) for cell in cells]))
        return [Content("").join(heading), *rows[-DEAL_ROWS:]]
