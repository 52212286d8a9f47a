"""Answers about the past, off the event loop: ``history``, ``past_rounds``, ``past_games`` and ``replay``.

Reading stored rounds costs the server milliseconds of CPU a request, and a
replay far more (the round played again in the engine, with the game's view
for the asker's seat after every step): ten connections of one address asking
at their rate limits took 37-43 % of the event loop every table runs on, and
another player's ping waited up to 1.7 s (issue 32). So the lobby turns each
such request into a :class:`Job`, plain data checked against the asker's table
on the loop, and a :class:`HistoryWorker` answers it:

* the worker is **one process** of its own (a fresh, isolated interpreter
  running the server's own ``server`` package; it dies with the server,
  ``PR_SET_PDEATHSIG``, and runs nicer than it), fed jobs and answering them
  as msgpack frames on its stdin and stdout. It reads the database through
  its own read-only connection (:class:`server.store.RoundReader`: it sees
  only what is committed, never takes the write lock nor waits for it, as WAL
  readers never block the writer), so the store's writer thread and its
  "durable before ok" are untouched, and it keeps the replays it last worked
  out (:data:`STEPS_KEEP`), so paging through one replays it once;
* one job runs at a time and at most :data:`MAX_WAITING` wait (more are told
  ``busy``); a job that takes longer than :data:`JOB_TIMEOUT` is answered
  ``internal`` and the process is replaced, as it is if it dies. It starts
  with the first job (a server nobody asks about the past runs none), and ends
  after :data:`IDLE_STOP` without one;
* the session that asked handles none of its later messages until the answer
  has gone out (:meth:`server.net.ClientSession.hold`), so its replies keep the
  order of its requests; everyone else is served meanwhile.

Every job of a connection also counts against its address's history budget
(:data:`server.net.HISTORY_RATE`), not only against the connection's own rate.
A server without a store (practice, tests) may answer in the process, at once
(``inline``): the same jobs and answers, without the worker.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import logging
import os
import signal
import struct
import sys
from collections import OrderedDict, deque
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable

import msgpack

from engine.games import find_game
from engine.replay import ReplayMismatch, replay_steps

from .errors import RequestError, StoreError
from .history import HISTORY_BYTES, fit

if TYPE_CHECKING:
    from .store import RoundReader

log = logging.getLogger(__name__)

STEPS_KEEP = 64  # replays kept worked out, so that paging through one does not replay it again per page
REPLAY_BYTES = HISTORY_BYTES  # a replay reply's steps stay well inside the 64 KiB frame limit
MAX_WAITING = 32  # jobs queued for the worker (each session has at most one): more are told busy
JOB_TIMEOUT = 15.0  # s: a job not answered by then is answered internal, and the worker replaced
IDLE_STOP = 120.0  # s: a worker with nothing to do for this long ends (the next request starts one)
WORKER_NICENESS = 5  # the worker yields the CPU to the server's event loop
BUSY = "the server is answering many history requests just now; try again in a moment"

Steps = list[dict[str, Any]]


@dataclass(frozen=True)
class Job:
    """One request about the past, as plain data the worker can answer alone.

    ``kind``: ``history`` ``(table_id | None, player_id, limit)``, ``past_rounds``
    ``(player_id, table_id, before, limit)``, ``past_games`` ``(player_id, before, limit)``,
    ``replay`` ``(player_id, at_table, table_id, round, from_step, found)`` where ``found``
    is None (the worker reads the round and the asker's seat in it) or, without a store,
    ``(game_name, record, seat)`` from the lobby's memory.
    """

    kind: str
    args: tuple[Any, ...]


# ------------------------------------------------------------ answers (in the worker, or inline)


def answer(job: Job, reader: "RoundReader | None", steps: "OrderedDict[tuple[Any, ...], Steps]") -> dict[str, Any]:
    """The ``ok`` result of ``job`` (raises :class:`RequestError`); ``steps``: the replays kept worked out."""
    if job.kind == "history":
        table_id, player_id, limit = job.args
        assert reader is not None
        newest = reader.public_rounds(table_id, limit) if table_id is not None else reader.player_rounds(player_id, limit)
        return {"rounds": fit(newest)}
    if job.kind == "past_rounds":
        player_id, table_id, before, limit = job.args
        assert reader is not None
        return paged("rounds", reader.past_rounds(player_id, table_id, before, limit + 1), limit)
    if job.kind == "past_games":
        player_id, before, limit = job.args
        assert reader is not None
        return paged("games", reader.past_games(player_id, before, limit + 1), limit)
    if job.kind == "replay":
        return _replay(reader, steps, *job.args)
    raise ValueError(f"unknown job {job.kind!r}")


def _replay(reader: "RoundReader | None", kept: "OrderedDict[tuple[Any, ...], Steps]", player_id: str,
            at_table: str | None, table_id: str, round_no: int, from_step: int,
            found: tuple[str, dict[str, Any], int | None] | None) -> dict[str, Any]:
    """The round's steps as the player could see them, from ``from_step`` on, as many as fit."""
    if found is None:
        assert reader is not None
        stored = reader.round_for_replay(table_id, round_no)
        if stored is not None:
            found = (*stored, reader.seat_in_round(player_id, table_id, round_no))
    if found is None or (found[2] is None and at_table != table_id):
        raise no_such_round(table_id, round_no)
    game_name, record, seat = found
    steps = _steps(kept, game_name, record, table_id, round_no, seat)
    page, size = [], 0
    for step in steps[from_step:]:
        size += len(msgpack.packb(step))
        if page and size > REPLAY_BYTES:
            break
        page.append(step)
    end = from_step + len(page)
    return {"game_name": game_name, "table_id": table_id, "round": round_no, "seat": seat,
            "total": len(steps), "steps": page, "next": end if end < len(steps) else None}


def no_such_round(table_id: str, round_no: int) -> RequestError:
    """The answer to a replay of a round that is not there, or not the asker's (the two are not told apart)."""
    return RequestError("no_such_round", f"there is no finished round {round_no} at table {table_id!r} "
                                         "that you played or are watching")


def _steps(kept: "OrderedDict[tuple[Any, ...], Steps]", game_name: str, record: dict[str, Any], table_id: str,
           round_no: int, seat: int | None) -> Steps:
    key = (table_id, round_no, seat)
    steps = kept.get(key)
    if steps is None:
        if record.get("opening") is None:
            raise RequestError("no_replay", "this round was stored without what a replay needs "
                                            "(before replays were kept, or across an engine upgrade)")
        try:
            steps = replay_steps(find_game(game_name), record["opening"], record["actions"], record["log"], seat,
                                 record.get("fair"))
        except ReplayMismatch as exc:
            raise RequestError("no_replay", f"this round cannot be replayed by this server: {exc}") from None
        kept[key] = steps
        while len(kept) > STEPS_KEEP:
            kept.popitem(last=False)
    kept.move_to_end(key)
    return steps


def paged(key: str, rows: Iterable[dict[str, Any]], limit: int) -> dict[str, Any]:
    """A page of at most ``limit`` lines (``rows`` holds one more if there are more), and the cursor to the next."""
    rows = list(rows)
    more = len(rows) > limit
    rows = rows[:limit]
    return {key: [{k: v for k, v in row.items() if k != "seq"} for row in rows],
            "next": rows[-1]["seq"] if more else None}


Outcome = tuple[Any, ...]  # ("ok", result) or ("error", code, message): what crosses back from the worker


def _outcome(job: Job, reader: "RoundReader | None", steps: "OrderedDict[tuple[Any, ...], Steps]") -> Outcome:
    try:
        return ("ok", answer(job, reader, steps))
    except RequestError as exc:
        return ("error", exc.code, exc.message)
    except StoreError as exc:  # a damaged round: that request fails, nothing else does
        log.error("%s", exc)
        return ("error", "internal", "the server could not read that round")
    except Exception:  # a bug: logged (the worker's stderr is the server's), that request fails
        log.exception("a %s request failed", job.kind)
        return ("error", "internal", "the server hit an internal error")


# ------------------------------------------------------------ the worker process

# How the server starts the worker: the interpreter isolated from the environment and the working directory
# (-I), with the directory holding this very ``server`` package first on its path, so it runs the server's own
# code and nothing planted where the server was started.
_BOOT = "import sys; sys.path.insert(0, sys.argv[1]); from server.history_worker import main; main(sys.argv[2:])"
_LENGTH = struct.Struct(">I")
_CODE_ROOT = str(Path(__file__).resolve().parent.parent)


def _pack(value: Any) -> bytes:
    body = msgpack.packb(value)
    return _LENGTH.pack(len(body)) + body


def _unpack(body: bytes) -> Any:
    return msgpack.unpackb(body, strict_map_key=False)  # our own process's plain data (a seat may key a map)


def main(argv: list[str]) -> None:
    """The worker process: answer jobs from stdin on stdout, one frame each, until stdin ends.

    ``argv``: the database's path ("" without a store) and the server's pid."""
    path, parent = argv[0] or None, int(argv[1])
    with contextlib.suppress(Exception):  # Linux only: the worker must never outlive the server
        import ctypes

        ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGKILL)  # PR_SET_PDEATHSIG
    if os.getppid() != parent:  # the server died before the line above took effect
        return
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # a terminal's ctrl+c is the server's to handle
    os.umask(0o077)  # as the server's: anything SQLite makes beside the database is private
    with contextlib.suppress(OSError):
        os.nice(WORKER_NICENESS)
    from .store import RoundReader

    reader = RoundReader.open(path) if path is not None else None
    kept: OrderedDict[tuple[Any, ...], Steps] = OrderedDict()
    source, sink = sys.stdin.buffer, sys.stdout.buffer
    while True:
        head = source.read(_LENGTH.size)
        if len(head) < _LENGTH.size:
            return
        kind, args = _unpack(source.read(_LENGTH.unpack(head)[0]))
        sink.write(_pack(_outcome(Job(kind, tuple(args)), reader, kept)))
        sink.flush()


