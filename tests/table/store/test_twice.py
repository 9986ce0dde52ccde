"""Every script the Store sends may run twice for one call: redis-py sends a call again when
its answer was lost (a command timeout, a dropped connection) without knowing whether it ran.
Each script applies once for the update that sends it (table/store/scripts.py): run twice here,
it leaves one log line, one count in /stats, one spend, one step."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, ClassVar

import pytest
from redis.asyncio.client import Pipeline
from redis.exceptions import WatchError

from rules.sheet import SheetSystem, set_willpower, spend_willpower
from table.scope import Actor, Scope
from table.store import (
    Begun,
    FlowState,
    HiddenRecord,
    Journal,
    LogEntry,
    ReadAhead,
    Screen,
    SheetSpend,
    StepWrites,
    Store,
    UpdateRef,
    budget_key,
    flow_key,
    journal_key,
    log_key,
    stats_key,
)
from table.store.sessions import add_event, events_key
from tests.table.store.scoping import bound_to

BOT, CHAT, USER = 7, -100, 42
SEED = bytes(range(32))
GROUP = (CHAT, 20, 61.0)
OVERALL = (None, 25, 1.0)


class Counted(FlowState):
    kind: ClassVar[str] = "test-twice"

    n: int = 0


def entry(n: int = 1) -> LogEntry:
    return LogEntry(
        user_id=USER, name="Аня", pool=n, difficulty=6, successes=1, faces=(7,), outcome="success"
    )


@pytest.fixture
def twice(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every script call reaches the server twice and its caller reads the second answer: the
    first answer was lost on the way, and redis-py sent the call again."""
    real = store.redis.evalsha
    calls: list[tuple[Any, ...]] = []

    async def again(*args: Any) -> Any:
        calls.append(args)
        await real(*args)
        return await real(*args)

    monkeypatch.setattr(store.redis, "evalsha", again)


async def begin(store: Store, update_id: int, **ahead: Any) -> tuple[Journal, Any]:
    status, _settings, journal, prefetch = await store.begin_update(
        UpdateRef(BOT, update_id, CHAT, CHAT, "token"),
        force=True,
        seed=SEED,
        ahead=ReadAhead(**ahead),
    )
    assert status is Begun.GO
    assert journal is not None
    return journal, prefetch


@asynccontextmanager
async def running(store: Store, update_id: int, **ahead: Any) -> AsyncIterator[Store]:
    journal, prefetch = await begin(store, update_id, **ahead)
    with bound_to(
        store, Scope(journal=journal, prefetch=prefetch, actor=Actor(USER, "player"))
    ) as bound:
        yield bound


async def logged(store: Store) -> tuple[int, Any, Any]:
    """(the chat's log lines, the lines /stats counted, the rolls it counts for the player)."""
    lines = await store.redis.llen(log_key(CHAT))
    lines_counted, rolls = await store.redis.hmget(stats_key(CHAT), ["logged", f"r:{USER}"])
    return int(lines), lines_counted, rolls


@pytest.mark.usefixtures("twice")
async def test_a_begin_counts_one_run_and_reserves_one_slot(store: Store) -> None:
    status, _, journal, _ = await store.begin_update(
        UpdateRef(BOT, 801, CHAT, CHAT, "token"), force=True, seed=SEED, lease=[GROUP, OVERALL]
    )
    assert status is Begun.GO
    assert journal is not None
    assert journal.attempts == 1
    assert await store.redis.hget(journal_key(BOT, 801, CHAT), "attempts") == "1"
    if not store.cluster:  # a cluster reserves no slot ahead
        assert journal.lease is not None
        assert await store.redis.zcard(budget_key(BOT, CHAT)) == 1
        assert await store.redis.zcard(budget_key(BOT, None)) == 1


@pytest.mark.usefixtures("twice")
async def test_a_postponed_run_is_given_back_once(store: Store) -> None:
    await begin(store, 802)
    await store.postpone_update(BOT, 802, CHAT, sent=5)
    assert await store.redis.hget(journal_key(BOT, 802, CHAT), "attempts") == "0"
    journal, _ = await begin(store, 802)  # the next run is counted again
    assert journal.attempts == 1


