"""What one seat may know: the only game data that ever leaves the server.

Information hiding is decided here and nowhere else. A view holds the seat's
own hand and everything public (stacks, pot, dealer, whose turn, the discard
pile and the round's discards, card counts, the public log). Other hands and
the stock order never appear; splits appear only once the showdown reveals
them together.
"""

from __future__ import annotations

from typing import Any

from .rules import PLAY, SHOWDOWN, Game

LOG_LENGTH = 12  # recent public events; clients keep a longer log from the event stream


def legal_summary(game: Game, seat: int, hand: list[str] | None = None) -> list[dict[str, Any]]:
    """The seat's legal actions (:meth:`Game.allowed`) in compact form: a cut range, the discardable cards.

    ``hand`` may pass the seat's hand as text when the caller already has it.
    """
    summary: list[dict[str, Any]] = []
    append = summary.append
    for kind, value in game.allowed(seat).items():
        if value is None:  # take_stock, take_discard, skip, call_end: the kind alone
            append({"kind": kind})
        elif kind == "discard":
            whole_hand = hand is not None and value is game.players[seat].hand
            append({"kind": "discard", "cards": list(hand) if whole_hand else [c.text for c in value]})
        elif kind == "cut":
            append({"kind": "cut", "min": value[0], "max": value[1]})
        else:
            append({"kind": kind})
    return summary


def decision_view(game: Game, seat: int) -> dict[str, Any]:
    """The part of a seat's view a decision needs: cheap enough for bots every turn."""
    hand = [c.text for c in game.players[seat].hand]
    return {
        "seat": seat,
        "phase": game.phase,
        "hand": hand,
        "discard_top": game.discard_pile[-1].text if game.discard_pile else None,
        "legal": legal_summary(game, seat, hand),
    }


def view_for(game: Game, seat: int | None) -> dict[str, Any]:
    """The full view of ``seat``; ``None`` (or a seat not at the table) gets the spectator view."""
    me = game.players.get(seat) if seat is not None else None
    viewer = me.seat if me else None
    view: dict[str, Any] = decision_view(game, viewer) if viewer is not None else {
        "seat": None, "phase": game.phase, "discard_top": game.discard_pile[-1].text if game.discard_pile else None,
        "legal": [],
    }
    before_log, after_log = _public(game)
    view.update(before_log)
    view["log"] = [r.for_seat(viewer) for r in game.round_log[-LOG_LENGTH:]]
    view.update(after_log)
    view["split"] = me.split.to_data() if me is not None and me.split and game.phase == SHOWDOWN else None
    return view


def _public(game: Game) -> tuple[dict[str, Any], dict[str, Any]]:
    """What every seat's view shows alike (before and after the log), made once per state: a table
    sends a view to each member after every action. The game changes only by applying an action,
    which grows its history; the maps are shared by those views, so nobody may change them."""
    cached = getattr(game, "_public_view", None)
    if cached is not None and cached[0] == len(game.history):
        return cached[1]
    public = ({
        "discard_pile": [c.text for c in game.discard_pile],
        "round": game.round_no,
        "dealer": game.dealer,
        "cutter": game.cutter,
        "turn": game.turn_seat,
        "step": game.step if game.phase == PLAY else None,
        "to_act": game.to_act(),
        "settings": game.settings.to_data(),
        "players": [
            {
                "seat": p.seat, "name": p.name, "stack": p.stack, "cards": len(p.hand),
                "in_round": p.in_round, "out": p.out, "away": p.away,
                "turns_taken": p.turns_taken, "contributed": p.contributed,
                "submitted": game.phase == SHOWDOWN and p.split is not None,
            }
            for p in game.players.values()
        ],
        "pot": game.pot,
        "stock_count": len(game.stock),
        "round_discards": [{"seat": s, "card": c.text} for s, c in game.round_discards],
        "called_by": game.called_by,
    }, {
        "showdown": game.showdown,
        "standings": game.standings,
        "fair": game.fair.view(),
    })
    game._public_view = (len(game.history), public)  # type: ignore[attr-defined]
    return public
