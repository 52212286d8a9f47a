"""The table shell's widgets, for any game: the seats, the prompt and the side panel.

Each takes plain values and renders ``Content``; a widget repaints only when
its own values change, which keeps the bytes sent to the terminal per
opponent turn small.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from textual.app import ComposeResult, RenderResult
from textual.containers import Vertical
from textual.content import Content
from textual.message import Message
from textual.reactive import reactive
from textual.widget import Widget

from ..render import LARGE_CARD, Display, chips, rank_key
from .basics import RowsWidget, display_of


@dataclass(frozen=True)
class SeatState:
    """Everything one seat panel shows; the game's board fills in what its game knows."""

    seat: int
    name: str | None = None  # None: an empty seat
    stack: int | None = None
    cards: int = 0
    dealer: bool = False
    turn: bool = False
    me: bool = False
    host: bool = False
    bot: bool = False
    level: str | None = None  # a bot's level ("strong"), shown beside its chips
    at_risk: int = 0  # of ``stack``, what the seat has staked that nobody has won yet (a Cribbage game's stake)
    connected: bool = True
    away: bool = False
    out: bool = False
    in_round: bool = True
    decided: str = ""  # a decision taken together is in ("split in"); shown ticked
    deciding: str = ""  # still to decide together ("splitting")


class HandCards(Widget, can_focus=True):
    """Our cards, large, as every board's hand shows them: in :attr:`shown` order (by rank, unless the board's
    hand orders them otherwise), each numbered or labelled, the one under the cursor highlighted, some marked,
    those that may not be chosen now dimmed; 9x7 cards when the board's layout gives the room. The board's
    hand says which in :meth:`marks` (from its own reactive attributes); the board moves them."""

    cards: reactive[tuple[str, ...]] = reactive(())

    @property
    def shown(self) -> list[str]:
        return sorted(self.cards, key=rank_key)

    def marks(self, shown: list[str]) -> tuple[int | None, list[int], list[int], list[str]]:
        """For the cards ``shown``: the cursor's index (or ``None``), those marked, those dimmed, their labels."""
        raise NotImplementedError

    def render(self) -> RenderResult:
        display = display_of(self)
        shown = self.shown
        if not shown:
            return Content.styled("\n  (no cards)", "dim")
        selected, marked, dim, labels = self.marks(shown)
        large = self.content_region.height >= LARGE_CARD[1] + 1  # the board's larger layout gives the room
        return Content("\n").join(display.card_boxes(shown, selected=selected, marked=marked, dim=dim, labels=labels,
                                                     large=large))


