"""One table: its seats and spectators, and the game they play.

A table is five modules: this one holds membership
(seats, spectators, host, bots) and the game's lifecycle (start, act, sit out,
end), and every change goes through it; :mod:`server.pacing` decides *when*
the game moves on by itself (deadlines, bots, the pause between rounds);
:mod:`server.audience` decides *who hears what* (events and views per member,
the chat), through the few methods of :class:`server.audience.Stage` a table has; :mod:`server.rounds` keeps finished rounds and the chip history;
:mod:`server.restore` brings a stored table back. The engine decides every
rule.

Everything here runs on the event loop thread and never awaits while it changes
state, so each request or timer callback is one atomic step: no locks needed.

Durability: every engine action goes through :meth:`Table.apply_action`, which
appends it to the store's action log; membership changes go through
:meth:`Table.save`. All of it joins the transaction of the request or timer
step that caused it, which the lobby commits before any reply or push leaves
(:meth:`server.lobby.Lobby.atomic`). Before the commit the lobby asks each
table it touched for a checkpoint (:meth:`Table.save_checkpoint`).
"""

from __future__ import annotations

import asyncio
import itertools
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ContextManager, Protocol

from engine.contract import TABLE_ACTIONS, Action, EndGame, Game, SetAway, Settings, SitIn, StartRound, Status
from engine.errors import EngineError, IllegalAction, InvalidAction, NotYourTurn
from engine.fairness import COMMIT, FAIR_ACTIONS, MAX_WINDOW_MS, REVEAL, FairBinding, FixDeck, SealSeeds
from engine.fingerprint import fingerprint
from engine.games import find_game
from engine.records import Record
from engine.rng import HashRng
from protocol import messages as m
from protocol.errors import ProtocolError

from .audience import Audience
from .keys import ServerKey
from .errors import RequestError, StoreError
from .pacing import DEADLINE_SLACK, Pacer
from .rematch import Rematch
from .restore import rebuild, save_checkpoint
from .rounds import RoundBook

if TYPE_CHECKING:
    from .store import Store, TableRow

BOT_NAMES = [f"{name} {m.BOT_MARK}" for name in ("Ada", "Bert", "Cleo", "Dot", "Eli")]
SEED_WINDOW_MAX = MAX_WINDOW_MS / 1000  # s: the longest seed window a server may have (engine.fairness)


def complete_settings(chosen: m.TableSettings) -> tuple[m.TableSettings, Settings]:
    """``chosen`` checked by its game, with every default filled in (``bad_settings`` if the game refuses it),
    and the game's own settings made of its rules.

    The game is the one owner of its seat range and of its rules' names,
    defaults and limits; the table keeps the complete settings it shows.
    """
    try:
        game_type = find_game(chosen.game)
    except KeyError as exc:
        raise RequestError("bad_settings", exc.args[0]) from None
    seats = game_type.max_seats if chosen.seats is None else chosen.seats
    if not game_type.min_seats <= seats <= game_type.max_seats:
        raise RequestError("bad_settings", f"{game_type.title} seats {game_type.min_seats} to "
                                           f"{game_type.max_seats} players, not {seats}")
    try:
        rules = game_type.settings(chosen.rules)
    except InvalidAction as exc:
        raise RequestError("bad_settings", str(exc)) from None
    return m.TableSettings(game=game_type.name, seats=seats, rules=rules.to_data()), rules


def settings_to_store(settings: m.TableSettings) -> dict[str, Any]:
    """What the store keeps of a table's complete settings beside its ``game`` column: seats and rules."""
    return {"seats": settings.seats, "rules": settings.rules}


def stored_settings(data: dict[str, Any], game: str) -> m.TableSettings:
    """A table's settings as the store holds them (:func:`settings_to_store`) for a table playing ``game``.

    A table stored by protocol version 1's server holds Down and Back's rules
    and ``seats`` in one map (``ante`` and ``stack`` always set).
    """
    if "rules" not in data:
        data = {"seats": data.get("seats"), "rules": {k: v for k, v in data.items() if k != "seats"}}
    return complete_settings(m.TableSettings(game=game, seats=data["seats"], rules=data["rules"]))[0]


