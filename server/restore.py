"""Bringing a stored table back after a restart, and the checkpoints that make it checkable.

Every engine action is in the store's action log, and before each commit the
lobby stores a checkpoint of the whole engine state. A restart replays the
log from the game's seed and checks the result against the checkpoint (or,
if the engine has changed since the game began, continues from the
checkpoint alone); deadlines then start afresh, so nobody loses a turn to
downtime.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
from typing import TYPE_CHECKING, Any

from engine.contract import StartRound
from engine.errors import EngineError
from engine.games.down_and_back.actions import Action, Cut, Discard, Split, TakeDiscard, TakeStock
from engine.games.down_and_back.rules import CUT, DRAW, OVER, SHOWDOWN, WAITING, Game, Settings
from engine.rng import HashRng

from .history import public_round
from .store import StoreError, TableRow

if TYPE_CHECKING:
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
    if row.checkpoint is None or len(row.actions) != row.snapshot["actions"]:
        raise StoreError(f"table {row.table_id}: {len(row.actions)} actions stored, checkpoint after "
                         f"{row.snapshot['actions']}")
    if row.engine == engine_fingerprint():
        _replay(table, row)
    else:
        _from_checkpoint(table, row)
    game_seats = set(table.game.players)  # type: ignore[union-attr]
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
        table.rounds.chip_history = [table.stacks()]
        for seat, data in row.actions:
            table.rounds.note(game.apply(seat, game_type.action_from_data(data)), live=False)
    except (EngineError, KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"table {table.table_id}: the stored action log does not replay ({exc})") from None
    if checkpoint_state(game) != row.checkpoint:
        raise StoreError(f"table {table.table_id}: replaying the action log does not reach the stored checkpoint "
                         f"(after {len(row.actions)} actions); the database was damaged or edited")


def _from_checkpoint(table: "Table", row: TableRow) -> None:
    """After an engine upgrade: the game continues from its last checkpoint, exactly as it stood.

    The new engine may draw differently from the same seed, so the log no
    longer replays; the checkpoint holds the shuffled stock and every hand,
    so nothing already dealt or shown changes.
    """
    assert row.checkpoint is not None
    if row.engine is not None:
        log.warning("table %s was started by another engine version (%s, now %s): restoring it from its checkpoint",
                    table.table_id, row.engine, engine_fingerprint())
    try:
        table.game = Game.from_data(dict(row.checkpoint, history=[list(a) for a in row.actions]))
    except (EngineError, KeyError, TypeError, ValueError) as exc:
        raise StoreError(f"table {table.table_id}: this engine cannot read the stored checkpoint ({exc}); "
                         "run the dab-server version that started the game") from None
    rounds = table.rounds
    starts = [i for i, (_, a) in enumerate(row.actions) if a.get("kind") == "start_round"]
    rounds.round_first_seq = starts[-1] if starts else 0
    assert table.store is not None and row.initial_players is not None
    stored = table.store.rounds(table.table_id, 1 << 30)
    rounds.history.extend(public_round(r) for r in stored)
    rounds.chip_history = [{seat: stack for seat, _, stack in row.initial_players}]
    rounds.chip_history += [{int(s): v for s, v in r["stacks"].items()} for r in stored if r["result"]]
    if table.game.phase == OVER:
        rounds.chip_history.append(table.stacks())
    if row.engine is not None:
        table.store.set_engine(table.table_id, None)  # from now on only checkpoints restore it


def save_checkpoint(table: "Table") -> None:
    """Store the whole engine state of ``table`` (the lobby calls it just before it commits)."""
    game = table.game
    if table.store is not None and game is not None:
        table.store.checkpoint(
            table.table_id, checkpoint_json(game), len(game.history), game.round_no, game.phase, game.pot,
            table.stacks(),
        )


def checkpoint_json(game: Game) -> str:
    """The engine state without its history (the action log holds that), as JSON text."""
    return json.dumps(game.to_data(history=False), separators=(",", ":"))


def checkpoint_state(game: Game) -> dict[str, Any]:
    """The checkpoint as JSON reads it back (what :func:`rebuild` compares)."""
    return json.loads(checkpoint_json(game))


@functools.cache
def engine_fingerprint() -> str:
    """How this engine plays: a hash of a fixed scripted 5-player game from a fixed seed.

    Stored with each game. The same fingerprint means the action log replays
    to the same state; a different one (an upgrade changed the RNG, the deal or
    the rules) means a running game must be restored from its checkpoint. Bots
    do not enter into it: their choices are in the log.
    """
    game = Game(Settings(), [(s, f"p{s}") for s in range(5)], HashRng(b"down-and-back engine fingerprint"))
    for _ in range(3):
        game.apply(None, StartRound())
        while game.phase not in (WAITING, OVER):
            seat = game.to_act()[0]
            hand = game.players[seat].hand
            if game.phase == CUT:
                action: Action = Cut(None)
            elif game.phase == SHOWDOWN:
                action = Split(tuple(hand[:4]), tuple(hand[4:]))
            elif game.step == DRAW:
                action = TakeDiscard() if len(game.history) % 5 == 0 else TakeStock()
            else:
                action = Discard(hand[len(game.history) % len(hand)])
            game.apply(seat, action)
    return hashlib.sha256(json.dumps(checkpoint_state(game), sort_keys=True).encode()).hexdigest()[:16]
