"""The table state machine: every rule of play, in one place.

``Game`` holds the whole truth of one table. Callers ask who is to act
(:meth:`Game.to_act`) and what they may do (:meth:`Game.legal_actions`), then
:meth:`Game.apply` an action, which returns the :class:`Record` list of what
happened. A rejected action raises a typed :class:`EngineError` and changes
nothing. Chance comes only from the injected RNG, so the seed plus
:attr:`Game.history` replays a game exactly, and :meth:`Game.to_data` /
:meth:`Game.from_data` round-trip the full state as plain data.

Phases::

    waiting --start_round--> cut --Cut--> play --(last turn)--> showdown
       ^                                                          |
       +------------------- (all splits in: resolve) -------------+
    any phase --end_game--> over      (also when < 2 players can pay the ante)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Mapping, Sequence

from ...cards import DECK, Card
from ...contract import FieldSettings, SettingField, SitIn, StartRound
from ...errors import IllegalAction, InvalidAction
from ...records import Record
from ...rng import HashRng
from ..base import OVER, WAITING, CardGame, cards_of, texts
from .actions import Action, CallEnd, Cut, Discard, Skip, Split, TakeDiscard, TakeStock, action_from_data
from .tables import evaluate3, evaluate4
from .splits import rank_splits

HAND_SIZE = 7
MIN_PLAYERS = 2  # also the fewest who can play on: fewer who can pay the ante end the game
MAX_ANTE, MAX_STACK = 1_000_000, 1_000_000_000

CUT, PLAY, SHOWDOWN = "cut", "play", "showdown"
DRAW, DISCARD = "draw", "discard"
__all__ = ["WAITING", "CUT", "PLAY", "SHOWDOWN", "OVER", "DRAW", "DISCARD", "Game", "Settings", "Player"]

# The draw step's choices by (a discard pile to take from, the no-take-back rule, early call still open).
_DRAW_ALLOWED: dict[tuple[bool, bool, bool], dict[str, None]] = {
    (pile, skip, call): dict.fromkeys(["take_stock"] + ["take_discard"] * pile + ["skip"] * skip + ["call_end"] * call)
    for pile in (False, True) for skip in (False, True) for call in (False, True)
}


SETTING_FIELDS = (
    SettingField("ante", "Ante", 10, minimum=1, maximum=MAX_ANTE),
    SettingField("stack", "Stack", 1000, minimum=1, maximum=MAX_STACK),
    SettingField("turns", "Turns", 6, choices=(6, 7), hint="Seven turns instead of six"),
    SettingField("early_call", "Early call", False, choices=(False, True), hint="end drawing with this orbit"),
    SettingField("no_take_back", "No take-back", False, choices=(False, True), hint="may skip instead"),
)
"""The settings' one owner: names, defaults and limits (:class:`Settings` checks them)."""


class Settings(FieldSettings, fields=SETTING_FIELDS):
    """A table's agreed terms (their limits: :data:`SETTING_FIELDS`); the house-rule variants are off by default."""

    def check_together(self) -> None:
        if self.stack < self.ante:
            raise InvalidAction(f"starting stack must be at least the ante and at most {MAX_STACK}, got {self.stack!r}")


@dataclass
class Player:
    seat: int
    name: str
    stack: int
    hand: list[Card] = field(default_factory=list)
    out: bool = False  # cannot pay the ante: out of the game for good
    away: bool = False  # sitting out from the next round on
    in_round: bool = False
    turns_taken: int = 0
    contributed: int = 0  # antes in the current pot, paid back if the game ends
    split: Split | None = None

    def to_data(self) -> dict[str, Any]:
        return {
            "seat": self.seat, "name": self.name, "stack": self.stack,
            "hand": [c.text for c in self.hand], "out": self.out, "away": self.away,
            "in_round": self.in_round, "turns_taken": self.turns_taken,
            "contributed": self.contributed,
            "split": self.split.to_data() if self.split else None,
        }

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "Player":
        split = action_from_data(data["split"]) if data["split"] else None
        return cls(
            data["seat"], data["name"], data["stack"], [Card.parse(c) for c in data["hand"]],
            data["out"], data["away"], data["in_round"], data["turns_taken"],
            data["contributed"], split,  # type: ignore[arg-type]
        )


