"""Cribbage's state machine: the draw, the deal, the play (go, 31, last card, resets), the show, the end of a
game (mid-play and mid-show), skunks and the stake settlement, and what each seat may see."""

from __future__ import annotations

import time

import pytest

from engine.cards import DECK, parse_cards
from engine.contract import EndGame, SetAway, StartRound, Status
from engine.errors import IllegalAction, NotYourTurn
from engine.games.cribbage.actions import Claim, Cut, Discard, Muggins, Play
from engine.games.cribbage.bots import baseline_action, discard_choices, strong_action
from engine.games.cribbage.gametype import CRIBBAGE
from engine.games.cribbage.rules import DISCARD, DRAW, PLAY, SHOW, STARTER, WAITING, Game, Settings
from engine.games.cribbage.scoring import show_score, show_score_indices
from engine.games.cribbage.views import decision_view
from engine.fairness import FairDeal
from engine.rng import HashRng


def arranged(hands: dict[int, str], dealer: int, starter: str, scores=None, chips: int = 500, **settings) -> Game:
    """A game in the play with these hands (the cards each keeps), the crib made of other cards."""
    game = Game(Settings(**settings), [(s, f"p{s}", chips) for s in sorted(hands)], HashRng(1))
    game.apply(None, StartRound())
    held = {c for text in hands.values() for c in parse_cards(text)} | set(parse_cards(starter))
    rest = [c for c in DECK if c not in held]
    game.draws, game.drawing = [], []
    game.crib = [(dealer, c) for c in rest[:4]]
    game.deck = rest[4:]
    for seat, text in hands.items():
        game.players[seat].hand = parse_cards(text)
    game.dealer, game.starter = dealer, parse_cards(starter)[0]
    game.phase, game.turn = PLAY, game.left_of(dealer)
    game.fair = FairDeal(game.rng)  # a deal arranged by hand is no fair deal: nothing to reveal
    if scores is not None:
        game.scores = list(scores)
    assert sorted(c.index for c in game.all_cards()) == list(range(52))
    return game


def play(game: Game, *moves: tuple[int, str]) -> list:
    records = []
    for seat, card in moves:
        records += game.apply(seat, Play(parse_cards(card)[0]))
    return records


def kinds(records) -> list[tuple[str, int | None]]:
    return [(r.kind, r.seat) for r in records]


def test_what_looks_like_a_run_across_a_reset_scores_nothing():
    game = arranged({0: "KH 6D 5C 2S", 1: "8H 7D QC JS"}, dealer=1, starter="3H")
    records = play(game, (0, "KH"), (1, "8H"), (0, "6D"), (1, "7D"))
    assert records[-2].public["reason"] == "thirty-one for two and a run of three for three"
    assert records[-2].public["points"] == 5 and records[-1].kind == "reset" and records[-1].seat == 0
    led = play(game, (0, "5C"))[0]
    assert (led.public["count"], led.public["points"]) == (5, 0)  # 6, 7, 5 would be a run: not across a reset


def test_go_the_go_point_the_leader_after_a_go_and_last_card():
    game = arranged({0: "KH KD 9C 2S", 1: "10D JH 5C AS"}, dealer=1, starter="3H")
    records = play(game, (0, "KH"), (1, "10D"), (0, "9C"), (1, "AS"))
    assert kinds(records[-3:]) == [("go", 0), ("go_point", 1), ("reset", 0)]  # the one who said go leads
    assert records[-2].public == {"reason": "the go for one", "points": 1, "score": 1}
    assert game.count == 0 and game.to_act() == [0]
    with pytest.raises(NotYourTurn):
        game.apply(1, Play(parse_cards("JH")[0]))
    records = play(game, (0, "KD"), (1, "JH"), (0, "2S"), (1, "5C"))
    last = next(r for r in records if r.kind == "go_point")
    assert (last.seat, last.public["reason"]) == (1, "last card for one")
    assert [r.seat for r in records if r.kind == "show"] == [0, 1, 1]  # non-dealer, dealer, the crib
    assert [r.public["what"] for r in records if r.kind == "show"] == ["hand", "hand", "crib"]
    assert game.phase == WAITING and game.next_dealer == 0  # the deal alternates


