"""What a game's board gives the table shell, and the board for a game this client cannot show.

The shell (:class:`client.screens.table.TableScreen`) owns the top bar, the
seats, the log, chat, the host's and the table's keys and the dialogs; it
hands the board its log-and-chat column and its prompt to place in the
board's own layout. On larger terminals that column is the log beside the
shell's side panel (the board's sections above the whole chat), and the
board lays its own table out larger. A board's layout is its own style
sheet (:attr:`Board.BOARD_CSS`), every rule scoped to the board: the app's
style sheet (``client/app.tcss``) styles only the shell's widgets. The board
reads the game's view, draws it, offers the game's keys (as its own
``BINDINGS``, with ``check_action``), opens the game's decision screens and
panels and words its events.

A :class:`Panel` (a showdown to arrange, its result, Cribbage's show) is shown
*in* the board, in place of the board's own table, not as a pushed screen: the
top bar, the seats and the footer stay as they are (a pushed screen is painted
whole, and the table whole again when it closes). The panel is mounted in a
hidden slot the board has from the start and takes the table's place once
composed (:meth:`Board.show_panel`), so one frame carries the change: hiding
the table first painted its rows blank, and the board's rows were then painted
two or three more times as the panel mounted into it and took the keyboard
(the showdown-opening turn wrote 15-21 KB at 80x24). From the mounting the
table screen's painting is held too (:meth:`TableScreen.hold_display`), so
what the view that opened the panel changed under it is never painted (9.4 KB
then, 7.5 KB now).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, ClassVar, Mapping, Sequence

from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Static

from engine.contract import about

from ..render import Display, render_parts
from ..textual_compat import settling
from ..widgets.basics import LineLog, on_stack
from ..widgets.table import SeatState

if TYPE_CHECKING:
    from textual.await_remove import AwaitRemove

    from engine.contract import Part

    from ..screens.table import TableScreen


class Panel(Vertical, can_focus=True):
    """What the board shows in place of its table for a while, with its own keys (focused while shown);
    :meth:`dismiss` closes it and hands the result to the board's callback, as a screen's would."""

    DEFAULT_CSS = "Panel { height: 1fr; padding: 0 2; }"
    # A round's result (the showdown's, Cribbage's show): it closes by itself once a view of a later round
    # than the one it opened in comes, for a player with no decision to close it too (one sitting out).
    ROUND_RESULT: ClassVar[bool] = False
    opened_round: Any = None  # the round of the view shown when it opened (see Board.open_panel)

    @property
    def board(self) -> Board | None:
        """The board showing this panel (in its slot), if any."""
        slot = self.parent
        board = slot.parent if isinstance(slot, PanelSlot) else None
        return board if isinstance(board, Board) else None

    def on_mount(self) -> None:
        if self.board is not None:
            self.call_after_refresh(self.board.show_panel, self)  # once laid out (and so repainted) out of sight

    def focus_first(self) -> Widget:
        """Give the keyboard to what scrolls in the panel (its keys still act), else to the panel; return it."""
        inside = [widget for widget in self.query("*") if widget.focusable]
        target = inside[0] if inside else self
        self.screen.set_focus(target, scroll_visible=False)
        return target

    def dismiss(self, result: Any = None) -> None:
        if self.board is not None:
            self.board.close_panel(self, result)


class PanelSlot(Vertical):
    """Where a board's panels are mounted: over the board's table (its own layer), and laid out below the
    screen's edge until a panel is ready to show, so that it arrives whole (see :meth:`Board.open_panel`)."""

    DEFAULT_CSS = "PanelSlot { layer: panel; height: 1fr; }"
    AWAY = (0, 1000)  # the offset that keeps it out of sight, laid out all the same


