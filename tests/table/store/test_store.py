"""The Store's contract, against fakeredis, a real redis-server and a real Redis Cluster.

The same tests run on all three because the bot uses fakeredis when REDIS_URL is unset and
promises the same semantics (docs/product.md §3), and runs on a cluster when REDIS_URL names one
(docs/product.md §5 "Scale"): a script or transaction whose keys fall in two slots fails there.
"""

from __future__ import annotations

import asyncio
import re
from typing import ClassVar

import pytest
from pydantic import ValidationError

from rules.errors import ErrorCode, RulesInputError
from rules.sheet import Sheet, SheetSystem, set_trait, set_willpower, spend_willpower
from table.scope import Actor, Scope
from table.store import (
    LOG_CAP,
    AlsoMoved,
    AlsoStep,
    Begun,
    ChatSettings,
    Flow,
    FlowState,
    FlowStateError,
    LogEntry,
    ReadAhead,
    Screen,
    SheetSpend,
    StepWrites,
    Store,
    UpdateRef,
    chat_key,
    flow_key,
    log_key,
    sheet_key,
)
from table.store.sheets import player_field
from tests.table.store.scoping import bound_to


class Tally(FlowState):
    kind: ClassVar[str] = "test-tally"

    total: int = 0
    got: tuple[int, ...] = ()


class Other(FlowState):
    kind: ClassVar[str] = "test-other"


def _entry(n: int) -> LogEntry:
    return LogEntry(user_id=42, name="Аня", pool=n, successes=n % 3)


def _willpower(sheet: Sheet) -> Sheet | None:
    return None if sheet.willpower is None else spend_willpower(sheet)


def _spend(user_id: int = 42) -> SheetSpend:
    return SheetSpend(user_id=user_id, system=SheetSystem.MAGE, change=_willpower)


async def test_new_chat_has_default_settings(store: Store) -> None:
    settings = await store.load_chat(-100)
    assert settings == ChatSettings(profile="mage", locale=None, switches={})


async def test_update_chat_merges_and_persists(store: Store) -> None:
    await store.update_chat(-100, profile="dark-ages")
    updated = await store.update_chat(-100, locale="en", switches={"threshold_rule": True})
    assert updated.profile == "dark-ages"
    assert updated.locale == "en"
    assert await store.load_chat(-100) == updated
    assert await store.load_chat(-200) == ChatSettings()


async def test_update_chat_rejects_unknown_field_and_bad_value(store: Store) -> None:
    with pytest.raises(TypeError):
        await store.update_chat(-100, colour="red")
    with pytest.raises(ValidationError):
        await store.update_chat(-100, switches="not a dict")
    assert await store.redis.get(chat_key(-100)) is None


async def test_concurrent_chat_updates_both_land(store: Store) -> None:
    await asyncio.gather(
        store.update_chat(-1, profile="d6"),
        store.update_chat(-1, locale="ru"),
    )
    settings = await store.load_chat(-1)
    assert (settings.profile, settings.locale) == ("d6", "ru")


async def test_damaged_settings_fall_back_to_defaults(store: Store) -> None:
    await store.redis.set(chat_key(-5), "{not json")
    assert await store.load_chat(-5) == ChatSettings()


async def test_flow_round_trip(store: Store) -> None:
    flow = await store.create_flow(Tally(total=7, got=(1, 2)), -100, 42)
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,12}", flow.id)
    assert flow.version == 0
    assert not flow.closed
    assert flow.kind == Tally.kind
    assert await store.load_flow(flow.chat_id, flow.id) == flow
    assert flow.state(Tally) == Tally(total=7, got=(1, 2))


async def test_a_flow_read_as_another_kind_is_refused(store: Store) -> None:
    flow = await store.create_flow(Tally(), -100, 42)
    with pytest.raises(FlowStateError):
        flow.state(Other)
    damaged = flow.model_copy(update={"data": {"total": "many"}})
    with pytest.raises(FlowStateError):
        damaged.state(Tally)


