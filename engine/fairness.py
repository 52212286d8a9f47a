"""Provably fair deals, for every game: commitments, the seed window's phases, the deal stream, the verifier.

docs/FAIRNESS.md is the specification (bytes, labels, signatures, test
vectors); this module is its one implementation. In short, per round:

1. The table binds the game's deals to the server's Ed25519 key, its table id
   and its seed window (:class:`FairBinding`, a logged table action). Each
   round the game draws a secret 32-byte **round seed** from its own RNG and
   publishes ``commitment = SHA-256(label, context, seed)`` in a
   ``deal_commit`` event, where the context binds the version, the key, the
   game, the table and the round.
2. **Commit.** Each seat dealt in may send the hash of a client seed of its
   own (:class:`SeedCommit`); the table closes the set (:class:`SealSeeds`:
   once every connected human seat dealt in has committed, or when the
   window has passed) and everyone gets the signed ``seed_set``.
3. **Reveal.** Each seat in the set sends its seed (:class:`ClientSeed`),
   which must match its commitment; the table then fixes the deck
   (:class:`FixDeck`: every seed in, or the window again), and the signed
   ``deck_fixed`` lists the seeds revealed and the seats that withheld theirs.
   No counted seed can be chosen once another is known: every commitment is
   fixed before any seed is revealed.
4. Every chance event of the round (the first dealer of a game, the shuffle,
   random cuts, reshuffles, draws for the deal) comes from one
   :class:`DealStream`: HMAC-SHA256 keyed by the round seed over the context,
   the revealed client seeds and a counter.
5. When the round ends a ``deal_reveal`` event gives the seed, the public state
   the round began from and the round's actions, and :func:`verify_round`
   checks the signatures, the bindings, the phases and the window, and replays
   the round through the game itself against every event a player saw.

**The rule for a game** (every game keeps it the same way): it holds one
:class:`FairDeal` as ``fair``, makes its round's last start record
``fair.begin_round(game, seats)``, hands every action of :data:`FAIR_ACTIONS`
to ``fair.check`` / ``fair.apply``, and while ``fair.seeding`` (from the
``deal_commit`` until the deck is fixed) its ``to_act()`` is empty, it takes
no other seat action, and it draws no chance. From then on all its chance
comes from ``fair.shuffle`` / ``fair.randbelow``; its first shuffle, made at
its first seat action (a cut or a draw), is of the sorted pack.

The engine stays pure: no clock (the table measures the window and says so in
the actions it logs), no global randomness, no key (the server signs the
events on their way out, with :func:`signed_message`).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import json
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable, Mapping, MutableSequence, Sequence, TypeVar

from .cards import DECK
from .errors import EngineError, IllegalAction, InvalidAction
from .records import Record
from .rng import BitPool, HashRng

if TYPE_CHECKING:
    from .contract import GameType

T = TypeVar("T")

VERSION = 2
"""The algorithm's version, in the context (so in every hash and signature) and every fair event (FAIRNESS.md §2)."""
SEED_BYTES = 32
CLIENT_SEED_MAX_BYTES = 64
"""A client seed is 1 to this many bytes (sent as lowercase hex): the one owner of the limit."""
KEY_BYTES = 32  # an Ed25519 public key
SIG_BYTES = 64  # an Ed25519 signature
MAX_WINDOW_MS = 60_000
"""The longest seed window a table may have (the server's ``--seed-window`` is in seconds)."""
MAX_ID_BYTES = 64  # a table id or a game name in the context (one length byte)
NO_KEY = bytes(KEY_BYTES)
"""The key of a game no table has bound (the engine's own tests): rounds dealt with it are never signed."""

CONTEXT_LABEL = b"down-and-back/fair/context"
COMMIT_LABEL = b"down-and-back/fair/commit"
SEED_COMMIT_LABEL = b"down-and-back/fair/seed-commit"
CLIENT_SEEDS_LABEL = b"down-and-back/fair/client-seeds"
STREAM_LABEL = b"down-and-back/fair/stream"
SIGN_LABELS = {
    "deal_commit": b"down-and-back/fair/sign/deal-commit",
    "seed_set": b"down-and-back/fair/sign/seed-set",
    "deck_fixed": b"down-and-back/fair/sign/deck-fixed",
    "deal_reveal": b"down-and-back/fair/sign/reveal",
}
"""The events the server signs, and the label each one's signed message starts with."""
FAIR_KINDS = frozenset({"deal_commit", "seed_commit", "seed_set", "client_seed", "deck_fixed", "deal_reveal"})
"""Every fair deal's event kinds (a client folds them into its status line instead of its log)."""
REVEAL_KIND = "deal_reveal"
"""The record a round ends with: returned by ``apply`` (every member is told) but kept out of the round's log
(views carry the log; the round record keeps the reveal as its ``fair``)."""
PRIVATE_STATE = ("rng", "initial_rng", "fair")
"""The keys of a game's ``to_data`` that hold its secrets (the game's RNG, the round seed): the public
state a reveal carries leaves them out, and a verifier puts stand-ins back."""

COMMIT, REVEAL, FIXED = "commit", "reveal", "fixed"
"""A round's phases from its ``deal_commit`` to its deal (``None``: between rounds, or revealed)."""


# ----------------------------------------------------------------- the algorithm


def _u8(n: int) -> bytes:
    return n.to_bytes(1, "big")


def _u16(n: int) -> bytes:
    return n.to_bytes(2, "big")


def _u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def _u64(n: int) -> bytes:
    return n.to_bytes(8, "big")


def _str8(text: str) -> bytes:
    data = text.encode()
    if len(data) > MAX_ID_BYTES:
        raise ValueError(f"{text[:20]!r}... is longer than {MAX_ID_BYTES} bytes")
    return _u8(len(data)) + data


