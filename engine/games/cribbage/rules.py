"""Cribbage's state machine: every rule of ``shared/rules/cribbage.md``, in one place.

A table's :class:`Game` runs one cribbage game to the target after another.
A *round* (the contract's word) is one deal; the table starts each with
``start_round``. The first round of a cribbage game puts every player's stake
at risk; the game ends the moment a side reaches the target, even mid-play or
mid-show, and settles the stakes (double for a skunk, triple for a double
skunk). Two or three players play for themselves; four play as two
partnerships, partners opposite (seats in ascending order are clockwise, so
the first and third seat are one side).

Phases of a round::

    waiting --start_round--> draw (first game only: lowest card deals; ties draw again)
            --> cut (the dealer's right cuts, the dealer deals) --> discard (all at once, hidden)
            --> starter (the dealer's left cuts; a jack: his heels) --> play (pegging to 31)
            --> the show (hands clockwise from the dealer's left, the dealer's, the crib): automatic,
                or under muggins "show": each claims their count, an opponent may take what was missed
            --> waiting
    a side reaching the target at any point --> stakes settled --> waiting (the loser deals next)
    any phase --end_game--> over (stakes back); also when a player has no chips left to stake

Chance comes only from the injected RNG; "go" is said for a seat by the game.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from itertools import combinations
from typing import Any, Mapping, Sequence

from ...cards import DECK, Card, Rank
from ...contract import FieldSettings, SettingField
from ...errors import IllegalAction
from ...records import Record
from ...rng import HashRng
from ..base import OVER, WAITING, CardGame, cards_of, texts
from .actions import Action, Claim, Cut, Discard, Muggins, Play, action_from_data
from .scoring import MAX_SHOW, go_reason, play_score, show_items, value

MAX_STAKE = 1_000_000
LAST_COUNT = 31
HEELS_POINTS = 2

DRAW, CUT, DISCARD, STARTER, PLAY, SHOW = "draw", "cut", "discard", "starter", "play", "show"
__all__ = ["WAITING", "DRAW", "CUT", "DISCARD", "STARTER", "PLAY", "SHOW", "OVER", "Game", "Settings", "Player"]

SETTING_FIELDS = (
    SettingField("target", "Game to", 121, choices=(121, 61), hint="a short game to 61"),
    SettingField("skunks", "Skunks", True, choices=(False, True), hint="a skunk pays double, a double skunk triple"),
    SettingField("stake", "Stake", 100, minimum=1, maximum=MAX_STAKE, hint="what each loser pays the winners"),
    SettingField("muggins", "Muggins", False, choices=(False, True),
                 hint="claim your own count; others take what you miss"),
)
"""The settings' one owner: names, defaults and limits (:class:`Settings` checks them)."""
SKUNK_LINE = {121: 90, 61: 30}  # a loser who has not passed this is skunked: the win counts double
DOUBLE_SKUNK_LINE = {121: 60}  # ... and this, double skunked (triple); no 61-point equivalent


def hand_size(players: int) -> int:
    """Six cards each with two players, five with three or four."""
    return 6 if players == 2 else 5


def discard_count(players: int) -> int:
    """Cards each player lays away: two with two players, one with three or four (the crib is four)."""
    return 2 if players == 2 else 1


class Settings(FieldSettings, fields=SETTING_FIELDS):
    """A cribbage table's agreed terms (their limits: :data:`SETTING_FIELDS`)."""


@dataclass
class Player:
    seat: int
    name: str
    stack: int
    staked: int = 0  # at risk in the cribbage game under way
    away: bool = False
    hand: list[Card] = field(default_factory=list)  # not yet laid away or played
    played: list[Card] = field(default_factory=list)  # this deal's cards laid in the play (kept apart)
    discards: list[Card] = field(default_factory=list)  # laid away to the crib this deal (only its owner sees)

    def to_data(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "stack": self.stack, "staked": self.staked, "away": self.away,
                "hand": texts(self.hand), "played": texts(self.played), "discards": texts(self.discards)}

    @classmethod
    def from_data(cls, data: dict[str, Any]) -> "Player":
        return cls(data["seat"], data["name"], data["stack"], data["staked"], data["away"],
                   cards_of(data["hand"]), cards_of(data["played"]), cards_of(data["discards"]))


