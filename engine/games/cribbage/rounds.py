"""Cribbage's round records: a finished deal in full, and what every player may see of it.

A round is one deal. It ends after the show, when a side reaches the target
(the stakes are settled), or when the table ends the game mid-deal (``result``
``None``: the stakes go back). Everything in the public part was shown to
every player during the deal (the show lays every hand and the crib face up);
cards laid away to a crib a deal cut short are not in it. They are not secret
once the deal is over, though: its ``fair`` (the ``deal_reveal``'s data) lets
anyone compute every card of the deal, that crib's included (FAIRNESS.md §1).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Mapping

if TYPE_CHECKING:
    from .rules import Game


def round_record(game: "Game") -> dict[str, Any]:
    """The deal that has just ended: its records, the scores, and the game's settlement if it was won."""
    log = [r.to_data() for r in game.round_log]
    kinds = {r["kind"] for r in log}
    abandoned = "game_over" in kinds and "game_won" not in kinds
    won = next((r["public"] for r in log if r["kind"] == "game_won"), None)
    return {
        "round": game.round_no, "game": game.game_no, "deal": game.deal_no, "dealer": game.dealer,
        "seats": game.seats, "names": {str(s): p.name for s, p in game.players.items()},
        "log": log,
        "result": None if abandoned else {"scores": list(game.scores), "show": list(game.show), "won": won},
        "pot": sum(p.staked for p in game.players.values()),  # chips still at risk in the cribbage game
        "stacks": {str(s): p.stack for s, p in game.players.items()},
        "fair": game.fair.revealed,  # the deal_reveal's data (None: a deal dealt before fair deals)
    }


def public_round(record: Mapping[str, Any]) -> dict[str, Any]:
    """What a player may see of a finished deal: the show, the scores and any settlement."""
    result = record["result"]
    return {
        "round": record["round"], "game": record["game"], "deal": record["deal"], "dealer": record["dealer"],
        "players": [{"seat": s, "name": record["names"][str(s)], "stack": record["stacks"][str(s)]}
                    for s in record["seats"]],
        "stacks": record["stacks"], "pot": record["pot"], "abandoned": result is None,
        "scores": result["scores"] if result else None, "show": result["show"] if result else [],
        "won": result["won"] if result else None,
    }


def round_outcome(public: Mapping[str, Any], seat: int) -> str:
    """How the deal went for ``seat``, in a few words: a history line's result."""
    if public["abandoned"]:
        return "abandoned: stakes back"
    won = public["won"]
    if won is not None:
        verb = "won" if seat in won["winners"] else "lost"
        target = won.get("target")  # a game won before targets were recorded: its scores as they were
        scores = [min(s, target) if target else s for s in won["scores"]]
        return f"{verb} game {won['game']} ({'-'.join(map(str, scores))})"
    return f"game {public['game']}, deal {public['deal']}: {'-'.join(map(str, public['scores']))}"
