"""The Store's contract, against fakeredis and against a real redis-server.

The same tests run on both because the bot uses fakeredis when REDIS_URL is unset and
promises the same semantics (PRODUCT.md §3).
"""

from __future__ import annotations

import asyncio
import re

import pytest
from pydantic import ValidationError

from bot.state import LOG_CAP, ChatSettings, Store, chat_key, flow_key


@pytest.fixture(params=["fakeredis", "redis-server"])
def store(request: pytest.FixtureRequest) -> Store:
    name = "fake_store" if request.param == "fakeredis" else "real_store"
    return request.getfixturevalue(name)  # type: ignore[no-any-return]


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
    flow = await store.create_flow("extended", -100, 42, {"pool": 7, "got": [1, 2]})
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,12}", flow.id)
    assert flow.version == 0
    assert not flow.closed
    assert await store.load_flow(flow.id) == flow


async def test_flow_ids_are_unique(store: Store) -> None:
    ids = {(await store.create_flow("k", 1, 1, {})).id for _ in range(50)}
    assert len(ids) == 50


async def test_advance_flow_compare_and_set(store: Store) -> None:
    flow = await store.create_flow("extended", -100, 42, {"total": 0})
    first = await store.advance_flow(flow.id, 0, {"total": 3})
    assert first is not None
    assert (first.version, first.data, first.closed) == (1, {"total": 3}, False)
    assert (first.kind, first.chat_id, first.owner_id) == ("extended", -100, 42)
    # A second tap carrying the old version is stale.
    assert await store.advance_flow(flow.id, 0, {"total": 99}) is None
    closed = await store.advance_flow(flow.id, 1, {"total": 5}, close=True)
    assert closed is not None
    assert (closed.version, closed.closed) == (2, True)
    # A closed flow accepts nothing, even with the right version.
    assert await store.advance_flow(flow.id, 2, {"total": 7}) is None
    loaded = await store.load_flow(flow.id)
    assert loaded is not None
    assert loaded.data == {"total": 5}


async def test_twenty_concurrent_taps_apply_once(store: Store) -> None:
    flow = await store.create_flow("opposed", -100, 42, {"n": 0})
    results = await asyncio.gather(
        *(store.advance_flow(flow.id, 0, {"n": i + 1}) for i in range(20))
    )
    winners = [r for r in results if r is not None]
    assert len(winners) == 1
    loaded = await store.load_flow(flow.id)
    assert loaded is not None
    assert loaded.version == 1
    assert loaded.data == winners[0].data


async def test_missing_and_expired_flows_are_none(store: Store) -> None:
    assert await store.load_flow("nope") is None
    assert await store.advance_flow("nope", 0, {}) is None
    flow = await store.create_flow("k", 1, 1, {}, ttl=1)
    assert await store.redis.ttl(flow_key(flow.id)) in (0, 1)
    await store.redis.pexpire(flow_key(flow.id), 1)
    await asyncio.sleep(0.05)
    assert await store.load_flow(flow.id) is None
    assert await store.advance_flow(flow.id, 0, {}) is None


async def test_advance_keeps_the_ttl(store: Store) -> None:
    flow = await store.create_flow("k", 1, 1, {}, ttl=500)
    await store.advance_flow(flow.id, 0, {"x": 1})
    assert 0 < await store.redis.ttl(flow_key(flow.id)) <= 500


async def test_take_update_dedupes_and_loads_settings(store: Store) -> None:
    await store.update_chat(-100, profile="dark-ages", locale="en")
    fresh, settings = await store.take_update(7, 1001, -100)
    assert fresh
    assert (settings.profile, settings.locale) == ("dark-ages", "en")
    again, _ = await store.take_update(7, 1001, -100)
    assert not again
    # Another bot's update with the same number is a different update.
    other, _ = await store.take_update(8, 1001, -100)
    assert other
    no_chat, defaults = await store.take_update(7, 1002, None)
    assert no_chat
    assert defaults == ChatSettings()


async def test_concurrent_duplicate_updates_taken_once(store: Store) -> None:
    results = await asyncio.gather(*(store.take_update(1, 55, -1) for _ in range(10)))
    assert sum(fresh for fresh, _ in results) == 1


async def test_log_is_capped_newest_first(store: Store) -> None:
    for i in range(LOG_CAP + 5):
        await store.log_roll(-100, {"i": i})
    recent = await store.recent_rolls(-100, limit=3)
    assert recent == [{"i": LOG_CAP + 4}, {"i": LOG_CAP + 3}, {"i": LOG_CAP + 2}]
    assert await store.redis.llen("sdb:log:-100") == LOG_CAP


async def test_create_flow_and_log_in_one_step(store: Store) -> None:
    flow = await store.create_flow_and_log("roll", -100, 42, {"pool": 5}, {"pool": 5, "s": 2})
    assert await store.load_flow(flow.id) == flow
    assert await store.recent_rolls(-100) == [{"pool": 5, "s": 2}]
