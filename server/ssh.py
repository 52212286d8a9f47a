"""The SSH gateway: ``ssh -p 2222 alice@host`` lands in the game with nothing installed.

Each SSH session must have a PTY; it runs the real ``dab-client`` as a child
process on a pseudo-terminal of its own, connected to this server over
loopback, with the session's terminal type and size (window changes are set
on the PTY, which signals the client with SIGWINCH), at a lower CPU priority
than the server (``CLIENT_NICENESS``). The child lives exactly as long as the session: it ends when the session ends (SIGHUP, then SIGKILL) and
the session ends with the child's exit status.

Identity is the SSH key. The user name is the player's name; a session that
authenticated with a public key is the same player every time it comes back
with that key: the gateway derives the player's id and token secret from the
key's SHA-256 fingerprint with a secret of the server's (``ssh_identity.key``
in the data directory), creates that player if the lobby does not know it, and
hands the token to the client on a pipe. No key, fingerprint or token is kept
anywhere but the server's own database (which keeps only the token's hash).
Sessions without a key (keyboard-interactive with no prompts, or any password)
are guests: a fresh player each time, allowed or not by ``SshConfig.guests``.

Limits: sessions in all, sessions per address, an authentication timeout, and
idle sessions (no keystroke for ``idle_timeout``) closed unless their player is
at a table. The limits only refuse new connections; none of them touches a
player already at a table.
"""

from __future__ import annotations

import asyncio
import base64
import errno
import fcntl
import hashlib
import hmac
import logging
import os
import secrets
import signal
import struct
import sys
import termios
from pathlib import Path
from typing import Callable

import asyncssh

from .errors import RequestError
from .limits import CLIENT_NICENESS, BucketsByKey, address_key
from .lobby import Lobby
from .ssh_config import SshConfig

log = logging.getLogger(__name__)

HOST_KEY_FILE = "ssh_host_ed25519_key"
IDENTITY_KEY_FILE = "ssh_identity.key"
NO_PTY = "Down and Back needs a terminal: use ssh -t (e.g. ssh -t -p PORT name@host)\r\n"
PRACTICE = "practice"  # the command that asks for a practice game instead of this server's tables
READ_CHUNK = 1 << 16
EXIT_GRACE = 3.0  # seconds a client has to leave after SIGHUP before it is killed


def private_file(path: Path, make: Callable[[], bytes]) -> bytes:
    """The file's bytes; created from ``make()`` with mode 0600 from the start if it does not exist."""
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    data = make()
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:  # another start made it meanwhile
        return path.read_bytes()
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())
    return data


def host_key(directory: str | None) -> asyncssh.SSHKey:
    """The server's SSH host key, kept in the data directory (a fresh one per run without one)."""
    make = lambda: asyncssh.generate_private_key("ssh-ed25519").export_private_key()  # noqa: E731
    data = make() if directory is None else private_file(Path(directory) / HOST_KEY_FILE, make)
    return asyncssh.import_private_key(data)


def identity_secret(directory: str | None) -> bytes:
    make = lambda: secrets.token_bytes(32)  # noqa: E731
    return make() if directory is None else private_file(Path(directory) / IDENTITY_KEY_FILE, make)


class SshGateway:
    def __init__(self, lobby: Lobby, game_address: tuple[str, int], config: SshConfig,
                 data_dir: str | None) -> None:
        self.lobby = lobby
        self.game_address = game_address
        self.config = config
        self.key = host_key(data_dir)
        self._secret = identity_secret(data_dir)
        self.fingerprint = self.key.get_fingerprint("sha256")
        self.connections: set[GatewayConnection] = set()
        self.per_address: dict[str, int] = {}
        self.refusing: set[GatewayConnection] = set()  # over a limit, being told so
        self.sessions: set[GatewaySession] = set()
        self.new_players = BucketsByKey(config.new_players_per_hour / 3600, config.new_players_per_hour)
        self._server: asyncssh.SSHAcceptor | None = None

    def identity(self, fingerprint: str) -> tuple[str, str]:
        """The player id and token secret of the key with this fingerprint (the same every time)."""
        digest = hmac.new(self._secret, fingerprint.encode(), hashlib.sha256).digest()
        return digest[:8].hex(), base64.urlsafe_b64encode(digest[8:]).rstrip(b"=").decode()

    async def start(self) -> None:
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

    async def close(self) -> None:
        if self._server is not None:
            self._server.close()
            await self._server.wait_closed()
        for session in list(self.sessions):
            session.end_child()
        await asyncio.gather(*(s.finished for s in list(self.sessions)), return_exceptions=True)


