"""Provably fair deals, for every game: the round seed's commitment, the deal stream and the verifier.

docs/FAIRNESS.md is the specification (bytes, labels, test vectors); this
module is its one implementation. In short, per round:

1. The game draws a secret 32-byte **round seed** from its own RNG (the one
   the server seeds from ``secrets``, so replays still need only the game's
   seed and its actions) and publishes ``commitment = SHA-256(label, version,
   round, seed)`` in a ``deal_commit`` event, before anyone chooses anything.
2. Each seat dealt in may add a **client seed** (:class:`ClientSeed`, an
   action in the log) until the deck is fixed: the round's first shuffle,
   which the first cut makes.
3. Every chance event of the round (the shuffle, random cuts, reshuffles of
   the stock, draws for the deal) comes from one :class:`DealStream`:
   HMAC-SHA256 keyed by the round seed over the client seeds and a counter,
   read as a bit string by Fisher-Yates with rejection sampling. The cutter's
   cut is applied to that committed order.
4. When the round ends a ``deal_reveal`` event gives the seed, the client
   seeds, the public state the round began from and the round's actions, and
   :func:`verify_round` replays the round through the game itself and checks
   every event a player saw against it.

The engine stays pure: nothing here reads a clock or global randomness.
"""

from __future__ import annotations

import hashlib
import hmac
import json
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable, ClassVar, Iterable, Mapping, MutableSequence, Sequence, TypeVar

from .cards import DECK
from .errors import EngineError, IllegalAction, InvalidAction
from .records import Record
from .rng import BitPool, HashRng

if TYPE_CHECKING:
    from .contract import GameType

T = TypeVar("T")

VERSION = 1
"""The algorithm's version, in the commitment, the stream and every fair event (FAIRNESS.md §2)."""
SEED_BYTES = 32
CLIENT_SEED_MAX_BYTES = 64
"""A client seed is 1 to this many bytes (sent as lowercase hex): the one owner of the limit."""
COMMIT_LABEL = b"down-and-back/fair/commit"
CLIENT_SEEDS_LABEL = b"down-and-back/fair/client-seeds"
STREAM_LABEL = b"down-and-back/fair/stream"
REVEAL_KIND = "deal_reveal"
"""The record a round ends with: returned by ``apply`` (every member is told) but kept out of the round's log
(views carry the log; the round record keeps the reveal as its ``fair``)."""
PRIVATE_STATE = ("rng", "initial_rng", "fair")
"""The keys of a game's ``to_data`` that hold its secrets (the game's RNG, the round seed): the public
state a reveal carries leaves them out, and a verifier puts stand-ins back."""


# ----------------------------------------------------------------- the algorithm


def _u16(n: int) -> bytes:
    return n.to_bytes(2, "big")


def _u64(n: int) -> bytes:
    return n.to_bytes(8, "big")


def commitment(seed: bytes, round_no: int, version: int = VERSION) -> bytes:
    """``SHA-256(COMMIT_LABEL || 0x00 || u16 version || u64 round || seed)``."""
    return hashlib.sha256(COMMIT_LABEL + b"\x00" + _u16(version) + _u64(round_no) + seed).digest()


def client_seeds_digest(seeds: Mapping[int, bytes]) -> bytes:
    """``SHA-256(CLIENT_SEEDS_LABEL || 0x00 || (u32 seat || u8 length || seed)...)``, seats ascending."""
    body = b"".join(seat.to_bytes(4, "big") + bytes([len(seed)]) + seed for seat, seed in sorted(seeds.items()))
    return hashlib.sha256(CLIENT_SEEDS_LABEL + b"\x00" + body).digest()


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
    """A round's chance: block ``k`` is ``HMAC-SHA256(key=seed, STREAM_LABEL || 0x00 || u16 version ||
    u64 round || client seeds digest || u64 k)``; the blocks in order are one bit string, read most
    significant bit first. Its state is ``(counter, pool, pool_bits)``: the unread bits of the last block."""

    __slots__ = ("key", "prefix")

    def __init__(self, seed: bytes, round_no: int, client_seeds: Mapping[int, bytes],
                 counter: int = 0, pool: int = 0, pool_bits: int = 0) -> None:
        self.key = seed
        self.prefix = STREAM_LABEL + b"\x00" + _u16(VERSION) + _u64(round_no) + client_seeds_digest(client_seeds)
        self.counter, self.pool, self.pool_bits = counter, pool, pool_bits

    def _block(self, counter: int) -> bytes:
        return hmac.digest(self.key, self.prefix + _u64(counter), "sha256")

    def randbelow(self, n: int) -> int:
        return sample_below(n, self.bits)

    def shuffle(self, items: MutableSequence[T]) -> None:
        fisher_yates(items, self.randbelow)

    def to_data(self) -> dict[str, Any]:
        return {"counter": self.counter, "pool": format(self.pool, "x"), "pool_bits": self.pool_bits}


