"""ev-keys' checks of the evening (issue 27 items 2 and 18), registered with ``evening_helpers.at``: a model
for yours (one ``evening_checks_<name>.py`` a helper, so no two edit the same lines)."""

from __future__ import annotations

from evening_helpers import STEPS, Evening, at


@at(*STEPS)
def no_client_has_crashed(evening: Evening) -> None:
    """At every step both clients run and neither shows a traceback."""
    for player in evening.players:
        assert player.proc.poll() is None, player.dump()
        assert "Traceback" not in player.text(), player.dump()


@at("playing", "result", "rematch")
def the_footer_offers_chat(evening: Evening) -> None:
    """At a table, whatever is up (a decision, the round's result), c chats: the footer says so."""
    for player in (evening.who,) if evening.who is not None else evening.players:
        player.wait_for(lambda text: "c Chat" in text.splitlines()[-1])