def test_a_kind_names_one_model() -> None:
    with pytest.raises(TypeError):

        class Clash(FlowState):
            kind: ClassVar[str] = Tally.kind


async def test_flow_ids_are_unique(store: Store) -> None:
    ids = {(await store.create_flow(Tally(), 1, 1)).id for _ in range(50)}
    assert len(ids) == 50


async def test_advance_flow_compare_and_set(store: Store) -> None:
    flow = await store.create_flow(Tally(), -100, 42)
    first = await store.advance_flow(flow, 0, Tally(total=3))
    assert first is not None
    assert (first.version, first.state(Tally).total, first.closed) == (1, 3, False)
    assert (first.kind, first.chat_id, first.owner_id) == (Tally.kind, -100, 42)
    # A second tap carrying the old version is stale.
    assert await store.advance_flow(flow, 0, Tally(total=99)) is None
    closed = await store.advance_flow(flow, 1, Tally(total=5), close=True)
    assert closed is not None
    assert (closed.version, closed.closed) == (2, True)
    # A closed flow accepts nothing, even with the right version.
    assert await store.advance_flow(flow, 2, Tally(total=7)) is None
    loaded = await store.load_flow(flow.chat_id, flow.id)
    assert loaded is not None
    assert loaded.state(Tally).total == 5


async def test_close_flow_keeps_the_data(store: Store) -> None:
    flow = await store.create_flow(Tally(total=4), -100, 42)
    closed = await store.close_flow(flow, 0)
    assert closed is not None
    assert closed.closed
    assert closed.state(Tally).total == 4
    assert await store.close_flow(flow, 0) is None


async def test_twenty_concurrent_taps_apply_once(store: Store) -> None:
    flow = await store.create_flow(Tally(), -100, 42)
    results = await asyncio.gather(
        *(store.advance_flow(flow, 0, Tally(total=i + 1)) for i in range(20))
    )
    winners = [r for r in results if r is not None]
    assert len(winners) == 1
    loaded = await store.load_flow(flow.chat_id, flow.id)
    assert loaded is not None
    assert loaded.version == 1
    assert loaded.data == winners[0].data


async def test_missing_and_expired_flows_are_none(store: Store) -> None:
    assert await store.load_flow(-100, "nope") is None
    flow = await store.create_flow(Tally(), 1, 1, ttl=1)
    assert await store.redis.ttl(flow_key(flow.chat_id, flow.id)) in (0, 1)
    await store.redis.pexpire(flow_key(flow.chat_id, flow.id), 1)
    await asyncio.sleep(0.05)
    assert await store.load_flow(flow.chat_id, flow.id) is None
    assert await store.advance_flow(flow, 0, Tally()) is None


async def test_advance_keeps_the_ttl(store: Store) -> None:
    flow = await store.create_flow(Tally(), 1, 1, ttl=500)
    await store.advance_flow(flow, 0, Tally(total=1))
    assert 0 < await store.redis.ttl(flow_key(flow.chat_id, flow.id)) <= 500


async def test_advance_logs_only_when_it_wins(store: Store) -> None:
    flow = await store.create_flow(Tally(), -100, 42)
    assert await store.advance_flow(flow, 0, Tally(total=1), entries=[_entry(1)]) is not None
    assert await store.advance_flow(flow, 0, Tally(total=2), entries=[_entry(2)]) is None
    assert [e["pool"] for e in await store.recent_rolls(-100)] == [1]


