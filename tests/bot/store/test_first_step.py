"""What an update's first and last round-trips do besides the journal (bot/store/updates.py):
keep the fetched update in the inbox, reserve its reply's send slot ahead (bot/store/
budget.py), hand back a slot nobody took, and leave only a small mark once finished."""

from __future__ import annotations

import time

from bot.store import Begun, Store, budget_key, current_journal, inbox_key, journal_key

SEED = bytes(range(32))
GROUP = (-100, 20, 61.0)
OVERALL = (None, 25, 1.0)


async def test_the_first_step_keeps_the_update_in_the_inbox_unless_it_was_done(
    store: Store,
) -> None:
    status, _, _, _ = await store.begin_update(
        7, 501, -100, -100, "me", force=False, seed=SEED, inbox='{"update_id": 501}'
    )
    assert status is Begun.GO
    kept = await store.inbox(7)
    # On a cluster the inbox is in a slot of its own: the fetch writes it there itself.
    assert kept == ({} if store.cluster else {501: '{"update_id": 501}'})
    await store.finish_update(7, 501, -100, "me")
    assert await store.inbox(7) == {}
    again, _, _, _ = await store.begin_update(
        7, 501, -100, -100, "me", force=False, seed=SEED, inbox='{"update_id": 501}'
    )
    assert again is Begun.DONE
    assert await store.inbox(7) == {}  # a redelivery of a finished update is not kept


async def test_a_busy_chat_still_keeps_the_update_in_the_inbox(store: Store) -> None:
    await store.begin_update(7, 601, -100, -100, "a", force=False, seed=SEED)
    status, _, _, _ = await store.begin_update(
        7, 602, -100, -100, "b", force=False, seed=SEED, inbox='{"update_id": 602}'
    )
    assert status is Begun.BUSY
    if not store.cluster:
        assert await store.inbox(7) == {602: '{"update_id": 602}'}


async def test_a_finished_journal_keeps_only_its_mark(store: Store) -> None:
    _, _, journal, _ = await store.begin_update(7, 701, -100, -100, "me", force=False, seed=SEED)
    assert journal is not None
    await store.finish_update(7, 701, -100, "me")
    key = journal_key(7, 701, -100)
    assert await store.redis.hgetall(key) == {"done": "1"}
    assert 0 < await store.redis.ttl(key) <= 86_400


async def test_a_commands_reply_is_reserved_by_its_first_step(store: Store) -> None:
    _, _, journal, _ = await store.begin_update(
        7, 801, -100, -100, "me", force=False, seed=SEED, lease=[GROUP, OVERALL]
    )
    assert journal is not None
    if store.cluster:  # the bot's window is in a slot of its own: each send reserves
        assert journal.lease is None
        return
    assert journal.lease is not None
    assert await store.redis.zcard(budget_key(7, -100)) == 1
    assert await store.redis.zcard(budget_key(7, None)) == 1
    token = current_journal.set(journal)
    try:
        assert await store.reserve_send(7, [GROUP, OVERALL]) == 0.0  # the lease: no trip
        assert journal.lease.taken
        await store.reserve_send(7, [GROUP, OVERALL])  # a second send reserves its own
    finally:
        current_journal.reset(token)
    assert await store.redis.zcard(budget_key(7, -100)) == 2
    await store.finish_update(7, 801, -100, "me", lease=journal.lease)
    assert await store.redis.zcard(budget_key(7, -100)) == 2  # both sends stay counted


async def test_a_lease_nobody_took_is_handed_back(store: Store) -> None:
    if store.cluster:
        return
    _, _, journal, _ = await store.begin_update(
        7, 901, -100, -100, "me", force=False, seed=SEED, lease=[GROUP, OVERALL]
    )
    assert journal is not None
    assert journal.lease is not None
    await store.finish_update(7, 901, -100, "me", lease=journal.lease)
    assert await store.redis.zcard(budget_key(7, -100)) == 0
    assert await store.redis.zcard(budget_key(7, None)) == 0


async def test_a_stale_or_foreign_lease_is_not_taken(store: Store) -> None:
    if store.cluster:
        return
    _, _, journal, _ = await store.begin_update(
        7, 902, 55, 55, "me", force=False, seed=SEED, lease=[OVERALL]
    )
    assert journal is not None
    lease = journal.lease
    assert lease is not None
    assert lease.take([GROUP, OVERALL]) is None  # a send to a group the lease does not hold
    lease.at = time.monotonic() - 5
    assert lease.take([OVERALL]) is None  # long past its slot: the send reserves its own
    assert not lease.taken


async def test_a_full_window_makes_the_leased_reply_wait(store: Store) -> None:
    if store.cluster:
        return
    for _ in range(20):
        await store.reserve_send(7, [GROUP, OVERALL])
    _, _, journal, _ = await store.begin_update(
        7, 903, -100, -100, "me", force=False, seed=SEED, lease=[GROUP, OVERALL]
    )
    assert journal is not None
    assert journal.lease is not None
    wait = journal.lease.take([GROUP, OVERALL])
    assert wait is not None
    assert 59.0 < wait <= 61.0


async def test_the_inbox_key_is_the_one_the_fetch_writes(store: Store) -> None:
    await store.inbox_add(7, {1: "{}"})
    assert await store.redis.hexists(inbox_key(7), "1")
