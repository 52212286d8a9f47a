"""Fair deals in the engine (engine/fairness.py, docs/FAIRNESS.md), version 2 (issues 15 and 28).

Issue 28, "What must be shown" 1: the verifier checks every round for every viewer and detects a late
seed, a deck fixed with no client seed inside the window, a forged or missing signature, and a seed
reused at another table; the commit phase makes a late seed impossible in the engine itself (a seed
that counts is committed before any is revealed); FAIRNESS.md's test vectors, recomputed here from the
page with hashlib, hmac and an Ed25519 library alone. Issue 15's checks (a tampered deal is named) stay.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import hmac
from typing import Any

import pytest
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey
from hypothesis import given, settings, strategies as st

from engine.cards import DECK
from engine.contract import EndGame, StartRound, Status
from engine.errors import IllegalAction, InvalidAction, NotYourTurn
from engine.fairness import (
    PROOF_CLIENTS, PROOF_NO_DEAL, PROOF_OWN, PROOF_SERVER, ClientSeed, DealStream, FixDeck, SealSeeds, SeedCommit,
    client_seeds_digest, commitment, context, fingerprint, sample_below, seed_commitment, signed_message,
    verify_record, verify_round,
)
from engine.games import GAMES, find_game
from engine.rng import HashRng
from fair_helpers import OTHER_SECRET, TEST_KEY, TEST_SECRET, WINDOW_MS, Watched, sign, signed

DAB, CRIBBAGE = find_game("down-and-back"), find_game("cribbage")
SEED_A, SEED_B = "a1" * 16, "0b0b"
SEEDS = {0: SEED_A, 3: SEED_B}


@pytest.fixture(scope="module")
def dab() -> Watched:
    """A Down and Back round with client seeds from two seats and a stock reshuffle."""
    watched = Watched(DAB, 5, 1, turns=7)
    watched.round(SEEDS, pick=2)
    assert "reshuffle" in {e["kind"] for e in watched.last_round(None)}
    return watched


def check(dab: Watched, viewer: int | None, events: list[dict[str, Any]] | None = None, **options: Any) -> Any:
    options = {"key": TEST_KEY, "table_id": "t1", **options}
    return verify_round(DAB, dab.last_round(viewer) if events is None else events, viewer, SEEDS.get(viewer), **options)


def test_an_honest_round_verifies_for_every_seat_and_a_spectator_saying_what_it_proves(dab):
    for viewer in dab.seen:
        verdict = check(dab, viewer)
        assert verdict.ok and verdict.round == 1, verdict
        assert verdict.proof == (PROOF_OWN if viewer in SEEDS else PROOF_CLIENTS)
        assert verdict.summary == ("verified — your seed included" if viewer in SEEDS else "verified")


def _tampered(dab: Watched, viewer: int | None, change: Any, **options: Any) -> Any:
    events = dab.last_round(viewer)
    change(events, events[-1])
    return check(dab, viewer, events, **options)


def test_a_changed_stock_card_is_named():
    """The stock card a seat drew is not the committed deck's: the verdict says "stock card" and both cards."""
    watched = Watched(DAB, 3, 1)
    watched.round({})
    events = watched.last_round(1)
    draw = next(e for e in events if e["kind"] == "take_stock" and e.get("seat") == 1)
    real = draw["card"]
    draw["card"] = next(c.text for c in DECK if c.text != real)
    verdict = verify_round(DAB, events, 1)
    assert not verdict.ok and verdict.what == "stock card"
    assert verdict.message.startswith("stock card: ") and repr(real) in verdict.message and "take_stock" in verdict.message


def test_a_changed_cut_is_named(dab):
    def cut_elsewhere(events, reveal):
        cut = next(a for _, a in reveal["actions"] if a["kind"] == "cut")
        cut["position"] = 30 if cut["position"] != 30 else 31
    verdict = _tampered(dab, 2, cut_elsewhere)
    assert not verdict.ok and verdict.what == "cut" and verdict.message.startswith("cut: ")


def test_a_client_seed_left_out_of_the_deck_is_named(dab):
    """The server accepted seat 0's seed but dealt without it: seat 0 sees its own seed missing."""
    def drop_mine(events, reveal):
        for event in (reveal, next(e for e in events if e["kind"] == "deck_fixed")):
            event["client_seeds"] = [s for s in event["client_seeds"] if s[0] != 0]
        events[:] = [signed(e) for e in events]
    verdict = _tampered(dab, 0, drop_mine)
    assert not verdict.ok and verdict.what == "client seed" and "yours" in verdict.message


def test_client_seeds_changed_in_the_actions_and_the_reveal_alike_are_named(dab):
    def other_seed_everywhere(events, reveal):
        reveal["client_seeds"][1][1] = "0c0c"
        next(a for _, a in reveal["actions"] if a["kind"] == "client_seed" and a["seed"] == SEED_B)["seed"] = "0c0c"
        events[-1] = signed(reveal)
    verdict = _tampered(dab, 4, other_seed_everywhere)
    assert not verdict.ok and verdict.what == "client seed"