async def test_a_step_that_opens_a_flow_stores_it_only_when_it_wins(store: Store) -> None:
    """The d6 tracker's attack: the tracker's step and the new attack in one script."""
    flow = await store.create_flow(Tally(), -100, 42)
    opened = store.new_flow(Tally(total=7), -100, 43)
    step, stored = await store.advance_flow_creating(
        flow, 0, Tally(total=1), opened, entries=[_entry(1)], ttl=500
    )
    assert step is not None
    assert stored == opened
    assert (step.version, step.state(Tally).total) == (1, 1)
    made = await store.load_flow(-100, opened.id)
    assert made is not None
    assert (made.version, made.owner_id, made.kind, made.closed) == (0, 43, Tally.kind, False)
    assert made.state(Tally).total == 7
    assert 0 < await store.redis.ttl(flow_key(-100, opened.id)) <= 500
    late = store.new_flow(Tally(total=8), -100, 43)
    lost, _late = await store.advance_flow_creating(
        flow, 0, Tally(total=2), late, entries=[_entry(2)]
    )
    assert lost is None
    assert await store.load_flow(-100, late.id) is None  # a lost step opens nothing
    assert [e["pool"] for e in await store.recent_rolls(-100)] == [1]


async def _sheet_with_willpower(store: Store, current: int) -> None:
    await store.update_sheet(-100, 42, SheetSystem.MAGE, lambda s: set_willpower(s, 5, current))


async def _willpower_now(store: Store) -> int | None:
    sheet = await store.load_sheet(-100, 42, SheetSystem.MAGE)
    assert sheet is not None
    return sheet.willpower_current


async def test_create_spending_takes_the_point_with_the_flow_and_the_log(store: Store) -> None:
    await _sheet_with_willpower(store, 3)
    flow, sheet = await store.create_flow_spending(
        Tally(total=1), -100, 42, _spend(), entries=[_entry(5)]
    )
    assert sheet is not None
    assert sheet.willpower_current == 2
    assert await _willpower_now(store) == 2
    assert await store.load_flow(flow.chat_id, flow.id) == flow
    assert [e["pool"] for e in await store.recent_rolls(-100)] == [5]


async def test_spending_without_a_sheet_or_a_tracked_resource_spends_nothing(
    store: Store,
) -> None:
    flow, sheet = await store.create_flow_spending(Tally(), -100, 42, _spend())
    assert sheet is None
    assert await store.load_flow(flow.chat_id, flow.id) == flow
    await store.update_sheet(-100, 42, SheetSystem.MAGE, lambda s: s)
    _, untracked = await store.create_flow_spending(Tally(), -100, 42, _spend())
    assert untracked is None


async def test_spending_with_nothing_left_writes_nothing(store: Store) -> None:
    await _sheet_with_willpower(store, 0)
    with pytest.raises(RulesInputError) as refused:
        await store.create_flow_spending(Tally(), -100, 42, _spend(), entries=[_entry(1)])
    assert refused.value.code is ErrorCode.WP_UNAVAILABLE
    assert await store.recent_rolls(-100) == []
    assert await _willpower_now(store) == 0


async def test_advance_spending_is_one_step_and_a_stale_tap_spends_nothing(
    store: Store,
) -> None:
    await _sheet_with_willpower(store, 3)
    flow = await store.create_flow(Tally(), -100, 42)
    results = await asyncio.gather(
        *(
            store.advance_flow_spending(
                flow, 0, Tally(total=i), _spend(), writes=StepWrites(entries=[_entry(i)])
            )
            for i in range(1, 6)
        )
    )
    winners = [(f, s) for f, s in results if f is not None]
    assert len(winners) == 1
    assert winners[0][1] is not None
    assert await _willpower_now(store) == 2
    assert len(await store.recent_rolls(-100)) == 1
    loaded = await store.load_flow(flow.chat_id, flow.id)
    assert loaded is not None
    assert loaded.version == 1


