"""Bringing a stored table back after a restart, and the checkpoints that make it checkable.

Every engine action is in the store's action log, and before each commit the
lobby stores a checkpoint of the whole engine state. A restart replays the
log from the game's seed and checks the result against the checkpoint (or,
if the engine has changed since the game began, continues from the
checkpoint alone); deadlines then start afresh, so nobody loses a turn to
downtime.
"""

from __future__ import annotations

import json
import logging
from typing import TYPE_CHECKING, Any

from engine.contract import Game, SetAway, SitIn, StartRound, Status
from engine.errors import EngineError
from engine.fingerprint import fingerprint
from engine.rng import HashRng

from .history import public_round
from .errors import StoreError

if TYPE_CHECKING:
    from .store import TableRow
    from .table import Table

log = logging.getLogger(__name__)


def rebuild(table: "Table", row: TableRow) -> None:
    """Bring ``table`` (seats already as stored) to its stored game: replayed, or from its checkpoint.

    Raises :class:`StoreError` if the replay disagrees with the stored
    checkpoint (the database was damaged or edited). A game started by an
    engine with another fingerprint continues from its checkpoint instead.
    """
    if row.rng is None:
        return
    assert row.initial_players is not None and row.game_settings is not None
    if row.checkpoint is None or len(row.actions) != row.snapshot["actions"] or not (
            isinstance(row.checkpoint_at, int) and 0 <= row.checkpoint_at <= len(row.actions)):
        raise StoreError(f"table {row.table_id}: {len(row.actions)} actions stored, the last unit of work "
                         f"after {row.snapshot['actions']}, the checkpoint after {row.checkpoint_at}")
    if row.engine == fingerprint(table.game_type):
        _replay(table, row)
    else:
        _from_checkpoint(table, row)
    game_seats = set(table.stacks())
    # A running game holds every seat; at a finished one players leave the standings (or the grace frees them).
    if not (set(table.seats) <= game_seats if table.state == "finished" else set(table.seats) == game_seats):
        raise StoreError(f"table {row.table_id}: stored seats {sorted(table.seats)} do not match the game")


def _replay(table: "Table", row: TableRow) -> None:
    """The normal restore: the engine replays the log from the seed; it must reach the checkpoint."""
    assert row.initial_players is not None and row.game_settings is not None and row.rng is not None
    game_type = table.game_type
    try:
        game = game_type.new(game_type.settings(row.game_settings), row.initial_players, HashRng.from_data(row.rng))
        table.game = game
        table.rounds.game_started()
        starts = [i for i, (_, data) in enumerate(row.actions) if data.get("kind") == StartRound.kind]
        for i, (seat, data) in enumerate(row.actions):
            if i == row.checkpoint_at:
                _check_checkpoint(table, game, row)
            action = game_type.action_from_data(data)
            if starts and i == starts[-1]:
                table.rounds.between_rounds()  # what the round under way (or the last one) replays from
            before = game.status
            game.apply(seat, action)
            table.applied(action, before, live=False)
        if game.status is Status.BETWEEN_ROUNDS:
            table.rounds.between_rounds()  # what the next round replays from
    except (EngineError, KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"table {table.table_id}: the stored action log does not replay ({exc})") from None
    if row.checkpoint_at == len(row.actions):
        _check_checkpoint(table, game, row)
    table.checkpoint_mark = (game.status, game.chance_drawn()) if row.checkpoint_at == len(row.actions) else None


def _check_checkpoint(table: "Table", game: Game, row: TableRow) -> None:
    if checkpoint_state(game) != row.checkpoint:
        raise StoreError(f"table {table.table_id}: replaying the action log does not reach the stored checkpoint "
                         f"(after {row.checkpoint_at} actions); the database was damaged or edited")


