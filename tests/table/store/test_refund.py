"""An update dropped before its result could be shown gives back what it spent, in the
drop's own step (ARCHITECTURE.md "Nothing lost, nothing twice"): each write records what it
takes from the sheets' pools beside itself in the update's journal."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import ClassVar

import pytest

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
from table.scope import Campaign, Scope
from table.store import (
    Begun,
    FlowState,
    LogEntry,
    ReadAhead,
    SheetSpend,
    Store,
    UpdateRef,
    inbox_key,
    journal_key,
)
from table.store.inline import give_back_offers, offer_pointer, pointed_offers
from table.store.journal import Dropped, Spent, give_back, spent_between
from table.store.updates import MAX_ATTEMPTS
from tests.table.store.scoping import bound_to

BOT, CHAT, USER = 7, -100, 42


class Paid(FlowState):
    kind: ClassVar[str] = "test-paid"


def _willpower(sheet: Sheet) -> Sheet | None:
    return None if sheet.willpower is None else spend_willpower(sheet)


def _spend() -> SheetSpend:
    return SheetSpend(user_id=USER, system=SheetSystem.MAGE, change=_willpower)


@asynccontextmanager
async def running(store: Store, update_id: int) -> AsyncIterator[Store]:
    """The update's handling, as the state middleware begins it (bot/middlewares.py)."""
    await store.inbox_add(BOT, {update_id: "{}"})
    status, _settings, journal, _ahead = await store.begin_update(
        UpdateRef(BOT, update_id, CHAT, CHAT, "token"), force=True, seed=bytes(32)
    )
    assert status is Begun.GO
    assert journal is not None
    with bound_to(store, Scope(journal=journal)) as bound:
        yield bound


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
    async with running(store, 901) as bound:
        _flow, sheet = await bound.create_flow_spending(Paid(), CHAT, USER, _spend())
    assert sheet is not None
    assert await _willpower_now(store) == 4
    # Another update spends a point meanwhile: only the dropped one's comes back.
    await store.update_sheet(CHAT, USER, SheetSystem.MAGE, spend_willpower)
    dropped = await store.drop_update(BOT, 901, CHAT, "token")
    assert dropped == Dropped([Spent(sheet_field(), {"willpower_current": 1})], wrote=True)
    assert await _willpower_now(store) == 4
    assert await store.drop_update(BOT, 901, CHAT, "token") is None  # nothing given twice
    assert await _willpower_now(store) == 4
    assert not await store.redis.hexists(inbox_key(BOT), "901")
    status, *_rest = await store.begin_update(
        UpdateRef(BOT, 901, CHAT, CHAT, "token"), force=True, seed=bytes(32)
    )
    assert status is Begun.DONE  # never run again


async def test_a_write_that_spent_nothing_leaves_nothing_to_give_back(store: Store) -> None:
    async with running(store, 902) as bound:
        await bound.create_flow(Paid(), CHAT, USER)
        with pytest.raises(RulesInputError):  # no point left: the step wrote nothing
            await bound.update_sheet(
                CHAT, USER, SheetSystem.MAGE, lambda s: spend_willpower(set_willpower(s, 1, 0))
            )
    fields = await store.redis.hgetall(journal_key(BOT, 902, CHAT))
    assert not [name for name in fields if name.startswith("sp:")]
    assert await store.drop_update(BOT, 902, CHAT, "token") == Dropped([], wrote=True)


async def test_a_spend_on_the_sheet_read_ahead_is_given_back_too(store: Store) -> None:
    """A combat tap pays from the sheets read ahead in one script (table/store/flows.py): its
    record is written by that script."""
    await store.update_sheet(CHAT, USER, SheetSystem.MAGE, lambda s: set_willpower(s, 5, 3))
    flow = await store.create_flow(Paid(), CHAT, USER)
    async with running(store, 903) as bound:
        _status, _settings, _journal, prefetch = await bound.begin_update(
            UpdateRef(BOT, 903, CHAT, CHAT, "token"),
            force=True,
            seed=bytes(32),
            ahead=ReadAhead(all_sheets=True),
        )
        bound.scope.prefetch = prefetch  # the read-ahead of this run, for its step
        advanced, sheet = await bound.advance_flow_spending(flow, 0, Paid(), _spend())
    assert advanced is not None
    assert sheet is not None
    assert await _willpower_now(store) == 2
    fields = await store.redis.hgetall(journal_key(BOT, 903, CHAT))
    assert f"sp:{flow.id}:0" in fields  # the script's own record
    dropped = await store.drop_update(BOT, 903, CHAT, "token")
    assert dropped is not None
    assert dropped.refunded == [Spent(sheet_field(), {"willpower_current": 1})]
    assert await _willpower_now(store) == 3


