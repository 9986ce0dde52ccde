"""A forum's send turn and the register of what the bot posted (table/store/posts.py), on
fakeredis, one redis-server and a Redis Cluster."""

from __future__ import annotations

from table.store import Posted, Store
from table.store.posts import POSTED_KEPT, SEND_TURN_TTL_MS, posted_key, turn_key

FORUM = -1_001_234_567_890


async def test_the_turn_is_one_holders_at_a_time_and_a_retry_keeps_it(store: Store) -> None:
    assert await store.take_send_turn(FORUM, "a")
    assert not await store.take_send_turn(FORUM, "b")  # another topic's send waits
    assert await store.take_send_turn(FORUM, "a")  # redis-py's retry of a lost answer
    assert 0 < await store.redis.pttl(turn_key(FORUM)) <= SEND_TURN_TTL_MS
    await store.end_send_turn(FORUM, "b", None)  # not b's to let go
    assert not await store.take_send_turn(FORUM, "b")
    await store.end_send_turn(FORUM, "a", None)
    assert await store.take_send_turn(FORUM, "b")
    assert not await store.renew_send_turn(FORUM, "a")
    assert await store.renew_send_turn(FORUM, "b")


async def test_what_a_send_posted_is_registered_with_its_topic_and_update(store: Store) -> None:
    await store.take_send_turn(FORUM, "a")
    await store.end_send_turn(FORUM, "a", Posted(41, 7, 900))
    await store.end_send_turn(FORUM, "", Posted(43, None, 901))  # made without the turn
    await store.end_send_turn(FORUM, "", Posted(43, None, 901))  # the same twice
    assert await store.posted(FORUM, 41) == Posted(41, 7, 900)
    assert await store.posted(FORUM, 43) == Posted(43, None, 901)
    assert await store.posted(FORUM, 42) is None
    assert await store.posted_above(FORUM, 41) == {43: Posted(43, None, 901)}
    assert await store.redis.zcard(posted_key(FORUM)) == 2
    assert await store.redis.ttl(posted_key(FORUM)) > 0
    assert await store.last_sent(FORUM) == 0  # the floor is the finishing update's to raise
    await store.end_send_turn(FORUM, "", Posted(44, None, 0), raise_floor=True)
    assert await store.last_sent(FORUM) == 44


async def test_the_register_keeps_the_newest_messages(store: Store) -> None:
    members = {f"{n}:0:1": n for n in range(1, POSTED_KEPT + 1)}
    await store.redis.zadd(posted_key(FORUM), members)
    await store.end_send_turn(FORUM, "", Posted(POSTED_KEPT + 1, 3, 2))
    assert await store.redis.zcard(posted_key(FORUM)) == POSTED_KEPT
    assert await store.posted(FORUM, 1) is None
    assert await store.posted(FORUM, POSTED_KEPT + 1) == Posted(POSTED_KEPT + 1, 3, 2)


def test_a_member_that_is_not_a_register_entry_reads_as_none() -> None:
    assert Posted.parse("12:0:4") == Posted(12, None, 4)
    assert Posted.parse(b"12:5:4") == Posted(12, 5, 4)
    for junk in ("", "12", "12:x:4", "1:2:3:4", "-1:0:0"):
        assert Posted.parse(junk) is None
