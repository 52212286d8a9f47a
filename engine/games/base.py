"""The base of every card-table game: what each game would otherwise write again, so a game is its rules.

The models are OpenSpiel's ``State`` (a game supplies ``_legal_actions`` and
``_apply_action``, the base owns the loop) and python-chess's ``Board``
subclasses (a variant overrides hooks, not the loop). :class:`CardGame`
implements the :class:`~engine.contract.Game` contract's scaffolding; a game
subclasses it and gives:

- **its facts**, as class attributes: ``TITLE``, ``MIN_PLAYERS`` / ``MAX_PLAYERS``,
  ``SETTINGS`` (a :class:`~engine.contract.FieldSettings` class), ``PLAYER`` (its
  player record, made as ``PLAYER(seat, name, chips)``, with ``seat``, ``name``,
  ``stack`` and ``away``), ``ROUND`` (what a round is called: "round", "deal"),
  ``STAKE`` (the player field holding chips still to be given back when the
  game ends), ``TAKES_SIT_IN`` and ``PARSE`` (its one action schema, as a
  ``staticmethod``);
- **its phases**: ``phase`` starts at :data:`WAITING`, the game sets its own
  phases while a round is played and :data:`WAITING` again when it ends;
  :attr:`~CardGame.status` follows from it (:data:`OVER` is set by the base);
- **what is allowed**: :meth:`~CardGame.to_act`, :meth:`~CardGame.allowed` (kind ->
  what the check needs; ``None`` when the kind alone says it all) and
  :meth:`~CardGame.check_move` for what the kind alone does not settle;
- **its apply table** ``APPLY`` (its own action classes -> method), and the table
  actions' hooks :meth:`~CardGame._start_round` and :meth:`~CardGame._state_data` /
  :meth:`~CardGame._restore` for its own saved state.

The base owns the rest: validating players and seats, seat order
(:meth:`~CardGame.left_of`, :meth:`~CardGame.clockwise_from`), ``status``, the
check's preamble (the game over, table actions, the fair deal's actions, who
is a player, a deal being sealed, whose turn, a kind not allowed now, the cut),
``apply`` with its history, the round log and the fair reveal, sitting out and
sitting in, ending with standings, the common save fields and replay.

The fairness rule
-----------------

Every game deals the same fair way (``docs/FAIRNESS.md``, :mod:`engine.fairness`),
and the base keeps most of it: it holds ``fair`` (a
:class:`~engine.fairness.FairDeal`), hands every fair action to it, refuses
every seat action while ``fair.seeding`` and reveals a round's seed when the
round ends. What a game must do itself:

1. Make ``fair.begin_round(self, seats)`` the last record of a round's start,
   with the round's state in place (the players dealt in, the sorted deck).
2. While ``fair.seeding`` (from the ``deal_commit`` until the deck is fixed),
   return nobody from ``to_act()``, return ``None`` from ``decision()``, and draw
   **no chance**: client seeds are accepted only until then.
3. **Fix the deck at a seat's action**: the round's first shuffle is made at its
   first seat action after the deck is fixed (a cut, a draw for the deal), of
   the sorted pack (:meth:`~CardGame._first_shuffle`). A game that shuffled at
   the start of the round would deal from a deck no client seed went into.
4. Take all its chance from ``fair.shuffle`` / ``fair.randbelow`` (a random cut:
   :meth:`~CardGame._cut_position`), never from ``rng`` directly.

``tests/engine/test_fairness.py`` verifies every round of every registered game
as each player saw it (the verifier replays it through the game from the state
its ``deal_reveal`` carries: chance drawn anywhere else shows as a wrong card),
and ``tests/engine/test_game_properties.py`` that seed and history replay it
exactly; ``docs/ADDING-A-GAME.md`` walks through it.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Iterable, Mapping, Sequence

from ..cards import Card, CardParseError
from ..contract import (
    TABLE_ACTIONS, EndGame, FieldSettings, Part, SetAway, SettingField, SitIn, StartRound, Status, plain_int,
)
from ..errors import IllegalAction, InvalidAction, NotYourTurn
from ..fairness import FAIR_ACTIONS, FairDeal
from ..records import ActionLog, Record
from ..rng import HashRng

WAITING, OVER = "waiting", "over"
"""The two phases every game has: between rounds (a ``start_round`` awaited) and over."""
MIN_CUT_PART = 4
"""Each part of a cut keeps at least this many cards (every game's cut)."""
SEALING = "the deal is being sealed: the players' seeds come first"
"""Why no seat may act while a round's deal is sealed (:attr:`engine.fairness.FairDeal.seeding`)."""

# ----------------------------------------------------------------- what every game's schema shares


@dataclass(frozen=True, slots=True)
class Cut:
    """Cut the pack at ``position`` (cards lifted from the top); ``None``: a random cut (bots, timeouts)."""

    position: int | None = None
    kind: ClassVar[str] = "cut"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "position": self.position}


