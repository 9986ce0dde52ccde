"""An update dropped before its result could be shown gives back what it spent, in the
drop's own step (ARCHITECTURE.md "Nothing lost, nothing twice"): each write records what it
takes from the sheets' pools beside itself in the update's journal."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import ClassVar

import pytest

from bot.context import using
from bot.store import (
    Begun,
    FlowState,
    Journal,
    ReadAhead,
    SheetSpend,
    Store,
    UpdateRef,
    inbox_key,
    journal_key,
)
from bot.store.journal import Spent, give_back, spent_between
from bot.store.updates import MAX_ATTEMPTS
from rules.errors import RulesInputError
from rules.sheet import (
    Sheet,
    SheetSystem,
    new_sheet,
    set_wheel,
    set_willpower,
    spend_luck,
    spend_quintessence,
    spend_willpower,
)

BOT, CHAT, USER = 7, -100, 42


class Paid(FlowState):
    kind: ClassVar[str] = "test-paid"


def _willpower(sheet: Sheet) -> Sheet | None:
    return None if sheet.willpower is None else spend_willpower(sheet)


def _spend() -> SheetSpend:
    return SheetSpend(user_id=USER, system=SheetSystem.MAGE, change=_willpower)


@asynccontextmanager
async def running(store: Store, update_id: int) -> AsyncIterator[Journal]:
    """The update's handling, as the state middleware begins it (bot/middlewares.py)."""
    await store.inbox_add(BOT, {update_id: "{}"})
    status, _settings, journal, _ahead = await store.begin_update(
        UpdateRef(BOT, update_id, CHAT, CHAT, "token"), force=True, seed=bytes(32)
    )
    assert status is Begun.GO
    assert journal is not None
    with using(journal=journal):
        yield journal


async def _willpower_now(store: Store) -> int | None:
    sheet = await store.load_sheet(CHAT, USER, SheetSystem.MAGE)
    assert sheet is not None
    return sheet.willpower_current


# ----- what a change takes, and giving it back ------------------------------------------------


def test_only_the_pools_that_went_down_are_spent() -> None:
    mage = set_wheel(set_willpower(new_sheet(SheetSystem.MAGE), 5, 4), quintessence=6)
    paid = spend_quintessence(spend_willpower(mage), 2)
    assert spent_between("u:42:mage", mage, paid) == Spent(
        "u:42:mage", {"willpower_current": 1, "quintessence": 2}
    )
    assert spent_between("u:42:mage", paid, mage) is None  # a gain spends nothing
    assert spent_between("u:42:mage", None, paid) is None  # a sheet made by the step
    d6 = new_sheet(SheetSystem.D6).model_copy(update={"luck": 3})
    assert spent_between("u:42:d6", d6, spend_luck(d6, 2)) == Spent("u:42:d6", {"luck": 2})


def test_what_is_given_back_stays_within_the_sheet_as_it_is_now() -> None:
    mage = set_wheel(set_willpower(new_sheet(SheetSystem.MAGE), 5, 2), quintessence=3)
    back = give_back(mage, {"willpower_current": 1, "quintessence": 2})
    assert (back.willpower_current, back.quintessence) == (3, 5)
    lowered = set_willpower(mage, 2, 2)  # the rating went down meanwhile
    assert give_back(lowered, {"willpower_current": 3}).willpower_current == 2
    blank = new_sheet(SheetSystem.MAGE)  # Willpower no longer tracked: nothing to give
    assert give_back(blank, {"willpower_current": 1}) == blank
    d6 = new_sheet(SheetSystem.D6)
    assert give_back(d6, {"luck": 2, "quintessence": 1}).luck == 2  # no wheel on a d6 sheet


# ----- the drop ------------------------------------------------------------------------------