class GatewayConnection(asyncssh.SSHServer):
    """One SSH connection: limits, authentication (key or guest), then its session."""

    def __init__(self, gateway: SshGateway) -> None:
        self.gateway = gateway
        self.conn: asyncssh.SSHServerConnection | None = None
        self.address = "?"
        self.fingerprint: str | None = None  # of the key whose signature was verified (see validate_public_key)
        self.refusal: str | None = None  # why this connection may not play (a limit), said after the key exchange

    def connection_made(self, conn: asyncssh.SSHServerConnection) -> None:
        self.conn = conn
        gateway, config = self.gateway, self.gateway.config
        peer = conn.get_extra_info("peername")
        self.address = address_key(peer[0]) if isinstance(peer, tuple) else str(peer)
        if gateway.per_address.get(self.address, 0) >= config.max_per_address:
            self.refusal = f"at most {config.max_per_address} SSH sessions from one address"
        elif len(gateway.connections) >= config.max_sessions:
            self.refusal = "the server has as many SSH sessions as it takes; try again later"
        if self.refusal is None:
            gateway.connections.add(self)
            gateway.per_address[self.address] = gateway.per_address.get(self.address, 0) + 1
        elif len(gateway.refusing) >= config.max_sessions:  # a flood: no key exchange for each, no word
            conn.abort()
        else:  # told why once the keys are exchanged (begin_auth): before that no client can read it
            gateway.refusing.add(self)

    def connection_lost(self, exc: Exception | None) -> None:
        gateway = self.gateway
        gateway.refusing.discard(self)
        if self in gateway.connections:
            gateway.connections.discard(self)
            left = gateway.per_address.pop(self.address) - 1
            if left:
                gateway.per_address[self.address] = left

    def begin_auth(self, username: str) -> bool:
        if self.refusal is not None and self.conn is not None:
            self.conn.disconnect(asyncssh.DISC_TOO_MANY_CONNECTIONS, self.refusal)
            return True
        if not self.gateway.config.guests and self.conn is not None:
            self.conn.send_auth_banner("This server admits players with an SSH key only "
                                       "(make one with: ssh-keygen -t ed25519).\r\n")
        return True

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
        return GatewaySession(self)


