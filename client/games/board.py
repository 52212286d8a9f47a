"""What a game's board gives the table shell, and the board for a game this client cannot show.

The shell (:class:`client.screens.table.TableScreen`) owns the top bar, the
seats, the log, chat, the host's and the table's keys and the dialogs; it
hands the board its log-and-chat column and its prompt to place in the
board's own layout. The board reads the game's view, draws it, offers the
game's keys (as its own ``BINDINGS``, with ``check_action``), opens the
game's decision screens and panels and words its events.

A :class:`Panel` (a showdown to arrange, its result, Cribbage's show) is shown
*in* the board, in place of the board's own table, not as a pushed screen: the
top bar, the seats and the footer stay as they are (a pushed screen is painted
whole, and the table whole again when it closes). Measured with
``benchmarks/bench_client.py``, the turn that opens Down and Back's showdown
still writes about 15-20 KB: the panel is mounted after the board's table is
hidden, so its rows are painted blank first and then two or three times more.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from ..render import Display
from ..widgets.basics import LineLog
from ..widgets.table import SeatState

if TYPE_CHECKING:
    from ..screens.table import TableScreen


class Panel(Vertical, can_focus=True):
    """What the board shows in place of its table for a while, with its own keys (focused while shown);
    :meth:`dismiss` closes it and hands the result to the board's callback, as a screen's would."""

    DEFAULT_CSS = "Panel { height: 1fr; padding: 0 2; }"

    def on_mount(self) -> None:
        self.focus_first()

    def focus_first(self) -> None:
        """Give the keyboard to what scrolls in the panel (its keys still act), else to the panel."""
        inside = [widget for widget in self.query("*") if widget.focusable]
        (inside[0] if inside else self).focus()

    def dismiss(self, result: Any = None) -> None:
        board = self.parent
        if isinstance(board, Board):
            board.close_panel(self, result)


class Board(Vertical):
    """The game's part of the table screen (override what the game has; the defaults show nothing)."""

    DEFAULT_CSS = "Board { height: 1fr; }"

    RULES: ClassVar[str] = ""  # the game's rules, Markdown, for the help page
    # (title, "module:Screen or Panel"): the keys of its screens and panels, in the help
    KEY_SCREENS: ClassVar[tuple[tuple[str, str], ...]] = ()
    DECIDING_TOGETHER: ClassVar[str] = ""  # the clock's label when several seats decide at once

    def __init__(self, game: str, talk: Widget, prompt: Widget) -> None:
        super().__init__(id="board")
        self.game = game
        self.talk = talk  # the shell's log and chat, placed where the board's layout wants them
        self.prompt = prompt
        self.legal: dict[str, dict[str, Any]] = {}  # what our seat may do now, by kind
        self.panel: Panel | None = None  # shown in place of the board's table
        self._panel_done: Callable[[Any], None] | None = None
        self._hidden: list[Widget] = []  # the board's own widgets, hidden while the panel shows

    @property
    def shell(self) -> "TableScreen":
        """The table screen this board is mounted in (its names, its wording of events)."""
        return self.screen  # type: ignore[return-value]

    @property
    def display_options(self) -> Display:
        return getattr(self.app, "display_options", Display())

    @staticmethod
    def warm_up() -> None:
        """Slow preparation (lookup tables...) the app runs in a thread once the table is painted."""

    # Each gets the game's own view for us (``game``), ``None`` before the table's game starts.

    def show(self, game: dict[str, Any] | None) -> None:
        """Read a new view of the game (``legal`` first) and draw it."""

    def open_screens(self, game: dict[str, Any] | None) -> None:
        """Open or close the game's decision screens, once the shell has drawn the view too."""

    def names(self, game: Mapping[str, Any] | None) -> dict[int, str]:
        """The players the game knows by seat (the table's members are added to these)."""
        return {}

    def to_act(self, game: Mapping[str, Any] | None) -> list[int]:
        """The seats whose decision the game awaits."""
        return []

    def choices(self, game: Mapping[str, Any] | None) -> tuple[Any, ...]:
        """What our seat may choose now, comparable from one view to the next."""
        return ()

    def info(self, game: Mapping[str, Any] | None, rules: Mapping[str, Any]) -> list[Any]:
        """The top bar's parts about the game (round, pot, house rules), after the table's name."""
        return []

    def seat_states(self, game: Mapping[str, Any] | None, base: dict[int, SeatState]) -> list[SeatState]:
        """The seat panels, left to right, from the shell's ``base`` (who sits where) and the game."""
        return list(base.values())

    def prompt_for(self, game: Mapping[str, Any] | None, me: int) -> Content:
        """What our seat should do now, once the shell has nothing more pressing to say."""
        return Content("")

    def seed_log(self, game: Mapping[str, Any], log: LineLog) -> None:
        """Start a fresh log with the game view's recent events."""

    def add_events(self, events: list[dict[str, Any]], log: LineLog) -> None:
        """Things that just happened: their log lines, and what they change on the board."""

    def between_rounds(self, game: Mapping[str, Any] | None) -> bool:
        """A game runs but no round is being played (sitting out then plays nothing for us)."""
        return False

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """While a panel shows, only its keys (and the table's) act; else :meth:`game_action_allowed` decides."""
        if self.panel is not None:
            return False
        return self.game_action_allowed(action, parameters)

    def game_action_allowed(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        """Whether the board's key for ``action`` is offered now (the game's rules and our seat's turn)."""
        return True

    def focus_default(self) -> None:
        """Give the keyboard to the panel shown, else the board's main widget (its ``board-focus`` one,
        when shown), else the board."""
        if self.panel is not None:
            self.panel.focus_first()
            return
        main = self.query(".board-focus")
        if main and main.first().display:
            main.first().focus()
        else:
            self.focus()

    def open_panel(self, panel: Panel, done: Callable[[Any], None] | None = None) -> None:
        """Show ``panel`` in place of the board's table (closing any other panel, without a result);
        ``done`` gets what it is dismissed with."""
        if self.panel is not None:
            self.close_panel(self.panel)
        self.panel, self._panel_done = panel, done
        self._hidden = [child for child in self.children if child.display]
        for child in self._hidden:
            child.display = False
        self.mount(panel)
        self.shell.refresh_bindings()

    def close_panel(self, panel: Panel, result: Any = None) -> None:
        """Put the board's table back in place of ``panel`` (if it is the one shown); its callback gets ``result``."""
        if panel is not self.panel:
            return
        done, self.panel, self._panel_done = self._panel_done, None, None
        panel.remove()
        for child in self._hidden:
            child.display = True
        self._hidden = []
        self.focus_default()  # the panel had the keyboard (chat waits while a panel shows: its column is hidden)
        self.shell.refresh_bindings()
        if done is not None:
            done(result)

    def close(self, screen: Screen[Any]) -> None:
        """Remove ``screen`` (and anything above it) from the stack, without a result."""
        stack = self.app.screen_stack
        if screen not in stack:
            return
        while self.app.screen is not screen:
            self.app.pop_screen()
        self.app.pop_screen()


class UnsupportedBoard(Board):
    """A table of a game this client has no board for: say so, keep the log, chat and leaving."""

    DEFAULT_CSS = "UnsupportedBoard #unsupported { height: 1fr; content-align: center middle; text-align: center; }"

    def compose(self) -> ComposeResult:
        from . import game_title

        yield Static(Content.assemble((f"This client cannot show {game_title(self.game)} tables.", "bold"),
                                      ("\nYou can chat here; l leaves the table.", "dim")), id="unsupported")
        yield self.talk
        yield self.prompt
