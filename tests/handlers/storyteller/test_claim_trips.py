"""A claim's press is one compare-and-set: the role moves and the claim closes in the same
transaction over the chat's settings and the claim's flow (``Store.claim_storyteller``),
the closed claim keeping what its message now says; only the campaign lists follow, in
the users' own slots (table/store/chats.py)."""

from __future__ import annotations

import asyncio
import json

from aiogram.types import User

from handlers.storyteller.callbacks import StCallback
from handlers.storyteller.flow import ClaimState
from table.store import Screen, Store, flow_key
from tests.handlers.conftest import GROUP, Table, buttons, player
from tests.handlers.roll.test_trait_roll_trips import trips

__all__ = ["trips"]  # the fixture, counting each request written to Redis

ANNA = player(1, "Anna")
EMMA = player(3, "Emma")
ANONYMOUS = User(id=1087968824, is_bot=True, first_name="Group", username="GroupAnonymousBot")


def transactions(trips: list[bytes]) -> list[bytes]:
    """The press's own writes: the MULTI…EXECs and scripts between the update's first
    round-trip and its end, and pipelines of plain writes."""
    return [t for t in trips[1:-1] if b"MULTI" in t or b"EVALSHA" in t]


async def claim(table: Table) -> tuple[str, int]:
    await table.store.load_scripts()
    await table.say(ANONYMOUS, "/st", sender_chat=GROUP)
    [button] = buttons(table.session.sent[-1].reply_markup)
    return button.callback_data or "", table.session.messages[-1].message_id


async def test_a_claim_moves_the_role_and_closes_in_one_write(
    table: Table, trips: list[bytes]
) -> None:
    table.session.admins.add(ANNA.id)
    data, message_id = await claim(table)
    trips.clear()
    await table.tap(ANNA, data, message_id)
    assert len(transactions(trips)) == 1, [t[:60] for t in trips]
    assert (await table.store.load_chat(GROUP.id)).storyteller_id == ANNA.id
    closed = await table.store.redis.hgetall(flow_key(GROUP.id, StCallback.unpack(data).f))
    assert closed["closed"] == "1"
    shown = table.session.edits[-1].text
    assert shown == "🎭 Anna теперь Рассказчик этого чата."
    assert json.loads(closed["screen"])["text"] == shown  # a late press redraws it


async def test_a_claim_the_role_left_meanwhile_closes_and_says_so(table: Table) -> None:
    table.session.admins.update({ANNA.id, EMMA.id})
    data, message_id = await claim(table)
    await table.say(EMMA, "/st")  # Emma claims directly while the button waits
    await table.tap(ANNA, data, message_id)
    assert (await table.store.load_chat(GROUP.id)).storyteller_id == EMMA.id
    closed = await table.store.redis.hgetall(flow_key(GROUP.id, StCallback.unpack(data).f))
    assert closed["closed"] == "1"
    said = json.loads(closed["screen"])["text"]
    assert said.startswith("Роль Рассказчика тем временем уже сменилась")
    assert table.session.edits[-1].text == said
    await table.tap(ANNA, data, message_id)
    assert table.session.answers[-1].text == "Этот бросок закрыт."
    assert (await table.store.load_chat(GROUP.id)).storyteller_id == EMMA.id


async def test_two_presses_on_one_claim_move_the_role_once(fake_store: Store) -> None:
    """Both read the claim at its version; one transaction closes it and moves the role, the
    other finds it moved and writes nothing (its press then reads the claim closed)."""
    made = await fake_store.create_flow(ClaimState(expected=None), GROUP.id, 0)
    said = Screen(text="won")
    claims = [
        fake_store.claim_storyteller(
            made, expected=None, new_id=uid, name=name, title="T", won=said, lost=said
        )
        for uid, name in ((ANNA.id, "Anna"), (EMMA.id, "Emma"))
    ]
    results = await asyncio.gather(*claims)
    assert sorted(results, key=str) == [None, True]
    settings = await fake_store.load_chat(GROUP.id)
    winner = ANNA.id if results[0] else EMMA.id
    assert settings.storyteller_id == winner
    lists = [await fake_store.campaigns(uid) for uid in (ANNA.id, EMMA.id)]
    assert sorted(len(runs) for _chosen, runs in lists) == [0, 1]
