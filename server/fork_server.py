"""The gateways' side of the session-client fork server (``client_zygote.py``).

One fork server runs per gateway thread, started with it: a process that has
imported the client, Textual and Rich (and built the hand helper's tables) and
forks a child per SSH session or browser tab, so each session's client starts
without importing anything and shares that memory copy-on-write.
:meth:`ForkServer.spawn` hands it a session's standard input, output and error
(a PTY, or pipes) and its token pipe, and returns a :class:`ForkedClient`,
which looks to the gateways like the ``asyncio.subprocess.Process`` the exec
path gives (``pid``, ``returncode``, ``wait()``, ``stdin``/``stdout``/``stderr``
streams for pipes). A child is its own session and process group, as an
exec'd client is, so the gateways signal and re-prioritise it the same way.

The fork server reports each child's exit status. If it dies, it is started
again (the clients it had forked keep running: each is watched through its
pidfd until it exits); a start asked of it meanwhile, or one it refuses, is
done by the exec path instead, and so is every start where ``fork`` or pidfds
are unavailable (logged once).
"""

from __future__ import annotations

import array
import asyncio
import itertools
import json
import logging
import os
import socket
import sys
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)

ZYGOTE = Path(__file__).with_name("client_zygote.py")
MAX_MESSAGE = 1 << 16
READY_TIMEOUT = 15.0  # seconds a start waits for the fork server's imports before it falls back to exec
SPAWN_TIMEOUT = 10.0  # seconds for one fork's reply
RESTART_DELAYS = (0.0, 0.5, 1.0, 2.0, 5.0)  # between restarts of a fork server that keeps dying (then the last)
STREAM_LIMIT = 1 << 16  # as asyncio.subprocess's


def available() -> bool:
    """Whether this platform can fork session clients (fork, SCM_RIGHTS, pidfds)."""
    return hasattr(os, "fork") and hasattr(os, "pidfd_open") and hasattr(socket, "SCM_RIGHTS") \
        and sys.platform.startswith("linux")


class ForkServerUnavailable(Exception):
    """The fork server could not start this client (the caller starts it by exec)."""


class ForkedClient:
    """A session's client forked by the fork server: what the gateways use of ``asyncio.subprocess.Process``."""

    def __init__(self, pid: int, pidfd: int, loop: asyncio.AbstractEventLoop) -> None:
        self.pid = pid
        self.returncode: int | None = None
        self.stdin: asyncio.StreamWriter | None = None
        self.stdout: asyncio.StreamReader | None = None
        self.stderr: asyncio.StreamReader | None = None
        self._pidfd = pidfd
        self._loop = loop
        self._exited: asyncio.Future[int] = loop.create_future()
        self._watching = False

    def _set_exited(self, status: int) -> None:
        if self.returncode is None:
            self.returncode = status
            self._exited.set_result(status)
        self._close_pidfd()

    def _watch_pidfd(self) -> None:
        """Its fork server has gone: learn of its exit from its pidfd (readable once it has exited)."""
        if self._pidfd < 0 or self._watching or self.returncode is not None:
            return
        self._watching = True
        self._loop.add_reader(self._pidfd, self._set_exited, 1)  # (its status went with the fork server)

    def _close_pidfd(self) -> None:
        if self._pidfd >= 0:
            if self._watching:
                self._loop.remove_reader(self._pidfd)
            os.close(self._pidfd)
            self._pidfd = -1

    async def wait(self) -> int:
        return await asyncio.shield(self._exited)

    def __repr__(self) -> str:
        return f"<ForkedClient {self.pid} returncode={self.returncode}>"