async def test_advance_spending_retries_on_a_concurrent_sheet_write(store: Store) -> None:
    await _sheet_with_willpower(store, 3)
    flows = [await store.create_flow(Tally(), -100, 42) for _ in range(5)]
    results = await asyncio.gather(
        *(store.advance_flow_spending(f, 0, Tally(total=1), _spend()) for f in flows),
        return_exceptions=True,
    )
    # Five different flows spend one point each from 3: three spend, two are refused, and
    # a refused step does not advance its flow.
    refused = [r for r in results if isinstance(r, RulesInputError)]
    assert len(refused) == 2
    assert await _willpower_now(store) == 0
    versions = [(await store.load_flow(f.chat_id, f.id)) for f in flows]
    assert sorted(f.version for f in versions if f is not None) == [0, 0, 1, 1, 1]


SEED = bytes(range(32))


async def test_an_update_begins_with_its_chat_settings_and_is_done_once(store: Store) -> None:
    await store.update_chat(-100, profile="dark-ages", locale="en")
    status, settings, journal, _ = await store.begin_update(
        UpdateRef(7, 1001, -100, -100, "me"), force=False, seed=SEED
    )
    assert status is Begun.GO
    assert journal is not None
    assert journal.seed == SEED
    assert (settings.profile, settings.locale) == ("dark-ages", "en")
    await store.finish_update(7, 1001, -100, "me")
    again, _, none, _ = await store.begin_update(
        UpdateRef(7, 1001, -100, -100, "me"), force=False, seed=SEED
    )
    assert (again, none) == (Begun.DONE, None)
    # Another bot's update with the same number is a different update.
    other, _, _, _ = await store.begin_update(
        UpdateRef(8, 1001, -100, -100, "me"), force=False, seed=SEED
    )
    assert other is Begun.GO
    no_chat, defaults, _, _ = await store.begin_update(
        UpdateRef(7, 1002, 5, None, "me"), force=False, seed=SEED
    )
    assert no_chat is Begun.GO
    assert defaults == ChatSettings()


async def test_the_first_round_trip_reads_ahead_once_and_never_stale(store: Store) -> None:
    """A tap's flow and the sender's sheets come with ``begin_update``: used once, and
    forgotten at the update's first write (docs/product.md §5: at most 3 round-trips)."""
    flow = await store.create_flow(Tally(total=5), -100, 42)
    await store.update_sheet(-100, 42, SheetSystem.MAGE, lambda s: set_trait(s, "strength", 3))
    _, _, journal, prefetch = await store.begin_update(
        UpdateRef(1, 90, -100, -100, "a"),
        force=False,
        seed=SEED,
        ahead=ReadAhead(
            flow_id=flow.id, sheet_fields=[player_field(42, system) for system in SheetSystem]
        ),
    )
    assert journal is not None
    assert flow_key(flow.chat_id, flow.id) in prefetch.flows
    with bound_to(store, Scope(prefetch=prefetch)) as bound:
        await bound.redis.hset(
            flow_key(flow.chat_id, flow.id), "version", 9
        )  # behind the prefetch's back
        assert (await bound.load_flow(flow.chat_id, flow.id)).version == 0  # type: ignore[union-attr]
        assert (await bound.load_flow(flow.chat_id, flow.id)).version == 9  # type: ignore[union-attr]
        sheet = await bound.load_sheet(-100, 42, SheetSystem.MAGE)
        assert sheet is not None
        assert sheet.rating("strength") == 3
        _, _, _, again = await bound.begin_update(
            UpdateRef(1, 91, -100, -100, "a"),
            force=True,
            seed=SEED,
            ahead=ReadAhead(sheet_fields=[player_field(42, SheetSystem.MAGE)]),
        )
        bound.scope.prefetch = again
        await bound.update_sheet(-100, 42, SheetSystem.MAGE, lambda s: set_trait(s, "strength", 4))
        fresh = await bound.load_sheet(-100, 42, SheetSystem.MAGE)
        assert fresh is not None
        assert fresh.rating("strength") == 4  # the write made the read-ahead forgotten


