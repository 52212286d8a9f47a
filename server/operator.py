"""The operator's channel: ``dab-server ban``, ``unban``, ``bans`` and ``say`` reach a running server.

A running dab-server with a data directory listens on a Unix socket in it,
``dab-server.sock``: created private (mode 0600, in the 0700 directory the
server owns) and, on every connection, the peer's user checked (``SO_PEERCRED``:
only the server's own user, or root), so only whoever can already read the
database may use it. One request a connection: one line of JSON, answered with
one line of JSON, within :data:`TIMEOUT`. Bans and unbans are units of work like
any request: the answer comes after their commit.

With no server running on the directory, ``ban``, ``unban`` and ``bans`` open
its database themselves (the next start applies them); ``say`` has nobody to
tell. ``--memory`` servers have no data directory and no channel.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import json
import os
import socket
import stat
import struct
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .errors import RequestError, StoreError
from .moderation import BAN_KINDS, REASON_MAX, Ban, address_network, key_fingerprint
from .text import clean_text

if TYPE_CHECKING:
    from .lobby import Lobby
    from .store import Store

SOCKET_NAME = "dab-server.sock"
TIMEOUT = 10.0  # s: a connection says its request and hears the answer within this
LINE_MAX = 64 * 1024  # bytes of one request or answer
_PATH_MAX = 100  # bytes of a Unix socket's path that bind and connect take everywhere (108 on Linux)


class OperatorError(Exception):
    """What the operator is told went wrong (one line)."""


# ------------------------------------------------------------ who and what: the same on both sides


def resolve_player(players: list[tuple[str, str]], target: str) -> tuple[str, str]:
    """``(player_id, name)`` of the player an operator named: by id, or by a name only one player has."""
    found = [p for p in players if p[0] == target] or [p for p in players if p[1] == target] \
        or [p for p in players if p[1].casefold() == target.casefold()]
    if len(found) != 1:
        raise OperatorError("no player has that id or name" if not found
                            else f"{len(found)} players are called {target!r}: give the player's id")
    return found[0]


def make_ban(kind: str, target: str, reason: str, players: list[tuple[str, str]]) -> Ban:
    """The ban an operator asked for (``players``: every ``(player_id, name)``, to find a player in)."""
    if kind not in BAN_KINDS:
        raise OperatorError(f"a ban is of a player, a key or an address, not {kind!r}")
    reason = clean_text(reason, REASON_MAX + 1)
    if len(reason) > REASON_MAX:
        raise OperatorError(f"the reason is at most {REASON_MAX} characters")
    try:
        if kind == "player":
            value, label = resolve_player(players, target)
        elif kind == "key":
            value = key_fingerprint(target)
            label = " ".join(target.split()[2:])[:60] if not target.startswith("SHA256:") else ""
        else:
            value, label = address_network(target), ""
    except ValueError as exc:
        raise OperatorError(str(exc)) from None
    return Ban(kind, value, label, reason, time.time())


def ban_value(kind: str, target: str, bans: list[Ban], players: list[tuple[str, str]]) -> str:
    """The stored value of the ban an ``unban`` names (a player also by the name the ban shows)."""
    if kind not in BAN_KINDS:
        raise OperatorError(f"a ban is of a player, a key or an address, not {kind!r}")
    try:
        if kind == "key":
            return key_fingerprint(target)
        if kind == "address":
            return address_network(target)
    except ValueError as exc:
        raise OperatorError(str(exc)) from None
    listed = [b for b in bans if b.kind == "player" and target in (b.value, b.label)]
    if len(listed) == 1:
        return listed[0].value
    return resolve_player(players, target)[0]


def _ban_map(ban: Ban) -> dict[str, Any]:
    return {"kind": ban.kind, "value": ban.value, "label": ban.label, "reason": ban.reason, "at": ban.at}


# ------------------------------------------------------------ the server's side


class OperatorChannel:
    """The running server's end of the channel (see the module docstring)."""

    def __init__(self, lobby: "Lobby", data_dir: str | os.PathLike[str]) -> None:
        self.lobby = lobby
        self.path = Path(data_dir) / SOCKET_NAME
        self._server: asyncio.AbstractServer | None = None
        self._dir_fd: int | None = None

    async def start(self) -> None:
        """Listen (a stale socket of a server that died is replaced: this one holds the database)."""
        with contextlib.suppress(FileNotFoundError):
            info = os.lstat(self.path)
            if stat.S_ISDIR(info.st_mode):
                raise OSError(errno.EISDIR, f"{self.path} is a directory")
            os.unlink(self.path)
        address, self._dir_fd = _address(self.path)
        previous = os.umask(0o077)  # private from the moment it exists
        try:
            self._server = await asyncio.get_running_loop().create_unix_server(
                lambda: _OperatorProtocol(self), address)
        finally:
            os.umask(previous)
        os.chmod(self.path, 0o600)

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            with contextlib.suppress(Exception):
                await self._server.wait_closed()
            self._server = None
            with contextlib.suppress(FileNotFoundError):
                os.unlink(self.path)
        if self._dir_fd is not None:
            os.close(self._dir_fd)
            self._dir_fd = None

    async def answer(self, request: Any) -> dict[str, Any]:
        try:
            return {"ok": True, **await self._answer(request)}
        except OperatorError as exc:
            return {"ok": False, "error": str(exc)}
        except RequestError as exc:
            return {"ok": False, "error": exc.message}

    async def _answer(self, request: Any) -> dict[str, Any]:
        if not isinstance(request, dict) or not isinstance(request.get("command"), str):
            raise OperatorError("not a request")
        command = request["command"]
        lobby = self.lobby
        players = [(p.player_id, p.name) for p in lobby.players.values()]
        if command == "bans":
            return {"bans": [_ban_map(b) for b in lobby.moderation.listed()]}
        if command == "ban":
            ban = make_ban(str(request.get("kind")), str(request.get("target", "")), str(request.get("reason", "")),
                           players)
            new, closed = lobby.ban(ban)
            await lobby.durable()
            return {"ban": _ban_map(ban), "new": new, "closed": closed}
        if command == "unban":
            value = ban_value(str(request.get("kind")), str(request.get("target", "")), lobby.moderation.listed(),
                              players)
            lifted = lobby.unban(str(request["kind"]), value)
            await lobby.durable()
            if lifted is None:
                raise OperatorError("there is no such ban (dab-server bans lists them)")
            return {"ban": _ban_map(lifted)}
        if command == "say":
            return {"told": lobby.announce(str(request.get("text", "")))}
        raise OperatorError(f"unknown command {command!r}")


