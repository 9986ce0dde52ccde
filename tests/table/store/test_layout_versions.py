"""The stored layout's version and its migration at start-up (:mod:`table.store.legacy`), on a
real redis-server: replicas starting together migrate once, one that dies mid-migration is
taken over, and data of a newer release is refused untouched (README "Upgrading")."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
from redis.asyncio import Redis

from table.store import chat_key, connect, legacy, sheet_key
from table.store.legacy import LAYOUT, LAYOUT_KEY, LOCK_KEY, LayoutTooNew, Lease
from tests.conftest import RedisServer

CHATS = 300  # enough keys that the replicas' starts overlap


@pytest.fixture
async def clients(redis_server: RedisServer) -> AsyncIterator[list[Redis]]:
    """Two replicas' connections to one Redis."""
    made = [connect(redis_server.url), connect(redis_server.url)]
    try:
        yield made
    finally:
        for client in made:
            await client.aclose()


async def write_layout_1(redis: Redis) -> None:
    for chat in range(1, CHATS + 1):
        await redis.set(f"sdb:chat:-{chat}", '{"profile": "dark-ages"}')
        await redis.hset(f"sdb:sheet:-{chat}", "u:42:mage", "{}")


async def test_two_replicas_starting_together_migrate_once(clients: list[Redis]) -> None:
    first, second = clients
    await write_layout_1(first)
    steps: list[int] = []
    real = legacy.STEPS[1]

    async def counted(redis: Redis, lease: Lease) -> int:
        steps.append(1)
        return await real(redis, lease)

    with pytest.MonkeyPatch.context() as patch:
        patch.setitem(legacy.STEPS, 1, counted)
        moved = await asyncio.gather(legacy.migrate(first), legacy.migrate(second))
    assert steps == [1]  # one replica ran the step, the other waited for its result
    assert sorted(moved) == [0, 2 * CHATS]
    assert await first.get(LAYOUT_KEY) == LAYOUT
    assert await first.exists(LOCK_KEY) == 0
    assert await first.get(chat_key(-CHATS)) == '{"profile": "dark-ages"}'
    assert await first.hget(sheet_key(-1), "u:42:mage") == "{}"
    assert await legacy.migrate(second) == 0  # and never again


async def test_a_replica_that_died_migrating_is_taken_over(
    clients: list[Redis], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = clients
    await write_layout_1(first)
    monkeypatch.setattr(legacy, "WAIT_STEP", 0.05)
    monkeypatch.setattr(legacy, "RENEW_EVERY", 0.0)  # the lease renewed at every key
    # A replica took the lock and died: its lock expires, and the next start migrates.
    await first.set(LOCK_KEY, "a-dead-replica", px=400)
    taken_over = asyncio.create_task(legacy.migrate(second))
    await asyncio.sleep(0.1)
    assert await first.get(LOCK_KEY) == "a-dead-replica"  # waited for it, did not steal it
    assert await taken_over == 2 * CHATS
    assert await first.get(LAYOUT_KEY) == LAYOUT
    assert await first.exists(LOCK_KEY) == 0


async def test_a_migration_cut_short_is_resumed(
    clients: list[Redis], monkeypatch: pytest.MonkeyPatch
) -> None:
    first, second = clients
    await write_layout_1(first)
    real = legacy.STEPS[1]

    async def dies_halfway(redis: Redis, lease: Lease) -> int:
        await redis.rename("sdb:chat:-1", chat_key(-1))
        raise ConnectionError("the process died")

    monkeypatch.setitem(legacy.STEPS, 1, dies_halfway)
    with pytest.raises(ConnectionError):
        await legacy.migrate(first)
    assert await first.get(LAYOUT_KEY) is None  # not marked done
    assert await first.exists(LOCK_KEY) == 0
    monkeypatch.setitem(legacy.STEPS, 1, real)
    assert await legacy.migrate(second) == 2 * CHATS - 1  # the rest; the moved one stays
    assert await first.get(chat_key(-1)) == '{"profile": "dark-ages"}'


async def test_data_of_a_newer_release_is_refused_untouched(clients: list[Redis]) -> None:
    first, _ = clients
    await first.set(LAYOUT_KEY, str(int(LAYOUT) + 1))
    await first.set("sdb:chat:-5", "{}")  # whatever a newer layout keeps there
    with pytest.raises(LayoutTooNew, match="restore the backup"):
        await legacy.migrate(first)
    assert await first.get("sdb:chat:-5") == "{}"
    assert await first.exists(LOCK_KEY) == 0


async def test_a_fresh_redis_is_marked_current(clients: list[Redis]) -> None:
    first, _ = clients
    assert await legacy.migrate(first) == 0
    assert await first.get(LAYOUT_KEY) == LAYOUT