async def test_a_chat_is_held_by_one_replica_until_it_finishes(store: Store) -> None:
    first, _, _, _ = await store.begin_update(UpdateRef(1, 55, -1, -1, "a"), force=False, seed=SEED)
    second, _, _, _ = await store.begin_update(
        UpdateRef(1, 56, -1, -1, "b"), force=False, seed=SEED
    )
    assert (first, second) == (Begun.GO, Begun.BUSY)
    # Polling: the holder is a dead process, whose update goes first (its running mark).
    behind, _, _, ahead = await store.begin_update(
        UpdateRef(1, 56, -1, -1, "b"), force=True, seed=SEED
    )
    assert (behind, ahead.behind) == (Begun.BEHIND, 55)
    taken, _, _, _ = await store.begin_update(UpdateRef(1, 55, -1, -1, "b"), force=True, seed=SEED)
    assert taken is Begun.GO
    await store.finish_update(1, 55, -1, "b")
    after, _, _, _ = await store.begin_update(UpdateRef(1, 56, -1, -1, "b"), force=False, seed=SEED)
    assert after is Begun.GO
    await store.finish_update(1, 56, -1, "b")
    third, _, _, _ = await store.begin_update(UpdateRef(1, 57, -1, -1, "a"), force=False, seed=SEED)
    assert third is Begun.GO


async def test_a_rerun_keeps_the_seed_and_reads_back_its_writes(store: Store) -> None:
    _, _, journal, _ = await store.begin_update(
        UpdateRef(1, 77, -100, -100, "a"), force=False, seed=SEED
    )
    assert journal is not None
    with bound_to(store, Scope(journal=journal)) as bound:
        flow = await bound.create_flow(Tally(total=5), -100, 42, entries=[_entry(5)])
    # The process dies here; the update is begun again with another fresh seed.
    _, _, again, _ = await store.begin_update(
        UpdateRef(1, 77, -100, -100, "b"), force=True, seed=bytes(32)
    )
    assert again is not None
    assert again.seed == SEED
    with bound_to(store, Scope(journal=again)) as bound:
        replayed = await bound.create_flow(Tally(total=5), -100, 42, entries=[_entry(5)])
    assert replayed == flow
    assert len(await store.recent_rolls(-100)) == 1  # logged once
    assert [journal.dice().randint(1, 10) for _ in range(5)] == [
        again.dice().randint(1, 10) for _ in range(5)
    ]


async def test_an_update_that_keeps_failing_is_given_up(store: Store) -> None:
    for _ in range(5):
        status, _, _, _ = await store.begin_update(
            UpdateRef(1, 88, -1, -1, "a"), force=True, seed=SEED
        )
        assert status is Begun.GO
    status, _, _, _ = await store.begin_update(UpdateRef(1, 88, -1, -1, "a"), force=True, seed=SEED)
    assert status is Begun.GIVEN_UP


async def test_log_is_capped_newest_first(store: Store) -> None:
    for i in range(LOG_CAP + 5):
        await store.log_roll(-100, _entry(i))
    recent = await store.recent_rolls(-100, limit=3)
    assert [e["pool"] for e in recent] == [LOG_CAP + 4, LOG_CAP + 3, LOG_CAP + 2]
    assert await store.redis.llen(log_key(-100)) == LOG_CAP
    assert 0 < await store.redis.ttl(log_key(-100)) <= 90 * 86_400  # a quiet chat's log goes


async def test_create_flow_and_log_in_one_step(store: Store) -> None:
    flow = await store.create_flow(Tally(total=5), -100, 42, entries=[_entry(5)])
    assert await store.load_flow(flow.chat_id, flow.id) == flow
    assert await store.recent_rolls(-100) == [
        {"user_id": 42, "name": "Аня", "pool": 5, "successes": 2}
    ]