class _OperatorProtocol(asyncio.Protocol):
    def __init__(self, channel: OperatorChannel) -> None:
        self.channel = channel
        self.buffer = b""
        self.transport: asyncio.Transport | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._busy = False

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        assert isinstance(transport, asyncio.Transport)
        self.transport = transport
        sock = transport.get_extra_info("socket")
        if sock is None or _peer_uid(sock) not in (os.geteuid(), 0):  # only the server's own user (or root)
            transport.abort()
            return
        self._timer = asyncio.get_running_loop().call_later(TIMEOUT, transport.abort)

    def data_received(self, data: bytes) -> None:
        if self._busy:
            return
        self.buffer += data
        if b"\n" not in self.buffer:
            if len(self.buffer) > LINE_MAX and self.transport is not None:
                self.transport.abort()
            return
        self._busy = True
        line = self.buffer.split(b"\n", 1)[0]
        asyncio.get_running_loop().create_task(self._reply(line))

    async def _reply(self, line: bytes) -> None:
        try:
            request = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            request = None
        answer = await self.channel.answer(request)
        if self.transport is not None and not self.transport.is_closing():
            self.transport.write(json.dumps(answer).encode() + b"\n")
            self.transport.close()

    def connection_lost(self, exc: Exception | None) -> None:
        if self._timer is not None:
            self._timer.cancel()


def _peer_uid(sock: socket.socket) -> int:
    try:
        credentials = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
    except (AttributeError, OSError):  # not Linux: the socket file's mode (0600) is the check
        return os.geteuid()
    return struct.unpack("3i", credentials)[1]


def _address(path: Path) -> tuple[str, int | None]:
    """A path bind and connect take for ``path``: itself, or through an open descriptor of its directory
    when it is too long for a Unix socket address (Linux's ``/proc/self/fd``)."""
    if len(os.fsencode(path)) <= _PATH_MAX:
        return str(path), None
    fd = os.open(path.parent, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    return f"/proc/self/fd/{fd}/{path.name}", fd


# ------------------------------------------------------------ the command line's side


class NotRunning(Exception):
    """No server answers on the data directory's socket."""


async def ask(data_dir: str | os.PathLike[str], request: dict[str, Any]) -> dict[str, Any]:
    """The running server's answer to ``request`` (:class:`NotRunning` if none listens)."""
    path = Path(data_dir).expanduser() / SOCKET_NAME
    address, fd = _address(path)
    try:
        try:
            reader, writer = await asyncio.wait_for(asyncio.open_unix_connection(address), TIMEOUT)
        except (FileNotFoundError, ConnectionRefusedError) as exc:
            raise NotRunning(str(exc)) from None
        try:
            writer.write(json.dumps(request).encode() + b"\n")
            line = await asyncio.wait_for(reader.readline(), TIMEOUT)
        finally:
            writer.close()
    finally:
        if fd is not None:
            os.close(fd)
    if not line:
        raise OperatorError(f"the server closed {path} without answering (is it another user's?)")
    answer = json.loads(line)
    if not answer.get("ok"):
        raise OperatorError(answer.get("error", "refused"))
    return answer


def offline(store: "Store", request: dict[str, Any]) -> dict[str, Any]:
    """``ban``, ``unban`` or ``bans`` with no server running: straight into the database."""
    players = [(p.player_id, p.name) for p in store.load_players()]
    bans = store.load_bans()
    command = request["command"]
    if command == "bans":
        return {"bans": [_ban_map(b) for b in bans]}
    if command == "ban":
        ban = make_ban(request["kind"], request["target"], request.get("reason", ""), players)
        new = all((b.kind, b.value) != (ban.kind, ban.value) for b in bans)
        store.add_ban(ban)
        store.commit()
        return {"ban": _ban_map(ban), "new": new, "closed": 0}
    if command == "unban":
        value = ban_value(request["kind"], request["target"], bans, players)
        lifted = next((b for b in bans if (b.kind, b.value) == (request["kind"], value)), None)
        if lifted is None:
            raise OperatorError("there is no such ban (dab-server bans lists them)")
        store.remove_ban(lifted.kind, lifted.value)
        store.commit()
        return {"ban": _ban_map(lifted)}
    raise OperatorError("no dab-server is running on that data directory: there is nobody to tell")


def ban_from_map(data: dict[str, Any]) -> Ban:
    return Ban(data["kind"], data["value"], data["label"], data["reason"], data["at"])


__all__ = ["OperatorChannel", "OperatorError", "NotRunning", "ask", "offline", "ban_from_map", "SOCKET_NAME",
           "StoreError"]
