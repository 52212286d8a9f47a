"""Down and Back's board: the pile, the round's discards, your hand, the hand helper; your turn's keys.

The table shell gives it the game's view for us (``game`` of each view push); it draws the game, opens the cut
screen, shows the showdown to arrange and its result as panels in place of the table, opens the game over
screen when the view asks for them, and words the game's events in the shell's log.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any, Mapping

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen

from ...render import chips
from ...widgets.basics import LineLog
from ...widgets.table import SeatState
from ..board import Board, Panel
from .help import RULES
from .widgets import (LEDGER_ROWS, DiscardHistory, HandHelper, HandRankings, HandView, PilePanel, RoundsPlayed,
                      recommended_throw)


class DownAndBackBoard(Board):
    RULES = RULES
    KEY_SCREENS = (
        ("Cutting the deck", "client.screens.cut:CutScreen"),
        ("Arranging the showdown", "client.games.down_and_back.showdown:SplitPanel"),
        ("The showdown's result", "client.games.down_and_back.showdown:RevealPanel"),
    )
    DECIDING_TOGETHER = "Splits"
    # Its layout: the pile and the round's discards beside the log (the hand helper above it), the hand beside
    # the prompt; the showdown's arrangement and its result in place of the table. From 120x36 up: the cards
    # larger (the hand and the pile draw 9x7 cards in the room they get, the showdown's arrangement its two
    # hands), the hand's row across the whole width under the pile, the log and the side panel.
    BOARD_CSS = """
    DownAndBackBoard #pile { width: 26; padding: 0 1; border-right: vkey $panel-lighten-2; }
    DownAndBackBoard #pile-cards { height: 6; }
    DownAndBackBoard #discards { height: 1fr; }
    DownAndBackBoard #side { width: 1fr; padding: 0 0 0 1; }
    DownAndBackBoard #helper { display: none; height: auto; border-bottom: hkey $panel-lighten-2; }
    DownAndBackBoard #hand { width: 57; }
    .-ascii DownAndBackBoard #pile { border-right: ascii $panel-lighten-2; }
    .-ascii DownAndBackBoard #helper { border-bottom: ascii $panel-lighten-2; }

    DownAndBackBoard #showdown-title { height: 1; }
    DownAndBackBoard #split { height: auto; margin-top: 1; }
    DownAndBackBoard #showdown-help { height: auto; margin-top: 1; }
    /* a line saying why a suit rule named a hand takes the spacing's room: the panel still fits 80x24 */
    DownAndBackBoard SplitPanel.-noted #split, DownAndBackBoard SplitPanel.-noted #showdown-help { margin-top: 0; }
    DownAndBackBoard #reveal { width: 78; max-height: 22; }

    .-large DownAndBackBoard #pile-cards { height: 9; }
    .-large DownAndBackBoard #bottom { height: 8; }
    .-large DownAndBackBoard #hand { width: 81; height: 8; }
    .-large DownAndBackBoard #prompt { height: 8; }
    """

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
        Binding("r", "sort('rank')", "Sort", key_display="r/u", tooltip="sort your cards by rank (again: as dealt)"),
        Binding("u", "sort('suit')", "Sort by suit", show=False, tooltip="sort your cards by suit"),
        Binding("h", "helper", "Helper", tooltip="hand helper: the best split and its chance to win both"),
        Binding("v", "last_showdown", "Last showdown", show=False, tooltip="the last showdown again"),
    ]

    def __init__(self, game: str, talk: Any, prompt: Any) -> None:
        super().__init__(game, talk, prompt)
        self.view: dict[str, Any] = {}
        self.last_showdown: dict[str, Any] | None = None
        self._cut: Screen[Any] | None = None
        self._split: Panel | None = None
        self._over: Screen[Any] | None = None
        self._last_event: dict[str, Any] | None = None
        self.rounds = RoundsPlayed(id="rounds")  # the side panel's scores: each round's result

    @staticmethod
    def warm_up() -> None:
        """Build the hand helper's tables (~0.4 s) and then its win-both meter's pool (~1.3 s) in a thread once the
        table is up, not on the first ``h``; until the pool is built the helper shows the calibrated first guess."""
        from engine.games.down_and_back import meter, tables

        tables.warm_up()
        meter.warm_up()

    def side_sections(self) -> list[Any]:
        return [HandRankings(id="rankings"), self.rounds]

    HISTORY_ROUNDS = LEDGER_ROWS
    ROUND_PHASES = frozenset({"cut", "play", "showdown"})  # docs/games/down-and-back.md 4, phase

    def seed_scores(self, rounds: list[dict[str, Any]]) -> None:
        for record in rounds:  # a round record has the result event's fields (docs/games/down-and-back.md 6)
            self.rounds.add(record)

    def compose(self) -> ComposeResult:
        yield from self.table_layout(Vertical(PilePanel(id="pile-cards"), DiscardHistory(id="discards"), id="pile"),
                                     Vertical(HandHelper(id="helper"), id="side"),
                                     HandView(id="hand", classes="board-focus"))

    def _parts(self, event: Mapping[str, Any]) -> list[Any] | None:
        """An event's wording for the log, or ``None``: a reveal shows in the reveal screen, and
        another seat's deal (its cards hidden from us) says nothing."""
        if event.get("kind") == "reveal" or (event.get("kind") == "deal" and not event.get("hand")):
            return None
        return self.shell.describe(event)

    def _outcome(self, result: Mapping[str, Any]) -> Content:
        """The showdown's last words, who takes the pot or that it carries (the prompt's and the
        reveal's last line: the reveal shows who won each comparison already)."""
        parts = self.shell.describe(result) or []
        last = max((i for i, part in enumerate(parts) if part == {"text": "; "}), default=-1)
        outcome = [dict(part) for part in parts[last + 1:]]
        if outcome and "text" in outcome[0]:
            outcome[0]["text"] = outcome[0]["text"][:1].upper() + outcome[0]["text"][1:]
        return self.shell.styled(outcome)

    def _play(self, action: dict[str, Any]) -> None:
        self.shell.play(action)

    # ------------------------------------------------------------ the view

    def show(self, game: dict[str, Any] | None) -> None:
        view = self.view = game or {}
        me = self.shell.me
        phase = view.get("phase")
        self.can_focus = me is None  # a spectator's keys (v) work with the board focused
        self.legal = {entry["kind"]: entry for entry in view.get("legal", [])}
        dealt = phase in ("play", "showdown", "waiting", "over") and view.get("round")
        self.query_one(PilePanel).show((view.get("discard_pile") or [None])[-1] if dealt else None,
                                       view.get("stock_count") if dealt else None)
        self.query_one(DiscardHistory).discards = (
            tuple((d["seat"], d["card"]) for d in view.get("round_discards") or ()) if dealt else ())

        self.rounds.show_names(self.shell.names, me)
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

    def open_screens(self, game: dict[str, Any] | None) -> None:
        """Open or close the decision screens (cut, split), the reveal and the game over screen."""
        self._sync_overlays(game or {}, (game or {}).get("phase"))

    def names(self, game: Mapping[str, Any] | None) -> dict[int, str]:
        return {p["seat"]: p["name"] for p in (game or {}).get("players", [])}

    @staticmethod
    def _first_pick(hand: HandView, helper: HandHelper, picking: frozenset[str]) -> str | None:
        """Where the cursor starts: the helper's throw when it is shown, else the card just drawn.

        A drawn card that may not be thrown back (no take-back) gets no cursor:
        Enter then throws nothing until the player picks, so no card goes silently.
        """
        if helper.display and len(hand.cards) == 8:
            return recommended_throw(hand.cards, picking)
        return hand.fresh if hand.fresh in picking else None

    def info(self, game: Mapping[str, Any] | None, settings: Mapping[str, Any]) -> list[Any]:
        parts: list[Any] = []
        view = game or {}
        if game is None:
            if settings.get("ante"):
                parts.append((f"  ante {settings['ante']}, stack {chips(settings.get('stack', 0))}", "dim"))
        else:
            parts.append(f"  Round {view.get('round', 0)}")
            parts.append(Content.assemble(("  Pot ", "dim"), (chips(view.get("pot", 0)), "bold #87d787")))
            orbit = self._orbit(view, settings)  # after the pot: a narrow top bar leaves it out before the pot
            if orbit:
                parts.append((orbit, "dim"))
            if settings.get("ante"):
                parts.append((f"  ante {settings['ante']}", "dim"))
        rules = [label for key, label in (("early_call", "early call"), ("no_take_back", "no take-back"))
                 if settings.get(key)]
        if settings.get("turns") == 7:
            rules.insert(0, "7 turns")
        if rules:
            parts.append(("  " + ", ".join(rules), "dim italic"))
        return parts

    @staticmethod
    def _orbit(view: Mapping[str, Any], settings: Mapping[str, Any]) -> str:
        """"  turn 4 of 6" while cards are drawn: the orbit the table is on ("  last turn" once called)."""
        if view.get("phase") != "play":
            return ""
        taken = [p.get("turns_taken", 0) for p in view.get("players", []) if p.get("in_round")]
        if not taken:
            return ""
        turns = settings.get("turns", 6)
        if view.get("called_by") is not None:
            return "  last turn"
        return f"  turn {min(min(taken) + 1, turns)} of {turns}"

    def seat_states(self, game: Mapping[str, Any] | None, base: dict[int, SeatState]) -> list[SeatState]:
        if game is None:  # before the game: the chips each player brings
            stack = self.shell.rules.get("stack")
            return [replace(state, stack=stack) if state.name is not None else state for state in base.values()]
        view = game
        phase = view.get("phase")
        to_act = set(view.get("to_act") or ())
        return self.seats_from(base, {p["seat"]: p for p in view.get("players", [])}, lambda state, p: replace(
            state, stack=p.get("stack"), cards=p.get("cards", 0),
            dealer=view.get("dealer") == state.seat,
            turn=(phase == "play" and view.get("turn") == state.seat)
            or (phase == "cut" and view.get("cutter") == state.seat),
            out=bool(p.get("out")), in_round=p.get("in_round", True),
            decided="split in" if p.get("submitted") else "",
            deciding="splitting" if phase == "showdown" and state.seat in to_act else "",
        ))

    def prompt_for(self, game: Mapping[str, Any] | None, me: int) -> Content:
        view = game or {}
        phase = view.get("phase")
        legal = self.legal
        d, names, key = self.display_options, self.shell.names, self.key
        if phase == "cut":
            if "cut" in legal:
                return Content.styled("Cut the deck.", "bold")
            return self.about(view.get("cutter"), " {is} cutting the deck.")
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
            return self.about(view.get("turn"), " to play.")
        if phase == "showdown":
            if "split" in legal:
                return Content.styled("Split your cards 4 + 3.", "bold")
            waiting = [names.get(s, "?") for s in view.get("to_act") or []]
            return Content.assemble("Showdown: waiting for\n", Content(", ".join(waiting)))
        if phase == "waiting":
            if self.last_showdown is not None:
                return Content.assemble(self._outcome(self.last_showdown), "\n", key("v"), (" see the showdown", "dim"))
            return Content.styled("The next round starts soon.", "dim")
        if phase == "over":
            return Content.styled("The game is over.", "bold")
        return Content("")

    # ------------------------------------------------------------ overlays

    def _sync_overlays(self, view: dict[str, Any], phase: str | None) -> None:
        from ...screens.cut import CutScreen
        from .showdown import RevealPanel, SplitPanel

        cutting, splitting = "cut" in self.legal and not self.pending, "split" in self.legal and not self.pending
        if self._cut is not None and not cutting:
            self.close(self._cut)
            self._cut = None
        if self._split is not None and not splitting:
            self.close_panel(self._split)
        if self.legal and isinstance(self.panel, RevealPanel):  # our next decision: the result has been seen
            self.close_panel(self.panel)
        if cutting and self._cut is None:
            cut = self.legal["cut"]
            self._cut = CutScreen(cut["min"], cut["max"])
            self.push(self._cut, self._cut_done)
        if self._cut is not None:
            self._cut.set_deadline(self.shell.deadline_ms)  # type: ignore[attr-defined]
        if splitting and self._split is None:
            others = max(1, len(view.get("to_act") or []) + sum(
                1 for p in view.get("players", []) if p.get("submitted")) - 1)
            self._split = SplitPanel(tuple(view.get("hand") or ()), others)
            self.open_panel(self._split, self._split_done)
        if phase == "over" and self._over is None:
            from ...screens.gameover import GameOverScreen

            self._over = GameOverScreen({**view, "chip_history": self.shell.table.get("chip_history")})
            self.push(self._over)

    def _cut_done(self, action: dict[str, Any] | None) -> None:
        self._cut = None
        if action is not None:
            self._play(action)

    def _split_done(self, action: dict[str, Any] | None) -> None:
        self._split = None
        if action is not None:
            self._play(action)

    def show_reveal(self, showdown: dict[str, Any]) -> None:
        """The showdown's result in place of the table (a split that timed out is over: its panel goes)."""
        from .showdown import RevealPanel

        self.open_panel(RevealPanel(showdown, dict(self.shell.names), self.shell.me, self._outcome(showdown)))

    # ------------------------------------------------------------ events

    def seed_log(self, game: Mapping[str, Any], log: LineLog) -> None:
        """A fresh screen (we joined, came back, or the client restarted): start the log with
        the view's recent events of this round, so coming back does not lose the context."""
        for event in game.get("log") or ():
            parts = self._parts(event)
            if parts is not None:
                log.write(self.shell.styled(parts))

    def add_events(self, events: list[dict[str, Any]], log: LineLog) -> None:
        me = self.shell.me
        hand = self.query_one(HandView)
        for event in events:
            kind = event.get("kind")
            if event.get("seat") == me and me is not None:
                if kind == "take_stock" and event.get("card"):
                    hand.fresh = event["card"]
                elif kind == "take_discard":
                    hand.fresh = event.get("card")
                elif kind == "discard":
                    hand.fresh = None
            parts = self._parts(event)
            if parts is None:
                continue
            last = self._last_event
            self._last_event = event
            if kind == "discard" and last is not None and last.get("seat") == event.get("seat") \
                    and last.get("kind") in ("take_stock", "take_discard") and log.lines:
                # One line per turn ("Ann takes a card from the stock, discards 7♥"): fewer lines to repaint.
                rest = self.shell.styled(parts[1:])  # its words agree with the seat ("You take ..., discard")
                log.replace_last(Content.assemble(log.lines[-1], ",", rest))
            else:
                log.write(self.shell.styled(parts))
            if kind == "result":
                self.last_showdown = event
                self.rounds.add(event)
                self.show_reveal(event)
        if hand.picking and hand.picked is None:  # the view came before the news of our draw
            hand.picked = self._first_pick(hand, self.query_one(HandHelper), hand.picking)

    # ------------------------------------------------------------ keys

    def game_action_allowed(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        view = self.view
        kinds = {"take_stock": "take_stock", "take_discard": "take_discard", "skip": "skip", "call_end": "call_end"}
        if action in kinds:
            return kinds[action] in self.legal and not self.pending
        if action in ("move", "pick", "throw"):
            return "discard" in self.legal and not self.pending
        if action in ("sort", "helper"):
            return self.shell.me is not None and bool(view.get("hand"))
        if action == "last_showdown":
            return self.last_showdown is not None
        return True

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

    def action_last_showdown(self) -> None:
        if self.last_showdown is not None:
            self.show_reveal(self.last_showdown)


BOARD = DownAndBackBoard  # what client.games finds for "down-and-back" tables
