"""The table: every seat, the pile, your hand, the log and chat; your turn's keys.

The app sets :attr:`TableScreen.view` (and calls :meth:`add_events` /
:meth:`add_chat`); the screen updates its widgets and opens the decision
screens (cut, showdown arrangement), the reveal and the game over screen when
the view asks for them. What the player chooses goes up as
:class:`~client.messages.PlayAction` / :class:`~client.messages.SendRequest`.
Keys for illegal choices are neither shown nor acted on (``check_action``).
"""

from __future__ import annotations

from typing import Any

from textual import on
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical
from textual.content import Content
from textual.css.query import NoMatches
from textual.reactive import var
from textual.screen import Screen
from textual.widgets import Footer, Input, Static

from protocol.messages import SERVER_NAME

from ..messages import PlayAction, RequestRejected, SendRequest
from ..render import Display, chips, describe_event, result_line, seat_names
from ..widgets.basics import Countdown, LineLog, TooSmall
from ..widgets.table import (DiscardHistory, HandHelper, HandView, PilePanel, Prompt, SeatPanel, SeatState,
                             recommended_throw)

MAX_SEATS = 5
RUNNING = ("cut", "play", "showdown", "waiting")
SIT_OUT = "sit out: played for you, not dealt in; again: back in"


class ChatInput(Input):
    """One line to chat; Enter sends, Escape (not a game action) goes back to the cards."""

    BINDINGS = [Binding("escape", "leave_chat", "Back to cards", show=True,
                        tooltip="back to the cards (Enter sends the line)")]

    def action_leave_chat(self) -> None:
        self.value = ""
        self.screen.focus_hand()  # type: ignore[attr-defined]