def _from_checkpoint(table: "Table", row: TableRow) -> None:
    """After an engine upgrade: the game continues from its last checkpoint, exactly as it stood.

    The new engine may draw differently from the same seed, so the log no
    longer replays; the checkpoint holds the shuffled stock and every hand,
    so nothing already dealt or shown changes. What the table keeps beside
    the game (who is away, the rounds) comes from the action log and the
    stored rounds.
    """
    assert row.checkpoint is not None
    game_type = table.game_type
    if row.engine is not None:
        log.warning("table %s was started by another engine version (%s, now %s): restoring it from its checkpoint",
                    table.table_id, row.engine, fingerprint(game_type))
    at = row.checkpoint_at
    assert at is not None
    try:
        table.game = game_type.from_data(dict(row.checkpoint, history=[list(a) for a in row.actions[:at]]))
    except (EngineError, KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"table {table.table_id}: this engine cannot read the stored checkpoint ({exc}); "
                         "run the dab-server version that started the game") from None
    drawn = table.game.chance_drawn()
    try:  # the actions after the checkpoint draw nothing: they play out the same with this engine
        for seat, data in row.actions[at:]:
            table.game.apply(seat, game_type.action_from_data(data))
    except (EngineError, KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"table {table.table_id}: this engine cannot apply the actions stored after the "
                         f"checkpoint ({exc}); run the dab-server version that started the game") from None
    if table.game.chance_drawn() != drawn:
        raise StoreError(f"table {table.table_id}: this engine draws chance for the actions stored after the "
                         "checkpoint, which drew none; run the dab-server version that started the game")
    rounds = table.rounds
    rounds.brought = {seat: chips for seat, _, chips in table.game.initial_players}
    for _, data in row.actions:
        if data.get("kind") == SetAway.kind:
            (table.away.add if data["away"] else table.away.discard)(data["seat"])
        elif data.get("kind") == SitIn.kind:
            rounds.brought[data["seat"]] = data["chips"]
    starts = [i for i, (_, a) in enumerate(row.actions) if a.get("kind") == StartRound.kind]
    rounds.round_first_seq = starts[-1] if starts else 0
    rounds.rounds_started = len(starts)
    assert table.store is not None and row.initial_players is not None
    stored = table.store.rounds(table.table_id, 1 << 30)
    rounds.history.extend(public_round(game_type, r) for r in stored)
    rounds.chip_history = [{seat: stack for seat, _, stack in row.initial_players}]
    rounds.chip_history += [{int(s): v for s, v in (r.get("holdings") or r["stacks"]).items()}
                            for r in stored if r["result"]]  # (a round stored before holdings: its stacks)
    if table.game.status is Status.OVER:
        rounds.chip_history.append(table.holdings())
    rounds.between_rounds()  # a round under way when the engine changed has no opening: it cannot be replayed
    table.engine_outdated = row.engine is not None  # the lobby marks it checkpoint-only once every table is back


def save_checkpoint(table: "Table", full: bool = False) -> None:
    """Store where the game of ``table`` stands (the lobby calls it just before it commits): its action
    count, pot and stacks always; its whole state (the checkpoint) if it drew chance or changed status
    since the last one, or if ``full``.

    Between two draws the game follows from its actions alone, so a checkpoint after each draw is
    enough: the replay checks it where it was taken, and an upgraded engine continues from it by
    applying the actions after it, which draw nothing (:func:`_from_checkpoint`). Building and
    encoding the whole state was most of the CPU a durable action cost the event loop."""
    game = table.game
    if table.store is not None and game is not None:
        stacks = table.stacks()
        mark = (game.status, game.chance_drawn())
        state = None
        if full or mark != table.checkpoint_mark:
            state, table.checkpoint_mark = checkpoint_json(game), mark
        table.store.checkpoint(
            table.table_id, state, len(game.history), table.rounds.rounds_started,
            game.status.value, game.chips_in_play() - sum(stacks.values()), stacks,
        )


def checkpoint_json(game: Game) -> str:
    """The engine state without its history (the action log holds that), as JSON text."""
    return json.dumps(game.to_data(history=False), separators=(",", ":"))


def checkpoint_state(game: Game) -> dict[str, Any]:
    """The checkpoint as JSON reads it back (what :func:`rebuild` compares)."""
    return json.loads(checkpoint_json(game))