async def test_a_dropped_update_gives_its_willpower_back_once(store: Store) -> None:
    await store.update_sheet(CHAT, USER, SheetSystem.MAGE, lambda s: set_willpower(s, 5, 5))
    async with running(store, 901):
        _flow, sheet = await store.create_flow_spending(Paid(), CHAT, USER, _spend())
    assert sheet is not None
    assert await _willpower_now(store) == 4
    # Another update spends a point meanwhile: only the dropped one's comes back.
    await store.update_sheet(CHAT, USER, SheetSystem.MAGE, spend_willpower)
    refunded = await store.drop_update(BOT, 901, CHAT, "token")
    assert refunded == [Spent(sheet_field(), {"willpower_current": 1})]
    assert await _willpower_now(store) == 4
    assert await store.drop_update(BOT, 901, CHAT, "token") is None  # nothing given twice
    assert await _willpower_now(store) == 4
    assert not await store.redis.hexists(inbox_key(BOT), "901")
    status, *_rest = await store.begin_update(
        UpdateRef(BOT, 901, CHAT, CHAT, "token"), force=True, seed=bytes(32)
    )
    assert status is Begun.DONE  # never run again


async def test_a_write_that_spent_nothing_leaves_nothing_to_give_back(store: Store) -> None:
    async with running(store, 902):
        await store.create_flow(Paid(), CHAT, USER)
        with pytest.raises(RulesInputError):  # no point left: the step wrote nothing
            await store.update_sheet(
                CHAT, USER, SheetSystem.MAGE, lambda s: spend_willpower(set_willpower(s, 1, 0))
            )
    fields = await store.redis.hgetall(journal_key(BOT, 902, CHAT))
    assert not [name for name in fields if name.startswith("sp:")]
    assert await store.drop_update(BOT, 902, CHAT, "token") == []


async def test_a_spend_on_the_sheet_read_ahead_is_given_back_too(store: Store) -> None:
    """A combat tap pays from the sheets read ahead in one script (bot/store/flows.py): its
    record is written by that script."""
    await store.update_sheet(CHAT, USER, SheetSystem.MAGE, lambda s: set_willpower(s, 5, 3))
    flow = await store.create_flow(Paid(), CHAT, USER)
    async with running(store, 903):
        _status, _settings, _journal, prefetch = await store.begin_update(
            UpdateRef(BOT, 903, CHAT, CHAT, "token"),
            force=True,
            seed=bytes(32),
            ahead=ReadAhead(all_sheets=True),
        )
        with using(prefetch=prefetch):
            advanced, sheet = await store.advance_flow_spending(flow, 0, Paid(), _spend())
    assert advanced is not None
    assert sheet is not None
    assert await _willpower_now(store) == 2
    fields = await store.redis.hgetall(journal_key(BOT, 903, CHAT))
    assert f"sp:{flow.id}:0" in fields  # the script's own record
    assert await store.drop_update(BOT, 903, CHAT, "token") == [
        Spent(sheet_field(), {"willpower_current": 1})
    ]
    assert await _willpower_now(store) == 3


def sheet_field() -> str:
    return _spend().field()


async def test_an_update_that_crashed_its_process_too_often_gives_back_what_it_spent(
    store: Store,
) -> None:
    """Given up after MAX_ATTEMPTS runs that never ended (bot/middlewares.py drops it)."""
    await store.update_sheet(CHAT, USER, SheetSystem.MAGE, lambda s: set_willpower(s, 5, 5))
    async with running(store, 904):
        await store.create_flow_spending(Paid(), CHAT, USER, _spend())
    for _ in range(MAX_ATTEMPTS - 1):
        await store.begin_update(
            UpdateRef(BOT, 904, CHAT, CHAT, "token"), force=True, seed=bytes(32)
        )
    status, *_rest = await store.begin_update(
        UpdateRef(BOT, 904, CHAT, CHAT, "token"), force=True, seed=bytes(32)
    )
    assert status is Begun.GIVEN_UP
    assert await _willpower_now(store) == 4
    assert await store.drop_update(BOT, 904, CHAT, "token") is not None
    assert await _willpower_now(store) == 5
