"""Dealing with a nuisance: mutes (each player's own), and the operator's bans and announcements.

* **Mutes** are a player's own: ``mute`` hides another player's chat (and any
  other line they write at a table) from the player who asked, across
  connections and restarts (stored in ``mutes``). Nobody else is told.
* **Bans** are the operator's (``dab-server ban``, through the operator's
  channel, :mod:`server.operator`): a player (by id), an SSH key (by its
  SHA-256 fingerprint, so the key's player and any new name from the key) or an
  address (an IP address or a network). Stored in ``bans``; applied at once to
  whoever is online (their connections are closed with ``bye`` ``banned``, and
  a banned player leaves their tables as if they had left); refused ever after,
  with the reason, wherever they come from: the game port's hello and
  connections, the SSH gateway (:meth:`Moderation.refusal` with the key and the
  address), the browser gateway (the address, the token's player).
* A table's host **removes** a player from their table (:meth:`server.table.Table.remove`);
  the table remembers it, in ``removals``.

The gateways learn of a new ban through :meth:`Moderation.watch`, and end their
sessions of it themselves. The bans are replaced, never changed in place, so a
gateway's own thread may ask :meth:`Moderation.refusal` at any time.
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import ipaddress
import logging
import time
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterable

from .errors import RequestError

if TYPE_CHECKING:
    from .store import Store

log = logging.getLogger(__name__)

BAN_KINDS = ("player", "key", "address")
MAX_MUTES = 500  # players one player may mute
REASON_MAX = 200  # characters of a ban's reason
IDENTITY_KEY_FILE = "ssh_identity.key"  # the SSH gateway's secret, from which a key's player id is derived


@dataclass(frozen=True)
class Ban:
    kind: str  # "player", "key" or "address"
    value: str  # a player id, an SSH key's fingerprint ("SHA256:..."), an address or network ("10.0.0.0/8")
    label: str  # what the operator sees in ``bans``: the player's name, the key's comment, the address
    reason: str  # said to the banned ("" for none)
    at: float  # Unix time

    def refusal(self) -> str:
        """What the banned are told, wherever they come from."""
        return "you are banned from this server" + (f": {self.reason}" if self.reason else "")

    def describe(self) -> str:
        """One line of ``dab-server bans``."""
        when = time.strftime("%Y-%m-%d %H:%M", time.localtime(self.at))
        shown = self.value if self.label in ("", self.value) else f"{self.label} ({self.value})"
        return f"{self.kind:7s} {shown}  since {when}" + (f"  reason: {self.reason}" if self.reason else "")


def key_identity(secret: bytes, fingerprint: str) -> tuple[str, str]:
    """The player id and token secret of the SSH key with this fingerprint (the SSH gateway's identities)."""
    digest = hmac.new(secret, fingerprint.encode(), hashlib.sha256).digest()
    return digest[:8].hex(), base64.urlsafe_b64encode(digest[8:]).rstrip(b"=").decode()


def key_fingerprint(text: str) -> str:
    """An SSH key's ``SHA256:...`` fingerprint, from the fingerprint itself or a public key line
    (``ssh-ed25519 AAAA... comment``, as in a ``.pub`` file); ValueError if it is neither."""
    text = text.strip()
    if text.startswith("SHA256:"):
        body = text[len("SHA256:"):]
        try:
            if len(base64.b64decode(body + "=" * (-len(body) % 4), validate=True)) == 32:
                return text
        except binascii.Error:
            pass
        raise ValueError(f"{text!r} is not a SHA256 key fingerprint (ssh-keygen -lf KEY prints one)")
    parts = text.split()
    if len(parts) >= 2:
        try:
            blob = base64.b64decode(parts[1], validate=True)
        except binascii.Error:
            blob = b""
        if blob[4:4 + int.from_bytes(blob[:4], "big")] == parts[0].encode():
            return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")
    raise ValueError("give an SSH key as its fingerprint (SHA256:...), its public key line "
                     "(ssh-ed25519 AAAA...) or the .pub file that holds it")


def address_network(text: str) -> str:
    """An address or network to ban, in its one written form (``203.0.113.7/32``, ``2001:db8::/64``)."""
    try:
        network = ipaddress.ip_network(text.strip(), strict=False)
    except ValueError:
        raise ValueError(f"{text!r} is not an IP address or network (e.g. 203.0.113.7 or 203.0.113.0/24)") from None
    if isinstance(network, ipaddress.IPv6Network) and network.network_address.ipv4_mapped is not None:
        mapped = network.network_address.ipv4_mapped
        network = ipaddress.ip_network(f"{mapped}/{max(0, network.prefixlen - 96)}", strict=False)
    return str(network)


def _address(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        address = ipaddress.ip_address(host.split("%", 1)[0])
    except ValueError:
        return None
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return address.ipv4_mapped
    return address


class Moderation:
    """One server's bans and mutes (see the module docstring)."""

    def __init__(self, store: "Store | None") -> None:
        self.store = store
        self.bans: dict[tuple[str, str], Ban] = {}
        self.mutes: dict[str, set[str]] = {}  # player id -> the players they muted
        self._networks: list[tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, Ban]] = []
        self._key_players: dict[str, Ban] = {}  # the player ids of banned keys (when the secret is known)
        self._watchers: list[Callable[[Ban], None]] = []
        self._key_secret: bytes | None = None  # the SSH gateway's identity secret (its keys' player ids)
        if store is not None:
            for ban in store.load_bans():
                self.bans[(ban.kind, ban.value)] = ban
            for player_id, muted_id in store.load_mutes():
                self.mutes.setdefault(player_id, set()).add(muted_id)
            if store.path != ":memory:":
                path = Path(store.path).parent / IDENTITY_KEY_FILE
                try:
                    self._key_secret = path.read_bytes()
                except OSError:
                    pass
        self._index()

    @property
    def key_secret(self) -> bytes | None:
        return self._key_secret

    @key_secret.setter
    def key_secret(self, secret: bytes | None) -> None:
        """The SSH gateway's secret (it tells it when it starts): a banned key's player is then known."""
        self._key_secret = secret
        self._index()

    def _index(self) -> None:
        """What :meth:`find` looks in, made anew (never changed in place) after every change."""
        self._networks = [(ipaddress.ip_network(b.value), b) for b in self.bans.values() if b.kind == "address"]
        secret = self._key_secret
        self._key_players = {} if secret is None else {
            key_identity(secret, b.value)[0]: b for b in self.bans.values() if b.kind == "key"}

    # ------------------------------------------------------------ who may come in

    def find(self, *, player_id: str | None = None, key: str | None = None, host: str | None = None) -> Ban | None:
        """The ban that keeps out whoever is ``player_id``, authenticated with the SSH key of fingerprint
        ``key`` or connected from ``host`` (an address), if any."""
        if player_id is not None:
            found = self.bans.get(("player", player_id)) or self._key_players.get(player_id)
            if found is not None:
                return found
        if key is not None:
            found = self.bans.get(("key", key))
            if found is not None:
                return found
        if host is not None and self._networks:
            address = _address(host)
            if address is not None:
                for network, ban in self._networks:
                    if address.version == network.version and address in network:
                        return ban
        return None

    def refusal(self, *, player_id: str | None = None, key: str | None = None, host: str | None = None) -> str | None:
        """What to tell someone kept out (None: they may come in); see :meth:`find`."""
        ban = self.find(player_id=player_id, key=key, host=host)
        return None if ban is None else ban.refusal()

    def key_player(self, fingerprint: str) -> str | None:
        """The player id of the SSH key with this fingerprint, if the SSH gateway's secret is known (its
        token also works on the game port and in a browser: a ban of the key keeps that player out too)."""
        return None if self._key_secret is None else key_identity(self._key_secret, fingerprint)[0]

    def watch(self, callback: Callable[[Ban], None]) -> None:
        """Call ``callback(ban)`` after each new ban is stored (a gateway ends its sessions of it)."""
        self._watchers.append(callback)

    # ------------------------------------------------------------ the operator

    def add(self, ban: Ban) -> bool:
        """Store ``ban`` (in the open unit of work); False if the same ban was there (its reason is updated)."""
        new = (ban.kind, ban.value) not in self.bans
        self.bans = {**self.bans, (ban.kind, ban.value): ban}  # a new snapshot: a gateway thread may be reading
        self._index()
        if self.store is not None:
            self.store.add_ban(ban)
        return new

    def announce(self, ban: Ban) -> None:
        """Tell the gateways (after the ban is durable): they end their sessions of it."""
        for callback in self._watchers:
            try:
                callback(ban)
            except Exception:  # a gateway's bug must not stop the ban
                log.exception("a gateway failed to apply a ban")

    def remove(self, kind: str, value: str) -> Ban | None:
        """Lift a ban (in the open unit of work); the ban lifted, or None if there was none."""
        ban = self.bans.get((kind, value))
        if ban is not None:
            self.bans = {k: b for k, b in self.bans.items() if k != (kind, value)}
            self._index()
            if self.store is not None:
                self.store.remove_ban(kind, value)
        return ban

    def listed(self) -> list[Ban]:
        return sorted(self.bans.values(), key=lambda b: (b.at, b.kind, b.value))

    # ------------------------------------------------------------ mutes

    def muted_by(self, player_id: str) -> set[str]:
        return self.mutes.get(player_id, set())

    def hears(self, listener: str, speaker: str | None) -> bool:
        """Does ``listener`` hear what ``speaker`` says (None: the server, heard by all)?"""
        return speaker is None or speaker not in self.mutes.get(listener, ())

    def mute(self, player_id: str, target: str, muted: bool) -> None:
        """``player_id`` mutes (or unmutes) ``target`` (in the open unit of work)."""
        mine = self.mutes.setdefault(player_id, set())
        if (target in mine) == muted:
            return
        if muted and len(mine) >= MAX_MUTES:
            raise RequestError("too_many_mutes", f"you have muted {MAX_MUTES} players already; unmute some first")
        (mine.add if muted else mine.discard)(target)
        if not mine:
            del self.mutes[player_id]
        if self.store is not None:
            self.store.set_mute(player_id, target, muted)

    def forget(self, player_ids: Iterable[str]) -> None:
        """Players forgotten by the server (never played): their mutes and those of them go too."""
        gone = set(player_ids)
        for player_id in gone:
            self.mutes.pop(player_id, None)
        for player_id in list(self.mutes):
            self.mutes[player_id] -= gone
            if not self.mutes[player_id]:
                del self.mutes[player_id]
