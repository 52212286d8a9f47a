"""The SSH gateway: ``ssh -p 2222 alice@host`` lands in the game with nothing installed.

Each SSH session must have a PTY; it runs the real ``dab-client`` as a child
process on a pseudo-terminal of its own, connected to this server over
loopback, with the session's terminal type and size (window changes are set
on the PTY, which signals the client with SIGWINCH), at a lower CPU priority
than the server; the client is started and ended as :mod:`server.gateway`
says (an isolated interpreter, this installation's own client). The child
lives exactly as long as the session: it ends when the session ends (SIGHUP,
then SIGKILL) and the session ends with the child's exit status. The gateway
runs on the gateways' own thread (:class:`server.gateway.GatewayThread`):
handshakes, encryption and login floods never run on the game's loop.

Identity is the SSH key. The user name is the player's name; a session that
authenticated with a public key is the same player every time it comes back
with that key: the gateway derives the player's id and token secret from the
key's SHA-256 fingerprint with a secret of the server's (``ssh_identity.key``
in the data directory), creates that player if the lobby does not know it, and
hands the token to the client on a pipe. No key, fingerprint or token is kept
anywhere but the server's own database (which keeps only the token's hash).
Sessions without a key (keyboard-interactive with no prompts, or any password)
are guests: a fresh player each time, allowed or not by ``SshConfig.guests``.

Limits (``SshConfig``): a *slot* is a connection, or a session beyond a
connection's first; slots are limited in all and per address, sessions per
connection. Connections from one address are limited to a rate, and an address
whose connections keep ending without logging in is held back (each further
failure doubles the wait); a held-back connection is dropped before the key
exchange, and the hold is logged once. A connection has ``auth_timeout``
seconds to log in, and the same to open a session once it has logged in or its
last session ended. Idle sessions (no keystroke for ``idle_timeout``) are
closed unless their player is at a table. A PTY or window size is clamped to
``MAX_COLUMNS`` x ``MAX_ROWS``; one beyond what a terminal can be (65535) is
refused. A session's keystrokes and window changes spend the browser's budgets
(:class:`server.gateway.InputBudget`, :class:`server.gateway.Resizes`). The
limits only refuse new connections and sessions; none of them touches a player
already at a table.
"""

from __future__ import annotations

import asyncio
import fcntl
import logging
import os
import secrets
import struct
import termios
from pathlib import Path

import asyncssh

from protocol.messages import is_host

from .errors import RequestError
from .gateway import (GatewayThread, InputBudget, MachineFull, Resizes, client_environment, clamp_size, end_client,
                      game_address_text, lower_priority, start_client)
from .keys import private_file
from .limits import Backoff, BucketsByKey, PeerLog, address_key
from .lobby import Lobby
from .moderation import IDENTITY_KEY_FILE, Ban, key_identity
from .ssh_config import SshConfig

log = logging.getLogger(__name__)

NO_PTY = "Down and Back needs a terminal: use ssh -t (e.g. ssh -t -p PORT name@host)\r\n"
PRACTICE = "practice"  # the command that asks for a practice game instead of this server's tables
READ_CHUNK = 1 << 16
LARGEST_TERMINAL = 65535  # a PTY's size is two 16-bit numbers: a larger one is no terminal's
FREE_FAILURES = 10  # connections from one address that may end without logging in before it is held back
LOGIN_BURST_SECONDS = 30  # an address may open this many seconds' worth of connections at once (at least 30)


def identity_secret(directory: str | None) -> bytes:
    make = lambda: secrets.token_bytes(32)  # noqa: E731
    return make() if directory is None else private_file(Path(directory) / IDENTITY_KEY_FILE, make)


