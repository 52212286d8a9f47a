"""High Card: the smallest game on the kit, registered only in tests (docs/ADDING-A-GAME.md's worked example).

Two to four players each ante and are dealt one card face down, once the
seat before the first has cut (the cut shuffles, from the seeds: the fairness
rule). Then each in turn stands or folds; the best card standing (rank, then
the earlier seat in the round) takes the pot, and the last one standing takes
it unasked. A game that really shipped would put this in
``engine/games/high_card/`` (rules, events, rounds, views, bots, gametype
modules) and one line in ``engine.games._WHERE``; here it is one module, and
:func:`registered` adds it to ``GAMES`` for one test.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field
from typing import Any, ClassVar, Iterator, Mapping, Sequence

from engine.cards import DECK, Card
from engine.contract import (
    TABLE_ACTION_FIELDS, FieldSettings, Part, SettingField, about, action_kind, check_fields,
    describe_table_event, table_action_from_data,
)
from engine.errors import IllegalAction
from engine.games import GAMES
from engine.games.base import (
    CUT_FIELDS, WAITING, CardGame, CardGameType, Cut, cards_of, cut_from_data, texts,
)
from engine.records import Record

CUT, PLAY = "cut", "play"
SETTING_FIELDS = (SettingField("ante", "Ante", 10, minimum=1, maximum=1000),)

# ----------------------------------------------------------------- actions (the one schema)


@dataclass(frozen=True, slots=True)
class Stand:
    kind: ClassVar[str] = "stand"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class Fold:
    kind: ClassVar[str] = "fold"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind}


_FIELDS = {**CUT_FIELDS, "stand": set(), "fold": set(), **TABLE_ACTION_FIELDS}


def action_from_data(data: object) -> Any:
    kind = action_kind(data)
    check_fields(data, kind, _FIELDS)  # type: ignore[arg-type]
    if kind == "cut":
        return cut_from_data(data)  # type: ignore[arg-type]
    if kind in ("stand", "fold"):
        return Stand() if kind == "stand" else Fold()
    return table_action_from_data(data)  # type: ignore[arg-type]


# ----------------------------------------------------------------- the rules


class Settings(FieldSettings, fields=SETTING_FIELDS):
    """A High Card table's terms: the ante."""


@dataclass
class Player:
    seat: int
    name: str
    stack: int
    staked: int = 0  # this round's ante, in the pot
    away: bool = False
    folded: bool = False
    hand: list[Card] = field(default_factory=list)

    def to_data(self) -> dict[str, Any]:
        return {"seat": self.seat, "name": self.name, "stack": self.stack, "staked": self.staked,
                "away": self.away, "folded": self.folded, "hand": texts(self.hand)}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> "Player":
        return cls(data["seat"], data["name"], data["stack"], data["staked"], data["away"], data["folded"],
                   cards_of(data["hand"]))


