"""The send budget every replica shares (table/store/budget.py), on fakeredis, one
redis-server and a Redis Cluster: one reservation covers a group's minute and the bot's
second, and a window at its limit makes the next send wait for the oldest slot to age out."""

from __future__ import annotations

from table.store import Store

GROUP = (-100, 20, 61.0)
OVERALL = (None, 25, 1.0)


async def test_a_groups_21st_send_in_its_minute_waits_for_the_first(store: Store) -> None:
    waits = [await store.reserve_send(7, [GROUP, OVERALL]) for _ in range(20)]
    assert max(waits) < 1.0  # only the bot's second can hold any of these back
    late = await store.reserve_send(7, [GROUP, OVERALL])
    assert 59.0 < late <= 61.0


async def test_the_overall_second_holds_every_chat(store: Store) -> None:
    waits = [await store.reserve_send(7, [(-100 - n, 20, 61.0), OVERALL]) for n in range(25)]
    assert waits == [0.0] * 25
    assert 0.0 < await store.reserve_send(7, [(-500, 20, 61.0), OVERALL]) <= 1.0
    assert 0.0 < await store.reserve_send(7, [OVERALL]) <= 1.0  # a private chat's send too


async def test_bots_and_groups_keep_budgets_of_their_own(store: Store) -> None:
    for _ in range(20):
        await store.reserve_send(7, [GROUP])
    assert await store.reserve_send(7, [(-200, 20, 61.0)]) == 0.0
    assert await store.reserve_send(8, [GROUP]) == 0.0
