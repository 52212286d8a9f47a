"""The table shell, the same for every game: top bar, seats, log, chat, the host's and the table's keys.

The app sets :attr:`TableScreen.view` (and calls :meth:`add_events` /
:meth:`add_chat`); the screen updates what every game has (the table's name,
the seats, the countdown, chat, who hosts) and mounts the game's board
(:func:`client.games.board_class`), which draws the game and offers its keys.
What the player chooses goes up as :class:`~client.messages.PlayAction` /
:class:`~client.messages.SendRequest`. Keys for illegal choices are neither
shown nor acted on (``check_action``, here and on the board).
"""

from __future__ import annotations

from functools import cached_property
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from textual import events, on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.reactive import Reactive, var
from textual.screen import Screen
from textual.widget import Widget
from textual.widgets import Input, Static

from protocol import messages as m
from protocol.messages import SERVER_NAME

from ..games import DEFAULT_GAME, board_class
from ..games.board import Board, board_style_sheets
from ..messages import PlayAction, RequestRejected, SendRequest
from ..render import Display, render_parts
from ..widgets.basics import Countdown, KeysFooter, LineLog, QuietBackground, SteadyScreen, TooSmall, on_stack
from ..textual_compat import forget_dirty_widgets
from ..widgets.table import Prompt, SeatPanel, SeatState, SidePanel

if TYPE_CHECKING:
    from engine.contract import Part

    from ..fairness import RoundStatus

MAX_EARLY_NEWS = 256  # pushes kept for a table screen not mounted yet (it mounts within a frame or two)
SIT_OUT = "sit out: played for you, not dealt in; again: back in"


class ChatInput(Input):
    """One line to chat; Enter sends, Escape (not a game action) goes back to the cards.

    Every key typed here stays here: printable keys are the line's (Textual's Input takes them before any
    binding), and Tab does not move on to the cards. A line left another way (a click) keeps its text."""

    BINDINGS = [Binding("escape", "leave_chat", "Back to cards", show=True,
                        tooltip="back to the cards (Enter sends the line)"),
                Binding("tab", "stay", "Stay", show=False, tooltip="nothing: you stay in the chat line"),
                Binding("shift+tab", "stay", "Stay", show=False, tooltip="nothing: you stay in the chat line")]

    def action_leave_chat(self) -> None:
        self.value = ""
        self.screen.focus_board()  # type: ignore[attr-defined]

    def action_stay(self) -> None:
        """Tab in the chat line: nothing (the letters typed next would be game keys)."""

    def _on_blur(self, event: events.Blur) -> None:
        super()._on_blur(event)
        screen = self.screen
        if (isinstance(screen, TableScreen) and screen.is_current and screen.focused is not self
                and not self.app.has_class("-too-small")):  # (hidden by a small terminal: it comes back)
            self.can_focus = False
            screen.call_later(screen.typing_done)