@pytest.mark.usefixtures("twice")
async def test_a_new_flow_logs_its_roll_once(store: Store) -> None:
    async with running(store, 803) as bound:
        flow = await bound.create_flow(Counted(), CHAT, USER, entries=[entry()])
    assert await store.load_flow(CHAT, flow.id) is not None
    assert await logged(store) == (1, "1", "1")


async def test_a_step_logs_once_and_its_caller_sees_it_taken(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    flow = await store.create_flow(Counted(), CHAT, USER)
    real = store.redis.evalsha

    async def again(*args: Any) -> Any:
        await real(*args)
        return await real(*args)

    monkeypatch.setattr(store.redis, "evalsha", again)
    async with running(store, 804) as bound:
        moved = await bound.advance_flow(flow, 0, Counted(n=1), entries=[entry()])
    assert moved is not None  # not taken for a stale button: the step is this update's
    assert moved.version == 1
    assert moved.state(Counted).n == 1
    assert await logged(store) == (1, "1", "1")


async def test_a_step_that_opens_a_flow_logs_once(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    flow = await store.create_flow(Counted(), CHAT, USER)
    new = store.new_flow(Counted(n=9), CHAT, USER)
    real = store.redis.evalsha

    async def again(*args: Any) -> Any:
        await real(*args)
        return await real(*args)

    monkeypatch.setattr(store.redis, "evalsha", again)
    async with running(store, 805) as bound:
        moved, opened = await bound.advance_flow_creating(
            flow, 0, Counted(n=1), new, entries=[entry()]
        )
    assert moved is not None
    assert moved.version == 1
    assert opened == new
    assert await store.load_flow(CHAT, new.id) is not None
    assert await logged(store) == (1, "1", "1")


async def test_a_step_that_opens_a_flow_run_again_after_a_crash_names_the_flow_it_opened(
    store: Store,
) -> None:
    """The update dies after its step is stored; run again, it draws the new flow afresh (a
    new random id): the store answers with the flow the first run opened, and opens no other,
    so the message's buttons name a flow that exists."""
    flow = await store.create_flow(Counted(), CHAT, USER)
    first = store.new_flow(Counted(n=9), CHAT, USER)
    async with running(store, 808) as bound:
        await bound.advance_flow_creating(flow, 0, Counted(n=1), first, entries=[entry()])
    again = store.new_flow(Counted(n=9), CHAT, USER)
    async with running(store, 808) as bound:  # the same update, its journal as left
        moved, opened = await bound.advance_flow_creating(
            flow, 0, Counted(n=1), again, entries=[entry()]
        )
    assert moved is not None
    assert moved.version == 1
    assert opened.id == first.id
    assert opened.state(Counted).n == 9
    assert await store.load_flow(CHAT, again.id) is None
    assert await logged(store) == (1, "1", "1")


async def test_a_step_paid_from_a_sheet_read_ahead_pays_once(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    await store.update_sheet(CHAT, USER, SheetSystem.MAGE, lambda s: set_willpower(s, 5, 5))
    flow = await store.create_flow(Counted(), CHAT, USER)
    real = store.redis.evalsha

    async def again(*args: Any) -> Any:
        await real(*args)
        return await real(*args)

    monkeypatch.setattr(store.redis, "evalsha", again)
    spend = SheetSpend(user_id=USER, system=SheetSystem.MAGE, change=spend_willpower)
    async with running(store, 806, all_sheets=True) as bound:
        moved, sheet = await bound.advance_flow_spending(flow, 0, Counted(n=1), spend, writes=None)
    assert moved is not None
    assert sheet is not None
    assert sheet.willpower_current == 4
    stored = await store.load_sheet(CHAT, USER, SheetSystem.MAGE)
    assert stored is not None
    assert stored.willpower_current == 4


@pytest.mark.usefixtures("twice")
async def test_a_live_message_is_stored_once_and_its_caller_sees_it_stored(
    store: Store,
) -> None:
    async with running(store, 807) as bound:
        flow = bound.new_flow(Counted(), CHAT, USER)
        live = await bound.create_live("init", flow, 55, Screen(text="x"), expected=None)
    assert live is not None
    assert live.message == 55
    assert await store.redis.exists(flow_key(CHAT, flow.id))


@pytest.mark.usefixtures("twice")
async def test_a_hidden_roll_is_logged_once_and_its_reveal_counted_once(store: Store) -> None:
    record = HiddenRecord(
        seq=1,
        chat_id=CHAT,
        owner_id=USER,
        name="Аня",
        profile="mage-revised",
        pool=3,
        payload="p",
        nonce="n",
        commitment="c",
        result={},
    )
    async with running(store, 808) as bound:
        await bound.save_hidden(record, LogEntry(user_id=USER, name="Аня", hidden=True, seq=1))
    assert await store.redis.llen(log_key(CHAT)) == 1
    shown = {**entry(3).model_dump(mode="json", exclude_none=True), "faces": [8, 9, 1]}
    await store.reveal_hidden(CHAT, 1, shown)
    counted = await store.redis.hgetall(stats_key(CHAT))
    assert [v for k, v in counted.items() if str(k).startswith("r:")] == ["1"]


@pytest.mark.usefixtures("twice")
async def test_a_send_reserves_one_slot(store: Store) -> None:
    # One send a second: had the call sent again counted its own first slot, it would wait.
    assert await store.reserve_send(BOT, [(None, 1, 1.0)]) < 0.5
    assert await store.redis.zcard(budget_key(BOT, None)) == 1


@pytest.mark.usefixtures("twice")
async def test_a_finish_is_the_same_done_twice(store: Store) -> None:
    await begin(store, 809)
    await store.finish_update(BOT, 809, CHAT, "token", sent=12)
    assert await store.last_sent(CHAT) == 12
    assert not await store.redis.exists(journal_key(BOT, 809, CHAT))
    status, _, _, _ = await store.begin_update(
        UpdateRef(BOT, 809, CHAT, CHAT, "token"), force=True, seed=SEED
    )
    assert status is Begun.DONE


@pytest.fixture
def lost_exec(store: Store, monkeypatch: pytest.MonkeyPatch) -> None:
    """The first transaction's EXEC is applied and its answer lost: redis-py, watching keys,
    raises WatchError then and runs the transaction again (``Redis.transaction``); not
    watching, it sends the same MULTI…EXEC again."""
    if store.cluster:
        pytest.skip("the cluster's pipeline is another class; the same code runs there")
    real = Pipeline.execute
    left = [1]

    async def lossy(self: Pipeline, raise_on_error: bool = True) -> Any:
        watched, stack = self.watching, list(self.command_stack)
        answer = await real(self, raise_on_error)
        if not left[0] or not stack:
            return answer
        left[0] -= 1
        if watched:
            raise WatchError("A TimeoutError occurred while watching one or more keys")
        self.command_stack = stack  # not watching: redis-py sends it again as it was
        return await real(self, raise_on_error)

    monkeypatch.setattr(Pipeline, "execute", lossy)


async def test_a_transaction_whose_answer_was_lost_spends_and_logs_once(
    store: Store, request: pytest.FixtureRequest
) -> None:
    await store.update_sheet(CHAT, USER, SheetSystem.MAGE, lambda s: set_willpower(s, 5, 5))
    request.getfixturevalue("lost_exec")
    spend = SheetSpend(user_id=USER, system=SheetSystem.MAGE, change=spend_willpower)
    async with running(store, 810) as bound:
        _flow, sheet = await bound.create_flow_spending(
            Counted(), CHAT, USER, spend, entries=[entry()]
        )
    assert sheet is not None
    assert sheet.willpower_current == 4
    stored = await store.load_sheet(CHAT, USER, SheetSystem.MAGE)
    assert stored is not None
    assert stored.willpower_current == 4
    assert await logged(store) == (1, "1", "1")


@pytest.mark.usefixtures("lost_exec")
async def test_a_log_line_whose_answer_was_lost_is_written_once(store: Store) -> None:
    async with running(store, 811) as bound:
        await bound.log_roll(CHAT, entry())
    assert await logged(store) == (1, "1", "1")


OTHER = -200  # a group the update's own chat (a Storyteller's private chat) changes


async def write_elsewhere(store: Store, update_id: int) -> int:
    """The Storyteller's screen, an update of another chat, spends a player's Willpower in
    the group and tells the session's chronicle; the Willpower the sheet is left with."""
    async with running(store, update_id) as bound:
        sheet = await bound.update_sheet(OTHER, USER, SheetSystem.MAGE, spend_willpower)
        await add_event(bound, OTHER, 1, {"who": "Аня", "what": "−1 Сила воли"})
    return sheet.willpower_current


async def test_a_write_to_another_campaign_run_again_after_a_crash_applies_once(
    store: Store,
) -> None:
    """The group's keys are in another slot than the update's journal: the write is recorded
    beside them, so the update run again after a crash finds it made and makes it no more."""
    await store.update_sheet(OTHER, USER, SheetSystem.MAGE, lambda s: set_willpower(s, 5, 5))
    assert await write_elsewhere(store, 812) == 4
    assert await write_elsewhere(store, 812) == 4  # the same update, run again
    stored = await store.load_sheet(OTHER, USER, SheetSystem.MAGE)
    assert stored is not None
    assert stored.willpower_current == 4
    assert await store.redis.llen(events_key(OTHER, 1)) == 1
    assert await write_elsewhere(store, 813) == 3  # the next update spends again


async def test_a_write_to_another_campaign_whose_answer_was_lost_applies_once(
    store: Store, request: pytest.FixtureRequest
) -> None:
    await store.update_sheet(OTHER, USER, SheetSystem.MAGE, lambda s: set_willpower(s, 5, 5))
    request.getfixturevalue("lost_exec")
    assert await write_elsewhere(store, 814) == 4
    stored = await store.load_sheet(OTHER, USER, SheetSystem.MAGE)
    assert stored is not None
    assert stored.willpower_current == 4
    assert await store.redis.llen(events_key(OTHER, 1)) == 1


async def test_a_step_that_spends_and_opens_a_flow_run_again_names_the_flow_it_opened(
    store: Store,
) -> None:
    """The same as a step that opens a flow, on the WATCH way a spend takes: run again after
    a crash, the update draws the new flow afresh, and the store answers with the one its
    first run opened and stored, spending nothing more."""
    await store.update_sheet(CHAT, USER, SheetSystem.MAGE, lambda s: set_willpower(s, 5, 5))
    flow = await store.create_flow(Counted(), CHAT, USER)
    spend = SheetSpend(user_id=USER, system=SheetSystem.MAGE, change=spend_willpower)

    async def step(bound: Store) -> tuple[Any, Any, Any]:
        opens = bound.new_flow(Counted(n=9), CHAT, USER)
        writes = StepWrites(entries=[entry()], opens=opens)
        moved, sheet, opened = await bound.advance_flow_spending_opening(
            flow, 0, Counted(n=1), spend, writes=writes
        )
        return moved, sheet, (opens, opened)

    async with running(store, 815) as bound:
        _moved, _sheet, (first, opened) = await step(bound)
    assert opened == first
    async with running(store, 815) as bound:  # the same update, its journal as left
        moved, sheet, (again, opened) = await step(bound)
    assert moved is not None
    assert sheet is not None
    assert sheet.willpower_current == 4
    assert again.id != first.id
    assert opened is not None
    assert opened.id == first.id
    assert await store.load_flow(CHAT, first.id) is not None
    assert await store.load_flow(CHAT, again.id) is None
    assert await logged(store) == (1, "1", "1")
