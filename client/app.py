"""The Textual app: owns the server session and routes what it says to the screens.

Network I/O never happens in widgets. The :class:`~client.session.Session`
delivers pushes to :meth:`DabApp.receive`, which turns them into Textual
messages (:mod:`client.messages`); their handlers set attributes on the lobby
and table screens. Screens ask for requests and actions with messages that
bubble up here, and a worker sends them; a refusal becomes a notification,
never a traceback.

``DabApp(session)`` takes a session that is already connected (the command
line connects first, so a wrong address fails before the terminal switches to
full screen) or one to connect on mount (tests). ``DabApp()`` without a session
runs offline; tests and snapshots feed it server messages with :meth:`receive`.
"""

from __future__ import annotations

import os
import select
import signal
import sys
import time
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable

from textual import events
from textual.app import App
from textual.geometry import Size
from textual.binding import Binding
from textual.reactive import var
from textual.screen import Screen
from textual.widget import Widget

from protocol import messages as m

from .messages import (
    ChatArrived,
    ConnectionChanged,
    EventsArrived,
    InvitationArrived,
    NoticeArrived,
    OnlineChanged,
    PlayAction,
    PracticeRequested,
    RequestRejected,
    SendRequest,
    TablesChanged,
    ViewChanged,
)
from .config import ClientConfig
from .cues import desktop_notification  # noqa: F401  (the cues' one home; kept here for its importers)
from .fairness import KNOWN_SERVERS, DealWatch, KnownServers
from .render import Display, clean_data, plain
from .screens.table import TableScreen
from .session import CLOSED, CONNECTED, RECONNECTING, Session, Status
from .textual_compat import driver_of, exit_showing, suspended
from .widgets.basics import MIN_HEIGHT, MIN_WIDTH, TooSmall, is_large

if TYPE_CHECKING:
    from .screens.lobby import LobbyScreen

NO_TERMINAL = "needs a terminal, and its input or output is not one (over SSH, use ssh -t)"
TERMINAL_GONE = 128 + signal.SIGHUP  # the exit code when the terminal hangs up, as a shell would report it


WEB_DRIVER = "textual.drivers.web_driver:WebDriver"  # textual-serve's: a browser tab over the pipes
MAX_EARLY_EVENTS = 64  # events of a table kept until its first view (a rematch's table starts before it comes)


@dataclass(frozen=True)
class JoinNote:
    """What came of ``--join TABLE`` (a friend's ``ssh ... t3``), to be said where it lasts: ``seated`` (or
    watching instead, ``text`` saying why), or refused (``code``, ``text``: in the lobby, until they act)."""

    table_id: str
    code: str | None  # the refusal's error code; None: at the table
    text: str


def terminal_attached() -> bool:
    """Are standard input and output both a terminal (not a pipe, a file or /dev/null), or a browser tab?"""
    if os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER:
        return True
    try:
        return all(stream is not None and stream.isatty() for stream in (sys.__stdin__, sys.__stdout__))
    except ValueError:  # a closed stream
        return False


class NoticeApp(App[None]):
    """One line on the screen, literally, until a key is pressed: why a browser tab's client cannot play."""

    CSS = "Static { margin: 1 2; }"

    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def compose(self) -> Any:
        from textual.widgets import Static

        yield Static(self.text + "\n\nPress a key to close.", markup=False)

    def on_key(self) -> None:
        self.exit()


