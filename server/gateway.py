"""What the SSH and browser gateways share: their own thread, the client each session runs (started and
ended in one place), and the budgets a session's input spends.

**Their own thread.** Both gateways run on one event loop of their own, in a
thread (:class:`GatewayThread`): a flood of tab messages, SSH handshakes or
failed logins is handled there, and the game's event loop only ever sees the
sessions' clients, as any other TCP client. What a gateway needs from the
lobby (a name's refusal, a token's player, creating an identity) it asks for
with :meth:`GatewayThread.game`, which runs on the game's loop.

**The client.** A session's client is ``dab-client`` run by an isolated
interpreter from this installation's own directory (``client_boot.py``), never
found through the current directory or ``PYTHONPATH``; it gets its token on a
pipe, runs in a process group of its own at ``CLIENT_NICENESS``, and is ended
by :func:`end_client`: a hang-up, then SIGKILL after ``EXIT_GRACE`` seconds.

**Budgets.** Every session (a tab, an SSH channel) spends an
:class:`InputBudget` on what it sends: a message rate and a byte rate. A
session over its budget is not read from until the budget has refilled (the
sender is held back by TCP or the SSH window), so a flood costs the server at
most the budget; and its client drops to the lowest CPU priority, so what the
flood makes it do (repainting a 500x200 screen for every key) is paid for by
it, not by the other sessions' clients. Terminal sizes are clamped to ``MAX_COLUMNS`` x ``MAX_ROWS``
and coalesced (:class:`Resizes`): the client applies at most one size per
``RESIZE_INTERVAL``, the last one asked for.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import errno
import logging
import os
import signal
import sys
import threading
import time
from pathlib import Path
from typing import Any, Callable, Coroutine, TypeVar

from . import capacity
from .fork_server import ForkedClient, ForkServer, ForkServerUnavailable, available as fork_available
from .limits import CLIENT_NICENESS

log = logging.getLogger(__name__)
T = TypeVar("T")

ROOT = Path(__file__).resolve().parents[1]  # holds the server and client packages (one installation)
BOOT = Path(__file__).with_name("client_boot.py")
EXIT_GRACE = 3.0  # seconds a client has to leave after its hang-up before it is killed
MAX_COLUMNS, MAX_ROWS = 500, 200  # the largest terminal a session may have (its client's screen is that big)
RESIZE_INTERVAL = 0.25  # seconds between two sizes applied to a session's client (the last one asked for wins)
MESSAGES_PER_SECOND, MESSAGE_BURST = 100.0, 200.0  # a session's messages (keys, mouse reports, sizes, pings)
BYTES_PER_SECOND, BYTE_BURST = 4096.0, 16384.0  # a session's keystroke bytes (a paste is a burst)
LOWEST_PRIORITY = 19  # the niceness of a client whose session went over its budget


def clamp_size(width: int, height: int) -> tuple[int, int]:
    """A terminal size within 1..MAX_COLUMNS x 1..MAX_ROWS: a peer says how big its terminal is, and the client
    would otherwise allocate whatever screen it was told (~48 GB for 65535x65535)."""
    return max(1, min(width, MAX_COLUMNS)), max(1, min(height, MAX_ROWS))


def game_address_text(address: tuple[str, int]) -> str:
    host, port = address
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def client_environment(**extra: str) -> dict[str, str]:
    """A client's whole environment: nothing of the server's but its PATH and HOME."""
    return {"LANG": "C.UTF-8", "PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": os.environ.get("HOME", "/"),
            "DAB_GATEWAY": "1", **extra}


_FORK_SERVERS: dict[asyncio.AbstractEventLoop, ForkServer] = {}  # a gateway thread's loop -> its fork server


class MachineFull(OSError):
    """No session's client is started: the machine's memory would not hold it (``capacity.room_for_a_session``);
    its text is the session's to be told."""


