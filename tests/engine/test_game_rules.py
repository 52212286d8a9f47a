"""Scripted rounds: each rule of play, and every kind of illegal action."""

from __future__ import annotations

import pytest

from engine.games.down_and_back.actions import (
    CallEnd, Cut, Discard, EndGame, SetAway, Skip, Split, StartRound, TakeDiscard, TakeStock,
    action_from_data,
)
from engine.cards import Card, parse_cards
from engine.errors import IllegalAction, InvalidAction, NotYourTurn
from engine.games.down_and_back.rules import CUT, OVER, PLAY, SHOWDOWN, Game, Settings
from engine.fairness import DealStream
from engine.rng import HashRng


def new_game(players=3, seed=7, **settings) -> Game:
    return Game(Settings(**settings), [(s, f"p{s}") for s in range(players)], HashRng(seed))


def to_play(game: Game, position: int | None = 10) -> None:
    game.apply(None, StartRound())
    game.apply(game.cutter, Cut(position))


def play_turn(game: Game, take=TakeStock) -> None:
    seat = game.turn_seat
    game.apply(seat, take())
    allowed = [a for a in game.legal_actions(seat) if isinstance(a, Discard)]
    game.apply(seat, allowed[0])


def to_showdown(game: Game) -> None:
    to_play(game)
    while game.phase == PLAY:
        play_turn(game)


def rig(game: Game, hands: dict[int, str], stock_top: str = "") -> None:
    """Give seats chosen hands and put chosen cards on top of the stock (top last)."""
    wanted = {seat: parse_cards(text) for seat, text in hands.items()}
    top = parse_cards(stock_top)
    chosen = {c for cards in wanted.values() for c in cards} | set(top)
    rest = [c for c in game.all_cards() if c not in chosen]
    for seat, player in game.players.items():
        size = len(player.hand)
        if seat in wanted:
            player.hand = list(wanted[seat])
        else:
            player.hand, rest = rest[:size], rest[size:]
    pile_size = len(game.discard_pile)
    game.discard_pile, rest = rest[:pile_size], rest[pile_size:]
    game.stock = rest + top
    game.deck, game.tiebreak_cards = [], []
    assert len(game.all_cards()) == 52


def test_round_setup_follows_the_rules():
    game = new_game(players=4)
    records = game.apply(None, StartRound())
    assert game.phase == CUT and game.pot == 40
    assert all(p.stack == 990 for p in game.players.values())
    dealer = game.dealer
    assert game.cutter == (dealer - 1) % 4, "the player to the dealer's right cuts"
    assert records[0].public["dealer"] is None  # the first dealer is drawn once the deck is fixed
    assert [r.kind for r in records] == ["round", "deal_commit", "seed_set", "deck_fixed", "dealer"]
    assert records[-1].seat == dealer and records[-1].public == {"cutter": game.cutter, "seats": game.order}
    stream = DealStream(game.fair.seed, game.fair.context, {})
    assert dealer == stream.randbelow(4), "the stream's first draw picks the first dealer"
    shuffled = list(game.deck)  # the cut shuffles it from the committed seed first (engine.fairness)
    stream.shuffle(shuffled)
    game.apply(game.cutter, Cut(10))
    cut = shuffled[10:] + shuffled[:10]
    left = (dealer + 1) % 4
    assert game.players[left].hand[0] == cut[0], "dealing starts left of the dealer"
    assert game.players[(dealer + 2) % 4].hand[0] == cut[1]
    assert game.players[dealer].hand[0] == cut[3]
    assert game.players[left].hand[1] == cut[4]
    assert game.discard_pile == [cut[28]], "the next card is turned up"
    assert game.stock[-1] == cut[29] and len(game.stock) == 52 - 28 - 1
    assert game.turn_seat == left and game.order[-1] == dealer


def test_first_dealer_is_random_then_passes_left():
    dealers = {new_game(players=5, seed=s).apply(None, StartRound())[-1].seat for s in range(40)}
    assert dealers == set(range(5))
    game = new_game(players=3, seed=1)
    to_showdown(game)
    first = game.dealer
    for seat in game.to_act():
        game.apply(seat, game.legal_actions(seat)[0])
    game.apply(None, StartRound())
    assert game.dealer == (first + 1) % 3


