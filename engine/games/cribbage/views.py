"""What one seat may know of a cribbage table: the only game data that leaves the server.

Information hiding is decided here. A seat sees its own hand and the cards it
laid away; everyone sees the cards played, the count, the starter once turned,
the scores, the stakes and the hands (and then the crib) once counted in the
show. Nobody sees the crib before the show, another player's hand before it is
played or shown, or the pack.
"""

from __future__ import annotations

from typing import Any

from .rules import SHOW, Game

LOG_LENGTH = 12  # recent events; clients keep a longer log from the event stream


def legal_summary(game: Game, seat: int) -> list[dict[str, Any]]:
    """The seat's legal actions (:meth:`Game.allowed`) in compact form: a cut range, the cards to choose from."""
    summary: list[dict[str, Any]] = []
    for kind, allowed in game.allowed(seat).items():
        if kind == "cut":
            summary.append({"kind": "cut", "min": allowed[0], "max": allowed[1]})
        elif kind == "discard":
            summary.append({"kind": "discard", "cards": [c.text for c in allowed[0]], "count": allowed[1]})
        elif kind == "play":
            summary.append({"kind": "play", "cards": [c.text for c in allowed]})
        elif kind == "claim":
            summary.append({"kind": "claim", "min": allowed[0], "max": allowed[1]})
        else:
            summary.append({"kind": "muggins"})
    return summary


def decision_view(game: Game, seat: int | None) -> dict[str, Any]:
    """The part of a view a decision needs (what the bots read): cheap enough for every move."""
    me = game.players.get(seat) if seat is not None else None  # type: ignore[arg-type]
    viewer = me.seat if me is not None else None
    return {
        "seat": viewer,
        "phase": game.phase,
        "players": len(game.players),
        "dealer": game.dealer,
        "hand": [c.text for c in me.hand] if me else [],
        "discards": [c.text for c in me.discards] if me else [],
        "legal": legal_summary(game, viewer) if viewer is not None else [],
        "starter": game.starter.text if game.starter else None,
        "count": game.count,
        "series": [{"seat": s, "card": c.text} for s, c in game.series],
        "played": {str(p.seat): [c.text for c in p.played] for p in game.players.values()},
        "cards_held": {str(p.seat): len(p.hand) for p in game.players.values()},
        "target": game.settings.target,
        "sides": [{"seats": side, "score": game.scores[i], "back": game.backs[i]} for i, side in enumerate(game.sides)],
        "counting": _counting(game),
    }


def _counting(game: Game) -> dict[str, Any] | None:
    """Muggins: the count under way in the show (its cards are face up), or None."""
    if game.phase != SHOW:
        return None
    seat, what = game.counting[0]
    return {"seat": seat, "what": what, "cards": [c.text for c in game.counted_cards()],
            "claimed": game.missed is not None}


def view_for(game: Game, seat: int | None) -> dict[str, Any]:
    """The full view of ``seat``; ``None`` (or a seat not at the table) gets the spectator view."""
    view = decision_view(game, seat)
    view.update({
        "round": game.round_no,
        "game": game.game_no,
        "deal": game.deal_no,
        "in_game": game.in_game,
        "settings": game.settings.to_data(),
        "to_act": game.to_act(),
        "turn": game.turn,
        "cutter": game.cutter,
        "next_dealer": game.next_dealer,
        "draws": [{"seat": s, "card": c.text} for s, c in game.draws],
        "crib": {"owner": game.dealer, "cards": len(game.crib)},
        "said_go": list(game.said_go),
        "stock_count": len(game.deck),
        "seats": [
            {"seat": p.seat, "name": p.name, "stack": p.stack, "staked": p.staked, "away": p.away,
             "side": game.side_of(p.seat)}
            for p in game.players.values()
        ],
        "log": [r.for_seat(view["seat"]) for r in game.round_log[-LOG_LENGTH:]],
        "show": game.show,
        "result": game.result,
        "standings": game.standings,
        "fair": game.fair.view(),
    })
    return view
