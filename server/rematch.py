"""A rematch at a finished table: the host offers "same seats, same settings", everyone seated answers.

The offer names the seats still held by their players at game over (and the
bots, which accept at once); each of those players accepts or declines. When
all have accepted, the lobby opens a new table with the same name, settings
and private code, seats everyone where they sat, and starts it
(:meth:`server.lobby.Lobby.rematch`: a table plays one game, so a rematch is a
new table). A decline, a leave, a player who can no longer cover the buy-in,
or the deadline (``TableConfig.rematch_timeout``) cancels it, and the table is
told why: nothing ever waits on an answer that cannot come. Offers are not
stored: a restart forgets them (the table is finished either way).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from engine.records import Record

from .errors import RequestError

if TYPE_CHECKING:
    from .table import Table


class Rematch:
    """One table's pending offer (see the module docstring)."""

    def __init__(self, table: "Table") -> None:
        self.table = table
        present = [i for _, i in sorted(table.seats.items()) if i.bot or not i.left]
        self.answers: dict[int, bool | None] = {i.seat: (True if i.bot else None) for i in present}
        self.answers[table.seat_of(table.host_id)] = True  # type: ignore[index]  # offering is accepting
        loop = asyncio.get_running_loop()
        self.deadline = loop.time() + table.config.rematch_timeout
        self._timer = loop.call_later(table.config.rematch_timeout, self._expired)

    def facts(self) -> dict[str, Any]:
        """The view's ``table.rematch``: who has accepted, who is awaited, and the time left."""
        left = max(0.0, self.deadline - asyncio.get_running_loop().time())
        return {"accepted": [s for s, a in self.answers.items() if a],
                "waiting": [s for s, a in self.answers.items() if a is None], "deadline_ms": int(left * 1000)}

    def answer(self, seat: int, accept: bool) -> bool:
        """Record ``seat``'s answer; True when everyone has now accepted. A decline cancels the offer."""
        if not accept:
            self.cancel(seat, f"{self.table.seats[seat].name} declined the rematch")
            return False
        self.answers[seat] = True
        self.table.audience.record([Record("rematch_answer", seat, {"accept": True})])
        return all(self.answers.values())

    def cancel(self, seat: int | None, reason: str) -> None:
        """Withdraw the offer, telling the table why (``seat``: whose doing, None for the deadline)."""
        table = self.table
        self._timer.cancel()
        if table.rematch is self:
            table.rematch = None
            table.audience.record([Record("rematch_cancelled", seat, {"reason": reason})])
            table.broadcast()

    def close(self) -> None:
        self._timer.cancel()

    def _expired(self) -> None:
        table = self.table
        with table.hub.atomic():  # its events go out like any unit's
            waiting = [table.seats[s].name for s, a in self.answers.items() if a is None and s in table.seats]
            self.cancel(None, f"no answer in time from {', '.join(waiting) or 'everyone'}")


def offer(table: "Table", player_id: str) -> None:
    """The host offers a rematch at the finished ``table`` (the errors of PROTOCOL.md's ``offer_rematch``)."""
    table.require_host(player_id)
    if table.game is None:
        raise RequestError("no_game", "the game has not started: there is nothing to play again")
    if table.state != "finished":
        raise RequestError("game_running", "a rematch can be offered once the game is over")
    if table.rematch is not None:
        return  # offered already: accepted, nothing changes
    present = [i for i in table.seats.values() if i.bot or not i.left]
    if len(present) < table.game_type.min_seats:
        raise RequestError("not_enough_players", f"at least {table.game_type.min_seats} seated players are needed, "
                                                 f"and only {len(present)} are still here")
    table.check_chips(present)
    table.rematch = Rematch(table)
    table.audience.record([Record("rematch", table.seat_of(player_id), {"seats": sorted(table.rematch.answers)})])
    if all(table.rematch.answers.values()):
        table.hub.rematch(table)  # the host and bots only: nobody to wait for
    table.broadcast()


def answer(table: "Table", player_id: str, accept: bool) -> None:
    """A seated player answers the offer (the errors of PROTOCOL.md's ``answer_rematch``)."""
    seat = table.seat_of(player_id)
    if seat is None:
        raise RequestError("not_seated", "only the table's players answer a rematch")
    offer = table.rematch
    if offer is None or seat not in offer.answers:
        raise RequestError("no_rematch", "no rematch is offered to you at this table")
    if offer.answer(seat, accept):
        table.hub.rematch(table)
    table.broadcast()