class GatewaySession(asyncssh.SSHServerSession):  # type: ignore[type-arg]
    """One SSH session: a PTY, and the client running on it."""

    def __init__(self, connection: GatewayConnection) -> None:
        self.connection = connection
        self.gateway = connection.gateway
        self.chan: asyncssh.SSHServerChannel | None = None  # type: ignore[type-arg]
        self.term: str | None = None
        self.size = (80, 24)
        self.command: str | None = None
        self.player_id: str | None = None
        self.name = ""
        self.master = -1
        self.proc: asyncio.subprocess.Process | None = None
        self.finished: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._reading = False
        self._pending = b""  # keystrokes the PTY has not taken yet
        self._idle: asyncio.TimerHandle | None = None

    def connection_made(self, chan: asyncssh.SSHServerChannel) -> None:  # type: ignore[type-arg]
        self.chan = chan
        self.name = chan.get_extra_info("username") or "player"

    def pty_requested(self, term_type: str, term_size: tuple[int, int, int, int], term_modes: object) -> bool:
        self.term = term_type or "xterm"
        self.size = (term_size[0] or 80, term_size[1] or 24)
        return True

    def shell_requested(self) -> bool:
        return True

    def exec_requested(self, command: str) -> bool:
        self.command = command.strip()
        return True

    def session_started(self) -> None:
        asyncio.get_running_loop().create_task(self._start())

    async def _start(self) -> None:
        chan = self.chan
        assert chan is not None
        if self.term is None:
            chan.write_stderr(NO_PTY.encode())
            chan.exit(1)
            self.finished.set_result(None)
            return
        self.gateway.sessions.add(self)
        try:
            await self._spawn()
        except RequestError as exc:  # a name that cannot be had, too many new players, a busy database
            why = f"cannot play as {self.name!r}: {exc.message} (ssh other-name@host)" \
                if exc.code == "bad_name" else exc.message
            chan.write_stderr(f"{why}\r\n".encode())
        except OSError as exc:
            log.warning("SSH session of %r: cannot start the client: %s", self.name, exc)
            chan.write_stderr(b"the server could not start the game client; try again later\r\n")
        if self.proc is None:
            self._close_pty()
            chan.exit(1)
            self.gateway.sessions.discard(self)
            self.finished.set_result(None)
            return
        self._touch()
        status = await self.proc.wait()  # type: ignore[union-attr]
        self._close_pty()
        self.gateway.sessions.discard(self)
        if self._idle is not None:
            self._idle.cancel()
        if not chan.is_closing():
            chan.exit(status if status >= 0 else 128 - status)
        self.finished.set_result(None)

    def _client_args(self, token_fd: int) -> list[str]:
        """The client's command line: this server over loopback (a table to join), or a practice game."""
        args = ["--name", self.name, "--token-fd", str(token_fd)]
        if self.command == PRACTICE:
            return args
        host, port = self.gateway.game_address
        args.append(f"[{host}]:{port}" if ":" in host else f"{host}:{port}")
        if self.command:
            args += ["--join", self.command]
        return args

    def _token(self) -> str:
        """The key's player, created on its first visit; a guest (or a practice game) has none.

        New identities (guests, keys never seen) are limited per SSH address, as the game
        server limits tokenless hellos per address (it does not count the gateway's clients)."""
        if self.command == PRACTICE:
            return ""
        fingerprint = self.connection.fingerprint
        if fingerprint is not None:
            self.player_id, secret = self.gateway.identity(fingerprint)
        if (fingerprint is None or self.player_id not in self.gateway.lobby.players) \
                and not self.gateway.new_players.take(self.connection.address):
            raise RequestError("rate_limited", "too many new players from your address; try again later")
        if fingerprint is None:
            return ""
        self.gateway.lobby.adopt(self.player_id, self.name, secret)
        return f"{self.player_id}_{secret}"

    async def _spawn(self) -> None:
        token = self._token()
        self.master, slave = os.openpty()
        self._set_size()
        fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", self.size[1], self.size[0], 0, 0))
        token_r, token_w = os.pipe()
        os.write(token_w, token.encode())
        os.close(token_w)
        env = {"TERM": self.term or "xterm", "LANG": "C.UTF-8", "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
               "HOME": os.environ.get("HOME", "/"), "PYTHONPATH": os.environ.get("PYTHONPATH", "")}
        try:
            self.proc = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "client", *self._client_args(token_r), stdin=slave, stdout=slave, stderr=slave,
                pass_fds=(token_r,), env=env, start_new_session=True, preexec_fn=_take_terminal)
        finally:
            os.close(slave)
            os.close(token_r)
        os.set_blocking(self.master, False)
        asyncio.get_running_loop().add_reader(self.master, self._from_client)
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
        if self.master < 0:
            return
        self._pending += data
        self._write_pending()

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
        if not self._pending and self.chan is not None:
            self.chan.resume_reading()

    def terminal_size_changed(self, width: int, height: int, pixwidth: int, pixheight: int) -> None:
        self.size = (width or self.size[0], height or self.size[1])
        self._set_size()

    def _set_size(self) -> None:
        if self.master >= 0:  # the kernel sends SIGWINCH to the client, the terminal's foreground
            fcntl.ioctl(self.master, termios.TIOCSWINSZ, struct.pack("HHHH", self.size[1], self.size[0], 0, 0))

    # ------------------------------------------------------------ idle and ending

    def _touch(self) -> None:
        if self._idle is not None:
            self._idle.cancel()
        self._idle = asyncio.get_running_loop().call_later(self.gateway.config.idle_timeout, self._idle_check)

    def _idle_check(self) -> None:
        self._idle = None
        if self._at_table():
            self._touch()
            return
        if self.chan is not None:
            self.chan.write_stderr(b"\r\nclosed after a long time without a keystroke\r\n")
        self.end_child()

    def _at_table(self) -> bool:
        players = self.gateway.lobby.players
        if self.player_id is not None:
            player = players.get(self.player_id)
            return player is not None and player.table_id is not None
        folded = self.name.casefold()  # a guest: the online player of that name
        return any(p.table_id is not None and p.session is not None and p.name.casefold() == folded
                   for p in players.values())

    def eof_received(self) -> bool:
        return True  # keep the channel: the client ends the session

    def connection_lost(self, exc: Exception | None) -> None:
        self.end_child()

    def end_child(self) -> None:
        """The session is over: hang up the client's terminal, and kill it if it lingers."""
        proc = self.proc
        if proc is None or proc.returncode is not None:
            self._close_pty()
            return
        self._close_pty()  # the client's terminal hangs up: SIGHUP to the client
        try:
            os.killpg(proc.pid, signal.SIGHUP)
        except ProcessLookupError:
            return
        asyncio.get_running_loop().call_later(EXIT_GRACE, _kill, proc)

    def _close_pty(self) -> None:
        if self.master < 0:
            return
        self._stop_reading()
        asyncio.get_running_loop().remove_writer(self.master)
        os.close(self.master)
        self.master = -1


def _take_terminal() -> None:
    """In the child, after setsid: its PTY becomes its controlling terminal (SIGWINCH, SIGHUP);
    and it yields the CPU to the server (``CLIENT_NICENESS``)."""
    fcntl.ioctl(0, termios.TIOCSCTTY, 0)
    os.nice(CLIENT_NICENESS)


def _kill(proc: asyncio.subprocess.Process) -> None:
    if proc.returncode is None:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except OSError as exc:
            if exc.errno != errno.ESRCH:
                raise