class TableScreen(QuietBackground, SteadyScreen, Screen[None]):
    AUTO_FOCUS = "#board .board-focus, #board"

    # The tooltip is the longer description the help page and the table menu show.
    BINDINGS = [
        Binding("b", "add_bot", "Add bot", tooltip="host, before the game: fill an empty seat with a bot"),
        Binding("B", "add_bot_level", "Add bot of a level", show=False,
                tooltip="host, before the game: a bot of a level you pick (easy, normal, strong...)"),
        Binding("x", "remove_bot", "Remove bot", tooltip="host, before the game: remove a bot"),
        Binding("g", "start", "Start", tooltip="host: start the game"),
        # priority: the line takes the keyboard before the keys typed right after c are handed on
        Binding("c", "chat", "Chat", priority=True, tooltip="chat to the table (Escape goes back to the cards)"),
        Binding("m", "menu", "Menu", tooltip="the table menu: sit out, end the game, leave, quit"),
        Binding("a", "sit_out", "Sit out", show=False, tooltip=SIT_OUT),
        Binding("a", "come_back", "I'm back", tooltip=SIT_OUT),
        Binding("E", "end_game", "End game", show=False, tooltip="host: end the game for everyone (asks first)"),
        Binding("l", "leave", "Leave", show=False, tooltip="leave the table (during a game your seat is kept)"),
        Binding("n", "toggle_bell", "Bell", show=False, tooltip="your-turn bell off/on (remembered)"),
        Binding("N", "toggle_notify", "Notify", show=False,
                tooltip="your-turn desktop notification on/off (remembered)"),
        Binding("H", "history", "History", show=False, tooltip="your finished rounds at this table, and their replays"),
        Binding("f", "fair", "Fair deal", show=False,
                tooltip="the fair deal: what this round's check proves, the seeds, the server's key"),
        Binding("p", "people", "People", show=False,
                tooltip="the people here: mute one, or (host) remove one"),
        Binding("j", "copy_join", "Copy join line", show=False,
                tooltip="copy how friends join this table (the join line)"),
        Binding("i", "invite", "Invite", tooltip="host: invite a player online to this table"),
        Binding("i", "accept_invitation", "Accept invitation", tooltip="go to the table you are invited to "
                "(for a minute)"),
    ]
    MENU = ("end_game", "sit_out", "come_back", "invite", "copy_join", "history", "people", "leave",
            "toggle_bell", "toggle_notify")  # with the app's
    JOIN_LINE_ROWS = 30  # during a game the join line shows only from this height (it costs the log a line)

    view: var[dict[str, Any] | None] = var(None, always_update=True, init=False)
    # Textual repaints the whole screen when the focus moves (~4.5 KB at 80x24); the widgets whose
    # look depends on it (:focus, :focus-within) are restyled, and so repainted, by the move itself.
    focused: Reactive[Widget | None] = Reactive(None, repaint=False)
    LIVE = True  # a live table: a decision of ours rings the bell, and the board opens its decision screens

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id
        self.names: dict[int, str] = {}
        self.pending = False  # an action is on its way; wait for the next decision
        self.board: Board | None = None
        self._decision: tuple[Any, ...] | None = None  # what was awaited when we last acted (see _awaited)
        self._chat_seen: set[tuple[Any, ...]] = set()
        self.watchers: list[str] = []  # the names of spectators whose chat we saw (for the people list)
        self._log_seeded = False
        self._painted = False
        self._shown: dict[str, Content] = {}
        self._offered: tuple[bool, ...] = ()
        self._mine = False  # the last view had a decision of ours (the bell rings when one begins)
        self.deal: RoundStatus | None = None  # the round's fair deal as this client follows it (the top bar's mark)
        self._deal_shown: str | None = None  # the mark last shown
        self._early: list[Callable[[], None]] = []  # what was shown before the screen was mounted, in order
        self._scores_asked = False  # the table's history, for the side panel's scores (_ask_scores)
        self._display_held = 0  # see hold_display
        self._after_typing: list[Callable[[], None]] = []  # what waits until the player stops typing
        self._from_menu = False  # an action chosen in the menu is running (see check_action)
        self._info_parts: tuple[list[Any], list[Any]] | None = None  # the top bar's facts (_fit_top_bar)

    @property
    def display_options(self) -> Display:
        return getattr(self.app, "display_options", Display())

    @property
    def legal(self) -> dict[str, dict[str, Any]]:
        """What our seat may do now, by kind (the board reads it from the game's view)."""
        return self.board.legal if self.board is not None else {}

    # ------------------------------------------------------------ the view push, as the shell reads it

    @property
    def table(self) -> dict[str, Any]:
        """The server's facts about the table (members, host, settings, state)."""
        return (self.view or {}).get("table") or {}

    @property
    def game(self) -> dict[str, Any] | None:
        """The game's own view for us, for the board; ``None`` before the game."""
        return (self.view or {}).get("game")

    @property
    def deadline_ms(self) -> int | None:
        """The time left for the decision awaited, when this view was sent (``None``: no clock)."""
        return (self.view or {}).get("deadline_ms")

    @property
    def me(self) -> int | None:
        return self.table.get("seat")

    @property
    def rules(self) -> dict[str, Any]:
        """The game's settings for this table (its ``rules``: the ante, the house rules...)."""
        return (self.table.get("settings") or {}).get("rules") or {}

    @staticmethod
    def game_of(view: dict[str, Any] | None) -> str:
        settings = ((view or {}).get("table") or {}).get("settings") or {}
        return settings.get("game") or DEFAULT_GAME

    def describe(self, event: Mapping[str, Any]) -> list[Part] | None:
        """An event in its one wording: the game's (its engine's ``describe``), else the table's own. The
        fair deal's events get no log line: the top bar's mark says where the deal stands (key f: more)."""
        from engine.contract import describe_table_event
        from engine.fairness import FAIR_KINDS
        from engine.games import GAMES

        if event.get("kind") in FAIR_KINDS:
            return None
        game = GAMES.get(self.game_of(self.view))
        parts = game.describe(event) if game is not None else None
        return parts if parts is not None else describe_table_event(event)

    def styled(self, parts: Sequence[Part]) -> Content:
        """``parts`` as styled text for us: names, our seat as "You", cards as we show them."""
        return render_parts(parts, self.names, self.display_options, self.me)

    @cached_property
    def seat_count(self) -> int:
        """How many seats a table of this game may have: its game type's ``max_seats`` (a game this client
        does not know: the most the protocol allows), one seat panel each."""
        from engine.games import GAMES

        known = GAMES.get(self.game_of(self.view))
        return known.max_seats if known is not None else m.MAX_SEATS

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Horizontal(id="topbar"):
            yield Static(id="info", markup=False)
            yield Static(id="deal-mark", markup=False)  # the fair deal's status: never cut short (the info is)
            yield Countdown(id="clock", ascii=self.display_options.ascii)
        join_line = Static(id="joinline", markup=False)
        join_line.display = False  # until there is a join line to show (update_join_line): no layout for none
        yield join_line
        with Horizontal(id="seats"):
            for seat in range(self.seat_count):
                yield SeatPanel(id=f"seat-{seat}")
        side = SidePanel(LineLog(id="chat", placeholder="Chat: press c to talk to the table."),
                         ChatInput(id="chat-input", placeholder="c: chat", max_length=200,
                                   select_on_focus=False), id="side-panel")
        talk = Vertical(LineLog(id="log", placeholder="The table's log appears here."), side, id="talk")
        game = self.game_of(self.view)
        board = board_class(game)
        self._add_board_css(board)
        self.board = board(game, talk, Prompt(id="prompt"))
        side.sections = self.board.side_sections()
        yield self.board
        yield KeysFooter()

    def _add_board_css(self, board: type[Board]) -> None:
        """The board's style sheets (:attr:`~Board.BOARD_CSS`, each checked to style only its board:
        :func:`~client.games.board.board_style_sheets`) in the app's style sheet, with the app's own priority
        (a widget's DEFAULT_CSS never has it), once: parsed as the board's widgets are first mounted."""
        for where, css in board_style_sheets(board, self.app.get_css_variables()):
            if not self.app.stylesheet.has_source(*where):
                self.app.stylesheet.add_source(css, read_from=where, is_default_css=False)

    def on_mount(self) -> None:
        self.query_one("#chat-input", Input).can_focus = False
        if self.view is not None:
            self._apply(self.view)
        early, self._early = self._early, []
        for show in early:
            show()

    def on_side_panel_shown(self, message: SidePanel.Shown) -> None:
        self._ask_scores()

    def _ask_scores(self) -> None:
        """Once, when the side panel first shows its sections at a live table with a game: the table's last
        finished rounds, for the scores of those this screen did not see (asked quietly; none if refused;
        not at all in the table's first round, when none has finished: :meth:`Board.rounds_before`)."""
        board = self.board
        if self._scores_asked or not self.LIVE or board is None or not board.HISTORY_ROUNDS or self.game is None \
                or not self.app.has_class("-large"):
            return
        self._scores_asked = True
        if not board.rounds_before(self.game):
            return  # the table's first round under way: this screen sees every round end from here

        async def ask() -> None:
            reply = await self.app.ask(m.History, {"limit": board.HISTORY_ROUNDS}, quiet=True)  # type: ignore[attr-defined]
            rounds = (reply or {}).get("rounds")
            if isinstance(rounds, list) and self.showing and board is self.board:
                board.seed_scores([r for r in rounds if isinstance(r, dict)])

        self.run_worker(ask(), group="scores", exit_on_error=False)

    def on_screen_resume(self) -> None:
        self.refresh_bindings()  # keys offered may have changed while another screen was on top

    def hold_display(self) -> None:
        """Keep what changes off the terminal until :meth:`release_display` (Textual still lays the screen
        out meanwhile): the table's changes under a panel that is opening are painted with it, once
        (:meth:`Board.open_panel`)."""
        self._display_held += 1

    def release_display(self, paint: bool = True) -> None:
        """Paint what changed meanwhile now (``paint``), or with the next frame."""
        self._display_held -= 1
        if not self._display_held and paint:
            self._compositor_refresh()

    def _compositor_refresh(self) -> None:
        if self._display_held and self.is_current:
            forget_dirty_widgets(self)  # their regions stay dirty in the compositor until the release
            return
        super()._compositor_refresh()

    @property
    def showing(self) -> bool:
        """Mounted and still on the app's screen stack (:func:`~client.widgets.basics.on_stack`): what
        arrives for a table screen that has gone is dropped before it reaches a widget."""
        return self.is_mounted and on_stack(self)

    def _show(self, show: Callable[[], None]) -> None:
        """Run ``show`` now if the screen is showing; once mounted if it is not yet (in order); else never.

        The app hands a table screen its view, events, chat and deal checks as
        they come, from the moment it is pushed: the first ones can come before
        it is mounted (a rematch's new table starts at once).
        """
        if not self.is_mounted:
            if len(self._early) < MAX_EARLY_NEWS:
                self._early.append(show)
        elif self.showing:
            show()

    def watch_view(self, view: dict[str, Any] | None) -> None:
        if view is not None and self.showing:  # (before the mount, on_mount applies the latest view)
            self._apply(view)

    def focus_board(self) -> None:
        chat = self.query_one("#chat-input", Input)
        chat.can_focus = False
        if self.board is not None:
            self.board.focus_default()
        self.typing_done()

    # ------------------------------------------------------------ typing: nothing takes the keyboard meanwhile

    @property
    def typing(self) -> bool:
        """Is the player typing a chat line: the table's (focused), or the chat dialog's (on top)?"""
        from .chat import ChatScreen

        if not self.is_mounted:
            return False
        app = self.app
        if app.screen_stack and isinstance(app.screen, ChatScreen):
            return True
        return self.is_current and self.focused is not None and self.focused.id == "chat-input"

    def when_not_typing(self, show: Callable[[], None]) -> None:
        """Run ``show`` (a dialog or panel that would take the keyboard) now, or once the player has sent or
        left the chat line they are typing: letters meant for the chat must never reach a game key."""
        if self.typing:
            self._after_typing.append(show)
        else:
            show()

    def typing_done(self) -> None:
        """The chat line was sent or left: open what waited for it (unless typing again already)."""
        if self.typing or not self.showing:
            return
        waiting, self._after_typing = self._after_typing, []
        for show in waiting:
            show()

    # ------------------------------------------------------------ the view

    def _apply(self, view: dict[str, Any]) -> None:
        board = self.board
        assert board is not None  # composed before the first view is applied
        table, game = view.get("table") or {}, view.get("game")
        me = table.get("seat")
        members = {member["seat"]: member for member in table.get("members", [])}
        self.names = {**board.names(game), **{seat: member["name"] for seat, member in members.items()}}
        if not self._log_seeded and game is not None:
            self._log_seeded = True
            log = self.query_one("#log", LineLog)
            if not log.lines:
                board.seed_log(game, log)
        to_act = board.to_act(game)
        if self.pending and (self._awaited(view) != self._decision or me not in to_act):
            self.pending = False  # what we sent has been played (or overtaken)

        self._update_info(view, table)
        self.update_join_line()
        self._update_seats(game, table, me, members)
        board.show(game)
        mine = self.LIVE and me is not None and me in to_act and not self.away
        if mine != self._mine:
            cue = getattr(self.app, "alert_turn" if mine else "turn_over", None)
            if cue is not None:
                cue(table.get("name") or self.table_id) if mine else cue()
        self._mine = mine
        self._update_clock(view.get("deadline_ms"), to_act, me)
        self.update_prompt()
        self._refresh_bindings_if_changed()
        if self.LIVE:
            board.close_past_results(game)
            board.open_screens(game)
            self._ask_scores()
        for screen in self.app.screen_stack:  # screens over the table that show its facts (the game over's rematch)
            changed = getattr(screen, "table_changed", None)
            if changed is not None:
                changed(table)
        if not self._painted:
            self._painted = True
            callback = getattr(self.app, "table_painted", None)
            if callback is not None:
                self.call_after_refresh(callback, board.warm_up)

    def _awaited(self, view: dict[str, Any]) -> tuple[Any, ...]:
        """The decision awaited and what our seat may choose in it: our action has been played once
        either changes (calling the end keeps the same decision, our draw, without the call)."""
        assert self.board is not None
        return (view.get("decision"), self.board.choices(view.get("game")))

    @staticmethod
    def in_waiting_room(view: dict[str, Any]) -> bool:
        """No game yet: players gather, the host adds bots and starts."""
        return view.get("game") is None

    def _update_info(self, view: dict[str, Any], table: dict[str, Any]) -> None:
        assert self.board is not None
        head: list[Content | str | tuple[str, str]] = [(" ", "")]
        if not getattr(self.app, "practice", False):  # the id friends join by (a practice table has none to give)
            head.append((f"{self.table_id} ", "dim"))
        head.append(Content.styled(table.get("name") or "Table", "bold"))
        if table.get("fixed_seed"):  # the operator fixed the shuffle: the deals are predictable
            head.append(("  UNFAIR: seeded", "bold #ff5f5f"))
        if table.get("spectators"):
            head.append((f"  {table['spectators']} watching", "dim"))
        if table.get("seat") is None and not self.in_waiting_room(view):
            head.append(("  (watching)", "#ffd75f"))
        self._update_deal_mark()
        self._info_parts = (head, self.board.info(view.get("game"), self.rules))
        self._fit_top_bar()

    def _fit_top_bar(self) -> None:
        """The top bar is one line and nothing in it is cut off: the table's own facts, then as many of the
        board's facts (:meth:`Board.info`, most telling first: where the game stands, then its rules) as fit
        whole beside the fair deal's mark and the clock. The rules left out are in the lobby's note and F1."""
        if not self._info_parts or not self.size.width:
            return
        head, facts = self._info_parts
        clock = self.query_one(Countdown).render().cell_length
        mark = self._shown.get("#deal-mark")
        room = self.size.width - (clock + 2 if clock else 0)  # the clock's text and padding
        room -= mark.cell_length if mark is not None else 0  # the fair deal's mark (never cut: the info gives way)
        for count in range(len(facts), -1, -1):
            info = Content.assemble(*head, *facts[:count])
            if info.cell_length <= room:
                break
        self._set_static("#info", info)

    # ------------------------------------------------------------ the join line

    def join_commands(self) -> list[str]:
        """How friends come to this table, one command per gateway the server runs (:mod:`client.joining`);
        none at a practice table."""
        from ..joining import join_commands, join_host

        app = self.app
        gateways = getattr(app, "gateways", None) or []
        if getattr(app, "practice", False) or not gateways:
            return []
        session = getattr(app, "session", None)
        host = join_host(gateways, getattr(session, "host", "") or "", getattr(app, "public_host", None))
        return join_commands(self.table_id, gateways, host)

    def update_join_line(self, size: Any = None) -> None:
        """The join line: in the waiting room and after the game at any size, during a game from
        ``JOIN_LINE_ROWS`` rows; as many of the commands as fit (``size``: the terminal's, when it has just
        changed), and ``j`` for all of them."""
        from ..joining import SEPARATOR, fitting

        width, height = size if size is not None else self.app.size
        line = self.query_one("#joinline", Static)
        commands = self.join_commands()
        playing = self.table.get("state") == "playing"
        show = bool(commands) and (not playing or height >= self.JOIN_LINE_ROWS)
        line.display = show
        if not show:
            return
        label = f" Join {self.table_id}{' (private)' if self.table.get('private') else ''}: "
        shown, whole = fitting(label, commands, max(20, width - 1), "  j copies")
        key = Content.styled("j", "bold #ffd75f")
        if not shown:
            content = Content.assemble((label, "dim"), key, " shows how friends join")
        else:
            tail = Content.assemble("  ", key, " copies" if whole else ": all")
            content = Content.assemble((label, "dim"), SEPARATOR.join(shown), tail)
        self._set_static("#joinline", content)

    def action_copy_join(self) -> None:
        """Copy the join commands (OSC 52, where the terminal allows it) and show them whole, to read or select."""
        commands = self.join_commands()
        if not commands:
            self.notify("This table has no join line (a practice table, or the server has not said how).",
                        severity="warning")
            return
        self.app.copy_to_clipboard("\n".join(commands))
        code = " and its private code" if self.table.get("private") else ""
        self.notify("\n".join(commands), title=f"Copied: how friends join {self.table_id}{code}", timeout=20,
                    markup=False)

    def _update_seats(self, game: dict[str, Any] | None, table: dict[str, Any], me: int | None,
                      members: dict[int, dict[str, Any]]) -> None:
        """The seat panels: who sits where (the table's members; in a game also who has left it)."""
        assert self.board is not None
        seats = range((table.get("settings") or {}).get("seats") or self.seat_count) if game is None \
            else sorted(set(members) | set(self.names))
        base: dict[int, SeatState] = {}
        for seat in seats:
            member = members.get(seat)
            if member is None and seat not in self.names:
                base[seat] = SeatState(seat=seat)
                continue
            member = member or {"name": self.names[seat], "connected": False}  # left the finished game
            base[seat] = SeatState(seat=seat, name=member.get("name", "?"), me=seat == me,
                                   host=table.get("host_seat") == seat, bot=bool(member.get("bot")),
                                   level=member.get("level") if member.get("bot") else None,
                                   connected=member.get("connected", True), away=bool(member.get("away")))
        ordered = self.board.seat_states(game, base)
        for i, panel in enumerate(self.query(SeatPanel)):
            panel.state = ordered[i] if i < len(ordered) else None

    def _update_clock(self, deadline: int | None, to_act: list[int], me: int | None) -> None:
        assert self.board is not None
        clock = self.query_one(Countdown)
        if deadline is None or not to_act:
            clock.set_deadline(None)
            self._fit_top_bar()
            return
        mine = me in to_act
        if mine:
            label = "You"
        elif len(to_act) == 1:
            label = self.names.get(to_act[0], "")
        else:
            label = self.board.DECIDING_TOGETHER
        clock.set_deadline(deadline, label[:16], mine)
        self._fit_top_bar()

    def update_prompt(self) -> None:
        if self.view is not None:
            self.query_one(Prompt).show(self.prompt_for(self.view))

    def _set_static(self, selector: str, content: Content) -> None:
        """Update a Static only when its content really changes: every repaint costs bytes."""
        last = self._shown.get(selector)
        if last is not None and last.is_same(content):
            return
        self._shown[selector] = content
        self.query_one(selector, Static).update(content)

    def _refresh_bindings_if_changed(self) -> None:
        """Redraw the footer only when the set of offered keys changes."""
        if not self.is_current:  # on_screen_resume refreshes them; a hidden footer must not repaint
            self._offered = ()
            return
        offered = tuple(bool(node.check_action(action, ())) for node, action in self._binding_actions)
        if offered != self._offered:
            self._offered = offered
            self.refresh_bindings()

    @cached_property
    def _binding_actions(self) -> list[tuple[Any, str]]:
        """Every action a key of this screen or its board runs, with the node that checks it."""
        nodes: list[Any] = [self] + ([self.board] if self.board is not None else [])
        return [(node, action) for node in nodes
                for action in sorted({b.action.split("(")[0] for b in node.BINDINGS if isinstance(b, Binding)})]

    def prompt_for(self, view: dict[str, Any]) -> Content:
        """What to do now: the table's situation first (watching, sitting out, waiting), then the game's."""
        table = view.get("table") or {}
        me = table.get("seat")
        key = lambda k: Content.styled(k, "bold #ffd75f")  # noqa: E731
        if me is None:
            return Content.styled("You are watching this table.\nl: back to the lobby", "dim")
        if self.away and table.get("state") != "finished":
            return Content.assemble(("You are sitting out:", "bold"), "\nyour seat is played for you.\n",
                                    key("a"), " I'm back")
        if self.in_waiting_room(view):
            if table.get("host_seat") == me:
                invite = (key("i"), " invite a player\n") if self.check_action("invite", ()) else ()
                return Content.assemble("You host this table.\n", *invite, key("b"), " add a bot\n", key("x"),
                                        " remove a bot\n", key("g"), " start the game")
            host = table.get("host_seat")
            who = Content.styled(self.names.get(host, "?"), "bold") if host is not None else Content("the host")
            return Content.assemble("Waiting for ", who, "\nto start the game.")
        if self.pending:
            return Content.styled(f"Sending{self.display_options.ellipsis}", "dim")
        return self.board.prompt_for(view["game"], me) if self.board is not None else Content("")

    # ------------------------------------------------------------ events and chat

    def add_events(self, events: list[dict[str, Any]]) -> None:
        """Things that just happened at the table: the board words them in the log (see :meth:`_show`)."""
        self._show(lambda: self.board.add_events(events, self.query_one("#log", LineLog)) if self.board else None)

    def add_chat(self, seat: int | None, name: str, text: str, ts: int = 0) -> None:
        key = (ts, seat, name, text)
        if ts and key in self._chat_seen:
            return  # the server re-sends the recent chat after a reconnect
        self._chat_seen.add(key)
        if seat is None and name != SERVER_NAME and name not in self.watchers:
            self.watchers.append(name)
        style = "bold #5fd7ff" if seat is not None else "bold #d7afff"
        # A nil seat is a spectator, or the server itself (whose name no player may take).
        who = name if seat is not None or name == SERVER_NAME else f"{name} (watching)"
        line = Content.assemble(Content.styled(who, style), ": ", Content(text))
        self._show(lambda: self._write_chat(line))

    def _write_chat(self, line: Content) -> None:
        self.query_one("#chat", LineLog).write(line)
        for screen in self.app.screen_stack:  # the chat dialog, if open over the table
            add = getattr(screen, "add_line", None)
            if add is not None:
                add(line)

    def chat_lines(self) -> list[Content]:
        """The table's chat so far (what the chat dialog shows first)."""
        return list(self.query_one("#chat", LineLog).lines) if self.is_mounted else []

    def note(self, text: str, style: str = "#ffaf5f") -> None:
        self._show(lambda: self.query_one("#log", LineLog).write(Content.styled(text, style)))

    def _update_deal_mark(self) -> None:
        """The round's deal as this client follows and checks it (docs/FAIRNESS.md), in a few words: whole
        below 100 columns too, where it takes its short form."""
        if self.deal is None:
            return
        text, style = deal_mark(self.deal, wide=self.size.width >= WIDE_MARK, ascii=self.display_options.ascii)
        self._set_static("#deal-mark", Content.styled(text, style))

    def on_resize(self, event: events.Resize) -> None:
        if self.is_mounted and self.view is not None:
            self.update_join_line(event.size)
        if self.deal is not None and self.is_mounted:
            self._update_deal_mark()
        self._fit_top_bar()

    def show_deal(self, status: RoundStatus | None) -> None:
        """Where the round's deal stands (sealing, fixed, checked): the top bar's mark, not the log; a round
        that does not verify is also a loud notification (the app's)."""
        if status is None or (status is self.deal and status.short == self._deal_shown):
            return
        self.deal, self._deal_shown = status, status.short
        self._show(lambda: self._update_info(self.view, self.table) if self.view is not None else None)

    def action_fair(self) -> None:
        """Key f: the fair deal's details."""
        from .fair import FairDealScreen

        app = self.app
        self.app.push_screen(FairDealScreen(self.deal, getattr(app, "key_state", None), getattr(app, "pin_as", None),
                                            dict(self.names), self.me))

    @on(Input.Submitted, "#chat-input")
    def _send_chat(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        if text:
            self.post_message(SendRequest(m.Chat, {"text": text}))
        self.focus_board()

    def on_request_rejected(self, message: RequestRejected) -> None:
        if message.kind is m.Act:
            self.pending = False
            if self.view is not None and self.showing:
                self._apply(self.view)

    # ------------------------------------------------------------ actions

    @property
    def playing(self) -> bool:
        """Seated at a game that is running: leaving or quitting asks first."""
        return self.me is not None and self.table.get("state") == "playing"

    @property
    def away(self) -> bool:
        me = self.me
        return any(m.get("seat") == me and m.get("away") for m in self.table.get("members", ()))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        if action in ("chat", "menu"):  # always (over a panel, which hides the chat line, in a dialog)
            return True
        if self.board is not None and self.board.panel is not None and not self._from_menu:
            return False  # a panel has the keyboard: only its keys (and chat, the menu) act
        return self.table_action_allowed(action)

    def table_action_allowed(self, action: str) -> bool:
        """Whether the table's ``action`` is possible now (its key, when no panel has the keyboard; the menu)."""
        view = self.view or {}
        table = self.table
        host = self.me is not None and table.get("host_seat") == self.me
        if action in ("add_bot", "add_bot_level", "start"):
            return host and self.in_waiting_room(view)
        if action == "remove_bot":
            return host and self.in_waiting_room(view) and any(m.get("bot") for m in table.get("members", []))
        if action == "end_game":
            return host and table.get("state") == "playing"
        if action == "sit_out":
            return self.playing and not self.away
        if action == "come_back":
            return self.playing and self.away
        if action == "copy_join":
            return bool(self.join_commands())
        if action == "invite":
            return host and table.get("state") != "finished" and not getattr(self.app, "practice", False) \
                and "invite" in getattr(self.app, "features", ()) \
                and len(table.get("members", ())) < (table.get("settings") or {}).get("seats", 0)
        if action == "accept_invitation":
            pending = getattr(self.app, "pending_invitation", None)
            return not host and pending is not None and pending() is not None
        return True

    def play(self, action: dict[str, Any]) -> None:
        """Send a game action for our seat; the board's keys wait until the next decision."""
        assert self.board is not None
        self.pending = True
        self._decision = self._awaited(self.view or {})
        self.post_message(PlayAction(action))
        self.update_prompt()
        self._refresh_bindings_if_changed()

    def action_chat(self) -> None:
        """Type in the table's chat line; over a panel (which hides it), in the chat dialog."""
        if self.board is not None and self.board.panel is not None:
            from .chat import open_chat

            open_chat(self.app)
            return
        chat = self.query_one("#chat-input", Input)
        chat.can_focus = True
        self.set_focus(chat)  # at once (focus() waits a turn): the keys typed right after c are the line's

    def action_history(self) -> None:
        from .history import HistoryScreen

        self.app.push_screen(HistoryScreen(self.table_id, self.table.get("name", "")))

    def action_people(self) -> None:
        """The table's people: mute any of them; the host removes one (client.screens.people)."""
        from .people import Person, PeopleScreen

        table = self.table
        me = self.me
        host = me is not None and table.get("host_seat") == me
        people = [Person(mb["name"], f"seat {mb['seat'] + 1}", removable=True)
                  for mb in table.get("members", []) if not mb.get("bot") and mb.get("seat") != me]
        seated = {p.name.casefold() for p in people} | {mb.get("name", "").casefold() for mb in table.get("members", [])
                                                        if mb.get("seat") == me}
        people += [Person(name, "watching", removable=True) for name in self.watchers if name.casefold() not in seated]
        self.app.push_screen(PeopleScreen(people, host))

    def action_invite(self) -> None:
        """Pick a player online (in the lobby or watching) and invite them to this table."""
        from .online import InviteScreen

        def chosen(name: str | None) -> None:
            if name:
                self.run_worker(self._invite(name), group="net", exit_on_error=False)

        self.app.push_screen(InviteScreen(self.table_id), callback=chosen)

    async def _invite(self, name: str) -> None:
        ask = getattr(self.app, "ask", None)
        if ask is not None and await ask(m.Invite, {"name": name}) is not None:
            self.notify(f"Invitation sent to {name}: they have a minute to join.", title="Invitation", timeout=6,
                        markup=False)

    def action_accept_invitation(self) -> None:
        accept = getattr(self.app, "accept_invitation", None)
        if accept is not None:
            accept()

    def action_add_bot(self) -> None:
        self.post_message(SendRequest(m.AddBot))

    def action_add_bot_level(self) -> None:
        """Add a bot of a level the host picks, when the table's game has several (its usual one highlighted)."""
        from engine.games import find_game

        from .dialogs import LevelScreen

        try:
            game = find_game((self.table.get("settings") or {}).get("game", m.DEFAULT_GAME))
        except KeyError:  # a game this client does not know
            game = None
        if game is None or len(game.bot_levels) < 2:  # nothing to pick: the server's usual level
            self.action_add_bot()
            return

        def picked(level: str | None) -> None:
            if level is not None:
                self.post_message(SendRequest(m.AddBot, {"level": level}))

        self.app.push_screen(LevelScreen(game.bot_levels, game.default_bot_level), picked)

    def action_remove_bot(self) -> None:
        bots = [m["seat"] for m in self.table.get("members", []) if m.get("bot")]
        if bots:
            self.post_message(SendRequest(m.RemoveBot, {"seat": bots[-1]}))

    def action_start(self) -> None:
        self.post_message(SendRequest(m.Start))

    def action_end_game(self) -> None:
        from .dialogs import ConfirmScreen

        def done(yes: bool | None) -> None:
            if yes:
                self.post_message(SendRequest(m.EndGame))

        self.app.push_screen(ConfirmScreen("End the game for everyone? Any pot is paid back."), callback=done)

    def action_leave(self) -> None:
        if not self.playing:
            self.post_message(SendRequest(m.Leave))
            return
        self._confirm("Leave the table? Your seat is kept and played for you.", SendRequest(m.Leave))

    def action_sit_out(self) -> None:
        request = SendRequest(m.SitOut, {"away": True})
        if self.board is not None and self.board.between_rounds(self.game):  # nothing is played for us
            self.post_message(request)
            return
        self._confirm("Sit out? The rest of this round is played for you, and you are not dealt in "
                      "until you press a again.", request)

    def action_come_back(self) -> None:
        self.post_message(SendRequest(m.SitOut, {"away": False}))

    def _confirm(self, question: str, request: SendRequest) -> None:
        from .dialogs import ConfirmScreen

        def done(yes: bool | None) -> None:
            if yes:
                self.post_message(request)

        self.app.push_screen(ConfirmScreen(question), callback=done)

    def action_menu(self) -> None:
        from .dialogs import MenuScreen

        entries = [(namespace, binding) for namespace, binding in self.menu_bindings()]

        def done(choice: tuple[Any, str] | None) -> None:
            if choice is not None:
                self.call_after_refresh(self._run_chosen, *choice)

        self.app.push_screen(MenuScreen(entries), callback=done)

    async def _run_chosen(self, namespace: Any, action: str) -> None:
        """Run what the menu chose: also over a panel, whose keyboard lets no table key act."""
        self._from_menu = True
        try:
            await self.app.run_action(action, namespace)
        finally:
            self._from_menu = False

    def action_toggle_bell(self) -> None:
        toggle = getattr(self.app, "action_toggle_bell", None)
        if toggle is not None:
            toggle()

    def action_toggle_notify(self) -> None:
        toggle = getattr(self.app, "action_toggle_notify", None)
        if toggle is not None:
            toggle()

    def menu_bindings(self) -> list[tuple[Any, Binding]]:
        """The menu's entries that are possible now: this screen's table actions, then the app's."""
        mine = {b.action: b for b in self.BINDINGS if isinstance(b, Binding)}
        entries: list[tuple[Any, Binding]] = [(self, mine[a]) for a in self.MENU if self.table_action_allowed(a)]
        app = self.app
        for binding in getattr(app, "MENU_BINDINGS", ()):
            if app.check_action(binding.action, ()) is not False:
                entries.append((app, binding))
        return entries


WIDE_MARK = 100  # columns from which the deal's mark is the whole sentence
SHORT_MARKS = {"verified — your seed included": "✓ your seed", "verified": "✓ verified",
               "verified — server seed only": "server only", "verified — no cards were dealt": "✓ no deal",
               "DEAL NOT VERIFIED": "NOT VERIFIED", "sealing the deal": "sealing", "seeds sealed": "sealing",
               "deal fixed, your seed in": "your seed in", "deal fixed: server seed only": "server seed",
               "deal fixed": "deal fixed"}
"""The mark's short forms, below :data:`WIDE_MARK` columns (key f says it all)."""


def deal_mark(status: RoundStatus, wide: bool = True, ascii: bool = False) -> tuple[str, str]:
    """The top bar's mark for the round's deal and its style: what it proves once checked (quiet when a
    player's seed made the deck, amber when it came from the server's seed alone, loud when it failed)."""
    text = status.short
    style = ("bold #ffffff on #d70000" if text.startswith("DEAL NOT") else
             "#ffd75f" if "server seed only" in text else "dim #87d787" if text.startswith("verified") else "dim")
    if not wide:
        text = SHORT_MARKS.get(text.split(" (")[0], text)
        if status.withheld and status.verdict is not None and status.verdict.ok:
            text += " (withheld)"
    if ascii:
        text = text.replace("✓", "ok").replace("—", "-")
    return (f" {text} ", style)
