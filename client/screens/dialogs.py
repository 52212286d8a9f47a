"""Small modal dialogs: confirm, a menu of actions, ask for a private table's code, a bot's level or a game."""

from __future__ import annotations

from typing import Any

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import ModalScreen
from textual.widgets import Button, Input, OptionList, Static
from textual.widgets.option_list import Option

from ..widgets.basics import TooSmall
from .chat import CHAT_BINDING, TableChat


class ConfirmScreen(TableChat, ModalScreen[bool]):
    BINDINGS = [Binding("y", "answer(True)", "Yes"), Binding("n", "answer(False)", "No"), CHAT_BINDING]

    def __init__(self, question: str) -> None:
        super().__init__()
        self.question = question

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(classes="dialog"):
            yield Static(Content(self.question), markup=False)
            with Horizontal(classes="buttons"):
                yield Button("Yes (y)", id="yes", variant="warning")
                yield Button("No (n)", id="no")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        self.dismiss(event.button.id == "yes")


class MenuScreen(TableChat, ModalScreen["tuple[Any, str] | None"]):
    """Actions listed with their keys: press the key, or move and press Enter; Escape closes.

    Entries are ``(namespace, binding)``; the result is ``(namespace, action)``
    for the caller to run, so the menu can never offer an action the keys lack.
    """

    BINDINGS = [Binding("escape", "close", "Close"), Binding("m", "close", "Close", show=False), CHAT_BINDING]

    def __init__(self, entries: list[tuple[Any, Binding]], title: str = "Table menu") -> None:
        super().__init__()
        self.entries = entries
        self.title_text = title

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(classes="dialog", id="menu"):
            yield Static(Content.styled(self.title_text, "bold"))
            options = [Option(Content.assemble(Content.styled(self.app.get_key_display(b).ljust(7), "bold #ffd75f"),
                                               b.tooltip or b.description), id=str(i))
                       for i, (_, b) in enumerate(self.entries)]
            yield OptionList(*options, id="menu-options", compact=True)

    def on_key(self, event: events.Key) -> None:
        for namespace, binding in self.entries:
            if event.key in binding.key.split(","):
                event.stop()
                self.dismiss((namespace, binding.action))
                return

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        namespace, binding = self.entries[int(event.option.id or 0)]
        self.dismiss((namespace, binding.action))

    def action_close(self) -> None:
        self.dismiss(None)


class CodeScreen(ModalScreen[str | None]):
    """Ask for the code of a private table."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, table_name: str) -> None:
        super().__init__()
        self.table_name = table_name

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(classes="dialog"):
            yield Static(Content.assemble("The table ", Content.styled(self.table_name, "bold"),
                                          " is private. Its code:"), markup=False)
            yield Input(id="code", max_length=32, placeholder="private code")
            with Horizontal(classes="buttons"):
                yield Button("Join", id="ok", variant="primary")
                yield Button("Cancel", id="cancel")

    @on(Input.Submitted)
    def _submitted(self, event: Input.Submitted) -> None:
        self.dismiss(event.value.strip() or None)

    @on(Button.Pressed)
    def _pressed(self, event: Button.Pressed) -> None:
        if event.button.id == "ok":
            self.dismiss(self.query_one(Input).value.strip() or None)
        else:
            self.dismiss(None)

    def action_cancel(self) -> None:
        self.dismiss(None)


class LevelScreen(TableChat, ModalScreen[str | None]):
    """Pick the level of the bot to add: its first letter or Enter on it; Escape adds none."""

    BINDINGS = [Binding("escape", "cancel", "Cancel"), CHAT_BINDING]

    def __init__(self, levels: tuple[str, ...], default: str) -> None:
        super().__init__()
        self.levels = levels
        self.default = default

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(classes="dialog", id="levels"):
            yield Static(Content.styled("Add a bot that plays", "bold"))
            options = [Option(Content.assemble(Content.styled(level[0], "bold #ffd75f"), " ", level,
                                               Content.styled(" (usual)", "dim") if level == self.default else ""),
                              id=level) for level in self.levels]
            yield OptionList(*options, id="level-options", compact=True)

    def on_mount(self) -> None:
        self.query_one(OptionList).highlighted = self.levels.index(self.default)

    def on_key(self, event: events.Key) -> None:
        for level in self.levels:
            if event.key == level[0]:
                event.stop()
                self.dismiss(level)
                return

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)


class GameScreen(ModalScreen[str | None]):
    """Pick the game to practise: its number, or Enter (or ``b`` again) on the highlighted one (the game played
    last, if any, else the first); Escape practises none."""

    BINDINGS = [Binding("escape", "cancel", "Cancel")]

    def __init__(self, games: list[tuple[str, str]], default: str | None) -> None:
        super().__init__()
        self.games = games  # (name, title)
        self.default = default

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Vertical(classes="dialog", id="games"):
            yield Static(Content.styled("Practise against bots at", "bold"))
            options = [Option(Content.assemble(Content.styled(str(i), "bold #ffd75f"), " ", title,
                                               Content.styled(" (last played)", "dim") if name == self.default else ""),
                              id=name) for i, (name, title) in enumerate(self.games, 1)]
            yield OptionList(*options, id="game-options", compact=True)

    def on_mount(self) -> None:
        names = [name for name, _ in self.games]
        self.query_one(OptionList).highlighted = names.index(self.default) if self.default in names else 0

    def on_key(self, event: events.Key) -> None:
        if event.key.isdigit() and 1 <= int(event.key) <= len(self.games):
            event.stop()
            self.dismiss(self.games[int(event.key) - 1][0])
        elif event.key == "b":
            event.stop()
            highlighted = self.query_one(OptionList).highlighted
            self.dismiss(self.games[highlighted or 0][0])

    @on(OptionList.OptionSelected)
    def _selected(self, event: OptionList.OptionSelected) -> None:
        self.dismiss(event.option.id)

    def action_cancel(self) -> None:
        self.dismiss(None)