def context(key: bytes, game: str, table_id: str, round_no: int, version: int = VERSION) -> bytes:
    """``SHA-256(CONTEXT_LABEL || 0x00 || u16 version || key || str8 game || str8 table_id || u64 round)``:
    what every hash and signature of a round is bound to."""
    return hashlib.sha256(CONTEXT_LABEL + b"\x00" + _u16(version) + key + _str8(game) + _str8(table_id)
                          + _u64(round_no)).digest()


def commitment(seed: bytes, ctx: bytes) -> bytes:
    """``SHA-256(COMMIT_LABEL || 0x00 || context || seed)``."""
    return hashlib.sha256(COMMIT_LABEL + b"\x00" + ctx + seed).digest()


def seed_commitment(deal_commitment: bytes, seat: int, seed: bytes) -> bytes:
    """A seat's commitment to its client seed: ``SHA-256(SEED_COMMIT_LABEL || 0x00 || commitment || u32 seat
    || u8 len || seed)``, bound to the round's commitment (so to its key, table, game and round)."""
    return hashlib.sha256(SEED_COMMIT_LABEL + b"\x00" + deal_commitment + _u32(seat) + _u8(len(seed))
                          + seed).digest()


def client_seeds_digest(seeds: Mapping[int, bytes]) -> bytes:
    """``SHA-256(CLIENT_SEEDS_LABEL || 0x00 || (u32 seat || u8 length || seed)...)``, seats ascending."""
    body = b"".join(_u32(seat) + _u8(len(seed)) + seed for seat, seed in sorted(seeds.items()))
    return hashlib.sha256(CLIENT_SEEDS_LABEL + b"\x00" + body).digest()


def fingerprint(key: bytes) -> str:
    """The key's fingerprint as OpenSSH prints an ``ssh-ed25519`` key's: ``SHA256:`` and the unpadded
    base64 of SHA-256 over ``u32 11 || "ssh-ed25519" || u32 32 || key``."""
    blob = _u32(11) + b"ssh-ed25519" + _u32(len(key)) + key
    return "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")


def sample_below(n: int, bits: Callable[[int], int]) -> int:
    """Uniform in ``range(n)`` from ``bits(w)`` (the next ``w`` bits as an integer), no modulo bias:
    ``w`` is the bit length of ``n - 1``; a value ``>= n`` is thrown away and ``w`` more bits drawn.
    ``n == 1`` draws nothing."""
    if n <= 0:
        raise ValueError("sample_below needs n > 0")
    width = (n - 1).bit_length()
    if width == 0:
        return 0
    while True:
        value = bits(width)
        if value < n:
            return value


def fisher_yates(items: MutableSequence[T], below: Callable[[int], int]) -> None:
    """Shuffle in place: for ``i`` from the last index down to 1, swap item ``i`` with item ``below(i + 1)``."""
    for i in range(len(items) - 1, 0, -1):
        j = below(i + 1)
        items[i], items[j] = items[j], items[i]


class DealStream(BitPool):
    """A round's chance: block ``k`` is ``HMAC-SHA256(key=seed, STREAM_LABEL || 0x00 || context ||
    client seeds digest || u64 k)``; the blocks in order are one bit string, read most significant bit
    first. Its state is ``(counter, pool, pool_bits)``: the unread bits of the last block."""

    __slots__ = ("key", "prefix")

    def __init__(self, seed: bytes, ctx: bytes, client_seeds: Mapping[int, bytes],
                 counter: int = 0, pool: int = 0, pool_bits: int = 0) -> None:
        self.key = seed
        self.prefix = STREAM_LABEL + b"\x00" + ctx + client_seeds_digest(client_seeds)
        self.counter, self.pool, self.pool_bits = counter, pool, pool_bits

    def _block(self, counter: int) -> bytes:
        return hmac.digest(self.key, self.prefix + _u64(counter), "sha256")

    def randbelow(self, n: int) -> int:
        return sample_below(n, self.bits)

    def shuffle(self, items: MutableSequence[T]) -> None:
        fisher_yates(items, self.randbelow)

    def to_data(self) -> dict[str, Any]:
        return {"counter": self.counter, "pool": format(self.pool, "x"), "pool_bits": self.pool_bits}


# ----------------------------------------------------------------- signatures


def _hex(value: object, size: int | None = None) -> bytes:
    if not isinstance(value, str) or value.strip("0123456789abcdef"):
        raise ValueError(f"not lowercase hex: {value!r}")
    data = bytes.fromhex(value)
    if size is not None and len(data) != size:
        raise ValueError(f"{value!r} is not {size} bytes")
    return data


def _count(value: object) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 0 <= value < 1 << 32:
        raise ValueError(f"not a u32: {value!r}")
    return value


def _seat_list(values: object) -> list[int]:
    if not isinstance(values, (list, tuple)) or len(values) > 255:
        raise ValueError(f"not a list of seats: {values!r}")
    return [_count(v) for v in values]


def _pairs(values: object, size: int | None) -> list[tuple[int, bytes]]:
    """``[[seat, hex], ...]`` with seats ascending and distinct."""
    if not isinstance(values, (list, tuple)) or len(values) > 255:
        raise ValueError(f"not a list of [seat, hex]: {values!r}")
    pairs = []
    for item in values:
        if not isinstance(item, (list, tuple)) or len(item) != 2:
            raise ValueError(f"not a [seat, hex] pair: {item!r}")
        value = _hex(item[1], size)
        if size is None and not 1 <= len(value) <= CLIENT_SEED_MAX_BYTES:
            raise ValueError(f"a client seed is 1 to {CLIENT_SEED_MAX_BYTES} bytes: {item[1]!r}")
        pairs.append((_count(item[0]), value))
    seats = [seat for seat, _ in pairs]
    if seats != sorted(set(seats)):
        raise ValueError(f"seats not ascending and distinct: {seats}")
    return pairs


