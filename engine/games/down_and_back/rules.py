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
from typing import Any, Iterable, Sequence

from ...cards import DECK, Card
from ...contract import TABLE_ACTIONS, EndGame, SetAway, SettingField, SitIn, StartRound, Status
from ...errors import IllegalAction, InvalidAction, NotYourTurn
from ...fairness import FAIR_ACTIONS, FairDeal
from ...records import ActionLog, Record
from .actions import Action, CallEnd, Cut, Discard, Skip, Split, TakeDiscard, TakeStock, action_from_data
from .tables import evaluate3, evaluate4
from .splits import rank_splits
from ...rng import HashRng

HAND_SIZE = 7
MIN_PLAYERS, MAX_PLAYERS = 2, 5
MAX_ANTE, MAX_STACK = 1_000_000, 1_000_000_000
MIN_CUT_PART = 4

WAITING, CUT, PLAY, SHOWDOWN, OVER = "waiting", "cut", "play", "showdown", "over"
DRAW, DISCARD = "draw", "discard"

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
_DEFAULTS = {f.name: f.default for f in SETTING_FIELDS}


@dataclass(frozen=True)
class Settings:
    """A table's agreed terms; the house-rule variants are off by default."""

    ante: int = _DEFAULTS["ante"]  # type: ignore[assignment]
    stack: int = _DEFAULTS["stack"]  # type: ignore[assignment]
    turns: int = _DEFAULTS["turns"]  # type: ignore[assignment]
    early_call: bool = _DEFAULTS["early_call"]
    no_take_back: bool = _DEFAULTS["no_take_back"]

    def __post_init__(self) -> None:
        if not (isinstance(self.ante, int) and not isinstance(self.ante, bool) and 1 <= self.ante <= MAX_ANTE):
            raise InvalidAction(f"ante must be a whole number from 1 to {MAX_ANTE}, got {self.ante!r}")
        if not (isinstance(self.stack, int) and not isinstance(self.stack, bool) and self.ante <= self.stack <= MAX_STACK):
            raise InvalidAction(f"starting stack must be at least the ante and at most {MAX_STACK}, got {self.stack!r}")
        if self.turns not in (6, 7) or isinstance(self.turns, bool):
            raise InvalidAction(f"turns must be 6 (standard) or 7 (house rule), got {self.turns!r}")
        for name in ("early_call", "no_take_back"):
            if not isinstance(getattr(self, name), bool):
                raise InvalidAction(f"{name} must be true or false, got {getattr(self, name)!r}")

    def to_data(self) -> dict[str, Any]:
        return {name: getattr(self, name) for name in _DEFAULTS}  # every view carries it: no fields() walk

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "Settings":
        """Settings from plain data; missing fields take their defaults, unknown ones are rejected."""
        unknown = set(data) - set(_DEFAULTS)
        if unknown:
            raise InvalidAction(f"unknown setting(s) {sorted(unknown)}")
        return cls(**data)


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