class Board(Vertical):
    """The game's part of the table screen (override what the game has; the defaults show nothing)."""

    DEFAULT_CSS = "Board { height: 1fr; layers: default panel; }"

    RULES: ClassVar[str] = ""  # the game's rules, Markdown, for the help page
    # (title, "module:Screen or Panel"): the keys of its screens and panels, in the help
    KEY_SCREENS: ClassVar[tuple[tuple[str, str], ...]] = ()
    DECIDING_TOGETHER: ClassVar[str] = ""  # the clock's label when several seats decide at once
    # The board's style sheet: its layout at every size (``.-large``, the app's class from 120x36 up:
    # :func:`~client.widgets.basics.is_large`; ``.-ascii``, plain frames), its widgets' and its panels'.
    # Every rule names the class that states it (``DownAndBackBoard #pile``, ``.-large CribbageBoard #hand``),
    # so it styles nothing outside that board: the table screen refuses a rule that does not
    # (:func:`board_style_sheets`). It has the app's priority, so it may also place the shell's widgets the
    # board is given (the prompt, the log and chat) in its layout; a widget's DEFAULT_CSS never could.
    # Each class from Board down states its own (this one: the rows :meth:`table_layout` makes).
    BOARD_CSS: ClassVar[str] = """
    Board #middle { height: 1fr; }
    Board #bottom { height: 5; }
    Board #hand { height: 5; padding: 0 0 0 1; }
    Board #hand:focus { background-tint: $foreground 3%; }
    Board #prompt { width: 1fr; height: 5; padding: 0 1; border-left: vkey $panel-lighten-2; }
    .-ascii Board #prompt { border-left: ascii $panel-lighten-2; }
    """

    def __init__(self, game: str, talk: Widget, prompt: Widget) -> None:
        self.slot = PanelSlot()
        self.slot.display = False
        super().__init__(self.slot, id="board")
        self.game = game
        self.talk = talk  # the shell's log and its side panel (the chat), placed where the board's layout wants them
        self.prompt = prompt
        self.legal: dict[str, dict[str, Any]] = {}  # what our seat may do now, by kind
        self.panel: Panel | None = None  # shown in place of the board's table (once ready: shown_panel)
        self.shown_panel: Panel | None = None  # the panel, once it is in the table's place on the screen
        self._panel_done: Callable[[Any], None] | None = None
        self._hidden: list[Widget] = []  # the board's own widgets, hidden while the panel shows
        self._batch: Any = None  # App.batch_update held while a panel moves in (see _hold_painting)
        self._held_screen: TableScreen | None = None  # the table screen whose painting is held (_hold_painting)
        self._withdrawn: set[int] = set()  # screens closed before they were pushed (see push)
        self._removing: AwaitRemove | None = None  # the removal of the panel closed last (see open_panel)

    def table_layout(self, left: Widget, side: Widget, hand: Widget) -> ComposeResult:
        """The table as the boards lay it out (their :meth:`compose` yields from it): the middle row, the
        game's column ``left`` beside ``side`` (its widgets above the shell's log and chat), over the bottom
        row, our ``hand`` (its id ``hand``: the bottom row's height and padding are the base's) beside the shell's
        prompt. The ids ``#middle`` and ``#bottom`` are for the board's CSS."""
        with Horizontal(id="middle"):
            yield left
            with side:
                yield self.talk
        with Horizontal(id="bottom"):
            yield hand
            yield self.prompt

    def side_sections(self) -> list[Widget]:
        """The board's sections of the table's side panel, shown above the chat on larger terminals (the
        game's reference, the scores so far); called once, before the table screen is mounted."""
        return []

    # How many of the table's last finished rounds the side panel's scores begin with (the shell asks the
    # server's ``history`` once the panel is shown at a live table, and hands them to :meth:`seed_scores`).
    HISTORY_ROUNDS: ClassVar[int] = 0

    def seed_scores(self, rounds: list[dict[str, Any]]) -> None:
        """The table's last finished rounds (the server's round records, oldest first), for the scores of
        the rounds played before this screen saw them (we joined, came back, or the client restarted)."""

    # The phases of a round under way (the game view's ``phase``; not those between rounds or after the
    # game). At the table's first round (``round`` 1) in one of them no round has finished, so the shell asks
    # no history: this screen sees each round end. Empty: the shell always asks.
    ROUND_PHASES: ClassVar[frozenset[str]] = frozenset()

    def rounds_before(self, game: Mapping[str, Any]) -> bool:
        """Whether the table may have finished rounds before ``game`` (the game's view): its history is worth
        asking for the side panel's scores."""
        return not (game.get("round") == 1 and game.get("phase") in self.ROUND_PHASES)

    @property
    def shell(self) -> "TableScreen":
        """The table screen this board is mounted in (its names, its wording of events)."""
        return self.screen  # type: ignore[return-value]

    @property
    def showing(self) -> bool:
        """Still in a table screen that shows (:attr:`TableScreen.showing`): what was put off until after a
        refresh (a panel shown once laid out, Cribbage's show) is dropped once the table has gone."""
        return self.is_attached and self.shell.showing

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

    # What every game's view has (docs/PROTOCOL.md 5.3 and each docs/games/<game>.md): ``to_act``, the seats
    # awaited; ``legal``, our seat's entries, each with its ``kind``; ``phase``, "waiting" between rounds.

    def to_act(self, game: Mapping[str, Any] | None) -> list[int]:
        """The seats whose decision the game awaits (the view's ``to_act``)."""
        return list((game or {}).get("to_act") or [])

    def choices(self, game: Mapping[str, Any] | None) -> tuple[Any, ...]:
        """What our seat may choose now, comparable from one view to the next (the kinds of its ``legal``)."""
        return tuple(sorted(entry["kind"] for entry in (game or {}).get("legal", [])))

    @property
    def pending(self) -> bool:
        """An action of ours is on its way (:attr:`TableScreen.pending`): no decision screen opens meanwhile."""
        return self.shell.pending

    @staticmethod
    def key(text: str) -> Content:
        """A key as the prompts name it ("s", "1-8")."""
        return Content.styled(text, "bold #ffd75f")

    def player(self, seat: int | None) -> Content:
        """A player's name as the prompts name them (bold)."""
        return Content.styled(self.shell.names.get(seat, "?"), "bold")  # type: ignore[arg-type]

    def said(self, parts: Sequence[Part]) -> Content:
        """A sentence the board words about players (a prompt, a panel's title), built as the engine's events
        are (:func:`engine.contract.about`, :func:`engine.contract.possessive`) and rendered by the one
        builder, :func:`client.render.render_parts`: our own seat in the second person ("You are cutting",
        "Your hand", "muggins: you take 2")."""
        return render_parts(parts, self.shell.names, self.display_options, self.shell.me)

    def about(self, seat: int | None, text: str) -> Content:
        """``seat`` then ``text`` with the words agreeing with it in braces: ``about(cutter, " {is} cutting.")``."""
        return self.said([{"seat": seat}, *about(seat, text)])

    @staticmethod
    def seats_from(base: dict[int, SeatState], known: Mapping[int, Any],
                   update: Callable[[SeatState, Any], SeatState]) -> list[SeatState]:
        """The seat panels in ``base``'s order, each seat the game's view knows (``known``, by seat) as
        ``update(state, what the view says of it)``, the others as they are."""
        return [update(state, known[seat]) if seat in known else state for seat, state in base.items()]

    def info(self, game: Mapping[str, Any] | None, rules: Mapping[str, Any]) -> list[Any]:
        """The top bar's parts about the game (round, pot, house rules), after the table's name, most telling
        first: where the top bar has no room for all, it shows the first that fit whole and leaves out the rest
        (a part is never cut; make one part of what must stay together, such as a label and its number)."""
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
        """A game runs but no round is being played (sitting out then plays nothing for us): its phase is
        "waiting", as every game's is between rounds."""
        return (game or {}).get("phase") == "waiting"

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

    def round_of(self, game: Mapping[str, Any] | None) -> Any:
        """The round a view of the game is of (a later one closes a round's result: :attr:`Panel.ROUND_RESULT`)."""
        return (game or {}).get("round")

    def close_past_results(self, game: Mapping[str, Any] | None) -> None:
        """Close a round's result panel once a view of a later round has come (the shell calls this for each
        view, before :meth:`open_screens`): whoever has no decision to close it (a player sitting out, one
        whose turn is not first) sees the next deal, and their next key acts on it, not on the old result."""
        panel, now = self.panel, self.round_of(game)
        if panel is None or not panel.ROUND_RESULT or now is None or panel.opened_round is None:
            return
        try:
            later = now > panel.opened_round
        except TypeError:
            later = now != panel.opened_round
        if later:
            self.close_panel(panel)

    def open_panel(self, panel: Panel, done: Callable[[Any], None] | None = None) -> None:
        """Show ``panel`` in place of the board's table (closing any other panel, without a result);
        ``done`` gets what it is dismissed with. The table stays until the panel is composed
        (:meth:`show_panel`), and while the player types a chat line, until it is sent or left."""
        if self.panel is not None:
            self.close_panel(self.panel)
        self.panel, self._panel_done = panel, done
        panel.opened_round = self.round_of(self.shell.game)
        if not self.shell.typing:
            self._hold_painting(batch=False)  # the view that opened it changed the table under it: painted with it
        self.slot.styles.offset = PanelSlot.AWAY
        self.slot.display = True
        going = [child for child in self.slot.children if child.id is not None and child.id == panel.id]
        if going and self._removing is not None:
            # The last panel of this kind (the previous round's result, closed by the next round's view)
            # is still being removed: two widgets may not share an id, so this one is mounted after it.
            removing = self._removing

            async def mount_later() -> None:
                await removing
                if panel is self.panel and self.is_attached:
                    self.slot.mount(panel)

            self.call_later(mount_later)
            return
        self.slot.mount(panel)

    def show_panel(self, panel: Panel) -> None:
        """``panel`` has been composed and laid out out of sight (each of its widgets repaints itself once it
        has its size): the table hidden, the panel moved into its place and given the keyboard, in one frame.

        Textual paints while the widgets' repaints reach the screen one message at a time: the panel's own
        (it takes the keyboard) painted it twice, and the hand's (it lost the keyboard) once more.
        While the player types a chat line, the panel waits (out of sight) until it is sent or left."""
        if panel is not self.panel or not self.showing:
            return  # closed before it was ready (or the table has gone: we left, a rematch)
        if self.shell.typing:
            self._paint_again()  # the line being typed must be painted meanwhile
            self.shell.when_not_typing(lambda: self.show_panel(panel))
            return
        self._hold_painting(batch=True)
        self._hidden = [child for child in self.children if child.display and child is not self.slot]
        for child in self._hidden:
            child.display = False
        self.slot.styles.offset = (0, 0)
        panel.focus_first().call_later(self._shown, panel)  # after the Focus event of what takes the keyboard

    def _shown(self, panel: Panel, waited: int = 0) -> None:
        """Paint again once no widget of the panel or the table has a repaint on its way to the screen."""
        if not self.showing:
            self._paint_again()  # the table has gone: the screen now on top must paint
            return
        if panel is not self.panel:
            return  # closed meanwhile (which paints again)
        busy = [widget for widget in (*self.slot.walk_children(with_self=True), *self._hidden)
                if settling(widget)]
        if busy and waited < 10:
            self.call_after_refresh(self._shown, panel, waited + 1)
            return
        self.shown_panel = panel
        self._paint_again()

    def _hold_painting(self, batch: bool) -> None:
        """Hold the painting while a panel moves in (and at most a second): from its mounting out of sight,
        the table screen's (:meth:`TableScreen.hold_display`: it is still laid out, so the panel gets its
        size); with ``batch``, from its moving in, Textual's App.batch_update across the messages that takes."""
        if self._batch is None and self._held_screen is None:
            self.set_timer(1.0, self._paint_again)  # whatever becomes of the panel and its messages
        if self._held_screen is None:
            self._held_screen = self.shell
            self._held_screen.hold_display()
        if batch and self._batch is None:
            self._batch = self.app.batch_update()
            self._batch.__enter__()
            self._release_display(paint=False)  # what it kept is painted with the batch's frame

    def _paint_again(self) -> None:
        if self._batch is not None:
            batch, self._batch = self._batch, None
            batch.__exit__(None, None, None)
        self._release_display(paint=True)

    def _release_display(self, paint: bool) -> None:
        screen, self._held_screen = self._held_screen, None
        if screen is not None:
            screen.release_display(paint)

    def on_unmount(self) -> None:
        self._paint_again()

    def close_panel(self, panel: Panel, result: Any = None) -> None:
        """Put the board's table back in place of ``panel`` (if it is the one shown); its callback gets ``result``."""
        if panel is not self.panel:
            return
        done, self.panel, self._panel_done = self._panel_done, None, None
        self.shown_panel = None
        self._paint_again()
        self.slot.display = False  # at once: the panel's removal ends later
        self._removing = panel.remove()
        for child in self._hidden:
            child.display = True
        self._hidden = []
        if not self.shell.typing:  # the panel had the keyboard (a chat line being typed keeps it)
            self.focus_default()
        self.shell.refresh_bindings()
        if done is not None:
            done(result)

    def push(self, screen: Screen[Any], callback: Callable[[Any], None] | None = None) -> None:
        """Push one of the game's screens (a decision's dialog, the game over) over the table: now, or once the
        player has sent or left the chat line they are typing (:meth:`TableScreen.when_not_typing`).
        :meth:`close` before then means it never opens."""
        self._withdrawn.discard(id(screen))

        def push_now() -> None:
            if id(screen) in self._withdrawn or not (self.is_attached and on_stack(self.shell)):
                self._withdrawn.discard(id(screen))
                return
            self.app.push_screen(screen, callback=callback)

        self.shell.when_not_typing(push_now)

    def close(self, screen: Screen[Any]) -> None:
        """Remove ``screen`` (and anything above it) from the stack, without a result; one still waiting
        to open (:meth:`push`) never opens. A chat dialog open over it is left to finish first."""
        stack = self.app.screen_stack
        if screen not in stack:
            self._withdrawn.add(id(screen))
            return
        if self.shell.typing:
            self.shell.when_not_typing(lambda: self.close(screen))
            return
        while self.app.screen is not screen:
            self.app.pop_screen()
        self.app.pop_screen()