class ForkServer:
    """One fork server process and its socket, on the gateways' event loop (see the module's docstring)."""

    def __init__(self, root: Path, niceness: int, env: dict[str, str]) -> None:
        self.root, self.niceness, self.env = root, niceness, env
        self.loop: asyncio.AbstractEventLoop | None = None
        self.proc: asyncio.subprocess.Process | None = None
        self.pid: int | None = None  # the fork server's, once it is ready
        self.restarts = 0
        self._sock: socket.socket | None = None
        self._ready: asyncio.Future[None] | None = None
        self._replies: dict[int, asyncio.Future[tuple[dict[str, Any], list[int]]]] = {}
        self._clients: dict[int, ForkedClient] = {}
        self._ids = itertools.count(1)
        self._closing = False
        self._keeper: asyncio.Task[None] | None = None

    # ------------------------------------------------------------ the fork server's life

    def start(self) -> None:
        """(On the gateways' loop.) Start the fork server, and start it again whenever it dies."""
        self.loop = asyncio.get_running_loop()
        self._ready = self.loop.create_future()  # a start asked for before it is ready waits for it
        self._keeper = self.loop.create_task(self._keep())

    async def _keep(self) -> None:
        delays = iter(RESTART_DELAYS)
        delay = 0.0
        while not self._closing:
            try:
                status = await self._run_once()
            except OSError as exc:
                log.warning("cannot start the session-client fork server: %s; clients start by exec", exc)
                status = None
                self._lost()
            if self._closing:
                return
            delay = next(delays, delay)
            self.restarts += 1
            log.warning("the session-client fork server ended (%s); starting it again in %.1f s",
                        f"status {status}" if status is not None else "not started", delay)
            await asyncio.sleep(delay)

    async def _run_once(self) -> int:
        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        try:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-I", str(ZYGOTE), str(self.root), str(self.niceness), str(theirs.fileno()),
                stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL, pass_fds=(theirs.fileno(),),
                env=self.env, cwd="/", start_new_session=True)
        except BaseException:
            ours.close()
            raise
        finally:
            theirs.close()
        assert self.loop is not None
        ours.setblocking(False)
        self._sock = ours
        if self._ready is None or self._ready.done():
            self._ready = self.loop.create_future()
        self.loop.add_reader(ours.fileno(), self._readable)
        try:
            return await self.proc.wait()
        finally:
            self._lost()

    def _lost(self) -> None:
        """The fork server has gone: what was asked of it fails (started by exec instead); its children are
        watched through their pidfds."""
        sock, self._sock = self._sock, None
        if sock is not None:
            assert self.loop is not None
            self.loop.remove_reader(sock.fileno())
            sock.close()
        self.pid = None
        if self._ready is not None and not self._ready.done():
            self._ready.set_exception(ForkServerUnavailable("the fork server ended before it was ready"))
            self._ready.exception()  # (retrieved: nobody may be waiting)
        self._ready = None  # until it is started again: meanwhile clients start by exec
        for future in self._replies.values():
            if not future.done():
                future.set_exception(ForkServerUnavailable("the fork server ended"))
        self._replies.clear()
        for client in self._clients.values():
            client._watch_pidfd()
        self._clients = {pid: c for pid, c in self._clients.items() if c.returncode is None}

    def _readable(self) -> None:
        sock = self._sock
        if sock is None:
            return
        while True:
            fds = array.array("i")
            try:
                data, ancillary, _flags, _ = sock.recvmsg(MAX_MESSAGE, socket.CMSG_SPACE(4 * fds.itemsize))
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                data, ancillary = b"", []
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
                    fds.frombytes(payload[: len(payload) - (len(payload) % fds.itemsize)])
            if not data:  # its end closed: the process is going (proc.wait() then tidies up)
                for fd in fds:
                    os.close(fd)
                assert self.loop is not None
                self.loop.remove_reader(sock.fileno())
                return
            try:
                self._message(json.loads(data), list(fds))
            except (ValueError, KeyError, TypeError) as exc:
                log.warning("the session-client fork server said something unexpected (%s)", exc)
                for fd in fds:
                    os.close(fd)

    def _message(self, message: dict[str, Any], fds: list[int]) -> None:
        if "ready" in message:
            self.pid = int(message["ready"])
            if self._ready is not None and not self._ready.done():
                self._ready.set_result(None)
            log.info("session clients are forked by the fork server (pid %d)", self.pid)
        elif "exit" in message:
            client = self._clients.pop(int(message["exit"]), None)
            if client is not None:
                client._set_exited(int(message["status"]))
        else:
            future = self._replies.pop(int(message["id"]), None)
            if future is not None and not future.done():
                future.set_result((message, fds))
                return
        for fd in fds:
            os.close(fd)

    async def close(self) -> None:
        """End the fork server (the clients it forked are the sessions', ended by their gateways)."""
        self._closing = True
        if self._sock is not None:
            try:
                self._sock.shutdown(socket.SHUT_RDWR)  # it reads the end of its socket and leaves
            except OSError:
                pass
        proc = self.proc
        if proc is not None and proc.returncode is None:
            try:
                await asyncio.wait_for(asyncio.shield(proc.wait()), 5)
            except asyncio.TimeoutError:
                proc.kill()
                await proc.wait()
        if self._keeper is not None:
            self._keeper.cancel()
            await asyncio.gather(self._keeper, return_exceptions=True)
        for client in self._clients.values():
            client._close_pidfd()

    # ------------------------------------------------------------ a session's client

    async def spawn(self, args: list[str], token_fd: int, *, env: dict[str, str], stdin: Any, stdout: Any,
                    stderr: Any, terminal: bool) -> ForkedClient:
        """Fork a session's client with these descriptors (or ``asyncio.subprocess.PIPE``: pipes made here);
        :class:`ForkServerUnavailable` if the fork server cannot (the caller then execs one)."""
        if self._ready is None:
            raise ForkServerUnavailable("the fork server is not running")
        try:
            await asyncio.wait_for(asyncio.shield(self._ready), READY_TIMEOUT)
        except asyncio.TimeoutError:
            raise ForkServerUnavailable("the fork server is not ready") from None
        sock = self._sock
        if sock is None:
            raise ForkServerUnavailable("the fork server has gone")
        ours: dict[str, int] = {}  # our ends of the pipes made here
        theirs: list[int] = []
        close_after: list[int] = []
        try:
            for name, given, reading in (("stdin", stdin, False), ("stdout", stdout, True), ("stderr", stderr, True)):
                if given == asyncio.subprocess.PIPE:
                    read_end, write_end = os.pipe()
                    ours[name] = read_end if reading else write_end
                    child_end = write_end if reading else read_end
                    theirs.append(child_end)
                    close_after.append(child_end)
                else:
                    theirs.append(given)
            theirs.append(token_fd)
            request_id = next(self._ids)
            future: asyncio.Future[tuple[dict[str, Any], list[int]]] = asyncio.get_running_loop().create_future()
            self._replies[request_id] = future
            data = json.dumps({"id": request_id, "args": args, "env": env, "terminal": terminal}).encode()
            try:
                sock.sendmsg([data], [(socket.SOL_SOCKET, socket.SCM_RIGHTS, array.array("i", theirs).tobytes())])
            except OSError as exc:
                self._replies.pop(request_id, None)
                raise ForkServerUnavailable(f"cannot reach the fork server: {exc}") from None
            try:
                reply, fds = await asyncio.wait_for(future, SPAWN_TIMEOUT)
            except asyncio.TimeoutError:
                self._replies.pop(request_id, None)
                raise ForkServerUnavailable("the fork server did not answer") from None
            if "error" in reply or len(fds) != 1:
                for fd in fds:
                    os.close(fd)
                raise ForkServerUnavailable(reply.get("error", "no pidfd"))
            client = ForkedClient(int(reply["pid"]), fds[0], asyncio.get_running_loop())
            self._clients[client.pid] = client
            await self._connect_pipes(client, ours)
            return client
        finally:
            for fd in close_after + list(ours.values()):
                os.close(fd)

    async def _connect_pipes(self, client: ForkedClient, ours: dict[str, int]) -> None:
        loop = asyncio.get_running_loop()
        """Streams on our ends of the pipes, as asyncio.subprocess makes them (each fd passes to its stream)."""
        if "stdin" in ours:
            pipe = os.fdopen(ours.pop("stdin"), "wb", 0)
            transport, protocol = await loop.connect_write_pipe(lambda: asyncio.streams.FlowControlMixin(loop=loop),
                                                                pipe)
            client.stdin = asyncio.StreamWriter(transport, protocol, None, loop)
        for name in ("stdout", "stderr"):
            if name in ours:
                reader = asyncio.StreamReader(limit=STREAM_LIMIT, loop=loop)
                pipe = os.fdopen(ours.pop(name), "rb", 0)
                await loop.connect_read_pipe(lambda r=reader: asyncio.StreamReaderProtocol(r, loop=loop), pipe)
                setattr(client, name, reader)