def test_a_changed_revealed_seed_is_named(dab):
    def other_seed(events, reveal):
        reveal["seed"] = "00" * 32
        events[-1] = signed(reveal)
    verdict = _tampered(dab, 1, other_seed)
    assert not verdict.ok and verdict.what == "revealed seed" and verdict.message.startswith("revealed seed: ")


def test_a_changed_commitment_is_named(dab):
    """A server that reveals another seed with a commitment to match is caught: the commitment seen
    before the seeds is not the one the reveal names."""
    def other_commitment(events, reveal):
        reveal["seed"] = "00" * 32
        reveal["commitment"] = commitment(bytes(32), context(TEST_KEY, "down-and-back", "t1", 1)).hex()
        events[-1] = signed(reveal)
    verdict = _tampered(dab, 1, other_commitment)
    assert not verdict.ok and verdict.what == "commitment" and verdict.message.startswith("commitment: ")


def test_a_deck_arranged_before_the_shuffle_is_named(dab):
    """A revealed state whose pack is not in its sorted order would let a server choose the deal after the fact."""
    def arranged(events, reveal):
        reveal["state"]["deck"] = reveal["state"]["deck"][::-1]
    verdict = _tampered(dab, 1, arranged)
    assert not verdict.ok and verdict.what == "deck"


def test_a_changed_card_after_a_reshuffle_and_a_changed_hand_are_named(dab):
    def other_draw_after_the_reshuffle(events, reveal):
        start = next(i for i, e in enumerate(events) if e["kind"] == "reshuffle")
        draw = next(e for e in events[start:] if e["kind"] == "take_stock" and e.get("seat") == 1)
        draw["card"] = "KS" if draw["card"] != "KS" else "QS"
    assert _tampered(dab, 1, other_draw_after_the_reshuffle).what == "stock card"

    def other_hand(events, reveal):
        deal = next(e for e in events if e["kind"] == "deal" and e.get("seat") == 2)
        deal["hand"][0], deal["hand"][1] = deal["hand"][1], deal["hand"][0]
    assert _tampered(dab, 2, other_hand).what == "dealt hand"


def test_the_first_dealer_is_checked(dab):
    def other_dealer(events, reveal):
        event = next(e for e in events if e["kind"] == "dealer")
        event["seat"] = (event["seat"] + 1) % 5
    assert _tampered(dab, 2, other_dealer).what == "first dealer"


def test_cribbage_draws_for_the_deal_and_the_starter_are_checked():
    watched = Watched(CRIBBAGE, 3, 4)
    watched.round({1: SEED_B})
    events = watched.last_round(0)
    assert {"draw", "dealer", "starter"} <= {e["kind"] for e in events}
    assert verify_round(CRIBBAGE, events, 0).ok
    next(e for e in events if e["kind"] == "starter")["card"] = "JS"
    verdict = verify_round(CRIBBAGE, events, 0)
    assert not verdict.ok and verdict.what in ("starter", "show")


def test_a_stored_round_verifies_for_every_viewer_and_a_damaged_one_does_not():
    watched = Watched(DAB, 2, 5)
    watched.round({0: SEED_A})
    record = DAB.round_record(watched.game)
    _sign_record(record)
    assert len(verify_record(DAB, record)) == 3 and all(v.ok for v in verify_record(DAB, record, TEST_KEY, "t1"))
    record["fair"]["seed"] = "11" * 32
    record["fair"] = signed(dict(record["fair"], kind="deal_reveal"))
    assert {v.what for v in verify_record(DAB, record)} == {"revealed seed"}


def _sign_record(record: dict[str, Any]) -> None:
    """What the server does to a round record before it stores it."""
    for entry in record["log"]:
        sig = signed(dict(entry["public"], kind=entry["kind"])).get("sig")
        if sig:
            entry["public"]["sig"] = sig
    record["fair"] = {k: v for k, v in signed(dict(record["fair"], kind="deal_reveal")).items() if k != "kind"}


@settings(max_examples=12, deadline=None)
@given(game_name=st.sampled_from(sorted(GAMES)), players=st.integers(2, 4), seed=st.integers(0, 2**16),
       seeds=st.dictionaries(st.integers(0, 3), st.binary(min_size=1, max_size=64), max_size=3),
       pick=st.integers(1, 50))
def test_every_round_of_every_game_verifies_for_every_viewer(game_name, players, seed, seeds, pick):
    watched = Watched(GAMES[game_name], players, seed)
    sent = {s: v.hex() for s, v in sorted(seeds.items()) if s < players}
    for _ in range(2):
        if watched.game.status is not Status.BETWEEN_ROUNDS:
            break
        watched.round(sent, pick)
        for viewer in watched.seen:
            verdict = verify_round(GAMES[game_name], watched.last_round(viewer), viewer, sent.get(viewer), TEST_KEY)
            assert verdict.ok, verdict
            assert verdict.proof == (PROOF_OWN if viewer in sent else PROOF_CLIENTS if sent else PROOF_SERVER)


# ----------------------------------------------------------------- what version 2 detects


