"""The game contract: what every game gives the rest of the system, and the table actions.

The server, the store, the export and the clients know a game only through
these protocols. A :class:`GameType` (one per game, found by name with
:func:`engine.games.find_game`) owns every fact the other layers must not
copy: its name and title, how many may sit, its settings with their defaults
and limits, its one action schema, its bot and timeout moves, its summaries,
how chips settle, and the one wording of its events (:data:`Part`). A :class:`Game` (one
per table) is the state machine: who is to act, what they decided, apply an
action (rejected with a typed :class:`~engine.errors.EngineError`, changing
nothing), what each seat may see, and the plain data that restores it.

Two shapes of game are meant to fit: a draw-and-discard game with a pot and
showdowns (Down and Back: antes into a pot, paid to the showdown's winner)
and a pegging game with a crib (Cribbage: a stake per game, paid by the loser
when a game ends). The contract therefore speaks of *rounds* (a hand, a deal)
inside a *game*, and of chips only through :meth:`Game.chips_in_play` and the
records' settlement parts, never of pots or pegs.

The table actions (:class:`StartRound`, :class:`EndGame`, :class:`SetAway`,
:class:`SitIn`) are the table's, not a seat's: the server applies them with
``seat=None`` to any game, and every game's action parser accepts them (a game
may refuse :class:`SitIn` by its rules).
"""

from __future__ import annotations

import enum
import re
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, Mapping, Protocol, Sequence, Union

from .errors import InvalidAction
from .fairness import FAIR_ACTION_FIELDS, ClientSeed, FairBinding, FixDeck, SealSeeds, SeedCommit, fair_action_from_data
from .records import ActionLog, Record
from .rng import HashRng

# ----------------------------------------------------------------- actions


class Action(Protocol):
    """Any game's action: a frozen value with a ``kind`` and a plain-data form."""

    kind: ClassVar[str]

    def to_data(self) -> dict[str, Any]: ...


@dataclass(frozen=True, slots=True)
class StartRound:
    """Table action: start the next round (collect antes or stakes, deal)."""

    kind: ClassVar[str] = "start_round"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class EndGame:
    """Table action: stop playing; chips still in play go back as the game's rules say."""

    kind: ClassVar[str] = "end_game"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind}


@dataclass(frozen=True, slots=True)
class SetAway:
    """Table action: a seat sits out from the next round on, or comes back."""

    seat: int
    away: bool
    kind: ClassVar[str] = "set_away"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "away": self.away}


@dataclass(frozen=True, slots=True)
class SitIn:
    """Table action: a new player takes the free ``seat`` of a running game with ``chips``,
    dealt in from the next round. A game whose rules take nobody new during a game (its
    players are fixed when it starts) rejects it with :class:`~engine.errors.IllegalAction`,
    saying so; one that takes it counts ``chips`` in :meth:`Game.chips_in_play` from then on.
    """

    seat: int
    name: str
    chips: int
    kind: ClassVar[str] = "sit_in"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "seat": self.seat, "name": self.name, "chips": self.chips}


TableAction = Union[StartRound, EndGame, SetAway, SitIn]
TABLE_ACTIONS: tuple[type, ...] = (StartRound, EndGame, SetAway, SitIn)
TABLE_ACTION_FIELDS: dict[str, set[str]] = {"start_round": set(), "end_game": set(), "set_away": {"seat", "away"},
                                            "sit_in": {"seat", "name", "chips"}, **FAIR_ACTION_FIELDS}
"""The fields of the actions every game parses: the table actions, and the fair deal's
(:data:`engine.fairness.FAIR_ACTIONS`: every game's deal is fair the same way)."""
FairAction = Union[SeedCommit, ClientSeed, SealSeeds, FixDeck, FairBinding]


def action_kind(data: object) -> str:
    """The ``kind`` of an action's plain data, or :class:`InvalidAction` if it has none."""
    if not isinstance(data, dict) or not isinstance(data.get("kind"), str):
        raise InvalidAction(f"an action is a map with a 'kind', got {data!r}")
    return data["kind"]