class Game:
    """One table's game. Seats are any distinct integers, clockwise in ascending order."""

    def __init__(
        self,
        settings: Settings,
        players: Sequence[tuple[int, str] | tuple[int, str, int]],
        rng: HashRng | None = None,
    ) -> None:
        if not MIN_PLAYERS <= len(players) <= MAX_PLAYERS:
            raise InvalidAction(f"a game needs {MIN_PLAYERS} to {MAX_PLAYERS} players, got {len(players)}")
        seats = [p[0] for p in players]
        if len(set(seats)) != len(seats):
            raise InvalidAction(f"seats must be distinct, got {seats}")
        self.settings = settings
        self.rng = rng if rng is not None else HashRng()
        self.initial_rng = self.rng.to_data()
        self.fair = FairDeal(self.rng)  # each round's seed, commitment and chance (engine.fairness)
        self.players: dict[int, Player] = {}
        for spec in sorted(players, key=lambda p: p[0]):
            stack = spec[2] if len(spec) > 2 else settings.stack  # type: ignore[misc]
            self.players[spec[0]] = Player(spec[0], spec[1], stack)
        self.initial_players = [(p.seat, p.name, p.stack) for p in self.players.values()]
        self.brought = sum(p.stack for p in self.players.values())
        self.sat_in: list[tuple[int, str, int]] = []  # (seat, name, chips) of players who sat in later
        self.phase = WAITING
        self.round_no = 0
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
        self.round_log: list[Record] = []
        self.history = ActionLog()
        self.standings: list[dict[str, Any]] | None = None

    # ----------------------------------------------------------- queries

    @property
    def status(self) -> Status:
        if self.phase == WAITING:
            return Status.BETWEEN_ROUNDS
        return Status.OVER if self.phase == OVER else Status.PLAYING

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

    def stacks(self) -> dict[int, int]:
        """Each seat's chips in hand, outside the pot."""
        return {p.seat: p.stack for p in self.players.values()}

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
            return {"cut": (MIN_CUT_PART, len(self.deck) - MIN_CUT_PART)}
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

    def legal_actions(self, seat: int) -> list[Action]:
        """Every action ``seat`` may take now (empty if it has nothing to do), from :meth:`allowed`."""
        actions: list[Action] = []
        for kind, value in self.allowed(seat).items():
            if kind == "cut":
                actions += [Cut(None)] + [Cut(k) for k in range(value[0], value[1] + 1)]
            elif kind == "split":
                actions += [Split(s.down, s.back) for s in rank_splits(value)]
            elif kind == "discard":
                actions += [Discard(c) for c in value]
            else:
                actions.append(action_from_data({"kind": kind}))
        return actions

    def can_call_end(self) -> bool:
        return self.settings.early_call and self.phase == PLAY and self.called_by is None

    def eligible_seats(self) -> list[int]:
        """Seats that would be dealt in if a round started now."""
        return [p.seat for p in self.players.values() if not p.out and not p.away and p.stack >= self.settings.ante]

    def can_pay(self) -> list[int]:
        return [p.seat for p in self.players.values() if not p.out and p.stack >= self.settings.ante]

    def chance_drawn(self) -> tuple[int, ...]:
        return self.fair.drawn(self.rng)

    def chips_in_play(self) -> int:
        """Stacks plus pot: always equal to :attr:`brought`."""
        return sum(p.stack for p in self.players.values()) + self.pot

    def all_cards(self) -> list[Card]:
        """Every card wherever it lies: always the 52 of the deck."""
        cards = self.deck + self.stock + self.discard_pile + self.tiebreak_cards
        for p in self.players.values():
            cards += p.hand
        return cards

    def left_of(self, seat: int, among: Iterable[int]) -> int:
        ring = sorted(among)
        later = [s for s in ring if s > seat]
        return later[0] if later else ring[0]

    def right_of(self, seat: int, among: Iterable[int]) -> int:
        ring = sorted(among)
        earlier = [s for s in ring if s < seat]
        return earlier[-1] if earlier else ring[-1]

    # ----------------------------------------------------------- applying

    def apply(self, seat: int | None, action: Action) -> list[Record]:
        """Apply ``action`` by ``seat`` (``None`` for table actions) and return what happened."""
        self.check(seat, action)
        records = self._do(seat, action)
        self.history.append(seat, action)
        self.round_log.extend(records)
        if self.fair.open and self.status is not Status.PLAYING:
            return records + self.fair.reveal(self.history)  # the round is over: its seed is told (not logged)
        return records

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
        if self.phase == OVER:
            raise IllegalAction(action, "the game is over")
        if isinstance(action, TABLE_ACTIONS):
            if seat is not None:
                raise IllegalAction(action, "only the table may do this, not a seat")
            self._check_table_action(action)
            return
        if isinstance(action, FAIR_ACTIONS):
            self.fair.check(action, seat)
            return
        if self.phase == PLAY and seat == self.order[self.turn_index]:
            allowed = self._allowed_in_turn(seat)  # the seat whose turn it is: to act by definition
        elif seat not in self.players:
            raise IllegalAction(action, f"there is no player at seat {seat}")
        elif seat not in self.to_act():
            raise NotYourTurn(action, f"seat {seat} is not to act now ({self._waiting_for()})")
        else:
            allowed = self.allowed(seat)
        kind = action.kind
        if kind not in allowed:
            raise IllegalAction(action, self._not_now(action))
        if allowed[kind] is None:  # a kind with nothing more to check: take_stock, skip...
            return
        if kind == "discard":
            if action.card not in allowed["discard"]:  # type: ignore[union-attr]
                if action.card not in self.players[seat].hand:  # type: ignore[union-attr]
                    raise IllegalAction(action, f"you do not hold {action.card}")  # type: ignore[union-attr]
                raise IllegalAction(action, "no take-back: you may not discard the card you took from the pile")
        elif kind == "cut":
            low, high = allowed["cut"]
            if action.position is not None and not low <= action.position <= high:  # type: ignore[union-attr]
                raise IllegalAction(action, f"cut position must be {low} to {high} so each part keeps {MIN_CUT_PART} cards")
        elif kind == "split":
            chosen = action.down + action.back  # type: ignore[union-attr]
            if len(action.down) != 4 or len(action.back) != 3 or len(set(chosen)) != HAND_SIZE:  # type: ignore[union-attr]
                raise IllegalAction(action, "a split is 4 going-down and 3 coming-back cards, all different")
            if set(chosen) != set(allowed["split"]):
                raise IllegalAction(action, "a split must use exactly the 7 cards you hold")

    def _not_now(self, action: Action) -> str:
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

    def _check_table_action(self, action: Action) -> None:
        if isinstance(action, StartRound):
            if self.phase != WAITING:
                raise IllegalAction(action, "a round is already in progress")
            if len(self.eligible_seats()) < MIN_PLAYERS:
                raise IllegalAction(action, "fewer than 2 players are present and able to pay the ante")
        elif isinstance(action, SetAway) and action.seat not in self.players:
            raise IllegalAction(action, f"there is no player at seat {action.seat}")
        elif isinstance(action, SitIn):
            if action.seat in self.players:
                raise IllegalAction(action, f"seat {action.seat} is taken")
            if len(self.players) >= MAX_PLAYERS:
                raise IllegalAction(action, f"a game has at most {MAX_PLAYERS} players")
            if action.chips < self.settings.ante:
                raise IllegalAction(action, f"sitting in takes at least the ante of {self.settings.ante}")

    def _waiting_for(self) -> str:
        seats = self.to_act()
        if self.fair.seeding:
            return "the deal is being sealed: the players' seeds come first"
        return f"waiting for seat(s) {seats}" if seats else f"nobody is to act in phase {self.phase}"

    def _do(self, seat: int | None, action: Action) -> list[Record]:
        return _APPLY[type(action)](self, seat, action)

    def _do_sit_in(self, seat: None, action: SitIn) -> list[Record]:
        """A new player between or during rounds: the next round deals them in (they ante like everyone)."""
        self.players[action.seat] = Player(action.seat, action.name, action.chips)
        self.players = dict(sorted(self.players.items()))  # seats clockwise, as everything here reads them
        self.sat_in.append((action.seat, action.name, action.chips))
        self.brought += action.chips
        return [Record("sit_in", action.seat, {"name": action.name, "chips": action.chips})]

    def _do_set_away(self, seat: None, action: SetAway) -> list[Record]:
        self.players[action.seat].away = action.away
        return [Record("away" if action.away else "back", action.seat)]

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
        """A fair deal's action (engine.fairness)."""
        records = self.fair.apply(seat, action)
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
        if not self.fair.shuffled:  # the round's first shuffle, from the deck the seeds fixed
            self.fair.shuffle(self.deck)
        position = action.position
        if position is None:
            span = len(self.deck) - 2 * MIN_CUT_PART + 1
            position = MIN_CUT_PART + self.fair.randbelow(span)
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
        refunds = []
        for p in self.players.values():
            if p.contributed:
                refunds.append({"seat": p.seat, "chips": p.contributed})
                p.stack += p.contributed
                p.contributed = 0
        self.pot = 0
        self.phase = OVER
        ranked = sorted(self.players.values(), key=lambda p: (-p.stack, p.seat))
        self.standings = [
            {"seat": p.seat, "name": p.name, "stack": p.stack, "brought": self._brought_by(p.seat)}
            for p in ranked
        ]
        return [Record("game_over", None, {"reason": reason, "refunds": refunds, "standings": self.standings})]

    def _brought_by(self, seat: int) -> int:
        return next(stack for s, _, stack in self.initial_players + self.sat_in if s == seat)

    # ----------------------------------------------------------- persistence

    def to_data(self, history: bool = True) -> dict[str, Any]:
        """The full state as plain data (msgpack/JSON friendly).

        ``history=False`` leaves out the action history, for callers that keep
        it elsewhere (the server's action log): it grows with every action.
        """
        data = {
            "settings": self.settings.to_data(),
            "rng": self.rng.to_data(),
            "initial_rng": self.initial_rng,
            "fair": self.fair.to_data(),
            "initial_players": [list(p) for p in self.initial_players],
            "brought": self.brought,
            "players": [p.to_data() for p in self.players.values()],
            "phase": self.phase, "round_no": self.round_no, "dealer": self.dealer,
            "cutter": self.cutter, "order": list(self.order),
            "deck": [c.text for c in self.deck], "stock": [c.text for c in self.stock],
            "discard_pile": [c.text for c in self.discard_pile],
            "tiebreak_cards": [c.text for c in self.tiebreak_cards],
            "turn_index": self.turn_index, "step": self.step,
            "taken_from_discard": str(self.taken_from_discard) if self.taken_from_discard else None,
            "called_by": self.called_by, "pot": self.pot,
            "round_discards": [[s, c.text] for s, c in self.round_discards],
            "showdown": self.showdown,
            "round_log": [r.to_data() for r in self.round_log],
            "standings": self.standings,
        }
        if self.sat_in:  # absent when nobody sat in, as in checkpoints written before sitting in existed
            data["sat_in"] = [list(p) for p in self.sat_in]
        if history:
            data["history"] = [[s, a] for s, a in self.history]
        return data

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "Game":
        game = cls.__new__(cls)
        cards = lambda items: [Card.parse(c) for c in items]  # noqa: E731
        game.settings = Settings.from_data(data["settings"])
        game.rng = HashRng.from_data(data["rng"])
        game.initial_rng = data["initial_rng"]
        game.fair = FairDeal.from_data(data.get("fair"), game.rng)  # absent: a checkpoint from before fair deals
        game.initial_players = [tuple(p) for p in data["initial_players"]]
        game.brought = data["brought"]
        game.sat_in = [tuple(p) for p in data.get("sat_in", ())]
        game.players = {p["seat"]: Player.from_data(p) for p in data["players"]}
        game.phase, game.round_no, game.dealer = data["phase"], data["round_no"], data["dealer"]
        game.cutter, game.order = data["cutter"], list(data["order"])
        game.deck, game.stock = cards(data["deck"]), cards(data["stock"])
        game.discard_pile, game.tiebreak_cards = cards(data["discard_pile"]), cards(data["tiebreak_cards"])
        game.turn_index, game.step = data["turn_index"], data["step"]
        taken = data["taken_from_discard"]
        game.taken_from_discard = Card.parse(taken) if taken else None
        game.called_by, game.pot = data["called_by"], data["pot"]
        game.round_discards = [(s, Card.parse(c)) for s, c in data["round_discards"]]
        game.showdown = data["showdown"]
        game.round_log = [Record.from_data(r) for r in data["round_log"]]
        game.history = ActionLog(data.get("history", ()), action_from_data)
        game.standings = data["standings"]
        return game

    @classmethod
    def replay(
        cls,
        settings: Settings,
        players: Sequence[tuple[int, str] | tuple[int, str, int]],
        rng_data: dict[str, Any],
        history: Iterable[tuple[int | None, dict[str, Any]]],
    ) -> "Game":
        """Rebuild a game from its starting RNG state and action history."""
        game = cls(settings, players, HashRng.from_data(rng_data))
        for seat, action in history:
            game.apply(seat, action_from_data(action))
        return game



_APPLY = {
    StartRound: lambda game, seat, action: game._start_round(),
    EndGame: lambda game, seat, action: game._end_game("ended by the table"),
    SetAway: Game._do_set_away,
    SitIn: Game._do_sit_in,
    CallEnd: Game._do_call_end,
    Cut: Game._cut,
    Split: Game._submit_split,
    TakeStock: Game._do_take_stock,
    TakeDiscard: Game._do_take_discard,
    Skip: Game._do_skip,
    Discard: Game._do_discard,
    **{kind: Game._fair for kind in FAIR_ACTIONS},
}
"""How each kind of (already checked) action changes the game."""
