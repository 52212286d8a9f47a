"""Our side of every fair deal (docs/FAIRNESS.md): a client seed for each round, each round checked.

No Textual here. :class:`DealWatch` follows the events of our table: when a
round's ``deal_commit`` arrives it hands out a fresh random client seed to
send (if we are seated), keeps every event of the round, and when the
``deal_reveal`` arrives checks the round with the engine's verifier
(:func:`engine.fairness.verify_round`), as our seat saw it. :func:`verify_export`
is ``dab-client verify FILE``: every round of an exported history, as every
seat and a spectator saw it.
"""

from __future__ import annotations

import secrets
from typing import TYPE_CHECKING, Any, Callable, Mapping

if TYPE_CHECKING:
    from engine.fairness import Verdict

SEED_BYTES = 32  # what our client sends: as much entropy as the round seed itself
MAX_ROUND_EVENTS = 20_000  # a round longer than this (a broken or hostile server) is not checked


class DealWatch:
    """The rounds of the table we are at (see the module docstring)."""

    def __init__(self, token: Callable[[int], bytes] = secrets.token_bytes) -> None:
        self.token = token
        self._table: str | None = None
        self._round: list[dict[str, Any]] = []  # this round's events since its deal_commit ([] outside one)
        self._sent: dict[int, str] = {}  # round -> our seed, once the server accepted it

    def arrived(self, table_id: str, events: list[dict[str, Any]], seat: int | None,
                game: str) -> tuple[tuple[int, str] | None, list["Verdict"]]:
        """Take a batch of events: ``((round, seed to send) or None, verdicts of the rounds it ended)``."""
        if table_id != self._table:
            self._table, self._round, self._sent = table_id, [], {}
        send, verdicts = None, []
        for event in events:
            kind = event.get("kind")
            if kind == "deal_commit":
                self._round = [event]
                round_no = event.get("round")
                if seat is not None and isinstance(round_no, int):
                    send = (round_no, self.token(SEED_BYTES).hex())
            elif self._round:
                self._round.append(event)
                if kind == "deal_reveal":
                    verdicts.append(self._check(game, seat))
                elif len(self._round) > MAX_ROUND_EVENTS:
                    self._round = []
        return send, verdicts

    def accepted(self, table_id: str, round_no: int, seed: str) -> None:
        """The server took our seed for that round: the verifier checks the deck was made from it."""
        if table_id == self._table:
            self._sent[round_no] = seed

    def _check(self, game: str, seat: int | None) -> "Verdict":
        from engine.fairness import Verdict, verify_round
        from engine.games import find_game

        events, self._round = self._round, []
        round_no = events[0].get("round")
        try:
            return verify_round(find_game(game), events, seat, self._sent.pop(round_no, None))
        except Exception as exc:  # whatever the server sent, the client goes on: the round is not verified
            return Verdict(round_no if isinstance(round_no, int) else None, False, "verifier",
                           f"the round could not be checked ({type(exc).__name__}: {exc})")


def verify_export(history: Mapping[str, Any]) -> tuple[list[str], bool]:
    """Every round of ``dab-server export --format json``'s output, each as every seat and a spectator
    saw it: one line per round, and whether every round verified (and there was one)."""
    from engine.fairness import verify_record
    from engine.games import find_game

    lines: list[str] = []
    ok, rounds = True, 0
    tables = history.get("tables") if isinstance(history, Mapping) else None
    if not isinstance(tables, list) or history.get("format") != "down-and-back-history":
        return ["not a dab-server export (dab-server export --format json)"], False
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
            verdicts = verify_record(game, entry) if isinstance(entry, Mapping) else []
            failed = next((v for v in verdicts if not v.ok), None) if verdicts else None
            where = f"table {table_id} round {entry.get('round') if isinstance(entry, Mapping) else '?'}"
            if verdicts and failed is None:
                lines.append(f"{where}: deal verified ({len(verdicts)} views: each seat and a spectator)")
            else:
                ok = False
                lines.append(f"{where}: NOT VERIFIED: {failed.message if failed else 'the round is damaged'}")
    if not rounds:
        return lines + ["no finished rounds to verify"], False
    return lines, ok