async def test_a_combat_tap_reads_ahead_every_sheet_and_the_live_messages(store: Store) -> None:
    """A tap that shows the whole table (bot.features ``reads_ahead``) reads every sheet of
    the chat and the live messages with their flows in its first round-trip."""
    await store.update_sheet(-100, 42, SheetSystem.MAGE, lambda s: set_trait(s, "strength", 3))
    await store.update_npc(-100, SheetSystem.MAGE, "Гуль", lambda s: set_trait(s, "strength", 5))
    tracker, _live, _created = await store.open_live("tracker", Tally(total=1), -100, 42)
    _, _, _, prefetch = await store.begin_update(
        UpdateRef(1, 92, -100, -100, "a"),
        force=False,
        seed=SEED,
        ahead=ReadAhead(all_sheets=True, live_names=["tracker", "panel"]),
    )
    with bound_to(store, Scope(prefetch=prefetch)) as bound:
        await bound.redis.delete(sheet_key(-100))  # behind the prefetch's back
        players, npcs = await bound.load_many(-100, SheetSystem.MAGE, [42], ["Гуль"])
        assert players[42].rating("strength") == 3
        assert npcs["Гуль"].rating("strength") == 5
        loaded = await bound.load_live(-100, "tracker")
        assert loaded is not None
        assert loaded[0].id == tracker.id
        ahead = bound.live_ahead(-100, "panel")
        assert ahead is not None
        assert ahead.raw is None  # read ahead: the chat has no panel
        assert await bound.load_live(-100, "panel") is None


async def test_a_live_message_already_sent_is_stored_in_one_step_unless_another_won(
    store: Store,
) -> None:
    fresh = store.new_flow(Tally(total=2), -100, 42)
    screen = Screen(text="panel", markup=None)
    live = await store.create_live("panel", fresh, 77, screen, expected=None)
    assert live is not None
    assert live.message == 77
    loaded = await store.load_live(-100, "panel")
    assert loaded is not None
    assert loaded[0].id == fresh.id
    assert loaded[0].screen == screen
    second = store.new_flow(Tally(total=3), -100, 43)
    assert await store.create_live("panel", second, 78, screen, expected=None) is None
    assert await store.load_flow(second.chat_id, second.id) is None  # the loser stores nothing


@pytest.mark.parametrize("changed_meanwhile", [False, True])
async def test_a_spend_on_a_sheet_read_ahead_takes_one_step_with_the_tracker(
    store: Store, changed_meanwhile: bool
) -> None:
    """A wound from a combat tap: the panel's step, the sheet and the tracker's health step
    in one script on the sheet as read ahead; if the sheet changed since, it is read again
    and the wound lands on the sheet as it is now."""
    await store.update_sheet(-100, 42, SheetSystem.MAGE, lambda s: set_trait(s, "strength", 3))
    panel = await store.create_flow(Tally(total=0), -100, 42)
    tracker = await store.create_flow(Other(), -100, 1)
    _, _, _, prefetch = await store.begin_update(
        UpdateRef(1, 93, -100, -100, "a"), force=False, seed=SEED, ahead=ReadAhead(all_sheets=True)
    )
    with bound_to(store, Scope(prefetch=prefetch)) as bound:
        if changed_meanwhile:
            await bound.redis.hset(  # another update's change, behind the read-ahead's back
                sheet_key(-100),
                player_field(42, SheetSystem.MAGE),
                (
                    await bound.redis.hget(sheet_key(-100), player_field(42, SheetSystem.MAGE))
                ).replace('"strength":3', '"strength":4'),
            )
        spend = SheetSpend(
            user_id=42,
            system=SheetSystem.MAGE,
            change=lambda s: set_trait(s, "dexterity", (s.rating("strength") or 0) + 1),
        )
        also = AlsoStep(tracker, tracker.version, Other(), Screen(text="tracker"))
        advanced, sheet = await bound.advance_flow_spending(
            panel, panel.version, Tally(total=1), spend, writes=StepWrites(also=also)
        )
    assert advanced is not None
    assert advanced.version == 1
    assert sheet is not None
    assert sheet.rating("dexterity") == (5 if changed_meanwhile else 4)
    stored = await store.load_sheet(-100, 42, SheetSystem.MAGE)
    assert stored == sheet
    moved = await store.load_flow(tracker.chat_id, tracker.id)
    assert moved is not None
    assert moved.version == 1
    assert moved.screen == Screen(text="tracker")


