"""Issue 15: provably fair deals in the engine (engine/fairness.py, docs/FAIRNESS.md).

"What must be shown" 1: a tampered deal is caught, the verdict naming what is
wrong (a stock card, the cut, a client seed, the revealed seed, the
commitment); 2: the stream's rejection sampling is exact on small ranges, and
the algorithm is FAIRNESS.md's byte for byte (its test vectors, recomputed
here from the spec with hashlib and hmac alone).
"""

from __future__ import annotations

import copy
import hashlib
import hmac
from typing import Any

import pytest
from hypothesis import given, settings, strategies as st

from engine.cards import DECK
from engine.contract import EndGame, StartRound, Status
from engine.errors import IllegalAction, InvalidAction
from engine.fairness import (
    ClientSeed, DealStream, commitment, client_seeds_digest, sample_below, verify_record, verify_round,
)
from engine.games import GAMES, find_game
from engine.rng import HashRng

DAB, CRIBBAGE = find_game("down-and-back"), find_game("cribbage")
SEED_A, SEED_B = "a1" * 16, "0b0b"


class Watched:
    """A game and every event each viewer (its seats and a spectator) has seen of it."""

    def __init__(self, game_type: Any, players: int, seed: int, **rules: Any) -> None:
        self.game_type = game_type
        self.game = game_type.new(game_type.settings(rules), [(s, f"p{s}", 1000) for s in range(players)],
                                  HashRng(seed))
        self.seen: dict[int | None, list[dict[str, Any]]] = {v: [] for v in [*range(players), None]}

    def apply(self, seat: int | None, action: Any) -> None:
        for record in self.game.apply(seat, action):
            for viewer, events in self.seen.items():
                events.append(record.for_seat(viewer))

    def round(self, seeds: dict[int, str], pick: int = 7) -> None:
        """Deal a round with ``seeds`` sent before the cut, and play it out by a fixed spread of choices."""
        self.apply(None, StartRound())
        for seat, seed in seeds.items():
            self.apply(seat, ClientSeed(seed))
        while self.game.status is Status.PLAYING:
            seat = self.game.to_act()[0]
            legal = self.game.legal_actions(seat)
            self.apply(seat, legal[len(self.game.history) * pick % len(legal)])

    def last_round(self, viewer: int | None) -> list[dict[str, Any]]:
        events = self.seen[viewer]
        start = max(i for i, e in enumerate(events) if e["kind"] == "deal_commit")
        return copy.deepcopy(events[start:])


@pytest.fixture(scope="module")
def dab() -> Watched:
    """A Down and Back round with client seeds from two seats and a stock reshuffle."""
    watched = Watched(DAB, 5, 1, turns=7)
    watched.round({0: SEED_A, 3: SEED_B})
    assert "reshuffle" in {e["kind"] for e in watched.last_round(None)}
    return watched


def test_an_honest_round_verifies_for_every_seat_and_a_spectator(dab):
    for viewer in dab.seen:
        verdict = verify_round(DAB, dab.last_round(viewer), viewer, {0: SEED_A, 3: SEED_B}.get(viewer))
        assert verdict.ok and verdict.round == 1 and verdict.message == "deal verified", verdict


def _tampered(dab: Watched, viewer: int, change: Any) -> Any:
    events = dab.last_round(viewer)
    change(events, events[-1])
    return verify_round(DAB, events, viewer, {0: SEED_A, 3: SEED_B}.get(viewer))


def test_a_changed_stock_card_is_named():
    """The stock card a seat drew is not the committed deck's: the verdict says "stock card" and both cards."""
    dab = Watched(DAB, 3, 1)
    dab.round({})
    events = dab.last_round(1)
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


def test_a_changed_client_seed_is_named(dab):
    def other_seed(events, reveal):
        reveal["client_seeds"][1][1] = "0c0c"
    verdict = _tampered(dab, 2, other_seed)
    assert not verdict.ok and verdict.what == "client seed" and "seat 3" in verdict.message


def test_a_client_seed_left_out_of_the_deck_is_named(dab):
    """The server says it took seat 0's seed but dealt without it: seat 0 sees its own seed missing."""
    def drop_mine(events, reveal):
        reveal["client_seeds"] = [s for s in reveal["client_seeds"] if s[0] != 0]
    verdict = _tampered(dab, 0, drop_mine)
    assert not verdict.ok and verdict.what == "client seed" and "yours" in verdict.message