def check_fields(data: Mapping[str, Any], kind: str, fields: Mapping[str, set[str]]) -> None:
    """Reject a kind the schema ``fields`` (kind -> field names) lacks, or data without exactly its fields
    (a nil field is sent as nil, not left out)."""
    if kind not in fields:
        raise InvalidAction(f"unknown action kind {kind!r}")
    extra = set(data) - fields[kind] - {"kind"}
    if extra:
        raise InvalidAction(f"unexpected field(s) {sorted(extra)} for action {kind!r}")
    missing = fields[kind] - set(data)
    if missing:
        raise InvalidAction(f"missing field(s) {sorted(missing)} for action {kind!r}")


def plain_int(value: object, what: str) -> int:
    """``value`` if it is an integer (not a bool), else :class:`InvalidAction` naming ``what``."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise InvalidAction(f"{what} must be an integer, got {value!r}")
    return value


def table_action_from_data(data: Mapping[str, Any]) -> TableAction | FairAction:
    """A table action (or a fair deal's action) from plain data whose kind and fields :func:`check_fields`
    accepted."""
    kind = data["kind"]
    if kind in FAIR_ACTION_FIELDS:
        return fair_action_from_data(data)
    if kind == "start_round":
        return StartRound()
    if kind == "end_game":
        return EndGame()
    if kind == "sit_in":
        name = data.get("name")
        if not isinstance(name, str) or not name:
            raise InvalidAction(f"sit_in 'name' must be a non-empty string, got {name!r}")
        return SitIn(plain_int(data.get("seat"), "sit_in seat"), name, plain_int(data.get("chips"), "sit_in chips"))
    away = data.get("away")
    if not isinstance(away, bool):
        raise InvalidAction(f"set_away 'away' must be true or false, got {away!r}")
    return SetAway(plain_int(data.get("seat"), "set_away seat"), away)


# ----------------------------------------------------------------- wording

Part = dict[str, Any]
"""One piece of an event's wording: ``{"text": str}``, ``{"seat": int | None}``
(a player, or the table for ``None``; with ``"possessive": True`` their
"alice's"; with ``"name"``, what to call a seat the reader may no longer know, one
that has just been left), ``{"card": "10H"}``, ``{"cards": [...]}`` or ``{"chips": int}``;
and a word that agrees with a player, :func:`verb`: ``{"text": " deals", "you":
" deal", "subject": seat}`` (a verb, or a pronoun such as "them"). A reader
styles seats, cards and chips as it likes; a client words its own seat in the
second person ("You drew the lowest card, 4♠, and deal first": every word
about it in its "you" form, "Your crib"), and a reader that knows nothing of
persons reads every part's "text" (:func:`plain_text`, the export's)."""

_SECOND_PERSON = {"is": "are", "has": "have", "was": "were", "does": "do", "goes": "go",
                  "they": "you", "them": "you", "their": "your", "themselves": "yourself"}


def second_person(word: str) -> str:
    """The form of a third-person ``word`` (a verb, or a pronoun) that goes with "you": "deals" -> "deal",
    "is" -> "are", "them" -> "you"; a word that is the same for both ("drew", "ran") unchanged."""
    if word in _SECOND_PERSON:
        return _SECOND_PERSON[word]
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("sses", "shes", "ches", "xes", "zes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith(("ss", "us")):
        return word[:-1]
    return word


def verb(subject: int | None, word: str) -> Part:
    """``word`` (third person: "deals", "is", "them") agreeing with the player ``subject``: a reader
    writes its ``you`` form where ``subject`` is its own seat."""
    return {"text": word, "you": second_person(word), "subject": subject}


_MARKED = re.compile(r"\{([a-z]+)\}")


def about(subject: int | None, text: str) -> list[Part]:
    """Text about the player ``subject`` with the words that agree with them in braces:
    ``about(seat, " {cuts} at 12 and {draws} ")`` -> the text parts and :func:`verb` parts."""
    parts: list[Part] = []
    for i, piece in enumerate(_MARKED.split(text)):
        if i % 2:
            parts.append(verb(subject, piece))
        elif piece:
            parts.append({"text": piece})
    return parts


def possessive(seat: int | None) -> Part:
    """The player's "alice's" ("your" for a reader's own seat; "the table's" for ``None``)."""
    return {"seat": seat, "possessive": True}