class Hub(Protocol):
    """What a table needs from the server around it."""

    actions_applied: int  # by every table, live (the health log's actions/s)
    def send(self, player_id: str, message: m.Message) -> None: ...
    def is_connected(self, player_id: str) -> bool: ...
    def tables_changed(self) -> None: ...
    def table_finished(self, table: "Table") -> None: ...
    def round_finished(self, table: "Table", record: dict[str, Any], public: dict[str, Any],
                       rows: list[tuple[str, dict[str, Any]]]) -> None: ...
    def game_finished(self, table: "Table", rows: list[tuple[str, dict[str, Any]]]) -> None: ...
    def atomic(self) -> ContextManager[None]: ...
    def balance(self, player_id: str) -> int: ...
    def move_chips(self, table: "Table", kind: str, moves: list[tuple[int, str | None, int]]) -> None: ...
    def touched(self, table: "Table") -> None: ...
    def reserve(self) -> bool: ...
    def table_dirty(self, table: "Table") -> None: ...
    def rematch(self, table: "Table") -> None: ...
    def removed_from(self, table: "Table", player_id: str) -> None: ...
    def hears(self, listener: str, speaker: str | None) -> bool: ...
    @property
    def fixed_seed(self) -> bool: ...
    key: ServerKey  # signs the fair deals (server.keys)


@dataclass
class TableConfig:
    turn_timeout: float = 60.0
    bot_delay: float = 0.6
    away_delay: float = 0.3
    absent_grace: float = 5.0  # a disconnected seat's decision is played this long after it fell to them
    round_pause: float = 6.0
    rematch_timeout: float = 60.0  # a rematch offer waits this long for every answer (server.rematch)
    seed_window: float = 3.0  # a round's seeds: each phase waits at most this long for them (docs/FAIRNESS.md §3)


@dataclass
class SeatInfo:
    seat: int
    name: str
    player_id: str | None = None  # None for a bot
    left: bool = False  # the player left a running game: auto-played, seat held
    level: str | None = None  # a bot's level (one of its game's bot_levels); None for a player

    @property
    def bot(self) -> bool:
        return self.player_id is None