class Game(CardGame):
    TITLE, MIN_PLAYERS, MAX_PLAYERS = "High Card", 2, 4
    SETTINGS, PLAYER, PARSE = Settings, Player, staticmethod(action_from_data)

    def __init__(self, settings: Settings, players: Sequence[tuple[int, str, int]], rng: Any = None) -> None:
        super().__init__(settings, players, rng)
        self.deck: list[Card] = list(DECK)
        self.order: list[int] = []  # this round's seats; the last cuts
        self.turn = 0
        self.result: dict[str, Any] | None = None

    def able(self) -> list[int]:
        return [p.seat for p in self.players.values() if not p.away and p.stack >= self.settings.ante]

    def to_act(self) -> list[int]:
        if self.phase == CUT and not self.fair.seeding:
            return [self.order[-1]]
        return [self.order[self.turn]] if self.phase == PLAY else []

    def decision(self) -> tuple[Any, ...] | None:
        return (self.round_no, self.phase, self.turn) if self.to_act() else None

    turn_id = decision

    def allowed(self, seat: int) -> dict[str, Any]:
        if seat not in self.to_act():
            return {}
        return {"cut": self.cut_range()} if self.phase == CUT else {"stand": None, "fold": None}

    def chips_in_play(self) -> int:
        return sum(p.stack + p.staked for p in self.players.values())

    def all_cards(self) -> list[Card]:
        return self.deck + [c for p in self.players.values() for c in p.hand]

    def view(self, seat: int | None) -> dict[str, Any]:
        me = self.players.get(seat) if seat is not None else None
        return {"seat": me and me.seat, "phase": self.phase, "round": self.round_no, "to_act": self.to_act(),
                "hand": texts(me.hand) if me else [], "result": self.result, "standings": self.standings,
                "legal": [{"kind": k} for k in self.allowed(me.seat)] if me else [], "fair": self.fair.view(),
                "players": [{"seat": p.seat, "name": p.name, "stack": p.stack, "staked": p.staked, "away": p.away,
                             "folded": p.folded, "cards": len(p.hand)} for p in self.players.values()],
                "log": [r.for_seat(seat) for r in self.round_log[-12:]]}

    def _check_start(self, action: Any) -> None:
        if len(self.able()) < 2:
            raise IllegalAction(action, "fewer than 2 players are present and able to pay the ante")

    def _start_round(self) -> list[Record]:
        for p in self.players.values():
            self.deck += p.hand
            p.hand, p.folded = [], False
        self.deck.sort(key=lambda c: c.index)  # the shuffle alone decides the order (at the cut)
        self.round_no, self.order, self.turn, self.result, self.round_log = self.round_no + 1, self.able(), 0, None, []
        for seat in self.order:
            self.players[seat].stack -= self.settings.ante
            self.players[seat].staked += self.settings.ante
        self.phase = CUT
        record = Record("round", None, {"round": self.round_no, "seats": list(self.order), "ante": self.settings.ante})
        return [record] + self.fair.begin_round(self, self.order)

    def _cut(self, seat: int, action: Cut) -> list[Record]:
        self._first_shuffle()
        position = self._cut_position(action)
        self.deck = self.deck[position:] + self.deck[:position]
        records = [Record("cut", seat, {"position": position, "random": action.position is None})]
        for s in self.order:
            self.players[s].hand = [self.deck.pop(0)]
            records.append(Record("deal", s, {"cards": 1}, {"hand": texts(self.players[s].hand)}))
        self.phase = PLAY
        return records

    def _say(self, seat: int, action: Any) -> list[Record]:
        self.players[seat].folded = isinstance(action, Fold)
        self.turn += 1
        standing = [s for s in self.order if not self.players[s].folded]
        records = [Record(action.kind, seat)]
        if len(standing) > 1 and self.turn < len(self.order):
            return records
        best = max(standing, key=lambda s: (self.players[s].hand[0].rank, -self.order.index(s)))
        pot = sum(p.staked for p in self.players.values())
        for p in self.players.values():
            p.staked = 0
        self.players[best].stack += pot
        shown = [{"seat": s, "card": self.players[s].hand[0].text} for s in standing] if len(standing) > 1 else []
        self.result = {"round": self.round_no, "winner": best, "pot": pot, "shown": shown}
        self.phase = WAITING
        records.append(Record("won", best, dict(self.result)))
        if len([p for p in self.players.values() if p.stack >= self.settings.ante]) < 2:
            records += self._end_game("fewer than 2 players can pay the ante")
        return records

    def _state_data(self) -> dict[str, Any]:
        return {"players": [p.to_data() for p in self.players.values()], "phase": self.phase,
                "round_no": self.round_no, "deck": texts(self.deck), "order": list(self.order), "turn": self.turn,
                "result": self.result, "round_log": [r.to_data() for r in self.round_log],
                "standings": self.standings}

    def _restore(self, data: Mapping[str, Any]) -> None:
        self.deck, self.order, self.turn, self.result = cards_of(data["deck"]), list(data["order"]), data["turn"], \
            data["result"]

    APPLY = {Cut: _cut, Stand: _say, Fold: _say}