TABLE_EVENT_KINDS = frozenset({"timeout", "joined", "left", "offline", "online", "removing", "removed",
                               "rematch", "rematch_answer", "rematch_cancelled", "rematch_started"})
"""The kinds of the events the server makes itself, about the table and not the game (PROTOCOL.md 5.6):
no replay of a round makes them, so the check of a deal leaves them out (:func:`engine.fairness.verify`)."""


def _member(event: Mapping[str, Any]) -> Part:
    """The seat an event of the table is about, with the name it had (the seat may have been left since)."""
    part: Part = {"seat": event.get("seat")}
    if isinstance(event.get("name"), str):
        part["name"] = event["name"]
    return part


def _left(event: Mapping[str, Any]) -> str:
    if event.get("held"):
        return " {leaves} the table: the seat is kept and played for {them}"
    return " {is} offline: the seat is free again" if event.get("offline") else " {leaves} the table"


def describe_table_event(event: Mapping[str, Any]) -> list[Part] | None:
    """The wording of the events that are the same for every game: ``timeout`` (the table played for
    a seat whose clock ran out, or whose player is offline), who joins, leaves, goes offline and comes
    back, the rematch's, the fair deal's (:mod:`engine.fairness`) and the host's removal of a player;
    ``None`` for any other kind."""
    kind = event.get("kind")
    seat = event.get("seat")
    if kind == "timeout":
        if event.get("offline"):
            return [{"seat": seat}, *about(seat, " {is} offline: played for {them}")]
        return [{"seat": seat}, {"text": " ran out of time: played automatically"}]
    if kind == "joined":
        return [_member(event), *about(seat, " {comes} back to the table" if event.get("back") else " {joins} the table")]
    if kind == "left":
        return [_member(event), *about(seat, _left(event))]
    if kind == "offline":
        return [_member(event), *about(seat, " {is} offline: the seat is kept")]
    if kind == "online":
        return [_member(event), *about(seat, " {is} back online")]
    if kind == "rematch":
        return [{"seat": event.get("seat")}, *about(event.get("seat"), " {offers} a rematch: same seats, same settings")]
    if kind == "rematch_answer":
        return [{"seat": event.get("seat")}, *about(event.get("seat"), " {accepts} the rematch")]
    if kind == "rematch_cancelled":
        return [{"text": f"No rematch: {event.get('reason')}"}]
    if kind == "rematch_started":
        return [{"text": f"The rematch is being played at table {event.get('table_id')}"}]
    if kind == "deal_commit":
        return [{"text": f"The deal of round {event.get('round')} is committed: {str(event.get('commitment'))[:16]}"}]
    if kind == "seed_commit":
        return [{"seat": event.get("seat")}, *about(event.get("seat"), " {commits} to a seed")]
    if kind == "seed_set":
        count = len(event.get("commits") or ())
        return [{"text": f"Seeds sealed after {event.get('after_ms')} ms: {count} committed"}]
    if kind == "client_seed":
        return [{"seat": event.get("seat")}, *about(event.get("seat"), " {reveals} the seed")]
    if kind == "deck_fixed":
        seeds, withheld = event.get("client_seeds") or (), event.get("withheld") or ()
        text = f"The deck is fixed from the server's seed and {len(seeds)} client seed{'s' * (len(seeds) != 1)}"
        parts: list[Part] = [{"text": text}]
        for seat in withheld:
            parts += [{"text": "; withheld by "}, {"seat": seat}]
        return parts
    if kind == "deal_reveal":
        return [{"text": f"Round {event.get('round')}'s seed revealed: {str(event.get('seed'))[:16]}"}]
    if kind == "removing":
        seat = event.get("seat")
        return [{"seat": seat}, *about(seat, " {is} removed by the host when this round ends")]
    if kind == "removed":
        if event.get("you"):
            return [{"text": "The host removed you from this table"}]
        seat = event.get("seat")
        if seat is None:  # a spectator
            return [{"text": f"{event.get('name') or 'A spectator'} (watching) was removed from the table by the host"}]
        return [{"seat": seat}, *about(seat, " {was} removed from the table by the host")]
    return None


