"""Cribbage as a :class:`~engine.contract.GameType`: the one door the other layers use."""

from __future__ import annotations

from ..base import CardGameType, plural
from .actions import Action
from .bots import baseline_action, strong_action, timeout_action
from . import events, rounds
from .scoring import RANK_POINTS
from .rules import Game, Settings
from .views import decision_view


class Cribbage(CardGameType):
    """Pegging to 31 and counting the hands with a crib and a starter, to 121 (or 61) for a stake."""

    GAME = Game
    name = "cribbage"
    title = "Cribbage"
    bot_levels = ("normal", "strong")
    default_bot_level = "strong"
    practice_bots = 1
    fair_names = {"draw": "draw for the deal", "deal": "dealt hand", "crib_card": "crib card",
                  "starter": "starter", "show": "show", "crib_up": "crib"}
    EVENTS, ROUNDS = events, rounds

    def bot_action(self, game: Game, seat: int, level: str | None = None) -> Action:
        """``normal``: the baseline bot; ``strong`` (the default): expected points (:mod:`.bots`)."""
        bot = baseline_action if level == "normal" else strong_action
        return bot(decision_view(game, seat))

    def timeout_action(self, game: Game, seat: int) -> Action:
        return timeout_action(decision_view(game, seat))

    def buy_in(self, settings: Settings) -> tuple[int, int]:
        """One stake to play; three stakes brought, the most a game can cost (a double skunk)."""
        return settings.stake, 3 * settings.stake

    def warm_up(self) -> None:
        """The show's rank table (about a third of a second)."""
        RANK_POINTS.build()

    def ended(self, game: Game) -> str:
        return f"Over after {plural(game.game_no, 'game')}"

    def progress(self, game: Game) -> str:
        names = [" & ".join(game.players[s].name for s in side) for side in game.sides]
        target = game.settings.target  # a side that pegged out is at the game hole, however many it scored
        scores = ", ".join(f"{name} {min(score, target)}" for name, score in zip(names, game.scores))
        if not game.in_game and game.result is not None:
            return f"Game {game.game_no} won: {scores}"
        return f"Game {game.game_no}, deal {game.deal_no}: {scores}"


CRIBBAGE = Cribbage()