def test_a_late_seed_is_impossible_in_the_engine_and_detected_in_a_transcript():
    """Issue 28 hole 1: no seed that counts can be chosen once another is known. The engine takes no
    commitment after the seed set is sealed, and no reveal that is not its seat's commitment; a server
    that shows a late seed anyway (a bot's, chosen after the humans' were revealed) is caught."""
    watched = Watched(DAB, 3, 8)
    watched.apply(None, StartRound())
    fair = watched.game.fair
    watched.apply(0, SeedCommit(seed_commitment(fair.commitment, 0, bytes.fromhex(SEED_A)).hex()))
    watched.apply(None, SealSeeds(30, (0,)))
    with pytest.raises(IllegalAction, match="does not match"):  # a committed seat cannot change its seed either
        watched.game.check(0, ClientSeed("07"))
    watched.apply(0, ClientSeed(SEED_A))  # the honest seed is now known to the server
    grind = seed_commitment(fair.commitment, 2, b"\x07").hex()
    with pytest.raises(IllegalAction, match="closed"):
        watched.game.check(2, SeedCommit(grind))
    with pytest.raises(IllegalAction, match="no commitment"):
        watched.game.check(2, ClientSeed("07"))
    watched.apply(None, FixDeck(40))
    watched.play()
    honest = watched.last_round(1)
    assert check(watched, 1, honest).ok

    # A transcript with the bot's commitment relayed after the seal, and its seed in the deck: "late seed".
    late = copy.deepcopy(honest)
    sealed = next(i for i, e in enumerate(late) if e["kind"] == "seed_set")
    late.insert(sealed + 1, {"kind": "seed_commit", "seat": 2, "commit": grind})
    fixed = next(e for e in late if e["kind"] == "deck_fixed")
    fixed["client_seeds"].append([2, "07"])
    late[late.index(fixed)] = signed(fixed)
    late[-1]["client_seeds"] = fixed["client_seeds"]
    late[-1] = signed(late[-1])
    verdict = check(watched, 1, late)
    assert not verdict.ok and verdict.what == "late seed" and "seat 2" in verdict.message

    # A second seed set, after the reveals, naming the bot's commitment too: the first one counts.
    resealed = copy.deepcopy(late)
    del resealed[sealed + 1]
    at = next(i for i, e in enumerate(resealed) if e["kind"] == "deck_fixed")
    resealed.insert(at, signed(dict(resealed[sealed], commits=resealed[sealed]["commits"] + [[2, grind]])))
    verdict = check(watched, 1, resealed)
    assert not verdict.ok and verdict.what == "late seed"


def test_a_deck_fixed_with_no_client_seed_inside_the_window_is_detected():
    """Issue 28 hole 2: the seeds were sealed 152 ms after the deal_commit, while the table was waiting
    for seat 1 (a human, connected): the round is not verified. Sealed by the window instead, or with
    nobody to wait for, it verifies, and says the deck came from the server's seed alone."""
    early = Watched(DAB, 2, 3)
    early.round({}, after_ms=152, waiting=(1,))
    verdict = verify_round(DAB, early.last_round(1), 1, key=TEST_KEY)
    assert not verdict.ok and verdict.what == "window" and "152 ms" in verdict.message and "seat 1" in verdict.message
    for after_ms, waiting in ((WINDOW_MS, (1,)), (10, ())):
        late = Watched(DAB, 2, 3)
        late.round({}, after_ms=after_ms, waiting=waiting)
        verdict = verify_round(DAB, late.last_round(1), 1, key=TEST_KEY)
        assert verdict.ok and verdict.proof == PROOF_SERVER and "verified" != verdict.summary
        assert verdict.summary == "verified — server seed only"


def test_a_seat_that_withholds_its_reveal_is_dealt_without_it_and_shows_in_the_transcript():
    watched = Watched(DAB, 3, 6)
    watched.round({0: SEED_A, 2: SEED_B}, reveal={0: SEED_A}, after_ms=20, fix_ms=20 + WINDOW_MS)
    assert watched.game.fair.withheld == (2,) and set(watched.game.fair.client_seeds) == {0}
    fixed = next(e for e in watched.last_round(1) if e["kind"] == "deck_fixed")
    assert fixed["withheld"] == [2] and fixed["client_seeds"] == [[0, SEED_A]]
    verdict = verify_round(DAB, watched.last_round(0), 0, SEED_A, TEST_KEY)
    assert verdict.ok and verdict.withheld == (2,) and verdict.summary == \
        "verified — your seed included (seat 2 withheld its seed)"
    hasty = Watched(DAB, 3, 6)  # the reveals closed before the window: a withheld seed is then not the seat's doing
    hasty.round({0: SEED_A, 2: SEED_B}, reveal={0: SEED_A}, after_ms=20, fix_ms=60)
    verdict = verify_round(DAB, hasty.last_round(0), 0, SEED_A, TEST_KEY)
    assert not verdict.ok and verdict.what == "window"