CUT_FIELDS: dict[str, set[str]] = {"cut": {"position"}}
"""The cut's fields, for a game schema that has the cut (merge into its ``check_fields`` map)."""


def cut_from_data(data: Mapping[str, Any]) -> Cut:
    """A :class:`Cut` from plain data whose fields were checked."""
    position = data.get("position")
    return Cut(None if position is None else plain_int(position, "cut position"))


def card_from_data(value: object, what: str) -> Card:
    """An action's card, in the notation exactly (an action's card is never guessed at)."""
    try:
        return Card.exact(value)
    except CardParseError as exc:
        raise InvalidAction(f"{what}: {exc}") from None


def texts(cards: Iterable[Card]) -> list[str]:
    """Cards as their plain-data text."""
    return [c.text for c in cards]


def cards_of(items: Iterable[str]) -> list[Card]:
    """Cards from their plain-data text."""
    return [Card.parse(t) for t in items]


# ----------------------------------------------------------------- the game


def _fair(game: "CardGame", seat: int | None, action: Any) -> list[Record]:
    return game._fair(seat, action)


_TABLE_APPLY: dict[type, Callable[[Any, Any, Any], list[Record]]] = {
    StartRound: lambda game, seat, action: game._start_round(),
    EndGame: lambda game, seat, action: game._end_game("ended by the table"),
    SetAway: lambda game, seat, action: game._set_away(action),
    SitIn: lambda game, seat, action: game._sit_in(action),
    **{kind: _fair for kind in FAIR_ACTIONS},
}