# ----------------------------------------------------------------- wording, rounds, bots: the game type


def describe(event: Mapping[str, Any]) -> list[Part] | None:
    kind, seat = event["kind"], event.get("seat")
    if kind == "round":
        return [{"text": f"Round {event['round']}: an ante of "}, {"chips": event["ante"]}, {"text": " each"}]
    if kind == "deal":
        card = [{"text": ": "}, {"card": event["hand"][0]}] if "hand" in event else []
        return [{"seat": seat}, *about(seat, " {is} dealt a card"), *card]
    if kind == "won":
        shown = [part for s in event["shown"] for part in ({"text": " "}, {"seat": s["seat"]}, {"card": s["card"]})]
        return [{"seat": seat}, *about(seat, " {takes} the pot of "), {"chips": event["pot"]}, *shown]
    if kind == "game_over":
        return [{"text": f"Game over: {event['reason']}"}]
    words = {"cut": " {cuts} the pack", "stand": " {stands}", "fold": " {folds}", "away": " {sits} out",
             "back": " {is} back"}
    if kind in words:
        return [{"seat": seat}, *about(seat, words[kind])]
    return describe_table_event(event)


class Events:
    """The one wording of the game's events."""

    describe = staticmethod(describe)


class Rounds:
    """The round records: a round in full, what everyone may see of it, and one player's outcome."""

    @staticmethod
    def round_record(game: Game) -> dict[str, Any]:
        return {"round": game.round_no, "result": game.result, "seats": list(game.order),
                "names": {str(s): p.name for s, p in game.players.items()},
                "stacks": {str(s): p.stack for s, p in game.players.items()}, "fair": game.fair.revealed}

    @staticmethod
    def public_round(record: Mapping[str, Any]) -> dict[str, Any]:
        return {"round": record["round"], "stacks": record["stacks"], "abandoned": record["result"] is None,
                "players": [{"seat": s, "name": record["names"][str(s)]} for s in record["seats"]],
                "result": record["result"]}

    @staticmethod
    def round_outcome(public: Mapping[str, Any], seat: int) -> str:
        if public["abandoned"]:
            return "abandoned: antes back"
        won = public["result"]
        return f"won the pot of {won['pot']}" if won["winner"] == seat else "lost the ante"


class HighCard(CardGameType):
    """One card each, stand or fold, the best card standing takes the pot."""

    GAME, EVENTS, ROUNDS = Game, Events, Rounds
    name, title = "high-card", "High Card"
    bot_levels, default_bot_level, practice_bots = ("normal",), "normal", 1
    fair_names = {"deal": "dealt card"}

    def bot_action(self, game: Game, seat: int, level: str | None = None) -> Any:
        """Cut at random; stand on an eight or better (the seat's own card alone)."""
        if game.phase == CUT:
            return Cut(None)
        return Stand() if game.players[seat].hand[0].rank >= 8 else Fold()

    def timeout_action(self, game: Game, seat: int) -> Any:
        return Cut(None) if game.phase == CUT else Fold()

    def buy_in(self, settings: Settings) -> tuple[int, int]:
        return settings.ante, 20 * settings.ante

    def warm_up(self) -> None:
        """Nothing to build."""

    def progress(self, game: Game) -> str:
        leader = max(game.players.values(), key=lambda p: (p.stack, -p.seat))
        return f"Round {game.round_no}: {leader.name} leads with {leader.stack}"


HIGH_CARD = HighCard()


@contextlib.contextmanager
def registered() -> Iterator[HighCard]:
    """High Card in ``engine.games.GAMES`` for the ``with`` block only (every other test sees the real list)."""
    GAMES[HIGH_CARD.name] = HIGH_CARD
    try:
        yield HIGH_CARD
    finally:
        del GAMES[HIGH_CARD.name]