async def start_client(args: list[str], token: str, *, env: dict[str, str], stdin: Any, stdout: Any, stderr: Any,
                       terminal: bool = False) -> asyncio.subprocess.Process | ForkedClient:
    """Start a session's ``dab-client ARGS`` (the one place both gateways start one).

    Forked by the gateway thread's fork server (:mod:`server.fork_server`) when it has one, else (or when it
    cannot) run by exec. The token reaches it on a pipe (``--token-fd``), never on its command line or in its
    environment; with ``terminal`` its standard input (a PTY) becomes its controlling terminal."""
    forks = _FORK_SERVERS.get(asyncio.get_running_loop())
    if not capacity.room_for_a_session(forks is not None):
        log.warning("a session refused: the machine's available memory would not hold its client")
        raise MachineFull(capacity.FULL)
    token_r, token_w = os.pipe()
    try:
        os.write(token_w, token.encode())  # a few dozen bytes: the pipe holds them
    finally:
        os.close(token_w)
    try:
        if forks is not None:
            try:
                return await forks.spawn(args, token_r, env=env, stdin=stdin, stdout=stdout, stderr=stderr,
                                         terminal=terminal)
            except ForkServerUnavailable as exc:
                log.warning("a session's client starts by exec: the fork server could not fork it (%s)", exc)
        return await asyncio.create_subprocess_exec(
            sys.executable, "-I", str(BOOT), str(ROOT), str(CLIENT_NICENESS), "1" if terminal else "0",
            *args, "--token-fd", str(token_r), stdin=stdin, stdout=stdout, stderr=stderr, env=env,
            pass_fds=(token_r,), start_new_session=True, cwd="/")
    finally:
        os.close(token_r)


def lower_priority(proc: asyncio.subprocess.Process | None) -> None:
    """A session over its budget floods: its client yields the CPU to every other (the lowest priority, for good:
    a process may not raise its own again)."""
    if proc is not None and proc.returncode is None:
        try:
            os.setpriority(os.PRIO_PGRP, proc.pid, LOWEST_PRIORITY)
        except OSError:
            pass


def signal_client(proc: asyncio.subprocess.Process, signum: int) -> bool:
    """Send ``signum`` to the client's process group; False if it has gone."""
    if proc.returncode is not None:
        return False
    try:
        os.killpg(proc.pid, signum)
    except OSError as exc:
        if exc.errno != errno.ESRCH:
            raise
        return False
    return True


async def end_client(proc: asyncio.subprocess.Process, grace: float = EXIT_GRACE) -> int:
    """Hang up on the client and wait for it; kill it if it is still there after ``grace`` seconds.

    Whoever reads the client's output must go on reading (or discarding) it until it exits: a client
    blocked on a full pipe cannot leave."""
    signal_client(proc, signal.SIGHUP)
    try:
        return await asyncio.wait_for(asyncio.shield(proc.wait()), grace)
    except asyncio.TimeoutError:
        signal_client(proc, signal.SIGKILL)
        return await proc.wait()


class InputBudget:
    """What one session may send: ``MESSAGES_PER_SECOND`` messages and ``BYTES_PER_SECOND`` bytes on average,
    with bursts. :meth:`spend` says how long to stop reading the session for: its debt at those rates."""

    __slots__ = ("messages", "bytes", "stamp")

    def __init__(self) -> None:
        self.messages, self.bytes = MESSAGE_BURST, BYTE_BURST
        self.stamp = time.monotonic()

    def spend(self, size: int = 0) -> float:
        """Take one message of ``size`` bytes: the seconds until the budget is out of debt (0: none)."""
        now = time.monotonic()
        elapsed, self.stamp = now - self.stamp, now
        self.messages = min(MESSAGE_BURST, self.messages + elapsed * MESSAGES_PER_SECOND) - 1
        self.bytes = min(BYTE_BURST, self.bytes + elapsed * BYTES_PER_SECOND) - size
        return max(0.0, -self.messages / MESSAGES_PER_SECOND, -self.bytes / BYTES_PER_SECOND)


