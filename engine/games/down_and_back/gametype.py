"""Down and Back as a :class:`~engine.contract.GameType`: the one door the other layers use."""

from __future__ import annotations

from ...rng import bot_rng
from ..base import CardGameType
from .actions import Action
from .bots import baseline_action, timeout_action
from . import events, rounds
from .tables import warm_up
from .rules import Game, Settings
from .views import decision_view


class DownAndBack(CardGameType):
    """Draw and discard for six orbits, then split seven cards into a going-down four
    and a coming-back three; winning both takes the pot of antes, else it carries."""

    GAME = Game
    name = "down-and-back"
    title = "Down and Back"
    bot_levels = ("easy", "normal", "strong")
    default_bot_level = "normal"
    practice_bots = 3
    fair_names = {"deal": "dealt hand", "up_card": "up card", "take_stock": "stock card",
                  "reshuffle": "stock reshuffle", "result": "showdown's tie-break draws", "dealer": "first dealer"}
    EVENTS, ROUNDS = events, rounds

    def bot_action(self, game: Game, seat: int, level: str | None = None) -> Action:
        """``easy``: the timeout's passive play (stock, recommended throw and split); ``normal`` (the default):
        the baseline bot; ``strong``: Monte Carlo (:mod:`.strong`), drawing from :func:`bot_rng`."""
        if level == "strong":
            from .strong import strong_action  # its tables (87 KB of source) only for a table with a strong bot

            return strong_action(game.view(seat), bot_rng(game.initial_rng, len(game.history), seat))
        if level == "easy":
            return timeout_action(decision_view(game, seat))
        return baseline_action(decision_view(game, seat))

    def timeout_action(self, game: Game, seat: int) -> Action:
        return timeout_action(decision_view(game, seat))

    def buy_in(self, settings: Settings) -> tuple[int, int]:
        """A player must cover one ante to play, and brings the starting stack."""
        return settings.ante, settings.stack

    def warm_up(self) -> None:
        """The hand tables and the discard table (about 0.6 s on a 2-core VM); the strong bot's, built from them
        in tens of milliseconds, wait for its first move."""
        warm_up(discard=True)

    def progress(self, game: Game) -> str:
        leader = max(game.players.values(), key=lambda p: (p.stack, -p.seat))
        return f"Round {game.round_no}, pot {game.pot}: {leader.name} leads with {leader.stack}"


DOWN_AND_BACK = DownAndBack()