def test_dealer_skips_players_who_are_away_or_out():
    game = new_game(players=4, seed=3)
    game.apply(None, StartRound())
    dealer = game.dealer
    game.apply(None, SetAway((dealer + 1) % 4, True))
    game.apply(game.cutter, Cut(None))
    while game.phase == PLAY:
        play_turn(game)
    for seat in game.to_act():
        game.apply(seat, game.legal_actions(seat)[0])
    game.apply(None, StartRound())
    assert game.dealer == (dealer + 2) % 4
    assert (dealer + 1) % 4 not in game.order
    assert not game.players[(dealer + 1) % 4].in_round


def test_take_discard_and_discard_are_public_and_taking_stock_is_private():
    game = new_game()
    to_play(game)
    seat, top = game.turn_seat, game.discard_pile[-1]
    (record,) = game.apply(seat, TakeDiscard())
    assert record.for_seat(None) == {"kind": "take_discard", "seat": seat, "card": str(top)}
    records = game.apply(seat, Discard(top))
    assert records[0].public == {"card": str(top)}, "any card may be discarded, even the one just taken"
    seat = game.turn_seat
    drawn = game.stock[-1]
    (record,) = game.apply(seat, TakeStock())
    assert record.for_seat(None) == {"kind": "take_stock", "seat": seat}
    assert record.for_seat(seat)["card"] == str(drawn)


def test_six_turns_each_dealer_last_then_showdown():
    game = new_game(players=3)
    to_play(game)
    turns = []
    while game.phase == PLAY:
        turns.append(game.turn_seat)
        play_turn(game)
    assert len(turns) == 18 and turns[-1] == game.dealer
    assert turns == game.order * 6
    assert game.phase == SHOWDOWN and sorted(game.to_act()) == [0, 1, 2]


def test_seven_turns_variant():
    game = new_game(players=2, turns=7)
    to_showdown(game)
    assert all(p.turns_taken == 7 for p in game.players.values())


def test_stock_is_rebuilt_from_the_discard_pile_when_it_runs_out():
    game = new_game(players=5, turns=7)
    to_play(game)
    reshuffles = []
    while game.phase == PLAY:
        seat = game.turn_seat
        game.apply(seat, TakeStock())
        allowed = [a for a in game.legal_actions(seat) if isinstance(a, Discard)]
        top_before = allowed[0].card
        records = game.apply(seat, allowed[0])
        if any(r.kind == "reshuffle" for r in records):
            reshuffles.append(top_before)
            assert game.discard_pile == [top_before], "the top card stays face up"
            assert len(game.stock) == 52 - 35 - 1
        assert game.stock, "the stock is never left empty at the end of a turn"
    assert reshuffles


def test_showdown_ties_are_broken_by_face_up_draws():
    game = new_game(players=2, seed=11)
    to_showdown(game)
    first, second = game.order
    # Equal bouncers to the king in both hands; the draws decide.
    rig(game, {first: "10S JS QS KS JH QH KH", second: "10D JD QD KD JC QC KC"}, stock_top="5C 9D 2H 2S")
    pot = game.pot
    game.apply(first, Split(tuple(parse_cards("10S JS QS KS")), tuple(parse_cards("JH QH KH"))))
    game.apply(second, Split(tuple(parse_cards("10D JD QD KD")), tuple(parse_cards("JC QC KC"))))
    result = game.showdown
    # Going-down tie: 2S (first) vs 2H (second) tie again, then 9D (first) beats 5C.
    assert result["down_draws"] == [
        [{"seat": first, "card": "2S"}, {"seat": second, "card": "2H"}],
        [{"seat": first, "card": "9D"}, {"seat": second, "card": "5C"}],
    ]
    assert result["down_winner"] == first
    assert len(result["back_draws"]) >= 1
    if result["back_winner"] == first:
        assert result["winner"] == first and game.pot == 0
    else:
        assert result["winner"] is None and game.pot == pot
    assert len(game.all_cards()) == 52


