"""Issue 17's rematch: at game over the host offers same seats, same settings; everyone seated answers.

Real servers on ephemeral ports, scripted clients; nothing waits by sleeping
(the deadline test waits for the cancelling event itself).
"""

from __future__ import annotations

from typing import Any

from protocol import messages as m
from scripted import ScriptedClient


def rematch_events(client: ScriptedClient) -> list[dict[str, Any]]:
    return [e for e in client.events if e["kind"].startswith("rematch")]


async def game_over(host: ScriptedClient, *others: ScriptedClient, bots: int = 1, code: str | None = None,
                    **settings: Any) -> str:
    created = await host.request(m.CreateTable, name="again", private_code=code,
                                 settings=m.TableSettings(seats=1 + len(others) + bots, **settings))
    for other in others:
        await other.request(m.Join, table_id=created["table_id"], private_code=code)
    for _ in range(bots):
        await host.request(m.AddBot)
    await host.request(m.Start)
    await host.request(m.EndGame)
    return created["table_id"]


async def test_a_rematch_accepted_by_every_seat_starts_a_new_table_with_the_same_seats_and_settings(durable):
    server = await durable()
    async with ScriptedClient(server.port, "ann") as ann, ScriptedClient(server.port, "bob") as bob:
        old = await game_over(ann, bob, code="1234", rules={"ante": 5, "turns": 7})
        before = dict(ann.facts[old])
        await ann.request(m.OfferRematch)
        await bob.wait_for(lambda: bob.facts[old]["rematch"])
        assert bob.facts[old]["rematch"]["accepted"] == [0, 2] and bob.facts[old]["rematch"]["waiting"] == [1]
        assert rematch_events(bob) == [{"kind": "rematch", "seat": 0, "seats": [0, 1, 2]}]
        await bob.request(m.AnswerRematch, accept=True)
        new = await ann.wait_for(lambda: next((t for t in ann.facts if t != old), None))
        await bob.wait_for(lambda: new in bob.facts)
        facts = ann.facts[new]
        assert facts["state"] == "playing" and facts["private"] and facts["host_seat"] == 0
        assert facts["settings"] == before["settings"] and facts["name"] == before["name"]
        assert [(x["seat"], x["name"], x["bot"]) for x in facts["members"]] == \
            [(x["seat"], x["name"], x["bot"]) for x in before["members"]]
        assert old not in server.lobby.tables  # nobody left at it: closed
    await server.close(grace=1.0)
    server = await durable()  # the new table and its game are stored like any other
    assert server.lobby.tables[new].state == "playing"
    assert set(server.lobby.tables[new].seats) == {0, 1, 2}


async def test_a_decline_or_a_leave_cancels_the_rematch_and_says_why(connect):
    async with connect("ann") as ann, connect("bob") as bob, connect("sam") as sam:
        old = await game_over(ann, bob)
        await sam.request(m.Watch, table_id=old)
        await ann.request(m.OfferRematch)
        await bob.request(m.AnswerRematch, accept=False)
        await sam.wait_for(lambda: any(e["kind"] == "rematch_cancelled" for e in sam.events))
        assert rematch_events(sam)[-1] == {"kind": "rematch_cancelled", "seat": 1, "reason": "bob declined the rematch"}
        await sam.wait_for(lambda: sam.facts[old]["rematch"] is None)
        await ann.request(m.OfferRematch)
        await bob.request(m.Leave)
        await sam.wait_for(lambda: rematch_events(sam)[-1]["kind"] == "rematch_cancelled")
        assert rematch_events(sam)[-1]["reason"] == "bob left the table"
        assert set(ann.facts) == {old}  # no new table was opened


async def test_an_unanswered_rematch_lapses_at_its_deadline(server, connect):
    server.lobby.config.table.rematch_timeout = 0.3
    async with connect("ann") as ann, connect("bob") as bob:
        old = await game_over(ann, bob)
        await ann.request(m.OfferRematch)
        await ann.wait_for(lambda: rematch_events(ann) and rematch_events(ann)[-1]["kind"] == "rematch_cancelled")
        assert rematch_events(ann)[-1] == {"kind": "rematch_cancelled", "reason": "no answer in time from bob"}
        await ann.wait_for(lambda: ann.facts[old]["rematch"] is None)


async def test_a_host_alone_with_bots_gets_the_rematch_at_once_in_any_game(connect):
    async with connect("ann") as ann:
        created = await ann.request(m.CreateTable, name="crib", settings=m.TableSettings(game="cribbage", seats=2))
        await ann.request(m.AddBot)
        await ann.request(m.Start)
        await ann.request(m.EndGame)
        await ann.request(m.OfferRematch)
        new = await ann.wait_for(lambda: next((t for t in ann.facts if t != created["table_id"]), None))
        assert ann.facts[new]["state"] == "playing" and ann.facts[new]["settings"]["game"] == "cribbage"


async def test_a_restart_forgets_a_pending_offer_and_the_host_offers_again(durable):
    """Offers are not stored (PROTOCOL.md ``offer_rematch``, DURABILITY.md): the finished table comes back with
    its seats and standings and no offer; the host offers again and the rematch starts as before."""
    server = await durable()
    async with ScriptedClient(server.port, "ann") as ann, ScriptedClient(server.port, "bob") as bob:
        old = await game_over(ann, bob, bots=0)
        await ann.request(m.OfferRematch)
        await bob.wait_for(lambda: bob.facts[old]["rematch"])
        tokens = ann.link.token, bob.link.token
    await server.close(grace=1.0)
    server = await durable()
    async with ScriptedClient(server.port, "ann", tokens[0]) as ann, ScriptedClient(server.port, "bob", tokens[1]) as bob:
        facts = await bob.wait_for(lambda: bob.facts.get(old))
        assert facts["state"] == "finished" and facts["rematch"] is None and facts["seat"] == 1
        await ann.request(m.OfferRematch)
        await bob.wait_for(lambda: (bob.facts[old]["rematch"] or {}).get("waiting") == [1])
        await bob.request(m.AnswerRematch, accept=True)
        new = await ann.wait_for(lambda: next((t for t in ann.facts if t != old), None))
        assert (await bob.wait_for(lambda: bob.facts.get(new)))["state"] == "playing"
