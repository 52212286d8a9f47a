"""How a game plays, as a short hash: stored with every game so a restart knows whether its log replays.

The same fingerprint means a game's action log, replayed from its seed,
reaches the same state; a different one (an upgrade changed the RNG, the deal
or the rules) means a running game must continue from its checkpoint. The
hash is of a short game played at the game's most seats from a fixed seed,
each move picked from :meth:`~engine.contract.Game.legal_actions` by a fixed
rule, so it needs nothing from a game but the contract. Bots do not enter
into it (their choices are in the log): a better bot leaves replays alone.
"""

from __future__ import annotations

import functools
import hashlib
import json

from .contract import GameType, StartRound, Status
from .rng import HashRng

ROUNDS = 3  # rounds the fingerprint's game plays (or fewer, if it ends first)
MAX_ACTIONS = 3000  # and never more actions than this, whatever the game


@functools.cache
def fingerprint(game_type: GameType) -> str:
    """The fingerprint of ``game_type`` as this engine plays it (16 hex digits)."""
    settings = game_type.settings()
    stack = game_type.buy_in(settings)[1]
    players = [(seat, f"p{seat}", stack) for seat in range(game_type.max_seats)]
    game = game_type.new(settings, players, HashRng(f"{game_type.name} engine fingerprint".encode()))
    for _ in range(ROUNDS):
        if game.status is not Status.BETWEEN_ROUNDS:
            break
        game.apply(None, StartRound())
        while game.status is Status.PLAYING and len(game.history) < MAX_ACTIONS:
            seat = game.to_act()[0]
            legal = game.legal_actions(seat)
            game.apply(seat, legal[len(game.history) * 7 % len(legal)])  # a fixed spread over the choices
    state = json.dumps(game.to_data(history=False), sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(state.encode()).hexdigest()[:16]