class Table:
    def __init__(
        self,
        table_id: str,
        name: str,
        settings: m.TableSettings,
        host_id: str,
        private_code: str | None,
        hub: Hub,
        config: TableConfig,
        rng_factory: Callable[[], HashRng] = HashRng,
        store: Store | None = None,
    ) -> None:
        self.table_id = table_id
        self.name = name
        self.settings = settings
        self.host_id = host_id
        self.private_code = private_code
        self.hub = hub
        self.config = config
        self.rng_factory = rng_factory
        self.store = store
        self.game_type = find_game(settings.game)
        self.rules = self.game_type.settings(settings.rules)  # the game's own settings (``settings`` is complete)
        self.seats: dict[int, SeatInfo] = {}
        self.spectators: set[str] = set()
        self.game: Game | None = None
        self.away: set[int] = set()  # seats the table has set away (SetAway): their moves are played for them
        self.unattended_since: float | None = None  # when the lobby's sweep last found nobody here
        self.engine_outdated = False  # restored from its checkpoint: its log no longer replays from the seed
        self.checkpoint_mark: tuple[Any, ...] | None = None  # status and chance at the last checkpoint (restore)
        self.loop = asyncio.get_running_loop()
        self.pacer = Pacer(self)
        self.audience = Audience(self, hub)
        self.rounds = RoundBook(self)
        self.rematch: Rematch | None = None  # the host's offer at game over, while it is pending
        self.removed: set[str] = set()  # players the host removed: they may not come back (stored)
        self.seeding_since = 0.0  # loop time of the round's deal_commit (or of the restore that found it seeding)
        self.phase_since = 0.0  # loop time the seed phase under way began (its window runs from then)

    @classmethod
    def restore(
        cls, row: TableRow, hub: Hub, config: TableConfig, rng_factory: Callable[[], HashRng], store: Store | None,
    ) -> "Table":
        """Rebuild a stored table exactly: seats as stored, the game as :func:`server.restore.rebuild` brings it."""
        try:
            find_game(row.game)  # the game stored with the table (store schema version 4)
        except KeyError as exc:
            raise StoreError(f"table {row.table_id}: {exc.args[0]}; run a dab-server that has that game") from None
        try:
            settings = stored_settings(row.settings, row.game)
        except (RequestError, KeyError, TypeError, ValueError, ProtocolError) as exc:
            raise StoreError(f"table {row.table_id}: stored settings are invalid ({exc})") from None
        table = cls(row.table_id, row.name, settings, row.host_id or "", row.private_code, hub, config,
                    rng_factory, store)
        default_level = table.game_type.default_bot_level  # a bot stored before its level was (schema version 7)
        table.seats = {s.seat: SeatInfo(s.seat, s.name, s.player_id, s.left,
                                        s.level if s.player_id is not None or s.level else default_level)
                       for s in row.seats}
        table.spectators = set(row.spectators)
        table.removed = set(row.removed)
        table.audience.restore_chat(row.chat)
        table.pacer.absent_not_before = table.loop.time() + config.turn_timeout
        rebuild(table, row)
        table.seeding_since = table.phase_since = table.loop.time()  # a round being sealed: its window starts again
        if table.game is not None:
            hub.key.seal(table.game.round_log)  # the replay made the round's records again, unsigned
        return table

    def save_checkpoint(self, full: bool = False) -> None:
        """Store where the game stands, the whole engine state when it drew chance or changed status or
        if ``full`` (called by the lobby just before it commits; :func:`server.restore.save_checkpoint`)."""
        save_checkpoint(self, full)

    # ------------------------------------------------------------ state

    @property
    def state(self) -> str:
        if self.game is None:
            return "waiting"
        return "finished" if self.game.status is Status.OVER else "playing"

    def seat_of(self, player_id: str) -> int | None:
        for info in self.seats.values():
            if info.player_id == player_id:
                return info.seat
        return None

    def summary(self) -> m.TableSummary:
        host = self.seat_of(self.host_id)
        return m.TableSummary(
            table_id=self.table_id,
            name=self.name,
            title=self.game_type.title,
            host=self.seats[host].name if host is not None else None,
            seats=self.settings.seats,
            players=tuple(
                m.PlayerSummary(seat=i.seat, name=i.name, bot=i.bot, connected=self.connected(i))
                for i in sorted(self.seats.values(), key=lambda i: i.seat)
            ),
            settings=self.settings,
            state=self.state,
            private=self.private_code is not None,
            spectators=len(self.spectators),
        )

    def connected(self, info: SeatInfo) -> bool:
        """The seat is played by someone present: a bot, or a player still here and connected."""
        return info.bot or (not info.left and self.hub.is_connected(info.player_id))  # type: ignore[arg-type]

    def played_for(self, info: SeatInfo) -> bool:
        """The server plays this human's seat: they left the running game, or sit out."""
        return not info.bot and (info.left or info.seat in self.away)

    # ------------------------------------------------------------ the audience's stage (server.audience.Stage)

    def listeners(self) -> list[tuple[str, int | None]]:
        """``(player_id, seat)`` of everyone who hears the table: seated players still here, then spectators."""
        seated = [(i.player_id, i.seat) for i in self.seats.values() if i.player_id and not i.left]
        return seated + [(p, None) for p in sorted(self.spectators)]  # type: ignore[misc]

    def facts(self, seat: int | None) -> dict[str, Any]:
        """What the server knows of the table for ``seat``, the same for every game (PROTOCOL.md 5.3)."""
        return {
            "table_id": self.table_id, "name": self.name, "title": self.game_type.title,
            "settings": self.settings.to_wire(), "state": self.state, "host_seat": self.seat_of(self.host_id),
            "seat": seat,
            "members": [{"seat": i.seat, "name": i.name, "bot": i.bot, "level": i.level, "connected": self.connected(i),
                         "away": self.played_for(i)} for _, i in sorted(self.seats.items())],
            "spectators": len(self.spectators), "private": self.private_code is not None,
            "fixed_seed": self.hub.fixed_seed, "server_key": self.hub.key.public.hex(),
            "chip_history": self.rounds.chart() if self.state == "finished" else None,
            "rematch": self.rematch.facts() if self.rematch is not None else None,
        }


    def game_view(self, seat: int | None) -> tuple[dict[str, Any] | None, list[Any] | None, int | None]:
        """The game's own view for ``seat`` (None before a game), the decision it awaits (None: none) and
        the time left for it (None: no clock runs)."""
        game = self.game
        decision = game.decision() if game is not None else None
        return (game.view(seat) if game is not None else None,
                list(decision) if decision is not None else None, self.pacer.deadline_ms())

    def listing(self) -> tuple[Any, ...]:
        """What the lobby's list shows of the table and can change (none of the play itself)."""
        return (self.state, self.host_id, len(self.spectators),
                tuple((i.seat, i.name, i.bot, self.connected(i)) for i in self.seats.values()))

    def keep_chat(self, line: dict[str, Any], keep: int) -> None:
        """A chat line for the store (sent again after a restart), the table's last ``keep`` lines kept."""
        if self.store is not None:
            self.store.add_chat(self.table_id, line, keep)

    def stacks(self) -> dict[int, int]:
        """Each seat's chips in hand in the running game (not counting what the round has staked)."""
        assert self.game is not None
        return self.game.stacks()

    def holdings(self) -> dict[int, int]:
        """Each seat's chips that are still its own: the stack and a stake nobody has won yet
        (``Game.holdings``): the chips chart and the history's chips follow these."""
        assert self.game is not None
        return self.game.holdings()

    def can_start_round(self) -> bool:
        """Between rounds, and the game would deal the next one now (enough seats present and able to play)."""
        game = self.game
        if game is None or game.status is not Status.BETWEEN_ROUNDS:
            return False
        try:
            game.check(None, StartRound())
        except EngineError:
            return False
        return True

    # ------------------------------------------------------------ membership

    def join(self, player_id: str, name: str, seat: int | None) -> int:
        held = self.seat_of(player_id)
        if held is not None:
            if not self.seats[held].left:
                raise RequestError("already_at_table", f"you are already seated at this table (seat {held})")
            self.seats[held].left = False  # coming back to a held seat
            self._set_watching(player_id, False)
            self.story("joined", held, back=True)
            if self.game is not None and self.game.status is not Status.OVER and held in self.away:
                self.apply_action(None, SetAway(held, False))
            self._claim_host(player_id)
            self.save()
            self.audience.catch_up(player_id)
            self.broadcast()
            return held
        if self.game is not None and self.game.status is Status.OVER:
            raise RequestError("game_running", "this table's game is over; you can watch it")
        free = [s for s in range(self.settings.seats) if s not in self.seats]
        if seat is not None and seat not in free:
            if not 0 <= seat < self.settings.seats:
                raise RequestError("no_such_seat", f"this table has seats 0 to {self.settings.seats - 1}")
            raise RequestError("seat_taken", f"seat {seat} is taken (free seats: {free or 'none'})")
        if not free:
            raise RequestError("table_full", f"all {self.settings.seats} seats are taken")
        if seat is None:
            seat = free[0]
        info = SeatInfo(seat, name, player_id)
        if self.game is not None:
            self._sit_in(info)
        if player_id not in self.spectators:
            self.audience.catch_up(player_id)  # a spectator sitting down has the chat already
        self._set_watching(player_id, False)
        if self.game is None:  # told to those here already (a newcomer to a running game: by the game's sit_in)
            self.story("joined", seat, back=False, name=name)
        self.seats[seat] = info
        self._claim_host(player_id)
        self.save()
        self.broadcast()
        return seat

    def _sit_in(self, info: SeatInfo) -> None:
        """A newcomer takes a free seat of the running game, dealt in from its next round, if
        the game's rules take new players (``sit_in``); they buy in as at the start."""
        assert self.game is not None
        chips = self._buy_in(info, *self.game_type.buy_in(self.game.settings))
        try:
            self.apply_action(None, SitIn(info.seat, info.name, chips))
        except RequestError as exc:
            raise RequestError("game_running", f"{exc.message}; you can watch instead") from None
        self.hub.move_chips(self, "buy_in", [(info.seat, info.player_id, chips)])

    def watch(self, player_id: str) -> None:
        if self.seat_of(player_id) is not None:
            raise RequestError("already_at_table", "you are seated at this table; leave it to watch")
        if player_id in self.spectators:
            raise RequestError("already_at_table", "you are already watching this table")
        self._set_watching(player_id, True)
        self.audience.catch_up(player_id)
        self.broadcast()

    def leave(self, player_id: str, offline: bool = False, told: bool = True) -> None:
        """Leave: before the game the seat is freed; during it the seat is held and auto-played.

        A host who leaves passes the role to the lowest-seated human still
        here; with nobody to take it the role waits for the next human to sit
        down (or, in a running game, for the host to come back to the seat).
        ``offline``: the player's connection was lost (the seat of a game not
        running is freed as if they had left). ``told=False``: no ``left`` event
        (the host's removal has its own, ``removed``).
        """
        self._set_watching(player_id, False)
        seat = self.seat_of(player_id)
        if seat is not None and self.rematch is not None and seat in self.rematch.answers:
            self.rematch.cancel(seat, f"{self.seats[seat].name} left the table")
        if seat is not None:
            held = self.game is not None and self.game.status is not Status.OVER
            if told:
                self.story("left", seat, held=held, offline=offline)
            if not held:
                del self.seats[seat]
            else:
                self.seats[seat].left = True
                if seat not in self.away:
                    self.apply_action(None, SetAway(seat, True))
        if player_id == self.host_id:
            present = self._present_humans()
            if present:
                self.host_id = present[0]
        if seat is not None:
            self.save()
        self.broadcast()

    def _set_watching(self, player_id: str, watching: bool) -> None:
        """Add or remove a spectator; stored, so a restart brings spectators back like players."""
        if (player_id in self.spectators) == watching:
            return
        if watching:
            self.spectators.add(player_id)
        else:
            self.spectators.discard(player_id)
        if self.store is not None:
            self.store.save_spectators(self.table_id, self.spectators)

    def _present_humans(self) -> list[str]:
        """Players seated here who have not left, lowest seat first."""
        return [i.player_id for _, i in sorted(self.seats.items()) if i.player_id and not i.left]

    def _claim_host(self, player_id: str) -> None:
        """A player sitting down at a table whose host is gone (no seat, or left it) becomes host."""
        host_seat = self.seat_of(self.host_id)
        if host_seat is None or (self.seats[host_seat].left and self.host_id != player_id):
            self.host_id = player_id

    def is_empty(self) -> bool:
        """No human seated (bots and seats left mid-game only) and nobody watching."""
        return not self.spectators and all(i.bot or i.left for i in self.seats.values())

    def attended(self) -> bool:
        """Someone is here: a spectator, or a seated human who is connected."""
        return bool(self.spectators) or any(
            i.player_id is not None and not i.left and self.hub.is_connected(i.player_id) for i in self.seats.values()
        )

    def add_bot(self, player_id: str, level: str | None = None) -> int:
        """Seat a bot of ``level`` (``None``: the game's default) in the lowest free seat."""
        self.require_host(player_id)
        if self.game is not None:
            raise RequestError("game_running", "bots can only be added before the game starts")
        levels = self.game_type.bot_levels
        if level is None:
            level = self.game_type.default_bot_level
        elif level not in levels:
            raise RequestError("bad_level", f"{self.game_type.title} bots play at {', '.join(levels)}, not {level!r}")
        free = [s for s in range(self.settings.seats) if s not in self.seats]
        if not free:
            raise RequestError("table_full", f"all {self.settings.seats} seats are taken")
        used = {i.name for i in self.seats.values()}
        name = next(n for n in itertools.chain(BOT_NAMES, (f"Bot {k}" for k in itertools.count(2))) if n not in used)
        self.seats[free[0]] = SeatInfo(free[0], name, level=level)
        self.story("joined", free[0], back=False)
        self.save()
        self.broadcast()
        return free[0]

    def remove_bot(self, player_id: str, seat: int) -> None:
        self.require_host(player_id)
        if self.game is not None:
            raise RequestError("game_running", "bots can only be removed before the game starts")
        if seat not in self.seats or not self.seats[seat].bot:
            raise RequestError("no_such_seat", f"there is no bot at seat {seat}")
        self.story("left", seat, held=False, offline=False)
        del self.seats[seat]
        self.save()
        self.broadcast()

    # ------------------------------------------------------------ removing a player (the host's)

    def check_not_removed(self, player_id: str) -> None:
        if player_id in self.removed:
            raise RequestError("removed", "the host removed you from this table")

    def bar(self, player_id: str) -> None:
        """``player_id`` may not come to this table any more (stored)."""
        self.removed.add(player_id)
        if self.store is not None:
            self.store.add_removal(self.table_id, player_id)

    def remove(self, host_id: str, player_id: str, name: str) -> bool:
        """The host removes a player (seated, or watching) for good: at once, or, from a round under way
        that they are dealt into, when that round ends (returns False then). Their seat is freed before
        the game and after it; in a running game it is kept and played for them as for a player who left,
        and their chips come back to them as for leaving, when the game ends."""
        self.require_host(host_id)
        if player_id == host_id:
            raise RequestError("bad_target", "you cannot remove yourself; leave the table instead")
        self.bar(player_id)
        if self._removal_waits(player_id):
            seat = self.seat_of(player_id)
            assert seat is not None
            self.audience.record([Record("removing", None, {"seat": seat, "name": self.seats[seat].name})])
            self.broadcast()
            return False
        self._expel(player_id, name)
        return True

    def _removal_waits(self, player_id: str) -> bool:
        """Is ``player_id``, removed, still to finish the round under way (dealt into it, seat not left)?"""
        seat = self.seat_of(player_id)
        return (seat is not None and not self.seats[seat].left and self.game is not None
                and self.game.status is Status.PLAYING)

    def _expel(self, player_id: str, name: str | None = None) -> None:
        """A removed player goes: their seat as if they had left, out of the audience, told so."""
        seat = self.seat_of(player_id)
        told = {"seat": seat, "name": self.seats[seat].name if seat is not None else name}
        self.leave(player_id, told=False)  # (the table is told "removed", not "left")
        self.audience.record([Record("removed", None, told)])
        self.hub.send(player_id, m.Event(table_id=self.table_id, events=({"kind": "removed", **told, "you": True},)))
        self.hub.removed_from(self, player_id)

    def expel_due(self) -> None:
        """After an action: expel the removed whose round has ended."""
        for player_id in [p for p in self.removed if self.seat_of(p) is not None and not self._removal_waits(p)
                          and not self.seats[self.seat_of(p)].left]:  # type: ignore[index]
            self._expel(player_id)

    def save(self) -> None:
        """Persist seats, host and state (joins the open transaction)."""
        if self.store is not None:
            from .store import SeatRow  # loaded with the store

            seats = [SeatRow(i.seat, i.name, i.player_id, i.left, i.level) for i in sorted(self.seats.values(), key=lambda i: i.seat)]
            self.store.save_table(self.table_id, self.host_id, self.state, seats)

    def require_host(self, player_id: str) -> None:
        """Host powers belong to the host while seated here (a spectator ex-host has none)."""
        seat = self.seat_of(player_id)
        if player_id != self.host_id or seat is None or self.seats[seat].left:
            raise RequestError("not_host", "only the table's host can do that")

    # ------------------------------------------------------------ the game

    def start(self, player_id: str) -> None:
        self.require_host(player_id)
        if self.game is not None:
            raise RequestError("game_running", "the game has already started")
        if len(self.seats) < self.game_type.min_seats:
            raise RequestError("not_enough_players",
                               f"at least {self.game_type.min_seats} seated players are needed to start")
        settings = self.rules
        seated = sorted(self.seats.values(), key=lambda i: i.seat)
        buy_ins = self.check_chips(seated)
        players = [(i.seat, i.name, amount) for i, (_, _, amount) in zip(seated, buy_ins)]
        self.game = self.game_type.new(settings, players, self.rng_factory())
        if self.store is not None:
            self.store.start_game(
                self.table_id, self.game.initial_rng, self.game.initial_players, settings.to_data(),
                fingerprint(self.game_type),
            )
        self.hub.move_chips(self, "buy_in", buy_ins)
        self.save()
        self.rounds.game_started()
        self.rebind()
        self.apply_action(None, StartRound())
        self.broadcast()

    def rebind(self) -> None:
        """Bind the game's fair deals to this server's key, this table and the seed window (logged, so a
        restore replays the same bindings), unless they are already: at the start, and after a restart
        that brought another key or window (it counts from the next round on)."""
        game = self.game
        if game is None or game.status is Status.OVER:
            return
        binding = FairBinding(self.hub.key.public.hex(), self.table_id, self.game_type.name,
                              int(round(self.config.seed_window * 1000)))
        fair = game.fair
        if (fair.key.hex(), fair.table_id, fair.game, fair.window_ms) != (binding.key, binding.table_id,
                                                                           binding.game, binding.window_ms):
            self.apply_action(None, binding)

    def check_chips(self, seated: list[SeatInfo]) -> list[tuple[int, str | None, int]]:
        """``(seat, player_id, chips)`` each of ``seated`` would buy in with (``insufficient_chips`` if one cannot)."""
        least, most = self.game_type.buy_in(self.rules)
        return [(i.seat, i.player_id, self._buy_in(i, least, most)) for i in seated]

    def _buy_in(self, info: SeatInfo, least: int, most: int) -> int:
        """Chips a seat brings: ``most`` (the game's :meth:`~engine.contract.GameType.buy_in`),
        or a player's whole balance if smaller.

        Bots are staked by the house. A player with fewer than ``least`` chips
        cannot play (the check runs for everyone before any chip moves).
        """
        if info.player_id is None:
            return most
        balance = self.hub.balance(info.player_id)
        if balance < least:
            raise RequestError(
                "insufficient_chips", f"{info.name} has {balance} chips, less than the {least} this table needs to play"
            )
        return min(balance, most)

    def end(self, player_id: str) -> None:
        self.require_host(player_id)
        if self.game is None or self.game.status is Status.OVER:
            raise RequestError("no_game", "there is no game running to end")
        self.finish()

    def finish(self) -> None:
        """End the running game now, as the rules end it (the pot paid back, stacks cashed out)."""
        self.apply_action(None, EndGame())
        self.broadcast()

    def act(self, player_id: str, data: dict[str, Any]) -> int:
        """Apply a seat's action; returns its index in the table's action log."""
        seat = self._playing_seat(player_id)
        try:  # the game's one action schema; the protocol checked the map's shape only
            action = self.game_type.action_from_data(data)
        except InvalidAction as exc:
            raise RequestError("bad_action", str(exc)) from None
        if isinstance(action, TABLE_ACTIONS):
            raise RequestError("bad_action", f"{action.kind} is the table's action, not a player's")
        if isinstance(action, FAIR_ACTIONS):
            raise RequestError("bad_action", f"a {action.kind} is sent with its own request (seed_commit, "
                                             "client_seed) or is the table's, not an act")
        self.apply_action(seat, action)
        self.broadcast()
        assert self.game is not None
        return len(self.game.history) - 1

    def fair_action(self, player_id: str, kind: str, name: str, value: str) -> None:
        """A seat's commitment to its client seed, or the seed itself (engine.fairness): logged like any
        action, so a restore deals the same committed deck."""
        seat = self._playing_seat(player_id)
        try:
            action = self.game_type.action_from_data({"kind": kind, name: value})
        except InvalidAction as exc:
            raise RequestError("bad_action", str(exc)) from None
        self.apply_action(seat, action)
        self.broadcast()

    def waiting_for_seeds(self) -> list[int]:
        """The seats a round's seeds wait for: every seat dealt in whose player is here and connected."""
        assert self.game is not None
        seats = self.seats
        return [s for s in self.game.fair.dealt_in
                if s in seats and not seats[s].bot and not seats[s].left and self.hub.is_connected(seats[s].player_id)]  # type: ignore[arg-type]

    def seed_deadline(self) -> float | None:
        """Loop time the seed phase under way closes at the latest (``None``: no round is being sealed)."""
        game = self.game
        if game is None or not game.fair.seeding:
            return None
        return self.phase_since + self.seed_window()

    def seed_window(self) -> float:
        """The window of the round being sealed, in seconds: the one its ``deal_commit`` announced (a restart
        with another ``--seed-window`` changes it from the next round on)."""
        assert self.game is not None
        window_ms = self.game.fair.window_ms
        return window_ms / 1000 if window_ms else self.config.seed_window

    def _sealed_after_ms(self) -> int:
        """The round's ``seed_set``'s ``after_ms`` (0 if none is found)."""
        assert self.game is not None
        for record in reversed(getattr(self.game, "round_log", ())):
            if record.kind == "seed_set":
                return int(record.public.get("after_ms", 0))
        return 0

    def seal_seeds(self) -> None:
        """Close the round's seed phase under way if it is complete or its window has passed: the seed
        commitments once every connected human seat dealt in has committed, the reveals once every
        committed seat has revealed (docs/FAIRNESS.md §3). The table's, so its bots never seed."""
        game = self.game
        while game is not None and game.fair.seeding:
            fair = game.fair
            now = self.loop.time()
            late = now - self.phase_since >= self.seed_window() - DEADLINE_SLACK
            after_ms = max(0, int((now - self.seeding_since) * 1000))
            # A phase closed by its window says so in whole milliseconds a verifier checks (FAIRNESS.md §4
            # steps 5 and 6): never under the window, though the timer may fire within DEADLINE_SLACK of it,
            # the milliseconds are rounded down, and after a restart the window starts again.
            if fair.phase == COMMIT:
                waiting = self.waiting_for_seeds()
                if not late and not all(s in fair.commits for s in waiting):
                    return
                if late:
                    after_ms = max(after_ms, fair.window_ms)
                self.apply_action(None, SealSeeds(after_ms, tuple(waiting)))
                self.phase_since = now
            elif fair.phase == REVEAL:
                if not late and not all(s in fair.revealed_seeds for s in fair.commits):
                    return
                if late:
                    after_ms = max(after_ms, self._sealed_after_ms() + fair.window_ms)
                self.apply_action(None, FixDeck(after_ms))

    def _playing_seat(self, player_id: str) -> int:
        """The player's seat in the running game (``not_seated``, or ``no_game`` before or after it)."""
        seat = self.seat_of(player_id)
        if seat is None:
            raise RequestError("not_seated", "you are not seated at this table")
        if self.game is None or self.game.status is Status.OVER:
            raise RequestError("no_game", "there is no game running at this table")
        return seat

    def sit_out(self, player_id: str, away: bool) -> None:
        seat = self._playing_seat(player_id)
        assert self.game is not None
        if (seat in self.away) != away:
            self.apply_action(None, SetAway(seat, away))
        self.broadcast()

    def apply_action(self, seat: int | None, action: Action) -> list[Record]:
        """Apply a seat's or the table's action, log it, and have it noted and told."""
        game = self.game
        assert game is not None
        before = game.status
        try:
            records = game.apply(seat, action)
        except NotYourTurn as exc:
            raise RequestError("not_your_turn", exc.reason) from None
        except IllegalAction as exc:
            raise RequestError("illegal_action", exc.reason) from None
        except EngineError as exc:
            raise RequestError("illegal_action", str(exc)) from None
        self.hub.key.seal(records)
        if any(r.kind == "deal_commit" for r in records):
            self.seeding_since = self.phase_since = self.loop.time()
        if self.store is not None:
            seat_, data = game.history[-1]
            self.store.append_action(self.table_id, len(game.history) - 1, seat_, data)
            self.hub.touched(self)
        self.hub.actions_applied += 1
        self.applied(action, before)
        self.audience.record(records)
        if self.removed and game.status is not Status.PLAYING:
            self.expel_due()  # a round has ended: the players removed during it go now
        return records

    def applied(self, action: Action, before: Status, live: bool = True) -> None:
        """The bookkeeping of every applied action, live or replayed on restore (``live=False``:
        nothing is written): who is away, and the round book (``before``: the game's status before it)."""
        if isinstance(action, SetAway):
            (self.away.add if action.away else self.away.discard)(action.seat)
        self.rounds.note(action, before, live)

    # ------------------------------------------------------------ news and timers

    def story(self, kind: str, seat: int, name: str | None = None, **fields: Any) -> None:
        """Tell the table who came, went, dropped or came back (the server's own events, PROTOCOL.md 5.6;
        worded by :func:`engine.contract.describe_table_event`): ``joined``, ``left``, ``offline``, ``online``.
        ``name``: the seat's player, when not seated yet."""
        name = name if name is not None else self.seats[seat].name
        self.audience.record([Record(kind, seat, {"name": name, **fields})])

    def broadcast(self) -> None:
        """After any change: arm deadlines and bots, and have everyone told.

        Views are built when the lobby flushes (after the commit), once per
        member however many changes the event-loop iteration made. A round's
        seed phase closes here once it is complete (:meth:`seal_seeds`).
        """
        self.seal_seeds()
        self.pacer.schedule()
        self.hub.table_dirty(self)

    def close(self) -> None:
        self.pacer.cancel_all()
        if self.rematch is not None:
            self.rematch.close()