# ----------------------------------------------------------------- the client seed action


@dataclass(frozen=True, slots=True)
class ClientSeed:
    """A seat's contribution to the round's deal, as lowercase hex (1 to :data:`CLIENT_SEED_MAX_BYTES`
    bytes). Every game takes it while the round's deck is not fixed; it is no decision (no seat waits
    for it) and never one of ``legal_actions``."""

    seed: str
    kind: ClassVar[str] = "client_seed"

    def to_data(self) -> dict[str, Any]:
        return {"kind": self.kind, "seed": self.seed}


def client_seed_from_data(data: Mapping[str, Any]) -> ClientSeed:
    """The :class:`ClientSeed` of ``{"kind": "client_seed", "seed": hex}``, or :class:`InvalidAction`."""
    seed = data.get("seed")
    if not isinstance(seed, str) or not 2 <= len(seed) <= 2 * CLIENT_SEED_MAX_BYTES or len(seed) % 2 \
            or seed.strip("0123456789abcdef"):
        raise InvalidAction(f"a client seed is 1 to {CLIENT_SEED_MAX_BYTES} bytes as lowercase hex, got "
                            f"{seed[:20] + '...' if isinstance(seed, str) and len(seed) > 20 else seed!r}")
    return ClientSeed(seed)


# ----------------------------------------------------------------- a game's fair round


