"""Down and Back's round records: a finished round in full, and what every player may see of it.

The table asks for :func:`round_record` when a round ends (a showdown, or the
game ending mid-round, when the antes are paid back); the store keeps it, and
:func:`public_round` is the ``history`` item built from it (PROTOCOL.md's
round record).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    from .rules import Game


def round_record(game: "Game") -> dict[str, Any]:
    """The round that has just ended: deal, every record, splits and result (``None``: abandoned)."""
    log = [r.to_data() for r in game.round_log]
    result = next((r["public"] for r in log if r["kind"] == "result"), None)
    if result is not None:
        pot = result["pot"]
    else:  # the game ended before the showdown: the pot is the antes paid back
        pot = sum(refund["chips"] for r in log if r["kind"] == "game_over" for refund in r["public"]["refunds"])
    return {
        "round": game.round_no, "dealer": game.dealer, "cutter": game.cutter,
        "seats": list(game.order), "names": {str(s): p.name for s, p in game.players.items()},
        "log": log, "result": dict(result) if result is not None else None, "pot": pot,
        "stacks": {str(s): p.stack for s, p in game.players.items()},
        "fair": game.fair.revealed,  # the deal_reveal's data (None: a round dealt before fair deals)
    }


def public_round(record: Mapping[str, Any]) -> dict[str, Any]:
    """What a player may see of a finished round: hands stay hidden except the splits the showdown
    revealed. ``abandoned`` rounds ended before a showdown."""
    result = record["result"]
    reveal = {r["seat"]: r for r in (result or {}).get("reveal", [])}
    players = []
    for seat in record["seats"]:
        shown = reveal.get(seat, {})
        players.append({
            "seat": seat, "name": record["names"][str(seat)],
            "down": shown.get("down"), "back": shown.get("back"),
            "down_hand": shown.get("down_name"), "back_hand": shown.get("back_name"),
            "stack": record["stacks"][str(seat)],
        })
    public: dict[str, Any] = {
        "round": record["round"], "dealer": record["dealer"], "pot": record["pot"],
        "players": players, "stacks": record["stacks"], "abandoned": result is None,
        "down_winner": None, "back_winner": None, "tie_breaks": None, "winner": None, "carried": 0,
    }
    if result is not None:
        public.update({
            "down_winner": result["down_winner"], "back_winner": result["back_winner"],
            "tie_breaks": {"down": result["down_draws"], "back": result["back_draws"]},
            "winner": result["winner"], "carried": result["carried"],
        })
    return public


def round_outcome(public: Mapping[str, Any], seat: int) -> str:
    """How the round went for ``seat`` (dealt in), in a few words: a history line's result."""
    if public["abandoned"]:
        return "abandoned: antes back"
    if public["winner"] == seat:
        return f"won the pot of {public['pot']}"
    if public["winner"] is None:
        won = [name for name, who in (("down", public["down_winner"]), ("back", public["back_winner"])) if who == seat]
        return f"won {won[0]}, pot carries" if won else "lost, pot carries"
    return "lost"
