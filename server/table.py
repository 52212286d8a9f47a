"""One table: seats, spectators, the engine game, deadlines, bots and broadcasts.

Everything here runs on the event loop thread and never awaits while it changes
state, so each request or timer callback is one atomic step: no locks needed.
The engine decides every rule; the table only decides *when* (deadlines, bot
pacing, the pause between rounds) and *who hears what* (the engine's views).

Durability: every engine action goes through :meth:`Table._apply`, which
appends it to the store's action log with a snapshot of the pot and stacks;
membership changes go through :meth:`Table._save`. All of it joins the
transaction of the request or timer step that caused it, which the lobby
commits before any reply or push leaves (:meth:`server.lobby.Lobby.atomic`).
Before the commit the lobby asks each table it touched for a checkpoint of
the whole engine state (:meth:`Table.save_checkpoint`).

A restart rebuilds the table with :meth:`Table.restore`, replaying the engine
from its seed and checking the result against the checkpoint (or, if the
engine has changed since the game began, from the checkpoint alone); deadlines
then start afresh, so nobody loses a turn to downtime.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import itertools
import json
import logging
import time
from collections import deque
from dataclasses import dataclass
from typing import Any, Callable, ContextManager, Protocol

from engine.contract import EndGame, SetAway, StartRound
from engine.games import find_game
from engine.games.down_and_back.actions import Action, Cut, Discard, Split, TakeDiscard, TakeStock
from engine.errors import EngineError, IllegalAction, InvalidAction, NotYourTurn
from engine.games.down_and_back.rules import CUT, DRAW, OVER, SHOWDOWN, WAITING, Game, Settings
from engine.records import Record
from engine.rng import HashRng
from protocol import messages as m

from .errors import RequestError
from .history import public_round
from .store import SeatRow, Store, StoreError, StoreFailed, TableRow
from .text import CHAT_MAX, clean_text

log = logging.getLogger(__name__)

BOT_NAMES = [f"{name} {m.BOT_MARK}" for name in ("Ada", "Bert", "Cleo", "Dot", "Eli")]
CHAT_KEEP = 50
MAX_EVENTS = 200  # per event message (the protocol's limit)
HISTORY_KEEP = 100
BUSY_RETRY = 0.25  # s: a timer step that found the database busy runs again after this
CHIP_HISTORY_ROWS = 120  # rows of chip history a view carries, however long the game (PROTOCOL.md §5.3)
DEADLINE_SLACK = 0.001  # s: a deadline timer this close to the deadline counts it as reached

GAME = find_game("down-and-back")  # the one game tables host until the protocol names a table's game


class Hub(Protocol):
    """What a table needs from the server around it."""

    def send(self, player_id: str, message: m.Message) -> None: ...
    def is_connected(self, player_id: str) -> bool: ...
    def tables_changed(self) -> None: ...
    def table_finished(self, table: "Table") -> None: ...
    def round_finished(self, player_ids: list[str], public: dict[str, Any]) -> None: ...
    def atomic(self) -> ContextManager[None]: ...
    def balance(self, player_id: str) -> int: ...
    def move_chips(self, table: "Table", kind: str, moves: list[tuple[int, str | None, int]]) -> None: ...
    def touched(self, table: "Table") -> None: ...
    def reserve(self) -> bool: ...
    def table_dirty(self, table: "Table") -> None: ...
    @property
    def fixed_seed(self) -> bool: ...


@dataclass
class TableConfig:
    turn_timeout: float = 60.0
    bot_delay: float = 0.6
    away_delay: float = 0.3
    absent_grace: float = 5.0  # a disconnected seat's decision is played this long after it fell to them
    round_pause: float = 6.0


@dataclass
class SeatInfo:
    seat: int
    name: str
    player_id: str | None = None  # None for a bot
    left: bool = False  # the player left a running game: auto-played, seat held

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
        self.seats: dict[int, SeatInfo] = {}
        self.spectators: set[str] = set()
        self.game: Game | None = None
        self.chat_log: deque[m.ChatMessage] = deque(maxlen=CHAT_KEEP)
        self._pending_events: dict[str, list[dict[str, Any]]] = {}
        self._flushed: set[str] = set()
        self._catching_up: set[str] = set()  # members owed the recent chat after their next view
        self._spectator_view: m.View | None = None
        self._listed: tuple | None = None  # what the lobby list last showed of this table
        self.history: deque[dict[str, Any]] = deque(maxlen=HISTORY_KEEP)
        self.chip_history: list[dict[int, int]] = []
        self.deadline_at: float | None = None
        self._decision: tuple | None = None
        self._deadline_handle: asyncio.TimerHandle | None = None
        self._deadline_decision: tuple | None = None  # the decision deadline_at is for
        self._bot_handle: asyncio.TimerHandle | None = None  # the next automatic move (bot, away, absent)
        self._auto_due: dict[int, tuple[str, float]] = {}  # seat -> (kind, loop time its automatic move is due)
        self._absent_not_before = float("-inf")  # after a restore: players get the whole turn to come back
        self._round_handle: asyncio.TimerHandle | None = None
        self._round_first_seq = 0  # index in the action log of this round's start_round
        self.unattended_since: float | None = None  # when the lobby's sweep last found nobody here
        self._loop = asyncio.get_running_loop()

    @classmethod
    def restore(
        cls, row: TableRow, hub: Hub, config: TableConfig, rng_factory: Callable[[], HashRng], store: Store | None,
    ) -> "Table":
        """Rebuild a stored table exactly: seats as stored, the game replayed from its seed.

        Raises :class:`StoreError` if the replay disagrees with the stored
        checkpoint (the database was damaged or edited). A game started by an
        engine with another fingerprint continues from its checkpoint instead.
        """
        try:
            settings = m.TableSettings(**row.settings)
        except Exception as exc:
            raise StoreError(f"table {row.table_id}: stored settings are invalid ({exc})") from None
        table = cls(row.table_id, row.name, settings, row.host_id or "", row.private_code, hub, config,
                    rng_factory, store)
        table.seats = {s.seat: SeatInfo(s.seat, s.name, s.player_id, s.left) for s in row.seats}
        table.spectators = set(row.spectators)
        table._absent_not_before = table._loop.time() + config.turn_timeout
        if row.rng is None:
            return table
        assert row.initial_players is not None and row.game_settings is not None
        if row.checkpoint is None or len(row.actions) != row.snapshot["actions"]:
            raise StoreError(f"table {row.table_id}: {len(row.actions)} actions stored, checkpoint after "
                             f"{row.snapshot['actions']}")
        if row.engine == engine_fingerprint():
            table._replay(row)
        else:
            table._from_checkpoint(row)
        game_seats = set(table.game.players)  # type: ignore[union-attr]
        # A running game holds every seat; at a finished one players leave the standings (or the grace frees them).
        if not (set(table.seats) <= game_seats if table.state == "finished" else set(table.seats) == game_seats):
            raise StoreError(f"table {row.table_id}: stored seats {sorted(table.seats)} do not match the game")
        return table

    def _replay(self, row: TableRow) -> None:
        """The normal restore: the engine replays the log from the seed; it must reach the checkpoint."""
        assert row.initial_players is not None and row.game_settings is not None and row.rng is not None
        try:
            game = GAME.new(GAME.settings(row.game_settings), row.initial_players, HashRng.from_data(row.rng))
            self.game = game
            self.chip_history = [self._stacks()]
            for seat, data in row.actions:
                self._note(game.apply(seat, GAME.action_from_data(data)), live=False)
        except (EngineError, KeyError, TypeError, ValueError) as exc:
            raise StoreError(f"table {self.table_id}: the stored action log does not replay ({exc})") from None
        if checkpoint_state(game) != row.checkpoint:
            raise StoreError(f"table {self.table_id}: replaying the action log does not reach the stored checkpoint "
                             f"(after {len(row.actions)} actions); the database was damaged or edited")

    def _from_checkpoint(self, row: TableRow) -> None:
        """After an engine upgrade: the game continues from its last checkpoint, exactly as it stood.

        The new engine may draw differently from the same seed, so the log no
        longer replays; the checkpoint holds the shuffled stock and every hand,
        so nothing already dealt or shown changes.
        """
        assert row.checkpoint is not None
        if row.engine is not None:
            log.warning("table %s was started by another engine version (%s, now %s): restoring it from its checkpoint",
                        self.table_id, row.engine, engine_fingerprint())
        try:
            self.game = Game.from_data(dict(row.checkpoint, history=[list(a) for a in row.actions]))
        except (EngineError, KeyError, TypeError, ValueError) as exc:
            raise StoreError(f"table {self.table_id}: this engine cannot read the stored checkpoint ({exc}); "
                             "run the dab-server version that started the game") from None
        starts = [i for i, (_, a) in enumerate(row.actions) if a.get("kind") == "start_round"]
        self._round_first_seq = starts[-1] if starts else 0
        assert self.store is not None and row.initial_players is not None
        rounds = self.store.rounds(self.table_id, 1 << 30)
        self.history.extend(public_round(r) for r in rounds)
        self.chip_history = [{seat: stack for seat, _, stack in row.initial_players}]
        self.chip_history += [{int(s): v for s, v in r["stacks"].items()} for r in rounds if r["result"]]
        if self.game.phase == OVER:
            self.chip_history.append(self._stacks())
        if row.engine is not None:
            self.store.set_engine(self.table_id, None)  # from now on only checkpoints restore it

    def save_checkpoint(self) -> None:
        """Store the whole engine state (called by the lobby just before it commits)."""
        game = self.game
        if self.store is not None and game is not None:
            self.store.checkpoint(
                self.table_id, checkpoint_json(game), len(game.history), game.round_no, game.phase, game.pot,
                self._stacks(),
            )

    # ------------------------------------------------------------ state

    @property
    def state(self) -> str:
        if self.game is None:
            return "waiting"
        return "finished" if self.game.phase == OVER else "playing"

    def seat_of(self, player_id: str) -> int | None:
        for info in self.seats.values():
            if info.player_id == player_id:
                return info.seat
        return None

    def members(self) -> list[str]:
        seated = [i.player_id for i in self.seats.values() if i.player_id is not None]
        return seated + sorted(self.spectators)

    def summary(self) -> m.TableSummary:
        host = self.seat_of(self.host_id)
        return m.TableSummary(
            table_id=self.table_id,
            name=self.name,
            host=self.seats[host].name if host is not None else None,
            seats=self.settings.seats,
            players=tuple(
                m.PlayerSummary(seat=i.seat, name=i.name, bot=i.bot, connected=self._connected(i))
                for i in sorted(self.seats.values(), key=lambda i: i.seat)
            ),
            settings=self.settings,
            state=self.state,
            private=self.private_code is not None,
            spectators=len(self.spectators),
        )

    def _connected(self, info: SeatInfo) -> bool:
        return info.bot or (not info.left and self.hub.is_connected(info.player_id))  # type: ignore[arg-type]

    # ------------------------------------------------------------ membership

    def join(self, player_id: str, name: str, seat: int | None) -> int:
        held = self.seat_of(player_id)
        if held is not None:
            if not self.seats[held].left:
                raise RequestError("already_at_table", f"you are already seated at this table (seat {held})")
            self.seats[held].left = False  # coming back to a held seat
            self._set_watching(player_id, False)
            if self.game is not None and self.game.phase != OVER and self.game.players[held].away:
                self._apply(None, SetAway(held, False))
            self._claim_host(player_id)
            self._save()
            self.catch_up(player_id)
            self.broadcast()
            return held
        if self.game is not None:
            raise RequestError("game_running", "the game has started; you can watch instead")
        free = [s for s in range(self.settings.seats) if s not in self.seats]
        if seat is not None and seat not in free:
            if not 0 <= seat < self.settings.seats:
                raise RequestError("no_such_seat", f"this table has seats 0 to {self.settings.seats - 1}")
            raise RequestError("seat_taken", f"seat {seat} is taken (free seats: {free or 'none'})")
        if not free:
            raise RequestError("table_full", f"all {self.settings.seats} seats are taken")
        if seat is None:
            seat = free[0]
        if player_id not in self.spectators:
            self.catch_up(player_id)  # a spectator sitting down has the chat already
        self._set_watching(player_id, False)
        self.seats[seat] = SeatInfo(seat, name, player_id)
        self._claim_host(player_id)
        self._save()
        self.broadcast()
        return seat

    def watch(self, player_id: str) -> None:
        if self.seat_of(player_id) is not None:
            raise RequestError("already_at_table", "you are seated at this table; leave it to watch")
        if player_id in self.spectators:
            raise RequestError("already_at_table", "you are already watching this table")
        self._set_watching(player_id, True)
        self.catch_up(player_id)
        self.broadcast()

    def leave(self, player_id: str) -> None:
        """Leave: before the game the seat is freed; during it the seat is held and auto-played.

        A host who leaves passes the role to the lowest-seated human still
        here; with nobody to take it the role waits for the next human to sit
        down (or, in a running game, for the host to come back to the seat).
        """
        self._set_watching(player_id, False)
        seat = self.seat_of(player_id)
        if seat is not None:
            if self.game is None or self.game.phase == OVER:
                del self.seats[seat]
            else:
                self.seats[seat].left = True
                if not self.game.players[seat].away:
                    self._apply(None, SetAway(seat, True))
        if player_id == self.host_id:
            present = self._present_humans()
            if present:
                self.host_id = present[0]
        if seat is not None:
            self._save()
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

    def add_bot(self, player_id: str) -> int:
        self._require_host(player_id)
        if self.game is not None:
            raise RequestError("game_running", "bots can only be added before the game starts")
        free = [s for s in range(self.settings.seats) if s not in self.seats]
        if not free:
            raise RequestError("table_full", f"all {self.settings.seats} seats are taken")
        used = {i.name for i in self.seats.values()}
        name = next(n for n in itertools.chain(BOT_NAMES, (f"Bot {k}" for k in itertools.count(2))) if n not in used)
        self.seats[free[0]] = SeatInfo(free[0], name)
        self._save()
        self.broadcast()
        return free[0]

    def remove_bot(self, player_id: str, seat: int) -> None:
        self._require_host(player_id)
        if self.game is not None:
            raise RequestError("game_running", "bots can only be removed before the game starts")
        if seat not in self.seats or not self.seats[seat].bot:
            raise RequestError("no_such_seat", f"there is no bot at seat {seat}")
        del self.seats[seat]
        self._save()
        self.broadcast()

    def _save(self) -> None:
        """Persist seats, host and state (joins the open transaction)."""
        if self.store is not None:
            seats = [SeatRow(i.seat, i.name, i.player_id, i.left) for i in sorted(self.seats.values(), key=lambda i: i.seat)]
            self.store.save_table(self.table_id, self.host_id, self.state, seats)

    def _require_host(self, player_id: str) -> None:
        """Host powers belong to the host while seated here (a spectator ex-host has none)."""
        seat = self.seat_of(player_id)
        if player_id != self.host_id or seat is None or self.seats[seat].left:
            raise RequestError("not_host", "only the table's host can do that")

    # ------------------------------------------------------------ the game

    def start(self, player_id: str) -> None:
        self._require_host(player_id)
        if self.game is not None:
            raise RequestError("game_running", "the game has already started")
        if len(self.seats) < 2:
            raise RequestError("not_enough_players", "at least 2 seated players are needed to start")
        settings = GAME.settings({f.name: getattr(self.settings, f.name) for f in GAME.setting_fields})
        seated = sorted(self.seats.values(), key=lambda i: i.seat)
        buy_ins = [(i.seat, i.player_id, self._buy_in(i)) for i in seated]
        players = [(i.seat, i.name, amount) for i, (_, _, amount) in zip(seated, buy_ins)]
        self.game = GAME.new(settings, players, self.rng_factory())
        if self.store is not None:
            self.store.start_game(
                self.table_id, self.game.initial_rng, self.game.initial_players, settings.to_data(),
                engine_fingerprint(),
            )
        self.hub.move_chips(self, "buy_in", buy_ins)
        self._save()
        self.chip_history = [self._stacks()]
        self._apply(None, StartRound())
        self.broadcast()

    def _buy_in(self, info: SeatInfo) -> int:
        """Chips a seat brings: the starting stack, or a player's whole balance if smaller.

        Bots are staked by the house. A player whose balance cannot cover the
        ante cannot play (the check runs for everyone before any chip moves).
        """
        if info.player_id is None:
            return self.settings.stack
        balance = self.hub.balance(info.player_id)
        if balance < self.settings.ante:
            raise RequestError(
                "insufficient_chips", f"{info.name} has {balance} chips, less than the ante of {self.settings.ante}"
            )
        return min(balance, self.settings.stack)

    def end(self, player_id: str) -> None:
        self._require_host(player_id)
        if self.game is None or self.game.phase == OVER:
            raise RequestError("no_game", "there is no game running to end")
        self.finish()

    def finish(self) -> None:
        """End the running game now, as the rules end it (the pot paid back, stacks cashed out)."""
        self._apply(None, EndGame())
        self.broadcast()

    def act(self, player_id: str, data: dict[str, Any]) -> int:
        """Apply a seat's action; returns its index in the table's action log."""
        seat = self._playing_seat(player_id)
        try:
            action = GAME.action_from_data(data)
        except InvalidAction as exc:
            raise RequestError("illegal_action", str(exc)) from None
        if isinstance(action, (StartRound, EndGame, SetAway)):
            raise RequestError("illegal_action", f"{action.kind} is not a player action")
        self._apply(seat, action)
        self.broadcast()
        assert self.game is not None
        return len(self.game.history) - 1

    def _playing_seat(self, player_id: str) -> int:
        """The player's seat in the running game (``not_seated``, or ``no_game`` before or after it)."""
        seat = self.seat_of(player_id)
        if seat is None:
            raise RequestError("not_seated", "you are not seated at this table")
        if self.game is None or self.game.phase == OVER:
            raise RequestError("no_game", "there is no game running at this table")
        return seat

    def sit_out(self, player_id: str, away: bool) -> None:
        seat = self._playing_seat(player_id)
        assert self.game is not None
        if self.game.players[seat].away != away:
            self._apply(None, SetAway(seat, away))
        self.broadcast()

    def _apply(self, seat: int | None, action: Action) -> list[Any]:
        assert self.game is not None
        try:
            records = self.game.apply(seat, action)
        except NotYourTurn as exc:
            raise RequestError("not_your_turn", exc.reason) from None
        except IllegalAction as exc:
            raise RequestError("illegal_action", exc.reason) from None
        except EngineError as exc:
            raise RequestError("illegal_action", str(exc)) from None
        game = self.game
        if self.store is not None:
            seat_, data = game.history[-1]
            self.store.append_action(self.table_id, len(game.history) - 1, seat_, data)
            self.hub.touched(self)
        self._after_records(records)
        return records

    def _note(self, records: list[Record], live: bool = True) -> None:
        """Bookkeeping after an action: round records, chip history, settling at game over.

        ``live=False`` while replaying on restore: the same bookkeeping, but
        nothing is written (the store already holds it).
        """
        game = self.game
        assert game is not None
        for record in records:
            if record.kind == "round":
                self._round_first_seq = len(game.history) - 1
            elif record.kind == "result":
                self._finish_round(self.round_record(dict(record.public), game.pot), live)
                self.chip_history.append(self._stacks())
            elif record.kind == "game_over":
                if not any(r.kind == "result" for r in game.round_log):  # ended mid-round: antes refunded
                    refunded = sum(r["chips"] for r in record.public["refunds"])
                    self._finish_round(self.round_record(None, refunded), live)
                self.chip_history.append(self._stacks())
                if live:
                    moves = [(s, i.player_id, game.players[s].stack) for s, i in sorted(self.seats.items())]
                    self.hub.move_chips(self, "cash_out", moves)
                    self._save()

    def _finish_round(self, entry: dict[str, Any], live: bool) -> None:
        public = public_round(entry)
        self.history.append(public)
        if live:
            if self.store is not None:
                self.store.add_round(self.table_id, entry, public)
            self.hub.round_finished([i.player_id for i in self.seats.values() if i.player_id is not None], public)

    def round_record(self, showdown: dict[str, Any] | None, pot: int) -> dict[str, Any]:
        """The whole current round as plain data: deal, every action, splits and result.

        ``showdown`` is the engine's result (None when the game ended before
        the showdown, ``pot`` then being the antes paid back).
        """
        game = self.game
        assert game is not None
        first, last = self._round_first_seq, len(game.history) - 1
        return {
            "table_id": self.table_id, "round": game.round_no, "dealer": game.dealer, "cutter": game.cutter,
            "seats": list(game.order), "names": {str(s): p.name for s, p in game.players.items()},
            "first_seq": first, "last_seq": last,
            "actions": [[s, a] for s, a in game.history[first:last + 1]],
            "log": [r.to_data() for r in game.round_log],
            "result": showdown,
            "pot": showdown["pot"] if showdown else pot,
            "stacks": {str(s): p.stack for s, p in game.players.items()},
            "finished_at": time.time(),
        }

    def _after_records(self, records: list[Any]) -> None:
        self._note(records)
        public = [r.for_seat(None) for r in records]  # what most members see: built once
        secret_for = {r.seat for r in records if r.private}  # seats that see more than that
        pending = self._pending_events
        for player_id, seat in self._audience():
            events = pending.get(player_id)
            if events is None:
                events = pending[player_id] = []
            if seat in secret_for:
                events.extend([r.for_seat(seat) if r.seat == seat else p for r, p in zip(records, public)])
            else:
                events.extend(public)
        self.hub.table_dirty(self)

    def _stacks(self) -> dict[int, int]:
        assert self.game is not None
        return {s: p.stack for s, p in self.game.players.items()}

    def _audience(self) -> list[tuple[str, int | None]]:
        seated = [(i.player_id, i.seat) for i in self.seats.values() if i.player_id and not i.left]
        return seated + [(p, None) for p in sorted(self.spectators)]  # type: ignore[misc]

    # ------------------------------------------------------------ views

    def view(self, seat: int | None) -> dict[str, Any]:
        """The engine's view for ``seat`` plus table facts the engine does not know."""
        if self.game is not None:
            view = self.game.view(seat)
        else:
            view = {"seat": seat, "phase": "lobby", "players": [], "legal": [], "to_act": [],
                    "settings": self.settings.to_wire()}
        by_seat = {p["seat"]: p for p in view["players"]}
        for info in self.seats.values():
            entry = by_seat.pop(info.seat, None)
            if entry is None:
                entry = {"seat": info.seat, "name": info.name, "stack": self.settings.stack}
                view["players"].append(entry)
            entry["bot"] = info.bot
            entry["connected"] = self._connected(info)
        for entry in by_seat.values():  # players who have left the finished table (bots never leave)
            entry["bot"] = entry["connected"] = False
        view["players"].sort(key=lambda p: p["seat"])
        host = self.seat_of(self.host_id)
        view["table"] = {
            "table_id": self.table_id, "name": self.name, "state": self.state,
            "host_seat": host, "seats": self.settings.seats, "spectators": len(self.spectators),
            "private": self.private_code is not None, "fixed_seed": self.hub.fixed_seed,
        }
        view["deadline_ms"] = (
            max(0, int((self.deadline_at - self._loop.time()) * 1000)) if self.deadline_at is not None else None
        )
        if self.state == "finished":
            view["chip_history"] = [{str(k): v for k, v in row.items()} for row in sample(self.chip_history)]
        return view

    def broadcast(self) -> None:
        """After any change: arm deadlines and bots, and have everyone told.

        Views are built when the lobby flushes (after the commit), once per
        member however many changes the event-loop iteration made.
        """
        self._schedule()
        self.hub.table_dirty(self)

    def _check_listing(self) -> None:
        """Have the lobby's table list pushed again if what it shows of this table changed."""
        listed = (self.state, self.host_id, len(self.spectators),
                  tuple((i.seat, i.name, i.bot, self._connected(i)) for i in self.seats.values()))
        if listed != self._listed:  # the list shows none of the play itself
            self._listed = listed
            self.hub.tables_changed()

    def flush(self, only: str | None = None) -> None:
        """Send each member its pending events and its current view (``only``: one member)."""
        for player_id, seat in self._audience():
            if (only is not None and player_id != only) or player_id in self._flushed:
                continue
            self._flushed.add(player_id)
            events = self._pending_events.pop(player_id, None)
            for start in range(0, len(events or ()), MAX_EVENTS):
                self.hub.send(player_id, m.Event.prevalidated(
                    table_id=self.table_id, events=tuple(events[start:start + MAX_EVENTS])))
            if seat is None:
                if self._spectator_view is None:
                    self._spectator_view = m.View.prevalidated(table_id=self.table_id, view=self.view(None))
                self.hub.send(player_id, self._spectator_view)
            else:  # views are plain, string-keyed data by construction (tests/engine, tests/server)
                self.hub.send(player_id, m.View.prevalidated(table_id=self.table_id, view=self.view(seat)))
            if player_id in self._catching_up:
                self._catching_up.discard(player_id)
                for message in self.chat_log:
                    self.hub.send(player_id, message)

    def catch_up(self, player_id: str) -> None:
        """``player_id`` just arrived (joined, watched, resumed): after their view, send the recent chat."""
        self._catching_up.add(player_id)
        self.hub.table_dirty(self)

    def flushed(self) -> None:
        """The flush is complete: the next change starts a new one.

        The lobby list is checked here, after everyone has their news: it
        changes rarely and is pushed at most twice a second anyway.
        """
        self._flushed.clear()
        self._pending_events.clear()
        self._catching_up.clear()  # whoever was owed the chat and is still here has had it
        self._spectator_view = None
        self._check_listing()

    # ------------------------------------------------------------ chat

    def chat(self, player_id: str, name: str, text: str) -> None:
        text = clean_text(text, CHAT_MAX + 1)
        if not text:
            return  # nothing visible left to say: accepted and dropped
        if len(text) > CHAT_MAX:
            raise RequestError("too_long", f"chat messages are limited to {CHAT_MAX} characters")
        message = m.ChatMessage(
            table_id=self.table_id, seat=self.seat_of(player_id), name=name, text=text, ts=int(time.time() * 1000),
        )
        self.chat_log.append(message)
        for member, _ in self._audience():
            self.hub.send(member, message)

    # ------------------------------------------------------------ timing

    def _schedule(self) -> None:
        """Arm whatever moves the game on from here (the invariant :meth:`timing_problems` checks).

        Each seat the game waits on is timed by what it is: a seat on the clock
        (a human, not away) by the decision's deadline, which a change of who is
        away or connected can start late but never leaves unset; a bot, an away
        seat and a disconnected seat by an automatic move, due after the bot
        delay, the away delay or the absent grace.
        """
        game = self.game
        if game is None:
            return
        if game.phase == OVER:
            self._cancel_all()
            self.hub.table_finished(self)
            return
        if game.phase == WAITING:
            self._set_deadline(None)
            self._auto_due.clear()
            if self._round_handle is None:
                self._round_handle = self._loop.call_later(self.config.round_pause, self._next_round)
            return
        to_act = game.to_act()
        decision = game.decision()
        on_clock = [s for s in to_act if self._automatic_kind(s) in (None, "absent")]
        if decision != self._decision:
            self._decision = decision
            self._auto_due.clear()
            self._set_deadline(self.config.turn_timeout if on_clock else None)
        elif on_clock and self.deadline_at is None:  # a seat came back to a decision nobody was timed on
            self._set_deadline(self.config.turn_timeout)
        elif not on_clock and self.deadline_at is not None:  # the last seat on the clock went away
            self._set_deadline(None)  # views say deadline_ms nil (PROTOCOL.md 5.3); automatic moves follow
        self._arm_automatic(to_act)

    def _automatic_kind(self, seat: int) -> str | None:
        """How ``seat`` is played without its player: "bot", "away", "absent" (disconnected), or None."""
        info = self.seats[seat]
        if info.bot:
            return "bot"
        if info.left or self.game.players[seat].away:  # type: ignore[union-attr]
            return "away"
        if not self.hub.is_connected(info.player_id):  # type: ignore[arg-type]
            return "absent"
        return None

    def _arm_automatic(self, to_act: list[int]) -> None:
        """Keep one timer for the earliest automatic move due among ``to_act``.

        A seat's move falls due a fixed delay after it was first seen needing
        one in this decision (a seat that reconnects loses its entry, so a
        later drop starts the grace again). After a restart everyone is
        disconnected: the absent grace then lasts at least the full turn.
        """
        now = self._loop.time()
        delays = {"bot": self.config.bot_delay, "away": self.config.away_delay, "absent": self.config.absent_grace}
        due = self._auto_due
        for seat in to_act:
            kind = self._automatic_kind(seat)
            if kind is None:
                due.pop(seat, None)
            elif seat not in due or due[seat][0] != kind:
                at = now + delays[kind]
                due[seat] = (kind, max(at, self._absent_not_before) if kind == "absent" else at)
        for seat in [s for s in due if s not in to_act]:
            del due[seat]
        handle = self._bot_handle
        if not due:
            if handle is not None:
                handle.cancel()
                self._bot_handle = None
            return
        when = min(at for _, at in due.values())
        if handle is None or handle.when() > when:
            if handle is not None:
                handle.cancel()
            self._bot_handle = self._loop.call_at(when, self._play_automatic)

    def timing_problems(self) -> list[str]:
        """What the game waits on with nothing armed to move it on (empty when the table is sound).

        The invariant behind every table never stalling: while the game waits
        on a seat, a deadline runs for it or an automatic move is scheduled,
        and between rounds the next deal is scheduled. Checked by the tests
        after every message the server handles.
        """
        game = self.game
        if game is None or game.phase == OVER:
            return []
        if game.phase == WAITING:
            if self._round_handle is None and len(game.eligible_seats()) >= 2:
                return ["between rounds with no next deal scheduled"]
            return []
        problems = []
        for seat in game.to_act():
            kind = self._automatic_kind(seat)
            if kind is not None and kind != "absent":
                if seat not in self._auto_due or self._bot_handle is None:
                    problems.append(f"seat {seat} ({kind}) is to act with no automatic move scheduled")
            elif self.deadline_at is None or self._deadline_handle is None:
                problems.append(f"seat {seat} is to act with no deadline running")
        return problems

    def _set_deadline(self, seconds: float | None) -> None:
        """Set (or clear) the deadline of the current decision.

        One timer serves every deadline: each action moves the deadline later,
        and a timer that fires early re-arms itself for the rest, so most
        actions neither cancel nor create a timer.
        """
        if seconds is None:
            self.deadline_at = None
            return
        self.deadline_at = self._loop.time() + seconds
        self._deadline_decision = self._decision
        handle = self._deadline_handle
        if handle is None or handle.when() > self.deadline_at:
            if handle is not None:
                handle.cancel()
            self._deadline_handle = self._loop.call_at(self.deadline_at, self._on_deadline)

    def _cancel_all(self) -> None:
        self._set_deadline(None)
        self._auto_due.clear()
        for handle in (self._deadline_handle, self._bot_handle, self._round_handle):
            if handle is not None:
                handle.cancel()
        self._deadline_handle = self._bot_handle = self._round_handle = None

    def close(self) -> None:
        self._cancel_all()

    def _guarded(self, step: Callable[[], None], timer: str, again: Callable[[], None]) -> None:
        """Run a timer step as one durable unit; a bug here must not kill the loop or other tables.

        If the database is busy nothing is done: the step's timer (the
        attribute named ``timer``) runs ``again`` shortly.
        """
        with self.hub.atomic():
            if not self.hub.reserve():
                setattr(self, timer, self._loop.call_later(BUSY_RETRY, again))
                return
            try:
                step()
            except StoreFailed:
                raise  # memory may be ahead of the disk: the unit's commit reports it (and the server stops)
            except Exception:  # pragma: no cover - a bug, logged with its traceback
                log.exception("table %s: timer step failed", self.table_id)
            self.broadcast()

    def _next_round(self) -> None:
        self._round_handle = None
        game = self.game
        if game is None or game.phase != WAITING or len(game.eligible_seats()) < 2:
            return  # wait: a later change (someone coming back) schedules this again

        def step() -> None:
            self._decision = None
            self._apply(None, StartRound())

        self._guarded(step, "_round_handle", self._next_round)

    def _play_automatic(self) -> None:
        self._bot_handle = None

        def step() -> None:
            game = self.game
            if game is None or game.phase in (WAITING, OVER):
                return
            now = self._loop.time() + DEADLINE_SLACK
            ready = [(seat, kind) for seat, (kind, at) in self._auto_due.items() if at <= now]
            for seat, kind in ready:
                if seat not in game.to_act() or self._automatic_kind(seat) != kind:
                    continue  # moved on already, or came back
                if kind == "bot":
                    self._apply(seat, GAME.bot_action(game, seat))
                else:
                    if kind == "absent":
                        self._after_records([Record("timeout", seat)])
                    self._auto_play(seat)
            for seat, _ in ready:
                self._auto_due.pop(seat, None)

        self._guarded(step, "_bot_handle", self._play_automatic)

    def _on_deadline(self) -> None:
        self._deadline_handle = None
        if self.deadline_at is None:
            return  # the decision it timed was made, and nobody is on the clock now
        if self.deadline_at - self._loop.time() > DEADLINE_SLACK:
            self._deadline_handle = self._loop.call_at(self.deadline_at, self._on_deadline)
            return
        decision = self._deadline_decision

        def step() -> None:
            game = self.game
            if game is None or decision != self._decision:
                return
            for seat in game.to_act():
                if not self.seats[seat].bot:
                    self._after_records([Record("timeout", seat)])
                    self._auto_play(seat)

        self._guarded(step, "_deadline_handle", self._on_deadline)

    def _auto_play(self, seat: int) -> None:
        """Play ``seat``'s whole pending decision the safe way (a timeout or sitting out)."""
        game = self.game
        assert game is not None
        round_no, phase, turn = game.round_no, game.phase, game.turn_index
        while (
            seat in game.to_act() and game.round_no == round_no and game.phase == phase and game.turn_index == turn
        ):
            self._apply(seat, GAME.timeout_action(game, seat))