class FairDeal:
    """The fair part of a game's state: the current (or last) round's seed, commitment, client seeds
    and stream. Each game holds one as ``fair`` and calls :meth:`begin_round`, :meth:`check_seed`,
    :meth:`add_seed`, :meth:`shuffle` / :meth:`randbelow` and :meth:`reveal` (see the module docstring).

    Chance outside a fair round comes from the game's own RNG (``fallback``): before the first
    round, and in a round restored from a checkpoint written before fair deals existed (that round
    has no commitment and reveals nothing).
    """

    __slots__ = ("round", "seed", "commitment", "client_seeds", "stream", "state", "first", "open", "fallback",
                 "first_input", "revealed")

    def __init__(self, fallback: HashRng | None = None) -> None:
        self.round = 0
        self.seed: bytes | None = None
        self.commitment: bytes | None = None
        self.client_seeds: dict[int, bytes] = {}
        self.stream: DealStream | None = None
        self.state: dict[str, Any] | None = None  # the public state the round began from (until the reveal)
        self.first = 0  # index in the game's history of the round's start_round
        self.open = False  # between the commitment and the reveal
        self.fallback = fallback
        self.first_input: list[str] | None = None  # what the round's first shuffle shuffled (the verifier asks)
        self.revealed: dict[str, Any] | None = None  # the last reveal's data, for the round record

    @property
    def fixed(self) -> bool:
        """The round's deck is fixed: its first shuffle is done, client seeds are no longer taken."""
        return self.stream is not None or self.fallback is not None

    def begin_round(self, game: Any) -> Record:
        """A new round: draw its seed from ``game.rng`` and commit to it (the ``deal_commit`` record,
        the last of the round's start). ``game`` has its state for the round's start in place."""
        self.round, self.fallback, self.stream, self.client_seeds = game.round_no, None, None, {}
        self.seed = game.rng.token(SEED_BYTES)
        self.commitment = commitment(self.seed, self.round)
        self.first, self.open, self.revealed = len(game.history), True, None
        self.state = None
        self.state = public_state(game.to_data(history=False))
        return Record("deal_commit", None, {"round": self.round, "version": VERSION,
                                            "commitment": self.commitment.hex()})

    def check_seed(self, action: ClientSeed, seat: int | None, dealt_in: bool) -> None:
        """Raise :class:`IllegalAction` unless ``seat`` (dealt in this round: ``dealt_in``) may add a seed now."""
        if seat is None:
            raise IllegalAction(action, "a client seed is a seat's, not the table's")
        if not self.open:
            raise IllegalAction(action, "no round is being dealt now")
        if self.fixed:
            raise IllegalAction(action, "the deck is already fixed: client seeds are taken until the round's "
                                        "first cut")
        if not dealt_in:
            raise IllegalAction(action, f"seat {seat} is not dealt in this round")
        if seat in self.client_seeds:
            raise IllegalAction(action, f"seat {seat} has already sent its client seed for this round")

    def add_seed(self, seat: int, action: ClientSeed) -> list[Record]:
        self.client_seeds[seat] = bytes.fromhex(action.seed)
        return [Record("client_seed", seat, {"seed": action.seed})]

    def _source(self) -> DealStream | HashRng:
        if self.fallback is not None:
            return self.fallback
        if self.stream is None:
            assert self.seed is not None, "a fair round draws chance only after begin_round"
            self.stream = DealStream(self.seed, self.round, self.client_seeds)
        return self.stream

    def shuffle(self, cards: MutableSequence[Any]) -> None:
        """Shuffle ``cards`` in place from the round's stream; the first shuffle fixes the deck."""
        if self.first_input is None and not self.fixed:
            self.first_input = [c.text for c in cards]
        self._source().shuffle(cards)

    def randbelow(self, n: int) -> int:
        """Uniform in ``range(n)`` from the round's stream (a random cut)."""
        return self._source().randbelow(n)

    def reveal(self, history: Sequence[tuple[int | None, dict[str, Any]]]) -> list[Record]:
        """The round is over: its ``deal_reveal`` record (none outside a fair round), kept as
        :attr:`revealed` for the round record. ``history`` is the game's action log."""
        self.open = False
        if self.fallback is not None or self.seed is None:
            return []
        self.revealed = {
            "round": self.round, "version": VERSION, "commitment": self.commitment.hex(),  # type: ignore[union-attr]
            "seed": self.seed.hex(), "client_seeds": [[s, v.hex()] for s, v in sorted(self.client_seeds.items())],
            "state": self.state, "actions": [[s, a] for s, a in history[self.first + 1:]],
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
        """What everyone may know: the commitment, the client seeds, whether the deck is fixed, and the
        seed once the round is over (``None`` before the first fair round)."""
        if self.commitment is None or self.fallback is not None:
            return None
        return {"version": VERSION, "round": self.round, "commitment": self.commitment.hex(),
                "client_seeds": {str(s): v.hex() for s, v in sorted(self.client_seeds.items())},
                "fixed": self.fixed, "seed": None if self.open else self.seed.hex()}  # type: ignore[union-attr]

    def to_data(self) -> dict[str, Any] | None:
        if self.fallback is not None:
            return None
        return {
            "round": self.round, "seed": self.seed.hex() if self.seed else None,
            "commitment": self.commitment.hex() if self.commitment else None,
            "client_seeds": [[s, v.hex()] for s, v in sorted(self.client_seeds.items())],
            "stream": self.stream.to_data() if self.stream else None, "state": self.state,
            "first": self.first, "open": self.open,
        }

    @classmethod
    def from_data(cls, data: Mapping[str, Any] | None, rng: HashRng) -> "FairDeal":
        """The fair state :meth:`to_data` gave; ``None`` (no fair round yet, or a checkpoint from before
        fair deals) draws from the game's ``rng`` until the next round begins."""
        if data is None:
            return cls(fallback=rng)
        fair = cls()
        fair.round, fair.first, fair.open, fair.state = data["round"], data["first"], data["open"], data["state"]
        fair.seed = bytes.fromhex(data["seed"]) if data["seed"] else None
        fair.commitment = bytes.fromhex(data["commitment"]) if data["commitment"] else None
        fair.client_seeds = {s: bytes.fromhex(v) for s, v in data["client_seeds"]}
        stream = data["stream"]
        if stream is not None:
            assert fair.seed is not None
            fair.stream = DealStream(fair.seed, fair.round, fair.client_seeds, stream["counter"],
                                     int(stream["pool"], 16), stream["pool_bits"])
        return fair


def public_state(data: dict[str, Any]) -> dict[str, Any]:
    """A game's ``to_data(history=False)`` without its secrets (:data:`PRIVATE_STATE`) or its recent
    log (which only views read)."""
    return {k: ([] if k == "round_log" else v) for k, v in data.items() if k not in PRIVATE_STATE}


# ----------------------------------------------------------------- the verifier


@dataclass(frozen=True)
class Verdict:
    """A round's verification: ``ok``, or ``what`` is wrong ("commitment", "revealed seed", "client seed",
    "cut", "stock card"...) and a ``message`` that says how."""

    round: int | None
    ok: bool
    what: str | None = None
    message: str = "deal verified"


def _plain(value: Any) -> Any:
    """``value`` as it reads after a trip over the wire (tuples are lists)."""
    return json.loads(json.dumps(value))


def _hex_bytes(value: object) -> bytes | None:
    try:
        return bytes.fromhex(value) if isinstance(value, str) else None  # type: ignore[arg-type]
    except ValueError:
        return None


def verify_round(game_type: "GameType", seen: Sequence[Mapping[str, Any]], viewer: int | None,
                 own_seed: str | None = None) -> Verdict:
    """Check one round as ``viewer`` (a seat, or ``None``: a spectator) saw it.

    ``seen`` is every event of the round that viewer received, from its ``deal_commit`` to its
    ``deal_reveal`` (table events such as ``timeout`` may be among them); ``own_seed`` is the client
    seed the viewer sent and the server accepted, if any. The round is replayed through
    ``game_type`` from the revealed public state with the revealed seed and actions, and every
    event the viewer saw must be what the replay gives that viewer.
    """
    events = [_plain(dict(e)) for e in seen]
    if not events or events[0].get("kind") != "deal_commit" or events[-1].get("kind") != REVEAL_KIND:
        return Verdict(None, False, "events", "the round's events do not run from its deal_commit to its deal_reveal")
    commit, reveal = events[0], events[-1]
    round_no = commit.get("round")

    def wrong(what: str, message: str) -> Verdict:
        return Verdict(round_no, False, what, f"{what}: {message}")

    if reveal.get("version") != VERSION or commit.get("version") != VERSION:
        return wrong("version", f"this verifier knows version {VERSION}, the round says "
                                f"{commit.get('version')!r}/{reveal.get('version')!r}")
    if reveal.get("commitment") != commit.get("commitment") or reveal.get("round") != round_no:
        return wrong("commitment", f"announced {commit.get('commitment')!r} for round {round_no} before the cut, "
                                   f"the reveal says {reveal.get('commitment')!r} for round {reveal.get('round')!r}")
    seed = _hex_bytes(reveal.get("seed"))
    if seed is None or len(seed) != SEED_BYTES or isinstance(round_no, bool) or not isinstance(round_no, int) \
            or commitment(seed, round_no).hex() != commit.get("commitment"):
        return wrong("revealed seed", f"{reveal.get('seed')!r} does not match the commitment "
                                      f"{commit.get('commitment')!r} announced before the cut")
    announced = {e.get("seat"): e.get("seed") for e in events if e.get("kind") == "client_seed"}
    try:
        mixed = {seat: value for seat, value in reveal["client_seeds"]}
    except (KeyError, TypeError, ValueError):
        return wrong("client seed", "the reveal's client seeds are malformed")
    if own_seed is not None and mixed.get(viewer) != own_seed:
        return wrong("client seed", f"yours ({own_seed[:16]}...) is not among the seeds the deck was made from")
    for seat in sorted(set(announced) | set(mixed), key=str):
        if announced.get(seat) != mixed.get(seat):
            return wrong("client seed", f"seat {seat}'s was announced as {announced.get(seat)!r}, the deck was "
                                        f"made from {mixed.get(seat)!r}")
    table_kinds = {"timeout"}
    shown = [e for e in events[1:-1] if e.get("kind") not in table_kinds]
    names = {"client_seed": "client seed", "cut": "cut", **game_type.fair_names}
    replay = _Replay(game_type, reveal, seed, viewer)
    try:
        for index, due in enumerate(replay.events()):
            if replay.game.fair.first_input not in (None, [c.text for c in DECK]):
                return wrong("deck", "the revealed state's pack is not the whole deck in its sorted order before "
                                     "the shuffle")
            saw = shown[index] if index < len(shown) else {}
            if saw != due:
                kind = due.get("kind") if saw.get("kind") == due.get("kind") or not saw else saw.get("kind")
                return wrong(names.get(kind, f"{kind} event"),
                             f"event {index + 1} of the round: {_difference(saw, due)}")
    except (EngineError, KeyError, TypeError, ValueError, AttributeError, IndexError) as exc:
        return wrong("record", f"the revealed state and actions do not replay ({exc})")
    if len(shown) != replay.count:
        return wrong("record", f"{len(shown)} events were seen, the round's actions make {replay.count}")
    if {s: v.hex() for s, v in replay.game.fair.client_seeds.items()} != mixed:
        return wrong("client seed", "the revealed actions hold other client seeds than the reveal lists")
    return Verdict(round_no, True)


class _Replay:
    """The round replayed from the revealed public state, seed and actions: the events ``viewer``
    would have seen between the commitment and the reveal, one at a time."""

    def __init__(self, game_type: "GameType", reveal: Mapping[str, Any], seed: bytes, viewer: int | None) -> None:
        stand_in = HashRng(b"verifier: the game's own seed is not needed").to_data()
        fair = FairDeal()
        fair.round, fair.seed, fair.open, fair.first = reveal["round"], seed, True, -1
        fair.commitment = commitment(seed, reveal["round"])
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


def verify_record(game_type: "GameType", record: Mapping[str, Any]) -> list[Verdict]:
    """Check a stored round (an export's round) as each of its seats and a spectator saw it."""
    if record.get("fair") is None:
        return [Verdict(record.get("round"), False, "fair", "fair: the round has no commitment (dealt before "
                                                              "fair deals, or its record is damaged)")]
    viewers: Iterable[int | None] = [*record.get("seats", ()), None]
    try:
        return [verify_round(game_type, round_events(record, viewer), viewer) for viewer in viewers]
    except (KeyError, TypeError, StopIteration) as exc:
        return [Verdict(record.get("round"), False, "record", f"record: the stored round is damaged ({exc!r})")]