class TableScreen(Screen[None]):
    AUTO_FOCUS = "#hand"

    # The tooltip is the longer description the help page and the table menu show.
    BINDINGS = [
        Binding("s", "take_stock", "Stock", tooltip="take the top card of the stock"),
        Binding("d", "take_discard", "Take pile", tooltip="take the top card of the discard pile"),
        Binding("k", "skip", "Skip", tooltip="skip your turn (no take-back rule)"),
        Binding("e", "call_end", "Call end", tooltip="call the end: this is the last orbit (early-call rule)"),
        Binding("left", "move(-1)", "Move", show=False, tooltip="move to the card to throw"),
        Binding("right", "move(1)", "Move", show=False, tooltip="move to the card to throw"),
        Binding("enter", "throw", "Throw", key_display="⏎", tooltip="throw the card picked"),
        *[Binding(str(n), f"pick({n})", f"Pick {n}", show=False, tooltip="pick that card to throw")
          for n in range(1, 9)],
        Binding("b", "add_bot", "Add bot", tooltip="host, before the game: fill an empty seat with a bot"),
        Binding("x", "remove_bot", "Remove bot", tooltip="host, before the game: remove a bot"),
        Binding("g", "start", "Start", tooltip="host: start the game"),
        Binding("r", "sort('rank')", "Sort", key_display="r/u", tooltip="sort your cards by rank (again: as dealt)"),
        Binding("u", "sort('suit')", "Sort by suit", show=False, tooltip="sort your cards by suit"),
        Binding("h", "helper", "Helper", tooltip="hand helper: the best split and its chance to win both"),
        Binding("c", "chat", "Chat", tooltip="chat to the table (Escape goes back to the cards)"),
        Binding("v", "last_showdown", "Last showdown", show=False, tooltip="the last showdown again"),
        Binding("m", "menu", "Menu", tooltip="the table menu: sit out, end the game, leave, quit"),
        Binding("a", "sit_out", "Sit out", show=False, tooltip=SIT_OUT),
        Binding("a", "come_back", "I'm back", tooltip=SIT_OUT),
        Binding("E", "end_game", "End game", show=False, tooltip="host: end the game for everyone (asks first)"),
        Binding("l", "leave", "Leave", show=False, tooltip="leave the table (during a game your seat is kept)"),
        Binding("n", "app.toggle_bell", "Bell", show=False,
                tooltip="your-turn bell and notification off/on (remembered)"),
    ]
    MENU = ("end_game", "sit_out", "come_back", "leave", "app.toggle_bell")  # the menu's entries, with the app's

    view: var[dict[str, Any] | None] = var(None, always_update=True, init=False)

    def __init__(self, table_id: str) -> None:
        super().__init__()
        self.table_id = table_id
        self.legal: dict[str, dict[str, Any]] = {}
        self.names: dict[int, str] = {}
        self.pending = False  # an action is on its way; wait for the next decision
        self.last_showdown: dict[str, Any] | None = None
        self._decision: tuple[Any, ...] | None = None
        self._overlay: Screen[Any] | None = None
        self._overlay_kind: str | None = None
        self._reveal: Screen[Any] | None = None
        self._over: Screen[Any] | None = None
        self._chat_seen: set[tuple[Any, ...]] = set()
        self._log_seeded = False
        self._painted = False
        self._shown: dict[str, Content] = {}
        self._last_event: dict[str, Any] | None = None
        self._offered: tuple[bool, ...] = ()
        self._mine = False  # the last view had a decision of ours (the bell rings when one begins)
        self._binding_actions = sorted({b.action.split("(")[0] for b in self.BINDINGS})  # type: ignore[union-attr]

    @property
    def display_options(self) -> Display:
        return getattr(self.app, "display_options", Display())

    # ------------------------------------------------------------ layout

    def compose(self) -> ComposeResult:
        yield TooSmall()
        with Horizontal(id="topbar"):
            yield Static(id="info", markup=False)
            yield Countdown(id="clock", ascii=self.display_options.ascii)
        with Horizontal(id="seats"):
            for seat in range(MAX_SEATS):
                yield SeatPanel(id=f"seat-{seat}")
        with Horizontal(id="middle"):
            with Vertical(id="pile"):
                yield PilePanel(id="pile-cards")
                yield DiscardHistory(id="discards")
            with Vertical(id="side"):
                yield HandHelper(id="helper")
                yield LineLog(id="log", placeholder="The table's log appears here.")
                yield LineLog(id="chat", placeholder="Chat: press c to talk to the table.")
                yield ChatInput(id="chat-input", placeholder="c: chat", max_length=200)
        with Horizontal(id="bottom"):
            yield HandView(id="hand")
            yield Prompt(id="prompt")
        yield Footer(compact=True)

    def on_mount(self) -> None:
        self.query_one("#chat-input", Input).can_focus = False
        if self.view is not None:
            self._apply(self.view)

    def on_screen_resume(self) -> None:
        self.refresh_bindings()  # keys offered may have changed while another screen was on top

    def watch_view(self, view: dict[str, Any] | None) -> None:
        if view is not None and self.is_mounted:
            try:
                self._apply(view)
            except NoMatches:  # the screen is being torn down (the app is closing)
                pass

    def focus_hand(self) -> None:
        chat = self.query_one("#chat-input", Input)
        chat.can_focus = False
        self.query_one("#hand", HandView).focus()

    # ------------------------------------------------------------ the view

    def _apply(self, view: dict[str, Any]) -> None:
        me = view.get("seat")
        phase = view.get("phase", "lobby")
        table = view.get("table") or {}
        self.names = seat_names(view)
        self.legal = {entry["kind"]: entry for entry in view.get("legal", [])}
        if not self._log_seeded:
            self._seed_log(view)
        if self.pending and self._decision_key(view) != self._decision:
            self.pending = False  # what we sent has been played (or overtaken)

        self._update_info(view, table)
        self._update_seats(view, table, me)
        dealt = phase in ("play", "showdown", "waiting", "over") and view.get("round")
        self.query_one(PilePanel).show((view.get("discard_pile") or [None])[-1] if dealt else None,
                                       view.get("stock_count") if dealt else None)
        self.query_one(DiscardHistory).discards = (
            tuple((d["seat"], d["card"]) for d in view.get("round_discards") or ()) if dealt else ())

        hand = self.query_one(HandView)
        hand.display = me is not None
        hand.cards = tuple(view.get("hand") or ())
        if hand.fresh not in hand.cards:
            hand.fresh = None
        picking = frozenset(self.legal["discard"]["cards"]) if "discard" in self.legal else frozenset()
        helper = self.query_one(HandHelper)
        helper.opponents = max(1, sum(1 for p in view.get("players", []) if p.get("in_round")) - 1)
        helper.cards, helper.allowed = hand.cards, picking
        if picking != hand.picking:
            hand.picking = picking
            hand.picked = self._first_pick(hand, helper, picking) if picking else None

        mine = me is not None and me in (view.get("to_act") or ()) and not self.away
        if mine and not self._mine:
            alert = getattr(self.app, "alert_turn", None)
            if alert is not None:
                alert()
        self._mine = mine
        self._update_clock(view, me)
        self._update_prompt(view, me, table)
        self._refresh_bindings_if_changed()
        self._sync_overlays(view, phase)
        if not self._painted:
            self._painted = True
            callback = getattr(self.app, "table_painted", None)
            if callback is not None:
                self.call_after_refresh(callback)

    @staticmethod
    def _first_pick(hand: HandView, helper: HandHelper, picking: frozenset[str]) -> str | None:
        """Where the cursor starts: the helper's throw when it is shown, else the card just drawn.

        A drawn card that may not be thrown back (no take-back) gets no cursor:
        Enter then throws nothing until the player picks, so no card goes silently.
        """
        if helper.display and len(hand.cards) == 8:
            return recommended_throw(hand.cards, picking)
        return hand.fresh if hand.fresh in picking else None

    def settings_for(self, view: dict[str, Any]) -> dict[str, Any]:
        """The table's settings: in the view once a game runs, else from the lobby list."""
        if view.get("settings"):
            return view["settings"]
        known = getattr(self.app, "table_settings", {})
        return known.get(self.table_id, {})

    def _update_info(self, view: dict[str, Any], table: dict[str, Any]) -> None:
        settings = self.settings_for(view)
        parts: list[Content | str | tuple[str, str]] = [(" ", ""), Content.styled(table.get("name") or "Table", "bold")]
        if table.get("fixed_seed"):  # the operator fixed the shuffle: the deals are predictable
            parts.append(("  UNFAIR: seeded", "bold #ff5f5f"))
        phase = view.get("phase")
        if phase == "lobby":
            if settings.get("ante"):
                parts.append((f"  ante {settings['ante']}, stack {chips(settings.get('stack', 0))}", "dim"))
        else:
            parts.append(f"  Round {view.get('round', 0)}")
            orbit = self._orbit(view, settings)
            if orbit:
                parts.append((orbit, "dim"))
            parts.append(("  Pot ", "dim"))
            parts.append((chips(view.get("pot", 0)), "bold #87d787"))
            if settings.get("ante"):
                parts.append((f"  ante {settings['ante']}", "dim"))
        rules = [label for key, label in (("early_call", "early call"), ("no_take_back", "no take-back")) if settings.get(key)]
        if settings.get("turns") == 7:
            rules.insert(0, "7 turns")
        if rules:
            parts.append(("  " + ", ".join(rules), "dim italic"))
        if table.get("spectators"):
            parts.append((f"  {table['spectators']} watching", "dim"))
        if view.get("seat") is None and phase != "lobby":
            parts.append(("  (watching)", "#ffd75f"))
        self._set_static("#info", Content.assemble(*parts))

    @staticmethod
    def _orbit(view: dict[str, Any], settings: dict[str, Any]) -> str:
        """", turn 4 of 6" while cards are drawn: the orbit the table is on (", last turn" once called)."""
        if view.get("phase") != "play":
            return ""
        taken = [p.get("turns_taken", 0) for p in view.get("players", []) if p.get("in_round")]
        if not taken:
            return ""
        turns = settings.get("turns", 6)
        if view.get("called_by") is not None:
            return ", last turn"
        return f", turn {min(min(taken) + 1, turns)} of {turns}"

    def _update_seats(self, view: dict[str, Any], table: dict[str, Any], me: int | None) -> None:
        phase = view.get("phase")
        players = {p["seat"]: p for p in view.get("players", [])}
        to_act = set(view.get("to_act") or ())
        seats = range(table.get("seats", MAX_SEATS)) if phase == "lobby" else sorted(players)
        shown: dict[int, SeatState] = {}
        for seat in seats:
            p = players.get(seat)
            if p is None:
                shown[seat] = SeatState(seat=seat)
                continue
            shown[seat] = SeatState(
                seat=seat, name=p.get("name", "?"), stack=p.get("stack"), cards=p.get("cards", 0),
                dealer=view.get("dealer") == seat and phase != "lobby",
                cutter=phase == "cut" and view.get("cutter") == seat,
                turn=(phase == "play" and view.get("turn") == seat) or (phase == "cut" and view.get("cutter") == seat),
                me=seat == me, host=table.get("host_seat") == seat, bot=bool(p.get("bot")),
                connected=p.get("connected", True), away=bool(p.get("away")), out=bool(p.get("out")),
                in_round=p.get("in_round", True), submitted=bool(p.get("submitted")),
                deciding=phase == "showdown" and seat in to_act,
            )
        panels = list(self.query(SeatPanel))
        ordered = list(shown.values())
        for i, panel in enumerate(panels):
            panel.state = ordered[i] if i < len(ordered) else None

    def _update_clock(self, view: dict[str, Any], me: int | None) -> None:
        clock = self.query_one(Countdown)
        to_act = view.get("to_act") or []
        deadline = view.get("deadline_ms")
        if deadline is None or not to_act:
            clock.set_deadline(None)
            return
        mine = me in to_act
        if mine:
            label = "You"
        elif len(to_act) == 1:
            label = self.names.get(to_act[0], "")
        else:
            label = "Splits"
        clock.set_deadline(deadline, label[:16], mine)

    def _update_prompt(self, view: dict[str, Any], me: int | None, table: dict[str, Any]) -> None:
        self.query_one(Prompt).show(self.prompt_for(view, me, table))

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
        offered = tuple(bool(self.check_action(action, ())) for action in self._binding_actions)
        if offered != self._offered:
            self._offered = offered
            self.refresh_bindings()

    def prompt_for(self, view: dict[str, Any], me: int | None, table: dict[str, Any]) -> Content:
        phase = view.get("phase")
        legal = self.legal
        d = self.display_options
        name = lambda seat: Content.styled(self.names.get(seat, "?"), "bold")  # noqa: E731
        key = lambda k: Content.styled(k, "bold #ffd75f")  # noqa: E731
        if me is None:
            return Content.styled("You are watching this table.\nl: back to the lobby", "dim")
        if self.away and phase != "over":
            return Content.assemble(("You are sitting out:", "bold"), "\nyour seat is played for you.\n",
                                    key("a"), " I'm back")
        if phase == "lobby":
            if table.get("host_seat") == me:
                return Content.assemble("You host this table.\n", key("b"), " add a bot\n", key("x"),
                                        " remove a bot\n", key("g"), " start the game")
            host = table.get("host_seat")
            return Content.assemble("Waiting for ", name(host) if host is not None else Content("the host"),
                                    "\nto start the game.")
        if self.pending:
            return Content.styled(f"Sending{d.ellipsis}", "dim")
        if phase == "cut":
            if "cut" in legal:
                return Content.styled("Cut the deck.", "bold")
            return Content.assemble(name(view.get("cutter")), " is cutting the deck.")
        if phase == "play":
            if "discard" in legal:
                kept = self._kept_back()
                if kept is not None:
                    return Content.assemble(("Throw (not ", "bold"), d.card(kept), ("):", "bold"), "\n", key("1-8"),
                                            " or ", key(d.arrows), " then ", key(d.enter), ("\nno take-back rule", "dim"))
                return Content.assemble(("Throw a card:", "bold"), "\n", key("1-8"), " or ", key(d.arrows),
                                        " then ", key(d.enter))
            if "take_stock" in legal:
                parts: list[Any] = [("Your turn.", "bold"), "\n", key("s"), " take from stock"]
                if "take_discard" in legal and view.get("discard_pile"):
                    parts += ["\n", key("d"), " take ", d.card(view["discard_pile"][-1])]
                if "skip" in legal:
                    parts += ["\n", key("k"), " skip"]
                if "call_end" in legal:
                    parts += ["\n", key("e"), " call the end"]
                return Content.assemble(*parts)
            turn = view.get("turn")
            return Content.assemble(name(turn), " to play.")
        if phase == "showdown":
            if "split" in legal:
                return Content.styled("Split your cards 4 + 3.", "bold")
            waiting = [self.names.get(s, "?") for s in view.get("to_act") or []]
            return Content.assemble("Showdown: waiting for\n", Content(", ".join(waiting)))
        if phase == "waiting":
            if self.last_showdown is not None:
                return Content.assemble(result_line(self.last_showdown, self.names), "\n",
                                        key("v"), (" see the showdown", "dim"))
            return Content.styled("The next round starts soon.", "dim")
        if phase == "over":
            return Content.styled("The game is over.", "bold")
        return Content("")

    # ------------------------------------------------------------ overlays

    def _sync_overlays(self, view: dict[str, Any], phase: str) -> None:
        from .cut import CutScreen
        from .showdown import ShowdownScreen

        want = "cut" if "cut" in self.legal else "split" if "split" in self.legal else None
        if self._overlay is not None and (self._overlay_kind != want or self.pending):
            self._close(self._overlay)
            self._overlay = self._overlay_kind = None
        if self.legal and self._reveal is not None:
            self._close(self._reveal)
            self._reveal = None
        if want and self._overlay is None and not self.pending:
            if want == "cut":
                cut = self.legal["cut"]
                screen: Screen[Any] = CutScreen(cut.get("min", 4), cut.get("max", 48))
            else:
                others = max(1, len(view.get("to_act") or []) + sum(
                    1 for p in view.get("players", []) if p.get("submitted")) - 1)
                screen = ShowdownScreen(tuple(view.get("hand") or ()), others)
            self._overlay, self._overlay_kind = screen, want
            self.app.push_screen(screen, callback=self._overlay_done)
        if self._overlay is not None:
            self._overlay.set_deadline(view.get("deadline_ms"))  # type: ignore[attr-defined]
        if phase == "over" and self._over is None:
            from .gameover import GameOverScreen

            self._over = GameOverScreen(view)
            self.app.push_screen(self._over)

    def _overlay_done(self, action: dict[str, Any] | None) -> None:
        self._overlay = self._overlay_kind = None
        if action is not None:
            self._play(action)

    def _close(self, screen: Screen[Any]) -> None:
        """Remove ``screen`` (and anything above it) from the stack, without a result."""
        stack = self.app.screen_stack
        if screen not in stack:
            return
        while self.app.screen is not screen:
            self.app.pop_screen()
        self.app.pop_screen()

    def show_reveal(self, showdown: dict[str, Any]) -> None:
        from .showdown import RevealScreen

        if self._reveal is not None:
            self._close(self._reveal)
        if self._overlay is not None:  # a split that timed out: the decision is over, the result stays
            self._close(self._overlay)
            self._overlay = self._overlay_kind = None
        self._reveal = RevealScreen(showdown, dict(self.names), (self.view or {}).get("seat"))
        self.app.push_screen(self._reveal, callback=lambda _: setattr(self, "_reveal", None))

    # ------------------------------------------------------------ events and chat

    def _seed_log(self, view: dict[str, Any]) -> None:
        """A fresh screen (we joined, came back, or the client restarted): start the log with
        the view's recent events of this round, so coming back does not lose the context."""
        self._log_seeded = True
        log = self.query_one("#log", LineLog)
        if log.lines:
            return
        for event in view.get("log") or ():
            line = describe_event(event, self.names, self.display_options, view.get("seat"))
            if line is not None and event.get("kind") != "reveal":
                log.write(line)

    def add_events(self, events: list[dict[str, Any]]) -> None:
        log = self.query_one("#log", LineLog)
        me = (self.view or {}).get("seat")
        hand = self.query_one(HandView)
        for event in events:
            kind = event.get("kind")
            if kind == "reveal":
                continue  # shown together in the reveal screen and the result line
            if event.get("seat") == me and me is not None:
                if kind == "take_stock" and event.get("card"):
                    hand.fresh = event["card"]
                elif kind == "take_discard":
                    hand.fresh = event.get("card")
                elif kind == "discard":
                    hand.fresh = None
            line = describe_event(event, self.names, self.display_options, me)
            if line is None:
                continue
            last = self._last_event
            self._last_event = event
            if kind == "discard" and last is not None and last.get("seat") == event.get("seat") \
                    and last.get("kind") in ("take_stock", "take_discard") and log.lines:
                # One line per turn ("Ann takes from the stock, throws 7♥"): fewer lines to repaint.
                verb = " throw " if event.get("seat") == me else " throws "
                log.replace_last(Content.assemble(log.lines[-1], ",", verb, self.display_options.card(event["card"])))
            else:
                log.write(line)
            if kind == "result":
                self.last_showdown = event
                self.show_reveal(event)
        if hand.picking and hand.picked is None:  # the view came before the news of our draw
            hand.picked = self._first_pick(hand, self.query_one(HandHelper), hand.picking)

    def add_chat(self, seat: int | None, name: str, text: str, ts: int = 0) -> None:
        key = (ts, seat, name, text)
        if ts and key in self._chat_seen:
            return  # the server re-sends the recent chat after a reconnect
        self._chat_seen.add(key)
        style = "bold #5fd7ff" if seat is not None else "bold #d7afff"
        # A nil seat is a spectator, or the server itself (whose name no player may take).
        who = name if seat is not None or name == SERVER_NAME else f"{name} (watching)"
        self.query_one("#chat", LineLog).write(Content.assemble(Content.styled(who, style), ": ", Content(text)))

    def note(self, text: str, style: str = "#ffaf5f") -> None:
        self.query_one("#log", LineLog).write(Content.styled(text, style))

    @on(Input.Submitted, "#chat-input")
    def _send_chat(self, event: Input.Submitted) -> None:
        text = event.value.strip()
        event.input.value = ""
        if text:
            self.post_message(SendRequest("Chat", {"text": text}))
        self.focus_hand()

    def on_request_rejected(self, message: RequestRejected) -> None:
        if message.kind in ("Act",):
            self.pending = False
            if self.view is not None:
                self._apply(self.view)

    # ------------------------------------------------------------ actions

    @property
    def playing(self) -> bool:
        """Seated at a game that is running: leaving or quitting asks first."""
        view = self.view or {}
        return view.get("seat") is not None and view.get("phase") in RUNNING

    @property
    def away(self) -> bool:
        view = self.view or {}
        me = view.get("seat")
        return any(p.get("seat") == me and p.get("away") for p in view.get("players", ()))

    def check_action(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.view or {}
        me = view.get("seat")
        phase = view.get("phase")
        table = view.get("table") or {}
        host = me is not None and table.get("host_seat") == me
        kinds = {"take_stock": "take_stock", "take_discard": "take_discard", "skip": "skip", "call_end": "call_end"}
        if action in kinds:
            return kinds[action] in self.legal and not self.pending
        if action in ("move", "pick", "throw"):
            return "discard" in self.legal and not self.pending
        if action in ("add_bot", "start"):
            return host and phase == "lobby"
        if action == "remove_bot":
            return host and phase == "lobby" and any(p.get("bot") for p in view.get("players", []))
        if action == "end_game":
            return host and phase in RUNNING
        if action in ("sort", "helper"):
            return me is not None and bool(view.get("hand"))
        if action == "last_showdown":
            return self.last_showdown is not None
        if action == "sit_out":
            return self.playing and not self.away
        if action == "come_back":
            return self.playing and self.away
        return True

    def _decision_key(self, view: dict[str, Any]) -> tuple[Any, ...]:
        """Our own pending decision: it changes once the server has played what we sent."""
        return (view.get("round"), view.get("phase"), view.get("turn"), view.get("step"),
                tuple(sorted(entry["kind"] for entry in view.get("legal", []))))

    def _play(self, action: dict[str, Any]) -> None:
        self.pending = True
        self._decision = self._decision_key(self.view or {})
        self.post_message(PlayAction(action))
        if self.view is not None:
            self._update_prompt(self.view, self.view.get("seat"), self.view.get("table") or {})
        self._refresh_bindings_if_changed()

    def action_take_stock(self) -> None:
        self._play({"kind": "take_stock"})

    def action_take_discard(self) -> None:
        self._play({"kind": "take_discard"})

    def action_skip(self) -> None:
        self._play({"kind": "skip"})

    def action_call_end(self) -> None:
        self._play({"kind": "call_end"})

    def _kept_back(self) -> str | None:
        """The card just taken from the pile when the rules forbid throwing it straight back."""
        hand = self.query_one(HandView)
        return hand.fresh if hand.picking and hand.fresh in hand.cards and hand.fresh not in hand.picking else None

    def _say_not_that(self, card: str) -> None:
        self.notify(f"{self.display_options.card_text(card)} came from the pile: the no take-back rule keeps it "
                    "this turn. Pick another card.", title="Not that card", severity="warning", timeout=4)

    def action_pick(self, number: int) -> None:
        hand = self.query_one(HandView)
        shown = hand.shown
        if not 1 <= number <= len(shown):
            return
        if shown[number - 1] in hand.picking:
            hand.picked = shown[number - 1]
        else:
            self._say_not_that(shown[number - 1])

    def action_move(self, step: int) -> None:
        hand = self.query_one(HandView)
        choices = [c for c in hand.shown if c in hand.picking]
        if not choices:
            return
        if hand.picked not in choices:  # no cursor yet: start at the end the arrow points from
            hand.picked = choices[0 if step > 0 else -1]
            return
        hand.picked = choices[(choices.index(hand.picked) + step) % len(choices)]

    def action_throw(self) -> None:
        hand = self.query_one(HandView)
        if hand.picked in hand.picking:
            self._play({"kind": "discard", "card": hand.picked})
            return
        kept = self._kept_back()
        if kept is not None:
            self._say_not_that(kept)
        else:
            self.notify("Pick the card to throw first: 1-8 or the arrows.", severity="warning", timeout=3)

    def action_sort(self, order: str) -> None:
        hand = self.query_one(HandView)
        hand.order = "dealt" if hand.order == order else order
        self.notify(f"Cards sorted by {hand.order if hand.order != 'dealt' else 'the order you got them'}",
                    timeout=1.5)

    def action_helper(self) -> None:
        helper = self.query_one(HandHelper)
        helper.display = not helper.display

    def action_chat(self) -> None:
        chat = self.query_one("#chat-input", Input)
        chat.can_focus = True
        chat.focus()

    def action_last_showdown(self) -> None:
        if self.last_showdown is not None:
            self.show_reveal(self.last_showdown)

    def action_add_bot(self) -> None:
        self.post_message(SendRequest("AddBot"))

    def action_remove_bot(self) -> None:
        bots = [p["seat"] for p in (self.view or {}).get("players", []) if p.get("bot")]
        if bots:
            self.post_message(SendRequest("RemoveBot", {"seat": bots[-1]}))

    def action_start(self) -> None:
        self.post_message(SendRequest("Start"))

    def action_end_game(self) -> None:
        from .dialogs import ConfirmScreen

        def done(yes: bool | None) -> None:
            if yes:
                self.post_message(SendRequest("EndGame"))

        self.app.push_screen(ConfirmScreen("End the game for everyone? Any pot is paid back."), callback=done)

    def action_leave(self) -> None:
        if not self.playing:
            self.post_message(SendRequest("Leave"))
            return
        self._confirm("Leave the table? Your seat is kept and played for you.", SendRequest("Leave"))

    def action_sit_out(self) -> None:
        request = SendRequest("SitOut", {"away": True})
        if (self.view or {}).get("phase") == "waiting":
            self.post_message(request)
            return
        self._confirm("Sit out? The rest of this round is played for you, and you are not dealt in "
                      "until you press a again.", request)

    def action_come_back(self) -> None:
        self.post_message(SendRequest("SitOut", {"away": False}))

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
                self.call_after_refresh(self.app.run_action, choice[1], choice[0])

        self.app.push_screen(MenuScreen(entries), callback=done)

    def menu_bindings(self) -> list[tuple[Any, Binding]]:
        """The menu's entries that are possible now: this screen's table actions, then the app's."""
        mine = {b.action: b for b in self.BINDINGS if isinstance(b, Binding)}
        entries: list[tuple[Any, Binding]] = [(self, mine[a]) for a in self.MENU if self.check_action(a, ())]
        app = self.app
        for binding in getattr(app, "MENU_BINDINGS", ()):
            if app.check_action(binding.action, ()) is not False:
                entries.append((app, binding))
        return entries