def plain_text(parts: Sequence[Part], name_of: Callable[[int | None], str]) -> str:
    """An event's parts as one plain line, seats named by ``name_of`` (or by the name a part carries)."""
    out = []
    for part in parts:
        if "text" in part:
            out.append(part["text"])
        elif "seat" in part:
            name = part["name"] if "name" in part else name_of(part["seat"])
            out.append(name + ("'s" if part.get("possessive") else ""))
        elif "card" in part:
            out.append(part["card"])
        elif "cards" in part:
            out.append(" ".join(part["cards"]))
        else:
            out.append(str(part["chips"]))
    return "".join(out)


# ----------------------------------------------------------------- settings


@dataclass(frozen=True)
class SettingField:
    """One of a game's settings, as a lobby's form or a protocol schema needs it.

    ``choices`` lists every allowed value when there are few; otherwise
    ``minimum`` / ``maximum`` bound an integer. The game's settings class is
    the one place that checks them (its ``from_data`` raises :class:`InvalidAction`).
    ``label`` is the setting's short name ("Early call"); ``hint`` says what a
    choice means where the name alone does not ("end drawing with this orbit";
    for two choices, what the second one is: "Seven turns instead of six").
    """

    name: str
    label: str
    default: int | bool
    minimum: int | None = None
    maximum: int | None = None
    choices: tuple[int | bool, ...] | None = None
    hint: str = ""


class Settings(Protocol):
    """A game's agreed terms: validated when made, plain data both ways."""

    def to_data(self) -> dict[str, Any]: ...