class BoardStyleError(ValueError):
    """A board's style sheet has a rule that could style something outside the board."""


def board_style_sheets(board: type[Board], variables: Mapping[str, str]) -> list[tuple[tuple[str, str], str]]:
    """The style sheets of ``board`` and of each class it is made from, base first, as
    ``((file, "Class.BOARD_CSS"), css)`` (read with the app's CSS ``variables``: ``$panel``...): each checked to name its own class in every rule's selector
    (so a rule matches only that board or what is inside it), else :class:`BoardStyleError` names the rule."""
    import inspect

    from textual.css.model import SelectorType
    from textual.css.stylesheet import Stylesheet

    sheets = []
    for cls in reversed(board.__mro__):
        css = cls.__dict__.get("BOARD_CSS", "")
        if not (isinstance(cls, type) and issubclass(cls, Board) and css):
            continue
        where = (inspect.getfile(cls), f"{cls.__name__}.BOARD_CSS")
        parsed = Stylesheet(variables=dict(variables))
        parsed.add_source(css, read_from=where)
        parsed.parse()
        for rule in parsed.rules:
            for selectors in rule.selector_set:
                if not any(s.type == SelectorType.TYPE and s.name == cls.__name__ for s in selectors.selectors):
                    raise BoardStyleError(f"{where[1]}: the rule {selectors.css!r} does not name {cls.__name__}, "
                                          f"so it could style another board or the shell")
        sheets.append((where, css))
    return sheets


class UnsupportedBoard(Board):
    """A table of a game this client has no board for: say so, keep the log, chat and leaving."""

    DEFAULT_CSS = "UnsupportedBoard #unsupported { height: 1fr; content-align: center middle; text-align: center; }"

    # It cannot read the game's view: it shows no one's clock, no decision of ours (no bell), no round.
    def to_act(self, game: Mapping[str, Any] | None) -> list[int]:
        return []

    def choices(self, game: Mapping[str, Any] | None) -> tuple[Any, ...]:
        return ()

    def between_rounds(self, game: Mapping[str, Any] | None) -> bool:
        return False

    def compose(self) -> ComposeResult:
        from . import game_title

        yield Static(Content.assemble((f"This client cannot show {game_title(self.game)} tables.", "bold"),
                                      ("\nYou can chat here; l leaves the table.", "dim")), id="unsupported")
        yield self.talk
        yield self.prompt
