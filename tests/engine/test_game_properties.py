"""Every registered game passes the same random simulation (OpenSpiel's random-simulation test is the model).

Whole games are played with random legal actions, random table actions and
every setting, through the :class:`~engine.contract.GameType` alone, so a new
game gets all of this by registering in ``engine.games.GAMES`` (the fixture
game of ``tests/fixture_game.py`` is registered here for each test). After every
action: all cards are accounted for, chips are conserved, no view holds a
card its viewer may not know, views are plain string-keyed data, and
to_data / from_data round-trips; bot and timeout moves are always legal; a
rejected action changes nothing, and ``check`` rejects exactly what ``apply``
does; every event is worded; every round that ends has a plain-data record
and public record; seed plus history replays the game exactly.
"""

from __future__ import annotations

import random
import re
import zlib
from collections import Counter
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings as hsettings, strategies as st

from engine.contract import EndGame, GameType, SetAway, StartRound, Status, plain_text
from engine.errors import EngineError, InvalidAction
from engine.fingerprint import fingerprint
from engine.games import GAMES, find_game
from engine.rng import HashRng
from fixture_game import HIGH_CARD, registered
from plain_data import assert_plain_data, strings_in

GAME_TYPES = list(GAMES.values()) + [HIGH_CARD]
"""Every registered game, and the fixture game (tests/fixture_game.py): the kit's smallest game must pass too."""


@pytest.fixture(autouse=True)
def fixture_game_registered():
    """The fixture game is in ``GAMES`` while each test here runs, and only then."""
    with registered():
        yield


