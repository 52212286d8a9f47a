"""Down and Back as a :class:`~engine.contract.GameType`: the one door the other layers use."""

from __future__ import annotations

from typing import Any, Mapping, Sequence

from ...contract import Part, SettingField
from ...rng import HashRng, bot_rng
from .actions import Action, action_from_data
from .bots import baseline_action, timeout_action
from .events import describe
from .rounds import public_round, round_outcome, round_record
from .tables import warm_up
from .rules import MAX_PLAYERS, MIN_PLAYERS, OVER, SETTING_FIELDS, Game, Settings
from .views import decision_view


BOT_LEVELS = ("easy", "normal", "strong")


class DownAndBack:
    """Draw and discard for six orbits, then split seven cards into a going-down four
    and a coming-back three; winning both takes the pot of antes, else it carries."""

    name = "down-and-back"
    title = "Down and Back"
    min_seats = MIN_PLAYERS
    max_seats = MAX_PLAYERS
    setting_fields: tuple[SettingField, ...] = SETTING_FIELDS
    fair_names = {"deal": "dealt hand", "up_card": "up card", "take_stock": "stock card",
                  "reshuffle": "stock reshuffle", "result": "showdown's tie-break draws", "dealer": "first dealer"}

    def settings(self, data: Mapping[str, Any] | None = None) -> Settings:
        return Settings.from_data(dict(data or {}))

    def new(self, settings: Settings, players: Sequence[tuple[int, str, int]], rng: HashRng) -> Game:
        return Game(settings, players, rng)

    def from_data(self, data: Mapping[str, Any]) -> Game:
        return Game.from_data(dict(data))

    def action_from_data(self, data: object) -> Action:
        return action_from_data(data)

    bot_levels = BOT_LEVELS
    default_bot_level = "normal"

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

    def round_record(self, game: Game) -> dict[str, Any]:
        return round_record(game)

    def public_round(self, record: Mapping[str, Any]) -> dict[str, Any]:
        return public_round(record)

    def round_outcome(self, public: Mapping[str, Any], seat: int) -> str:
        return round_outcome(public, seat)

    def describe(self, event: Mapping[str, Any]) -> list[Part] | None:
        return describe(event)

    def warm_up(self) -> None:
        """The hand tables and the discard table (about 0.6 s on a 2-core VM); the strong bot's, built from them
        in tens of milliseconds, wait for its first move."""
        warm_up(discard=True)

    def summary(self, game: Game) -> str:
        if game.phase == OVER and game.standings:
            best = game.standings[0]
            return f"Game over after {_rounds(game.round_no)}: {best['name']} finished with {best['stack']}"
        if game.round_no == 0:
            return "Not started"
        leader = max(game.players.values(), key=lambda p: (p.stack, -p.seat))
        return f"Round {game.round_no}, pot {game.pot}: {leader.name} leads with {leader.stack}"


def _rounds(n: int) -> str:
    return f"{n} round" if n == 1 else f"{n} rounds"


DOWN_AND_BACK = DownAndBack()
