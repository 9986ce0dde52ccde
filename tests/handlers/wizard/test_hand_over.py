"""The wizard hands its roll over to another feature's flow (bot/runner.py ``HandOver`` with
``Into``): the wizard's close and the new flow are one write, and the closed wizard keeps the
new flow's drawing, so a late press on its old buttons shows what the message shows now."""

from __future__ import annotations

import json

from handlers.wizard.callbacks import SetupAction, SetupCallback
from table.store import flow_key
from tests.handlers.conftest import Table, player
from tests.handlers.roll.test_trait_roll_trips import trips
from tests.handlers.test_table_rolls import find, last_markup, last_text, sent_id

__all__ = ["trips"]  # the fixture, counting each request written to Redis

ANNA = player(1, "Anna")


async def test_the_wizard_closes_and_the_actions_open_in_one_write(
    table: Table, trips: list[bytes]
) -> None:
    await table.store.load_scripts()
    await table.say(ANNA, "/multi")
    message_id = sent_id(table)
    wizard = SetupCallback.unpack(find(last_markup(table), SetupCallback, a=SetupAction.CANCEL))

    async def tap(action: SetupAction, x: int = 0) -> None:
        await table.tap(ANNA, find(last_markup(table), SetupCallback, a=action, x=x), message_id)

    await tap(SetupAction.POOL, 6)
    await tap(SetupAction.POOL, 7)
    trips.clear()
    await tap(SetupAction.GO)
    # The update's first round-trip, the step with everything it writes, the update's end.
    assert len(trips) == 3, [t[:60] for t in trips]
    shown = last_text(table)
    assert "1. 6" in shown
    assert "2. 7" in shown
    closed = await table.store.redis.hgetall(flow_key(table.chat.id, wizard.f))
    assert closed["closed"] == "1"
    # What a late press on the old buttons redraws.
    assert json.loads(closed["screen"])["text"] == shown
    opened = [
        await table.store.redis.hgetall(key)
        for key in await table.store.redis.keys(flow_key(table.chat.id, "*"))
        if key != flow_key(table.chat.id, wizard.f)
    ]
    assert [flow.get("closed", "0") for flow in opened] == ["0"]
    assert opened[0]["locale"] == "ru"  # drawn in the chat's language when pressed again