@pytest.mark.parametrize("kind", ["deal_commit", "seed_set", "deck_fixed", "deal_reveal"])
def test_a_forged_or_missing_signature_is_detected(dab, kind):
    def forged(events, reveal):
        event = next(e for e in events if e["kind"] == kind)
        event["sig"] = ("0" if event["sig"][0] != "0" else "1") + event["sig"][1:]

    def missing(events, reveal):
        del next(e for e in events if e["kind"] == kind)["sig"]

    def other_key(events, reveal):
        event = next(e for e in events if e["kind"] == kind)
        event["sig"] = sign(event, OTHER_SECRET)
    for change in (forged, missing, other_key):
        verdict = _tampered(dab, 1, change)
        assert not verdict.ok and verdict.what == "signature" and kind in verdict.message, (change, verdict)


def test_a_round_signed_by_another_key_than_the_pinned_one_is_detected(dab):
    other = Ed25519PrivateKey.from_private_bytes(OTHER_SECRET).public_key().public_bytes_raw()
    verdict = check(dab, 1, key=other)
    assert not verdict.ok and verdict.what == "key" and fingerprint(TEST_KEY) in verdict.message
    assert check(dab, 1, key=None).ok  # without a pin the round names its own key


def test_a_seed_reused_at_another_table_is_detected():
    """Issue 28 hole 4: the commitment binds the key, the game and the table. A round shown as another
    table's is refused; a seat's commitment and seed from table t1 put into table t2's round do not match
    t2's commitment."""
    one, two = Watched(DAB, 2, 9, table_id="t1"), Watched(DAB, 2, 9, table_id="t2")
    one.round({0: SEED_A})
    assert verify_round(DAB, one.last_round(0), 0, SEED_A, TEST_KEY, "t1").ok
    verdict = verify_round(DAB, one.last_round(0), 0, SEED_A, TEST_KEY, "t2")
    assert not verdict.ok and verdict.what == "binding" and "another table" in verdict.message
    two.apply(None, StartRound())
    assert two.game.fair.commitment != one.last_round(0)[0]["commitment"]  # the same game seed, another table
    reused = next(e for e in one.last_round(0) if e["kind"] == "seed_commit")["commit"]
    two.apply(0, SeedCommit(reused))
    two.apply(None, SealSeeds(10, (0,)))
    with pytest.raises(IllegalAction, match="does not match"):  # the engine refuses the seed with it
        two.apply(0, ClientSeed(SEED_A))
    two.apply(None, FixDeck(WINDOW_MS + 10))
    two.play()
    events = two.last_round(1)  # ... and a server that shows it anyway is caught
    fixed = next(e for e in events if e["kind"] == "deck_fixed")
    events[events.index(fixed)] = signed(dict(fixed, client_seeds=[[0, SEED_A]], withheld=[]))
    events[-1] = signed(dict(events[-1], client_seeds=[[0, SEED_A]], withheld=[]))
    verdict = verify_round(DAB, events, 1, key=TEST_KEY, table_id="t2")
    assert not verdict.ok and verdict.what == "late seed"


# ----------------------------------------------------------------- the phases' rules


def test_nobody_acts_and_no_chance_is_drawn_while_the_deal_is_being_sealed():
    for game_type in GAMES.values():
        watched = Watched(game_type, 2, 2)
        watched.apply(None, StartRound())
        game, fair = watched.game, watched.game.fair
        drawn = game.chance_drawn()
        assert fair.seeding and game.to_act() == [] and game.decision() is None and game.status is Status.PLAYING
        for seat in (0, 1):
            assert game.legal_actions(seat) == [] and game.view(seat)["legal"] == []
            with pytest.raises(NotYourTurn, match="sealed"):
                game.apply(seat, game_type.action_from_data({"kind": "cut", "position": None}))
        with pytest.raises(IllegalAction, match="not before"):
            game.apply(0, ClientSeed(SEED_A))
        commit = seed_commitment(fair.commitment, 1, bytes.fromhex(SEED_B)).hex()
        assert [r.kind for r in watched.apply(1, SeedCommit(commit))] == ["seed_commit"]
        with pytest.raises(IllegalAction, match="already committed"):
            game.apply(1, SeedCommit(commit))
        with pytest.raises(IllegalAction, match="not dealt in"):
            game.check(7, SeedCommit(commit))
        with pytest.raises(IllegalAction, match="only the table"):
            game.check(0, SealSeeds(0, ()))
        watched.apply(None, SealSeeds(5, (0, 1)))
        assert fair.seeding and game.to_act() == [] and game.chance_drawn() == drawn
        assert [(r.kind, r.seat, r.public) for r in watched.apply(1, ClientSeed(SEED_B))] == [("client_seed", 1, {})]
        assert SEED_B not in repr(game.view(0)), "a revealed seed is told with the fixed deck, not before"
        records = watched.apply(None, FixDeck(9))
        assert records[0].kind == "deck_fixed" and records[0].public["client_seeds"] == [[1, SEED_B]]
        assert not fair.seeding and game.to_act() and game.decision() is not None
        assert game.view(0)["fair"]["client_seeds"] == {"1": SEED_B}


