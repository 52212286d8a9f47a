"""Down and Back's widgets: the pile, the round's discards, your hand, the hand helper, and the side
panel's hand rankings and rounds played.

Like the shell's widgets they take plain values and repaint only when those change.
"""

from __future__ import annotations

from typing import Any, Collection, Mapping, Sequence

from textual.app import RenderResult
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget

from ...render import EMPTY, LARGE_CARD, Display, chips, rank_key, render_parts, suit_key
from ...widgets.basics import RowsWidget, display_of
from ...widgets.table import HandCards


class PilePanel(RowsWidget):
    """The stock (face down, with its count) and the top of the discard pile."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.top: str | None = None
        self.stock: int | None = None

    def show(self, top: str | None, stock: int | None) -> None:
        if (top, stock) != (self.top, self.stock):
            self.top, self.stock = top, stock
            self.changed()

    def build(self) -> list[Content]:
        display = display_of(self)
        if self.top is None and not self.stock:
            return [Content.styled("No cards dealt yet.", "dim")]
        cards: list[str | None] = ([None] if self.stock else []) + [EMPTY if self.top is None else self.top]
        labels = (["Stock"] if self.stock else []) + ["Pile"]
        large = self.content_region.height >= LARGE_CARD[1] + 2  # the label, the cards, what is left
        width = LARGE_CARD[0] - 1 if large else 5
        lines = [Content.styled(" " + "  ".join(label.ljust(width) for label in labels), "dim")]
        lines.extend(display.card_boxes(cards, gap=1, large=large))
        lines.append(Content.styled(f" {self.stock} left" if self.stock is not None else "", "dim"))
        return lines


class DiscardHistory(RowsWidget):
    """The round's discards, newest last, as ``seat·card`` (the seat numbers of the panels)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._discards: tuple[tuple[int, str], ...] = ()

    @property
    def discards(self) -> tuple[tuple[int, str], ...]:
        return self._discards

    @discards.setter
    def discards(self, discards: tuple[tuple[int, str], ...]) -> None:
        if discards != self._discards:
            self._discards = discards
            self.changed()

    def build(self) -> list[Content]:
        if not self._discards:
            return []
        display = display_of(self)
        width = max(10, self.content_region.width or 24)
        sep = ":" if display.ascii else "·"
        entries = [Content.assemble((f"{seat + 1}{sep}", "dim"), display.card(card)) for seat, card in self._discards]
        rows: list[Content] = []
        row: list[Content] = []
        used = 0
        for entry in entries:
            if row and used + 1 + entry.cell_length > width:
                rows.append(Content(" ").join(row))
                row, used = [], 0
            used += entry.cell_length + (1 if row else 0)
            row.append(entry)
        if row:
            rows.append(Content(" ").join(row))
        room = max(1, (self.content_region.height or 6) - 1)
        return [Content.styled("Thrown this round:", "dim"), *rows[-room:]]


SORTS = ("rank", "suit", "dealt")


class HandView(HandCards):
    """Your cards, large, in a chosen order; the card being picked is highlighted, the one just taken marked.

    ``picking`` is the set of cards that may be chosen now (empty: not choosing).
    The screen moves ``picked``; this widget only draws.
    """

    order: reactive[str] = reactive("rank")
    picking: reactive[frozenset[str]] = reactive(frozenset())
    picked: reactive[str | None] = reactive(None)
    fresh: reactive[str | None] = reactive(None)  # the card just taken

    @property
    def shown(self) -> list[str]:
        if self.order == "rank":
            return sorted(self.cards, key=rank_key)
        if self.order == "suit":
            return sorted(self.cards, key=suit_key)
        return list(self.cards)

    def marks(self, shown: list[str]) -> tuple[int | None, list[int], list[int], list[str]]:
        selected = shown.index(self.picked) if self.picking and self.picked in shown else None
        return (selected, [i for i, c in enumerate(shown) if c == self.fresh],
                [i for i, c in enumerate(shown) if self.picking and c not in self.picking],
                [str(i + 1) for i in range(len(shown))])


def recommended_throw(cards: Sequence[str], allowed: Collection[str] = ()) -> str:
    """The card to throw from 8 that leaves the best split, among ``allowed`` (default: any)."""
    from engine.games.down_and_back.bots import throw

    return throw(list(cards), list(allowed or cards)).text


HELPER_ROWS = 5  # the hand helper's most rows of text (one more is its border), at every terminal size


class HandHelper(Widget):
    """The recommended split of your cards, named, with the win-both estimate (display only)."""

    DEFAULT_CSS = f"HandHelper {{ max-height: {HELPER_ROWS + 1}; }}"
    # layout=True: 7 cards take 3 lines and 8 cards 4, so the height must follow the content.
    cards: reactive[tuple[str, ...]] = reactive((), layout=True)
    allowed: reactive[frozenset[str]] = reactive(frozenset())  # what may be thrown now (no take-back)
    opponents: reactive[int] = reactive(1)

    def render(self) -> RenderResult:
        return helper_content(self.cards, self.opponents, display_of(self), self.allowed,
                              fit=(self.content_size.width or self.app.size.width, HELPER_ROWS))