def sample(rows: list[dict[int, int]], limit: int = CHIP_HISTORY_ROWS) -> list[dict[int, int]]:
    """At most ``limit`` rows, evenly spaced, always the first and the last: a
    chart of a 10,000-round game still fits in a view."""
    if len(rows) <= limit:
        return rows
    step = (len(rows) - 1) / (limit - 1)
    return [rows[round(i * step)] for i in range(limit)]


def checkpoint_json(game: Game) -> str:
    """The engine state without its history (the action log holds that), as JSON text."""
    return json.dumps(game.to_data(history=False), separators=(",", ":"))


def checkpoint_state(game: Game) -> dict[str, Any]:
    """The checkpoint as JSON reads it back (what :meth:`Table.restore` compares)."""
    return json.loads(checkpoint_json(game))


@functools.cache
def engine_fingerprint() -> str:
    """How this engine plays: a hash of a fixed scripted 5-player game from a fixed seed.

    Stored with each game. The same fingerprint means the action log replays
    to the same state; a different one (an upgrade changed the RNG, the deal or
    the rules) means a running game must be restored from its checkpoint. Bots
    do not enter into it: their choices are in the log.
    """
    game = Game(Settings(), [(s, f"p{s}") for s in range(5)], HashRng(b"down-and-back engine fingerprint"))
    for _ in range(3):
        game.apply(None, StartRound())
        while game.phase not in (WAITING, OVER):
            seat = game.to_act()[0]
            hand = game.players[seat].hand
            if game.phase == CUT:
                action: Action = Cut(None)
            elif game.phase == SHOWDOWN:
                action = Split(tuple(hand[:4]), tuple(hand[4:]))
            elif game.step == DRAW:
                action = TakeDiscard() if len(game.history) % 5 == 0 else TakeStock()
            else:
                action = Discard(hand[len(game.history) % len(hand)])
            game.apply(seat, action)
    return hashlib.sha256(json.dumps(checkpoint_state(game), sort_keys=True).encode()).hexdigest()[:16]