def test_winning_both_takes_the_pot_otherwise_it_carries():
    game = new_game(players=2, seed=5)
    to_showdown(game)
    a, b = game.order
    rig(game, {a: "KS KH KD KC QS QH QD", b: "2S 3H 5D 7C 9S JH 4D"})
    game.apply(a, Split(tuple(parse_cards("KS KH KD KC")), tuple(parse_cards("QS QH QD"))))
    game.apply(b, Split(tuple(parse_cards("2S 3H 5D 7C")), tuple(parse_cards("9S JH 4D"))))
    assert game.showdown["winner"] == a
    assert game.players[a].stack == 1010 and game.players[b].stack == 990 and game.pot == 0
    winner, loser = a, b
    game.apply(None, StartRound())
    game.apply(game.cutter, Cut(None))
    while game.phase == PLAY:
        play_turn(game)
    a, b = game.order
    rig(game, {a: "KS KH KD KC 2S 3H 5D", b: "2C 4H 6D 8C QS QH QD"})
    game.apply(a, Split(tuple(parse_cards("KS KH KD KC")), tuple(parse_cards("2S 3H 5D"))))
    game.apply(b, Split(tuple(parse_cards("2C 4H 6D 8C")), tuple(parse_cards("QS QH QD"))))
    assert game.showdown["winner"] is None and game.showdown["carried"] == 20
    assert game.pot == 20
    game.apply(None, EndGame())
    assert game.phase == OVER and game.pot == 0
    assert sum(p.stack for p in game.players.values()) == 2000
    assert game.players[winner].stack == 1010 and game.players[loser].stack == 990, "the pot is paid back"


def test_players_who_cannot_pay_are_out_and_the_game_ends():
    game = Game(Settings(ante=10, stack=10), [(0, "a"), (1, "b"), (2, "c")], HashRng(2))
    to_showdown(game)
    order = list(game.order)
    rig(game, {order[0]: "KS KH KD KC QS QH QD"})
    for seat in order:
        game.apply(seat, game.legal_actions(seat)[0] if seat != order[0] else
                   Split(tuple(parse_cards("KS KH KD KC")), tuple(parse_cards("QS QH QD"))))
    assert game.phase == OVER, "fewer than two players can pay the ante"
    assert game.standings[0]["seat"] == order[0] and game.standings[0]["stack"] == 30


def test_early_call_ends_drawing_after_the_dealers_turn_of_that_orbit():
    game = new_game(players=3, early_call=True)
    to_play(game)
    for _ in range(4):
        play_turn(game)
    seat = game.turn_seat
    assert CallEnd() in game.legal_actions(seat)
    game.apply(seat, CallEnd())
    assert CallEnd() not in game.legal_actions(seat)
    while game.phase == PLAY:
        play_turn(game)
    assert [game.players[s].turns_taken for s in game.order] == [2, 2, 2]


def test_no_take_back_variant():
    game = new_game(no_take_back=True)
    to_play(game)
    seat, top = game.turn_seat, game.discard_pile[-1]
    assert Skip() in game.legal_actions(seat)
    game.apply(seat, TakeDiscard())
    before = game.to_data()
    with pytest.raises(IllegalAction, match="no take-back"):
        game.apply(seat, Discard(top))
    assert game.to_data() == before
    assert Discard(top) not in game.legal_actions(seat)
    game.apply(seat, game.legal_actions(seat)[0])
    seat = game.turn_seat
    hand = list(game.players[seat].hand)
    game.apply(seat, Skip())
    assert game.turn_seat != seat and game.players[seat].hand == hand and game.players[seat].turns_taken == 1