def test_an_unbound_game_deals_each_round_from_its_own_seed_at_once():
    game = DAB.new(DAB.settings(), [(0, "a", 100), (1, "b", 100)], HashRng(2))
    kinds = [r.kind for r in game.apply(None, StartRound())]
    assert kinds == ["round", "deal_commit", "seed_set", "deck_fixed", "dealer"] and game.to_act() == [game.cutter]


@pytest.mark.parametrize("data", [{"kind": "client_seed", "seed": s} for s in ["", "abc", "AB", "zz", "00" * 65, 12, None]]
                         + [{"kind": "seed_commit", "commit": c} for c in ["ab", "00" * 31, "00" * 33, "G" * 64, None]])
def test_a_malformed_client_seed_or_commitment_is_invalid_in_every_game(data):
    for game_type in GAMES.values():
        with pytest.raises(InvalidAction, match="client seed|seed commitment"):
            game_type.action_from_data(data)
    assert DAB.action_from_data({"kind": "client_seed", "seed": "00" * 64}) == ClientSeed("00" * 64)
    assert CRIBBAGE.action_from_data({"kind": "seed_commit", "commit": "0f" * 32}) == SeedCommit("0f" * 32)


def test_the_seed_is_in_no_view_or_event_before_the_round_ends_and_in_both_after():
    for game_type in GAMES.values():
        watched = Watched(game_type, 2, 9)
        watched.apply(None, StartRound())
        secret = watched.game.fair.seed.hex()
        commit = watched.seen[None][-1]
        assert commit["kind"] == "deal_commit"
        assert commit["commitment"] == commitment(bytes.fromhex(secret), context(TEST_KEY, game_type.name, "t1", 1)).hex()
        watched.seed({0: SEED_A})
        while watched.game.status is Status.PLAYING:
            for viewer in watched.seen:
                view = watched.game.view(viewer)
                assert secret not in repr(view) and view["fair"]["seed"] is None
                assert view["fair"]["commitment"] == commit["commitment"]
            seat = watched.game.to_act()[0]
            watched.apply(seat, game_type.bot_action(watched.game, seat))
            if watched.game.status is Status.PLAYING:
                assert all(secret not in repr(events) for events in watched.seen.values())
        assert watched.seen[None][-1]["kind"] == "deal_reveal" and watched.seen[None][-1]["seed"] == secret
        assert watched.game.view(0)["fair"]["seed"] == secret


def test_a_round_ended_while_it_is_being_sealed_is_revealed_and_verifies():
    watched = Watched(CRIBBAGE, 2, 3)
    watched.apply(None, StartRound())
    watched.apply(0, SeedCommit(seed_commitment(watched.game.fair.commitment, 0, bytes.fromhex(SEED_A)).hex()))
    watched.apply(None, EndGame())
    assert watched.seen[1][-1]["kind"] == "deal_reveal"
    verdict = verify_round(CRIBBAGE, watched.last_round(1), 1, key=TEST_KEY)
    assert verdict.ok and verdict.proof == PROOF_NO_DEAL


def test_replay_and_restore_keep_the_committed_deck():
    """From the game's seed and its log (the seed phases included), and from its plain data mid-seeding."""
    for game_type in GAMES.values():
        watched = Watched(game_type, 3, 11)
        watched.apply(None, StartRound())
        fair = watched.game.fair
        watched.apply(2, SeedCommit(seed_commitment(fair.commitment, 2, bytes.fromhex(SEED_B)).hex()))
        watched.apply(None, SealSeeds(12, (2,)))
        restored = game_type.from_data(watched.game.to_data())
        replayed = game_type.new(watched.game.settings, watched.game.initial_players,
                                 HashRng.from_data(watched.game.initial_rng))
        for seat, data in watched.game.history:
            replayed.apply(seat, game_type.action_from_data(data))
        for game in (watched.game, restored, replayed):
            game.apply(2, ClientSeed(SEED_B))
            game.apply(None, FixDeck(20))
            game.apply(game.cutter, game_type.action_from_data({"kind": "cut", "position": 10}))
        assert watched.game.to_data() == restored.to_data() == replayed.to_data()


def test_a_version_1_checkpoint_before_its_cut_is_shuffled_at_the_cut():
    game = DAB.new(DAB.settings(), [(0, "a", 100), (1, "b", 100)], HashRng(4))
    game.apply(None, StartRound())
    data = game.to_data()
    data["fair"] = {"round": 1, "seed": "00" * 32, "commitment": "00" * 32, "client_seeds": [], "stream": None,
                    "state": None, "first": 0, "open": True}  # what version 1 wrote
    restored = DAB.from_data(data)
    assert restored.to_act() == [restored.cutter] and restored.view(0)["fair"] is None
    restored.apply(restored.cutter, DAB.action_from_data({"kind": "cut", "position": 10}))
    assert [c.text for c in restored.all_cards()] != [c.text for c in DECK]