def test_client_seeds_changed_in_the_actions_and_the_list_alike_are_named(dab):
    def other_seed_everywhere(events, reveal):
        reveal["client_seeds"][1][1] = "0c0c"
        next(a for _, a in reveal["actions"] if a["kind"] == "client_seed" and a["seed"] == SEED_B)["seed"] = "0c0c"
    verdict = _tampered(dab, 4, other_seed_everywhere)
    assert not verdict.ok and verdict.what == "client seed"


def test_a_changed_revealed_seed_is_named(dab):
    def other_seed(events, reveal):
        reveal["seed"] = "00" * 32
    verdict = _tampered(dab, 1, other_seed)
    assert not verdict.ok and verdict.what == "revealed seed" and verdict.message.startswith("revealed seed: ")


def test_a_changed_commitment_is_named(dab):
    """A server that reveals another seed with a commitment to match is caught: the commitment seen
    before the cut is not the one the reveal names."""
    def other_commitment(events, reveal):
        reveal["seed"] = "00" * 32
        reveal["commitment"] = commitment(bytes(32), reveal["round"]).hex()
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
    assert all(v.ok for v in verify_record(DAB, record)) and len(verify_record(DAB, record)) == 3
    record["fair"]["seed"] = "11" * 32
    assert {v.what for v in verify_record(DAB, record)} == {"revealed seed"}


@settings(max_examples=12, deadline=None)
@given(game_name=st.sampled_from(sorted(GAMES)), players=st.integers(2, 4), seed=st.integers(0, 2**16),
       seeds=st.dictionaries(st.integers(0, 3), st.binary(min_size=1, max_size=64), max_size=3),
       pick=st.integers(1, 50))
def test_every_round_of_every_game_verifies_for_every_viewer(game_name, players, seed, seeds, pick):
    watched = Watched(GAMES[game_name], players, seed)
    sent = {s: v.hex() for s, v in seeds.items() if s < players}
    for _ in range(2):
        if watched.game.status is not Status.BETWEEN_ROUNDS:
            break
        watched.round(sent, pick)
        for viewer in watched.seen:
            verdict = verify_round(GAMES[game_name], watched.last_round(viewer), viewer, sent.get(viewer))
            assert verdict.ok, verdict


# ----------------------------------------------------------------- the client seed's rules


def test_client_seeds_are_taken_until_the_first_cut_once_per_seat_dealt_in():
    game = DAB.new(DAB.settings(), [(0, "a", 100), (1, "b", 100)], HashRng(2))
    game.apply(None, StartRound())
    decision = game.decision()
    records = game.apply(1, ClientSeed("ff00"))
    assert [(r.kind, r.seat, r.public) for r in records] == [("client_seed", 1, {"seed": "ff00"})]
    assert game.decision() == decision and game.to_act() == [game.cutter]  # no decision, nobody waits
    with pytest.raises(IllegalAction, match="already sent"):
        game.apply(1, ClientSeed("aa"))
    with pytest.raises(IllegalAction, match="not dealt in"):
        game.check(7, ClientSeed("aa"))
    game.apply(game.cutter, game.legal_actions(game.cutter)[0])
    with pytest.raises(IllegalAction, match="already fixed"):
        game.apply(0, ClientSeed("aa"))
    assert ClientSeed("aa") not in game.legal_actions(game.to_act()[0])


@pytest.mark.parametrize("seed", ["", "abc", "AB", "zz", "00" * 65, 12, None])
def test_a_malformed_client_seed_is_invalid_in_every_game(seed):
    for game_type in GAMES.values():
        with pytest.raises(InvalidAction, match="client seed"):
            game_type.action_from_data({"kind": "client_seed", "seed": seed})
    assert DAB.action_from_data({"kind": "client_seed", "seed": "00" * 64}) == ClientSeed("00" * 64)


def test_the_seed_is_in_no_view_or_event_before_the_round_ends_and_in_both_after():
    for game_type in GAMES.values():
        watched = Watched(game_type, 2, 9)
        watched.apply(None, StartRound())
        secret = watched.game.fair.seed.hex()
        commit = watched.seen[None][-1]
        assert commit["kind"] == "deal_commit" and commit["commitment"] == commitment(bytes.fromhex(secret), 1).hex()
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