class LoginLimits:
    """Per address: a rate of new connections, and a back-off for connections that end without logging in."""

    def __init__(self, rate: float, keep: int = 4096) -> None:
        self.rate = rate
        self.attempts = BucketsByKey(rate, max(30.0, rate * LOGIN_BURST_SECONDS), keep)
        self.failures: dict[str, Backoff] = {}
        self.throttled: set[str] = set()  # addresses whose connections come faster than the rate, now
        self.keep = keep

    def drop(self, address: str, now: float) -> str | None:
        """None if a connection from ``address`` may try now (it takes an attempt); else a line to log once a
        burst, or "" (said already: its hold was logged when it began, or this burst's first drop was)."""
        backoff = self.failures.get(address)
        if backoff is not None and backoff.wait(now) > 0:
            return ""
        if self.attempts.take(address):
            self.throttled.discard(address)
            return None
        if address in self.throttled:
            return ""
        if len(self.throttled) >= self.keep:
            self.throttled.clear()
        self.throttled.add(address)
        return f"SSH connections come faster than {self.rate:g} a second: dropped until they slow down"

    def failed(self, address: str, now: float) -> float:
        """A connection from ``address`` ended without logging in: the hold that begins now if it is the burst's
        first (0: none, or a longer hold of a burst already said)."""
        backoff = self.failures.get(address)
        if backoff is None:
            if len(self.failures) >= self.keep:  # forget addresses that are not held back
                self.failures = {a: b for a, b in self.failures.items() if b.wait(now) > 0}
            backoff = self.failures[address] = Backoff(FREE_FAILURES, base=1.0, cap=300.0, forget=600.0)
        backoff.failed(now)
        return backoff.wait(now) if backoff.failures == FREE_FAILURES else 0.0

    def succeeded(self, address: str) -> None:
        self.failures.pop(address, None)


class SshGateway:
    def __init__(self, lobby: Lobby, game_address: tuple[str, int], config: SshConfig,
                 data_dir: str | None, thread: GatewayThread, server_name: str = "") -> None:
        self.lobby = lobby  # touched only on the game's loop (thread.game)
        self.game_address = game_address
        self.config = config
        self.thread = thread
        self.server_name = server_name
        self.key = asyncssh.import_private_key(lobby.key.openssh())  # the fair deals' key (server.keys)
        self._secret = identity_secret(data_dir)
        self.fingerprint = self.key.get_fingerprint("sha256")
        self.connections: set[GatewayConnection] = set()
        self.refusing: set[GatewayConnection] = set()  # over a limit, being told so
        self.sessions: set[GatewaySession] = set()  # each with its client, starting or running
        self.new_players = BucketsByKey(config.new_players_per_hour / 3600, config.new_players_per_hour)
        self.logins = LoginLimits(config.login_rate)
        self.peer_log = PeerLog(log)
        self._server: asyncssh.SSHAcceptor | None = None
        # (On the game's loop.) A ban of a key keeps its player out on every port; a new ban ends its sessions.
        lobby.moderation.key_secret = self._secret
        lobby.moderation.watch(lambda ban: thread.loop.call_soon_threadsafe(self._banned, ban))

    def identity(self, fingerprint: str) -> tuple[str, str]:
        """The player id and token secret of the key with this fingerprint (the same every time)."""
        return key_identity(self._secret, fingerprint)

    def _banned(self, ban: Ban) -> None:
        """(On the gateways' loop.) The operator banned someone: end their sessions, saying why."""
        moderation = self.lobby.moderation  # (its bans are snapshots: safe to read from this thread)
        for connection in list(self.connections):
            if moderation.find(host=connection.peer, key=connection.fingerprint) is None and not any(
                    s.player_id is not None and moderation.find(player_id=s.player_id) for s in connection.sessions):
                continue  # (a banned guest's client is refused by the game server itself, and ends)
            for session in list(connection.sessions):
                if session.chan is not None and not session.chan.is_closing():
                    session.chan.write_stderr(f"\r\n{ban.refusal()}\r\n".encode())
                session.end_child()

    async def start(self) -> None:
        """(On the gateways' loop.)"""
        logging.getLogger("asyncssh").setLevel(logging.WARNING)  # a line per connection is a peer's to cause
        self._server = await asyncssh.create_server(
            lambda: GatewayConnection(self), self.config.host, self.config.port,
            server_host_keys=[self.key], login_timeout=self.config.auth_timeout, line_editor=False,
            agent_forwarding=False, x11_forwarding=False, allow_scp=False, encoding=None,
            server_version="DownAndBack")

    @property
    def port(self) -> int:
        assert self._server is not None
        return self._server.get_port()

    def slots(self, address: str | None = None) -> int:
        """Slots held (in all, or by ``address``): a connection each, and each session beyond its first."""
        return sum(max(1, len(c.sessions)) for c in self.connections if address is None or c.address == address)

    def connection_refusal(self, peer: str) -> str | None:
        """Why a new connection from ``peer`` (its IP address) may not play now, or None: the one place
        connections are admitted (a ban by address belongs here)."""
        banned = self.lobby.moderation.refusal(host=peer)  # (a snapshot: safe from this thread)
        if banned is not None:
            return banned
        config, address = self.config, address_key(peer)
        if self.slots(address) >= config.max_per_address:
            return f"at most {config.max_per_address} SSH sessions from one address"
        if self.slots() >= config.max_sessions:
            return "the server has as many SSH sessions as it takes; try again later"
        return None

    def session_refusal(self, connection: GatewayConnection) -> str | None:
        """Why ``connection`` may not open another session now, or None (its first session has its slot)."""
        config = self.config
        if len(connection.sessions) >= config.max_per_connection:
            return f"at most {config.max_per_connection} SSH sessions on one connection"
        if not connection.sessions:
            return None
        if self.slots(connection.address) >= config.max_per_address:
            return f"at most {config.max_per_address} SSH sessions from one address"
        if self.slots() >= config.max_sessions:
            return "the server has as many SSH sessions as it takes; try again later"
        return None

    async def admit(self, session: GatewaySession) -> str:
        """The token the session's client plays with ("" for a guest or a practice game); raises RequestError
        if it may not play: the one place a session's player is admitted (a ban by key belongs here).

        New identities (guests, keys never seen) are limited per SSH address, as the game server limits
        tokenless hellos per address (it does not count the gateway's clients)."""
        if session.command == PRACTICE:
            return ""
        address, fingerprint = session.connection.address, session.connection.fingerprint
        if fingerprint is None:
            if not self.new_players.take(address):
                raise RequestError("rate_limited", "too many new players from your address; try again later")
            return ""
        player_id, secret = self.identity(fingerprint)
        session.player_id = player_id
        banned = self.lobby.moderation.refusal(key=fingerprint, player_id=player_id)  # any name, the same key
        if banned is not None:
            raise RequestError("banned", banned)
        if not await self.thread.game(self.lobby.players.__contains__, player_id) \
                and not self.new_players.take(address):
            raise RequestError("rate_limited", "too many new players from your address; try again later")
        await self.thread.game(self.lobby.adopt, player_id, session.name, secret)
        return f"{player_id}_{secret}"

    async def close(self) -> None:
        """(On the gateways' loop.)"""
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for connection in list(self.connections) + list(self.refusing):
            if connection.conn is not None:
                connection.conn.close()
        for session in list(self.sessions):
            session.end_child()
        await asyncio.gather(*(s.finished for s in list(self.sessions)), return_exceptions=True)