def event_context(event: Mapping[str, Any]) -> bytes:
    """The context of a ``deal_commit`` or ``deal_reveal`` event, from its own fields."""
    round_no, game, table_id = event.get("round"), event.get("game"), event.get("table_id")
    if not isinstance(game, str) or not isinstance(table_id, str):
        raise ValueError("the event does not name its game and table")
    return context(_hex(event.get("key"), KEY_BYTES), game, table_id, _count(round_no), _count(event.get("version")))


def signed_message(event: Mapping[str, Any]) -> bytes:
    """The bytes the server signs for a ``deal_commit``, ``seed_set``, ``deck_fixed`` or ``deal_reveal``
    event (FAIRNESS.md §2, "Signatures"), from the event's own fields; :class:`ValueError` if one is
    malformed, :class:`KeyError` for another kind."""
    kind = event.get("kind")
    head = SIGN_LABELS[kind] + b"\x00"  # type: ignore[index]
    deal = _hex(event.get("commitment"), 32)
    if kind == "deal_commit":
        seats = _seat_list(event.get("seats"))
        return (head + event_context(event) + deal + _u32(_count(event.get("window_ms"))) + _u8(len(seats))
                + b"".join(_u32(seat) for seat in seats))
    if kind == "seed_set":
        commits = _pairs(event.get("commits"), 32)
        waiting = _seat_list(event.get("waiting"))
        return (head + deal + _u32(_count(event.get("after_ms"))) + _u8(len(commits))
                + b"".join(_u32(seat) + value for seat, value in commits)
                + _u8(len(waiting)) + b"".join(_u32(seat) for seat in waiting))
    digest = client_seeds_digest(dict(_pairs(event.get("client_seeds"), None)))
    if kind == "deck_fixed":
        withheld = _seat_list(event.get("withheld"))
        return (head + deal + _u32(_count(event.get("after_ms"))) + digest + _u8(len(withheld))
                + b"".join(_u32(seat) for seat in withheld))
    return head + deal + _hex(event.get("seed"), SEED_BYTES) + digest


def verify_signature(key: bytes, message: bytes, signature: bytes) -> bool:
    """Whether ``signature`` is ``key``'s Ed25519 signature (RFC 8032) of ``message``."""
    from cryptography.exceptions import InvalidSignature
    from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

    try:
        Ed25519PublicKey.from_public_bytes(key).verify(signature, message)
    except (InvalidSignature, ValueError):
        return False
    return True


def event_signature_ok(event: Mapping[str, Any], key: bytes) -> bool:
    """Whether a signed event's ``sig`` is ``key``'s signature of its :func:`signed_message`."""
    try:
        return verify_signature(key, signed_message(event), _hex(event.get("sig"), SIG_BYTES))
    except (ValueError, KeyError):
        return False


# ----------------------------------------------------------------- the fair actions


def _seed_hex(value: object, what: str, low: int, high: int) -> str:
    if not isinstance(value, str) or not 2 * low <= len(value) <= 2 * high or len(value) % 2 \
            or value.strip("0123456789abcdef"):
        shown = value[:20] + "..." if isinstance(value, str) and len(value) > 20 else value
        size = f"{low} bytes" if low == high else f"{low} to {high} bytes"
        raise InvalidAction(f"{what} is {size} as lowercase hex, got {shown!r}")
    return value


def _plain_int(value: object, what: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise InvalidAction(f"{what} must be a whole number from {low} to {high}, got {value!r}")
    return value


@dataclass(frozen=True, slots=True)
class SeedCommit:
    """A seat's commitment to its client seed (:func:`seed_commitment`, 32 bytes as lowercase hex)."""

    commit: str
    kind: ClassVar[str] = "seed_commit"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "commit": self.commit}


@dataclass(frozen=True, slots=True)
class ClientSeed:
    """A seat's client seed, revealed (1 to :data:`CLIENT_SEED_MAX_BYTES` bytes as lowercase hex): it
    must match the seat's commitment in the round's seed set."""

    seed: str
    kind: ClassVar[str] = "client_seed"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "seed": self.seed}


@dataclass(frozen=True, slots=True)
class SealSeeds:
    """Table action: the seed commitments are closed, ``after_ms`` after the ``deal_commit``; ``waiting``
    are the seats the table waited for (every connected human seat dealt in)."""

    after_ms: int
    waiting: tuple[int, ...]
    kind: ClassVar[str] = "seal_seeds"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "after_ms": self.after_ms, "waiting": list(self.waiting)}


@dataclass(frozen=True, slots=True)
class FixDeck:
    """Table action: the reveals are closed and the deck is fixed, ``after_ms`` after the ``deal_commit``."""

    after_ms: int
    kind: ClassVar[str] = "fix_deck"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "after_ms": self.after_ms}


@dataclass(frozen=True, slots=True)
class FairBinding:
    """Table action: the rounds dealt from now on are bound to the server's public ``key`` (hex), the
    ``table_id`` and ``game``, and announce a seed window of ``window_ms``."""

    key: str
    table_id: str
    game: str
    window_ms: int
    kind: ClassVar[str] = "fair_binding"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "key": self.key, "table_id": self.table_id, "game": self.game,
                "window_ms": self.window_ms}


FAIR_ACTIONS: tuple[type, ...] = (SeedCommit, ClientSeed, SealSeeds, FixDeck, FairBinding)
FAIR_SEAT_ACTIONS: tuple[type, ...] = (SeedCommit, ClientSeed)
FAIR_ACTION_FIELDS: dict[str, set[str]] = {
    "seed_commit": {"commit"}, "client_seed": {"seed"}, "seal_seeds": {"after_ms", "waiting"},
    "fix_deck": {"after_ms"}, "fair_binding": {"key", "table_id", "game", "window_ms"},
}
"""The fields of the fair deal's actions, which every game parses."""