class FieldSettings:
    """A frozen dataclass of settings, one attribute per :class:`SettingField` of ``FIELDS``.

    A game names its fields and nothing else: ``class Settings(FieldSettings, fields=SETTING_FIELDS)``
    becomes a frozen dataclass with one attribute per field, in their order, each defaulting to its
    field's default. The fields are the one owner of the limits: :meth:`check_fields` (run when
    settings are made) rejects a value outside its field's choices or bounds (a bool is no
    integer); a game checks only what ties settings together, in :meth:`check_together`.
    """

    FIELDS: ClassVar[tuple[SettingField, ...]] = ()

    def __init_subclass__(cls, fields: Sequence[SettingField] | None = None, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if fields is None:
            return
        cls.FIELDS = tuple(fields)
        cls.__annotations__ = {f.name: type(f.default).__name__ for f in cls.FIELDS}
        for f in cls.FIELDS:
            setattr(cls, f.name, f.default)
        dataclass(frozen=True)(cls)  # in place: the class keeps its name, its docstring and its methods

    def __post_init__(self) -> None:
        self.check_fields()
        self.check_together()

    def check_together(self) -> None:
        """What ties settings together (a game's own check; raise :class:`InvalidAction`)."""

    def check_fields(self) -> None:
        for field in self.FIELDS:
            value = getattr(self, field.name)
            if field.choices is not None:
                if not any(type(value) is type(choice) and value == choice for choice in field.choices):
                    choices = " or ".join(str(c).lower() if isinstance(c, bool) else str(c) for c in field.choices)
                    raise InvalidAction(f"{field.name} must be {choices}, got {value!r}")
            elif type(value) is not int or not field.minimum <= value <= field.maximum:  # type: ignore[operator]
                raise InvalidAction(f"{field.name} must be a whole number from {field.minimum} to "
                                    f"{field.maximum}, got {value!r}")

    def to_data(self) -> dict[str, Any]:
        return {field.name: getattr(self, field.name) for field in self.FIELDS}

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Any:
        """Settings from plain data; missing fields take their defaults, unknown ones are rejected."""
        unknown = set(data) - {field.name for field in cls.FIELDS}
        if unknown:
            raise InvalidAction(f"unknown setting(s) {sorted(unknown)}")
        return cls(**data)


# ----------------------------------------------------------------- the game


class Status(str, enum.Enum):
    """Where a game stands, in the words every layer uses."""

    BETWEEN_ROUNDS = "between_rounds"  # a table action (start_round) is awaited
    PLAYING = "playing"  # some seat is to decide
    OVER = "over"  # nothing more can happen


class Game(Protocol):
    """One table's game (see the module docstring).

    ``fair`` is its :class:`~engine.fairness.FairDeal`: every game deals the same fair way, and keeps
    the rule stated in :mod:`engine.fairness` (while ``fair.seeding`` nobody is to act and no chance
    is drawn; the deck is first shuffled at the first seat action after the deck is fixed).
    """

    settings: Settings
    fair: Any  # engine.fairness.FairDeal
    history: ActionLog  # every applied action, as plain data
    initial_rng: dict[str, Any]  # with ``history``, replays the game exactly
    initial_players: list[tuple[int, str, int]]  # (seat, name, chips brought)

    @property
    def status(self) -> Status: ...

    def to_act(self) -> list[int]:
        """Seats whose decision the game waits for (several when they decide together)."""

    def decision(self) -> tuple[Any, ...] | None:
        """A hashable id of the decision now awaited, ``None`` when no seat is to act.

        It changes whenever a new decision is awaited (so a server keys its
        deadlines on it and a client knows a prompt is new) and only then.
        """

    def turn_id(self) -> tuple[Any, ...] | None:
        """A hashable id of the turn now under way, ``None`` when no seat is to act.

        A turn is one seat's whole say and may take several decisions (Down
        and Back's draw, then its discard); a game whose every decision is a
        turn returns :meth:`decision`. A seat whose clock runs out has its
        whole turn played: the table applies the game's ``timeout_action``
        while the seat is to act and ``turn_id()`` is unchanged.
        """

    def legal_actions(self, seat: int) -> list[Any]:
        """Every action ``seat`` may take now (empty if it has nothing to do)."""

    def check(self, seat: int | None, action: Any) -> None:
        """Raise the typed error :meth:`apply` would raise for this action; change nothing.

        The table asks it before it schedules a table action (can the next
        round start now, or is every seat able to play away or broke?).
        """

    def apply(self, seat: int | None, action: Any) -> list[Record]:
        """Apply ``action`` by ``seat`` (``None``: a table action); a rejection changes nothing."""

    def view(self, seat: int | None) -> dict[str, Any]:
        """What ``seat`` may know, as plain string-keyed data (``None``: a spectator)."""

    def all_cards(self) -> list[Any]:
        """Every card wherever it lies (deck, hands, piles, crib): always the game's whole deck."""

    def stacks(self) -> dict[int, int]:
        """Each seat's chips in hand (not counting what is staked in the current round)."""

    def holdings(self) -> dict[int, int]:
        """Each seat's chips at the table that are still its own: its stack and what it has staked that
        nobody has won yet (a Cribbage game's stake, at risk until the game is won); a pot the players
        have already put in together (Down and Back's, even one carried over) is not counted. A
        player's result over rounds is the change in this (the chart, the history's chips)."""

    def chips_in_play(self) -> int:
        """All chips the game holds (stacks and anything staked); constant through a game but for
        the chips a :class:`SitIn` brings."""

    def to_data(self, history: bool = True) -> dict[str, Any]:
        """The full state as plain data; ``history=False`` leaves the action log out."""

    def chance_drawn(self) -> tuple[int, ...]:
        """Where the game's chance stands (a shuffle, a cut, a seed drawn): it changes with every draw
        and with nothing else. Between two draws the state follows from the actions alone, whatever
        engine applies them; the server checkpoints the whole state after each draw."""


class GameType(Protocol):
    """Everything about one game that the rest of the system may ask (see the module docstring)."""

    name: str  # stable id, stored with every game: "down-and-back"
    title: str  # shown to people: "Down and Back"
    min_seats: int
    max_seats: int
    setting_fields: tuple[SettingField, ...]
    bot_levels: tuple[str, ...]  # the levels a host may pick for a bot, weakest first ("easy", "strong", ...)
    default_bot_level: str  # the level of a bot added without one
    practice_bots: int  # the bots a practice game seats when the player does not say (1..max_seats - 1)
    fair_names: Mapping[str, str]  # what a verifier calls each event kind that shows chance: {"take_stock": "stock card"}

    def settings(self, data: Mapping[str, Any] | None = None) -> Settings:
        """Validated settings from plain data; a missing field takes its default."""

    def new(self, settings: Settings, players: Sequence[tuple[int, str, int]], rng: HashRng) -> Game:
        """A new game for ``(seat, name, chips)`` players, chance from ``rng`` alone."""

    def from_data(self, data: Mapping[str, Any]) -> Game:
        """The game :meth:`Game.to_data` described."""

    def action_from_data(self, data: object) -> Any:
        """The game's one action schema: plain data to an action, or :class:`InvalidAction`."""

    def bot_action(self, game: Game, seat: int, level: str | None = None) -> Any:
        """The choice of a bot of ``level`` (one of :attr:`bot_levels`; ``None``: :attr:`default_bot_level`)
        for ``seat``, from what that seat may know only. A bot that draws lots draws them from
        :func:`engine.rng.bot_rng` of the game and the decision alone, so the same game state gives the
        same choice (a replay or a restored table reproduces it)."""

    def timeout_action(self, game: Game, seat: int) -> Any:
        """The safe, passive choice played for a seat whose clock ran out."""

    def buy_in(self, settings: Settings) -> tuple[int, int]:
        """``(least, most)`` chips a seat brings to a game with ``settings``: a player with fewer
        than ``least`` cannot play; each brings ``most`` (its whole balance if that is smaller)."""

    def round_record(self, game: Game) -> dict[str, Any]:
        """The round that has just ended (the table asks when ``status`` leaves ``PLAYING``) as
        plain data, kept in full by the store. Besides the game's own fields it holds ``round``
        (the round's number), ``result`` (``None``: the game ended before the round did) and
        ``stacks`` (``{"seat": chips}`` after the round); the table adds where it sits in the
        action log."""

    def public_round(self, record: Mapping[str, Any]) -> dict[str, Any]:
        """What every player may see of a :meth:`round_record` (a ``history`` item): hands
        stay hidden except what the round showed everyone. Besides the game's own fields it
        holds ``players`` (``[{"seat", "name", ...}]``, the seats dealt in), ``stacks`` (as in the
        record) and ``abandoned`` (the game ended before the round did)."""

    def round_outcome(self, public: Mapping[str, Any], seat: int) -> str:
        """How a round went for one of its ``players`` (``seat``), in a few words, from its
        :meth:`public_round`: the result column of a player's history ("won the pot of 40")."""

    def summary(self, game: Game) -> str:
        """A short line for lobbies and history: the round, and who leads or won."""

    def describe(self, event: Mapping[str, Any]) -> list[Part] | None:
        """The one wording of an event as a reader sees it (a record's ``for_seat`` form), as
        :data:`Part` s; ``None`` for events that get no line of their own."""

    def warm_up(self) -> None:
        """Build now whatever the game builds on first use (lookup tables for bots, timeouts,
        showdowns), so that no later move pays for it. The server calls it for every game
        before it listens: a build on the event loop would stall every table at once."""
