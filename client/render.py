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
from typing import Any, Iterable, Mapping, Sequence

from textual.content import Content

GLYPHS = {"S": "♠", "H": "♥", "D": "♦", "C": "♣"}
SUIT_WORDS = {"S": "spades", "H": "hearts", "D": "diamonds", "C": "clubs"}
RANK_ORDER = {r: i for i, r in enumerate(["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"], 1)}
SUIT_ORDER = {"S": 0, "H": 1, "D": 2, "C": 3}

RED, GREEN, BLUE = "#ff5f5f", "#5fd75f", "#6f9fff"
EMPTY = ""  # in :meth:`Display.card_boxes`: an empty place (a pile with no card), not a card back

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


def split_card(card: str) -> tuple[str, str]:
    return card[:-1], card[-1]


def rank_key(card: str) -> tuple[int, int]:
    rank, suit = split_card(card)
    return RANK_ORDER[rank], SUIT_ORDER[suit]


def suit_key(card: str) -> tuple[int, int]:
    rank, suit = split_card(card)
    return SUIT_ORDER[suit], RANK_ORDER[rank]


@dataclass(frozen=True)
class Display:
    """The user's display choices: ``--ascii`` and ``--four-colour``."""

    ascii: bool = False
    four_colour: bool = False

    # ------------------------------------------------------------ single cards

    def suit_style(self, suit: str) -> str:
        if suit == "H":
            return RED
        if suit == "D":
            return BLUE if self.four_colour else RED
        if suit == "C":
            return GREEN if self.four_colour else ""
        return ""

    def suit(self, suit: str) -> str:
        return suit.lower() if self.ascii else GLYPHS[suit]

    def card_text(self, card: str) -> str:
        rank, suit = split_card(card)
        return rank + self.suit(suit)

    def card(self, card: str, extra: str = "") -> Content:
        style = " ".join(s for s in ("bold", self.suit_style(card[-1]), extra) if s)
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
    def dash(self) -> str:
        return "-" if self.ascii else "—"

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
    ) -> list[Content]:
        """Cards drawn as 6x4 boxes side by side (``None`` draws a card back, :data:`EMPTY`
        an empty place), plus an optional label line under them. ``selected`` is drawn
        in the accent colour, ``marked`` cards get a highlighted frame, ``dim`` ones are faded."""
        tl, tr, bl, br, h, v = self.box
        marked, dim = set(marked), set(dim)
        rows: list[list[Content]] = [[], [], [], []]
        spacer = Content(" " * gap)
        for i, card in enumerate(cards):
            frame = "bold #ffd75f" if i == selected else ("bold #5fd7ff" if i in marked else "")
            if i in dim:
                frame = "dim"
            if card == EMPTY:
                frame = "dim"
                face1 = face2 = Content("    ")
            elif card is None:
                pattern = ("#" if self.ascii else "░") * 4
                face1 = face2 = Content.styled(pattern, "#5f87af")
            else:
                rank, suit = split_card(card)
                style = " ".join(s for s in ("bold", self.suit_style(suit), "dim" if i in dim else "") if s)
                text = rank + self.suit(suit)
                face1 = Content.styled(text.ljust(4), style)
                face2 = Content.styled(text.rjust(4), style)
            if i == selected:
                face1 = face1.stylize("reverse")
                face2 = face2.stylize("reverse")
            rows[0].append(Content.styled(tl + h * 4 + tr, frame))
            rows[1].append(Content.assemble((v, frame), face1, (v, frame)))
            rows[2].append(Content.assemble((v, frame), face2, (v, frame)))
            rows[3].append(Content.styled(bl + h * 4 + br, frame))
        lines = [spacer.join(row) for row in rows]
        if labels is not None:
            parts = []
            for i, label in enumerate(labels):
                style = "bold #ffd75f" if i == selected else ("bold #5fd7ff" if i in marked else "dim")
                parts.append(Content.styled(label.center(6), style))
            lines.append(spacer.join(parts))
        return lines