def test_a_card_past_31_is_refused_and_changes_nothing():
    game = arranged({0: "KH KD 9C 2S", 1: "10D JH 5C AS"}, dealer=1, starter="3H")
    play(game, (0, "KH"), (1, "10D"), (0, "9C"))
    before = game.to_data()
    with pytest.raises(IllegalAction, match="past 31"):
        game.apply(1, Play(parse_cards("JH")[0]))
    with pytest.raises(IllegalAction, match="do not hold"):
        game.apply(1, Play(parse_cards("KD")[0]))
    assert game.to_data() == before and game.legal_actions(1) == [Play(parse_cards("AS")[0])]


def test_three_players_go_passes_on_and_the_last_to_lay_a_card_pegs_it():
    game = arranged({0: "9H KH QH JC", 1: "8D 4C KD QD", 2: "8S KS QS JS"}, dealer=2, starter="2H")
    records = play(game, (0, "9H"), (1, "8D"), (2, "8S"))
    assert records[-2].public["reason"] == "a pair for two" and kinds(records[-1:]) == [("go", 0)]
    assert game.to_act() == [1]  # seat 0 said go; seat 1 can still play
    records = play(game, (1, "4C"))
    assert kinds(records) == [("play", 1), ("go", 2), ("go_point", 1), ("reset", 2)]


def test_his_heels_pegs_the_dealer_two():
    game = arranged({0: "KH KD 9C 2S", 1: "10D JH 5C AS"}, dealer=1, starter="3H")
    game.deck.append(game.starter)
    game.starter, game.phase = None, STARTER
    _stacked(game, "JS")
    records = game.apply(0, Cut(4))  # the non-dealer cuts; the dealer turns up the jack
    assert kinds(records) == [("starter", 0), ("heels", 1)]
    assert records[1].public == {"reason": "his heels for two", "points": 2, "score": 2}
    assert game.phase == PLAY and game.to_act() == [0]


def test_the_game_ends_the_moment_the_target_is_reached_mid_play_double_skunk_pays_triple():
    game = arranged({0: "KH 5D 9C 2S", 1: "KD JH 7C AS"}, dealer=1, starter="3H", scores=[60, 119], stake=100)
    records = play(game, (0, "KH"), (1, "KD"))
    assert (records[-2].kind, records[-2].public["points"], records[-2].public["score"]) == ("play", 2, 121)
    won = records[-1]
    assert won.kind == "game_won" and won.public["winners"] == [1] == [won.seat]
    assert game.phase == WAITING and game.status is Status.BETWEEN_ROUNDS and not game.to_act()
    assert won.public["losses"] == [{"seat": 0, "chips": 300, "multiplier": 3}]  # 60: a double skunk
    assert game.stacks() == {0: 200, 1: 800} and game.chips_in_play() == 1000
    assert game.next_dealer == 0  # the loser deals the next game
    assert game.players[0].hand  # the rest of the deal is not played
    game.apply(None, StartRound())
    assert game.game_no == 2 and game.dealer == 0 and game.scores == [0, 0]


def _won_in_the_show(scores, **settings):
    """Seat 0 (non-dealer) pegs nothing in the play and wins with a flush of four; seat 1 pegs 8 in the play."""
    game = arranged({0: "2H 4H 6H 8H", 1: "KS QS 9C 7D"}, dealer=1, starter="KD", scores=scores, **settings)
    return play(game, (0, "2H"), (1, "KS"), (0, "4H"), (1, "QS"), (0, "6H"), (1, "9C"), (0, "8H"), (1, "7D"))


@pytest.mark.parametrize("target, loser_score, multiplier", [
    (121, 60, 3), (121, 61, 2), (121, 90, 2), (121, 91, 1), (61, 30, 2), (61, 31, 1), (61, 10, 2),
])
def test_skunk_and_double_skunk_lines(target, loser_score, multiplier):
    records = _won_in_the_show([target - 3, loser_score - 8], target=target, stake=100)
    won = records[-1]
    assert won.kind == "game_won" and won.public["scores"] == [target + 1, loser_score]
    assert won.public["losses"] == [{"seat": 1, "chips": 100 * multiplier, "multiplier": multiplier}]
    assert won.public["gains"] == [{"seat": 0, "chips": 100 * multiplier}]