def fair_action_from_data(data: Mapping[str, Any]) -> Any:
    """The fair action of plain data whose kind and fields the game's schema accepted, or :class:`InvalidAction`."""
    kind = data["kind"]
    if kind == "seed_commit":
        return SeedCommit(_seed_hex(data.get("commit"), "a seed commitment", 32, 32))
    if kind == "client_seed":
        return ClientSeed(_seed_hex(data.get("seed"), "a client seed", 1, CLIENT_SEED_MAX_BYTES))
    if kind == "seal_seeds":
        waiting = data.get("waiting")
        if not isinstance(waiting, (list, tuple)) or len(waiting) > 255:
            raise InvalidAction(f"seal_seeds waiting must be a list of seats, got {waiting!r}")
        seats = tuple(_plain_int(s, "a waiting seat", 0, 255) for s in waiting)
        return SealSeeds(_plain_int(data.get("after_ms"), "after_ms", 0, (1 << 32) - 1), tuple(sorted(set(seats))))
    if kind == "fix_deck":
        return FixDeck(_plain_int(data.get("after_ms"), "after_ms", 0, (1 << 32) - 1))
    key, table_id, game = data.get("key"), data.get("table_id"), data.get("game")
    _seed_hex(key, "a key", KEY_BYTES, KEY_BYTES)
    for name, value in (("table_id", table_id), ("game", game)):
        if not isinstance(value, str) or not 0 < len(value.encode()) <= MAX_ID_BYTES:
            raise InvalidAction(f"fair_binding {name} must be 1 to {MAX_ID_BYTES} bytes of text, got {value!r}")
    return FairBinding(key, table_id, game, _plain_int(data.get("window_ms"), "window_ms", 0, MAX_WINDOW_MS))  # type: ignore[arg-type]


# ----------------------------------------------------------------- a game's fair round


