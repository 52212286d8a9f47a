"""Cribbage as a :class:`~engine.contract.GameType`: the one door the other layers use."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...contract import Part, SettingField
from ...rng import HashRng
from .actions import Action, action_from_data
from .bots import baseline_action, strong_action, timeout_action
from .events import describe
from .rounds import public_round, round_outcome, round_record
from .scoring import RANK_POINTS
from .rules import MAX_PLAYERS, MIN_PLAYERS, OVER, SETTING_FIELDS, Game, Settings
from .views import decision_view


BOT_LEVELS = ("normal", "strong")


class Cribbage:
    """Pegging to 31 and counting the hands with a crib and a starter, to 121 (or 61) for a stake."""

    name = "cribbage"
    title = "Cribbage"
    min_seats = MIN_PLAYERS
    max_seats = MAX_PLAYERS
    setting_fields: tuple[SettingField, ...] = SETTING_FIELDS
    fair_names = {"draw": "draw for the deal", "deal": "dealt hand", "crib_card": "crib card",
                  "starter": "starter", "show": "show", "crib_up": "crib"}

    def settings(self, data: Mapping[str, Any] | None = None) -> Settings:
        return Settings.from_data(dict(data or {}))

    def new(self, settings: Settings, players: Sequence[tuple[int, str, int]], rng: HashRng) -> Game:
        return Game(settings, players, rng)

    def from_data(self, data: Mapping[str, Any]) -> Game:
        return Game.from_data(dict(data))

    def action_from_data(self, data: object) -> Action:
        return action_from_data(data)

    def bot_action(self, game: Game, seat: int, level: str | None = None) -> Action:
        """``normal``: the baseline bot; ``strong`` (the default): expected points (:mod:`.bots`)."""
        bot = baseline_action if level == "normal" else strong_action
        return bot(decision_view(game, seat))

    bot_levels = BOT_LEVELS
    default_bot_level = "strong"

    def timeout_action(self, game: Game, seat: int) -> Action:
        return timeout_action(decision_view(game, seat))

    def buy_in(self, settings: Settings) -> tuple[int, int]:
        """One stake to play; three stakes brought, the most a game can cost (a double skunk)."""
        return settings.stake, 3 * settings.stake

    def round_record(self, game: Game) -> dict[str, Any]:
        return round_record(game)

    def public_round(self, record: Mapping[str, Any]) -> dict[str, Any]:
        return public_round(record)

    def round_outcome(self, public: Mapping[str, Any], seat: int) -> str:
        return round_outcome(public, seat)

    def describe(self, event: Mapping[str, Any]) -> list[Part] | None:
        return describe(event)

    def warm_up(self) -> None:
        """The show's rank table (about a third of a second)."""
        RANK_POINTS.build()

    def summary(self, game: Game) -> str:
        if game.phase == OVER and game.standings:
            best = game.standings[0]
            return f"Over after {_games(game.game_no)}: {best['name']} finished with {best['stack']}"
        if game.round_no == 0:
            return "Not started"
        names = [" & ".join(game.players[s].name for s in side) for side in game.sides]
        target = game.settings.target  # a side that pegged out is at the game hole, however many it scored
        scores = ", ".join(f"{name} {min(score, target)}" for name, score in zip(names, game.scores))
        if not game.in_game and game.result is not None:
            return f"Game {game.game_no} won: {scores}"
        return f"Game {game.game_no}, deal {game.deal_no}: {scores}"


def _games(n: int) -> str:
    return f"{n} game" if n == 1 else f"{n} games"


CRIBBAGE = Cribbage()