def test_a_round_ended_by_the_table_is_revealed_and_verifies():
    watched = Watched(CRIBBAGE, 2, 3)
    watched.apply(None, StartRound())
    watched.apply(0, ClientSeed(SEED_A))
    watched.apply(None, EndGame())
    assert watched.seen[1][-1]["kind"] == "deal_reveal"
    assert verify_round(CRIBBAGE, watched.last_round(1), 1).ok


def test_replay_and_restore_keep_the_committed_deck():
    """From the game's seed and its log (client seeds included), and from its plain data mid-round."""
    for game_type in GAMES.values():
        watched = Watched(game_type, 3, 11)
        watched.apply(None, StartRound())
        watched.apply(2, ClientSeed(SEED_B))
        restored = game_type.from_data(watched.game.to_data())
        replayed = game_type.new(watched.game.settings, watched.game.initial_players,
                                 HashRng.from_data(watched.game.initial_rng))
        for seat, data in watched.game.history:
            replayed.apply(seat, game_type.action_from_data(data))
        for game in (watched.game, restored, replayed):
            seat = game.cutter
            game.apply(seat, game_type.action_from_data({"kind": "cut", "position": 10}))
        assert watched.game.to_data() == restored.to_data() == replayed.to_data()


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
    seed, digest = bytes(range(32)), client_seeds_digest({})
    prefix = b"down-and-back/fair/stream\x00" + (1).to_bytes(2, "big") + (3).to_bytes(8, "big") + digest
    blocks = b"".join(hmac.digest(seed, prefix + k.to_bytes(8, "big"), "sha256") for k in range(3))
    bits = "".join(f"{byte:08b}" for byte in blocks)
    for width in (1, 3, 7, 8, 13, 64, 255):
        stream, read = DealStream(seed, 3, {}), ""
        while len(read) + width <= 600:
            read += format(stream.bits(width), f"0{width}b")
        assert read == bits[:len(read)]


def _reference_shuffle(seed: bytes, round_no: int, client_seeds: dict[int, bytes]) -> list[str]:
    """FAIRNESS.md §2 written out again from the text, with hashlib and hmac only."""
    body = b"".join(s.to_bytes(4, "big") + bytes([len(v)]) + v for s, v in sorted(client_seeds.items()))
    digest = hashlib.sha256(b"down-and-back/fair/client-seeds\x00" + body).digest()
    prefix = b"down-and-back/fair/stream\x00" + (1).to_bytes(2, "big") + round_no.to_bytes(8, "big") + digest
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
    return deck


VECTOR_SEED = bytes(range(32))
VECTOR_CLIENT_SEEDS = {0: bytes.fromhex("00112233"), 2: bytes.fromhex("ff")}
VECTOR_DECK = ("7S 5H 6H 4D 4C AS 5C 3C KC JH AH 10S 5D KS 9C 2C 10C 2S 8S 6C QD KD 3S 5S 6S AC 7H JD QH 9H JC JS "
               "3H QS 2H KH 8H 3D 2D 4H 9S 6D 10D 10H 9D 8D QC 4S AD 7D 8C 7C").split()


def test_fairness_md_test_vectors():
    """The commitment, the client seeds' digest and the shuffled deck FAIRNESS.md §5 prints."""
    assert commitment(VECTOR_SEED, 1).hex() == "41c4be6b4ec9dcaceb81c18a0ee4b23fdff729db89aa23b5c5767d51b57c9069"
    assert client_seeds_digest(VECTOR_CLIENT_SEEDS).hex() == \
        "8676b38629f6cf85032c3b4d175306ae4322fac1ca5c4692211f6c30dbc11686"
    deck = list(DECK)
    DealStream(VECTOR_SEED, 1, VECTOR_CLIENT_SEEDS).shuffle(deck)
    assert [c.text for c in deck] == VECTOR_DECK == _reference_shuffle(VECTOR_SEED, 1, VECTOR_CLIENT_SEEDS)
    assert _reference_shuffle(VECTOR_SEED, 2, {}) != VECTOR_DECK  # the round number is in the stream