class CardGame:
    """One table's game: the :class:`~engine.contract.Game` contract's common part (module docstring).

    Seats are distinct integers, clockwise in ascending order; ``players`` is kept in that order.
    """

    TITLE: ClassVar[str]
    MIN_PLAYERS: ClassVar[int]
    MAX_PLAYERS: ClassVar[int]
    SETTINGS: ClassVar[type]
    PLAYER: ClassVar[type]
    PARSE: ClassVar[Callable[[object], Any]]
    ROUND: ClassVar[str] = "round"
    STAKE: ClassVar[str] = "staked"
    TAKES_SIT_IN: ClassVar[bool] = False
    APPLY: ClassVar[dict[type, Callable[..., list[Record]]]] = {}
    _apply_table: ClassVar[dict[type, Callable[..., list[Record]]]] = _TABLE_APPLY

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        cls._apply_table = {**_TABLE_APPLY, **cls.APPLY}

    def __init__(self, settings: Any, players: Sequence[tuple[int, str] | tuple[int, str, int]],
                 rng: HashRng | None = None) -> None:
        if not self.MIN_PLAYERS <= len(players) <= self.MAX_PLAYERS:
            raise InvalidAction(f"{self.TITLE} needs {self.MIN_PLAYERS} to {self.MAX_PLAYERS} players, "
                                f"got {len(players)}")
        seats = [p[0] for p in players]
        if len(set(seats)) != len(seats):
            raise InvalidAction(f"seats must be distinct, got {seats}")
        if any(len(p) > 2 and (isinstance(p[2], bool) or not isinstance(p[2], int) or p[2] < 0)  # type: ignore[misc]
               for p in players):
            raise InvalidAction("every player brings a whole, non-negative number of chips")
        self.settings = settings
        self.rng = rng if rng is not None else HashRng()
        self.initial_rng = self.rng.to_data()
        self.fair = FairDeal(self.rng)  # each round's seed, commitment and chance (engine.fairness)
        self.players: dict[int, Any] = {p[0]: self._new_player(p) for p in sorted(players, key=lambda p: p[0])}
        self.initial_players = [(p.seat, p.name, p.stack) for p in self.players.values()]
        self.sat_in: list[tuple[int, str, int]] = []  # (seat, name, chips) of players who sat in later
        self.history = ActionLog()
        self.phase = WAITING
        self.round_no = 0  # rounds started at this table
        self.round_log: list[Record] = []  # this round's records (the views' recent log)
        self.standings: list[dict[str, Any]] | None = None

    def _new_player(self, spec: Sequence[Any]) -> Any:
        """The player record of a ``(seat, name, chips)`` spec."""
        return self.PLAYER(spec[0], spec[1], spec[2])

    # ----------------------------------------------------------- seats

    @property
    def seats(self) -> list[int]:
        """Every seat, clockwise (ascending)."""
        return list(self.players)

    def left_of(self, seat: int, among: Iterable[int] | None = None) -> int:
        """The next seat clockwise after ``seat`` among ``among`` (default: every seat)."""
        ring = self.seats if among is None else sorted(among)
        later = [s for s in ring if s > seat]
        return later[0] if later else ring[0]

    def right_of(self, seat: int, among: Iterable[int] | None = None) -> int:
        """The seat before ``seat`` clockwise among ``among`` (default: every seat)."""
        ring = self.seats if among is None else sorted(among)
        earlier = [s for s in ring if s < seat]
        return earlier[-1] if earlier else ring[-1]

    def clockwise_from(self, seat: int, among: Iterable[int] | None = None) -> list[int]:
        """The seats of ``among`` (default: every seat), clockwise, from ``seat`` on (``seat`` first if it is one)."""
        ring = self.seats if among is None else sorted(among)
        return [s for s in ring if s >= seat] + [s for s in ring if s < seat]

    # ----------------------------------------------------------- queries

    @property
    def status(self) -> Status:
        if self.phase == WAITING:
            return Status.BETWEEN_ROUNDS
        return Status.OVER if self.phase == OVER else Status.PLAYING

    def to_act(self) -> list[int]:  # pragma: no cover - every game says
        raise NotImplementedError

    def allowed(self, seat: int) -> dict[str, Any]:  # pragma: no cover - every game says
        """What ``seat`` may do now, by action kind: the one statement of legality (empty: nothing now)."""
        raise NotImplementedError

    def legal_actions(self, seat: int) -> list[Any]:
        """Every action ``seat`` may take now (empty if it has nothing to do), from :meth:`allowed`: the cut's
        positions, and each other kind's :meth:`moves`."""
        actions: list[Any] = []
        for kind, allowed in self.allowed(seat).items():
            if kind == "cut":
                actions += [Cut(None)] + [Cut(k) for k in range(allowed[0], allowed[1] + 1)]
            else:
                actions += self.moves(kind, allowed)
        return actions

    def moves(self, kind: str, allowed: Any) -> list[Any]:
        """Every action of ``kind`` (not the cut) that ``allowed`` (what :meth:`allowed` gave for it) permits;
        a game says for each kind that carries something. A kind that carries nothing (``allowed`` is ``None``)
        is one action: the one its kind alone makes."""
        if allowed is None:
            return [self.PARSE({"kind": kind})]
        raise NotImplementedError(f"{type(self).__name__}.moves: the actions of {kind!r}")

    def cut_range(self) -> tuple[int, int]:
        """The positions a cut of the pack (``self.deck``) may take: each part keeps :data:`MIN_CUT_PART`."""
        return MIN_CUT_PART, len(self.deck) - MIN_CUT_PART  # type: ignore[attr-defined]

    def stacks(self) -> dict[int, int]:
        """Each seat's chips in hand (not counting what is staked in the current round)."""
        return {p.seat: p.stack for p in self.players.values()}

    def holdings(self) -> dict[int, int]:
        """The chips still each seat's own (:meth:`engine.contract.Game.holdings`): its stack, where a game
        puts what is staked in a pot the table shares (a game whose stake stays a seat's says so)."""
        return self.stacks()

    def chance_drawn(self) -> tuple[int, ...]:
        return self.fair.drawn(self.rng)

    # ----------------------------------------------------------- applying

    def apply(self, seat: int | None, action: Any) -> list[Record]:
        """Apply ``action`` by ``seat`` (``None`` for table actions) and return what happened."""
        self.check(seat, action)
        records = self._apply_table[type(action)](self, seat, action)
        self.history.append(seat, action)
        self.round_log.extend(records)
        if self.fair.open and self.status is not Status.PLAYING:
            return records + self.fair.reveal(self.history)  # the round is over: its seed is told (not logged)
        return records

    def check(self, seat: int | None, action: Any) -> None:
        """Raise the typed error that :meth:`apply` would raise; change nothing."""
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
        if seat not in self.players:
            raise IllegalAction(action, f"there is no player at seat {seat}")
        if self.fair.seeding:
            raise NotYourTurn(action, SEALING)
        allowed = self.allowed(seat)
        if not allowed:
            raise NotYourTurn(action, f"seat {seat} is not to act now ({self._waiting_for()})")
        kind = action.kind
        if kind not in allowed:
            raise IllegalAction(action, self._not_now(action, allowed))
        if kind == "cut":
            low, high = allowed["cut"]
            if action.position is not None and not low <= action.position <= high:
                raise IllegalAction(action, f"cut position must be {low} to {high} so each part keeps "
                                            f"{MIN_CUT_PART} cards")
        elif allowed[kind] is not None:
            self.check_move(seat, action, allowed[kind])

    def check_move(self, seat: int, action: Any, allowed: Any) -> None:
        """The game's checks of an action of a kind allowed now (``allowed``: what :meth:`allowed` gave
        for it, never ``None``); raise :class:`~engine.errors.IllegalAction` saying why."""

    def _not_now(self, action: Any, allowed: Mapping[str, Any]) -> str:
        """Why an action of a kind :meth:`allowed` leaves out is refused, in the player's terms."""
        return f"now is the time to {next(iter(allowed))}"

    def _waiting_for(self) -> str:
        seats = self.to_act()
        return f"waiting for seat(s) {seats}" if seats else f"nobody is to act in phase {self.phase}"

    def _check_table_action(self, action: Any) -> None:
        if isinstance(action, StartRound):
            if self.phase != WAITING:
                raise IllegalAction(action, f"a {self.ROUND} is already in progress")
            self._check_start(action)
        elif isinstance(action, SetAway):
            if action.seat not in self.players:
                raise IllegalAction(action, f"there is no player at seat {action.seat}")
        elif isinstance(action, SitIn):
            if not self.TAKES_SIT_IN:
                raise IllegalAction(action, f"{self.TITLE} takes no new players during a game")
            if action.seat in self.players:
                raise IllegalAction(action, f"seat {action.seat} is taken")
            if len(self.players) >= self.MAX_PLAYERS:
                raise IllegalAction(action, f"a game has at most {self.MAX_PLAYERS} players")
            self._check_sit_in(action)

    def _check_start(self, action: StartRound) -> None:
        """What else a new round needs (raise :class:`~engine.errors.IllegalAction`)."""

    def _check_sit_in(self, action: SitIn) -> None:
        """What else a game that takes new players asks of one (the chips they bring)."""

    # ----------------------------------------------------------- the table's actions

    def _start_round(self) -> list[Record]:  # pragma: no cover - every game says
        """Start the next round; its last records are ``fair.begin_round(self, seats)``'s."""
        raise NotImplementedError

    def _fair(self, seat: int | None, action: Any) -> list[Record]:
        """A fair deal's action (:mod:`engine.fairness`)."""
        return self.fair.apply(seat, action)

    def _set_away(self, action: SetAway) -> list[Record]:
        self.players[action.seat].away = action.away
        return [Record("away" if action.away else "back", action.seat)]

    def _sit_in(self, action: SitIn) -> list[Record]:
        """A new player takes a free seat with ``chips`` (a game with ``TAKES_SIT_IN`` deals them in next)."""
        self.players[action.seat] = self._new_player((action.seat, action.name, action.chips))
        self.players = dict(sorted(self.players.items()))  # seats clockwise, as everything here reads them
        self.sat_in.append((action.seat, action.name, action.chips))
        return [Record("sit_in", action.seat, {"name": action.name, "chips": action.chips})]

    def _end_game(self, reason: str) -> list[Record]:
        """The table stops: chips still staked (``STAKE``) go back to their owners, the standings are told."""
        refunds = []
        for p in self.players.values():
            staked = getattr(p, self.STAKE)
            if staked:
                refunds.append({"seat": p.seat, "chips": staked})
                p.stack += staked
                setattr(p, self.STAKE, 0)
        self.phase = OVER
        ranked = sorted(self.players.values(), key=lambda p: (-p.stack, p.seat))
        self.standings = [{"seat": p.seat, "name": p.name, "stack": p.stack, "brought": self._brought_by(p.seat)}
                          for p in ranked]
        return [Record("game_over", None, {"reason": reason, "refunds": refunds, "standings": self.standings})]

    def _brought_by(self, seat: int) -> int:
        return next(stack for s, _, stack in self.initial_players + self.sat_in if s == seat)

    # ----------------------------------------------------------- chance

    def _first_shuffle(self) -> None:
        """At a round's first seat action: the round's first shuffle, of the sorted pack the seeds fixed."""
        if not self.fair.shuffled:
            self.fair.shuffle(self.deck)  # type: ignore[attr-defined]

    def _cut_position(self, action: Cut) -> int:
        """Where ``action`` cuts the pack; a random cut draws from the round's deal stream."""
        if action.position is not None:
            return action.position
        return MIN_CUT_PART + self.fair.randbelow(len(self.deck) - 2 * MIN_CUT_PART + 1)  # type: ignore[attr-defined]

    # ----------------------------------------------------------- persistence

    def _state_data(self) -> dict[str, Any]:  # pragma: no cover - every game says
        """The game's own saved state, in its order: ``players``, ``phase``, ``round_no``, ``round_log``
        and ``standings`` among it (restored by the base), and everything else :meth:`_restore` reads."""
        raise NotImplementedError

    def _restore(self, data: Mapping[str, Any]) -> None:
        """Restore the game's own state from :meth:`_state_data`'s fields."""

    def to_data(self, history: bool = True) -> dict[str, Any]:
        """The full state as plain data (msgpack/JSON friendly).

        ``history=False`` leaves out the action history, for callers that keep
        it elsewhere (the server's action log): it grows with every action.
        """
        data = {
            "settings": self.settings.to_data(), "rng": self.rng.to_data(), "initial_rng": self.initial_rng,
            "fair": self.fair.to_data(), "initial_players": [list(p) for p in self.initial_players],
            **self._state_data(),
        }
        if self.sat_in:  # absent when nobody sat in, as in checkpoints written before sitting in existed
            data["sat_in"] = [list(p) for p in self.sat_in]
        if history:
            data["history"] = [[s, a] for s, a in self.history]
        return data

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Any:
        game = cls.__new__(cls)
        game.settings = cls.SETTINGS.from_data(data["settings"])  # type: ignore[attr-defined]
        game.rng = HashRng.from_data(data["rng"])
        game.initial_rng = data["initial_rng"]
        game.fair = FairDeal.from_data(data.get("fair"), game.rng)  # absent: a checkpoint from before fair deals
        game.initial_players = [tuple(p) for p in data["initial_players"]]
        game.sat_in = [tuple(p) for p in data.get("sat_in", ())]
        game.players = {p["seat"]: cls.PLAYER.from_data(p) for p in data["players"]}  # type: ignore[attr-defined]
        game.phase, game.round_no, game.standings = data["phase"], data["round_no"], data["standings"]
        game.round_log = [Record.from_data(r) for r in data["round_log"]]
        game.history = ActionLog(data.get("history", ()), cls.PARSE)
        game._restore(data)
        return game

    @classmethod
    def replay(cls, settings: Any, players: Sequence[tuple[int, str] | tuple[int, str, int]],
               rng_data: dict[str, Any], history: Iterable[tuple[int | None, dict[str, Any]]]) -> Any:
        """Rebuild a game from its starting RNG state and action history."""
        game = cls(settings, players, HashRng.from_data(rng_data))
        for seat, action in history:
            game.apply(seat, cls.PARSE(action))
        return game