def sheet_field() -> str:
    return _spend().field()


async def test_an_update_that_crashed_its_process_too_often_gives_back_what_it_spent(
    store: Store,
) -> None:
    """Given up after MAX_ATTEMPTS runs that never ended (bot/middlewares.py drops it)."""
    await store.update_sheet(CHAT, USER, SheetSystem.MAGE, lambda s: set_willpower(s, 5, 5))
    async with running(store, 904) as bound:
        await bound.create_flow_spending(Paid(), CHAT, USER, _spend())
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


async def test_an_update_that_wrote_nothing_says_so_when_dropped(store: Store) -> None:
    async with running(store, 905):
        pass
    assert await store.drop_update(BOT, 905, CHAT, "token") == Dropped([], wrote=False)


# ----- an inline roll's spend, in its campaign's slot -------------------------------------------

CAMPAIGN = -100_555


@asynccontextmanager
async def pressing(store: Store, update_id: int) -> AsyncIterator[Store]:
    """A press on a message sent in inline mode: no chat, journaled under its sender, in
    another slot than the campaign whose sheet it pays from (table/store/inline.py)."""
    status, _settings, journal, _ahead = await store.begin_update(
        UpdateRef(BOT, update_id, USER, None, "token"), force=True, seed=bytes(32)
    )
    assert status is Begun.GO
    assert journal is not None
    with bound_to(store, Scope(journal=journal)) as bound:
        yield bound


async def _campaign_willpower(store: Store) -> int | None:
    sheet = await store.load_sheet(CAMPAIGN, USER, SheetSystem.MAGE)
    assert sheet is not None
    return sheet.willpower_current


async def _roll_offer(store: Store, offer_id: str) -> tuple[bool, str | None]:
    entry = LogEntry(user_id=USER, name="Аня", pool=3, difficulty=6, faces=(9, 5, 1))
    return await store.settle_offer(
        CAMPAIGN, offer_id, lambda _sheet: "Аня: 1 успех", spend=_spend(), entries=[entry]
    )


async def test_a_dropped_inline_roll_gives_its_willpower_back_once(store: Store) -> None:
    await store.update_sheet(CAMPAIGN, USER, SheetSystem.MAGE, lambda s: set_willpower(s, 5, 5))
    await store.put_offers(CAMPAIGN, {"offer0000001": "{}"})
    async with pressing(store, 911) as bound:
        assert await _roll_offer(bound, "offer0000001") == (True, "Аня: 1 успех")
    assert await _campaign_willpower(store) == 4
    # Another update spends a point meanwhile: only the dropped one's comes back.
    await store.update_sheet(CAMPAIGN, USER, SheetSystem.MAGE, spend_willpower)
    dropped = await store.drop_update(BOT, 911, USER, "token")
    assert dropped == Dropped([Spent(sheet_field(), {"willpower_current": 1})], wrote=True)
    assert await _campaign_willpower(store) == 4
    assert await store.drop_update(BOT, 911, USER, "token") is None
    assert await _campaign_willpower(store) == 4


async def test_a_drop_repeated_after_dying_between_its_steps_gives_nothing_twice(
    store: Store,
) -> None:
    """The inline step came first and the process died before the drop's own step: the
    update is dropped again later, and its offer says it was given back already."""
    await store.update_sheet(CAMPAIGN, USER, SheetSystem.MAGE, lambda s: set_willpower(s, 5, 5))
    await store.put_offers(CAMPAIGN, {"offer0000002": "{}"})
    async with pressing(store, 912) as bound:
        await _roll_offer(bound, "offer0000002")
    fields = await store.redis.hgetall(journal_key(BOT, 912, USER))
    assert await give_back_offers(store.redis, fields) == [
        Spent(sheet_field(), {"willpower_current": 1})
    ]
    assert await _campaign_willpower(store) == 5
    dropped = await store.drop_update(BOT, 912, USER, "token")  # the player hears it was
    assert dropped == Dropped([Spent(sheet_field(), {"willpower_current": 1})], wrote=True)
    assert await _campaign_willpower(store) == 5