def setting_values(field) -> list:
    """A field's choices, or its edges, default and a short and a long value (short stacks end games)."""
    if field.choices is not None:
        return list(field.choices)
    values = {field.minimum, field.default, field.default * 5, field.default // 20}
    return sorted(v for v in values if field.minimum <= v <= field.maximum)


def game_settings(game_type: GameType) -> st.SearchStrategy:
    return st.fixed_dictionaries({f.name: st.sampled_from(setting_values(f)) for f in game_type.setting_fields})


def every_setting() -> list[tuple[GameType, int, str, Any]]:
    """(game, players, setting, value): every value of every setting, with every number of players."""
    return [
        (game_type, players, field.name, value)
        for game_type in GAME_TYPES
        for players in range(game_type.min_seats, game_type.max_seats + 1)
        for field in game_type.setting_fields
        for value in setting_values(field)
    ]


class Watcher:
    """What each seat (and a spectator, ``None``) has been shown this round, from the records alone."""

    def __init__(self, seats: list[int], card_texts: set[str]) -> None:
        self.seats = seats
        self.card_texts = card_texts
        self.seen: dict[int | None, set[str]] = {}

    def new_round(self) -> None:
        self.seen = {seat: set() for seat in [None, *self.seats]}

    def saw(self, records) -> None:
        for record in records:
            public = strings_in(record.for_seat(None))
            for seat, seen in self.seen.items():
                seen |= strings_in(record.for_seat(seat)) if seat == record.seat else public

    def check_views(self, game) -> None:
        for seat in [None, *self.seats]:
            view = game.view(seat)
            assert_plain_data(view)
            cards = strings_in(view) & self.card_texts
            leaked = cards - self.seen[seat]
            assert not leaked, f"the view of seat {seat} holds cards it was never shown: {sorted(leaked)}"


PART_SHAPES = [{"text"}, {"text", "you", "subject"}, {"seat"}, {"seat", "possessive"}, {"card"}, {"cards"},
               {"chips"}]
# Words that agree with a player: after a player's name they must be the engine's verb parts, so that a
# reader can say "You drew the lowest card, 4♠, and deal first" (not "... and deals first").
THIRD_PERSON = re.compile(r"(?<!table )(?<!it )\b(is|has|was|does|goes|them|their|themselves|[a-z]+[^s\W]s)\b")
NOT_VERBS = {"cards", "points", "chips", "seeds", "settings", "seats", "antes", "stakes", "draws", "turns", "pegs",
             "sides", "hands", "kings", "queens", "jacks", "tens", "nines", "eights", "sevens", "sixes", "fives",
             "fours", "threes", "twos", "aces", "rounds", "items", "orbits", "holes", "his", "heels", "nobs",
             "runs", "pairs", "fifteens", "flushes", "this", "plus", "muggins"}


def check_person(parts: list[dict[str, Any]]) -> None:
    """Between a player's name and the next name, a word in the third person is a verb part about that player."""
    subject = None
    for part in parts:
        if "seat" in part:
            subject = None if part.get("possessive") else part["seat"]
        elif "you" in part:
            assert part["subject"] == subject or subject is None, f"{part} does not agree with seat {subject}"
        elif "text" in part and subject is not None:
            clause = re.split(r"[;:]", part["text"])[0]  # a new clause may be about no one ("; no one wins")
            words = {w for w in THIRD_PERSON.findall(clause) if w not in NOT_VERBS}
            assert not words, f"{sorted(words)} in {part['text']!r} agree with seat {subject} but are plain text"
            if clause != part["text"]:
                subject = None


def check_wording(game_type: GameType, records, seats: list[int]) -> None:
    """Every event, as any reader sees it, is worded by the game in parts a reader can render, each word that
    agrees with a player marked so (the second person is the reader's to choose)."""
    for record in records:
        for viewer in (None, record.seat):
            parts = game_type.describe(record.for_seat(viewer))
            if parts is None:
                continue
            assert parts and all(set(part) in PART_SHAPES for part in parts), parts
            assert plain_text(parts, lambda seat: f"seat {seat}").strip()
            check_person(parts)


def check_state(game_type: GameType, game, deck: Counter, chips: int) -> None:
    assert Counter(map(str, game.all_cards())) == deck, "a card appeared, vanished or was copied"
    assert game.chips_in_play() == chips, "chips were made or lost"
    assert all(stack >= 0 for stack in game.stacks().values())
    data = game.to_data()
    assert_plain_data(data)
    assert game_type.from_data(data).to_data() == data


def check_automatic_moves(game_type: GameType, game, seat: int) -> Any:
    legal = game.legal_actions(seat)
    assert legal, f"seat {seat} is to act with nothing legal"
    bot = game_type.bot_action(game, seat)
    assert bot in legal, f"the bot chose an illegal {bot}"
    timeout = game_type.timeout_action(game, seat)
    assert timeout in legal, f"the timeout move {timeout} is illegal"
    return bot


def check_rejection_changes_nothing(game, seat: int, action: Any) -> None:
    """A seat that is not to act tries the acting seat's move: rejected, and the game unchanged."""
    idle = [s for s in game.stacks() if s not in game.to_act()]
    if not idle:
        return
    before = game.to_data()
    with pytest.raises(EngineError):
        game.apply(idle[0], action)
    assert game.to_data() == before


def check_decision_is_new(decision: tuple[Any, ...], awaited: list[tuple[Any, ...]]) -> None:
    """A decision id never comes back once another was awaited (PROTOCOL.md 5.2): a client that remembers
    the decision it acted on must be able to tell its next one from it (a seat's turn in each orbit included)."""
    if awaited and awaited[-1] == decision:
        return
    assert decision not in awaited, f"decision {decision} awaited again after {awaited[-1]}"
    awaited.append(decision)


def check_round_record(game_type: GameType, game) -> None:
    """A round just ended: the game's record of it and its public part are plain data with the contract's fields."""
    record = game_type.round_record(game)
    assert_plain_data(record)
    assert {"round", "result", "stacks"} <= set(record)
    assert record["stacks"] == {str(seat): chips for seat, chips in game.stacks().items()}
    assert_plain_data(game_type.public_round(record))


def play(game_type: GameType, game, chooser: random.Random, actions: int) -> None:
    """Up to ``actions`` random legal moves, table actions among them, checking everything after each."""
    seats = sorted(game.stacks())
    deck = Counter(map(str, game.all_cards()))
    chips = sum(chips for _, _, chips in game.initial_players)
    watcher = Watcher(seats, set(deck))
    watcher.new_round()
    awaited: list[tuple[Any, ...]] = []  # every decision id the game has awaited, in order
    for _ in range(actions):
        if game.status is Status.OVER:
            break
        roll = chooser.random()
        if roll < 0.03:
            seat, action = None, SetAway(chooser.choice(seats), chooser.random() < 0.5)
        elif roll < 0.035:
            seat, action = None, EndGame()
        elif game.status is Status.BETWEEN_ROUNDS:
            seat, action = None, StartRound()
        else:
            decision = game.decision()
            assert decision is not None and hash(decision) is not None
            seat = chooser.choice(game.to_act())
            bot = check_automatic_moves(game_type, game, seat)
            action = bot if chooser.random() < 0.5 else chooser.choice(game.legal_actions(seat))
            check_rejection_changes_nothing(game, seat, action)
        try:
            game.check(seat, action)
        except EngineError:
            allowed = False
        else:
            allowed = True
        before = game.status
        try:
            records = game.apply(seat, action)
        except EngineError:
            assert seat is None  # a table action the state does not allow (too few players to start)
            assert not allowed, f"check allowed {action} that apply rejected"
            for s in seats:
                game.apply(None, SetAway(s, False))
            continue
        assert allowed, f"check rejected {action} that apply took"
        if isinstance(action, StartRound):
            watcher.new_round()
        if before is Status.PLAYING and game.status is not Status.PLAYING:
            check_round_record(game_type, game)
        watcher.saw(records)
        check_wording(game_type, records, seats)
        if game.status is Status.PLAYING:
            assert game.to_act() and game.decision() is not None and hash(game.turn_id()) is not None
            check_decision_is_new(game.decision(), awaited)
        else:
            assert not game.to_act() and game.decision() is None and game.turn_id() is None
        watcher.check_views(game)
        check_state(game_type, game, deck, chips)
        assert game_type.summary(game).strip()


@pytest.mark.parametrize("game_type", GAME_TYPES, ids=[g.name for g in GAME_TYPES])
def test_every_game_is_registered_under_its_own_name(game_type):
    assert find_game(game_type.name) is game_type
    assert game_type.title and 2 <= game_type.min_seats <= game_type.max_seats
    defaults = game_type.settings()
    assert defaults.to_data() == {f.name: f.default for f in game_type.setting_fields}
    assert game_type.settings(defaults.to_data()) == defaults
    with pytest.raises(KeyError, match="known games"):
        find_game("no-such-game")
    least, most = game_type.buy_in(defaults)
    assert 0 < least <= most
    assert 1 <= game_type.practice_bots <= game_type.max_seats - 1  # a practice table the game can seat
    assert game_type.default_bot_level in game_type.bot_levels


def test_every_game_has_its_own_steady_fingerprint():
    """What a stored game's replay is checked against: the same for the same engine, one per game."""
    prints = [fingerprint(game_type) for game_type in GAME_TYPES]
    assert all(len(p) == 16 and int(p, 16) >= 0 for p in prints) and len(set(prints)) == len(prints)
    fingerprint.cache_clear()
    assert [fingerprint(game_type) for game_type in GAME_TYPES] == prints


@pytest.mark.parametrize("game_type", GAME_TYPES, ids=[g.name for g in GAME_TYPES])
def test_settings_out_of_their_limits_are_rejected(game_type):
    for field in game_type.setting_fields:
        wrong = ["seven", None, 1.5] + ([field.maximum + 1] if field.maximum is not None else [])
        wrong += [field.minimum - 1] if field.minimum is not None else []
        for value in wrong:
            with pytest.raises(InvalidAction):
                game_type.settings({field.name: value})
    with pytest.raises(InvalidAction):
        game_type.settings({"no_such_setting": 1})


@pytest.mark.parametrize("game_type", GAME_TYPES, ids=[g.name for g in GAME_TYPES])
@hsettings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(data=st.data(), seed=st.integers(0, 2**32))
def test_random_play_keeps_every_invariant_and_replays(game_type, data, seed):
    try:
        settings = game_type.settings(data.draw(game_settings(game_type), label="settings"))
    except InvalidAction:
        assume(False)  # e.g. a stack below the ante
    chooser = random.Random(seed)
    count = data.draw(st.integers(game_type.min_seats, game_type.max_seats), label="players")
    seats = sorted(chooser.sample(range(game_type.max_seats), count))
    stacks = data.draw(st.sampled_from([None, "uneven"]), label="stacks")
    players = [(s, f"p{s}", settings.to_data().get("stack", 100) + (7 * s if stacks else 0)) for s in seats]
    game = game_type.new(settings, players, HashRng(seed))
    play(game_type, game, chooser, actions=data.draw(st.integers(1, 400), label="actions"))
    check_replay(game_type, game)


def check_replay(game_type: GameType, game) -> None:
    replayed = game_type.new(game.settings, game.initial_players, HashRng.from_data(game.initial_rng))
    for seat, action in game.history:
        replayed.apply(seat, game_type.action_from_data(action))
    assert replayed.to_data() == game.to_data()


@pytest.mark.parametrize("game_type, players, name, value", every_setting(),
                         ids=[f"{g.name}-{n}p-{name}={value}" for g, n, name, value in every_setting()])
def test_every_setting_with_every_number_of_players(game_type, players, name, value):
    """The random test's settings are drawn; this one plays each value of each setting for sure."""
    try:
        settings = game_type.settings({name: value})
    except InvalidAction:
        pytest.skip(f"{name}={value} needs other settings changed too")
    seed = zlib.crc32(f"{game_type.name} {players} {name} {value}".encode())
    chooser = random.Random(seed)
    game = game_type.new(settings, [(s, f"p{s}", 100 + 7 * s) for s in range(players)], HashRng(seed))
    play(game_type, game, chooser, actions=60)
    check_replay(game_type, game)


@pytest.mark.parametrize("game_type", GAME_TYPES, ids=[g.name for g in GAME_TYPES])
def test_actions_round_trip_through_the_one_schema(game_type):
    game = game_type.new(game_type.settings(), [(0, "a", 1000), (1, "b", 1000)], HashRng(5))
    game.apply(None, StartRound())
    for _ in range(30):
        if game.status is not Status.PLAYING:
            break
        seat = game.to_act()[0]
        for action in game.legal_actions(seat):
            assert game_type.action_from_data(action.to_data()) == action
        game.apply(seat, game_type.bot_action(game, seat))
    for table_action in (StartRound(), EndGame(), SetAway(1, True)):
        assert game_type.action_from_data(table_action.to_data()) == table_action
    for junk in (None, [], {"kind": 3}, {"kind": "no_such_action"}, {"kind": "start_round", "extra": 1}):
        with pytest.raises(InvalidAction):
            game_type.action_from_data(junk)

