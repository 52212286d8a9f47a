"""Cribbage's board: the pegboard, the play with its count, the starter and the crib, your hand, the helper.

The table shell gives it the game's view for us (``game`` of each view push);
it draws the game, opens the cut, shows the show (item by item) and the game's end as a panel in place of
its table when the view asks for them, and words the game's events in the shell's log.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Any, Mapping

from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.content import Content
from textual.screen import Screen

from engine.contract import possessive

from ...render import chips
from ...widgets.basics import LineLog
from ...widgets.table import SeatState
from ..board import Board
from .help import RULES
from .widgets import CribHand, DealsPlayed, HandHelper, PegBoard, PlayPanel, PlayTable, ScoringTable, Side

if TYPE_CHECKING:
    from .screens import GameEndPanel, ShowPanel

CUT_WORDS = {  # what each cut is for: the cut dialog's title and note
    "draw": ("Cut for the first deal", "The lowest card deals."),
    "cut": ("Cut the pack", "The dealer deals from it."),
    "starter": ("Cut for the starter", "The top card of the lower part is turned up."),
}
PHASE_WORDS = {"draw": "the draw", "cut": "the cut", "discard": "laying away", "starter": "the starter",
               "play": "the play", "show": "the show", "waiting": "between deals", "over": "over"}


class CribbageBoard(Board):
    RULES = RULES
    KEY_SCREENS = (
        ("Cutting the pack", "client.screens.cut:CutScreen"),
        ("The show", "client.games.cribbage.screens:ShowPanel"),
        ("A game's end", "client.games.cribbage.screens:GameEndPanel"),
    )
    DECIDING_TOGETHER = "Laying away"
    # Its layout: the pegboard over the hand helper beside the play (its count, the starter, the crib) and the
    # log, the hand beside the prompt; the show and a game's end in place of the table. From 120x36 up: the
    # play as large cards under the pegboard (in place of the play's lines above the log), the hand's cards
    # larger, and the side panel beside the log.
    BOARD_CSS = f"""
    CribbageBoard #crib-left {{ width: 59; padding: 0 1; }}
    CribbageBoard #pegboard {{ height: auto; }}
    CribbageBoard #crib-helper {{ height: 1fr; border-top: hkey $panel-lighten-2; }}
    CribbageBoard #crib-side {{ width: 1fr; padding: 0 0 0 1; }}
    CribbageBoard #play {{ height: auto; border-bottom: hkey $panel-lighten-2; }}
    CribbageBoard #hand {{ width: 57; }}
    CribbageBoard #play-table {{ display: none; height: auto; }}
    CribbageBoard #show {{ width: 70; max-height: 22; }}

    .-large CribbageBoard #play {{ display: none; }}
    .-large CribbageBoard #play-table {{ display: block; height: {PlayTable.HEIGHT}; margin-top: 1; }}
    .-large CribbageBoard #bottom {{ height: 8; }}
    .-large CribbageBoard #hand {{ width: 61; height: 8; }}
    .-large CribbageBoard #prompt {{ height: 8; }}
    """

    # The tooltip is the longer description the help page and the table menu show.
    BINDINGS = [
        Binding("left", "move(-1)", "Move", show=False, tooltip="move to a card"),
        Binding("right", "move(1)", "Move", show=False, tooltip="move to a card"),
        *[Binding(str(n), f"pick({n})", f"Pick {n}", show=False, tooltip="pick that card (to lay away: again, not)")
          for n in range(1, 7)],
        Binding("space", "toggle", "Choose", tooltip="lay away: choose the card under the cursor for the crib, or not"),
        Binding("enter", "lay_away", "Lay away", key_display="⏎", tooltip="lay the chosen cards away to the crib"),
        Binding("enter", "play_card", "Play", key_display="⏎", tooltip="play the card picked"),
        Binding("plus", "claim_more", "+1", key_display="+", tooltip="muggins: claim one point more"),
        Binding("minus", "claim_less", "-1", key_display="-", tooltip="muggins: claim one point less"),
        Binding("enter", "claim", "Claim", key_display="⏎", tooltip="muggins: claim the count shown"),
        Binding("y", "muggins(True)", "Take", tooltip="muggins: take the points the claim missed"),
        Binding("n", "muggins(False)", "Let go", tooltip="muggins: let the points the claim missed go"),
        Binding("h", "helper", "Helper", tooltip="hand helper: the expected points of each way to lay away"),
        Binding("v", "last_show", "Show", tooltip="this deal's show again, item by item"),
    ]

    def __init__(self, game: str, talk: Any, prompt: Any) -> None:
        super().__init__(game, talk, prompt)
        self.view: dict[str, Any] = {}
        self.claim_points = 0
        self._cut: Screen[Any] | None = None
        self._shown_result: Any = None
        self._over: Screen[Any] | None = None
        self.deals = DealsPlayed(id="deals")  # the side panel's scores: each side's points in each deal

    def compose(self) -> ComposeResult:
        yield from self.table_layout(Vertical(PegBoard(id="pegboard"), PlayTable(id="play-table"),
                                              HandHelper(id="crib-helper"), id="crib-left"),
                                     Vertical(PlayPanel(id="play"), id="crib-side"),
                                     CribHand(id="hand", classes="board-focus"))

    def side_sections(self) -> list[Any]:
        return [ScoringTable(id="scoring"), self.deals]

    HISTORY_ROUNDS = 10  # a game's deals, most of them: their points are told from the scores after each
    ROUND_PHASES = frozenset({"draw", "cut", "discard", "starter", "play", "show"})  # docs/games/cribbage.md 4, phase

    def seed_scores(self, rounds: list[dict[str, Any]]) -> None:
        sides = self.view.get("sides") or []
        names = self._side_names(sides)
        for record in rounds:  # docs/games/cribbage.md 6: each deal's scores by side, a game's end
            scores, game, deal = record.get("scores"), record.get("game"), record.get("deal")
            if record.get("abandoned") or not isinstance(scores, list) or not isinstance(game, int) \
                    or not isinstance(deal, int) or len(scores) != len(sides):
                continue
            self.deals.record(names, game, deal, scores, current=False)
            if record.get("won"):
                self._game_won(record["won"], sides)

    # ------------------------------------------------------------ the view

    def names(self, game: Mapping[str, Any] | None) -> dict[int, str]:
        return {s["seat"]: s["name"] for s in (game or {}).get("seats", [])}

    def side_name(self, side: Mapping[str, Any]) -> str:
        return " & ".join(self.shell.names.get(s, "?") for s in side.get("seats", ()))

    def show(self, game: dict[str, Any] | None) -> None:
        view = self.view = game or {}
        me = self.shell.me
        self.can_focus = me is None
        legal = self.legal = {entry["kind"]: entry for entry in view.get("legal", [])}
        phase = view.get("phase")
        self.query_one(PegBoard).show(
            [Side(self.side_name(side), side.get("score", 0), side.get("back", 0), me in side.get("seats", ()))
             for side in view.get("sides", [])], view.get("target", 121))
        crib = view.get("crib") or {}
        owner = crib.get("owner")
        owner_name = None if owner is None or not view.get("round") else self.said([possessive(owner)]).plain
        went = ("go: " + ", ".join(self.shell.names.get(s, "?") for s in view.get("said_go") or ())
                if view.get("said_go") else "")
        count = view.get("count") if phase == "play" else None
        series = view.get("series") or ()
        self.query_one(PlayPanel).show(count, [entry["card"] for entry in series], view.get("starter"), owner_name,
                                       crib.get("cards", 0), went)
        self.query_one(PlayTable).show(count, [(self._who(entry.get("seat")), entry["card"]) for entry in series],
                                       view.get("starter"), owner_name, crib.get("cards", 0), went)
        self._record_deal(view)
        hand = self.query_one(CribHand)
        hand.display = me is not None
        counting = view.get("counting") or {}
        hand.cards = tuple(view.get("hand") or counting.get("cards") or self._counted_hand(view, me))
        allowed = frozenset(legal["discard"]["cards"]) if "discard" in legal else (
            frozenset(legal["play"]["cards"]) if "play" in legal else frozenset())
        if allowed != hand.allowed:
            hand.allowed = allowed
            hand.chosen = frozenset()
            hand.cursor = next((c for c in hand.shown if c in allowed), None)
        if "discard" in legal:
            self.query_one(HandHelper).show(view.get("hand") or (), self._own_crib(view))
        else:
            counted = (view.get("show") or [None])[-1]
            self.query_one(HandHelper).show((), False, counted, self.shell.names, self.shell.me)
        if "claim" not in legal:
            self.claim_points = 0

    def _who(self, seat: int | None) -> str:
        return "You" if seat is not None and seat == self.shell.me else self.shell.names.get(seat, "?")

    def _record_deal(self, view: Mapping[str, Any]) -> None:
        """The side panel's deals: this deal's scores as they stand, and the last game's end."""
        sides = view.get("sides") or []
        if not sides or not view.get("round"):
            return
        self.deals.record(self._side_names(sides), view.get("game", 1), view.get("deal", 1),
                          [side.get("score", 0) for side in sides])
        if view.get("result"):
            self._game_won(view["result"], sides)

    def _side_names(self, sides: list[dict[str, Any]]) -> list[tuple[str, bool]]:
        me = self.shell.me
        return [(self.side_name(side), me in side.get("seats", ())) for side in sides]

    def _game_won(self, result: Mapping[str, Any], sides: list[dict[str, Any]]) -> None:
        """A game's end (the ``game_won`` event's fields) in the side panel's deals: its score, who won."""
        if not isinstance(result.get("game"), int):
            return
        winners = [i for i, side in enumerate(sides) if set(side.get("seats", ())) & set(result.get("winners", ()))]
        self.deals.game_won(result["game"], result.get("scores") or [], winners)

    @staticmethod
    def _counted_hand(view: Mapping[str, Any], me: int | None) -> list[str]:
        """Once our cards are all played: our hand as the show counted it (the play has taken them)."""
        return next((counted["cards"] for counted in view.get("show") or ()
                     if counted.get("seat") == me and counted.get("what") == "hand"), [])

    @staticmethod
    def _own_crib(view: Mapping[str, Any]) -> bool:
        me = view.get("seat")
        dealer = view.get("dealer")
        return any(me in side["seats"] and dealer in side["seats"] for side in view.get("sides", []))

    def info(self, game: Mapping[str, Any] | None, rules: Mapping[str, Any]) -> list[Any]:
        # Where the game stands first, the rules after it: a narrow top bar leaves out the rules that do not fit
        # whole (they are in the lobby's note and the help too); the fair deal's mark beside it is never cut.
        parts: list[Any] = []
        if game is not None and game.get("round"):
            parts.append(f"  Game {game.get('game', 1)} deal {game.get('deal', 1)}")
            parts.append((f": {PHASE_WORDS.get(game.get('phase', ''), '')}", "dim"))
        parts.append((f"  to {rules.get('target', 121)}, stake {chips(rules.get('stake', 100))}", "dim"))
        house = [name for name in ("skunks", "muggins") if rules.get(name)]
        if house:
            parts.append((", " + ", ".join(house), "dim italic"))
        return parts

    def seat_states(self, game: Mapping[str, Any] | None, base: dict[int, SeatState]) -> list[SeatState]:
        if game is None:
            return list(base.values())
        held = game.get("cards_held") or {}
        to_act = set(game.get("to_act") or ())
        phase = game.get("phase")
        return self.seats_from(base, {s["seat"]: s for s in game.get("seats", [])}, lambda state, s: replace(
            state, stack=s.get("stack", 0) + s.get("staked", 0), at_risk=s.get("staked", 0),
            cards=held.get(str(state.seat), 0),
            dealer=game.get("dealer") == state.seat,
            turn=(phase == "play" and game.get("turn") == state.seat) or game.get("cutter") == state.seat,
            decided="laid away" if phase == "discard" and state.seat not in to_act else "",
            deciding="laying away" if phase == "discard" and state.seat in to_act else "",
        ))

    def prompt_for(self, game: Mapping[str, Any] | None, me: int) -> Content:
        view = game or {}
        phase = view.get("phase")
        legal = self.legal
        d, key = self.display_options, self.key
        held = f"1-{len(self.query_one(CribHand).shown)}"  # the cards' numbers: only those held
        if "cut" in legal:
            return Content.styled(CUT_WORDS.get(phase or "", CUT_WORDS["cut"])[0] + ".", "bold")
        if "discard" in legal:
            count = legal["discard"]["count"]
            chosen = len(self.query_one(CribHand).chosen)
            # Short lines (the prompt is 20 columns at 80x24): the crib's owner is named in the play panel.
            whose = "your" if view.get("dealer") == me else "the dealer's"
            return Content.assemble((f"Lay away {count}: {chosen} chosen", "bold"), f"\nto {whose} crib\n",
                                    key(held), " or ", key(d.arrows), "+", key("space"), ", then ", key(d.enter),
                                    "\n", key("h"), " helper")
        if "play" in legal:
            return Content.assemble((f"Your turn, count {view.get('count', 0)}.", "bold"), "\nPlay: ", key(held),
                                    " or ", key(d.arrows), " then ", key(d.enter))
        if "claim" in legal:
            counting = view.get("counting") or {}
            return Content.assemble((f"Claim your {counting.get('what', 'hand')}: ", "bold"),
                                    (str(self.claim_points), "bold #ffd75f"), "\n", key("+"), "/", key("-"),
                                    " then ", key(d.enter))
        if "muggins" in legal:
            counting = view.get("counting") or {}
            return Content.assemble(self.said([possessive(counting.get("seat")),
                                                {"text": f" {counting.get('what', 'hand')}: short!"}]), "\n",
                                    key("y"), " take the points\n", key("n"), " let them go")
        if phase in ("draw", "cut", "starter") and view.get("cutter") is not None:
            return self.about(view["cutter"], " {is} cutting.")
        if phase == "discard":
            return Content.assemble("Waiting for ", Content(", ".join(self.shell.names.get(s, "?")
                                                                      for s in view.get("to_act") or ())),
                                    "\nto lay away.")
        if phase == "play":
            return self.about(view.get("turn"), f" to play, count {view.get('count', 0)}.")
        if phase == "show":
            return Content.styled("The show: counting.", "dim")
        if phase == "waiting":
            lines: list[Any] = [Content.styled("The next deal starts soon.", "dim")]
            if view.get("result"):
                lines = self._result_rows(view)[:1] + lines
            if view.get("show"):
                lines += [Content.assemble(key("v"), (" the show again", "dim"))]
            return Content("\n").join(lines)
        if phase == "over":
            return Content.styled("The game is over.", "bold")
        return Content("")

    # ------------------------------------------------------------ overlays

    def open_screens(self, game: dict[str, Any] | None) -> None:
        """Open or close the cut, keep the show up to date, open the game's end and the table's game over."""
        from ...screens.cut import CutScreen

        view = game or {}
        if self._cut is not None and ("cut" not in self.legal or self.pending):
            self.close(self._cut)
            self._cut = None
        show = self._show_panel()
        if self.legal and show is not None:  # our next decision: the show is over
            self.close_panel(show)
            show = None
        if show is not None and not view.get("show") and not view.get("result"):  # the next game's start:
            self.close_panel(show)  # nothing of the show is left to show (it was an empty "The show")
            show = None
        end = self._end_panel()
        if end is not None and (self.legal or view.get("phase") == "over"):  # our first decision of the next
            self.close_panel(end)  # game (or the table's over: its own screen says it all)
        if "cut" in self.legal and self._cut is None and not self.pending:
            cut = self.legal["cut"]
            title, note = CUT_WORDS.get(view.get("phase", ""), CUT_WORDS["cut"])
            self._cut = CutScreen(cut["min"], cut["max"], title, "pack", note)
            self.push(self._cut, self._cut_done)
        if self._cut is not None:
            self._cut.set_deadline(self.shell.deadline_ms)  # type: ignore[attr-defined]
        if show is not None:
            show.update(view.get("show") or [], self._result_rows(view))
        if view.get("phase") == "over" and self._over is None:
            from .screens import CribbageOverScreen

            if show is not None:
                self.close_panel(show)
            self._over = CribbageOverScreen({**view, "chip_history": self.shell.table.get("chip_history")},
                                            self.shell.names)
            self.push(self._over)
        elif view.get("result") and view.get("result") != self._shown_result and view.get("phase") == "waiting":
            self._shown_result = view["result"]
            self.open_game_end(view)

    def open_game_end(self, view: Mapping[str, Any]) -> None:
        """A game won at a table that plays on: its end, as a moment (the standings, the skunk, the chips and
        what to do next), in place of the show (``v`` shows it)."""
        from .screens import GameEndPanel

        if self._cut is not None:
            return  # (a cut of ours is up: it is our decision, the end has passed)
        host = self.shell.table.get("host_seat") == self.shell.me and self.shell.me is not None
        self.open_panel(GameEndPanel(view, self.shell.names, self.shell.me, host))

    def _end_panel(self) -> "GameEndPanel | None":
        from .screens import GameEndPanel

        return self.panel if isinstance(self.panel, GameEndPanel) else None

    def _result_rows(self, view: Mapping[str, Any]) -> list[Content]:
        from .screens import result_rows

        return result_rows(view["result"], view.get("sides") or [], self.shell.names, self.shell.me,
                           self.display_options) if view.get("result") else []

    def _cut_done(self, action: dict[str, Any] | None) -> None:
        self._cut = None
        if action is not None:
            self.shell.play(action)

    def open_show(self, asked: bool = False) -> None:
        """The show of this deal (and the game's end, if it ended), item by item; over a game's end only
        when ``asked`` (``v``), not as the show's last counts come in."""
        from .screens import ShowPanel

        if self._end_panel() is not None and not asked:
            return
        show = self._show_panel()
        if show is not None:
            show.update(self.view.get("show") or [], self._result_rows(self.view))
            return
        if self._cut is not None:
            return  # the cut is up: the show waits for v
        self.open_panel(ShowPanel(self.view.get("show") or [], self.shell.names, self._result_rows(self.view),
                                  self.shell.me))

    def _show_panel(self) -> "ShowPanel | None":
        """The show's panel, if it is shown."""
        from .screens import ShowPanel

        return self.panel if isinstance(self.panel, ShowPanel) else None

    # ------------------------------------------------------------ events

    def seed_log(self, game: Mapping[str, Any], log: LineLog) -> None:
        for event in game.get("log") or ():
            self._write(event, log)

    def _write(self, event: Mapping[str, Any], log: LineLog) -> None:
        if event.get("kind") == "deal" and not event.get("hand"):
            return  # another seat's deal: its cards are hidden from us
        parts = self.shell.describe(event)
        if parts is not None:
            log.write(self.shell.styled(parts))

    def add_events(self, events: list[dict[str, Any]], log: LineLog) -> None:
        counted = False
        for event in events:
            self._write(event, log)
            counted = counted or event.get("kind") in ("show", "claim", "muggins")
        if counted:
            self.call_after_refresh(self._open_show_if_shown)

    def _open_show_if_shown(self) -> None:
        """The show, once the events are drawn: unless the table has gone meanwhile (we left, a rematch), or
        a decision of ours has come meanwhile (a claim, muggins: the view after the events, which closes the
        show; opened over it, the show took the keys meant for the decision). ``v`` shows it all the same."""
        if self.showing and not self.legal:
            self.open_show()

    # ------------------------------------------------------------ keys

    def game_action_allowed(self, action: str, parameters: tuple[object, ...]) -> bool | None:
        legal, pending = self.legal, self.pending
        if action in ("move", "pick"):
            return ("discard" in legal or "play" in legal) and not pending
        if action in ("toggle", "lay_away"):
            return "discard" in legal and not pending
        if action == "play_card":
            return "play" in legal and not pending
        if action in ("claim_more", "claim_less", "claim"):
            return "claim" in legal and not pending
        if action == "muggins":
            return "muggins" in legal and not pending
        if action == "helper":
            return "discard" in legal
        if action == "last_show":
            return bool(self.view.get("show"))
        return True

    def action_move(self, step: int) -> None:
        hand = self.query_one(CribHand)
        choices = [c for c in hand.shown if c in hand.allowed]
        if not choices:
            return
        if hand.cursor not in choices:
            hand.cursor = choices[0 if step > 0 else -1]
            return
        hand.cursor = choices[(choices.index(hand.cursor) + step) % len(choices)]

    def action_pick(self, number: int) -> None:
        hand = self.query_one(CribHand)
        shown = hand.shown
        if not 1 <= number <= len(shown) or shown[number - 1] not in hand.allowed:
            return
        hand.cursor = shown[number - 1]
        if "discard" in self.legal:
            self.action_toggle()

    def action_toggle(self) -> None:
        hand = self.query_one(CribHand)
        if hand.cursor is None or hand.cursor not in hand.allowed:
            return
        count = self.legal["discard"]["count"]
        if hand.cursor in hand.chosen:
            hand.chosen = hand.chosen - {hand.cursor}
        elif len(hand.chosen) < count:
            hand.chosen = hand.chosen | {hand.cursor}
        else:
            self.notify(f"You lay away {count}: press space on a chosen card to put it back first.",
                        severity="warning", timeout=3)
        self.shell.update_prompt()

    def action_lay_away(self) -> None:
        hand = self.query_one(CribHand)
        count = self.legal["discard"]["count"]
        if len(hand.chosen) != count:
            self.notify(f"Choose {count} card{'s' if count > 1 else ''} for the crib first (space or 1-6).",
                        severity="warning", timeout=3)
            return
        self.shell.play({"kind": "discard", "cards": [c for c in hand.shown if c in hand.chosen]})

    def action_play_card(self) -> None:
        hand = self.query_one(CribHand)
        if hand.cursor in hand.allowed:
            self.shell.play({"kind": "play", "card": hand.cursor})

    def action_claim_more(self) -> None:
        self.claim_points = min(self.legal["claim"]["max"], self.claim_points + 1)
        self.shell.update_prompt()

    def action_claim_less(self) -> None:
        self.claim_points = max(self.legal["claim"]["min"], self.claim_points - 1)
        self.shell.update_prompt()

    def action_claim(self) -> None:
        self.shell.play({"kind": "claim", "points": self.claim_points})

    def action_muggins(self, take: bool) -> None:
        self.shell.play({"kind": "muggins", "take": take})

    def action_helper(self) -> None:
        helper = self.query_one(HandHelper)
        helper.display = not helper.display

    def action_last_show(self) -> None:
        self.open_show(asked=True)


BOARD = CribbageBoard  # what client.games finds for "cribbage" tables