class Game(CardGame):
    """One cribbage table (see the module docstring). A round is a deal; the players are fixed for a game."""

    TITLE = "Cribbage"
    MIN_PLAYERS, MAX_PLAYERS = 2, 4
    SETTINGS = Settings
    PLAYER = Player
    PARSE = staticmethod(action_from_data)
    ROUND = "deal"

    def __init__(self, settings: Settings, players: Sequence[tuple[int, str, int]], rng: HashRng | None = None) -> None:
        super().__init__(settings, players, rng)
        self.game_no = 0  # cribbage games started at this table
        self.deal_no = 0  # deals in the current cribbage game
        self.in_game = False  # a cribbage game is under way (its stakes at risk)
        self.turn_no = 0  # seat decisions taken in this round: part of decision()
        self.scores = [0] * len(self.sides)
        self.backs = [0] * len(self.sides)  # the back peg: each side's score before its last points
        self.dealer: int | None = None
        self.next_dealer: int | None = None  # None: the first game's deal is drawn for
        self.deck: list[Card] = list(DECK)  # the pack; index 0 is the top
        self.drawing: list[int] = []  # seats still to draw for the deal, in order
        self.draws: list[tuple[int, Card]] = []  # this draw's cards
        self.pending: list[int] = []  # seats still to lay away to the crib
        self.crib: list[tuple[int | None, Card]] = []  # (who laid it, card); None: the pack's card (three players)
        self.starter: Card | None = None
        self.turn: int | None = None  # the seat to play
        self.count = 0
        self.series: list[tuple[int, Card]] = []  # cards laid since the count was last reset
        self.said_go: list[int] = []  # seats that said "go" in this series
        self.show: list[dict[str, Any]] = []  # this deal's counted hands, in order
        self.counting: list[tuple[int, str]] = []  # the show's counts still to come: (seat, "hand" or "crib")
        self.missed: int | None = None  # muggins: points the last claim left, an opponent to take them or not
        self.result: dict[str, Any] | None = None  # the last cribbage game's end

    # ----------------------------------------------------------- sides

    @property
    def sides(self) -> list[list[int]]:
        """Who scores together: each player alone, or with four the first and third seat against the others."""
        seats = self.seats
        return [seats[0::2], seats[1::2]] if len(seats) == 4 else [[s] for s in seats]

    def side_of(self, seat: int) -> int:
        return next(i for i, side in enumerate(self.sides) if seat in side)

    # ----------------------------------------------------------- queries

    @property
    def cutter(self) -> int | None:
        """Who cuts now: the next to draw, the dealer's right before the deal, the dealer's left for the starter."""
        if self.phase == DRAW:
            return self.drawing[0]
        if self.phase == CUT:
            return self.right_of(self.dealer)  # type: ignore[arg-type]
        if self.phase == STARTER:
            return self.left_of(self.dealer)  # type: ignore[arg-type]
        return None

    def to_act(self) -> list[int]:
        if self.fair.seeding:
            return []
        if self.phase == DISCARD:
            return list(self.pending)
        if self.phase == PLAY:
            return [self.turn]  # type: ignore[list-item]
        if self.phase == SHOW:
            owner = self.counting[0][0]
            return [owner if self.missed is None else self.opponent_after(owner)]
        cutter = self.cutter
        return [] if cutter is None else [cutter]

    def decision(self) -> tuple[Any, ...] | None:
        """(round, phase, decisions taken this round): the laying away is one decision for every seat."""
        if self.phase in (WAITING, OVER) or self.fair.seeding:
            return None
        return (self.round_no, self.phase, self.turn_no)

    def turn_id(self) -> tuple[Any, ...] | None:
        """Every decision is a whole turn."""
        return self.decision()

    def allowed(self, seat: int) -> dict[str, Any]:
        """What ``seat`` may do now, by action kind: the one statement of legality.

        :meth:`legal_actions`, :meth:`check`, the views' legal summary and the
        bots read it. Values: for ``cut`` the (lowest, highest) position, for
        ``discard`` (the hand, how many to lay away), for ``play`` the cards
        that keep the count within 31, for ``claim`` the (lowest, highest)
        claim, ``None`` for ``muggins`` (take or not).
        """
        if seat not in self.to_act():
            return {}
        if self.phase == DISCARD:
            return {"discard": (self.players[seat].hand, discard_count(len(self.players)))}
        if self.phase == PLAY:
            return {"play": self.playable(seat)}
        if self.phase == SHOW:
            return {"claim": (0, MAX_SHOW)} if self.missed is None else {"muggins": None}
        return {"cut": self.cut_range()}

    def opponent_after(self, seat: int) -> int:
        """The first seat clockwise after ``seat`` on another side (who may call muggins on it)."""
        side = self.side_of(seat)
        return next(s for s in self.clockwise_from(self.left_of(seat)) if self.side_of(s) != side)

    def counted_cards(self) -> list[Card]:
        """The four cards of the count under way in the show (a hand's, or the crib)."""
        seat, what = self.counting[0]
        return [c for _, c in self.crib] if what == "crib" else self.players[seat].played

    def playable(self, seat: int) -> list[Card]:
        room = LAST_COUNT - self.count
        return [c for c in self.players[seat].hand if value(c) <= room]

    def moves(self, kind: str, allowed: Any) -> list[Action]:
        if kind == "discard":
            hand, count = allowed
            return [Discard(combo) for combo in combinations(sorted(hand, key=lambda c: c.index), count)]
        if kind == "play":
            return [Play(card) for card in allowed]
        if kind == "claim":
            return [Claim(points) for points in range(allowed[0], allowed[1] + 1)]
        return [Muggins(True), Muggins(False)]

    def holdings(self) -> dict[int, int]:
        """The stack and the game's stake: a stake is the player's until a game is won (the winner's then)."""
        return {p.seat: p.stack + p.staked for p in self.players.values()}

    def chips_in_play(self) -> int:
        return sum(p.stack + p.staked for p in self.players.values())

    def all_cards(self) -> list[Card]:
        cards = self.deck + [c for _, c in self.draws] + [c for _, c in self.crib]
        if self.starter is not None:
            cards.append(self.starter)
        for p in self.players.values():
            cards += p.hand + p.played
        return cards

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know (see :mod:`.views`); ``None`` gets the spectator view."""
        from .views import view_for  # views reads the game; importing it here keeps the import one-way

        return view_for(self, seat)

    # ----------------------------------------------------------- applying

    def check_move(self, seat: int, action: Action, allowed: Any) -> None:
        if isinstance(action, Discard):
            hand, count = allowed
            if len(action.cards) != count or len(set(action.cards)) != count:
                raise IllegalAction(action, f"lay away exactly {count} different card{'s' if count > 1 else ''}")
            if any(c not in hand for c in action.cards):
                raise IllegalAction(action, "you can only lay away cards you hold")
        elif isinstance(action, Claim):
            low, high = allowed
            if not low <= action.points <= high:
                raise IllegalAction(action, f"a claim is {low} to {high} points")
        elif isinstance(action, Play) and action.card not in allowed:
            if action.card not in self.players[seat].hand:
                raise IllegalAction(action, f"you do not hold {action.card}")
            raise IllegalAction(action, f"{action.card} would take the count past {LAST_COUNT}")

    def _not_now(self, action: Action, allowed: Mapping[str, Any]) -> str:
        return "now is the time to lay away to the crib" if self.phase == DISCARD else super()._not_now(action, allowed)

    # Away seats stay dealt in (a cribbage deal needs everyone): the table plays their timeout moves.
    # Sitting in is refused (TAKES_SIT_IN is false): the deal, the crib and the stakes are fixed for those who began.

    # ----------------------------------------------------------- a round

    def _start_round(self) -> list[Record]:
        self._collect_cards()
        self.round_no += 1
        self.turn_no = 0
        self.show = []
        self.round_log = []
        records: list[Record] = []
        if not self.in_game:
            records.append(self._start_game())
        self.deal_no += 1
        self.dealer = self.next_dealer
        records.append(Record("round", None, {"round": self.round_no, "game": self.game_no, "deal": self.deal_no,
                                              "dealer": self.dealer}))
        if self.dealer is None:
            self.phase = DRAW
            self.drawing = self.seats
        else:
            self.phase = CUT
        return records + self.fair.begin_round(self, self.seats)  # the first cut shuffles, from the committed seeds

    def _start_game(self) -> Record:
        self.game_no += 1
        self.deal_no = 0
        self.in_game = True
        self.result = None
        self.scores = [0] * len(self.sides)
        self.backs = [0] * len(self.sides)
        stakes = []
        for p in self.players.values():
            p.staked = min(self.settings.stake, p.stack)
            p.stack -= p.staked
            stakes.append({"seat": p.seat, "chips": p.staked})
        return Record("new_game", None, {"game": self.game_no, "target": self.settings.target, "stakes": stakes})

    def _collect_cards(self) -> None:
        for p in self.players.values():
            self.deck += p.hand + p.played
            p.hand, p.played, p.discards = [], [], []
        self.deck += [c for _, c in self.draws] + [c for _, c in self.crib]
        if self.starter is not None:
            self.deck.append(self.starter)
        self.draws, self.crib, self.starter = [], [], None
        self.series, self.said_go, self.count, self.turn = [], [], 0, None
        self.counting, self.missed = [], None
        self.deck.sort(key=lambda c: c.index)  # the shuffle alone decides the order

    def _cut(self, seat: int, action: Cut) -> list[Record]:
        self.turn_no += 1
        if self.phase != STARTER:  # the round's first cut (a draw, or the deal's cut) shuffles first
            self._first_shuffle()
        position = self._cut_position(action)
        cut = {"position": position, "random": action.position is None}
        if self.phase == DRAW:
            return self._draw(seat, position, cut)
        if self.phase == CUT:
            self.deck = self.deck[position:] + self.deck[:position]
            return [Record("cut", seat, cut)] + self._deal()
        return self._turn_up_starter(seat, position, cut)

    def _draw(self, seat: int, position: int, cut: dict[str, Any]) -> list[Record]:
        """One cut in the draw for the first deal; when all have drawn, the lowest deals (ties draw again)."""
        card = self.deck.pop(position)
        self.draws.append((seat, card))
        self.drawing.pop(0)
        records = [Record("draw", seat, {**cut, "card": card.text})]
        if self.drawing:
            return records
        low = min(c.rank for _, c in self.draws)
        tied = [s for s, c in self.draws if c.rank == low]
        if len(tied) > 1:
            self.deck += [c for _, c in self.draws]
            self.draws = []
            self.fair.shuffle(self.deck)
            self.drawing = tied
            return records + [Record("draw_tie", None, {"seats": list(tied), "rank": low.symbol})]  # not the list drawing pops
        self.dealer = tied[0]
        records.append(Record("dealer", self.dealer, {"card": next(c.text for s, c in self.draws if s == self.dealer)}))
        self._collect_cards()
        self.fair.shuffle(self.deck)  # the dealer shuffles for the deal
        self.phase = CUT
        return records

    def _deal(self) -> list[Record]:
        """One card at a time to each player, the dealer's left first; with three, one more to the crib."""
        order = self.clockwise_from(self.left_of(self.dealer))  # type: ignore[arg-type]
        for _ in range(hand_size(len(order))):
            for s in order:
                self.players[s].hand.append(self.deck.pop(0))
        records = [Record("deal", s, {"cards": len(self.players[s].hand)}, {"hand": texts(self.players[s].hand)})
                   for s in order]
        if len(order) == 3:
            self.crib.append((None, self.deck.pop(0)))
            records.append(Record("crib_card", None, {"cards": 1}))
        self.phase = DISCARD
        self.pending = list(order)
        return records

    def _discard(self, seat: int, action: Discard) -> list[Record]:
        player = self.players[seat]
        for card in action.cards:
            player.hand.remove(card)
            self.crib.append((seat, card))
        player.discards = list(action.cards)
        self.pending.remove(seat)
        records = [Record("discard", seat, {"count": len(action.cards)}, {"cards": texts(action.cards)})]
        if not self.pending:
            self.phase = STARTER
            self.turn_no += 1
        return records

    def _turn_up_starter(self, seat: int, position: int, cut: dict[str, Any]) -> list[Record]:
        self.starter = self.deck.pop(position)
        records = [Record("starter", seat, {**cut, "card": self.starter.text})]
        self.phase = PLAY
        self.turn = self.left_of(self.dealer)  # type: ignore[arg-type]
        if self.starter.rank == Rank.JACK:
            records.append(self._peg_record("heels", self.dealer, HEELS_POINTS, {"reason": "his heels for two"}))  # type: ignore[arg-type]
            records += self._won_if_reached(self.dealer)  # type: ignore[arg-type]
        return records

    # ----------------------------------------------------------- the play

    def _play(self, seat: int, action: Play) -> list[Record]:
        self.turn_no += 1
        player = self.players[seat]
        player.hand.remove(action.card)
        player.played.append(action.card)
        self.series.append((seat, action.card))
        self.count += value(action.card)
        points, reason = play_score([c for _, c in self.series])
        records = [self._peg_record("play", seat, points, {"card": action.card.text, "count": self.count,
                                                            "reason": reason})]
        if points:
            records += self._won_if_reached(seat)
            if self.phase != PLAY:
                return records
        if self.count == LAST_COUNT:  # 31 pegged its two: the count starts again
            return records + self._reset(seat)
        return records + self._next_turn(seat)

    def _next_turn(self, last: int) -> list[Record]:
        """The next seat clockwise that can play; those passed over say "go". Nobody: ``last`` pegs the go."""
        records = []
        for seat in self.clockwise_from(self.left_of(last)):
            if self.playable(seat):
                self.turn = seat
                return records
            if seat != last and self.players[seat].hand and seat not in self.said_go:
                self.said_go.append(seat)
                records.append(Record("go", seat, {"count": self.count}))
        last_card = not any(p.hand for p in self.players.values())
        records.append(self._peg_record("go_point", last, 1, {"reason": go_reason(last_card)}))
        records += self._won_if_reached(last)
        if self.phase != PLAY:
            return records
        return records + self._reset(last)

    def _reset(self, last: int) -> list[Record]:
        """The count starts again at zero, led by the first seat after ``last`` with cards; none: the show."""
        self.count, self.series, self.said_go = 0, [], []
        holding = [s for s in self.clockwise_from(self.left_of(last)) if self.players[s].hand]
        if not holding:
            return self._show()
        self.turn = holding[0]
        return [Record("reset", self.turn)]

    # ----------------------------------------------------------- the show

    def _show(self) -> list[Record]:
        """Count the hands clockwise from the dealer's left (the dealer's last), then the crib; stop at a win.

        Under muggins each count waits for its owner's claim (:meth:`_claim`).
        """
        assert self.starter is not None and self.dealer is not None
        self.turn = None
        self.counting = [(s, "hand") for s in self.clockwise_from(self.left_of(self.dealer))] + [(self.dealer, "crib")]
        if self.settings.muggins:
            self.phase = SHOW
            return self._next_claim()
        records = []
        while self.counting:
            seat, what = self.counting[0]
            items, points = self._count()
            shown = {"what": what, "cards": texts(self.counted_cards()), "starter": self.starter.text, "items": items}
            records.append(self._peg_record("show", seat, points, shown))
            self.show.append({"seat": seat, **records[-1].public})
            records += self._won_if_reached(seat)
            if self.phase != PLAY:
                return records
            self.counting.pop(0)
        return records + self._end_deal()

    def _count(self) -> tuple[list[dict[str, Any]], int]:
        """The count under way, item by item, and what it is worth."""
        items = show_items(self.counted_cards(), self.starter, crib=self.counting[0][1] == "crib")  # type: ignore[arg-type]
        return items, items[-1]["total"] if items else 0

    def _end_deal(self) -> list[Record]:
        self.phase = WAITING
        self.next_dealer = self.left_of(self.dealer)  # type: ignore[arg-type]
        return []

    def _next_claim(self) -> list[Record]:
        """Muggins: the next count awaits its owner's claim; the crib is turned up when its turn comes."""
        if not self.counting:
            return self._end_deal()
        if self.counting[0][1] == "crib":
            return [Record("crib_up", self.dealer, {"cards": texts(self.counted_cards())})]
        return []

    def _claim(self, seat: int, action: Claim) -> list[Record]:
        """Muggins: peg what was claimed (no more than the count is worth); a shortfall awaits an opponent."""
        self.turn_no += 1
        what = self.counting[0][1]
        items, worth = self._count()
        pegged = min(action.points, worth)
        shown = {"what": what, "cards": texts(self.counted_cards()), "starter": self.starter.text,  # type: ignore[union-attr]
                 "claimed": action.points, "items": items if pegged == worth else None}
        records = [self._peg_record("claim", seat, pegged, shown)]
        self.show.append({"seat": seat, **records[0].public, "muggins": None})
        records += self._won_if_reached(seat)
        if self.phase != SHOW:
            return records
        if pegged < worth:
            self.missed = worth - pegged
            return records
        self.counting.pop(0)
        return records + self._next_claim()

    def _muggins(self, seat: int, action: Muggins) -> list[Record]:
        """Muggins: the opponent takes the points the claim missed, or lets them go; the count is then shown."""
        self.turn_no += 1
        owner = self.counting[0][0]
        items, _ = self._count()
        missed, self.missed = self.missed, None
        record = self._peg_record("muggins", seat, missed if action.take else 0,  # type: ignore[arg-type]
                                  {"take": action.take, "missed": missed, "of": owner, "items": items})
        self.show[-1].update(items=items, muggins={"seat": seat, "take": action.take, "points": record.public["points"]})
        records = [record] + self._won_if_reached(seat)
        if self.phase != SHOW:
            return records
        self.counting.pop(0)
        return records + self._next_claim()

    # ----------------------------------------------------------- scores, the end of a game

    def _peg_record(self, kind: str, seat: int, points: int, public: dict[str, Any]) -> Record:
        """Add ``points`` to ``seat``'s side (moving its back peg) and the record saying so."""
        side = self.side_of(seat)
        if points:
            self.backs[side] = self.scores[side]
            self.scores[side] += points
        return Record(kind, seat, {**public, "points": points, "score": self.scores[side]})

    def _won_if_reached(self, seat: int) -> list[Record]:
        side = self.side_of(seat)
        if self.scores[side] < self.settings.target:
            return []
        return self._settle(side)

    def _multiplier(self, score: int) -> int:
        """What a loser with ``score`` pays, in stakes: 3 for a double skunk, 2 for a skunk, else 1."""
        target = self.settings.target
        if self.settings.skunks and target in DOUBLE_SKUNK_LINE and score <= DOUBLE_SKUNK_LINE[target]:
            return 3
        if self.settings.skunks and score <= SKUNK_LINE[target]:
            return 2
        return 1

    def _settle(self, side: int) -> list[Record]:
        """The game is won by ``side``: each loser pays the stake times their multiplier (no more than they
        hold), the winners share it equally (the odd chips to the earliest seats), and the loser deals next."""
        winners = self.sides[side]
        losses, paid = [], 0
        for loser_side, seats in enumerate(self.sides):
            if loser_side == side:
                continue
            multiplier = self._multiplier(self.scores[loser_side])
            for s in seats:
                p = self.players[s]
                pay = min(self.settings.stake * multiplier, p.staked + p.stack)
                p.stack += p.staked - pay
                p.staked = 0
                paid += pay
                losses.append({"seat": s, "chips": pay, "multiplier": multiplier})
        share, odd = divmod(paid, len(winners))
        gains = []
        for i, s in enumerate(winners):
            p = self.players[s]
            p.stack += p.staked + share + (i < odd)
            p.staked = 0
            gains.append({"seat": s, "chips": share + (i < odd)})
        losing = [i for i in range(len(self.sides)) if i != side]
        lowest = min(self.scores[i] for i in losing)
        self.next_dealer = next(s for s in self.clockwise_from(self.left_of(winners[0]))
                                if self.side_of(s) in losing and self.scores[self.side_of(s)] == lowest)
        self.result = {"game": self.game_no, "winners": list(winners), "scores": list(self.scores),
                       "losses": losses, "gains": gains, "target": self.settings.target}
        self.in_game = False
        self.phase = WAITING
        self.turn = None
        records = [Record("game_won", winners[0], dict(self.result))]
        broke = [p.seat for p in self.players.values() if p.stack == 0]
        if broke:
            records += self._end_game(f"seat {broke[0]} has no chips left to stake")
        return records

    def _end_game(self, reason: str) -> list[Record]:
        """The table stops: stakes of a game not finished go back (it pays nobody)."""
        self.in_game = False
        self.turn = None
        self.pending, self.drawing = [], []
        return super()._end_game(reason)

    # ----------------------------------------------------------- persistence

    def _state_data(self) -> dict[str, Any]:
        return {
            "players": [p.to_data() for p in self.players.values()],
            "phase": self.phase, "round_no": self.round_no, "game_no": self.game_no, "deal_no": self.deal_no,
            "in_game": self.in_game, "turn_no": self.turn_no, "scores": list(self.scores), "backs": list(self.backs),
            "dealer": self.dealer, "next_dealer": self.next_dealer, "deck": texts(self.deck),
            "drawing": list(self.drawing), "draws": [[s, c.text] for s, c in self.draws],
            "pending": list(self.pending), "crib": [[s, c.text] for s, c in self.crib],
            "starter": self.starter.text if self.starter else None, "turn": self.turn, "count": self.count,
            "series": [[s, c.text] for s, c in self.series], "said_go": list(self.said_go),
            "show": self.show, "result": self.result, "standings": self.standings,
            "counting": [[s, what] for s, what in self.counting], "missed": self.missed,
            "round_log": [r.to_data() for r in self.round_log],
        }

    def _restore(self, data: Mapping[str, Any]) -> None:
        for name in ("game_no", "deal_no", "in_game", "turn_no", "dealer", "next_dealer", "turn", "count", "show",
                     "result", "missed"):
            setattr(self, name, data[name])
        self.scores, self.backs = list(data["scores"]), list(data["backs"])
        self.deck = cards_of(data["deck"])
        self.drawing, self.pending, self.said_go = list(data["drawing"]), list(data["pending"]), list(data["said_go"])
        self.draws = [(s, Card.parse(c)) for s, c in data["draws"]]
        self.crib = [(s, Card.parse(c)) for s, c in data["crib"]]
        self.series = [(s, Card.parse(c)) for s, c in data["series"]]
        self.starter = Card.parse(data["starter"]) if data["starter"] else None
        self.counting = [(s, what) for s, what in data["counting"]]

    APPLY = {Cut: _cut, Discard: _discard, Play: _play, Claim: _claim, Muggins: _muggins}
    """How each of the game's own (already checked) actions changes it; the table's and the fair deal's
    are the base's."""