async def test_a_step_with_a_spend_stores_its_second_flow_and_the_flow_it_opens_at_once(
    store: Store,
) -> None:
    """The WATCH way (no sheet read ahead): the step, the sheet, the tracker's step and a
    new flow are one transaction; a tracker moved since the step read it stores none of
    them, so the press runs again on the fresh tracker."""
    await store.update_sheet(-100, 42, SheetSystem.MAGE, lambda s: set_trait(s, "strength", 3))
    panel = await store.create_flow(Tally(total=0), -100, 42)
    tracker = await store.create_flow(Other(), -100, 1)
    spend = SheetSpend(
        user_id=42, system=SheetSystem.MAGE, change=lambda s: set_trait(s, "dexterity", 2)
    )
    stale = AlsoStep(tracker, tracker.version, Other(), Screen(text="tracker"))
    await store.advance_flow(tracker, tracker.version, Other())  # someone else's step first
    opened = store.new_flow(Tally(total=9), -100, 42)
    writes = StepWrites(also=stale, opens=opened)
    lost, _ = await store.advance_flow_spending(
        panel, panel.version, Tally(total=1), spend, writes=writes
    )
    assert lost is None
    assert await store.load_flow(-100, opened.id) is None
    unchanged = await store.load_sheet(-100, 42, SheetSystem.MAGE)
    assert unchanged is not None
    assert unchanged.rating("dexterity") != 2
    fresh = await store.load_flow(tracker.chat_id, tracker.id)
    assert fresh is not None
    also = AlsoStep(fresh, fresh.version, Other(), Screen(text="tracker"))
    advanced, sheet = await store.advance_flow_spending(
        panel, panel.version, Tally(total=1), spend, writes=StepWrites(also=also, opens=opened)
    )
    assert advanced is not None
    assert sheet is not None
    assert sheet.rating("dexterity") == 2
    moved = await store.load_flow(tracker.chat_id, tracker.id)
    assert moved is not None
    assert moved.version == fresh.version + 1
    assert moved.screen == Screen(text="tracker")
    made = await store.load_flow(-100, opened.id)
    assert made is not None
    assert made.state(Tally) == Tally(total=9)


async def test_a_flow_carries_the_message_it_recorded_through_every_step(store: Store) -> None:
    made = await store.create_flow(Tally(total=0), -100, 42)
    bound = made.model_copy(update={"message": "-100:7"})
    first = await store.advance_flow(bound, 0, Tally(total=1))
    assert first is not None
    assert first.message == "-100:7"
    again = await store.advance_flow(first, 1, Tally(total=2))  # a step that knows nothing of it
    assert again is not None
    assert again.message == "-100:7"
    assert again.state(Tally) == Tally(total=2)
    closed = await store.close_flow(again, 2)
    assert closed is not None
    assert closed.message == "-100:7"