def seat_names(view: Mapping[str, Any]) -> dict[int, str]:
    return {p["seat"]: p["name"] for p in view.get("players", [])}


def name_part(names: Mapping[int, str], seat: int | None, style: str = "bold") -> Content:
    if seat is None:
        return Content("the table")
    return Content.styled(names.get(seat, f"seat {seat + 1}"), style)


def chips(amount: int) -> str:
    return f"{amount:,}"


def describe_event(event: Mapping[str, Any], names: Mapping[int, str], display: Display,
                   me: int | None = None) -> Content | None:
    """One log line for a table event (a record from the engine), or ``None`` to skip it."""
    kind = event.get("kind")
    seat = event.get("seat")
    you = seat is not None and seat == me
    who = Content.styled("You", "bold") if you else name_part(names, seat)

    def verb(word: str) -> str:  # "You take" / "Ann takes"
        if you:
            return word
        return word + ("es" if word.endswith(("s", "sh", "ch")) else "s")

    c = display.card
    if kind == "round":
        return Content.assemble(
            (f"{display.dash} Round {event.get('round')} {display.dash} ", "bold"), name_part(names, event.get("dealer")), " deals, ",
            name_part(names, event.get("cutter")), f" cuts; pot {chips(event.get('pot', 0))}",
        )
    if kind == "cut":
        how = "at random" if event.get("random") else f"at {event.get('position')}"
        return Content.assemble(who, f" {verb('cut')} the deck {how}")
    if kind == "deal":
        if you and event.get("hand"):
            return Content.assemble("You are dealt ", display.cards(event["hand"]))
        return None
    if kind == "up_card":
        return Content.assemble("Up card ", c(event["card"]), f"; {event.get('stock')} cards in the stock")
    if kind == "take_stock":
        if you and event.get("card"):
            return Content.assemble(who, " take ", c(event["card"]), " from the stock")
        return Content.assemble(who, f" {verb('take')} from the stock")
    if kind == "take_discard":
        return Content.assemble(who, f" {verb('take')} ", c(event["card"]), " from the pile")
    if kind == "discard":
        return Content.assemble(who, f" {verb('throw')} ", c(event["card"]))
    if kind == "skip":
        return Content.assemble(who, f" {verb('skip')}")
    if kind == "call_end":
        return Content.assemble(who, (f" {verb('call')} the end: the last orbit is {event.get('orbit')}", "bold"))
    if kind == "reshuffle":
        return Content(f"The pile is shuffled into a new stock of {event.get('stock')}")
    if kind == "showdown":
        return Content.styled("Showdown: split your cards 4 + 3", "bold")
    if kind == "split_in":
        return Content("Your split is in") if you else Content.assemble(who, " has split")
    if kind == "reveal":
        return Content.assemble(
            who, ": ", display.cards(event.get("down", [])), f" {event.get('down_name', '')} / ",
            display.cards(event.get("back", [])), f" {event.get('back_name', '')}",
        )
    if kind == "result":
        return result_line(event, names)
    if kind == "timeout":
        return Content.assemble(who, (" ran out of time: played automatically", "#ffaf5f"))
    if kind == "away":
        return Content.assemble(who, f" {verb('sit')} out" if not you else " sit out")
    if kind == "back":
        return Content.assemble(who, " are back" if you else " is back")
    if kind == "game_over":
        return Content.styled(f"Game over: {event.get('reason', '')}", "bold")
    return None


def result_line(showdown: Mapping[str, Any], names: Mapping[int, str]) -> Content:
    winner = showdown.get("winner")
    pot = chips(showdown.get("pot", 0))
    if winner is not None:
        return Content.assemble(name_part(names, winner, "bold #5fd75f"), f" wins both and takes the pot of {pot}")
    return Content.assemble(
        f"The pot of {pot} carries: ", name_part(names, showdown.get("down_winner")), " won going down, ",
        name_part(names, showdown.get("back_winner")), " coming back",
    )