class Resizes:
    """A session's terminal sizes, coalesced: ``apply`` gets a clamped size at most once per ``interval``
    seconds, always the last one asked for, and never the size it has already."""

    def __init__(self, apply: Callable[[int, int], None], size: tuple[int, int], interval: float = RESIZE_INTERVAL):
        self._apply = apply
        self.size = clamp_size(*size)  # the size the client has
        self.interval = interval
        self._wanted: tuple[int, int] | None = None
        self._last = float("-inf")
        self._timer: asyncio.TimerHandle | None = None

    def ask(self, width: int, height: int) -> None:
        self._wanted = clamp_size(width, height)
        if self._timer is not None:
            return  # applied when the interval is over
        wait = self._last + self.interval - time.monotonic()
        if wait > 0:
            self._timer = asyncio.get_running_loop().call_later(wait, self._due)
        else:
            self._due()

    def _due(self) -> None:
        self._timer = None
        wanted, self._wanted = self._wanted, None
        if wanted is None or wanted == self.size:
            return
        self.size = wanted
        self._last = time.monotonic()
        self._apply(*wanted)

    def close(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None


SESSION_CLIENTS = ("fork", "exec")  # how sessions' clients start (dab-server --session-clients)


class GatewayThread:
    """The gateways' event loop, in a thread of its own (see the module's docstring), and the sessions' fork
    server (``session_clients`` "fork", where the platform can: else, and with "exec", clients are exec'd)."""

    def __init__(self, session_clients: str = "fork") -> None:
        self.game_loop = asyncio.get_running_loop()
        self.loop = asyncio.new_event_loop()
        self.forks: ForkServer | None = None
        if session_clients == "fork":
            if fork_available():
                self.forks = ForkServer(ROOT, CLIENT_NICENESS, client_environment())
            else:
                log.warning("this platform cannot fork session clients (no fork or pidfd): each starts by exec")
        self._thread = threading.Thread(target=self._run, name="dab-gateways", daemon=True)
        self._thread.start()
        if self.forks is not None:
            self.loop.call_soon_threadsafe(self._start_forks)

    def _start_forks(self) -> None:
        assert self.forks is not None
        _FORK_SERVERS[self.loop] = self.forks
        self.forks.start()

    def _run(self) -> None:
        asyncio.set_event_loop(self.loop)
        try:
            self.loop.run_forever()
        finally:
            self.loop.run_until_complete(self.loop.shutdown_asyncgens())
            self.loop.close()

    async def run(self, work: Coroutine[Any, Any, T]) -> T:
        """From the game's loop: run ``work`` on the gateways' loop and wait for its result."""
        return await asyncio.wrap_future(asyncio.run_coroutine_threadsafe(work, self.loop))

    async def game(self, call: Callable[..., T], *args: Any) -> T:
        """From the gateways' loop: ``call(*args)`` on the game's loop (the lobby lives there), and its result
        (or its exception)."""
        done: concurrent.futures.Future[T] = concurrent.futures.Future()

        def on_game_loop() -> None:
            try:
                done.set_result(call(*args))
            except BaseException as exc:  # noqa: BLE001 (handed to the caller)
                done.set_exception(exc)

        self.game_loop.call_soon_threadsafe(on_game_loop)
        return await asyncio.wrap_future(done)

    def game_soon(self, call: Callable[..., Any], *args: Any) -> None:
        """From the gateways' loop: ``call(*args)`` on the game's loop, without waiting."""
        self.game_loop.call_soon_threadsafe(call, *args)

    async def stop(self) -> None:
        """From the game's loop, once the gateways are closed: end the fork server and the thread."""
        if self.forks is not None:
            _FORK_SERVERS.pop(self.loop, None)
            try:
                await self.run(self.forks.close())
            except RuntimeError:  # (the loop has stopped already)
                pass
        self.loop.call_soon_threadsafe(self.loop.stop)
        await asyncio.get_running_loop().run_in_executor(None, self._thread.join, 10.0)