def test_the_non_dealer_can_win_in_the_show_before_the_dealer_counts():
    records = _won_in_the_show([118, 100])
    shows = [r for r in records if r.kind == "show"]
    assert [(r.seat, r.public["points"]) for r in shows] == [(0, 4)]  # a flush of four: 122, and the game is over
    won = records[-1]
    assert won.kind == "game_won" and won.public["scores"] == [122, 108]
    assert won.public["losses"] == [{"seat": 1, "chips": 100, "multiplier": 1}]


def test_skunks_off_pay_the_stake_once():
    records = _won_in_the_show([118, 10], skunks=False)
    assert records[-1].public["losses"] == [{"seat": 1, "chips": 100, "multiplier": 1}]


def test_partners_share_what_the_losers_pay_and_nobody_pays_more_than_they_hold():
    game = arranged({0: "KH 4H 6H 8H", 1: "2C QS 9C 7D", 2: "3D 3C 5C 7C", 3: "AD 4D 5D 9D"}, dealer=3,
                    starter="KD", scores=[120, 80], stake=200)
    assert game.sides == [[0, 2], [1, 3]]
    game.players[1].stack = 50  # besides its stake of 200: it can pay 250 of the 400 a skunk costs
    records = play(game, (0, "KH"), (1, "2C"), (2, "3D"))  # fifteen two for seats 0 and 2
    won = records[-2]
    assert won.kind == "game_won" and won.public["winners"] == [0, 2] and won.public["scores"] == [122, 80]
    assert won.public["losses"] == [{"seat": 1, "chips": 250, "multiplier": 2}, {"seat": 3, "chips": 400, "multiplier": 2}]
    assert won.public["gains"] == [{"seat": 0, "chips": 325}, {"seat": 2, "chips": 325}]
    assert game.stacks() == {0: 825, 1: 0, 2: 825, 3: 100} and game.chips_in_play() == 50 + 200 + 3 * 500
    assert records[-1].kind == "game_over" and game.status is Status.OVER  # seat 1 has nothing left to stake


def test_a_game_abandoned_pays_nobody():
    game = Game(Settings(stake=100), [(0, "a", 300), (1, "b", 300)], HashRng(3))
    game.apply(None, StartRound())
    assert game.stacks() == {0: 200, 1: 200} and game.chips_in_play() == 600
    records = game.apply(None, EndGame())
    assert records[0].kind == "game_over" and game.stacks() == {0: 300, 1: 300} and game.status is Status.OVER
    with pytest.raises(IllegalAction):
        game.apply(None, StartRound())


def _stacked(game: Game, *texts: str) -> None:
    """Put ``texts`` at positions 4, 5, ... of the pack (so two cuts at 4 draw them in turn)."""
    picked = parse_cards(list(texts))
    game.fair = FairDeal(game.rng)  # a pack stacked by hand is no fair deal: the cut shuffles nothing
    game.deck = [c for c in game.deck if c not in picked]
    game.deck[4:4] = picked


def test_the_draw_for_first_deal_lowest_deals_and_a_tie_draws_again():
    game = Game(Settings(), [(0, "a", 300), (1, "b", 300)], HashRng(3))
    game.apply(None, StartRound())
    assert game.phase == DRAW and game.to_act() == [0]
    _stacked(game, "7H", "7S")
    assert game.apply(0, Cut(4))[0].public["card"] == "7H"
    records = game.apply(1, Cut(4))
    assert kinds(records) == [("draw", 1), ("draw_tie", None)] and game.to_act() == [0] and len(game.deck) == 52
    _stacked(game, "KC", "2D")
    game.apply(0, Cut(4))
    records = game.apply(1, Cut(4))
    assert kinds(records) == [("draw", 1), ("dealer", 1)] and records[1].public["card"] == "2D"
    assert game.phase == "cut" and game.to_act() == [0] and len(game.deck) == 52  # the non-dealer cuts