class GatewayConnection(asyncssh.SSHServer):
    """One SSH connection: limits, authentication (key or guest), then its sessions."""

    def __init__(self, gateway: SshGateway) -> None:
        self.gateway = gateway
        self.conn: asyncssh.SSHServerConnection | None = None
        self.peer = "?"  # the peer's IP address
        self.address = "?"  # what per-address limits count it by
        self.fingerprint: str | None = None  # of the key whose signature was verified (see validate_public_key)
        self.refusal: str | None = None  # why this connection may not play (a limit), said after the key exchange
        self.authenticated = False
        self.dropped = False  # held back (a login flood): neither admitted nor a failure of its own
        self.sessions: set[GatewaySession] = set()
        self._no_session: asyncio.TimerHandle | None = None

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        gateway = self.gateway
        peer = conn.get_extra_info("peername")
        self.peer = peer[0] if isinstance(peer, tuple) else str(peer)
        self.address = address_key(self.peer)
        dropped = gateway.logins.drop(self.address, asyncio.get_running_loop().time())
        if dropped is not None:  # a login flood: no key exchange, no word to it
            self.dropped = True
            conn.abort()
            if dropped:
                gateway.peer_log.warning(self.address, "%s", dropped)
            return
        self.refusal = gateway.connection_refusal(self.peer)
        if self.refusal is None:
            gateway.connections.add(self)
        elif len(gateway.refusing) >= gateway.config.max_sessions:  # a flood: no key exchange for each, no word
            self.dropped = True
            conn.abort()
        else:  # told why once the keys are exchanged (begin_auth): before that no client can read it
            gateway.refusing.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        gateway = self.gateway
        gateway.refusing.discard(self)
        gateway.connections.discard(self)
        self._cancel_no_session()
        if not (self.authenticated or self.dropped or self.refusal is not None):
            hold = gateway.logins.failed(self.address, asyncio.get_running_loop().time())
            if hold > 0:
                gateway.peer_log.warning(self.address, "SSH connections held back for %.0f s: %d ended without "
                                         "logging in", hold, gateway.logins.failures[self.address].failures)

    def begin_auth(self, username: str) -> bool:
        if self.refusal is not None and self.conn is not None:
            self.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, self.refusal)
            return True
        if not self.gateway.config.guests and self.conn is not None:
            self.conn.send_auth_banner("This server admits players with an SSH key only "
                                       "(make one with: ssh-keygen -t ed25519).\r\n")
        return True

    def auth_completed(self) -> None:
        self.authenticated = True
        self.gateway.logins.succeeded(self.address)
        self.await_session()

    def await_session(self) -> None:
        """Logged in with no session open: the connection has ``auth_timeout`` seconds to open one."""
        self._cancel_no_session()
        if self.conn is not None and not self.sessions:
            self._no_session = asyncio.get_running_loop().call_later(
                self.gateway.config.auth_timeout, self._close_without_session)

    def _cancel_no_session(self) -> None:
        if self._no_session is not None:
            self._no_session.cancel()
            self._no_session = None

    def _close_without_session(self) -> None:
        self._no_session = None
        if self.conn is not None and not self.sessions:
            self.conn.disconnect(asyncssh.DISC_BY_APPLICATION, "no session was opened")

    def public_key_auth_supported(self) -> bool:
        return True

    def validate_public_key(self, username: str, key: asyncssh.SSHKey) -> bool:
        # Called for a query and again for the signed request: after a success by public key the
        # last key seen is the one whose signature asyncssh verified; the guest methods clear it.
        self.fingerprint = key.get_fingerprint("sha256")
        return True

    def kbdint_auth_supported(self) -> bool:
        return self.gateway.config.guests

    def get_kbdint_challenge(self, username: str, lang: str, submethods: str) -> bool:
        self.fingerprint = None  # a guest, whatever keys were merely offered
        return self.gateway.config.guests

    def password_auth_supported(self) -> bool:
        return self.gateway.config.guests

    def validate_password(self, username: str, password: str) -> bool:
        self.fingerprint = None
        return self.gateway.config.guests

    def session_requested(self) -> "GatewaySession":
        refusal = self.gateway.session_refusal(self)
        if refusal is not None:
            raise asyncssh.ChannelOpenError(asyncssh.OPEN_ADMINISTRATIVELY_PROHIBITED, refusal)
        self._cancel_no_session()
        session = GatewaySession(self)
        self.sessions.add(session)
        return session

    def session_ended(self, session: GatewaySession) -> None:
        self.sessions.discard(session)
        if not self.sessions:
            self.await_session()