def test_a_tie_break_that_empties_the_stock_tells_of_its_reshuffle():
    """FAIRNESS.md §3: a reshuffle is always an event, the one a showdown's tie-break draw forces too."""
    game = DAB.new(DAB.settings(), [(0, "a", 100), (1, "b", 100)], HashRng(4))
    game.apply(None, StartRound())
    game.apply(game.cutter, DAB.action_from_data({"kind": "cut", "position": 10}))
    while game.phase == "play":
        seat = game.to_act()[0]
        game.apply(seat, game.legal_actions(seat)[0])
    game.discard_pile, game.stock = game.discard_pile + game.stock, []  # the stock is empty at the showdown
    records: list[Any] = []
    game._compare([(1,), (1,)], records)  # two equal hands: the tie-break draws from the empty stock
    assert [r.kind for r in records] == ["reshuffle"] and game.stock


def test_a_cribbage_reveal_holds_the_state_the_deal_began_from():
    """Its show was aliased to the live game's: the reveal's state then held the deal's counted hands."""
    watched = Watched(CRIBBAGE, 2, 5)
    watched.round({})
    reveal = watched.seen[None][-1]
    assert reveal["kind"] == "deal_reveal" and reveal["state"]["show"] == [] and watched.game.show


# ----------------------------------------------------------------- the algorithm (FAIRNESS.md §2)


@pytest.mark.parametrize("n", range(1, 70))
def test_rejection_sampling_is_exact_on_small_ranges(n):
    """Over every value the first draw of w bits can take, each of 0..n-1 comes out exactly once and the
    rest (2**w - n of them, fewer than half) draw again: the result is exactly uniform."""
    width = (n - 1).bit_length()
    if n == 1:
        assert sample_below(1, lambda w: pytest.fail("n = 1 draws no bits")) == 0
        return
    accepted, retried = [], 0
    for first in range(2 ** width):
        draws = iter([first, 0])
        asked = []

        def bits(w: int) -> int:
            asked.append(w)
            return next(draws)

        value = sample_below(n, bits)
        assert set(asked) <= {width}
        if len(asked) == 1:
            accepted.append(value)
        else:
            retried += 1
            assert value == 0 and first >= n
    assert sorted(accepted) == list(range(n)) and retried == 2 ** width - n < 2 ** width / 2


def test_the_stream_reads_bits_most_significant_first_across_blocks():
    """Exhaustively over the first 600 bits: DealStream.bits(w) in any grouping gives the blocks' bits in order."""
    seed, digest, ctx = bytes(range(32)), client_seeds_digest({}), bytes(range(32, 64))
    prefix = b"down-and-back/fair/stream\x00" + ctx + digest
    blocks = b"".join(hmac.digest(seed, prefix + k.to_bytes(8, "big"), "sha256") for k in range(3))
    bits = "".join(f"{byte:08b}" for byte in blocks)
    for width in (1, 3, 7, 8, 13, 64, 255):
        stream, read = DealStream(seed, ctx, {}), ""
        while len(read) + width <= 600:
            read += format(stream.bits(width), f"0{width}b")
        assert read == bits[:len(read)]


# FAIRNESS.md §5, written out again from the page with hashlib, hmac and an Ed25519 library only.

def _h(*parts: bytes) -> bytes:
    return hashlib.sha256(b"".join(parts)).digest()


def _s8(text: str) -> bytes:
    return bytes([len(text.encode())]) + text.encode()


def _u32(n: int) -> bytes:
    return n.to_bytes(4, "big")


def _reference(seed: bytes, key: bytes, game: str, table: str, round_no: int,
               client_seeds: dict[int, bytes]) -> dict[str, Any]:
    ctx = _h(b"down-and-back/fair/context\x00", (2).to_bytes(2, "big"), key, _s8(game), _s8(table),
             round_no.to_bytes(8, "big"))
    deal = _h(b"down-and-back/fair/commit\x00", ctx, seed)
    seed_commits = {s: _h(b"down-and-back/fair/seed-commit\x00", deal, _u32(s), bytes([len(v)]), v)
                    for s, v in client_seeds.items()}
    body = b"".join(_u32(s) + bytes([len(v)]) + v for s, v in sorted(client_seeds.items()))
    digest = _h(b"down-and-back/fair/client-seeds\x00", body)
    prefix = b"down-and-back/fair/stream\x00" + ctx + digest
    bits, counter = "", 0

    def take(width: int) -> int:
        nonlocal bits, counter
        while len(bits) < width:
            block = hmac.new(seed, prefix + counter.to_bytes(8, "big"), hashlib.sha256).digest()
            bits += "".join(f"{byte:08b}" for byte in block)
            counter += 1
        value, bits = int(bits[:width], 2), bits[width:]
        return value

    deck = [c.text for c in DECK]
    for i in range(51, 0, -1):
        width = i.bit_length()  # of (i + 1) - 1
        while (j := take(width)) > i:
            pass
        deck[i], deck[j] = deck[j], deck[i]
    blob = _u32(11) + b"ssh-ed25519" + _u32(32) + key
    return {"context": ctx, "commitment": deal, "seed_commits": seed_commits, "digest": digest, "deck": deck,
            "fingerprint": "SHA256:" + base64.b64encode(hashlib.sha256(blob).digest()).decode().rstrip("=")}