def test_the_deal_the_hidden_crib_and_the_views():
    game = Game(Settings(), [(0, "a", 300), (1, "b", 300), (2, "c", 300)], HashRng(8))
    game.apply(None, StartRound())
    while game.phase == DRAW:
        game.apply(game.to_act()[0], Cut(None))
    dealer = game.dealer
    game.apply(game.right_of(dealer), Cut(None))
    assert game.phase == DISCARD and sorted(game.to_act()) == [0, 1, 2]
    assert all(len(p.hand) == 5 for p in game.players.values()) and len(game.crib) == 1  # one from the pack
    mine = list(game.players[0].hand)
    decision = game.decision()
    with pytest.raises(IllegalAction, match="exactly 1"):
        game.apply(0, Discard(tuple(mine[:2])))
    game.apply(0, Discard((mine[0],)))
    assert game.decision() == decision  # laying away is one decision for everyone
    view0, view1, spectator = game.view(0), game.view(1), game.view(None)
    assert view0["discards"] == [mine[0].text] and view1["discards"] == []
    assert mine[0].text not in str(view1) and mine[0].text not in str(spectator)
    assert view0["crib"] == {"owner": dealer, "cards": 2} and spectator["hand"] == []
    for seat in (1, 2):
        game.apply(seat, Discard((game.players[seat].hand[0],)))
    assert game.phase == STARTER and game.to_act() == [game.left_of(dealer)]
    game.apply(game.left_of(dealer), Cut(None))
    assert game.view(None)["starter"] == game.starter.text and game.to_act() == [game.left_of(dealer)]
    view = game.view(1)
    del view["log"]  # holds the draw for the deal: cards seen face up, since shuffled back
    assert all(c.text not in str(view) for c in game.players[2].hand) and "hand" not in str(view["seats"])


def test_bots_are_legal_and_decide_within_50_ms():
    show_score_indices(0, 1, 2, 3, 4)  # the rank table is built once a process, on the first score: no decision's cost
    times = []  # CPU time of this thread: other processes on a loaded machine do not count against the bot
    for players in (2, 3, 4):
        game = CRIBBAGE.new(CRIBBAGE.settings({"target": 61}), [(s, f"p{s}", 1000) for s in range(players)],
                            HashRng(players))
        for _ in range(150):
            if game.status is Status.BETWEEN_ROUNDS:
                game.apply(None, StartRound())
                continue
            seat = game.to_act()[0]
            view = decision_view(game, seat)
            for bot in (baseline_action, strong_action):
                started = time.thread_time()
                action = bot(view)
                times.append(time.thread_time() - started)
                assert action in game.legal_actions(seat)
            game.apply(seat, action)
    times.sort()
    assert times[int(0.99 * len(times))] < 0.05, f"p99 {times[int(0.99 * len(times))] * 1000:.1f} ms"


def test_muggins_claims_and_the_opponent_takes_what_is_missed():
    game = arranged({0: "2H 4H 6H 8H", 1: "KS QS 9C 7D"}, dealer=1, starter="KD", muggins=True)
    play(game, (0, "2H"), (1, "KS"), (0, "4H"), (1, "QS"), (0, "6H"), (1, "9C"), (0, "8H"), (1, "7D"))
    assert game.phase == SHOW and game.to_act() == [0] and game.scores == [0, 8]
    assert game.view(0)["legal"] == [{"kind": "claim", "min": 0, "max": 29}]
    assert game.view(1)["counting"] == {"seat": 0, "what": "hand", "cards": ["2H", "4H", "6H", "8H"], "claimed": False}
    claim = game.apply(0, Claim(3))[0]  # worth 4 (a flush): one point left uncounted
    assert (claim.kind, claim.public["points"], claim.public["items"]) == ("claim", 3, None)
    assert game.to_act() == [1] and game.view(1)["legal"] == [{"kind": "muggins"}]
    mugged = game.apply(1, Muggins(True))[0]
    assert (mugged.kind, mugged.seat, mugged.public["points"], mugged.public["missed"]) == ("muggins", 1, 1, 1)
    assert mugged.public["items"][-1]["name"] == "a flush of four"
    records = game.apply(1, Claim(5))  # the dealer over-claims a hand worth a pair: it pegs 2
    assert records[0].public["points"] == 2 and records[0].public["items"] is not None
    assert kinds(records[1:]) == [("crib_up", 1)] and records[1].public["cards"] == ["AS", "AH", "AD", "AC"]
    assert game.view(0)["counting"]["what"] == "crib"
    game.apply(1, Claim(12))  # four aces
    assert game.phase == WAITING and game.scores == [3, 8 + 1 + 2 + 12]
    assert [entry["muggins"] for entry in game.view(None)["show"]] == [{"seat": 1, "take": True, "points": 1}, None, None]