async def test_a_strict_second_step_rides_with_the_point_or_nothing_is_written(
    store: Store,
) -> None:
    """The round's mark of a point of Willpower (docs/rules.md §A.7, once a turn) is written
    with the point, in the roll's own transaction: a tracker moved since the read stores
    neither, and the caller reads it again."""
    await _sheet_with_willpower(store, 3)
    tracker = await store.create_flow(Other(), -100, 1)
    stale = AlsoStep(tracker, tracker.version, {"marked": 1}, None, strict=True)
    await store.advance_flow(tracker, tracker.version, Other())  # a tap on the tracker first
    with pytest.raises(AlsoMoved):
        await store.create_flow_spending(
            Tally(), -100, 42, _spend(), entries=[_entry(1)], also=stale
        )
    assert await _willpower_now(store) == 3
    assert await store.recent_rolls(-100) == []
    fresh = await store.load_flow(tracker.chat_id, tracker.id)
    assert fresh is not None
    also = AlsoStep(fresh, fresh.version, {"marked": 1}, fresh.screen, strict=True)
    with bound_to(store, Scope(actor=Actor(42, "Аня"))) as bound:
        flow, sheet = await bound.create_flow_spending(Tally(), -100, 42, _spend(), also=also)
    assert sheet is not None
    assert sheet.willpower_current == 2
    assert await store.load_flow(flow.chat_id, flow.id) == flow
    marked = await store.load_flow(tracker.chat_id, tracker.id)
    assert marked is not None
    assert marked.version == fresh.version + 1
    assert marked.data == {"marked": 1}
    assert not marked.acted_since(fresh.version, 42)  # nobody's press: the player may tap it


async def test_a_strict_second_step_moved_stops_the_one_script_too(store: Store) -> None:
    """The script on sheets read ahead skips a moved tracker's health line alone, but a
    strict step (the round's mark of the point) stores nothing."""
    await _sheet_with_willpower(store, 3)
    panel = await store.create_flow(Tally(total=0), -100, 42)
    tracker = await store.create_flow(Other(), -100, 1)
    _, _, _, prefetch = await store.begin_update(
        UpdateRef(1, 95, -100, -100, "a"),
        force=False,
        seed=SEED,
        ahead=ReadAhead(flow_id=panel.id, all_sheets=True),
    )
    stale = AlsoStep(tracker, tracker.version, {"marked": 1}, None, strict=True)
    await store.advance_flow(tracker, tracker.version, Other())
    with bound_to(store, Scope(prefetch=prefetch)) as bound:
        lost, sheet = await bound.advance_flow_spending(
            panel, panel.version, Tally(total=1), _spend(), writes=StepWrites(also=stale)
        )
    assert lost is None
    assert sheet is None
    assert await _willpower_now(store) == 3
    unmoved = await store.load_flow(panel.chat_id, panel.id)
    assert unmoved is not None
    assert unmoved.version == panel.version


@pytest.mark.parametrize("way", ["plain", "spending", "read ahead"])
async def test_the_step_that_ends_a_live_message_drops_its_pointer_in_the_same_write(
    store: Store, way: str
) -> None:
    """A finished fight's last tap: the chat points at no tracker from that very write on
    (whichever way the step is stored); a step of another flow naming it drops nothing."""
    await _sheet_with_willpower(store, 3)
    tracker = store.new_flow(Tally(total=1), -100, 42)
    assert await store.create_live("tracker", tracker, 77, Screen(text="t"), expected=None)
    stranger = await store.create_flow(Tally(), -100, 42)

    async def step(flow: Flow, close: bool) -> Flow | None:
        if way == "plain":
            return await store.advance_flow(
                flow, flow.version, Tally(total=9), close=close, ends_live="tracker"
            )
        writes = StepWrites(close=close, ends_live="tracker")
        if way == "spending":
            advanced, _ = await store.advance_flow_spending(
                flow, flow.version, Tally(total=9), _spend(), writes=writes
            )
            return advanced
        _, _, _, prefetch = await store.begin_update(
            UpdateRef(1, 94 + flow.version + int(close), -100, -100, "a"),
            force=False,
            seed=SEED,
            ahead=ReadAhead(all_sheets=True),
        )
        with bound_to(store, Scope(prefetch=prefetch)) as bound:
            advanced, _ = await bound.advance_flow_spending(
                flow, flow.version, Tally(total=9), _spend(), writes=writes
            )
        return advanced

    assert await step(stranger, close=False) is not None
    assert await store.load_live(-100, "tracker") is not None
    stored = await store.load_flow(-100, tracker.id)
    assert stored is not None
    assert await step(stored, close=True) is not None
    assert await store.load_live(-100, "tracker") is None
