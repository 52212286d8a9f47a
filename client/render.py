"""How cards, hands and events look: pure functions from data to Textual ``Content``.

User-supplied text (names, chat, table names) only ever enters through
``Content(text)`` or a ``(text, style)`` part of ``Content.assemble`` — never
through markup — so ``[bold]x[/]`` shows as typed. ``Content`` also drops
control characters, so an escape sequence in a name cannot reach the terminal.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Iterable, Mapping, Sequence

from textual.content import Content

from engine.cards import Card, CardParseError, Suit

if TYPE_CHECKING:
    from engine.contract import Part

RED, GREEN, BLUE = "#ff5f5f", "#5fd75f", "#6f9fff"
EMPTY = ""  # in :meth:`Display.card_boxes`: an empty place (a pile with no card), not a card back
SMALL_CARD, LARGE_CARD = (6, 4), (9, 7)  # a card box's (width, height) in cells: 80x24, and large terminals

# An escape sequence (CSI / OSC / two-character), then any other control or format character.
_ESCAPES = re.compile(r"\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)?|[@-_])?|\x9b[0-?]*[ -/]*[@-~]")


def plain(text: str) -> str:
    """``text`` without escape sequences, control or format characters (bidi overrides...).

    The server cleans names and chat already; the client does it again, so no
    server can make a name repaint someone's terminal. Tabs and newlines become spaces.
    """
    if text.isprintable():
        return text
    text = _ESCAPES.sub("", text)
    return "".join(" " if c in "\t\n\r" else c for c in text
                   if c in "\t\n\r" or unicodedata.category(c) not in ("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))


def clean_data(obj: Any) -> Any:
    """A copy of server data (views, events, table lists) with every string made :func:`plain`."""
    if isinstance(obj, str):
        return plain(obj)
    if isinstance(obj, dict):
        return {key: clean_data(value) for key, value in obj.items()}
    if isinstance(obj, (list, tuple)):
        return [clean_data(value) for value in obj]
    return obj


_WORD = re.compile(r"\b\w{2,3}\b")


def _is_card(word: str) -> bool:
    """Is ``word`` a card in its canonical notation ("10H", not "as" or "TH")?"""
    try:
        return Card.parse(word).text == word
    except CardParseError:
        return False


def rank_key(card: str) -> tuple[int, int]:
    """Sort by rank (ace low), then suit, in the engine's order of cards."""
    parsed = Card.parse(card)
    return parsed.rank, parsed.suit.index


def suit_key(card: str) -> tuple[int, int]:
    parsed = Card.parse(card)
    return parsed.suit.index, parsed.rank