class HistoryWorker:
    """Answers :class:`Job` s, one at a time: in a worker process (``process``), or at once in this one."""

    def __init__(self, path: str | None, process: bool = True, reader: "RoundReader | None" = None) -> None:
        """``path``: the database the process reads (None: no store); ``reader``: what answers inline."""
        self.path = path
        self.process = process
        self._reader = reader  # inline only
        self._kept: OrderedDict[tuple[Any, ...], Steps] = OrderedDict()  # inline only
        self._queue: deque[tuple[Job, asyncio.Future[Outcome]]] = deque()
        self._pump: asyncio.Task[None] | None = None
        self._proc: asyncio.subprocess.Process | None = None
        self.closed = False

    @property
    def waiting(self) -> int:
        """Jobs submitted and not answered."""
        return len(self._queue)

    def start(self) -> None:
        """Start handing jobs to the worker process (which starts with the first)."""
        if self.process and not self.closed and self._pump is None:
            self._pump = asyncio.get_running_loop().create_task(self._run())

    def submit(self, job: Job) -> "asyncio.Future[Outcome]":
        """The job's outcome, later (``busy`` if too many wait)."""
        loop = asyncio.get_running_loop()
        if self.closed:
            raise RequestError("shutting_down", "the server is shutting down")
        if len(self._queue) >= MAX_WAITING:
            raise RequestError("busy", BUSY)
        outcome: asyncio.Future[Outcome] = loop.create_future()
        if not self.process:
            outcome.set_result(_outcome(job, self._reader, self._kept))
            return outcome
        self._queue.append((job, outcome))
        self.start()
        self._wake.set()
        return outcome

    @functools.cached_property
    def _wake(self) -> asyncio.Event:
        return asyncio.Event()

    async def _run(self) -> None:
        """Hand the queued jobs to the process one at a time, starting it (again) when it is not running, and
        ending it when it has had nothing to do for :data:`IDLE_STOP`."""
        while not self.closed:
            if not self._queue:
                self._wake.clear()
                try:
                    await asyncio.wait_for(self._wake.wait(), IDLE_STOP if self._proc is not None else None)
                except asyncio.TimeoutError:
                    await self._end()
                continue
            job, outcome = self._queue[0]
            try:
                proc = await self._running()
                assert proc.stdin is not None and proc.stdout is not None
                proc.stdin.write(_pack([job.kind, list(job.args)]))
                result = await asyncio.wait_for(self._read(proc.stdout), JOB_TIMEOUT)
            except asyncio.CancelledError:
                raise
            except asyncio.TimeoutError:
                log.error("a history job took more than %g s; replacing the history worker", JOB_TIMEOUT)
                result = ("error", "internal", "the server took too long to answer; try again")
                await self._end()
            except Exception as exc:  # noqa: BLE001 (the worker died or could not start: a new one next time)
                log.warning("the history worker failed (%s); starting a new one", exc or type(exc).__name__)
                result = ("error", "internal", "the server hit an internal error; try again")
                await self._end()
            self._queue.popleft()
            if not outcome.done():
                outcome.set_result(tuple(result))

    async def _running(self) -> asyncio.subprocess.Process:
        if self._proc is None or self._proc.returncode is not None:
            self._proc = await asyncio.create_subprocess_exec(
                sys.executable, "-I", "-c", _BOOT, _CODE_ROOT, self.path or "", str(os.getpid()),
                stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE, cwd="/")
        return self._proc

    @staticmethod
    async def _read(stdout: asyncio.StreamReader) -> Any:
        head = await stdout.readexactly(_LENGTH.size)
        return _unpack(await stdout.readexactly(_LENGTH.unpack(head)[0]))

    async def _end(self) -> None:
        proc, self._proc = self._proc, None
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()
            with contextlib.suppress(Exception):
                await proc.wait()

    def close(self) -> None:
        """Stop: waiting jobs are answered ``shutting_down`` (their sessions are closing), the process ends."""
        self.closed = True
        if self._pump is not None:
            self._pump.cancel()
        while self._queue:
            _, outcome = self._queue.popleft()
            if not outcome.done():
                outcome.set_result(("error", "shutting_down", "the server is shutting down"))
        proc = self._proc
        if proc is not None and proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.kill()  # it only reads; stdin's end would stop it too, a kill does it now

    async def wait_closed(self) -> None:
        """After :meth:`close`: the process is gone (and reaped)."""
        proc, self._proc = self._proc, None
        if proc is not None:
            with contextlib.suppress(Exception):
                await asyncio.wait_for(proc.wait(), 5.0)