class FairDeal:
    """The fair part of a game's state: its binding, and the current (or last) round's seed,
    commitment, phase, seeds and stream (the module docstring says how a game uses it).

    Chance outside a fair round comes from the game's own RNG (``fallback``): before the first
    round, and in a round restored from a checkpoint written before this version of fair deals
    (that round has no commitment and reveals nothing).
    """

    __slots__ = ("key", "table_id", "game", "window_ms", "round", "seed", "commitment", "context", "phase",
                 "dealt_in", "commits", "revealed_seeds", "client_seeds", "withheld", "stream", "state", "first",
                 "fallback", "first_input", "shuffled_once", "revealed")

    def __init__(self, fallback: HashRng | None = None) -> None:
        self.key, self.table_id, self.game, self.window_ms = NO_KEY, "-", "-", 0
        self.round = 0
        self.seed: bytes | None = None
        self.commitment: bytes | None = None
        self.context: bytes | None = None
        self.phase: str | None = None  # COMMIT, REVEAL, FIXED; None between rounds (and once revealed)
        self.dealt_in: tuple[int, ...] = ()
        self.commits: dict[int, bytes] = {}  # seat -> its seed commitment
        self.revealed_seeds: dict[int, bytes] = {}  # seat -> its seed, revealed (hidden until the deck is fixed)
        self.client_seeds: dict[int, bytes] = {}  # the seeds the deck was made from (once fixed)
        self.withheld: tuple[int, ...] = ()  # committed, not revealed in time
        self.stream: DealStream | None = None
        self.state: dict[str, Any] | None = None  # the public state the round began from (until the reveal)
        self.first = 0  # index in the game's history of the round's start_round
        self.fallback = fallback
        self.first_input: list[str] | None = None  # what the round's first shuffle shuffled (the verifier asks)
        self.shuffled_once = fallback is not None  # the round's first shuffle is done
        self.revealed: dict[str, Any] | None = None  # the last reveal's data, for the round record

    # ------------------------------------------------------------- what a game asks

    @property
    def open(self) -> bool:
        """Between the round's commitment and its reveal."""
        return self.phase is not None

    @property
    def seeding(self) -> bool:
        """From the ``deal_commit`` until the deck is fixed: no seat is to act, no chance is drawn."""
        return self.phase in (COMMIT, REVEAL)

    @property
    def fixed(self) -> bool:
        """The round's deck is fixed (its stream's inputs are), or chance comes from the game's RNG."""
        return self.phase == FIXED or self.fallback is not None

    @property
    def shuffled(self) -> bool:
        """The round's first shuffle is done (a game's first seat action makes it)."""
        return self.shuffled_once

    @property
    def bound(self) -> bool:
        """A table has bound the game's deals (:class:`FairBinding`). An unbound game (the engine's own
        tests and tools, with no table and no players' clients) seals and fixes each round's deck as
        soon as it is committed, from its own seed alone."""
        return self.key != NO_KEY

    def begin_round(self, game: Any, seats: Iterable[int]) -> list[Record]:
        """A new round dealt to ``seats``: draw its seed from ``game.rng`` and commit to it (the ``deal_commit``
        record, the last of the round's start; an unbound game's seed set and fixed deck follow at once).
        ``game`` has its state for the round's start in place."""
        self.round, self.fallback, self.stream, self.phase = game.round_no, None, None, COMMIT
        self.dealt_in = tuple(sorted(seats))
        self.commits, self.revealed_seeds, self.client_seeds, self.withheld = {}, {}, {}, ()
        self.seed = game.rng.token(SEED_BYTES)
        self.context = context(self.key, self.game, self.table_id, self.round)
        self.commitment = commitment(self.seed, self.context)
        self.first, self.revealed, self.first_input, self.shuffled_once = len(game.history), None, None, False
        self.state = None
        self.state = json.loads(json.dumps(public_state(game.to_data(history=False))))  # a copy: nothing shared
        records = [Record("deal_commit", None, {
            "round": self.round, "version": VERSION, "commitment": self.commitment.hex(), "key": self.key.hex(),
            "table_id": self.table_id, "game": self.game, "seats": list(self.dealt_in), "window_ms": self.window_ms})]
        if not self.bound:
            records += self.apply(None, SealSeeds(0, ()))
        return records

    def check(self, action: Any, seat: int | None) -> None:
        """Raise :class:`IllegalAction` unless the fair action may be applied by ``seat`` now."""
        if isinstance(action, FAIR_SEAT_ACTIONS):
            if seat is None:
                raise IllegalAction(action, "a client seed is a seat's, not the table's")
            if not self.open or self.fallback is not None:
                raise IllegalAction(action, "no round is being dealt now")
            if seat not in self.dealt_in:
                raise IllegalAction(action, f"seat {seat} is not dealt in this round")
        elif seat is not None:
            raise IllegalAction(action, "only the table may do this, not a seat")
        if type(action) is SeedCommit:
            if self.phase != COMMIT:
                raise IllegalAction(action, "the seed commitments are closed: the seed set is sealed")
            if seat in self.commits:
                raise IllegalAction(action, f"seat {seat} has already committed to its seed for this round")
        elif type(action) is ClientSeed:
            if self.phase == COMMIT:
                raise IllegalAction(action, "a seed is revealed after the seed set is sealed, not before")
            if self.phase != REVEAL:
                raise IllegalAction(action, "the deck is already fixed: the reveals are closed")
            if seat not in self.commits:
                raise IllegalAction(action, f"seat {seat} has no commitment in this round's seed set")
            if seat in self.revealed_seeds:
                raise IllegalAction(action, f"seat {seat} has already revealed its seed for this round")
            if seed_commitment(self.commitment, seat, bytes.fromhex(action.seed)) != self.commits[seat]:  # type: ignore[arg-type]
                raise IllegalAction(action, "this seed does not match your commitment in the seed set")
        elif type(action) is SealSeeds:
            if self.phase != COMMIT:
                raise IllegalAction(action, "no seed commitments are open")
        elif type(action) is FixDeck:
            if self.phase != REVEAL:
                raise IllegalAction(action, "no reveals are open")
        elif type(action) is FairBinding:
            pass
        else:
            raise IllegalAction(action, f"{action.kind} is not a fair deal's action")

    def apply(self, seat: int | None, action: Any) -> list[Record]:
        """Apply a fair action :meth:`check` accepted; the records it makes."""
        if type(action) is SeedCommit:
            self.commits[seat] = bytes.fromhex(action.commit)  # type: ignore[index]
            return [Record("seed_commit", seat, {"commit": action.commit})]
        if type(action) is ClientSeed:
            self.revealed_seeds[seat] = bytes.fromhex(action.seed)  # type: ignore[index]
            return [Record("client_seed", seat)]  # the seed itself is told with the deck_fixed
        if type(action) is SealSeeds:
            self.phase = REVEAL
            records = [Record("seed_set", None, {
                "round": self.round, "commitment": self.commitment.hex(),  # type: ignore[union-attr]
                "commits": [[s, v.hex()] for s, v in sorted(self.commits.items())],
                "waiting": list(action.waiting), "after_ms": action.after_ms})]
            if not self.commits:  # nothing to reveal: the deck is fixed now
                records.append(self._fix(action.after_ms))
            return records
        if type(action) is FixDeck:
            return [self._fix(action.after_ms)]
        self.key, self.table_id, self.game = bytes.fromhex(action.key), action.table_id, action.game
        self.window_ms = action.window_ms
        return []

    def _fix(self, after_ms: int) -> Record:
        self.phase = FIXED
        self.client_seeds = dict(sorted(self.revealed_seeds.items()))
        self.withheld = tuple(s for s in sorted(self.commits) if s not in self.revealed_seeds)
        assert self.seed is not None and self.context is not None and self.commitment is not None
        self.stream = DealStream(self.seed, self.context, self.client_seeds)
        return Record("deck_fixed", None, {
            "round": self.round, "commitment": self.commitment.hex(),
            "client_seeds": [[s, v.hex()] for s, v in self.client_seeds.items()],
            "withheld": list(self.withheld), "after_ms": after_ms})

    def _source(self) -> DealStream | HashRng:
        if self.fallback is not None:
            return self.fallback
        if self.stream is None:
            raise AssertionError("a fair round draws chance only once its deck is fixed")
        return self.stream

    def shuffle(self, cards: MutableSequence[Any]) -> None:
        """Shuffle ``cards`` in place from the round's stream."""
        if not self.shuffled:
            self.first_input = [c.text for c in cards]
            self.shuffled_once = True
        self._source().shuffle(cards)

    def randbelow(self, n: int) -> int:
        """Uniform in ``range(n)`` from the round's stream (a random cut, a first dealer)."""
        return self._source().randbelow(n)

    def reveal(self, history: Sequence[tuple[int | None, dict[str, Any]]]) -> list[Record]:
        """The round is over: its ``deal_reveal`` record (none outside a fair round), kept as
        :attr:`revealed` for the round record. ``history`` is the game's action log."""
        self.phase = None
        if self.fallback is not None or self.seed is None:
            return []
        self.revealed = {
            "round": self.round, "version": VERSION, "commitment": self.commitment.hex(),  # type: ignore[union-attr]
            "key": self.key.hex(), "table_id": self.table_id, "game": self.game, "seats": list(self.dealt_in),
            "window_ms": self.window_ms, "seed": self.seed.hex(), "client_seeds": [[s, v.hex()] for s, v in sorted(self.client_seeds.items())],
            "withheld": list(self.withheld), "state": self.state,
            "actions": [[s, a] for s, a in history[self.first + 1:]],
        }
        self.state = None
        return [Record(REVEAL_KIND, None, dict(self.revealed))]

    def drawn(self, rng: HashRng) -> tuple[int, ...]:
        """How far the game's chance has gone: the position of ``rng`` (the game's own generator) and
        of the round's stream. Every draw moves it on, and nothing else does: the server checkpoints
        the whole game after each draw (``Game.chance_drawn``)."""
        stream = self.stream
        return (rng.counter, rng.pool_bits, self.round) + ((stream.counter, stream.pool_bits) if stream else ())

    def view(self) -> dict[str, Any] | None:
        """What everyone may know: the commitment and the round's phase, the seed commitments, the seats
        that revealed, the seeds once the deck is fixed, and the seed once the round is over (``None``
        before the first fair round)."""
        if self.commitment is None or self.fallback is not None:
            return None
        fixed = self.phase in (FIXED, None)
        return {"version": VERSION, "round": self.round, "commitment": self.commitment.hex(),
                "key": self.key.hex(), "window_ms": self.window_ms,
                "phase": "revealed" if self.phase is None else self.phase,
                "commits": {str(s): v.hex() for s, v in sorted(self.commits.items())},
                "revealed": sorted(self.revealed_seeds),
                "client_seeds": {str(s): v.hex() for s, v in sorted(self.client_seeds.items())} if fixed else {},
                "withheld": list(self.withheld), "fixed": fixed,
                "seed": None if self.open else self.seed.hex()}  # type: ignore[union-attr]

    def to_data(self) -> dict[str, Any] | None:
        if self.fallback is not None and self.key == NO_KEY and self.window_ms == 0:
            return None
        hexes = lambda pairs: [[s, v.hex()] for s, v in sorted(pairs.items())]  # noqa: E731
        return {
            "version": VERSION, "key": self.key.hex(), "table_id": self.table_id, "game": self.game,
            "window_ms": self.window_ms, "fallback": self.fallback is not None,
            "round": self.round, "seed": self.seed.hex() if self.seed else None,
            "commitment": self.commitment.hex() if self.commitment else None, "phase": self.phase,
            "dealt_in": list(self.dealt_in), "commits": hexes(self.commits), "revealed_seeds": hexes(self.revealed_seeds),
            "client_seeds": hexes(self.client_seeds), "withheld": list(self.withheld),
            "stream": self.stream.to_data() if self.stream else None, "state": self.state,
            "first": self.first, "shuffled": self.shuffled_once,
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any] | None, rng: HashRng) -> "FairDeal":
        """The fair state :meth:`to_data` gave; ``None`` (no binding and no fair round yet), or a checkpoint
        from before this version of fair deals, draws from the game's ``rng`` until the next round begins."""
        if data is None or data.get("version") != VERSION:
            fair = cls(fallback=rng)  # a version 1 round not yet cut is shuffled at its cut, from the game's RNG
            fair.shuffled_once = not (data is not None and data.get("open") and data.get("stream") is None)
            return fair
        fair = cls(fallback=rng if data["fallback"] else None)
        fair.key, fair.table_id, fair.game = bytes.fromhex(data["key"]), data["table_id"], data["game"]
        fair.window_ms = data["window_ms"]
        fair.round, fair.first, fair.phase, fair.state = data["round"], data["first"], data["phase"], data["state"]
        fair.seed = bytes.fromhex(data["seed"]) if data["seed"] else None
        fair.commitment = bytes.fromhex(data["commitment"]) if data["commitment"] else None
        if fair.seed is not None:
            fair.context = context(fair.key, fair.game, fair.table_id, fair.round)
        fair.dealt_in = tuple(data["dealt_in"])
        fair.commits = {s: bytes.fromhex(v) for s, v in data["commits"]}
        fair.revealed_seeds = {s: bytes.fromhex(v) for s, v in data["revealed_seeds"]}
        fair.client_seeds = {s: bytes.fromhex(v) for s, v in data["client_seeds"]}
        fair.withheld = tuple(data["withheld"])
        fair.shuffled_once = data["shuffled"]
        stream = data["stream"]
        if stream is not None:
            assert fair.seed is not None and fair.context is not None
            fair.stream = DealStream(fair.seed, fair.context, fair.client_seeds, stream["counter"],
                                     int(stream["pool"], 16), stream["pool_bits"])
        return fair