VECTOR_SEED = bytes(range(32))
VECTOR_CLIENT_SEEDS = {0: bytes.fromhex("00112233"), 2: bytes.fromhex("ff")}
VECTOR = {
    "context": "2dff21dfd882888e2a3129776d5c4ad994641049f24a2a014cddbeaf82005598",
    "commitment": "2b1bbf2cf6d52b8c0736b37994b698719d5440bce06ec85c3d392c3bc9decc86",
    "seed_commits": {0: "89f66a17f3c6f159df36bf451b2829b03a43bf5e02b541e595ff6c498eb4edfd",
                     2: "f5df815f5f91a1d131b4ace0b62b37ded8b685757813cf9c92c63773990951f3"},
    "digest": "8676b38629f6cf85032c3b4d175306ae4322fac1ca5c4692211f6c30dbc11686",
    "deck": ("10C 9D 9H 6H 3D 6C 2S 2H AH 4H 10S 7H 5D JD 3H 4C 2D 9S KH QH 5H AS 10H QS JS KD 7S KS QD 8C AC 6S "
             "QC 10D JH 5S 8S 7C 7D 8H JC KC 5C 2C 3C 3S 4D 6D 8D 4S AD 9C").split(),
    "fingerprint": "SHA256:bbXpuKG6zhzdmnxq256TlqzFBzRl2f6OOg722cYNbU8",
}
COMMITMENT = VECTOR["commitment"]
VECTOR_EVENTS = {  # the four signed events of FAIRNESS.md §5, and their signatures by RFC 8032's first test key
    "deal_commit": ({"round": 1, "version": 2, "commitment": COMMITMENT, "key": TEST_KEY.hex(), "table_id": "t1",
                     "game": "down-and-back", "seats": [0, 1, 2], "window_ms": 3000},
                    "c2582ce7d102ea4fca9331457168c9b2592b330a70e00cdb48242661e6baadfdec66880da27a72f529013c32847443db"
                    "7326018b528f211d43a85fc3d2fa960f"),
    "seed_set": ({"round": 1, "commitment": COMMITMENT, "commits": [[s, v] for s, v in VECTOR["seed_commits"].items()],
                  "waiting": [0, 2], "after_ms": 120},
                 "a710f7b470bc6d866ceb69503bac091cee13ec69ecf486970012c405ef15028ae8f8bcd834413cdedd7df2fd92a2ac8dc31b"
                 "e7628e7c37018265994c3907fc0d"),
    "deck_fixed": ({"round": 1, "commitment": COMMITMENT, "client_seeds": [[0, "00112233"], [2, "ff"]], "withheld": [],
                    "after_ms": 180},
                   "ec0e32a7da2cc502e925f12ea2a6854caa627d31894948c317b24822f29ca495debc6bad4b1903ab97adc77d0be8e0de06"
                   "bff6b08852c99a146155d7335bed0f"),
    "deal_reveal": ({"commitment": COMMITMENT, "seed": VECTOR_SEED.hex(), "client_seeds": [[0, "00112233"], [2, "ff"]]},
                    "2cfb357918819c085fcba049034c911adc51d681aada12a5e2ce052b5b7c8ba9e5e25b6898a2c74da0ae5634ad875403"
                    "4d79e6e9b410d1ab4594518a0ec12b08"),
}


def _reference_message(kind: str, e: dict[str, Any]) -> bytes:
    head = {"deal_commit": b"down-and-back/fair/sign/deal-commit", "seed_set": b"down-and-back/fair/sign/seed-set",
            "deck_fixed": b"down-and-back/fair/sign/deck-fixed", "deal_reveal": b"down-and-back/fair/sign/reveal"}[kind]
    head += b"\x00"
    deal = bytes.fromhex(e["commitment"])
    if kind == "deal_commit":
        return (head + bytes.fromhex(VECTOR["context"]) + deal + _u32(e["window_ms"]) + bytes([len(e["seats"])])
                + b"".join(_u32(s) for s in e["seats"]))
    if kind == "seed_set":
        return (head + deal + _u32(e["after_ms"]) + bytes([len(e["commits"])])
                + b"".join(_u32(s) + bytes.fromhex(v) for s, v in e["commits"])
                + bytes([len(e["waiting"])]) + b"".join(_u32(s) for s in e["waiting"]))
    digest = bytes.fromhex(VECTOR["digest"])
    if kind == "deck_fixed":
        return (head + deal + _u32(e["after_ms"]) + digest + bytes([len(e["withheld"])])
                + b"".join(_u32(s) for s in e["withheld"]))
    return head + deal + bytes.fromhex(e["seed"]) + digest


