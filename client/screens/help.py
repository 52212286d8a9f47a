"""The rules of the game (its board's), with examples, and every key, as one scrollable page."""

from __future__ import annotations

import importlib
from dataclasses import replace
from typing import Any, Callable, Sequence

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from rich.console import Console, ConsoleOptions, RenderResult
from rich.markdown import Markdown
from rich.segment import Segment
from textual.widgets import Footer, Static

from ..games import board_class, game_title
from ..render import Display
from ..widgets.basics import TooSmall

def key_sections(games: Sequence[str]) -> list[tuple[str, list[type[Any]]]]:
    """Where each screen's keys work, in the order a game meets them; the table of keys
    is generated from these bindings, so it cannot miss one. At the table, the board's
    keys come first, as in the footer."""
    from ..app import DabApp
    from .lobby import LobbyScreen
    from .chat import ChatScreen
    from .table import ChatInput, TableScreen

    from .history import HistoryScreen, LeaderboardScreen
    from .replay import ReplayScreen

    sections: list[tuple[str, list[type[Any]]]] = [("In the lobby", [LobbyScreen]),
                                                   ("Your history (h in the lobby, H at a table)", [HistoryScreen]),
                                                   ("A replay (Enter on a round of your history)", [ReplayScreen]),
                                                   ("The leaderboard (t in the lobby)", [LeaderboardScreen])]
    for game in games:
        board = board_class(game)
        title = "At the table" if len(games) == 1 else f"At a {game_title(game)} table"
        sections.append((title, [board, TableScreen]))
        for screen_title, where in board.KEY_SCREENS:
            module, name = where.split(":")
            sections.append((screen_title, [getattr(importlib.import_module(module), name)]))
    from .gameover import GameOverScreen

    sections += [("Game over: the standings and the rematch", [GameOverScreen]),
                 ("Chatting (c at the table; over a panel or a dialog, in a dialog)", [ChatInput, ChatScreen]), ("Anywhere", [DabApp])]
    return sections


def rules_markdown(display: Display, rules: str) -> str:
    """``rules`` with card examples written in the player's chosen suit symbols."""
    return display.cards_in_text(rules)


def _key_list(keys: list[str]) -> str:
    """``1`` ... ``8`` as ``1-8``; other keys side by side."""
    if len(keys) > 2 and all(k.isdigit() for k in keys):
        return f"`{keys[0]}`-`{keys[-1]}`"
    return " ".join(f"`{k}`" for k in keys)


def keys_markdown(key_display: Callable[[Binding], str], games: Sequence[str]) -> str:
    """One table per screen, one row per thing a key does (keys doing the same share a row)."""
    parts = ["## Keys", "", "Only the keys possible at a moment are shown in the footer, and only they act."]
    for title, classes in key_sections(games):
        bindings = [b for cls in classes for b in cls.BINDINGS if isinstance(b, Binding)]
        rows: dict[str, list[str]] = {}
        for binding in bindings:
            text = binding.tooltip or binding.description
            shown = key_display(replace(binding, key_display=None))  # each key alone, not a footer's "←→"
            if shown not in rows.setdefault(text, []):
                rows[text].append(shown)
        parts += ["", f"### {title}", "", "| Key | |", "|-----|--|"]
        parts += [f"| {_key_list(keys)} | {text} |" for text, keys in rows.items()]
    return "\n".join(parts) + "\n"


# What Rich draws a Markdown page with, in characters every terminal has (the --ascii display).
_PLAIN_LINES = str.maketrans("─━│┃┏┓┗┛┌┐└┘├┤┬┴┼•▌", "--||+++++++++++++*|")


class _Page:
    """The Markdown page drawn once per width: Textual measures its height and draws it at
    least twice more (with and without the scroll bar), and each drawing costs ~0.1 s."""

    def __init__(self, markdown: Markdown, ascii: bool) -> None:
        self.markdown, self.ascii = markdown, ascii
        self._drawn: dict[int, list[list[Segment]]] = {}

    def __rich_console__(self, console: Console, options: ConsoleOptions) -> RenderResult:
        width = options.max_width
        if width not in self._drawn:
            lines = console.render_lines(self.markdown, options.update(height=None), pad=False)
            if self.ascii:
                lines = [[Segment(s.text.translate(_PLAIN_LINES), s.style, s.control) for s in line] for line in lines]
            self._drawn = {width: lines}  # a resize draws it anew; the last width is the one in use
        for line in self._drawn[width]:
            yield from line
            yield Segment.line()


class RulesPage(Static):
    """The page's Markdown drawn by Rich as one renderable: Textual's Markdown widget made some
    3,800 widgets of the rules and key tables, and took 1-1.5 s of CPU to open."""

    def __init__(self, source: str, ascii: bool, **kwargs: Any) -> None:
        self.source = source
        super().__init__(_Page(Markdown(source, hyperlinks=False), ascii), **kwargs)


class HelpScreen(Screen[None]):
    """The rules of ``games`` (the table's, or in the lobby every game this client shows) and every key."""

    BINDINGS = [Binding("escape", "close", "Close"), Binding("f1", "close", "Close", show=False),
                Binding("question_mark", "close", "Close", show=False),
                Binding("pagedown", "page(1)", "Scroll", key_display="PgUp/PgDn"),
                Binding("pageup", "page(-1)", "Scroll", show=False)]

    def __init__(self, games: Sequence[str]) -> None:
        super().__init__()
        self.games = list(games)

    def compose(self) -> ComposeResult:
        yield TooSmall()
        display = getattr(self.app, "display_options", Display())
        arrows = "up/down" if display.ascii else "↑ ↓"
        with VerticalScroll(id="rules-scroll"):
            yield RulesPage(f"*This page scrolls: {arrows}, PgUp/PgDn, Home/End. Escape closes it.*\n\n"
                            + "".join(rules_markdown(display, board_class(game).RULES) + "\n" for game in self.games)
                            + keys_markdown(self.app.get_key_display, self.games), display.ascii, id="rules")
        yield Footer(compact=True)

    def action_page(self, direction: int) -> None:
        scroll = self.query_one("#rules-scroll", VerticalScroll)
        (scroll.scroll_page_down if direction > 0 else scroll.scroll_page_up)()

    def on_mount(self) -> None:
        self.query_one("#rules-scroll").focus()

    def action_close(self) -> None:
        self.dismiss(None)
