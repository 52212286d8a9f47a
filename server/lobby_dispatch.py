"""The lobby's dispatch: each request answered with exactly one ``ok`` or ``error``, never a raise.

A request is one unit of work (:meth:`server.lobby.Lobby.atomic`): its handler (the lobby's
``_handlers`` table names one per request type) runs inside it, and the reply joins the unit's outbox,
to leave after the commit that makes it true. Requests the history worker answers are deferred to it
(:mod:`server.history_worker`); the session handles none of its later messages until then.
"""

from __future__ import annotations

import asyncio
import functools
import logging
from typing import TYPE_CHECKING, Any, Callable

from protocol import messages as m

from .errors import RequestError, StoreError, StoreFailed
from .history_worker import Job, Outcome

if TYPE_CHECKING:
    from .lobby import PlayerRecord, Session

log = logging.getLogger("server.lobby")  # the lobby's own log, as before the split

BUSY_MESSAGE = "the server's database is busy (another program holds its lock); nothing was done, try again"
_READ_ONLY = frozenset({m.ListTables, m.History, m.Ping, m.Stats, m.PastRounds, m.PastGames, m.Replay, m.Leaderboard,
                        m.Mutes, m.Notices, m.ListOnline, m.Invite})
"""Requests that never write: no lock needed."""
_PASSIVE = frozenset({m.Ping, m.ListOnline})
"""Requests a client sends by itself (a heartbeat, a refresh): they do not make a player less idle."""


class Dispatch:
    """The request half of :class:`server.lobby.Lobby`."""

    def handle(self, player_id: str, msg: m.Message) -> m.Message | None:
        """Answer one request with ``ok`` or ``error``; never raise.

        Returns None: the reply goes out (to the session that asked) with the
        unit's flush, after the commit that makes it true and before the
        pushes the request caused.
        """
        player = self.players[player_id]
        session = player.session
        self.requests_handled += 1
        if type(msg) not in _PASSIVE:
            player.active_at = asyncio.get_running_loop().time()
        try:
            with self.atomic():  # the reply joins the unit's outbox, to leave first at the flush
                reply = self._handle(player_id, msg)
                if isinstance(reply, Job):
                    reply = self._defer(player_id, session, msg, reply)
                    if reply is None:
                        return None
                self._actors.append(player_id)
                self._outbox.append((player_id, reply, session, True))
        except StoreError as exc:  # the write or commit failed: nothing this unit produced may go out
            log.error("request %s from %s could not be made durable: %s", msg.type, player_id, exc)
            return m.Error(id=getattr(msg, "id", None), code="internal", message="the server hit an internal error")
        except Exception:
            log.exception("request %s from %s could not be made durable", msg.type, player_id)
            return m.Error(id=getattr(msg, "id", None), code="internal", message="the server hit an internal error")
        return None

    def _defer(self, player_id: str, session: Session | None, msg: m.Message, job: Job) -> m.Message | None:
        """Have the history worker answer ``job`` (server.history_worker): the session handles none of its
        later messages until the answer has been sent. Returns the reply if it is known at once (busy)."""
        request_id = getattr(msg, "id", None)
        try:
            outcome = self.archive.worker.submit(job)
        except RequestError as exc:
            return m.Error(id=request_id, code=exc.code, message=exc.message)
        if session is not None:
            session.hold()
        outcome.add_done_callback(functools.partial(self._answered, player_id, session, request_id))
        return None

    def _answered(self, player_id: str, session: Session | None, request_id: int | None,
                  outcome: "asyncio.Future[Outcome]") -> None:
        """The worker's answer: sent after every reply the session was owed before it (a commit they wait
        for holds this one too), then the session's next messages are handled."""
        if outcome.cancelled():
            reply: m.Message = m.Error(id=request_id, code="shutting_down", message="the server is shutting down")
        elif outcome.result()[0] == "ok":
            reply = m.Ok(id=request_id, result=outcome.result()[1])
        else:
            reply = m.Error(id=request_id, code=outcome.result()[1], message=outcome.result()[2])
        if session is None:
            return
        if not session.closed:
            if self._held():
                self._outbox.append((player_id, reply, session, True))
            else:
                session.push(reply)
        session.release()

    def _handle(self, player_id: str, msg: m.Message) -> m.Message | Job:
        handler: Callable[[PlayerRecord, Any], dict[str, Any] | Job | None] | None = self._handlers.get(type(msg))
        request_id = getattr(msg, "id", None)
        if handler is None:
            return m.Error(id=request_id, code="bad_message", message=f"{msg.type!r} is not a request")
        if self._closing:
            return m.Error(id=request_id, code="shutting_down", message="the server is shutting down")
        try:
            with self.atomic():  # durable before the ok (and the pushes) go out
                if type(msg) not in _READ_ONLY and not self.reserve():
                    return m.Error(id=request_id, code="busy", message=BUSY_MESSAGE)
                result = handler(self, self.players[player_id], msg)
        except RequestError as exc:
            return m.Error(id=request_id, code=exc.code, message=exc.message[:1000])
        except StoreFailed:
            raise  # memory may be ahead of the disk: the unit's commit reports it (and the server stops)
        except Exception:  # a bug: log it, answer, keep serving everyone else
            log.exception("request %s from %s failed", msg.type, player_id)
            return m.Error(id=request_id, code="internal", message="the server hit an internal error")
        if isinstance(result, Job):
            return result
        return m.Ok(id=request_id, result=result or {})
