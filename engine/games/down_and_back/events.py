"""The one wording of Down and Back's events, as parts (see :func:`engine.contract.plain_text`).

Every reader (the text export, a client's log) words an event through
:func:`describe`, so a new event kind or a reworded line changes here only.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...contract import Part, about, describe_table_event


def _text(text: str) -> Part:
    return {"text": text}


def _seat(seat: int | None) -> Part:
    return {"seat": seat}


def _card(card: str) -> Part:
    return {"card": card}


def _chips(chips: int) -> Part:
    return {"chips": chips}


def describe(event: Mapping[str, Any]) -> list[Part] | None:
    """The parts of one event as a reader sees it (a record's ``for_seat`` form); ``None``: no line.

    ``split_in`` has no line: the reveal shows every split together.
    """
    kind, seat = event["kind"], event.get("seat")
    if kind == "round":
        if event["dealer"] is None:  # the first round: its dealer is drawn once the deck is fixed
            return [_text("Antes of "), _chips(event["ante"]), _text(" each: pot "), _chips(event["pot"]),
                    _text("; a draw decides the first dealer")]
        return [_seat(event["dealer"]), *about(event["dealer"], " {deals}, "), _seat(event["cutter"]),
                *about(event["cutter"], " {cuts}; antes of "),
                _chips(event["ante"]), _text(" each: pot "), _chips(event["pot"])]
    if kind == "dealer":
        return [_seat(seat), *about(seat, " {is} drawn to deal first, "), _seat(event["cutter"]),
                *about(event["cutter"], " {cuts}")]
    if kind == "cut":
        return [_seat(seat), *about(seat, f" {{cuts}} at {event['position']}" + (" (random)" if event.get("random") else ""))]
    if kind == "deal":
        return [_seat(seat), *about(seat, " {is} dealt "), {"cards": list(event.get("hand", []))}]
    if kind == "up_card":
        return [_text("Up card "), _card(event["card"]), _text(f", {event['stock']} cards in the stock")]
    if kind == "take_stock":
        card = event.get("card")
        return [_seat(seat), *about(seat, " {takes} "), _card(card) if card else _text("a card"), _text(" from the stock")]
    if kind == "take_discard":
        return [_seat(seat), *about(seat, " {takes} "), _card(event["card"]), _text(" from the discard pile")]
    if kind == "discard":
        return [_seat(seat), *about(seat, " {discards} "), _card(event["card"])]
    if kind == "skip":
        return [_seat(seat), *about(seat, " {skips}")]
    if kind == "call_end":
        return [_seat(seat), *about(seat, f" {{calls}} the end after orbit {event['orbit']}")]
    if kind == "reshuffle":
        return [_text(f"The discard pile is shuffled into a new stock of {event['stock']}")]
    if kind == "showdown":
        return [_text("Showdown")]
    if kind == "reveal":
        return [_seat(seat), _text(": down "), {"cards": list(event["down"])}, _text(f" ({event['down_name']}), back "),
                {"cards": list(event["back"])}, _text(f" ({event['back_name']})")]
    if kind == "result":
        return _result(event)
    if kind == "sit_in":
        return [_seat(seat), *about(seat, " {sits} in with "), _chips(event["chips"]),
                _text(" chips, dealt in from the next round")]
    if kind == "away":
        return [_seat(seat), *about(seat, " {sits} out")]
    if kind == "back":
        return [_seat(seat), *about(seat, " {is} back")]
    if kind == "game_over":
        return [_text(f"Game over: {event['reason']}")]
    return describe_table_event(event)  # the fair deal's events are worded alike in every game


def _result(event: Mapping[str, Any]) -> list[Part]:
    parts: list[Part] = []
    for which, label in (("down", "Going down"), ("back", "Coming back")):
        parts += [_text(f"{label}: "), _seat(event[f"{which}_winner"]), *about(event[f"{which}_winner"], " {wins}")]
        for n, draw in enumerate(event[f"{which}_draws"]):
            parts.append(_text(" after tie-break draws " if n == 0 else "; "))
            for m, drawn in enumerate(draw):
                parts += [_text(", " if m else ""), _seat(drawn["seat"]), _text(" "), _card(drawn["card"])]
        parts.append(_text("; "))
    if event["winner"] is not None:
        parts += [_seat(event["winner"]), *about(event["winner"], " {wins} both and {takes} the pot of "),
                  _chips(event["pot"])]
    else:
        parts += [_text("no one wins both: the pot of "), _chips(event["pot"]), _text(" carries over")]
    return [part for part in parts if part != {"text": ""}]