async def test_a_run_again_points_its_journal_at_the_offer_it_rolled_and_no_other_press_does(
    store: Store,
) -> None:
    """On a cluster the journal is pointed at the offer after the roll's own step: a crash in
    between is mended by the update's run again. A later press of the same offer (another
    update) paid nothing, and its drop gives nothing."""
    await store.update_sheet(CAMPAIGN, USER, SheetSystem.MAGE, lambda s: set_willpower(s, 5, 5))
    await store.put_offers(CAMPAIGN, {"offer0000003": "{}"})
    pointer = offer_pointer(CAMPAIGN, "offer0000003")
    async with pressing(store, 913) as bound:
        journal = bound.scope.journal
        assert journal is not None
        await _roll_offer(bound, "offer0000003")
    assert await store.redis.hexists(journal.key, pointer)
    await store.redis.hdel(journal.key, pointer)  # died before the pointer was written
    async with pressing(store, 913) as bound:
        assert await _roll_offer(bound, "offer0000003") == (False, "Аня: 1 успех")
    assert await store.redis.hexists(journal.key, pointer)
    assert await _campaign_willpower(store) == 4
    dropped = await store.drop_update(BOT, 913, USER, "token")
    assert dropped is not None
    assert dropped.refunded == [Spent(sheet_field(), {"willpower_current": 1})]
    assert await _campaign_willpower(store) == 5
    # The sender's next update begins only once 913 is settled (its running mark).
    async with pressing(store, 914) as bound:
        other = bound.scope.journal
        assert other is not None
        assert await _roll_offer(bound, "offer0000003") == (False, "Аня: 1 успех")
    assert not await store.redis.hexists(other.key, pointer)
    assert await store.drop_update(BOT, 914, USER, "token") == Dropped([], wrote=False)
    assert await _campaign_willpower(store) == 5


async def test_a_dropped_inline_roll_in_a_forum_topic_gives_back_to_the_topics_sheet(
    store: Store,
) -> None:
    """The journal points at the topic's offer (its key has a ``:`` of its own), and the
    drop gives the point back to the topic's sheet, not to General's."""
    topic = Campaign(CAMPAIGN, 45)
    for where in (topic, Campaign(CAMPAIGN)):
        await store.update_sheet(where, USER, SheetSystem.MAGE, lambda s: set_willpower(s, 5, 5))
    await store.put_offers(topic, {"offer0000005": "{}"})
    entry = LogEntry(user_id=USER, name="Аня", pool=3, difficulty=6, faces=(9, 5, 1))
    async with pressing(store, 915) as bound:
        rolled = await bound.settle_offer(
            topic, "offer0000005", lambda _sheet: "1", spend=_spend(), entries=[entry]
        )
        assert rolled == (True, "1")
    fields = await store.redis.hgetall(journal_key(BOT, 915, USER))
    assert offer_pointer(topic, "offer0000005") == f"of:{CAMPAIGN}:45:offer0000005"
    assert pointed_offers(fields) == [(topic, "offer0000005")]

    async def willpower(where: Campaign) -> int | None:
        sheet = await store.load_sheet(where, USER, SheetSystem.MAGE)
        assert sheet is not None
        return sheet.willpower_current

    assert await willpower(topic) == 4
    dropped = await store.drop_update(BOT, 915, USER, "token")
    assert dropped == Dropped([Spent(sheet_field(), {"willpower_current": 1})], wrote=True)
    assert (await willpower(topic), await willpower(Campaign(CAMPAIGN))) == (5, 5)


def test_a_journal_of_the_release_before_topics_points_at_the_chats_own_offer() -> None:
    fields = {
        f"of:{CAMPAIGN}:offer0000006": "1",
        f"of:{CAMPAIGN}:1:offer0000007": "1",  # General has no thread: forged
        "of:junk:offer0000008": "1",
        "sent:abc": "5",
    }
    assert pointed_offers(fields) == [(Campaign(CAMPAIGN), "offer0000006")]