class DabApp(App[None]):
    CSS_PATH = "app.tcss"
    TITLE = "Down and Back"
    ENABLE_COMMAND_PALETTE = False
    BINDINGS = [
        Binding("f1", "help", "Help", tooltip="the rules, the hand rankings and every key"),
        Binding("question_mark", "help", "Help", show=False, tooltip="the rules, the hand rankings and every key"),
        Binding("ctrl+q", "quit", "Quit", priority=True, tooltip="quit (asks first during a game)"),
    ]
    MENU_BINDINGS = (BINDINGS[0], BINDINGS[2])  # what the table menu offers of the app's own keys
    KEYS_WHEN_SMALL = ("ctrl+q",)  # the only key acted on while the terminal is too small

    connection_state: var[str] = var("offline")

    def __init__(
        self,
        session: Session | None = None,
        *,
        display: Display | None = None,
        frozen_clock: bool = False,
        player_name: str | None = None,
        server_label: str | None = None,
        on_table_painted: Callable[[], None] | None = None,
        on_view: Callable[[dict[str, Any]], None] | None = None,
        on_started: Callable[[], None] | None = None,
        config: ClientConfig | None = None,
        expect_table: bool = False,
        pin_as: str | None = None,
        practice: bool = False,
        public_host: str | None = None,
        join_note: JoinNote | None = None,
    ) -> None:
        super().__init__()
        self.session = session
        self.display_options = display or Display()
        self.frozen_clock = frozen_clock
        self.player_name = player_name or (session.name if session else "")
        self.server_label = server_label if server_label is not None else (session.address if session else "offline")
        self.tables: list[dict[str, Any]] = []
        self._waiting_state: dict[type, TablesChanged | OnlineChanged] = {}  # pushes still replaceable (receive)
        self.balance: int | None = None  # chips kept on this server, as the last table list said
        self.at_tables = 0  # ... and our chips sitting at tables with a game running (not in the balance)
        self.table_id: str | None = None
        self.view: dict[str, Any] | None = None
        self.last_game: str | None = None  # of the last table we had a seat at
        self.table_screen: TableScreen | None = None
        self.fatal_error: str | None = None
        self.on_table_painted = on_table_painted
        self.on_view = on_view
        self.on_started = on_started  # called once the first screen (a table, or the lobby) has been painted
        self.requests_sent: list[tuple[type[m.Request], dict[str, Any]]] = []
        self._board_warm = False
        self.expect_table = expect_table  # the session is already seated (practice): no lobby first
        self.config = config or ClientConfig()  # not saved unless it came from a file
        self.alerts: list[str] = []  # "your turn" alerts given (what the tests look at)
        self._titled = False  # the terminal's title says it is our turn (cues.turn_title): put it back after
        self.deals = DealWatch()  # our client seed for each round, and each round's check (docs/FAIRNESS.md)
        # The server's key, pinned per server (``pin_as``: its host:port; None, a practice game: never pinned).
        self.pin_as = pin_as
        self.known = KnownServers(self.config.path.parent / KNOWN_SERVERS if self.config.path else None)
        self.key_state: tuple[str, str] | None = None  # (the key the server shows, "new" / "known" / "changed" / "")
        self._early_events: tuple[str, list[dict[str, Any]]] | None = None  # (table, events) before its view
        self._focus_kept: dict[Screen[Any], Widget | None] = {}  # each screen's focus while too small
        self.keys_ignored = 0  # keys pressed while the terminal is too small (the notice counts them)
        self.features: frozenset[str] = frozenset()  # the server's optional requests (list_tables features)
        self._notices_asked: Any = None  # the connection (link) notices were asked for on
        self._removed_from: str | None = None  # our removal from a table: to say ("": said already)
        self.practice = practice or server_label == "practice"  # a game against bots here: no join line
        self.public_host = public_host  # the host the player reached the server by, from a gateway (client.joining)
        self.gateways: list[dict[str, Any]] | None = None  # the server's ways in (list_tables), once it has said
        self.join_note = join_note  # what came of --join, said once the first screen is up (_say_join_note)
        self.online: tuple[list[dict[str, Any]], int] | None = None  # who is online (list_online, online pushes)
        self.invitation: dict[str, Any] | None = None  # the last invitation, with "until": our clock's deadline

    @cached_property
    def lobby(self) -> LobbyScreen:
        """The lobby screen, made when first needed: a practice game opens on its table, and importing
        the lobby's widgets (its table list, the new-table form) would cost its start-up ~15 ms."""
        from .screens.lobby import LobbyScreen

        lobby = LobbyScreen()
        lobby.tables, lobby.at_tables, lobby.balance, lobby.online = self.tables, self.at_tables, self.balance, \
            self.online
        return lobby

    def _lobby_made(self) -> bool:
        return "lobby" in self.__dict__

    @property
    def _background_screens(self) -> list[Screen[Any]]:  # type: ignore[override]
        """Textual's screens that show through the top one; none when the top one is opaque.

        Textual always counts the screen just below, so every change on the table
        (a view, its countdown ticking) repainted the whole opaque screen on top
        of it (the help, the game over): ~7 KB each time.
        """
        stack = self.screen_stack
        if stack and stack[-1].styles.background.a == 1:
            return []
        return super()._background_screens

    # ------------------------------------------------------------ lifecycle

    def clock(self) -> float:
        return time.monotonic()

    def get_driver_class(self) -> Any:
        """Textual's own driver, but in a terminal on Linux or macOS the one whose input sleeps while idle
        (:mod:`client.driver`)."""
        from textual import constants

        if constants.DRIVER is None and sys.platform != "win32":
            from .driver import QuietDriver

            return QuietDriver
        return super().get_driver_class()

    async def run_async(self, *, headless: bool = False, **options: Any) -> None:
        """Run full screen; refuse (with :data:`NO_TERMINAL`) when there is no terminal to run in."""
        if not headless and not terminal_attached():
            self.fatal_error = NO_TERMINAL
            return None
        if not headless:
            from . import terminal

            terminal.install()  # style changes only: about half the bytes per repaint
        return await super().run_async(headless=headless, **options)

    def on_mount(self) -> None:
        if self.display_options.ascii:
            self.add_class("-ascii")
        if not self.is_headless:
            self._watch_terminal()
        # A practice game's table is on its way: composing a lobby nobody sees first would
        # cost start-up time, so the lobby waits (for a while, in case no table comes).
        if self.expect_table:
            self.set_timer(2.0, self._lobby_unless_seated)
        else:
            self.call_later(self._lobby_unless_seated)
        self._check_size()
        session = self.session
        if session is None:
            return
        if session.state == CONNECTED:
            self._listen(session)
        else:
            self.run_worker(self._connect(session), name="connect", exit_on_error=False)

    async def _connect(self, session: Session) -> None:
        from .link import LinkError

        try:
            await session.connect()
        except LinkError as exc:
            self.fail(f"cannot connect to {session.address}: {exc.message}")
            return
        self._listen(session)

    def _listen(self, session: Session) -> None:
        self.connection_state = CONNECTED
        session.listen(self.receive)
        if not self.expect_table:  # else the lobby asks when it is first shown (its screen resume)
            self._send(m.ListTables, {})  # the table list comes pushed; the balance only with a list request

    def _watch_terminal(self) -> None:
        """Leave when the terminal goes away (SIGHUP, or a hang-up on standard input).

        Without this a client whose SSH connection dropped would spin on the
        end of its input for ever.
        """
        import asyncio

        loop = asyncio.get_running_loop()
        loop.add_signal_handler(signal.SIGHUP, self.exit, None, TERMINAL_GONE)
        self._resume_only_after_a_suspension()
        if not hasattr(select, "epoll"):  # (not Linux) looked at once a second
            poller = select.poll()
            poller.register(sys.__stdin__.fileno(), 0)  # hang-up and errors are always reported
            self.set_interval(1.0, lambda: poller.poll(0) and self.exit(return_code=TERMINAL_GONE))
            return
        # An epoll set of its own, watching standard input for nothing but its hang-up and errors (always
        # reported): it becomes readable when they come, so nothing wakes an idle client to look.
        watch = select.epoll()
        watch.register(sys.__stdin__.fileno(), 0)

        def gone() -> None:
            loop.remove_reader(watch.fileno())
            watch.close()
            self.exit(return_code=TERMINAL_GONE)

        loop.add_reader(watch.fileno(), gone)

    def _resume_only_after_a_suspension(self) -> None:
        """A terminal that hangs up sends SIGCONT along with SIGHUP. Textual's SIGCONT handler
        resumes application mode whether or not it was suspended: on a dead terminal, a second
        output thread that dies on its first write, and an exit that then waits on it for ever
        (the client outlived its dropped SSH session). It may resume only what SIGTSTP suspended."""
        textual_resume = signal.getsignal(signal.SIGCONT)
        driver = driver_of(self)

        def resume(signum: int, frame: Any) -> None:
            if suspended(driver) and callable(textual_resume):
                textual_resume(signum, frame)

        if callable(textual_resume):
            signal.signal(signal.SIGCONT, resume)

    def _fatal_error(self) -> None:
        """A crash under dab-server's gateways (``DAB_GATEWAY``): its traceback goes to the server's log, so
        plainly, without Textual's locals (a screenful each, and whatever data they held)."""
        if os.environ.get("DAB_GATEWAY") != "1":
            super()._fatal_error()
            return
        import traceback

        from rich.text import Text

        exit_showing(self, Text(traceback.format_exc().rstrip()))

    def fail(self, text: str) -> None:
        """Leave the app with ``text`` as the error the command line prints."""
        self.fatal_error = text
        self.exit(return_code=1)

    async def on_unmount(self) -> None:
        self.turn_over()  # the terminal's own title back before it is handed back
        if self.session is not None:
            await self.session.close()

    def on_resize(self, event: events.Resize) -> None:
        self._check_size(event.size)

    def _check_size(self, size: Size | None = None) -> None:
        """Below 80x24 every screen shows only "Terminal too small" (app.tcss hides the rest, and with it
        the widget that had the keyboard): what had it on each screen gets it back once the terminal is
        large enough again."""
        width, height = size or self.size
        small = width < MIN_WIDTH or height < MIN_HEIGHT
        was_small = self.has_class("-too-small")
        if small and not was_small:
            self._focus_kept = {screen: screen.focused for screen in self.screen_stack}
        # (one restyle when both change; none when neither does)
        self.update_classes({"-too-small": small,
                             "-large": is_large(width, height)},  # the boards' and the table's larger layout
                            animate=False)
        if was_small and not small:
            self.keys_ignored = 0
            kept, self._focus_kept = self._focus_kept, {}
            for screen in self.screen_stack:
                self._give_focus_back(screen, kept.get(screen))

    @staticmethod
    def _give_focus_back(screen: Screen[Any], widget: Widget | None) -> None:
        """Focus ``widget`` on ``screen`` again if it is still there and may have it, else what the screen
        focuses first (the table: the board)."""
        if screen.focused is not None and screen.focused is not widget:
            return  # something else took the keyboard meanwhile (a panel that opened)
        if widget is not None and widget.is_attached and widget.screen is screen and widget.allow_focus():
            screen.set_focus(widget, scroll_visible=False)
            return
        focus_board = getattr(screen, "focus_board", None)
        if focus_board is not None:
            focus_board()
        elif screen.AUTO_FOCUS:
            target = next((w for w in screen.query(screen.AUTO_FOCUS) if w.allow_focus()), None)
            if target is not None:
                screen.set_focus(target, scroll_visible=False)

    async def on_event(self, event: events.Event) -> None:
        """Below 80x24 no key acts but ctrl+q: the player cannot see what a key would do."""
        if isinstance(event, events.Key) and self.has_class("-too-small") and event.key not in self.KEYS_WHEN_SMALL:
            self.keys_ignored += 1  # the notice says so: a player wondering why nothing happens is told
            for notice in self.screen.query(TooSmall):
                notice.refresh()
            return
        await super().on_event(event)

    def table_painted(self, warm_up: Callable[[], None]) -> None:
        """Called once a table screen has painted its first view (and by the startup benchmark);
        ``warm_up`` is the board's slow preparation (the hand helper's tables), run in a thread then."""
        if self.on_table_painted is not None:
            self.on_table_painted()
        self._started()
        if self.gateways is None and not self.practice and self.connection_state == CONNECTED:
            self._send(m.ListTables, {})  # (seated at once, by --join: the join line needs the server's gateways)
        if not self._board_warm:
            self._board_warm = True
            self.run_worker(warm_up, thread=True, name="warm the board", exit_on_error=False)

    # ------------------------------------------------------------ from the server

    def receive(self, item: Any) -> None:
        """The session's listener: one push or status change -> one Textual message.

        A table list or who is online is the whole state: while the message for one waits its turn (a
        busy client), a newer one replaces it there instead of queueing behind it, as long as nothing
        else arrived between them (a view after a list must still come after it)."""
        if isinstance(item, (m.Tables, m.Online)):
            waiting = self._waiting_state.get(type(item))
            if waiting is not None:
                waiting.pushed = item
                return
            message: TablesChanged | OnlineChanged = \
                TablesChanged(None, item) if isinstance(item, m.Tables) else OnlineChanged(None, 0, item)
            self._waiting_state[type(item)] = message
            self.post_message(message)
            return
        self._waiting_state.clear()
        if isinstance(item, Status):
            self.post_message(ConnectionChanged(item.state, plain(item.text), item.attempt))
        elif isinstance(item, m.View):
            view = {"table": item.table, "game": item.game, "decision": item.decision, "deadline_ms": item.deadline_ms}
            self.post_message(ViewChanged(item.table_id, clean_data(view)))
        elif isinstance(item, m.Event):
            self.post_message(EventsArrived(item.table_id, clean_data(item.events)))
        elif isinstance(item, m.ChatMessage):
            self.post_message(ChatArrived(item.seat, plain(item.name), plain(item.text), item.ts))
        elif isinstance(item, m.Notice):
            self.post_message(NoticeArrived(item.kind, plain(item.text)))
        elif isinstance(item, m.Invitation):
            self.post_message(InvitationArrived(clean_data(item.to_wire())))

    def on_view_changed(self, message: ViewChanged) -> None:
        early, self._early_events = self._early_events, None
        if self.table_screen is None or self.table_screen.table_id != message.table_id:
            self._back_to_lobby(show=False)  # (from one table straight to the next too: a rematch)
            self.table_id, self.view = message.table_id, message.view
            if self._lobby_made():
                self.lobby.show_notice(None)  # at a table now: what the lobby had to say is done with
            self.table_screen = TableScreen(message.table_id)
            self.table_screen.view = message.view
            self.push_screen(self.table_screen)
            if early is not None and early[0] == message.table_id:
                # The view's log has them already; the deal check has not (its deal_commit: our seed).
                self._check_deals(message.table_id, early[1])
        else:
            self.table_id, self.view = message.table_id, message.view
            self.table_screen.view = message.view
        table = message.view.get("table") or {}
        if table.get("seat") is not None:  # the game played last: what `b` in the lobby offers first
            self.last_game = (table.get("settings") or {}).get("game") or self.last_game
        if self.on_view is not None:
            self.on_view(message.view)

    def on_events_arrived(self, message: EventsArrived) -> None:
        if any(e.get("kind") == "removed" and e.get("you") for e in message.events):
            # Said once we are in the lobby (the table list comes next); the server's notice of it, if it
            # sends one, says it again and is left out.
            name = ((self.view or {}).get("table") or {}).get("name") if self.table_id == message.table_id else None
            self._removed_from = f"The host removed you from table {message.table_id}" + \
                (f" ({name})." if name else ".")
        if self.table_screen is not None and self.table_screen.table_id == message.table_id:
            self.table_screen.add_events(message.events)
            self._check_deals(message.table_id, message.events)
        else:
            self._keep_early(message.table_id, message.events)

    def _keep_early(self, table_id: str, events: list[dict[str, Any]]) -> None:
        """Keep the events of a table whose screen we do not have, for when its view comes (one table, bounded).

        A rematch moves us from our table to a new one that starts at once: its
        round and ``deal_commit`` come before its first view, and our client
        seed must go before the cut. At start-up the session leaves out a view
        that a newer one supersedes (:meth:`Session.listen`): the events between
        them come before the table's first view, too. (Those of a table we have
        left go once another table's view comes.)
        """
        kept = self._early_events[1] if self._early_events is not None and self._early_events[0] == table_id else []
        kept = kept + events
        self._early_events = (table_id, kept) if len(kept) <= MAX_EARLY_EVENTS else None

    def _check_deals(self, table_id: str, events: list[dict[str, Any]]) -> None:
        """Send our seed when a round's deal is sealed; show each round's check when its seed is revealed."""
        table = (self.view or {}).get("table") or {}
        game = (table.get("settings") or {}).get("game")
        if not game:
            return
        self._pin(table.get("server_key"))
        sends, verdicts = self.deals.arrived(table_id, events, table.get("seat"), game)
        for send in sends:
            self.run_worker(self._send_seed(table_id, *send), group="net", exit_on_error=False)
        if self.table_screen is not None and self.table_screen.table_id == table_id:
            self.table_screen.show_deal(self.deals.status)
        for verdict in verdicts:
            if not verdict.ok:
                self.notify(verdict.message, title=f"Round {verdict.round}: the deal is NOT verified",
                            severity="error", timeout=30)

    def _pin(self, key: object) -> None:
        """The server's key against the one pinned for it (docs/FAIRNESS.md §2): the verifier then holds every
        round to the pinned key, so a changed key fails every round until it is forgotten."""
        if not isinstance(key, str) or (self.key_state is not None and self.key_state[0] == key):
            return
        state = "" if self.pin_as is None else self.known.check(self.pin_as, key)
        self.key_state = (key, state)
        pinned = self.known.keys.get(self.pin_as) if self.pin_as is not None else None
        try:
            self.deals.key = bytes.fromhex(pinned) if pinned else None
        except ValueError:
            self.deals.key = None
        if state == "changed":
            from engine.fairness import fingerprint

            self.notify(f"{self.pin_as} now signs its deals with another key ({fingerprint(bytes.fromhex(key))}) than "
                        f"the one this client pinned: no deal verifies until you forget the old one "
                        f"(dab-client forget-key {self.pin_as}), which you should do only if its operator "
                        "changed it.", title="The server's key CHANGED", severity="error", timeout=60)

    async def _send_seed(self, table_id: str, kind: str, round_no: int, value: str) -> None:
        """Our seed's commitment, or the seed itself, for the round: quietly, since the deal goes on
        without it (a refusal means that phase had closed: the round is checked all the same)."""
        from .link import LinkError, RequestFailed

        if self.session is None:
            return
        request, field = (m.SeedCommit, "commit") if kind == "seed_commit" else (m.ClientSeed, "seed")
        try:
            await self.session.request(request, **{field: value})
        except RequestFailed as exc:
            self.deals.refused(table_id, kind, round_no, exc.code, exc.message)
            return
        except LinkError:
            return
        self.deals.accepted(table_id, kind, round_no, value)

    def on_chat_arrived(self, message: ChatArrived) -> None:
        if self.table_screen is not None:
            self.table_screen.add_chat(message.seat, message.name, message.text, message.ts)

    def on_notice_arrived(self, message: NoticeArrived) -> None:
        """The operator's announcement, or our removal from a table: said, literally, wherever we are."""
        if message.kind == "removed" and self._removed_from is not None:
            self._removed_from = None  # said already, as the table's event came
            return
        title = {"announcement": "From the server", "removed": "Removed from the table"}.get(message.kind, "Server")
        text = message.text[:1].upper() + message.text[1:]
        self.notify(text, title=title, severity="warning" if message.kind == "removed" else "information",
                    timeout=20 if message.kind == "announcement" else 10, markup=False)
        if self.table_screen is not None and message.kind == "announcement":
            self.table_screen.add_chat(None, m.SERVER_NAME, message.text)

    def _unwait(self, message: TablesChanged | OnlineChanged) -> Any:
        """The push a waiting message holds now (the newest): no longer replaceable."""
        pushed = message.pushed
        if pushed is not None and self._waiting_state.get(type(pushed)) is message:
            del self._waiting_state[type(pushed)]
        return pushed

    def on_tables_changed(self, message: TablesChanged) -> None:
        # The server sends the table list only to players who are not at a table.
        pushed = self._unwait(message)
        if pushed is not None:
            message.tables = clean_data([t.to_wire() for t in pushed.tables])
        assert message.tables is not None
        self._remember_tables(message.tables)
        if self.table_screen is not None:
            self._back_to_lobby()
        if self._removed_from:
            text, self._removed_from = self._removed_from, ""  # (said: the notice that follows is left out)
            # Once the lobby is on the screen: a toast raised as it is pushed would not be drawn on it.
            self.call_after_refresh(self.notify, text, title="Removed from the table", severity="warning",
                                    timeout=10, markup=False)

    def on_connection_changed(self, message: ConnectionChanged) -> None:
        previous, self.connection_state = self.connection_state, message.state
        screen = self.table_screen
        if message.state == RECONNECTING:
            if previous != RECONNECTING:
                more = self.display_options.ellipsis
                self.notify(f"Connection lost ({message.text}). Reconnecting{more}", title="Connection",
                            severity="warning", timeout=4)
                if screen is not None:
                    screen.note(f"Connection lost: reconnecting{more}")
        elif message.state == CONNECTED:
            self._notices_asked = None  # a new connection: notices are asked for again
            self._ask_for_notices()
            self.notify("Reconnected: the game goes on.", title="Connection", timeout=3)
            self.refresh_online()  # a new connection follows who is online (and hears invitations) only if it asks
            if screen is not None:
                screen.note("Reconnected.", "#87d787")
        elif message.state == CLOSED:
            self.fail(f"disconnected from {self.server_label}: {message.text}")

    def _back_to_lobby(self, show: bool = True) -> None:
        """Close the table and whatever is on it; ``show``: and be in the lobby (else a new table follows)."""
        self.turn_over()
        self.table_screen = None
        self.table_id = self.view = None
        lobby = self.lobby if show or self._lobby_made() else None
        while len(self.screen_stack) > 1 and self.screen is not lobby:
            self.pop_screen()
        if lobby is not None and show and lobby not in self.screen_stack:
            self.push_screen(lobby)

    def _lobby_unless_seated(self) -> None:
        if self.table_screen is None and self.lobby not in self.screen_stack:
            self.push_screen(self.lobby)
            self.call_after_refresh(self._started)

    def _started(self) -> None:
        started, self.on_started = self.on_started, None
        if started is not None:
            started()
        self._say_join_note()

    def _say_join_note(self) -> None:
        """What came of ``--join``, once: a refusal stays in the lobby (its private table asks for the code);
        watching instead is noted in the table's log and a notification."""
        note, self.join_note = self.join_note, None
        if note is None or not note.text:
            return
        if note.code is None:
            if self.table_screen is not None:
                self.table_screen.note(note.text, "#ffd75f")
            self.notify(note.text, title=f"Joining {note.table_id}", timeout=15, markup=False)
            return
        self.lobby.show_notice(note.text, select=note.table_id, ask_code=note.code == "wrong_code")

    # ------------------------------------------------------------ to the server

    def on_send_request(self, message: SendRequest) -> None:
        message.stop()
        self._send(message.kind, message.fields)

    def on_play_action(self, message: PlayAction) -> None:
        message.stop()
        self._send(m.Act, {"action": message.action})

    def on_practice_requested(self, message: PracticeRequested) -> None:
        message.stop()
        self.run_worker(self._practise(message.game), group="net", exit_on_error=False)

    async def _practise(self, game: str) -> None:
        """The practice table's requests in order; the first refusal is said and ends it."""
        from engine.games import find_game

        from .practice_table import practice_requests
        from .screens.lobby import default_table_name

        name = default_table_name(self.player_name, "'s practice")
        for kind, fields in practice_requests(game, find_game(game).practice_bots, name):
            self.requests_sent.append((kind, fields))
            if not await self._request(kind, fields):
                return

    def _send(self, kind: type[m.Request], fields: dict[str, Any]) -> None:
        self.requests_sent.append((kind, fields))
        self.run_worker(self._request(kind, fields), group="net", exit_on_error=False)

    async def ask(self, kind: type[m.Request], fields: dict[str, Any], quiet: bool = False) -> dict[str, Any] | None:
        """Send one request and return its result; a refusal is said (a notification) and gives None.

        Screens that show what the server answers (history, replays, the
        leaderboard) await this from a worker: the session does the I/O.
        ``quiet``: for what the player did not ask for (the side panel's scores so far), a refusal only gives None.
        """
        from .link import LinkError, RequestFailed

        if quiet:
            if self.session is None:
                return None
            try:
                return clean_data(await self.session.request(kind, **fields))
            except (RequestFailed, LinkError):
                return None
        if self.session is None:
            self.notify("Not connected to a server.", severity="error")
            self._rejected(kind, "offline", "not connected")
            return None
        try:
            if kind is m.Act:
                return await self.session.act(fields["action"])
            return clean_data(await self.session.request(kind, **fields))
        except RequestFailed as exc:
            if kind is m.Join and exc.code in ("game_running", "table_full"):
                self._watch_instead(exc.code, exc.message, fields)
                return None
            self.notify(exc.message, title="Not possible", severity="warning", markup=False)  # names: literally
            self._rejected(kind, exc.code, exc.message)
        except LinkError as exc:
            self.notify(exc.message, title="Connection", severity="error", markup=False)
            self._rejected(kind, exc.code, exc.message)
        except Exception as exc:  # a bug must not crash the game: say it and carry on
            self.notify(f"{type(exc).__name__}: {exc}", title="Client error", severity="error")
            self._rejected(kind, "client_error", str(exc))
        return None

    async def _request(self, kind: type[m.Request], fields: dict[str, Any]) -> bool:
        """Send one request and act on its reply; a refusal is said. Whether it succeeded."""
        result = await self.ask(kind, fields)
        if result is None:
            return False
        if kind is m.Join and any(t.get("table_id") == result.get("table_id") and t.get("state") == "playing"
                                  for t in self.tables):
            self.notify("You have a seat: you are dealt in from the next deal.", title="Sitting in", timeout=6)
        if kind is m.Leave:
            self._back_to_lobby()
        elif kind is m.ListTables:
            from .joining import valid_gateways

            self.gateways = valid_gateways(result.get("gateways"))
            if self.table_screen is not None and self.table_screen.showing:
                self.table_screen.update_join_line()
            features = result.get("features")
            first = not self.features
            self.features = frozenset(f for f in features if isinstance(f, str)) if isinstance(features, list) \
                else frozenset()
            if first:
                self.refresh_online()  # once the server has said it answers it: the lobby's list, invitations
            self._remember_tables(result.get("tables", []))
            self._ask_for_notices()
            balance, at_tables = result.get("balance"), result.get("at_tables", 0)
            if isinstance(at_tables, int) and not isinstance(at_tables, bool):
                self.at_tables = at_tables
            if isinstance(balance, int) and not isinstance(balance, bool):
                self.balance = balance
                if self._lobby_made():
                    self.lobby.at_tables = self.at_tables
                    self.lobby.balance = balance
        elif kind is m.ListOnline:
            self._remember_online(result.get("players"), result.get("total"))
        return True

    def _ask_for_notices(self) -> None:
        """Have this connection sent the server's notices (the operator's announcements, our removal from a
        table), once per connection, from a server that offers them (``list_tables`` ``features``)."""
        link = self.session.link if self.session is not None else None
        if "notices" in self.features and link is not None and self._notices_asked is not link:
            self._notices_asked = link
            self._send(m.Notices, {})

    # ------------------------------------------------------------ who is online, invitations

    def refresh_online(self) -> None:
        """Ask who is online (and so follow the changes, and hear invitations), if the server answers it."""
        if "list_online" in self.features and self.connection_state == CONNECTED and not self.practice:
            self._send(m.ListOnline, {})

    def _remember_online(self, players: Any, total: Any) -> None:
        if not isinstance(players, list) or isinstance(total, bool) or not isinstance(total, int):
            return
        self.online = ([p for p in players if isinstance(p, dict) and isinstance(p.get("name"), str)], total)
        if self._lobby_made():
            self.lobby.online = self.online
        from .screens.online import OnlineScreen

        for screen in self.screen_stack:
            if isinstance(screen, OnlineScreen) and screen.is_mounted:
                screen.show(self.online)

    def on_online_changed(self, message: OnlineChanged) -> None:
        pushed = self._unwait(message)
        if pushed is not None:
            message.players, message.total = clean_data([p.to_wire() for p in pushed.players]), pushed.total
        self._remember_online(message.players, message.total)

    def on_invitation_arrived(self, message: InvitationArrived) -> None:
        """A host invites us: a notification that lasts as long as the invitation, and ``i`` to accept it."""
        invitation = message.invitation
        expires = invitation.get("expires_ms")
        if not isinstance(expires, int) or isinstance(expires, bool) or not isinstance(invitation.get("table_id"), str):
            return
        self.invitation = {**invitation, "until": self.clock() + expires / 1000}
        private = " (private: no code needed)" if invitation.get("private") else ""
        self.notify(f"{invitation.get('host')} invites you to {invitation.get('table_name')} "
                    f"({invitation['table_id']}, {invitation.get('title')}){private}. Press i to join.",
                    title="Invitation", timeout=max(1.0, expires / 1000), markup=False)
        self.refresh_bindings()
        self.set_timer(expires / 1000 + 0.1, self.refresh_bindings)  # its key goes when it lapses

    def pending_invitation(self) -> dict[str, Any] | None:
        """The invitation we may still accept: not lapsed, and we are not seated at a table."""
        invitation = self.invitation
        if invitation is None or invitation["until"] <= self.clock():
            return None
        screen = self.table_screen
        if screen is not None and screen.me is not None and screen.table.get("state") != "finished":
            return None
        return invitation

    def accept_invitation(self) -> None:
        """``i``: go to the table we are invited to (leaving the one we watch, if another); no code needed."""
        invitation = self.pending_invitation()
        if invitation is None:
            self.notify("No invitation to accept (it lapsed after a minute).", severity="warning")
            return
        self.invitation = None
        self.refresh_bindings()
        self.run_worker(self._go_to(invitation["table_id"]), group="net", exit_on_error=False)

    async def _go_to(self, table_id: str) -> None:
        screen = self.table_screen
        if screen is not None and screen.table_id != table_id:
            if not await self._request(m.Leave, {}):
                return
        await self._request(m.Join, {"table_id": table_id})

    def _watch_instead(self, code: str, message: str, fields: dict[str, Any]) -> None:
        """A join the server refused for want of a seat: say why, and watch the table instead.

        The lobby always asks to join (the server returns a player to a seat
        held for them, and sits a newcomer in at a running game's next deal
        where the game allows it), so only a real refusal lands here.
        """
        why = "Every seat is taken" if code == "table_full" else message.removesuffix("; you can watch instead")
        self.notify(f"{why}: watching it instead.", title="No seat for you", timeout=6)
        self._send(m.Watch, {k: v for k, v in fields.items() if k in ("table_id", "private_code")})

    def _remember_tables(self, tables: list[dict[str, Any]]) -> None:
        self.tables = tables
        if self._lobby_made():
            self.lobby.tables = tables

    def _rejected(self, kind: type[m.Request], code: str, text: str) -> None:
        if self.table_screen is not None:
            self.table_screen.post_message(RequestRejected(kind, code, text))

    ASCII_KEYS = {"⏎": "enter", "←→": "<-/->", "←": "<-", "→": "->", "↑": "up", "↓": "down", "␣": "space"}

    def get_key_display(self, binding: Binding) -> str:
        text = super().get_key_display(binding)
        if self.display_options.ascii:
            return self.ASCII_KEYS.get(text, text)
        return text

    # ------------------------------------------------------------ actions

    def alert_turn(self, table_name: str = "") -> None:
        """A decision just became ours: the title says so (until :meth:`turn_over`), the bell rings (unless
        turned off) and, if asked for, a desktop notification (:mod:`client.cues`)."""
        from . import cues

        text = ""
        if not self._titled:
            text += cues.SAVE_TITLE
        self._titled = True
        text += cues.title(cues.turn_title(table_name))
        if self.config.bell:
            text += cues.BELL
        if self.config.notify:
            where = f"your turn at {table_name}" if table_name else "your turn"
            text += desktop_notification("Down and Back", where, os.environ, unknown="osc9")
        self.alerts.append(text)
        self._write(text)

    def turn_over(self) -> None:
        """The decision is not ours any more (played, timed out, the table left): put the title back."""
        from . import cues

        if self._titled:
            self._titled = False
            self._write(cues.title(cues.RESTING) + cues.RESTORE_TITLE)

    def _write(self, text: str) -> None:
        """Bytes for the terminal itself (not the screen): a real terminal's, never a test's headless one."""
        driver = driver_of(self)
        if text and not self.is_headless and driver is not None:
            driver.write(text)

    def action_toggle_bell(self) -> None:
        self.config.bell = not self.config.bell
        self.config.save()
        self.notify("Your-turn bell on." if self.config.bell else "Your-turn bell off (n at the table turns it on).",
                    timeout=3)

    def action_toggle_notify(self) -> None:
        """Desktop notifications of your turn, on or off (remembered; off until asked for)."""
        self.config.notify = not self.config.notify
        self.config.save()
        self.notify("Desktop notification of your turn on (in terminals that show them)." if self.config.notify
                    else "Desktop notification of your turn off (N at the table turns it on).", timeout=4)

    async def action_quit(self) -> None:
        """Quit; during a game, only after a yes (a second ctrl+q quits at once)."""
        from .screens.dialogs import ConfirmScreen

        screen = self.table_screen
        if screen is None or not screen.playing or isinstance(self.screen, ConfirmScreen):
            self.exit()
            return

        def done(yes: bool | None) -> None:
            if yes:
                self.exit()

        if self.practice:  # nothing outlives this process: say so, rather than promise a seat kept
            question = "Quit the practice game? It ends with this window: the next dab-client deals a new one."
        else:
            question = "Quit the game? Your seat is kept and played for you until you come back."
        self.push_screen(ConfirmScreen(question), callback=done)

    def open_chat(self) -> None:
        """The chat dialog over what is on top (a panel, a dialog, the game over), when at a table."""
        from .screens.chat import open_chat

        open_chat(self)

    def action_help(self) -> None:
        from .games import playable_games
        from .screens.help import HelpScreen

        if not isinstance(self.screen, HelpScreen):
            table = self.table_screen
            self.push_screen(HelpScreen([table.game_of(table.view)] if table is not None else playable_games()))