class Game(CardGame):
    """One table's game. Players may sit in between rounds; the pot is the antes' (``STAKE``: what each put in)."""

    TITLE = "Down and Back"
    MIN_PLAYERS, MAX_PLAYERS = MIN_PLAYERS, 5
    SETTINGS = Settings
    PLAYER = Player
    PARSE = staticmethod(action_from_data)
    STAKE = "contributed"
    TAKES_SIT_IN = True

    def __init__(
        self,
        settings: Settings,
        players: Sequence[tuple[int, str] | tuple[int, str, int]],
        rng: HashRng | None = None,
    ) -> None:
        super().__init__(settings, players, rng)
        self.brought = sum(p.stack for p in self.players.values())
        self.dealer: int | None = None
        self.cutter: int | None = None
        self.order: list[int] = []  # this round's seats in play order, dealer last
        self.deck: list[Card] = list(DECK)  # undealt cards; index 0 is the top
        self.stock: list[Card] = []  # the end of the list is the top
        self.discard_pile: list[Card] = []  # the end of the list is the top
        self.tiebreak_cards: list[Card] = []
        self.turn_index = 0
        self.step = DRAW
        self.taken_from_discard: Card | None = None
        self.called_by: int | None = None
        self.pot = 0
        self.round_discards: list[tuple[int, Card]] = []
        self.showdown: dict[str, Any] | None = None

    def _new_player(self, spec: Sequence[Any]) -> Player:
        """A ``(seat, name)`` player brings the starting stack."""
        return Player(spec[0], spec[1], spec[2] if len(spec) > 2 else self.settings.stack)

    # ----------------------------------------------------------- queries

    def decision(self) -> tuple[Any, ...] | None:
        """The awaited decision's id: (round, phase, turn, step), or None when no seat is to act.

        ``turn`` counts the turns taken in the round so far, so a seat's turn in each orbit has an id of its own.
        """
        if self.phase in (WAITING, OVER) or self.fair.seeding:
            return None
        turns = sum(self.players[s].turns_taken for s in self.order)
        return (self.round_no, self.phase, turns, self.step if self.phase == PLAY else None)

    def turn_id(self) -> tuple[Any, ...] | None:
        """The turn under way: (round, phase, turn), the same for a turn's draw and its discard."""
        if self.phase in (WAITING, OVER) or self.fair.seeding:
            return None
        return (self.round_no, self.phase, self.turn_index)

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know (see :mod:`.views`); ``None`` gets the spectator view."""
        from .views import view_for  # views reads the game; importing it here keeps the import one-way

        return view_for(self, seat)

    @property
    def turn_seat(self) -> int | None:
        return self.order[self.turn_index] if self.phase == PLAY else None

    def to_act(self) -> list[int]:
        """Seats whose decision the game is waiting for (several at the showdown)."""
        if self.phase == CUT:
            return [] if self.fair.seeding else [self.cutter]  # type: ignore[list-item]
        if self.phase == PLAY:
            return [self.order[self.turn_index]]
        if self.phase == SHOWDOWN:
            return [s for s in self.order if self.players[s].split is None]
        return []

    def allowed(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may do now, by action kind: the one statement of legality.

        :meth:`legal_actions`, :meth:`check` and the views' legal summary all
        read it. Values: for ``cut`` the (lowest, highest) position, for
        ``split`` the cards to split, for ``discard`` the cards that may be
        thrown, ``None`` for the rest. Read-only: it may be shared, or hold the hand itself.
        """
        if self.phase == PLAY:
            return self._allowed_in_turn(seat) if seat == self.order[self.turn_index] else {}
        if seat not in self.to_act():
            return {}
        if self.phase == CUT:
            return {"cut": self.cut_range()}
        return {"split": self.players[seat].hand}  # the showdown

    def _allowed_in_turn(self, seat: int) -> dict[str, Any]:
        """:meth:`allowed` for the seat whose turn it is (every action of play: kept cheap)."""
        call = self.settings.early_call and self.called_by is None  # can_call_end(), the phase being PLAY
        if self.step == DRAW:
            return _DRAW_ALLOWED[bool(self.discard_pile), self.settings.no_take_back, call]
        hand, taken = self.players[seat].hand, self.taken_from_discard
        allowed: dict[str, Any] = {"discard": hand if taken is None else [c for c in hand if c != taken]}
        if call:
            allowed["call_end"] = None
        return allowed

    def moves(self, kind: str, allowed: Any) -> list[Action]:
        if kind == "split":
            return [Split(s.down, s.back) for s in rank_splits(allowed)]
        if kind == "discard":
            return [Discard(c) for c in allowed]
        return super().moves(kind, allowed)  # take_stock, take_discard, skip, call_end: the kind alone

    def can_call_end(self) -> bool:
        return self.settings.early_call and self.phase == PLAY and self.called_by is None

    def eligible_seats(self) -> list[int]:
        """Seats that would be dealt in if a round started now."""
        return [p.seat for p in self.players.values() if not p.out and not p.away and p.stack >= self.settings.ante]

    def can_pay(self) -> list[int]:
        return [p.seat for p in self.players.values() if not p.out and p.stack >= self.settings.ante]

    def chips_in_play(self) -> int:
        """Stacks plus pot: always equal to :attr:`brought`."""
        return sum(p.stack for p in self.players.values()) + self.pot

    def all_cards(self) -> list[Card]:
        """Every card wherever it lies: always the 52 of the deck."""
        cards = self.deck + self.stock + self.discard_pile + self.tiebreak_cards
        for p in self.players.values():
            cards += p.hand
        return cards

    # ----------------------------------------------------------- applying

    def check(self, seat: int | None, action: Action) -> None:
        """Raise the typed error that :meth:`apply` would raise; change nothing."""
        if self.phase == PLAY and seat == self.order[self.turn_index]:
            # The two commonest moves, which :meth:`allowed` always permits, decided before anything else.
            if self.step == DRAW:
                if type(action) is TakeStock or (type(action) is TakeDiscard and self.discard_pile):
                    return
            elif (type(action) is Discard and self.taken_from_discard is None
                    and action.card in self.players[seat].hand):
                return
        super().check(seat, action)

    def check_move(self, seat: int, action: Action, allowed: Any) -> None:
        if isinstance(action, Discard):
            if action.card not in allowed:
                if action.card not in self.players[seat].hand:
                    raise IllegalAction(action, f"you do not hold {action.card}")
                raise IllegalAction(action, "no take-back: you may not discard the card you took from the pile")
        elif isinstance(action, Split):
            chosen = action.down + action.back
            if len(action.down) != 4 or len(action.back) != 3 or len(set(chosen)) != HAND_SIZE:
                raise IllegalAction(action, "a split is 4 going-down and 3 coming-back cards, all different")
            if set(chosen) != set(allowed):
                raise IllegalAction(action, "a split must use exactly the 7 cards you hold")

    def _not_now(self, action: Action, allowed: Mapping[str, Any]) -> str:
        """Why an action of a kind :meth:`allowed` leaves out is refused, in the player's terms."""
        if isinstance(action, CallEnd):
            if not self.settings.early_call:
                return "early call is not a rule at this table"
            return "the end has already been called this round"
        if self.phase == CUT:
            return "the deck must be cut first"
        if self.phase == SHOWDOWN:
            return "the showdown needs a split of your 7 cards"
        if self.step == DRAW:
            if isinstance(action, Skip):
                return "skipping is only allowed under the no-take-back rule"
            if isinstance(action, TakeDiscard):
                return "the discard pile is empty"
            return "take a card from the stock or the discard pile first"
        return "discard one card to end your turn"

    def _check_start(self, action: StartRound) -> None:
        if len(self.eligible_seats()) < MIN_PLAYERS:
            raise IllegalAction(action, "fewer than 2 players are present and able to pay the ante")

    def _check_sit_in(self, action: SitIn) -> None:
        if action.chips < self.settings.ante:
            raise IllegalAction(action, f"sitting in takes at least the ante of {self.settings.ante}")

    def _sit_in(self, action: SitIn) -> list[Record]:
        """A new player between or during rounds: the next round deals them in (they ante like everyone)."""
        self.brought += action.chips
        return super()._sit_in(action)

    def _do_call_end(self, seat: int, action: CallEnd) -> list[Record]:
        self.called_by = seat
        return [Record("call_end", seat, {"orbit": self._orbit()})]

    def _do_take_stock(self, seat: int, action: TakeStock) -> list[Record]:
        records: list[Record] = []
        card = self._draw_from_stock(records)
        self.players[seat].hand.append(card)
        self.step = DISCARD
        return records + [Record("take_stock", seat, {}, {"card": card.text})]

    def _do_take_discard(self, seat: int, action: TakeDiscard) -> list[Record]:
        card = self.discard_pile.pop()
        self.players[seat].hand.append(card)
        self.taken_from_discard = card if self.settings.no_take_back else None
        self.step = DISCARD
        return [Record("take_discard", seat, {"card": card.text})]

    def _do_skip(self, seat: int, action: Skip) -> list[Record]:
        return [Record("skip", seat)] + self._end_turn(seat)

    def _do_discard(self, seat: int, action: Discard) -> list[Record]:
        self.players[seat].hand.remove(action.card)
        self.discard_pile.append(action.card)
        self.round_discards.append((seat, action.card))
        return [Record("discard", seat, {"card": action.card.text})] + self._end_turn(seat)

    # ----------------------------------------------------------- round steps

    def _start_round(self) -> list[Record]:
        ante = self.settings.ante
        for p in self.players.values():
            if not p.out and p.stack < ante:
                p.out = True
        seats = self.eligible_seats()
        self._collect_cards()
        self.round_no += 1
        if self.dealer is None:  # the first dealer is drawn from this round's stream once its deck is fixed
            self.cutter, self.order = None, list(seats)
        else:
            self._seat_dealer(self.left_of(self.dealer, seats), seats)
        for p in self.players.values():
            p.in_round = p.seat in seats
            p.turns_taken = 0
            p.split = None
            if p.in_round:
                p.stack -= ante
                p.contributed += ante
                self.pot += ante
        self.phase = CUT
        self.round_log = []
        self.round_discards = []
        self.showdown = None
        self.called_by = None
        records = [Record("round", None, {
            "round": self.round_no, "dealer": self.dealer, "cutter": self.cutter,
            "seats": list(self.order), "ante": ante, "pot": self.pot,
        })] + self.fair.begin_round(self, seats)  # the deck is shuffled at the cut, from the committed seeds
        return records + self._first_dealer(records)

    def _seat_dealer(self, dealer: int, seats: list[int]) -> None:
        """``dealer`` deals this round: the cutter is on their right, play starts on their left."""
        self.dealer = dealer
        self.cutter = self.right_of(dealer, seats)
        first = self.left_of(dealer, seats)
        self.order = [s for s in seats if s >= first] + [s for s in seats if s < first]

    def _fair(self, seat: int | None, action: Action) -> list[Record]:
        """A fair deal's action (engine.fairness); the one that fixes the game's first deck draws its first dealer."""
        records = super()._fair(seat, action)
        return records + self._first_dealer(records)

    def _first_dealer(self, records: list[Record]) -> list[Record]:
        """Once ``records`` fixed the game's first deck, the first dealer: the stream's first draw, among the
        seats dealt in, ascending."""
        if not records or records[-1].kind != "deck_fixed" or self.dealer is not None:
            return []
        seats = sorted(self.order)
        self._seat_dealer(seats[self.fair.randbelow(len(seats))], seats)
        return [Record("dealer", self.dealer, {"cutter": self.cutter, "seats": list(self.order)})]

    def _collect_cards(self) -> None:
        for p in self.players.values():
            self.deck += p.hand
            p.hand = []
        self.deck += self.stock + self.discard_pile + self.tiebreak_cards
        self.stock, self.discard_pile, self.tiebreak_cards = [], [], []
        self.deck.sort(key=lambda c: c.index)  # the shuffle alone decides the order

    def _cut(self, seat: int, action: Cut) -> list[Record]:
        self._first_shuffle()
        position = self._cut_position(action)
        deck = self.deck[position:] + self.deck[:position]
        records = [Record("cut", seat, {"position": position, "random": action.position is None})]
        for p in self.players.values():
            p.hand = []
        for _ in range(HAND_SIZE):
            for s in self.order:
                self.players[s].hand.append(deck.pop(0))
        up_card = deck.pop(0)
        self.discard_pile = [up_card]
        self.stock = deck[::-1]
        self.deck = []
        for s in self.order:
            records.append(Record("deal", s, {"cards": HAND_SIZE}, {"hand": [c.text for c in self.players[s].hand]}))
        records.append(Record("up_card", None, {"card": str(up_card), "stock": len(self.stock)}))
        self.phase = PLAY
        self.turn_index = 0
        self.step = DRAW
        self.taken_from_discard = None
        return records

    def _orbit(self) -> int:
        """The orbit (1-based) the current turn belongs to."""
        return self.players[self.order[self.turn_index]].turns_taken + 1

    def _end_turn(self, seat: int) -> list[Record]:
        records: list[Record] = []
        player = self.players[seat]
        player.turns_taken += 1
        self.taken_from_discard = None
        self.step = DRAW
        if not self.stock:
            records += self._reshuffle()
        dealer_done = self.turn_index == len(self.order) - 1
        if dealer_done and (player.turns_taken >= self.settings.turns or self.called_by is not None):
            self.phase = SHOWDOWN
            records.append(Record("showdown", None, {"seats": list(self.order)}))
            return records
        self.turn_index = 0 if dealer_done else self.turn_index + 1
        return records

    def _reshuffle(self) -> list[Record]:
        """Rebuild the stock from the discard pile, keeping its top card face up.

        If the pile is too small (only possible during long tie-break draws),
        the earlier tie-break cards are shuffled in too so a card can always be drawn.
        """
        if len(self.discard_pile) >= 2:
            top = self.discard_pile.pop()
            pool, self.discard_pile = self.discard_pile, [top]
        else:
            pool = self.discard_pile + self.tiebreak_cards
            self.discard_pile, self.tiebreak_cards = [], []
        self.fair.shuffle(pool)
        self.stock = pool
        return [Record("reshuffle", None, {"stock": len(self.stock), "up_card": str(self.discard_pile[-1]) if self.discard_pile else None})]

    def _draw_from_stock(self, records: list[Record]) -> Card:
        """The stock's top card; an empty stock is reshuffled first (its ``reshuffle`` record added to ``records``)."""
        if not self.stock:
            records += self._reshuffle()
        return self.stock.pop()

    def _submit_split(self, seat: int, split: Split) -> list[Record]:
        self.players[seat].split = split
        records = [Record("split_in", seat, {}, {"down": [c.text for c in split.down], "back": [c.text for c in split.back]})]
        if all(self.players[s].split is not None for s in self.order):
            records += self._resolve_showdown()
        return records

    def _resolve_showdown(self) -> list[Record]:
        records: list[Record] = []
        reveal = []
        down_keys, back_keys = [], []
        for s in self.order:
            split = self.players[s].split
            assert split is not None
            down, back = evaluate4(split.down), evaluate3(split.back)
            down_keys.append(down.key)
            back_keys.append(back.key)
            reveal.append({
                "seat": s, "down": [c.text for c in split.down], "back": [c.text for c in split.back],
                "down_name": down.name, "back_name": back.name,
            })
            records.append(Record("reveal", s, dict(reveal[-1])))
        down_winner, down_draws = self._compare(down_keys, records)
        back_winner, back_draws = self._compare(back_keys, records)
        pot = self.pot
        winner = down_winner if down_winner == back_winner else None
        if winner is not None:
            self.players[winner].stack += pot
            self.pot = 0
            for p in self.players.values():
                p.contributed = 0
        self.showdown = {
            "round": self.round_no, "reveal": reveal,
            "down_winner": down_winner, "back_winner": back_winner,
            "down_draws": down_draws, "back_draws": back_draws,
            "pot": pot, "winner": winner, "carried": 0 if winner is not None else pot,
        }
        records.append(Record("result", winner, dict(self.showdown)))
        self.phase = WAITING
        if len(self.can_pay()) < MIN_PLAYERS:
            records += self._end_game("fewer than 2 players can pay the ante")
        return records

    def _compare(self, keys: list[tuple[int, ...]], records: list[Record]) -> tuple[int, list[list[dict[str, Any]]]]:
        """Winner of one comparison, with any tie-break draws (face up from the stock); a reshuffle they
        force is added to ``records`` (it comes before the showdown's result)."""
        best = max(keys)
        tied = [s for s, k in zip(self.order, keys) if k == best]
        draws: list[list[dict[str, Any]]] = []
        while len(tied) > 1:
            drawn = {s: self._draw_from_stock(records) for s in tied}
            self.tiebreak_cards += drawn.values()
            draws.append([{"seat": s, "card": card.text} for s, card in drawn.items()])
            top = max(card.rank for card in drawn.values())
            tied = [s for s, card in drawn.items() if card.rank == top]
        return tied[0], draws

    def _end_game(self, reason: str) -> list[Record]:
        """The table stops: the antes in the pot go back to those who put them in."""
        records = super()._end_game(reason)
        self.pot = 0
        return records

    # ----------------------------------------------------------- persistence

    def _state_data(self) -> dict[str, Any]:
        return {
            "brought": self.brought,
            "players": [p.to_data() for p in self.players.values()],
            "phase": self.phase, "round_no": self.round_no, "dealer": self.dealer,
            "cutter": self.cutter, "order": list(self.order),
            "deck": texts(self.deck), "stock": texts(self.stock),
            "discard_pile": texts(self.discard_pile),
            "tiebreak_cards": texts(self.tiebreak_cards),
            "turn_index": self.turn_index, "step": self.step,
            "taken_from_discard": str(self.taken_from_discard) if self.taken_from_discard else None,
            "called_by": self.called_by, "pot": self.pot,
            "round_discards": [[s, c.text] for s, c in self.round_discards],
            "showdown": self.showdown,
            "round_log": [r.to_data() for r in self.round_log],
            "standings": self.standings,
        }

    def _restore(self, data: Mapping[str, Any]) -> None:
        self.brought, self.dealer = data["brought"], data["dealer"]
        self.cutter, self.order = data["cutter"], list(data["order"])
        self.deck, self.stock = cards_of(data["deck"]), cards_of(data["stock"])
        self.discard_pile, self.tiebreak_cards = cards_of(data["discard_pile"]), cards_of(data["tiebreak_cards"])
        self.turn_index, self.step = data["turn_index"], data["step"]
        taken = data["taken_from_discard"]
        self.taken_from_discard = Card.parse(taken) if taken else None
        self.called_by, self.pot = data["called_by"], data["pot"]
        self.round_discards = [(s, Card.parse(c)) for s, c in data["round_discards"]]
        self.showdown = data["showdown"]

    APPLY = {
        CallEnd: _do_call_end,
        Cut: _cut,
        Split: _submit_split,
        TakeStock: _do_take_stock,
        TakeDiscard: _do_take_discard,
        Skip: _do_skip,
        Discard: _do_discard,
    }
    """How each of the game's own (already checked) actions changes it; the table's and the fair deal's
    are the base's."""