@dataclass(frozen=True)
class Display:
    """The user's display choices: ``--ascii`` and ``--four-colour``."""

    ascii: bool = False
    four_colour: bool = False

    # ------------------------------------------------------------ single cards

    def suit_style(self, suit: str | Suit) -> str:
        suit = Suit(suit)
        if suit is Suit.HEARTS:
            return RED
        if suit is Suit.DIAMONDS:
            return BLUE if self.four_colour else RED
        if suit is Suit.CLUBS:
            return GREEN if self.four_colour else ""
        return ""

    def card_text(self, card: str) -> str:
        """A card's notation ("10H", engine/cards.py) as shown: ``10♥``, or ``10h`` in ASCII."""
        parsed = Card.parse(card)
        return parsed.ascii() if self.ascii else parsed.unicode()

    def cards_in_text(self, text: str) -> str:
        """``text`` with every card written in notation ("3H 3D") shown as the player sees cards ("3♥ 3♦")."""
        return _WORD.sub(lambda word: self.card_text(word[0]) if _is_card(word[0]) else word[0], text)

    def card(self, card: str, extra: str = "") -> Content:
        style = " ".join(s for s in ("bold", self.suit_style(Card.parse(card).suit), extra) if s)
        return Content.styled(self.card_text(card), style)

    def cards(self, cards: Iterable[str], sep: str = " ") -> Content:
        return Content(sep).join([self.card(c) for c in cards])

    @property
    def enter(self) -> str:
        return "Enter" if self.ascii else "⏎"

    @property
    def arrows(self) -> str:
        return "<-/->" if self.ascii else "←→"

    @property
    def ellipsis(self) -> str:
        return "..." if self.ascii else "…"

    @property
    def back_glyph(self) -> str:
        return "#" if self.ascii else "▮"

    @property
    def box(self) -> tuple[str, str, str, str, str, str]:
        """Top-left, top-right, bottom-left, bottom-right, horizontal, vertical."""
        return ("+", "+", "+", "+", "-", "|") if self.ascii else ("╭", "╮", "╰", "╯", "─", "│")

    # ------------------------------------------------------------ card boxes

    def card_boxes(
        self,
        cards: Sequence[str | None],
        *,
        selected: int | None = None,
        marked: Iterable[int] = (),
        dim: Iterable[int] = (),
        labels: Sequence[str] | None = None,
        gap: int = 1,
        large: bool = False,
    ) -> list[Content]:
        """Cards drawn as boxes side by side, 6x4 (``large``: 9x7, :data:`LARGE_CARD`), ``None`` a card back,
        :data:`EMPTY` an empty place; plus an optional label line under them. ``selected`` is drawn
        in the accent colour, ``marked`` cards get a highlighted frame, ``dim`` ones are faded."""
        tl, tr, bl, br, h, v = self.box
        marked, dim = set(marked), set(dim)
        inside, height = (LARGE_CARD[0] - 2, LARGE_CARD[1]) if large else (SMALL_CARD[0] - 2, SMALL_CARD[1])
        rows: list[list[Content]] = [[] for _ in range(height)]
        spacer = Content(" " * gap)
        for i, card in enumerate(cards):
            frame = "bold #ffd75f" if i == selected else ("bold #5fd7ff" if i in marked else "")
            if i in dim:
                frame = "dim"
            if card == EMPTY:
                frame = "dim"
                faces = [Content(" " * inside)] * (height - 2)
            elif card is None:
                faces = [Content.styled(("#" if self.ascii else "░") * inside, "#5f87af")] * (height - 2)
            else:
                style = " ".join(s for s in ("bold", self.suit_style(Card.parse(card).suit), "dim" if i in dim else "")
                                 if s)
                faces = [Content.styled(face, style) for face in self._faces(card, large)]
            if i == selected:
                faces = [face.stylize("reverse") for face in faces]
            rows[0].append(Content.styled(tl + h * inside + tr, frame))
            for row, face in zip(rows[1:-1], faces):
                row.append(Content.assemble((v, frame), face, (v, frame)))
            rows[-1].append(Content.styled(bl + h * inside + br, frame))
        lines = [spacer.join(row) for row in rows]
        if labels is not None:
            parts = []
            for i, label in enumerate(labels):
                style = "bold #ffd75f" if i == selected else ("bold #5fd7ff" if i in marked else "dim")
                parts.append(Content.styled(label.center(inside + 2), style))
            lines.append(spacer.join(parts))
        return lines

    def card_fan(self, cards: Sequence[str | None], step: int, *, large: bool = True) -> list[Content]:
        """Cards overlapping left to right as a hand holds them: each shows its left ``step`` columns (its
        index), the last is whole; with ``step`` at least a card's width they lie side by side, ``step``
        columns from one card's left edge to the next's."""
        boxes = [self.card_boxes([card], large=large) for card in cards]
        if not boxes:
            return []
        width = (LARGE_CARD if large else SMALL_CARD)[0]
        if step >= width:
            return self.card_boxes(cards, large=large, gap=step - width)
        return [Content("").join([box[row][:step] for box in boxes[:-1]] + [boxes[-1][row]])
                for row in range(len(boxes[0]))]

    def _faces(self, card: str, large: bool) -> list[str]:
        """A card's face, the lines inside its frame: its index top left and bottom right (``large``: the
        rank over the suit, a pip in the middle, as printed cards have them)."""
        text = self.card_text(card)
        inside = (LARGE_CARD if large else SMALL_CARD)[0] - 2
        if not large:
            return [text.ljust(inside), text.rjust(inside)]
        rank, suit = text[:-1], text[-1]
        return [rank.ljust(inside), suit.ljust(inside), suit.center(inside), suit.rjust(inside), rank.rjust(inside)]


def name_part(names: Mapping[int, str], seat: int | None, style: str = "bold") -> Content:
    if seat is None:
        return Content("the table")
    return Content.styled(names.get(seat, f"seat {seat + 1}"), style)


def chips(amount: int) -> str:
    return f"{amount:,}"


def render_parts(parts: Sequence[Part], names: Mapping[int, str], display: Display, me: int | None = None) -> Content:
    """An event in the engine's one wording (:data:`engine.contract.Part` s) as styled text: the one sentence
    builder. What the client words itself about a player (a show's title, a result's rows, a prompt) is built
    as parts the same way (:func:`engine.contract.about`, :func:`engine.contract.possessive`) and rendered here.

    Names are bold and always literal, cards in the player's suit symbols and
    colours, chips with thousands separators; our own seat is "You" (in the
    second person: every word the engine marks as agreeing with us takes its
    ``you`` form, and "alice's" is "Your").
    """
    out: list[Content] = []
    for part in parts:
        if "text" in part:
            mine = "you" in part and me is not None and part.get("subject") == me
            out.append(Content(part["you"] if mine else part["text"]))
        elif "seat" in part:
            seat = part["seat"]
            owner = part.get("possessive")
            if seat is not None and seat == me:
                word = ("Your" if owner else "You") if not out else ("your" if owner else "you")
                out.append(Content.styled(word, "bold"))
            elif seat is not None and seat not in names and isinstance(part.get("name"), str):
                name = Content.styled(part["name"], "bold")  # a seat left since (the event names it)
                out.append(Content.assemble(name, "'s") if owner else name)
            else:
                name = name_part(names, seat)
                out.append(Content.assemble(name, "'s") if owner else name)
        elif "card" in part:
            out.append(display.card(part["card"]))
        elif "cards" in part:
            out.append(display.cards(part["cards"]))
        else:
            out.append(Content(chips(part["chips"])))
    return Content("").join(out)