# ----------------------------------------------------------------- the game type


class CardGameType:
    """The :class:`~engine.contract.GameType` contract's pass-through part, derived from ``GAME``.

    A game's type gives ``GAME`` (its :class:`CardGame` class), ``EVENTS`` (its module with
    ``describe(event)``, the one wording of its events), ``ROUNDS`` (its module with
    ``round_record(game)``, ``public_round(record)`` and ``round_outcome(public, seat)``), ``name``,
    ``title``, ``bot_levels``, ``default_bot_level``, ``practice_bots`` and ``fair_names``, and its own
    ``bot_action``, ``timeout_action``, ``buy_in``, ``warm_up`` and :meth:`progress`. Seats and
    settings come from ``GAME``.
    """

    GAME: ClassVar[type[CardGame]]
    EVENTS: ClassVar[Any]
    ROUNDS: ClassVar[Any]
    name: ClassVar[str]
    title: ClassVar[str]
    bot_levels: ClassVar[tuple[str, ...]]
    default_bot_level: ClassVar[str]
    practice_bots: ClassVar[int]
    """How many bots a practice game seats when the player does not say (at most ``max_seats - 1``)."""
    fair_names: ClassVar[Mapping[str, str]] = {}
    min_seats: ClassVar[int]
    max_seats: ClassVar[int]
    setting_fields: ClassVar[tuple[SettingField, ...]]

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        game = cls.GAME
        cls.min_seats, cls.max_seats = game.MIN_PLAYERS, game.MAX_PLAYERS
        cls.setting_fields = game.SETTINGS.FIELDS  # type: ignore[attr-defined]

    def describe(self, event: Mapping[str, Any]) -> list[Part] | None:
        return self.EVENTS.describe(event)  # type: ignore[no-any-return]

    def round_record(self, game: Any) -> dict[str, Any]:
        return self.ROUNDS.round_record(game)  # type: ignore[no-any-return]

    def public_round(self, record: Mapping[str, Any]) -> dict[str, Any]:
        return self.ROUNDS.public_round(record)  # type: ignore[no-any-return]

    def round_outcome(self, public: Mapping[str, Any], seat: int) -> str:
        return self.ROUNDS.round_outcome(public, seat)  # type: ignore[no-any-return]

    def settings(self, data: Mapping[str, Any] | None = None) -> FieldSettings:
        return self.GAME.SETTINGS.from_data(dict(data or {}))  # type: ignore[attr-defined, no-any-return]

    def new(self, settings: Any, players: Sequence[tuple[int, str, int]], rng: HashRng) -> CardGame:
        return self.GAME(settings, players, rng)

    def from_data(self, data: Mapping[str, Any]) -> CardGame:
        return self.GAME.from_data(dict(data))  # type: ignore[no-any-return]

    def action_from_data(self, data: object) -> Any:
        return self.GAME.PARSE(data)

    def summary(self, game: Any) -> str:
        """A short line for lobbies and history: how the game ended, not started, or :meth:`progress`."""
        if game.phase == OVER and game.standings:
            best = game.standings[0]
            return f"{self.ended(game)}: {best['name']} finished with {best['stack']}"
        if game.round_no == 0:
            return "Not started"
        return self.progress(game)

    def ended(self, game: Any) -> str:
        """The summary's words for a game that is over, before who finished best."""
        return f"Game over after {plural(game.round_no, 'round')}"

    def progress(self, game: Any) -> str:  # pragma: no cover - every game says
        """The summary of a game under way: the round, and who leads."""
        raise NotImplementedError


def plural(n: int, word: str) -> str:
    """``1 round``, ``2 rounds``."""
    return f"{n} {word}" if n == 1 else f"{n} {word}s"
