"""The showdown: arrange your 4 + 3, then see every hand revealed and who won.

Both are panels the board shows in place of its table (:class:`~client.games.board.Panel`),
under the table's top bar (with its clock) and seats.
:class:`SplitPanel` starts from the recommended split (engine.games.down_and_back.hands, display
only) and lets the player swap any two cards before confirming.
:class:`RevealPanel` shows the result the server sent: every player's
going-down hand, then every coming-back hand, in playing order, the winner of
each comparison, any tie-break draws, and who takes the pot or why it carries.
"""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from textual.app import ComposeResult, RenderResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.content import Content
from textual.reactive import reactive
from textual.widget import Widget
from textual.widgets import Static

from ...render import Display
from ...widgets.basics import display_of
from ..board import Panel
from .widgets import suit_notes


def evaluate_split(down: Sequence[str], back: Sequence[str], opponents: int) -> tuple[str, str, float]:
    """Names of both hands and the win-both estimate of this arrangement."""
    from engine.cards import parse_cards
    from engine.games.down_and_back.tables import evaluate3, evaluate4
    from engine.games.down_and_back.meter import win_both

    down_cards, back_cards = parse_cards(list(down)), parse_cards(list(back))
    d, b = evaluate4(down_cards), evaluate3(back_cards)
    return d.name, b.name, win_both(down_cards, back_cards, max(1, opponents))


class SplitView(Widget):
    """Both hands of the arrangement, the cursor and a card picked for swapping."""

    down: reactive[tuple[str, ...]] = reactive(())
    back: reactive[tuple[str, ...]] = reactive(())
    cursor: reactive[int] = reactive(0)
    marked: reactive[int | None] = reactive(None)
    opponents: reactive[int] = reactive(1)
    best: reactive[float] = reactive(0.0)

    def get_content_height(self, container: Any, viewport: Any, width: int) -> int:
        """As tall as its rows, which are taller on a larger terminal: Textual keeps the height it worked out
        for a width, and a resize across the larger size may keep the width."""
        large = self.app.has_class("-large")
        if large != getattr(self, "_large", None):
            self._large = large
            self.clear_cached_dimensions()
        return super().get_content_height(container, viewport, width)

    def render(self) -> RenderResult:
        display = display_of(self)
        if len(self.down) != 4 or len(self.back) != 3:
            return Content("")
        down_name, back_name, estimate = evaluate_split(self.down, self.back, self.opponents)
        marked = [self.marked] if self.marked is not None else []
        # Each hand's name beside its title: the panel fits the board's rows at 80x24 (with a line saying
        # why a suit rule named a hand as it did: the panel's spacing makes room for them). On a larger
        # terminal (the app's -large class) larger cards.
        large = self.app.has_class("-large")
        rows = [
            Content.assemble(("Going down (4)", "bold"), "  ", (down_name, "bold #87d787")),
            *suit_notes(self.down, display),
            *display.card_boxes(self.down, selected=self.cursor if self.cursor < 4 else None,
                                marked=[m for m in marked if m < 4], labels=["1", "2", "3", "4"], large=large),
            Content.assemble(("Coming back (3)", "bold"), "  ", (back_name, "bold #87d787")),
            *suit_notes(self.back, display),
            *display.card_boxes(self.back, selected=self.cursor - 4 if self.cursor >= 4 else None,
                                marked=[m - 4 for m in marked if m >= 4], labels=["5", "6", "7"], large=large),
        ]
        who = "1 opponent" if self.opponents <= 1 else f"{self.opponents} opponents"
        approx = "~" if display.ascii else "≈"
        line = Content.assemble(("Wins both vs ", "dim"), (who, "dim"), f" {approx} ",
                                (f"{estimate:.0%}", "bold"), (f"   (best split {approx} {self.best:.0%})", "dim"))
        rows.append(line)
        return Content("\n").join(rows)