def helper_content(cards: Sequence[str], opponents: int, display: Display, allowed: Collection[str] = (),
                   fit: tuple[int, int] | None = None) -> Content:
    """The helper's lines; with ``fit`` (width, rows), a suit rule's note is left out when the lines wrapped to
    that width would need more rows, so the split and the estimate are never the lines cut off."""
    from engine.cards import parse_cards
    from engine.games.down_and_back.meter import win_both
    from engine.games.down_and_back.splits import best_split

    if len(cards) not in (7, 8):
        return Content.styled("Hand helper: shows the best split once you hold 7 cards.", "dim")
    hand = parse_cards(list(cards))
    lead: list[Content] = []
    if len(hand) == 8:
        throw = recommended_throw(cards, allowed)
        lead = [Content.assemble(("Throw ", "dim"), display.card(throw), (" to keep:", "dim"))]
        hand = [c for c in hand if str(c) != throw]
    split = best_split(hand)
    estimate = win_both(split.down, split.back, max(1, opponents))
    who = "1 opponent" if opponents <= 1 else f"{opponents} opponents"
    down_notes, back_notes = suit_notes(split.down, display), suit_notes(split.back, display)

    def lines() -> list[Content]:
        return lead + [
            Content.assemble(("Down ", "dim"), display.cards(str(c) for c in split.down), "  ",
                             (split.down_value.name, "bold")),
            *down_notes,
            Content.assemble(("Back ", "dim"), display.cards(str(c) for c in split.back), "  ",
                             (split.back_value.name, "bold")),
            *back_notes,
            Content.assemble(("Wins both vs ", "dim"), (who, "dim"), (" ≈ " if not display.ascii else " ~ ", "dim"),
                             (f"{estimate:.0%}", "bold #87d787")),
        ]

    if fit is not None:
        width, rows = fit
        while (back_notes or down_notes) and sum(len(line.wrap(max(1, width))) for line in lines()) > rows:
            if back_notes:
                back_notes = back_notes[:-1]
            else:
                down_notes = down_notes[:-1]
    return Content("\n").join(lines())


def suit_notes(cards: Sequence[Any], display: Display, indent: str = "  ") -> list[Content]:
    """Why a suit rule named these cards as it did (the engine's hand rules say it), as one dim line; none when
    no suit rule changed the name ("Pair of kings, king and four" for K K K 4)."""
    from engine.cards import parse_cards
    from engine.games.down_and_back.hands import suit_note

    note = suit_note(parse_cards([str(c) for c in cards]))
    if note is None:
        return []
    return [Content.assemble(indent, render_parts(note, {}, display).stylize("dim italic"))]


SUIT_RULED = "*"  # marks the hands whose name a suit rule can change (the help page says how)


def rankings_rows() -> list[Content]:
    """The hands, best first, going down and coming back side by side (the engine's categories and
    names), with the facts a player looks up: the ace is low, which cards are faces, what the mark means."""
    from engine.games.down_and_back.hands import Category3, Category4

    def column(categories: Sequence[Any], ruled: set[str]) -> list[Content]:
        best_first = sorted(categories, reverse=True)
        return [Content.assemble((f"{n} ", "dim"), category.label, (SUIT_RULED if category.name in ruled else "", "dim"))
                for n, category in enumerate(best_first, 1)]

    down = column(list(Category4), {"PRIAL", "PAIR"})
    back = column(list(Category3), {"PAIR"})
    back += [Content.styled("Ace low; J Q K faces", "dim"), Content.styled(f"{SUIT_RULED} suit rules: F1", "dim")]
    width = 18
    rows = [Content.assemble(("Going down (4)".ljust(width), "bold"), ("Coming back (3)", "bold"))]
    for left, right in zip(down, back):
        rows.append(Content.assemble(left, " " * max(1, width - left.cell_length), right))
    return rows


class HandRankings(Widget):
    """The side panel's reference: the hand rankings, best first (drawn once: it never changes)."""

    DEFAULT_CSS = "HandRankings { height: auto; }"

    def render(self) -> RenderResult:
        return Content("\n").join(rankings_rows())


LEDGER_ROWS = 5  # rounds the ledger shows, the newest


class RoundsPlayed(RowsWidget):
    """The side panel's scores: each round's result (who won going down and coming back, the pot), the
    newest last. It has a fixed height (its heading and :data:`LEDGER_ROWS` rows), so a new round never moves
    the chat under it."""

    DEFAULT_CSS = f"RoundsPlayed {{ height: {LEDGER_ROWS + 1}; }}"

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.results: dict[int, tuple[Any, ...]] = {}  # round -> (down, back, pot, winner, carried, ended)
        self.names: dict[int, str] = {}
        self.me: int | None = None

    def add(self, result: Mapping[str, Any]) -> None:
        """A round's result (a ``result`` event, or a round record of the table's history)."""
        if not isinstance(result.get("round"), int):
            return
        row = (result.get("down_winner"), result.get("back_winner"), result.get("pot", 0), result.get("winner"),
               result.get("carried", 0), bool(result.get("abandoned")))
        if self.results.get(result["round"]) != row:
            self.results[result["round"]] = row
            self.changed()

    def show_names(self, names: Mapping[int, str], me: int | None) -> None:
        if (dict(names), me) != (self.names, self.me):
            self.names, self.me = dict(names), me
            self.changed()

    def _who(self, seat: int | None) -> str:
        if seat is None:
            return "-"
        return "You" if seat == self.me else self.names.get(seat, f"seat {seat + 1}")

    def build(self) -> list[Content]:
        if not self.results:
            return [Content.styled("Rounds: each result is listed here.", "dim")]
        rows = [Content.styled(f"{'Round':<6}{'Down':<11}{'Back':<11}Pot", "bold")]
        for number in sorted(self.results)[-LEDGER_ROWS:]:
            down, back, pot, winner, carried, ended = self.results[number]
            if ended:
                pot_text = Content.styled("paid back", "dim")
            elif winner is not None:
                pot_text = Content.styled(f"{chips(pot)} taken", "bold #87d787")
            else:
                pot_text = Content.styled(f"{chips(carried or pot)} carried", "#ffd75f")
            rows.append(Content.assemble(f"{number:>4}  ", Content(self._who(down)[:10].ljust(11)),
                                         Content(self._who(back)[:10].ljust(11)), pot_text))
        return rows