def public_state(data: dict[str, Any]) -> dict[str, Any]:
    """A game's ``to_data(history=False)`` without its secrets (:data:`PRIVATE_STATE`) or its recent
    log (which only views read)."""
    return {k: ([] if k == "round_log" else v) for k, v in data.items() if k not in PRIVATE_STATE}


# ----------------------------------------------------------------- the verifier

PROOF_OWN = "your seed included"
PROOF_CLIENTS = "client seeds"
PROOF_SERVER = "server seed only"
PROOF_NO_DEAL = "no deal"


@dataclass(frozen=True)
class Verdict:
    """A round's verification: ``ok``, or ``what`` is wrong ("signature", "late seed", "window", "commitment",
    "revealed seed", "client seed", "cut", "stock card"...) and a ``message`` that says how.

    ``proof`` says what a passed check proves: :data:`PROOF_OWN` (the deck was made from your seed too),
    :data:`PROOF_CLIENTS` (from players' seeds, not yours), :data:`PROOF_SERVER` (from the server's seed
    alone: the server could have chosen it) or :data:`PROOF_NO_DEAL` (the round ended before its deck was
    fixed); ``withheld`` the seats that committed to a seed and did not reveal it.
    """

    round: int | None
    ok: bool
    what: str | None = None
    message: str = "verified"
    proof: str = ""
    withheld: tuple[int, ...] = field(default=())

    @property
    def summary(self) -> str:
        """What the round proves, in a few words: "verified — your seed included", "verified",
        "verified — server seed only", or "NOT VERIFIED: ..."."""
        if not self.ok:
            return f"NOT VERIFIED: {self.message}"
        text = {PROOF_OWN: "verified — your seed included", PROOF_SERVER: "verified — server seed only",
                PROOF_NO_DEAL: "verified — no cards were dealt"}.get(self.proof, "verified")
        if self.withheld:
            seats = ", ".join(str(s) for s in self.withheld)
            text += f" (seat{'s' if len(self.withheld) > 1 else ''} {seats} withheld {'their seeds' if len(self.withheld) > 1 else 'its seed'})"
        return text


