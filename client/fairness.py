"""Our side of every fair deal (docs/FAIRNESS.md): a client seed committed and revealed each round,
each round checked, and the server's key pinned.

No Textual here. :class:`DealWatch` follows the events of our table: when a
round's ``deal_commit`` arrives (and we are dealt in) it makes a fresh random
client seed and asks for its commitment to be sent at once; when the sealed
``seed_set`` holds that commitment, for the seed itself; it keeps every event
of the round, checks the phases live as only a player can (the window as our
clock saw it, a seed shut out or refused while we were connected), and when
the ``deal_reveal`` arrives checks the round with the engine's verifier
(:func:`engine.fairness.verify_round`) against the key we pinned for the
server. Each round's :class:`RoundStatus` says where it stands, for the top
bar. :class:`KnownServers` is the pin file (like SSH's known_hosts).
:func:`verify_export` is ``dab-client verify FILE``.
"""

from __future__ import annotations

import os
import secrets
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping

if TYPE_CHECKING:
    from engine.fairness import Verdict

SEED_BYTES = 32  # what our client sends: as much entropy as the round seed itself
MAX_ROUND_EVENTS = 20_000  # a round longer than this (a broken or hostile server) is not checked
CLOCK_SLACK = 1.0  # s: how much shorter than the server's word our clock may see a window (network jitter)


@dataclass
class RoundStatus:
    """Where one round's deal stands, as the top bar shows it (and its details on the fair-deal key)."""

    round: int
    commitment: str = ""
    phase: str = "commit"  # commit, reveal, fixed, checked
    seats: tuple[int, ...] = ()
    committed: tuple[int, ...] = ()
    revealed: tuple[int, ...] = ()
    client_seeds: tuple[int, ...] = ()  # the seats whose seeds the deck was made from
    withheld: tuple[int, ...] = ()
    mine: str | None = None  # our seed, once sent
    mine_in: bool | None = None  # our seed is in the fixed deck (None: not yet known, or we sent none)
    window_ms: int = 0
    after_ms: int | None = None  # when the deck was fixed, by the server's word
    verdict: "Verdict | None" = None
    problems: list[str] = field(default_factory=list)  # what the live checks found

    @property
    def short(self) -> str:
        """A few words for the top bar."""
        if self.verdict is not None:
            return self.verdict.summary if self.verdict.ok else "DEAL NOT VERIFIED"
        if self.problems:
            return "DEAL NOT VERIFIED"
        if self.phase == "commit":
            return "sealing the deal"
        if self.phase == "reveal":
            return "seeds sealed"
        if not self.client_seeds:
            return "deal fixed: server seed only"
        return "deal fixed, your seed in" if self.mine_in else "deal fixed"


