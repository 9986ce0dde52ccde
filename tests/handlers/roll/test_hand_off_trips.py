"""A roll that a press makes — the wizard's «Бросить», a result's «Ещё раз» — is one write:
the pressed flow closes, the result's flow opens with its log line, and a point of Willpower
leaves the sheet, all in the step's one compare-and-set (bot/runner.py ``HandOver`` with
``Into``). A round-trip is one request written to Redis (a pipeline, a script, a MULTI…EXEC
or a WATCH's read counted apart), as ``tests/handlers/roll/test_trait_roll_trips.py``
counts them."""

from __future__ import annotations

import json

from handlers.roll.callbacks import RollAction, RollCallback
from rules.sheet import SheetSystem
from table.store import flow_key, log_key
from tests.handlers.conftest import Table, player
from tests.handlers.roll.test_roll import action_data, fail_once, open_wizard
from tests.handlers.roll.test_sheet_rolls import give_sheet
from tests.handlers.roll.test_trait_roll_trips import trips
from tests.handlers.test_table_rolls import last_markup

__all__ = ["trips"]  # the fixture, counting each request written to Redis

ANNA = player(1, "Anna")


def writes(trips: list[bytes]) -> list[bytes]:
    """The press's own writes: the scripts and MULTI…EXECs between the update's first
    round-trip and its end (both scripts of the update's own)."""
    return [t for t in trips[1:-1] if b"EVALSHA" in t or b"MULTI" in t]


async def wizard_at_roll(table: Table, *, willpower: bool) -> tuple[int, str]:
    await table.store.load_scripts()
    wizard_id = await open_wizard(table)
    await table.tap(ANNA, action_data(last_markup(table), RollAction.POOL, 5), wizard_id)
    if willpower:
        await table.tap(ANNA, action_data(last_markup(table), RollAction.WILLPOWER), wizard_id)
        await give_sheet(table, ANNA.id, wp=(3, 5))  # the press reads the sheet as it is
    return wizard_id, action_data(last_markup(table), RollAction.ROLL)


async def test_the_wizard_s_roll_is_one_write(table: Table, trips: list[bytes]) -> None:
    wizard_id, roll = await wizard_at_roll(table, willpower=False)
    wizard = RollCallback.unpack(roll).f
    trips.clear()
    await table.tap(ANNA, roll, wizard_id)
    assert len(writes(trips)) == 1, [t[:60] for t in trips]
    closed = await table.store.redis.hgetall(flow_key(table.chat.id, wizard))
    assert closed["closed"] == "1"
    shown = table.session.edits[-1].text
    assert json.loads(closed["screen"])["text"] == shown  # a late press redraws the result
    assert await table.store.redis.llen(log_key(table.chat.id)) == 1


async def test_the_wizard_s_roll_with_willpower_is_one_write(
    table: Table, trips: list[bytes]
) -> None:
    wizard_id, roll = await wizard_at_roll(table, willpower=True)
    trips.clear()
    await table.tap(ANNA, roll, wizard_id)
    assert len(writes(trips)) == 1, [t[:60] for t in trips]
    assert "Сила Воли: осталось 2 из 5" in table.session.edits[-1].text
    sheet = await table.store.load_sheet(table.chat.id, ANNA.id, SheetSystem.MAGE)
    assert sheet is not None
    assert sheet.willpower_current == 2


async def test_a_retry_is_one_write(table: Table, trips: list[bytes]) -> None:
    await table.store.load_scripts()
    data, message_id = await fail_once(table)
    rolled = await table.store.redis.llen(log_key(table.chat.id))
    trips.clear()
    await table.tap(ANNA, data, message_id)
    assert len(writes(trips)) == 1, [t[:60] for t in trips]
    assert await table.store.redis.llen(log_key(table.chat.id)) == rolled + 1
    assert "попытка 2" in table.session.sent[-1].text