class SplitPanel(Panel):
    """Arrange the showdown: the recommended split first; dismissed with the ``split`` action."""

    BINDINGS = [
        Binding("left", "move(-1)", "Move", key_display="←→", tooltip="move along the cards"),
        Binding("right", "move(1)", "Move", show=False, tooltip="move along the cards"),
        Binding("up", "row", "Row", show=False, tooltip="move to the other hand"),
        Binding("down", "row", "Row", show=False, tooltip="move to the other hand"),
        Binding("space", "pick", "Swap", key_display="space",
                tooltip="pick a card; on another card, swap the two"),
        *[Binding(str(n), f"jump({n})", f"Card {n}", show=False, tooltip="go to that card") for n in range(1, 8)],
        Binding("b", "best", "Best split", tooltip="back to the best split"),
        Binding("enter", "confirm", "Confirm", key_display="⏎", tooltip="confirm your split"),
    ]

    def __init__(self, hand: Sequence[str], opponents: int) -> None:
        super().__init__(id="showdown")
        self.hand = tuple(hand)
        self.opponents = opponents
        self._best: tuple[tuple[str, ...], tuple[str, ...], float] | None = None

    def compose(self) -> ComposeResult:
        display = display_of(self)
        yield Static(Content.styled("Showdown: arrange your cards, 4 going down and 3 coming back", "bold"),
                     id="showdown-title")
        split = SplitView(id="split")
        split.opponents = self.opponents
        self._fill(split)  # the recommendation is in its first paint: the panel is drawn once
        yield split
        yield Static(Content.assemble(
            (f"{display.arrows} or 1-7 move, ", "dim"), ("space", "bold"), (" picks one, ", "dim"),
            ("space", "bold"), (" on another swaps, ", "dim"), (display.enter, "bold"), (" confirms.", "dim"),
        ), id="showdown-help")

    @property
    def arrangement(self) -> tuple[tuple[str, ...], tuple[str, ...]]:
        view = self.query_one(SplitView)
        return view.down, view.back

    def _cards(self) -> list[str]:
        view = self.query_one(SplitView)
        return list(view.down) + list(view.back)

    def _set(self, cards: list[str]) -> None:
        view = self.query_one(SplitView)
        view.down, view.back = tuple(cards[:4]), tuple(cards[4:])
        self._noted(view)

    def _noted(self, view: SplitView) -> None:
        """A line saying why a suit rule named a hand takes the room of the panel's spacing."""
        self.set_class(bool(suit_notes(view.down, display_of(self)) or suit_notes(view.back, display_of(self))),
                       "-noted")

    def action_best(self) -> None:
        self._fill(self.query_one(SplitView))

    def _fill(self, view: SplitView) -> None:
        """Put the best split (worked out once) in ``view``."""
        from engine.cards import parse_cards
        from engine.games.down_and_back.meter import win_both
        from engine.games.down_and_back.splits import best_split

        if len(self.hand) != 7:
            return
        if self._best is None:
            option = best_split(parse_cards(list(self.hand)))
            self._best = (tuple(map(str, option.down)), tuple(map(str, option.back)),
                          win_both(option.down, option.back, max(1, self.opponents)))
        view.best = self._best[2]
        view.marked = None
        view.down, view.back = self._best[0], self._best[1]
        self._noted(view)

    def action_move(self, step: int) -> None:
        view = self.query_one(SplitView)
        view.cursor = (view.cursor + step) % 7

    def action_row(self) -> None:
        view = self.query_one(SplitView)
        view.cursor = min(view.cursor + 4, 6) if view.cursor < 4 else view.cursor - 4

    def action_jump(self, number: int) -> None:
        self.query_one(SplitView).cursor = number - 1

    def action_pick(self) -> None:
        view = self.query_one(SplitView)
        if view.marked is None:
            view.marked = view.cursor
            return
        if view.marked != view.cursor:
            cards = self._cards()
            cards[view.marked], cards[view.cursor] = cards[view.cursor], cards[view.marked]
            self._set(cards)
        view.marked = None

    def swap(self, first: str, second: str) -> None:
        """Swap two cards by name (for tests and mouse-free scripting)."""
        cards = self._cards()
        i, j = cards.index(first), cards.index(second)
        cards[i], cards[j] = cards[j], cards[i]
        self._set(cards)

    def action_confirm(self) -> None:
        down, back = self.arrangement
        if len(down) == 4 and len(back) == 3:
            self.dismiss({"kind": "split", "down": list(down), "back": list(back)})