class GatewaySession(asyncssh.SSHServerSession):  # type: ignore[type-arg]
    """One SSH session: a PTY, and the client running on it."""

    def __init__(self, connection: GatewayConnection) -> None:
        self.connection = connection
        self.gateway = connection.gateway
        self.chan: asyncssh.SSHServerChannel | None = None  # type: ignore[type-arg]
        self.term: str | None = None
        self.command: str | None = None
        self.player_id: str | None = None
        self.name = ""
        self.master = -1
        self.proc: asyncio.subprocess.Process | None = None
        self.finished: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.resizes = Resizes(self._set_size, (80, 24))
        self.budget = InputBudget()
        self._reading = False
        self._pending = b""  # keystrokes the PTY has not taken yet
        self._held_until = 0.0  # the budget holds the peer back until then (loop time)
        self._flooding = False  # went over its budget: its client has the lowest priority
        self._release: asyncio.TimerHandle | None = None
        self._idle: asyncio.TimerHandle | None = None
        self._task: asyncio.Task[None] | None = None
        self._ending = False

    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:  # type: ignore[type-arg]
        self.chan = chan
        self.name = chan.get_extra_info("username") or "player"

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: object) -> bool:
        width, height = term_size[0] or 80, term_size[1] or 24
        if width > LARGEST_TERMINAL or height > LARGEST_TERMINAL:
            return False  # no terminal is that big: refused (the session then says it needs one)
        self.term = term_type or "xterm"
        self.resizes.size = clamp_size(width, height)
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self.command = command.strip()
        return True

    def session_started(self) -> None:
        self._task = asyncio.get_running_loop().create_task(self._run())

    async def _run(self) -> None:
        try:
            await self._start()
        except Exception as exc:  # noqa: BLE001 (a session's failure is that session's)
            self.gateway.peer_log.warning(self.connection.address, "an SSH session failed: %s: %s",
                                          type(exc).__name__, exc)
            self._close_pty()
            if self.chan is not None and not self.chan.is_closing():
                self.chan.exit(1)
        finally:
            self.gateway.sessions.discard(self)
            self.connection.session_ended(self)
            self.resizes.close()
            for timer in (self._idle, self._release):
                if timer is not None:
                    timer.cancel()
            if not self.finished.done():
                self.finished.set_result(None)

    async def _start(self) -> None:
        chan = self.chan
        assert chan is not None
        if self.term is None:
            chan.write_stderr(NO_PTY.encode())
            chan.exit(1)
            return
        self.gateway.sessions.add(self)
        try:
            await self._spawn(await self.gateway.admit(self))
        except RequestError as exc:  # a name that cannot be had, too many new players, a busy database
            why = f"cannot play as {self.name!r}: {exc.message} (ssh other-name@host)" \
                if exc.code == "bad_name" else exc.message
            chan.write_stderr(f"{why}\r\n".encode())
        except MachineFull as exc:  # (the gateway has logged it)
            chan.write_stderr(f"{exc}\r\n".encode())
        except OSError as exc:
            log.warning("SSH session of %r: cannot start the client: %s", self.name, exc)
            chan.write_stderr(b"the server could not start the game client; try again later\r\n")
        if self.proc is None:
            self._close_pty()
            chan.exit(1)
            return
        if self._ending:  # the connection went while the client started
            self.end_child()
        self._touch()
        status = await self.proc.wait()
        self._close_pty()
        if not chan.is_closing():
            chan.exit(status if status >= 0 else 128 - status)

    def _client_args(self) -> list[str]:
        """The client's command line: this server over loopback (a table to join), or a practice game."""
        args = ["--name", self.name]
        if self.gateway.server_name:
            args += ["--server-label", self.gateway.server_name]
        if self.command == PRACTICE:
            return args
        args.append(game_address_text(self.gateway.game_address))
        reached = self.connection.conn.get_extra_info("sockname") if self.connection.conn is not None else None
        if isinstance(reached, tuple) and is_host(str(reached[0]).removeprefix("::ffff:")):
            args += ["--public-host", str(reached[0]).removeprefix("::ffff:")]  # for the join line (client.joining)
        if self.command:
            args += ["--join", self.command]
        return args

    async def _spawn(self, token: str) -> None:
        master, slave = os.openpty()
        try:
            fcntl.ioctl(slave, termios.TIOCSWINSZ, _winsize(self.resizes.size))
            self.proc = await start_client(self._client_args(), token, env=client_environment(TERM=self.term or "xterm"),
                                           stdin=slave, stdout=slave, stderr=slave, terminal=True)
        except BaseException:
            os.close(master)
            raise
        finally:
            os.close(slave)
        self.master = master
        if self._flooding:  # (over its budget before its client started)
            lower_priority(self.proc)
        os.set_blocking(master, False)
        asyncio.get_running_loop().add_reader(master, self._from_client)
        self._reading = True

    # ------------------------------------------------------------ bytes both ways

    def _from_client(self) -> None:
        try:
            data = os.read(self.master, READ_CHUNK)
        except BlockingIOError:
            return
        except OSError:  # EIO: the client has gone
            data = b""
        if not data:
            self._stop_reading()
            return
        assert self.chan is not None
        self.chan.write(data)

    def _stop_reading(self) -> None:
        if self._reading:
            self._reading = False
            asyncio.get_running_loop().remove_reader(self.master)

    def pause_writing(self) -> None:
        self._stop_reading()  # the SSH peer is not reading: the client blocks on its PTY, bounded

    def resume_writing(self) -> None:
        if not self._reading and self.master >= 0:
            self._reading = True
            asyncio.get_running_loop().add_reader(self.master, self._from_client)

    def data_received(self, data: bytes, datatype: object) -> None:
        self._touch()
        self._hold(self.budget.spend(len(data)))
        if self.master < 0:
            return
        self._pending += data
        self._write_pending()

    def _hold(self, seconds: float) -> None:
        """Over its budget: the peer is not read from for ``seconds`` (the SSH window holds it back)."""
        if seconds <= 0 or self.chan is None:
            return
        if not self._flooding:
            self._flooding = True
            lower_priority(self.proc)
            self.gateway.peer_log.warning(self.connection.address, "an SSH session sends more than its budget: "
                                          "held back, its client at the lowest priority")
        loop = asyncio.get_running_loop()
        self._held_until = max(self._held_until, loop.time() + seconds)
        self.chan.pause_reading()
        if self._release is None:
            self._release = loop.call_at(self._held_until, self._released)

    def _released(self) -> None:
        self._release = None
        loop = asyncio.get_running_loop()
        if loop.time() < self._held_until:
            self._release = loop.call_at(self._held_until, self._released)
        elif not self._pending and self.chan is not None:
            self.chan.resume_reading()

    def _write_pending(self) -> None:
        loop = asyncio.get_running_loop()
        try:
            written = os.write(self.master, self._pending)
        except BlockingIOError:
            written = 0
        except OSError:
            self._pending = b""
            return
        self._pending = self._pending[written:]
        assert self.chan is not None
        if self._pending:
            self.chan.pause_reading()  # bounded: the SSH window stops the peer
            loop.add_writer(self.master, self._drain)

    def _drain(self) -> None:
        asyncio.get_running_loop().remove_writer(self.master)
        self._write_pending()
        if not self._pending and self._release is None and self.chan is not None:
            self.chan.resume_reading()

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self._hold(self.budget.spend())
        if width > LARGEST_TERMINAL or height > LARGEST_TERMINAL:
            return  # no terminal's size: left as it was
        self.resizes.ask(width or self.resizes.size[0], height or self.resizes.size[1])

    def _set_size(self, width: int, height: int) -> None:
        if self.master >= 0:  # the kernel sends SIGWINCH to the client, the terminal's foreground
            fcntl.ioctl(self.master, termios.TIOCSWINSZ, _winsize((width, height)))

    # ------------------------------------------------------------ idle and ending

    def _touch(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
        self._idle = asyncio.get_running_loop().call_later(self.gateway.config.idle_timeout, self._idle_check)

    def _idle_check(self) -> None:
        self._idle = None
        asyncio.get_running_loop().create_task(self._idle_close())

    async def _idle_close(self) -> None:
        try:
            at_table = await self.gateway.thread.game(_at_table, self.gateway.lobby, self.player_id, self.name)
        except RuntimeError:  # the game's loop has stopped: the server is closing
            return
        if at_table:
            self._touch()
            return
        if self.proc is None or self.proc.returncode is not None:
            return
        if self.chan is not None:
            self.chan.write_stderr(b"\r\nclosed after a long time without a keystroke\r\n")
        self.end_child()

    def eof_received(self) -> bool:
        return True  # keep the channel: the client ends the session

    def connection_lost(self, exc: Exception | None) -> None:
        self._ending = True
        if self._task is None:  # never started (its PTY refused, say): its slot is free at once
            self.connection.session_ended(self)
            self.resizes.close()
            if not self.finished.done():
                self.finished.set_result(None)
        self.end_child()

    def end_child(self) -> None:
        """The session is over: hang up the client's terminal, and kill it if it lingers."""
        self._close_pty()  # the client's terminal hangs up: SIGHUP to the client
        proc = self.proc
        if proc is not None and proc.returncode is None:
            asyncio.get_running_loop().create_task(end_client(proc))

    def _close_pty(self) -> None:
        if self.master < 0:
            return
        self._stop_reading()
        asyncio.get_running_loop().remove_writer(self.master)
        os.close(self.master)
        self.master = -1


def _winsize(size: tuple[int, int]) -> bytes:
    width, height = size
    return struct.pack("HHHH", height, width, 0, 0)


def _at_table(lobby: Lobby, player_id: str | None, name: str) -> bool:
    """(On the game's loop.) Whether the session's player sits at a table: its key's, or a guest's by name."""
    players = lobby.players
    if player_id is not None:
        player = players.get(player_id)
        return player is not None and player.table_id is not None
    folded = name.casefold()  # a guest: the online player of that name
    return any(p.table_id is not None and p.session is not None and p.name.casefold() == folded
               for p in players.values())