ILLEGAL = [
    # (how far to play, seat chooser, action, error type, message fragment)
    ("waiting", lambda g: 0, TakeStock(), NotYourTurn, "not to act"),
    ("waiting", lambda g: None, TakeStock(), IllegalAction, "no player at seat None"),
    ("waiting", lambda g: 0, StartRound(), IllegalAction, "only the table"),
    ("cut", lambda g: g.cutter, TakeStock(), IllegalAction, "cut first"),
    ("cut", lambda g: g.cutter, Cut(3), IllegalAction, "4 to 48"),
    ("cut", lambda g: g.cutter, Cut(49), IllegalAction, "4 to 48"),
    ("cut", lambda g: g.dealer, Cut(10), NotYourTurn, "not to act"),
    ("cut", lambda g: None, StartRound(), IllegalAction, "already in progress"),
    ("play", lambda g: g.order[1], TakeStock(), NotYourTurn, "not to act"),
    ("play", lambda g: 9, TakeStock(), IllegalAction, "no player at seat 9"),
    ("play", lambda g: g.turn_seat, Discard(Card.parse("AS")), IllegalAction, "take a card"),
    ("play", lambda g: g.turn_seat, Skip(), IllegalAction, "no-take-back"),
    ("play", lambda g: g.turn_seat, CallEnd(), IllegalAction, "early call"),
    ("play", lambda g: g.turn_seat, Split((), ()), IllegalAction, "take a card"),
    ("drawn", lambda g: g.turn_seat, TakeStock(), IllegalAction, "discard one card"),
    ("drawn", lambda g: g.turn_seat, "not held", IllegalAction, "do not hold"),
    ("showdown", lambda g: g.order[0], TakeStock(), IllegalAction, "split"),
    ("showdown", lambda g: g.order[0], "foreign split", IllegalAction, "exactly the 7 cards"),
    ("showdown", lambda g: g.order[0], "short split", IllegalAction, "4 going-down and 3"),
    ("showdown", lambda g: g.order[0], "duplicate split", IllegalAction, "all different"),
    ("over", lambda g: None, StartRound(), IllegalAction, "game is over"),
]


def reach(stage: str) -> Game:
    game = new_game()
    if stage == "waiting":
        return game
    if stage == "over":
        game.apply(None, EndGame())
        return game
    game.apply(None, StartRound())
    if stage == "cut":
        return game
    game.apply(game.cutter, Cut(None))
    if stage == "drawn":
        game.apply(game.turn_seat, TakeStock())
    if stage == "showdown":
        while game.phase == PLAY:
            play_turn(game)
    return game


def concrete(game: Game, seat, action):
    if not isinstance(action, str):
        return action
    hand = game.players[seat].hand
    foreign = next(c for c in game.stock if c not in hand)
    if action == "not held":
        return Discard(foreign)
    if action == "foreign split":
        return Split(tuple(hand[:4]), (hand[4], hand[5], foreign))
    if action == "short split":
        return Split(tuple(hand[:3]), tuple(hand[3:6]))
    return Split(tuple(hand[:4]), (hand[4], hand[5], hand[4]))


@pytest.mark.parametrize("stage, who, action, error, fragment", ILLEGAL)
def test_illegal_actions_raise_and_change_nothing(stage, who, action, error, fragment):
    game = reach(stage)
    seat = who(game)
    action = concrete(game, seat, action)
    before = game.to_data()
    with pytest.raises(error, match=fragment) as info:
        game.apply(seat, action)
    assert str(action) in str(info.value), "the error names the action"
    assert game.to_data() == before


@pytest.mark.parametrize("data, fragment", [
    ({"kind": "fly"}, "unknown action kind"),
    ({"kind": "discard", "card": "1X"}, "not a card"),
    ({"kind": "discard", "card": 5}, "not a card"),
    ({"kind": "split", "down": ["AS"], "back": []}, "list of 4"),
    ({"kind": "cut", "position": True}, "integer"),
    ({"kind": "take_stock", "extra": 1}, "unexpected field"),
    ("take_stock", "a map"),
])
def test_malformed_actions_raise_invalid_action(data, fragment):
    with pytest.raises(InvalidAction, match=fragment):
        action_from_data(data)


def test_actions_round_trip_through_plain_data():
    hand = parse_cards("AS 2D 3C 4H 5S 6D 7C")
    for action in [Cut(None), Cut(12), TakeStock(), TakeDiscard(), Discard(hand[0]), Skip(), CallEnd(),
                   Split(tuple(hand[:4]), tuple(hand[4:])), StartRound(), EndGame(), SetAway(2, True)]:
        assert action_from_data(action.to_data()) == action


def test_same_seed_and_actions_give_the_same_game():
    a, b = new_game(seed=99), new_game(seed=99)
    for game in (a, b):
        to_showdown(game)
    assert a.to_data() == b.to_data()
    c = new_game(seed=100)
    to_showdown(c)
    assert c.to_data()["players"] != a.to_data()["players"]
    assert a.phase == SHOWDOWN
