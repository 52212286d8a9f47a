"""The cutter chooses where to cut the pack (the cards actually cut: the whole deck, or what is left of it),
or asks for a random cut. The table shell's, for every game: a board opens it for each cut its game has (Down
and Back's cut; Cribbage's draw for the first deal, its cut and its starter), titled in the game's words."""

from __future__ import annotations

from typing import Any

from textual.app import ComposeResult, RenderResult
from textual.binding import Binding
from textual.css.query import NoMatches
from textual.containers import Vertical
from textual.content import Content
from textual.reactive import reactive
from textual.screen import ModalScreen
from textual.widget import Widget
from textual.widgets import Footer, Static

from .chat import CHAT_BINDING, TableChat
from ..widgets.basics import Countdown, SteadyScreen, TooSmall


class DeckBar(Widget):
    """The pack seen edge-on (one bar a card), with the cut marked."""

    position: reactive[int] = reactive(26)
    cards: reactive[int] = reactive(52)

    def render(self) -> RenderResult:
        ascii = getattr(getattr(self.app, "display_options", None), "ascii", False)
        card, mark = ("|", "^") if ascii else ("▌", "▲")
        lifted = Content.styled(card * self.position, "#5f87af")
        rest = Content.styled(card * (self.cards - self.position), "#87afd7")
        pointer = " " * self.position + mark
        return Content.assemble(lifted, rest, "\n", (pointer, "bold #ffd75f"))


class CutScreen(TableChat, SteadyScreen, ModalScreen[dict[str, Any] | None]):
    BINDINGS = [
        Binding("left", "move(-1)", "-1", key_display="←", tooltip="lift one card fewer / more"),
        Binding("right", "move(1)", "+1", key_display="→", tooltip="lift one card fewer / more"),
        Binding("down", "move(-5)", "-5", key_display="↓", tooltip="lift five cards fewer / more"),
        Binding("up", "move(5)", "+5", key_display="↑", tooltip="lift five cards fewer / more"),
        Binding("enter", "cut", "Cut here", key_display="⏎", tooltip="cut the pack there"),
        Binding("r", "random", "Random cut", tooltip="cut at random"),
        CHAT_BINDING,
    ]

    def __init__(self, low: int, high: int, title: str = "Cut the deck", noun: str = "deck",
                 note: str = "") -> None:
        """``low``..``high``: the cuts the rules allow (the view's legal entry: each part keeps at least
        ``low`` cards, so ``low + high`` cards are cut); ``title`` says what the cut is for, in the game's
        word for the cards (``noun``), ``note`` what comes of it ("the lowest card deals")."""
        super().__init__()
        self.low, self.high = low, high
        self.pack = low + high
        self.title, self.noun, self.note = title, noun, note
        self.position = (low + high) // 2
        self.deadline_ms: int | None = None

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(classes="dialog", id="cut-dialog"):
            yield Static(Content.styled(self.title, "bold"), id="cut-title")
            yield Countdown(id="cut-clock", ascii=getattr(getattr(self.app, "display_options", None), "ascii", False))
            yield DeckBar(id="deck")
            yield Static(id="cut-note")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        if not self.query(Countdown):
            return  # closed before it was mounted (the cut was made for us)
        self._update()
        self.query_one(Countdown).set_deadline(self.deadline_ms, "", True)

    def set_deadline(self, deadline_ms: int | None) -> None:
        """Time left for this decision (may be called before the screen is mounted)."""
        self.deadline_ms = deadline_ms
        if self.is_mounted and self.query(Countdown):
            self.query_one(Countdown).set_deadline(deadline_ms, "", True)

    def _update(self) -> None:
        try:
            bar = self.query_one(DeckBar)
        except NoMatches:  # closed before it was mounted (the cut was made for us)
            return
        bar.cards = self.pack
        bar.position = self.position
        self.query_one("#cut-note", Static).update(Content.assemble(
            f"Lift {self.position} of the {self.pack} cards in the {self.noun} ({self.low} to {self.high}).\n",
            (f"{self.note} " if self.note else "", "dim"),
            (f"Each part keeps at least {self.low} cards; r cuts at random.", "dim"),
        ))

    def action_move(self, step: int) -> None:
        self.position = max(self.low, min(self.high, self.position + step))
        self._update()

    def action_cut(self) -> None:
        self.dismiss({"kind": "cut", "position": self.position})

    def action_random(self) -> None:
        self.dismiss({"kind": "cut", "position": None})