# ---------------------------------------------------------------------------- reveal


def reveal_content(showdown: Mapping[str, Any], names: Mapping[int, str], me: int | None,
                   display: Display, result: Content) -> Content:
    """Every hand of the showdown, its winners and tie-break draws; ``result`` (who takes the pot,
    in the game's wording) last."""
    star = "*" if display.ascii else "★"
    reveal = showdown.get("reveal") or []
    lines: list[Content] = [Content.assemble(
        (f"Round {showdown.get('round', '?')} showdown", "bold"), ("  pot ", "dim"),
        (f"{showdown.get('pot', 0):,}", "bold #87d787"),
    )]

    def who(seat: int) -> Content:
        name = names.get(seat, f"seat {seat + 1}")
        style = "bold" if seat == me else ""
        return Content.styled(name, style).truncate(12, ellipsis=True, pad=True)

    for title, cards_key, name_key, winner_key in (
        ("Going down", "down", "down_name", "down_winner"),
        ("Coming back", "back", "back_name", "back_winner"),
    ):
        lines.append(Content.styled(title, "bold underline"))
        winner = showdown.get(winner_key)
        for entry in reveal:
            seat = entry.get("seat")
            won = seat == winner
            cards = display.cards(entry.get(cards_key, [])).truncate(16, pad=True)
            hand_name = Content.styled(entry.get(name_key, ""), "bold #87d787" if won else "")
            lines.append(Content.assemble(
                (f" {star} " if won else "   ", "bold #ffd75f"), who(seat), " ", cards, " ", hand_name,
            ))
            if len(entry.get(cards_key) or ()) == (4 if cards_key == "down" else 3):
                lines += suit_notes(entry[cards_key], display, indent="   ")  # one line at 80 columns
    for title, key, winner_key in (("going down", "down_draws", "down_winner"),
                                   ("coming back", "back_draws", "back_winner")):
        draws = showdown.get(key) or []
        if not draws:
            continue
        parts: list[Any] = [(f"Tie {title}, drawn from the stock: ", "dim")]
        for i, draw in enumerate(draws):
            if i:
                parts.append(("; again: ", "dim"))
            parts.append(Content(", ").join([
                Content.assemble(Content(names.get(d["seat"], "?")), " ", display.card(d["card"])) for d in draw
            ]))
        parts += [(" -> " if display.ascii else " → ", "dim"),
                  Content.styled(names.get(showdown.get(winner_key), "?"), "bold")]
        lines.append(Content.assemble(*parts))
    lines.append(Content(""))
    lines.append(result)
    return Content("\n").join(lines)


class RevealPanel(Panel):
    """The showdown's result, until it is closed, our next decision comes or the next round does."""

    ROUND_RESULT = True

    BINDINGS = [Binding("enter", "close", "Close", key_display="⏎", tooltip="close the showdown"),
                Binding("escape", "close", "Close", show=False, tooltip="close the showdown"),
                Binding("space", "close", "Close", show=False, tooltip="close the showdown")]

    def __init__(self, showdown: Mapping[str, Any], names: Mapping[int, str], me: int | None, result: Content) -> None:
        super().__init__(id="reveal")
        self.result = result
        self.showdown = dict(showdown)
        self.names = dict(names)
        self.me = me

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(reveal_content(self.showdown, self.names, self.me, display_of(self), self.result),
                         id="reveal-body", markup=False)

    def action_close(self) -> None:
        self.dismiss(None)