def _plain(value: Any) -> Any:
    """``value`` as it reads after a trip over the wire (tuples are lists)."""
    return json.loads(json.dumps(value))


def _hex_bytes(value: object, size: int | None = None) -> bytes | None:
    try:
        return _hex(value, size)
    except ValueError:
        return None


def _unsigned(event: Mapping[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in event.items() if k != "sig"}


def verify_round(game_type: "GameType", seen: Sequence[Mapping[str, Any]], viewer: int | None,
                 own_seed: str | None = None, key: bytes | None = None, table_id: str | None = None) -> Verdict:
    """Check one round as ``viewer`` (a seat, or ``None``: a spectator) saw it (FAIRNESS.md §4).

    ``seen`` is every event of the round that viewer received, from its ``deal_commit`` to its
    ``deal_reveal`` (the table's own events, such as ``timeout`` or ``joined``, may be among them:
    :data:`engine.contract.TABLE_EVENT_KINDS`); ``own_seed`` is the client seed the viewer revealed
    and the server accepted, if any; ``key`` the server key the viewer pinned and ``table_id`` the
    table it was at (``None``: whatever the round names). The signatures, the bindings, the phases
    and the window are checked, then the round is replayed through ``game_type`` from the revealed
    public state with the revealed seed and actions, and every event the viewer saw (but the table's
    own) must be what the replay gives that viewer.
    """
    events = [_plain(dict(e)) for e in seen]
    if not events or events[0].get("kind") != "deal_commit" or events[-1].get("kind") != REVEAL_KIND:
        return Verdict(None, False, "events", "the round's events do not run from its deal_commit to its deal_reveal")
    commit, reveal = events[0], events[-1]
    round_no = commit.get("round") if isinstance(commit.get("round"), int) else None

    def wrong(what: str, message: str) -> Verdict:
        return Verdict(round_no, False, what, f"{what}: {message}")

    if reveal.get("version") != VERSION or commit.get("version") != VERSION:
        return wrong("version", f"this verifier knows version {VERSION}, the round says "
                                f"{commit.get('version')!r}/{reveal.get('version')!r}")
    server_key = _hex_bytes(commit.get("key"), KEY_BYTES)
    if server_key is None:
        return wrong("key", f"the deal_commit names no server key ({commit.get('key')!r})")
    if key is not None and server_key != key:
        return wrong("key", f"the round is signed by {fingerprint(server_key)}, not by the key pinned for this "
                            f"server ({fingerprint(key)})")
    if commit.get("game") != game_type.name:
        return wrong("binding", f"the round is bound to the game {commit.get('game')!r}, not {game_type.name!r}")
    if table_id is not None and commit.get("table_id") != table_id:
        return wrong("binding", f"the round is bound to table {commit.get('table_id')!r}, not this table "
                                f"({table_id!r}): its seeds belong to another table")
    for name in ("round", "commitment", "key", "table_id", "game", "seats", "window_ms"):
        if reveal.get(name) != commit.get(name):
            return wrong("commitment", f"the reveal's {name} is {reveal.get(name)!r}, the deal_commit announced "
                                       f"{commit.get(name)!r}")
    if not event_signature_ok(commit, server_key):
        return wrong("signature", "the deal_commit's signature is missing or is not the server key's")
    seed = _hex_bytes(reveal.get("seed"), SEED_BYTES)
    try:
        ctx = event_context(commit)
    except ValueError as exc:
        return wrong("binding", f"the deal_commit's binding is malformed ({exc})")
    if seed is None or commitment(seed, ctx).hex() != commit.get("commitment"):
        return wrong("revealed seed", f"{reveal.get('seed')!r} does not match the commitment "
                                      f"{commit.get('commitment')!r} announced before the seeds")
    if not event_signature_ok(reveal, server_key):
        return wrong("signature", "the deal_reveal's signature is missing or is not the server key's")
    deal = bytes.fromhex(commit["commitment"])
    window = commit.get("window_ms")
    sealed = next((e for e in events if e.get("kind") == "seed_set"), None)
    fixed = next((e for e in events if e.get("kind") == "deck_fixed"), None)
    commits: dict[int, bytes] = {}
    if sealed is not None:
        if not event_signature_ok(sealed, server_key):
            return wrong("signature", "the seed_set's signature is missing or is not the server key's")
        commits = dict(_pairs(sealed["commits"], 32))
        missing = [s for s in sealed["waiting"] if s not in commits]
        if missing and sealed["after_ms"] < window:
            return wrong("window", f"the seed set was sealed {sealed['after_ms']} ms after the deal_commit, before "
                                   f"its {window} ms window, without the seed of seat {missing[0]}, which it was "
                                   "waiting for")
    if fixed is not None:
        if sealed is None or events.index(fixed) < events.index(sealed):
            return wrong("late seed", "the deck was fixed without a sealed seed set before it")
        if not event_signature_ok(fixed, server_key):
            return wrong("signature", "the deck_fixed's signature is missing or is not the server key's")
        for seat, value in _pairs(fixed["client_seeds"], None):
            if commits.get(seat) != seed_commitment(deal, seat, value):
                return wrong("late seed", f"seat {seat}'s seed matches no commitment in the seed set sealed before "
                                          "any seed was revealed (a seed chosen late, or committed to another "
                                          "deal: then the server showed members different commitments)")
        if fixed["withheld"] and fixed["after_ms"] < sealed["after_ms"] + window:
            return wrong("window", f"the reveals were closed {fixed['after_ms'] - sealed['after_ms']} ms after the "
                                   f"seed set, before the {window} ms window, without seat {fixed['withheld'][0]}'s seed")
        if reveal.get("client_seeds") != fixed["client_seeds"] or reveal.get("withheld") != fixed["withheld"]:
            return wrong("client seed", f"the deck was fixed from {fixed['client_seeds']!r}, the reveal lists "
                                        f"{reveal.get('client_seeds')!r}")
    mixed = {seat: value for seat, value in reveal.get("client_seeds") or ()}
    if own_seed is not None and mixed.get(viewer) != own_seed:
        return wrong("client seed", f"yours ({own_seed[:16]}...) is not among the seeds the deck was made from")
    from .contract import TABLE_EVENT_KINDS  # (the contract imports this module)

    shown = [_unsigned(e) for e in events[1:-1] if e.get("kind") not in TABLE_EVENT_KINDS]  # the game's only
    names = {"seed_commit": "seed commitment", "seed_set": "seed set", "client_seed": "client seed",
             "deck_fixed": "fixed deck", "cut": "cut", **game_type.fair_names}
    try:
        replay = _Replay(game_type, reveal, seed, viewer)
        for index, due in enumerate(replay.events()):
            if replay.game.fair.first_input not in (None, [c.text for c in DECK]):
                return wrong("deck", "the revealed state's pack is not the whole deck in its sorted order before "
                                     "the shuffle")
            saw = shown[index] if index < len(shown) else {}
            if saw != due:
                kind = due.get("kind") if saw.get("kind") == due.get("kind") or not saw else saw.get("kind")
                return wrong(names.get(kind, f"{kind} event"),
                             f"event {index + 1} of the round: {_difference(saw, due)}")
    except (EngineError, KeyError, TypeError, ValueError, AttributeError, IndexError, AssertionError) as exc:
        return wrong("record", f"the revealed state and actions do not replay ({exc})")
    if len(shown) != replay.count:
        return wrong("record", f"{len(shown)} events were seen, the round's actions make {replay.count}")
    if {s: v.hex() for s, v in replay.game.fair.client_seeds.items()} != mixed:
        return wrong("client seed", "the revealed actions hold other client seeds than the reveal lists")
    withheld = tuple(reveal.get("withheld") or ())
    if fixed is None:
        proof = PROOF_NO_DEAL
    elif not mixed:
        proof = PROOF_SERVER
    else:
        proof = PROOF_OWN if own_seed is not None else PROOF_CLIENTS
    return Verdict(round_no, True, proof=proof, withheld=withheld, message=Verdict(0, True, proof=proof).summary)


class _Replay:
    """The round replayed from the revealed public state, seed and actions: the events ``viewer``
    would have seen between the commitment and the reveal, one at a time."""

    def __init__(self, game_type: "GameType", reveal: Mapping[str, Any], seed: bytes, viewer: int | None) -> None:
        stand_in = HashRng(b"verifier: the game's own seed is not needed").to_data()
        fair = FairDeal()
        fair.key, fair.table_id, fair.game = bytes.fromhex(reveal["key"]), reveal["table_id"], reveal["game"]
        fair.window_ms, fair.round, fair.seed, fair.phase, fair.first = reveal["window_ms"], reveal["round"], seed, \
            COMMIT, -1
        fair.dealt_in = tuple(reveal["seats"])
        fair.context = context(fair.key, fair.game, fair.table_id, fair.round)
        fair.commitment = commitment(seed, fair.context)
        self.game_type, self.actions, self.viewer, self.count = game_type, reveal["actions"], viewer, 0
        self.state = dict(reveal["state"], rng=stand_in, initial_rng=stand_in, fair=fair.to_data(), round_log=[])
        self.game: Any = None

    def events(self) -> Iterable[dict[str, Any]]:
        self.game = self.game_type.from_data(self.state)
        for seat, data in self.actions:
            for record in self.game.apply(seat, self.game_type.action_from_data(data)):
                if record.kind != REVEAL_KIND:
                    self.count += 1
                    yield _plain(record.for_seat(self.viewer))


def _difference(saw: Mapping[str, Any], due: Mapping[str, Any]) -> str:
    """What differs between an event seen and the one the replay gives, field by field."""
    fields = [k for k in sorted(set(saw) | set(due)) if saw.get(k) != due.get(k)]
    who = f" (seat {due['seat']})" if "seat" in due else ""
    shown = "; ".join(f"{k} {saw.get(k)!r} where the committed deal gives {due.get(k)!r}" for k in fields[:3])
    return f"{due.get('kind')}{who}: {shown}"


def round_events(record: Mapping[str, Any], viewer: int | None) -> list[dict[str, Any]]:
    """The events ``viewer`` saw of a stored round record (``log`` and ``fair``), from its commitment
    to its reveal: what :func:`verify_round` checks for an exported game."""
    log = [Record.from_data(r).for_seat(viewer) for r in record["log"]]
    start = next(i for i, e in enumerate(log) if e["kind"] == "deal_commit")
    return log[start:] + [dict(record["fair"], kind=REVEAL_KIND)]


def verify_record(game_type: "GameType", record: Mapping[str, Any], key: bytes | None = None,
                  table_id: str | None = None) -> list[Verdict]:
    """Check a stored round (an export's round) as each of its seats and a spectator saw it."""
    if record.get("fair") is None:
        return [Verdict(record.get("round"), False, "fair", "fair: the round has no commitment (dealt before "
                                                              "fair deals, or its record is damaged)")]
    viewers: Iterable[int | None] = [*record.get("seats", ()), None]
    try:
        return [verify_round(game_type, round_events(record, viewer), viewer, key=key, table_id=table_id)
                for viewer in viewers]
    except (KeyError, TypeError, StopIteration) as exc:
        return [Verdict(record.get("round"), False, "record", f"record: the stored round is damaged ({exc!r})")]
