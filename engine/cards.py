"""Cards, their text notation and the deck.

A card's notation is rank then suit, e.g. ``"10H"``, ``"QS"``, ``"AC"``; it
round-trips through :meth:`Card.parse` and ``str()``. Parsing returns the
shared objects of :data:`DECK`; every card has a stable ``index`` 0..51 that
the fast evaluator tables use.
"""

from __future__ import annotations

from enum import Enum, IntEnum
from typing import Iterable


class Rank(IntEnum):
    """Card ranks; the ace is always low (1) and the king high (13)."""

    ACE = 1
    TWO = 2
    THREE = 3
    FOUR = 4
    FIVE = 5
    SIX = 6
    SEVEN = 7
    EIGHT = 8
    NINE = 9
    TEN = 10
    JACK = 11
    QUEEN = 12
    KING = 13

    @property
    def symbol(self) -> str:
        return _RANK_SYMBOLS[self]

    @property
    def is_face(self) -> bool:
        """Jack, queen and king are the face (picture) cards."""
        return self >= Rank.JACK

    @property
    def word(self) -> str:
        return _RANK_WORDS[self][0]

    @property
    def plural(self) -> str:
        return _RANK_WORDS[self][1]


class Suit(Enum):
    """The four suits; they are all equal and never break a tie."""

    SPADES = "S"
    HEARTS = "H"
    DIAMONDS = "D"
    CLUBS = "C"

    @property
    def glyph(self) -> str:
        return _SUIT_GLYPHS[self]

    @property
    def index(self) -> int:
        return _SUIT_INDEX[self]


_RANK_SYMBOLS = {
    Rank.ACE: "A", Rank.TWO: "2", Rank.THREE: "3", Rank.FOUR: "4", Rank.FIVE: "5",
    Rank.SIX: "6", Rank.SEVEN: "7", Rank.EIGHT: "8", Rank.NINE: "9", Rank.TEN: "10",
    Rank.JACK: "J", Rank.QUEEN: "Q", Rank.KING: "K",
}
_RANK_WORDS = {
    Rank.ACE: ("ace", "aces"), Rank.TWO: ("two", "twos"), Rank.THREE: ("three", "threes"),
    Rank.FOUR: ("four", "fours"), Rank.FIVE: ("five", "fives"), Rank.SIX: ("six", "sixes"),
    Rank.SEVEN: ("seven", "sevens"), Rank.EIGHT: ("eight", "eights"),
    Rank.NINE: ("nine", "nines"), Rank.TEN: ("ten", "tens"), Rank.JACK: ("jack", "jacks"),
    Rank.QUEEN: ("queen", "queens"), Rank.KING: ("king", "kings"),
}
_SUIT_GLYPHS = {Suit.SPADES: "♠", Suit.HEARTS: "♥", Suit.DIAMONDS: "♦", Suit.CLUBS: "♣"}
_SUIT_ORDER = (Suit.SPADES, Suit.HEARTS, Suit.DIAMONDS, Suit.CLUBS)
_SUIT_INDEX = {suit: i for i, suit in enumerate(_SUIT_ORDER)}


class CardParseError(ValueError):
    """Raised for text that is not a card; the message names the bad input."""


class Card:
    """One playing card. Immutable, and interned: there are exactly 52 card
    objects, so equality and hashing are identity's, at C speed (``card in
    hand``, sets of cards). Nothing may depend on the iteration order of a set
    of cards; use ``index`` for a stable order.
    """

    __slots__ = ("rank", "suit", "index", "text")
    rank: Rank
    suit: Suit
    index: int  # stable position 0..51 (rank-major), used by lookup tables
    text: str  # the notation, e.g. "10H" (the same as str(card), without a call)

    def __new__(cls, rank: Rank, suit: Suit) -> "Card":
        rank, suit = Rank(rank), Suit(suit)
        index = (rank - 1) * 4 + _SUIT_INDEX[suit]
        if _INTERNED:
            return _INTERNED[index]
        card = object.__new__(cls)
        set_ = object.__setattr__
        set_(card, "rank", rank)
        set_(card, "suit", suit)
        set_(card, "index", index)
        set_(card, "text", rank.symbol + suit.value)
        return card

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("cards are immutable")

    def __reduce__(self):
        return (Card, (self.rank, self.suit))

    @property
    def is_face(self) -> bool:
        return self.rank >= Rank.JACK

    @classmethod
    def parse(cls, text: str) -> "Card":
        """Parse ``"10H"``/``"QS"``/``"ac"`` (case-insensitive; ``T`` means ten)."""
        card = _BY_TEXT.get(text) if isinstance(text, str) else None  # canonical text: the fast path
        if card is not None:
            return card
        if not isinstance(text, str):
            raise CardParseError(f"not a card: {text!r} (expected text like '10H')")
        card = _BY_TEXT.get(text.strip().upper())
        if card is None:
            raise CardParseError(f"not a card: {text!r} (expected rank A,2-10,J,Q,K then suit S,H,D,C)")
        return card

    @classmethod
    def exact(cls, text: object) -> "Card":
        """The card written exactly in the games' notation (``"10H"``, ``"QS"``: upper case, no ``T``, no
        spaces), as an action names it (docs/games/down-and-back.md §1); anything else is
        :class:`CardParseError`, even what :meth:`parse` would read (``"10h"``, ``"TH"``)."""
        card = _BY_TEXT.get(text) if isinstance(text, str) else None
        if card is None:
            raise CardParseError(f"not a card: {text!r} (expected rank A,2-10,J,Q,K then suit S,H,D,C, "
                                 "in upper case)")
        return card

    def __str__(self) -> str:
        return self.text

    def __repr__(self) -> str:
        return f"Card({str(self)!r})"

    def unicode(self) -> str:
        """Display form with a suit glyph, e.g. ``10♥``."""
        return self.rank.symbol + self.suit.glyph

    def ascii(self) -> str:
        """Display form for terminals without suit glyphs, e.g. ``10h``."""
        return self.rank.symbol + self.suit.value.lower()


_INTERNED: list[Card] = []
DECK: tuple[Card, ...] = tuple(Card(rank, suit) for rank in Rank for suit in _SUIT_ORDER)
_INTERNED.extend(DECK)
"""The 52 cards in index order (ace of spades first, king of clubs last)."""

_BY_TEXT: dict[str, Card] = {}
for _card in DECK:
    _BY_TEXT[str(_card).upper()] = _card
    if _card.rank == Rank.TEN:
        _BY_TEXT["T" + _card.suit.value] = _card


def parse_cards(text: str | Iterable[str]) -> list[Card]:
    """Parse ``"AS 2D 3C"`` (or a list of notations) into cards."""
    parts = text.split() if isinstance(text, str) else list(text)
    return [Card.parse(part) for part in parts]