class DealWatch:
    """The rounds of the table we are at (see the module docstring).

    :meth:`arrived` returns what to send (``(request kind, round, value)``: ``seed_commit`` with our
    commitment, ``client_seed`` with our seed) and the verdicts of the rounds the batch ended; the caller
    reports each request's fate with :meth:`accepted` or :meth:`refused`.
    """

    def __init__(self, token: Callable[[int], bytes] = secrets.token_bytes,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.token, self.clock = token, clock
        self._table: str | None = None
        self._round: list[dict[str, Any]] = []  # this round's events since its deal_commit ([] outside one)
        self._seed: dict[int, bytes] = {}  # round -> our seed (made when its deal_commit came)
        self._revealed: dict[int, str] = {}  # round -> our seed, once the server accepted it
        self._committed: set[int] = set()  # rounds whose commitment the server accepted
        self._refused: dict[tuple[int, str], str] = {}  # (round, request kind) -> why the server refused it
        self._started = 0.0  # our clock when the round's deal_commit came
        self.status: RoundStatus | None = None  # the round under way, or the last one
        self.key: bytes | None = None  # the server key we pinned (None: not pinned, the round names its own)

    def arrived(self, table_id: str, events: list[dict[str, Any]], seat: int | None,
                game: str) -> tuple[list[tuple[str, int, str]], list["Verdict"]]:
        """Take a batch of events: ``(requests to send, verdicts of the rounds it ended)``."""
        from engine.fairness import seed_commitment

        if table_id != self._table:
            self._table, self._round, self._seed, self._revealed, self.status = table_id, [], {}, {}, None
        sends: list[tuple[str, int, str]] = []
        verdicts = []
        for event in events:
            kind = event.get("kind")
            if kind == "deal_commit":
                self._begin(event, seat)
                status = self.status
                if status is not None and seat in status.seats and status.commitment:
                    seed = self.token(SEED_BYTES)
                    self._seed[status.round] = seed
                    status.mine = seed.hex()
                    commit = seed_commitment(bytes.fromhex(status.commitment), seat, seed)  # type: ignore[arg-type]
                    sends.append(("seed_commit", status.round, commit.hex()))
                continue
            if not self._round:
                continue
            self._round.append(event)
            status = self.status
            assert status is not None
            if kind == "seed_commit":
                status.committed = tuple(sorted({*status.committed, event.get("seat")}))  # type: ignore[arg-type]
            elif kind == "seed_set":
                status.phase = "reveal"
                self._sealed(event, seat, sends)
            elif kind == "client_seed":
                status.revealed = tuple(sorted({*status.revealed, event.get("seat")}))  # type: ignore[arg-type]
            elif kind == "deck_fixed":
                self._fixed(event, seat)
            elif kind == "deal_reveal":
                verdicts.append(self._check(game, seat, table_id))
            elif len(self._round) > MAX_ROUND_EVENTS:
                self._round = []
        return sends, verdicts

    def _begin(self, event: Mapping[str, Any], seat: int | None) -> None:
        round_no = event.get("round")
        self._round = [dict(event)]
        self._started = self.clock()
        if not isinstance(round_no, int):
            self.status = None
            return
        seats = event.get("seats") if isinstance(event.get("seats"), list) else []
        self.status = RoundStatus(round_no, str(event.get("commitment") or ""), seats=tuple(seats),
                                  window_ms=event.get("window_ms") if isinstance(event.get("window_ms"), int) else 0)

    def _sealed(self, event: Mapping[str, Any], seat: int | None, sends: list[tuple[str, int, str]]) -> None:
        """The seed set: reveal our seed if our commitment is in it; if not, say whether that was fair."""
        status = self.status
        assert status is not None
        commits = {s: v for s, v in event.get("commits") or () if isinstance(s, int)}
        status.committed = tuple(sorted(commits))
        seed = self._seed.get(status.round)
        if seed is None or seat is None:
            return
        if seat in commits:
            sends.append(("client_seed", status.round, seed.hex()))
            return
        if status.round in self._committed:
            status.problems.append("client seed: the server accepted your commitment, then sealed the seeds "
                                   "without it")
        after = event.get("after_ms") if isinstance(event.get("after_ms"), int) else 0
        seen = (self.clock() - self._started) * 1000
        if after < status.window_ms and seat not in (event.get("waiting") or ()):
            status.problems.append(f"window: the seeds were sealed {after} ms after the deal_commit, before its "
                                   f"{status.window_ms} ms window, without your seed, and the server says it was "
                                   "not waiting for you (you were connected)")
        elif after >= status.window_ms and seen + CLOCK_SLACK * 1000 < status.window_ms:
            status.problems.append(f"window: the server says it waited {after} ms for the seeds; this client saw "
                                   f"the seeds sealed {seen:.0f} ms after the deal_commit, without yours")

    def _fixed(self, event: Mapping[str, Any], seat: int | None) -> None:
        status = self.status
        assert status is not None
        status.phase = "fixed"
        seeds = {s: v for s, v in event.get("client_seeds") or () if isinstance(s, int)}
        status.client_seeds = tuple(sorted(seeds))
        status.withheld = tuple(event.get("withheld") or ())
        status.after_ms = event.get("after_ms") if isinstance(event.get("after_ms"), int) else None
        if status.mine is not None and seat is not None:
            status.mine_in = seeds.get(seat) == status.mine
            if not status.mine_in and status.round in self._revealed:
                status.problems.append("client seed: the server accepted your seed, but the deck was fixed "
                                       "without it")

    def accepted(self, table_id: str, kind: str, round_no: int, value: str) -> None:
        """The server took our commitment or our seed for that round."""
        if table_id != self._table:
            return
        if kind == "client_seed":
            self._revealed[round_no] = value
        else:
            self._committed.add(round_no)

    def refused(self, table_id: str, kind: str, round_no: int, code: str, message: str) -> None:
        """The server refused our commitment or our seed. Only a sealed phase justifies it, and the event
        that seals it may come just after the refusal (in the same batch): the seed set without our
        commitment is checked when it comes (:meth:`_sealed`), the deck fixed without our seed by the
        verifier (a withheld seed only after the window), so the refusal is only noted here."""
        if table_id == self._table:
            self._refused[(round_no, kind)] = f"{code}: {message}"

    def _check(self, game: str, seat: int | None, table_id: str) -> "Verdict":
        from engine.fairness import Verdict, verify_round
        from engine.games import find_game

        events, self._round = self._round, []
        status = self.status
        round_no = events[0].get("round")
        if status is None or not isinstance(round_no, int):
            return Verdict(None, False, "events", "the round's deal_commit is malformed")
        try:
            verdict = verify_round(find_game(game), events, seat, self._revealed.pop(round_no, None),
                                   key=self.key, table_id=table_id)
        except Exception as exc:  # whatever the server sent, the client goes on: the round is not verified
            verdict = Verdict(round_no, False, "verifier", f"the round could not be checked ({type(exc).__name__}: {exc})")
        if verdict.ok and status.problems:
            what = status.problems[0].split(":", 1)[0]
            verdict = Verdict(round_no, False, what, status.problems[0])
        status.verdict, status.phase = verdict, "checked"
        self._seed.pop(round_no, None)
        return verdict


KNOWN_SERVERS = "known_servers"


class KnownServers:
    """The servers' keys this client has seen, one line each: ``host:port key`` (the key in hex), like
    SSH's known_hosts (``dab-client`` keeps the file ``known_servers`` in its config directory). The
    first key a server shows is pinned; a later one that differs is a changed key: its rounds do not
    verify until the line is removed (``dab-client forget-key HOST[:PORT]``). ``path`` None: nothing is
    kept on disk (a client the SSH gateway runs, whose server the SSH host key already pins)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.keys: dict[str, str] = {}
        if path is not None:
            try:
                for line in path.read_text().splitlines():
                    parts = line.split()
                    if len(parts) == 2:
                        self.keys[parts[0]] = parts[1]
            except (OSError, UnicodeDecodeError):
                pass

    def check(self, server: str, key: str) -> str:
        """``"new"`` (pinned now), ``"known"`` (the pinned key) or ``"changed"`` (another key is pinned)."""
        pinned = self.keys.get(server)
        if pinned == key:
            return "known"
        if pinned is not None:
            return "changed"
        self.keys[server] = key
        self._save()
        return "new"

    def forget(self, server: str) -> bool:
        found = self.keys.pop(server, None) is not None
        if found:
            self._save()
        return found

    def _save(self) -> None:
        if self.path is None:
            return
        self.path.parent.mkdir(parents=True, exist_ok=True)
        text = "".join(f"{server} {fp}\n" for server, fp in sorted(self.keys.items()))
        fd = os.open(self.path.with_suffix(".tmp"), os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
        with os.fdopen(fd, "w") as handle:
            handle.write(text)
        os.replace(self.path.with_suffix(".tmp"), self.path)


def verify_export(history: Mapping[str, Any], pinned: str | None = None) -> tuple[list[str], bool]:
    """Every round of ``dab-server export --format json``'s output, each as every seat and a spectator
    saw it: one line per round (what it proves, or what is wrong), and whether every round verified
    (and there was one). Every round's signatures are checked against the key its deal_commit names,
    which must be the same for the whole export, and ``pinned`` (a fingerprint) if given; each round
    must be bound to the table it is listed under."""
    from engine.fairness import fingerprint, verify_record
    from engine.games import find_game

    lines: list[str] = []
    ok, rounds = True, 0
    tables = history.get("tables") if isinstance(history, Mapping) else None
    if not isinstance(tables, list) or history.get("format") != "down-and-back-history":
        return ["not a dab-server export (dab-server export --format json)"], False
    keys: set[str] = set()
    for table in tables:
        table_id = table.get("table_id") if isinstance(table, Mapping) else None
        try:
            game = find_game(table["game"])
            entries = list(table["rounds"])
        except (KeyError, TypeError) as exc:
            lines.append(f"table {table_id}: cannot be read ({exc})")
            ok = False
            continue
        for entry in entries:
            rounds += 1
            where = f"table {table_id} round {entry.get('round') if isinstance(entry, Mapping) else '?'}"
            key = _round_key(entry)
            if key is None:
                verdicts = verify_record(game, entry) if isinstance(entry, Mapping) else []
            else:
                keys.add(fingerprint(key))
                if pinned is not None and fingerprint(key) != pinned:
                    ok = False
                    lines.append(f"{where}: NOT VERIFIED: key: signed by {fingerprint(key)}, not the pinned {pinned}")
                    continue
                verdicts = verify_record(game, entry, key=key, table_id=table_id)
            failed = next((v for v in verdicts if not v.ok), None) if verdicts else None
            if verdicts and failed is None:
                proof = next((v for v in verdicts if v.proof), verdicts[0])
                lines.append(f"{where}: {proof.summary.replace(' — your seed included', '')} "
                             f"({len(verdicts)} views: each seat and a spectator)")
            else:
                ok = False
                lines.append(f"{where}: NOT VERIFIED: {failed.message if failed else 'the round is damaged'}")
    if len(keys) > 1:
        ok = False
        lines.append(f"NOT VERIFIED: the rounds are signed by {len(keys)} different keys: {', '.join(sorted(keys))}")
    elif keys:
        lines.append(f"every round is signed by the server key {next(iter(keys))}")
    if not rounds:
        return lines + ["no finished rounds to verify"], False
    return lines, ok


def _round_key(entry: Any) -> bytes | None:
    """The server key a stored round's deal_commit names (``None`` if it names none)."""
    try:
        commit = next(r for r in entry["log"] if r["kind"] == "deal_commit")
        return bytes.fromhex(commit["public"]["key"])
    except (KeyError, TypeError, ValueError, StopIteration):
        return None