class SeatPanel(RowsWidget):
    """One seat: name, chips, dealer button, cards held, connection, whose turn."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._state: SeatState | None = None
        self.display = False

    @property
    def state(self) -> SeatState | None:
        return self._state

    @state.setter
    def state(self, state: SeatState | None) -> None:
        if state == self._state:
            return
        self._state = state
        self.display = state is not None
        if state is not None:
            self.set_class(state.turn and state.me, "-turn")  # a frame to catch the eye on our turn only
            self.set_class(state.me, "-me")
            self.set_class(state.name is None, "-empty")
            self.set_class(not state.connected or state.away or state.out, "-inactive")
        self.changed()

    def build(self) -> list[Content]:
        s = self._state
        if s is None:
            return []
        display = display_of(self)
        width = max(1, self.content_region.width or 14)
        if s.name is None:
            return [Content.assemble((f"{s.seat + 1} ", "dim"), ("empty seat", "dim italic"))]
        marker = ((">" if display.ascii else "▶") if s.turn else "") + str(s.seat + 1)  # the number stays
        name = Content.assemble((marker + " ", "bold #ffd75f" if s.turn else "dim"),
                                Content.styled(s.name, "bold #ffd75f" if s.turn else ("bold" if s.me else "")))
        badges = []
        if s.dealer:
            badges.append(("(D)" if display.ascii else "Ⓓ", "bold #ffd75f"))
        if s.level:
            badges.append((s.level, "dim italic"))
        stack = self._chips_line(s, [part for badge in badges for part in (" ", badge)], width)
        status, short = self._status(s, display)
        if name.cell_length <= width:
            return [name, stack.truncate(width), status.truncate(width)]
        # A long name takes two lines; chips and status share the third.
        lines = name.fold(width)
        if len(lines) > 2:
            lines = [lines[0], Content("").join(lines[1:]).truncate(width, ellipsis=True)]
        return [*lines, Content.assemble(stack, " ", short).truncate(width)]

    @staticmethod
    def _chips_line(s: SeatState, badges: list[Any], width: int) -> Content:
        """The seat's chips at the table, and of them what is at risk (the longest words that fit)."""
        if s.stack is None:
            return Content.assemble("", *badges)
        held = chips(s.stack)
        words = [held]
        if s.at_risk:
            risk = chips(s.at_risk)
            words = [f"{held} at table, {risk} at risk", f"{held}, {risk} at risk", held]
        lines = [Content.assemble((text, "#87d787"), *badges) for text in words]
        return next((line for line in lines if line.cell_length <= width), lines[-1])

    @staticmethod
    def _status(s: SeatState, display: Display) -> tuple[Content, Content]:
        """The status line, and a short form of it for a crowded panel."""
        if s.out:
            status = Content.styled("out of chips", "dim")
        elif not s.connected:
            status = Content.styled("offline" if display.ascii else "⚠ offline", "#ff8700")
        elif s.away:
            status = Content.styled("sitting out", "#ff8700")
        elif s.decided:
            status = Content.styled(s.decided if display.ascii else f"✓ {s.decided}", "#87d787")
        elif s.deciding:
            status = Content.styled(f"{s.deciding}{display.ellipsis}", "#ffd75f")
        elif s.cards:
            backs = Content.styled(display.back_glyph * s.cards, "#5f87af")
            return (Content.assemble(backs, (f" {s.cards}", "dim")),
                    Content.assemble((display.back_glyph, "#5f87af"), (str(s.cards), "dim")))
        elif s.bot:
            status = Content.styled("bot", "dim")
        else:
            status = Content("")
        return status, status


class Prompt(RowsWidget):
    """What to do now, one short line per row (only changed rows are repainted)."""

    def __init__(self, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self._content = Content("")

    def show(self, content: Content) -> None:
        if not content.is_same(self._content):
            self._content = content
            self.changed()

    @property
    def plain(self) -> str:
        return self._content.plain

    def build(self) -> list[Content]:
        width = max(1, self.content_region.width or 20)
        rows: list[Content] = []
        for line in self._content.split("\n"):
            rows.extend(line.wrap(width) or [Content("")])
        return rows


class SidePanel(Vertical):
    """The table's side panel: the board's sections (its game's reference, the scores so far) above the
    whole chat and the line to type in it.

    Below the large size (the app's ``-large`` class, :func:`~client.widgets.basics.is_large`) the
    sections are hidden and the panel is the chat under the log, as at 80x24; from it the panel stands
    beside the log, the sections shown (``app.tcss``). The sections are the board's
    (:meth:`~client.games.board.Board.side_sections`), set before the panel is mounted.
    """

    class Shown(Message):
        """The panel stands beside the log with its sections (the terminal is, or became, large)."""

    def __init__(self, chat: Widget, chat_input: Widget, *, id: str | None = None) -> None:
        super().__init__(id=id)
        self.chat, self.chat_input = chat, chat_input
        self.sections: list[Widget] = []
        self._shown = False

    def on_resize(self) -> None:
        if not self._shown and self.app.has_class("-large"):
            self._shown = True
            self.post_message(self.Shown())

    def compose(self) -> ComposeResult:
        for section in self.sections:
            section.add_class("side-section")
            yield section
        yield self.chat
        yield self.chat_input