def test_fairness_md_test_vectors():
    """Every hash and signature FAIRNESS.md §5 prints: the implementation's, and a second one from the page."""
    reference = _reference(VECTOR_SEED, TEST_KEY, "down-and-back", "t1", 1, VECTOR_CLIENT_SEEDS)
    ctx = context(TEST_KEY, "down-and-back", "t1", 1)
    deal = commitment(VECTOR_SEED, ctx)
    mine = {"context": ctx.hex(), "commitment": deal.hex(),
            "seed_commits": {s: seed_commitment(deal, s, v).hex() for s, v in VECTOR_CLIENT_SEEDS.items()},
            "digest": client_seeds_digest(VECTOR_CLIENT_SEEDS).hex(), "fingerprint": fingerprint(TEST_KEY)}
    deck = list(DECK)
    DealStream(VECTOR_SEED, ctx, VECTOR_CLIENT_SEEDS).shuffle(deck)
    mine["deck"] = [c.text for c in deck]
    reference = {k: ({s: h.hex() for s, h in v.items()} if k == "seed_commits" else v.hex() if isinstance(v, bytes)
                     else v) for k, v in reference.items()}
    assert mine == VECTOR == reference
    assert _reference(VECTOR_SEED, TEST_KEY, "down-and-back", "t2", 1, {})["deck"] != VECTOR["deck"]  # the table binds
    public = Ed25519PublicKey.from_public_bytes(TEST_KEY)
    for kind, (fields, sig) in VECTOR_EVENTS.items():
        event = {"kind": kind, **fields}
        assert signed_message(event) == _reference_message(kind, event)
        assert sign(event) == sig  # Ed25519 signatures are deterministic
        public.verify(bytes.fromhex(sig), _reference_message(kind, event))
    assert Ed25519PrivateKey.from_private_bytes(TEST_SECRET).public_key().public_bytes_raw() == TEST_KEY


def test_fairness_md_prints_every_vector_the_implementations_agree_on():
    """§5 of the page itself holds each vector above (a stranger's verifier is written from the page, so
    the page must not drift from the code): every hash, block, signed message and signature, the deck,
    the first reads, and the other table's values."""
    from pathlib import Path

    page = (Path(__file__).resolve().parents[2] / "docs" / "FAIRNESS.md").read_text(encoding="utf-8")
    section = page[page.index("## 5. Test vectors"):page.index("## 6.")]
    flat = "".join(section.replace("`", "").split())  # the signed messages are printed in pieces
    seed_ctx = context(TEST_KEY, "down-and-back", "t1", 1)
    stream = DealStream(VECTOR_SEED, seed_ctx, VECTOR_CLIENT_SEEDS)
    draws = []
    for i in range(51, 41, -1):
        draws.append(stream.randbelow(i + 1))
    first = DealStream(VECTOR_SEED, seed_ctx, VECTOR_CLIENT_SEEDS)
    other_ctx = context(TEST_KEY, "down-and-back", "t2", 1)
    other = commitment(VECTOR_SEED, other_ctx)
    printed = [VECTOR["context"], VECTOR["commitment"], *VECTOR["seed_commits"].values(), VECTOR["digest"],
               VECTOR["fingerprint"], "".join(VECTOR["deck"]), TEST_KEY.hex(), TEST_SECRET.hex(),
               *(DealStream(VECTOR_SEED, seed_ctx, VECTOR_CLIENT_SEEDS)._block(k).hex() for k in (0, 1)),
               ",".join(map(str, draws)), other_ctx.hex(), other.hex(),
               seed_commitment(other, 0, VECTOR_CLIENT_SEEDS[0]).hex()]
    for kind, (fields, sig) in VECTOR_EVENTS.items():
        printed += [signed_message({"kind": kind, **fields}).hex(), sig]
    missing = [value for value in printed if value not in flat]
    assert not missing, missing
    assert first.randbelow(3) == 2 and "below(3):2(bits10)" in flat  # the first dealer's draw


def test_the_fixture_game_keeps_the_fairness_rule_and_a_game_that_breaks_it_is_caught():
    """docs/ADDING-A-GAME.md §3 on the smallest game: High Card's rounds verify for every viewer; the same
    game drawing its shuffle from its own RNG (not the deal stream fixed from the seeds) is named."""
    from fixture_game import HIGH_CARD, Game, HighCard

    watched = Watched(HIGH_CARD, 3, 8)
    for _ in range(3):
        watched.round({1: SEED_B})
        for viewer in watched.seen:
            verdict = verify_round(HIGH_CARD, watched.last_round(viewer), viewer, SEED_B if viewer == 1 else None,
                                   TEST_KEY)
            assert verdict.ok, verdict

    class OwnShuffle(Game):
        def _first_shuffle(self) -> None:
            if not self.fair.shuffled:
                self.fair.shuffled_once = True
                self.rng.shuffle(self.deck)  # chance no client seed went into

    class Unfair(HighCard):
        GAME = OwnShuffle

    unfair = Unfair()
    watched = Watched(unfair, 3, 8)
    watched.round({1: SEED_B})
    verdict = verify_round(unfair, watched.last_round(0), 0, None, TEST_KEY)
    assert not verdict.ok and verdict.what == "dealt card", verdict  # HIGH_CARD.fair_names["deal"]
