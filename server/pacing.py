"""A table's pacing: what moves its game on when nobody sends a request.

The engine decides every rule; the pacer only decides *when*: the deadline of
the decision on the clock, the automatic moves of bots, away seats and
disconnected seats, and the pause before the next round. Each timer step runs
as one durable unit of work (:meth:`Pacer._guarded`), like a request.
"""

from __future__ import annotations

import asyncio
import logging
from typing import TYPE_CHECKING, Callable

from engine.contract import StartRound, Status
from engine.records import Record

from .errors import StoreFailed

if TYPE_CHECKING:
    from .table import Table

log = logging.getLogger(__name__)

BUSY_RETRY = 0.25  # s: a timer step that found the database busy runs again after this
DEADLINE_SLACK = 0.001  # s: a deadline timer this close to the deadline counts it as reached


class Pacer:
    """The timers of one table (see the module docstring)."""

    def __init__(self, table: "Table") -> None:
        self.table = table
        self.deadline_at: float | None = None
        self.absent_not_before = float("-inf")  # after a restore: players get the whole turn to come back
        self._decision: tuple | None = None
        self._deadline_handle: asyncio.TimerHandle | None = None
        self._deadline_decision: tuple | None = None  # the decision deadline_at is for
        self._bot_handle: asyncio.TimerHandle | None = None  # the next automatic move (bot, away, absent)
        self._auto_due: dict[int, tuple[str, float]] = {}  # seat -> (kind, loop time its automatic move is due)
        self._round_handle: asyncio.TimerHandle | None = None
        self._seed_handle: asyncio.TimerHandle | None = None  # closes the round's seed phase at its window's end
        self._loop = table.loop

    def schedule(self) -> None:
        """Arm whatever moves the game on from here (the invariant :meth:`timing_problems` checks).

        Each seat the game waits on is timed by what it is: a seat on the clock
        (a human, not away) by the decision's deadline, which a change of who is
        away or connected can start late but never leaves unset; a bot, an away
        seat and a disconnected seat by an automatic move, due after the bot
        delay, the away delay or the absent grace.
        """
        table = self.table
        game = table.game
        if game is None:
            return
        if game.status is Status.OVER:
            self.cancel_all()
            table.hub.table_finished(table)
            return
        if game.status is Status.BETWEEN_ROUNDS:
            self._set_deadline(None)
            self._auto_due.clear()
            if self._round_handle is None:
                self._round_handle = self._loop.call_later(table.config.round_pause, self._next_round)
            return
        self._arm_seed_window()
        to_act = game.to_act()
        decision = game.decision()
        on_clock = [s for s in to_act if self._automatic_kind(s) in (None, "absent")]
        if decision != self._decision:
            self._decision = decision
            self._auto_due.clear()
            self._set_deadline(table.config.turn_timeout if on_clock else None)
        elif on_clock and self.deadline_at is None:  # a seat came back to a decision nobody was timed on
            self._set_deadline(table.config.turn_timeout)
        elif not on_clock and self.deadline_at is not None:  # the last seat on the clock went away
            self._set_deadline(None)  # views say deadline_ms nil (PROTOCOL.md 5.3); automatic moves follow
        self._arm_automatic(to_act)

    def _arm_seed_window(self) -> None:
        """While a round's deal is being sealed nobody is to act: one timer closes the seed phase under way
        when its window ends (the table closes it sooner once every seed it waits for is in)."""
        at = self.table.seed_deadline()
        handle = self._seed_handle
        if handle is not None and (at is None or abs(handle.when() - at) > DEADLINE_SLACK):
            handle.cancel()
            self._seed_handle = handle = None
        if at is not None and handle is None:
            self._seed_handle = self._loop.call_at(at, self._close_seeds)

    def _close_seeds(self) -> None:
        self._seed_handle = None
        self._guarded(self.table.seal_seeds, "_seed_handle", self._close_seeds)

    def deadline_ms(self) -> int | None:
        """Milliseconds left on the clock of the current decision (``None``: nobody is on the clock)."""
        if self.deadline_at is None:
            return None
        return max(0, int((self.deadline_at - self._loop.time()) * 1000))

    def _automatic_kind(self, seat: int) -> str | None:
        """How ``seat`` is played without its player: "bot", "away", "absent" (disconnected), or None."""
        table = self.table
        info = table.seats[seat]
        if info.bot:
            return "bot"
        if table.played_for(info):
            return "away"
        if not table.hub.is_connected(info.player_id):  # type: ignore[arg-type]
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
        config = self.table.config
        delays = {"bot": config.bot_delay, "away": config.away_delay, "absent": config.absent_grace}
        due = self._auto_due
        for seat in to_act:
            kind = self._automatic_kind(seat)
            if kind is None:
                due.pop(seat, None)
            elif seat not in due or due[seat][0] != kind:
                at = now + delays[kind]
                due[seat] = (kind, max(at, self.absent_not_before) if kind == "absent" else at)
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
        table = self.table
        game = table.game
        if game is None or game.status is Status.OVER:
            return []
        if game.status is Status.BETWEEN_ROUNDS:
            if self._round_handle is None and table.can_start_round():
                return ["between rounds with no next deal scheduled"]
            return []
        if game.fair.seeding and self._seed_handle is None:
            return ["the deal is being sealed with no seed window timer"]
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

    def cancel_all(self) -> None:
        """Stop every timer: the game is over or the table closes."""
        self._set_deadline(None)
        self._auto_due.clear()
        for handle in (self._deadline_handle, self._bot_handle, self._round_handle, self._seed_handle):
            if handle is not None:
                handle.cancel()
        self._deadline_handle = self._bot_handle = self._round_handle = self._seed_handle = None

    def _guarded(self, step: Callable[[], None], timer: str, again: Callable[[], None]) -> None:
        """Run a timer step as one durable unit; a bug here must not kill the loop or other tables.

        If the database is busy nothing is done: the step's timer (the
        attribute named ``timer``) runs ``again`` shortly.
        """
        table = self.table
        with table.hub.atomic():
            if not table.hub.reserve():
                setattr(self, timer, self._loop.call_later(BUSY_RETRY, again))
                return
            try:
                step()
            except StoreFailed:
                raise  # memory may be ahead of the disk: the unit's commit reports it (and the server stops)
            except Exception:  # pragma: no cover - a bug, logged with its traceback
                log.exception("table %s: timer step failed", table.table_id)
            table.broadcast()

    def _next_round(self) -> None:
        self._round_handle = None
        if not self.table.can_start_round():
            return  # wait: a later change (someone coming back) schedules this again

        def step() -> None:
            self._decision = None
            self.table.apply_action(None, StartRound())

        self._guarded(step, "_round_handle", self._next_round)

    def _play_automatic(self) -> None:
        self._bot_handle = None
        table = self.table

        def step() -> None:
            game = table.game
            if game is None or game.status is not Status.PLAYING:
                return
            now = self._loop.time() + DEADLINE_SLACK
            ready = [(seat, kind) for seat, (kind, at) in self._auto_due.items() if at <= now]
            for seat, kind in ready:
                if seat not in game.to_act() or self._automatic_kind(seat) != kind:
                    continue  # moved on already, or came back
                if kind == "bot":
                    table.apply_action(seat, table.game_type.bot_action(game, seat, table.seats[seat].level))
                else:
                    if kind == "absent":  # the player is offline: their absent grace ran out
                        table.audience.record([Record("timeout", seat, {"offline": True})])
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
        table = self.table

        def step() -> None:
            game = table.game
            if game is None or decision != self._decision:
                return
            for seat in game.to_act():
                if not table.seats[seat].bot:
                    offline = self._automatic_kind(seat) == "absent"  # (their grace outlasted the deadline)
                    table.audience.record([Record("timeout", seat, {"offline": offline})])
                    self._auto_play(seat)

        self._guarded(step, "_deadline_handle", self._on_deadline)

    def _auto_play(self, seat: int) -> None:
        """Play ``seat``'s whole turn the safe way (a timeout or sitting out): every decision of it."""
        table = self.table
        game = table.game
        assert game is not None
        turn = game.turn_id()
        while seat in game.to_act() and game.turn_id() == turn:
            table.apply_action(seat, table.game_type.timeout_action(game, seat))
