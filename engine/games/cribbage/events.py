"""The one wording of Cribbage's events, as parts (see :func:`engine.contract.plain_text`).

Every reader (the text export, a client's log) words an event through
:func:`describe`; the show's items are called by :func:`.scoring.spoken` and
the play's reasons come from :func:`.scoring.play_score`.
"""

from __future__ import annotations

from typing import Any, Mapping

from ...contract import Part, about, describe_table_event, possessive, verb
from .scoring import spoken

SKUNK_WORDS = {1: "", 2: " (skunk: double)", 3: " (double skunk: triple)"}


def _text(text: str) -> Part:
    return {"text": text}


def _seat(seat: int | None) -> Part:
    return {"seat": seat}


def _seats(seats: list[int]) -> list[Part]:
    parts: list[Part] = []
    for i, seat in enumerate(seats):
        parts += ([_text(" and ")] if i else []) + [_seat(seat)]
    return parts


def _score(event: Mapping[str, Any]) -> Part:
    return _text(f" (score {event['score']})")


def _cards(cards: list[str]) -> Part:
    return {"cards": list(cards)}


def describe(event: Mapping[str, Any]) -> list[Part] | None:
    """The parts of one event as a reader sees it (a record's ``for_seat`` form); ``None``: no line."""
    kind, seat = event["kind"], event.get("seat")
    if kind in _WORDING:
        return _WORDING[kind](event, seat)
    return describe_table_event(event)  # the fair deal's events are worded alike in every game


def _new_game(event: Mapping[str, Any], seat: int | None) -> list[Part]:
    parts = [_text(f"Game {event['game']} to {event['target']}: ")]
    for i, stake in enumerate(event["stakes"]):
        parts += ([_text(", ")] if i else []) + [_seat(stake["seat"]), *about(stake["seat"], " {stakes} "),
                                                 {"chips": stake["chips"]}]
    return parts


def _round(event: Mapping[str, Any], seat: int | None) -> list[Part]:
    parts = [_text(f"Deal {event['deal']} of game {event['game']}")]
    if event["dealer"] is None:
        return parts + [_text(": cut for the first deal (the lowest card deals)")]
    return parts + [_text(": "), _seat(event["dealer"]), *about(event["dealer"], " {deals}")]


def _dealt(event: Mapping[str, Any], seat: int | None) -> list[Part]:
    if "hand" in event:
        return [_seat(seat), *about(seat, " {is} dealt "), _cards(event["hand"])]
    return [_seat(seat), *about(seat, f" {{is}} dealt {event['cards']} cards")]


def _discard(event: Mapping[str, Any], seat: int | None) -> list[Part]:
    if "cards" in event:
        return [_seat(seat), *about(seat, " {lays} away "), _cards(event["cards"]), _text(" to the crib")]
    return [_seat(seat), *about(seat, f" {{lays}} {event['count']} card{'s' if event['count'] > 1 else ''} away to the crib")]


def _cut(event: Mapping[str, Any]) -> str:
    """A cut's words (a template for :func:`~engine.contract.about`)."""
    return f" {{cuts}} at {event['position']}" + (" (at random)" if event["random"] else "")


def _play(event: Mapping[str, Any], seat: int | None) -> list[Part]:
    parts = [_seat(seat), *about(seat, " {plays} "), {"card": event["card"]}, _text(f", {event['count']}")]
    if event["points"]:
        parts += [_text(f": {event['reason']}"), _score(event)]
    return parts


def _show(event: Mapping[str, Any], seat: int | None) -> list[Part]:
    return [possessive(seat), _text(f" {event['what']} "), _cards(event["cards"]), _text(" with "),
            {"card": event["starter"]}, _text(f": {spoken(event['items'])}"), _score(event)]


def _claim(event: Mapping[str, Any], seat: int | None) -> list[Part]:
    parts = [_seat(seat), *about(seat, f" {{claims}} {event['claimed']} for the {event['what']} "), _cards(event["cards"]),
             _text(" with "), {"card": event["starter"]}]
    if event["items"] is not None:
        parts.append(_text(f": {spoken(event['items'])}"))
    elif event["points"] < event["claimed"]:
        parts.append(_text(f" (it is worth {event['points']})"))
    return parts + [_score(event)]


def _muggins(event: Mapping[str, Any], seat: int | None) -> list[Part]:
    if event["take"]:
        parts = [_seat(seat), *about(seat, f" {{calls}} muggins and {{takes}} the {event['missed']} missed")]
    else:
        parts = [_seat(seat), *about(seat, f" {{lets}} the {event['missed']} missed go")]
    return parts + [_text(f": {spoken(event['items'])}"), _score(event)]


def _game_won(event: Mapping[str, Any], seat: int | None) -> list[Part]:
    winners = event["winners"]
    target = event.get("target")  # (a game won before it was recorded: the scores as they were)
    shown = [min(s, target) if target else s for s in event["scores"]]  # pegging out is reaching the game hole
    scores = " to ".join(str(s) for s in sorted(shown, reverse=True))
    won = verb(winners[0], "wins") if len(winners) == 1 else _text("win")  # partners: "alice and carol win"
    parts = _seats(winners) + [_text(" "), won, _text(f" game {event['game']}, {scores}")]
    for loss in event["losses"]:
        parts += [_text("; "), _seat(loss["seat"]), *about(loss["seat"], " {pays} "), {"chips": loss["chips"]},
                  _text(SKUNK_WORDS[loss["multiplier"]])]
    return parts


def _game_over(event: Mapping[str, Any], seat: int | None) -> list[Part]:
    parts = [_text(f"The table is over: {event['reason']}")]
    for refund in event["refunds"]:
        parts += [_text("; "), _seat(refund["seat"]), *about(refund["seat"], " {takes} back a stake of "),
                  {"chips": refund["chips"]}]
    return parts


_WORDING = {
    "new_game": _new_game,
    "round": _round,
    "draw": lambda e, s: [_seat(s), *about(s, _cut(e) + " and {draws} "), {"card": e["card"]}],
    "draw_tie": lambda e, s: [_text(f"A tie for the lowest card ({e['rank']}): ")] + _seats(e["seats"])
    + [_text(" draw again")],
    "dealer": lambda e, s: [_seat(s), *about(s, " {drew} the lowest card, "), {"card": e["card"]},
                            *about(s, ", and {deals} first")],
    "cut": lambda e, s: [_seat(s), *about(s, _cut(e) + " before the deal")],
    "deal": _dealt,
    "crib_card": lambda e, s: [_text("One card from the pack goes to the crib")],
    "discard": _discard,
    "starter": lambda e, s: [_seat(s), *about(s, _cut(e) + ": the starter is "), {"card": e["card"]}],
    "heels": lambda e, s: [_seat(s), *about(s, f" {{pegs}} {e['reason']}"), _score(e)],
    "play": _play,
    "go": lambda e, s: [_seat(s), *about(s, " {says} go")],
    "go_point": lambda e, s: [_seat(s), *about(s, f" {{pegs}} {e['reason']}"), _score(e)],
    "reset": lambda e, s: [_text("The count starts again at zero; "), _seat(s), *about(s, " {leads}")],
    "show": _show,
    "crib_up": lambda e, s: [_text("The crib is turned up: "), _cards(e["cards"])],
    "claim": _claim,
    "muggins": _muggins,
    "game_won": _game_won,
    "away": lambda e, s: [_seat(s), *about(s, " {is} away (the table plays for {them})")],
    "back": lambda e, s: [_seat(s), *about(s, " {is} back")],
    "game_over": _game_over,
}