def test_muggins_let_go_and_a_claim_that_reaches_the_target_ends_the_game():
    game = arranged({0: "2H 4H 6H 8H", 1: "KS QS 9C 7D"}, dealer=1, starter="KD", muggins=True, scores=[100, 111])
    play(game, (0, "2H"), (1, "KS"), (0, "4H"), (1, "QS"), (0, "6H"), (1, "9C"), (0, "8H"), (1, "7D"))
    game.apply(0, Claim(0))
    let_go = game.apply(1, Muggins(False))[0]
    assert let_go.public["points"] == 0 and game.scores == [100, 119]
    records = game.apply(1, Claim(2))
    assert kinds(records) == [("claim", 1), ("game_won", 1)] and game.phase == WAITING


def test_bots_claim_their_exact_count_and_call_muggins():
    game = arranged({0: "2H 4H 6H 8H", 1: "KS QS 9C 7D"}, dealer=1, starter="KD", muggins=True)
    play(game, (0, "2H"), (1, "KS"), (0, "4H"), (1, "QS"), (0, "6H"), (1, "9C"), (0, "8H"), (1, "7D"))
    for bot in (baseline_action, strong_action):
        assert bot(decision_view(game, 0)) == Claim(4)
    game.apply(0, Claim(1))
    assert strong_action(decision_view(game, 1)) == Muggins(True) == CRIBBAGE.timeout_action(game, 1)


def test_discard_choices_weigh_the_crib_by_whose_it_is():
    hand = parse_cards("5H 5D JC QS 2C 9D")
    mine, theirs = discard_choices(hand, own_crib=True), discard_choices(hand, own_crib=False)
    assert len(mine) == 15 and {laid for laid, _, _ in mine} == {laid for laid, _, _ in theirs}
    best_laid, best_hand, best_crib = mine[0]
    assert all(best_hand + best_crib >= h + c for _, h, c in mine)
    assert all(theirs[0][1] - theirs[0][2] >= h - c for _, h, c in theirs)
    assert not any(c.rank == 5 for c in theirs[0][0])  # no five laid away into the opponent's crib
    kept = [c for c in hand if c not in best_laid]
    starters = [c for c in DECK if c not in hand]
    assert best_hand == pytest.approx(sum(show_score(kept, s) for s in starters) / len(starters))


def test_no_combination_across_a_go():
    game = arranged({0: "KH KD 9C 8S", 1: "10D JH 5C AS"}, dealer=1, starter="3H")
    records = play(game, (0, "KH"), (1, "10D"), (0, "9C"), (1, "AS"))
    assert kinds(records[-3:]) == [("go", 0), ("go_point", 1), ("reset", 0)]
    led = play(game, (0, "KD"))[0]  # after the go: no pair with the KH of the series before
    assert (led.public["count"], led.public["points"]) == (10, 0)


def test_every_event_kind_is_worded():
    """Whole games with every number of players and muggins: each kind of record has its line."""
    worded: set[str] = set()
    for players, muggins in ((2, False), (3, True), (4, False), (2, True)):
        game = CRIBBAGE.new(CRIBBAGE.settings({"target": 61, "muggins": muggins, "stake": 400}),
                            [(s, f"p{s}", 500) for s in range(players)], HashRng(players + 10 * muggins))
        records = game.apply(None, SetAway(0, True)) + game.apply(None, SetAway(0, False))
        while game.status is not Status.OVER and game.game_no < 3:
            if game.status is Status.BETWEEN_ROUNDS:
                records += game.apply(None, StartRound())
                continue
            seat = game.to_act()[0]
            legal = game.legal_actions(seat)
            choice = Claim(0) if Claim(0) in legal else CRIBBAGE.bot_action(game, seat)
            records += game.apply(seat, choice)
        if game.status is not Status.OVER:
            records += game.apply(None, EndGame())
        for record in records:
            for viewer in (None, record.seat):
                assert CRIBBAGE.describe(record.for_seat(viewer)), record
        worded |= {r.kind for r in records}
    assert worded >= {"new_game", "round", "draw", "dealer", "cut", "deal", "crib_card", "discard", "starter", "play",
                      "go", "go_point", "reset", "show", "crib_up", "claim", "muggins", "game_won", "game_over",
                      "away", "back"}
