"""The SSH gateway's settings, importable without asyncssh (``dab-server --help`` shows the defaults)."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass
class SshConfig:
    host: str = "0.0.0.0"
    port: int = 2222
    guests: bool = True  # sessions without a key may play (as guests whose chips do not persist)
    max_sessions: int = 100  # slots in all: a connection each, and each session beyond a connection's first
    max_per_address: int = 10  # slots from one address
    max_per_connection: int = 4  # sessions open at once on one connection (OpenSSH's multiplexing opens several)
    auth_timeout: float = 30.0  # from connecting to authenticated, and from then (or a last session's end) to a session
    idle_timeout: float = 1800.0  # no keystroke this long, and not at a table: closed
    new_players_per_hour: int = 30  # new identities (guests, keys never seen) per SSH address, bursts of as many
    login_rate: float = 1.0  # new connections per second from one address, bursts of 30 s' worth (at least 30)


def loopback(host: str) -> str:
    """How a client on this machine reaches a server listening on ``host``."""
    return {"": "127.0.0.1", "0.0.0.0": "127.0.0.1", "::": "::1"}.get(host, host)
