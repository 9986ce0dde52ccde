"""The connection packs commands in C and sends exactly the bytes redis-py would; the pool
hands connections out and takes them back as redis-py's blocking pool does."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest
from redis.asyncio import Redis
from redis.asyncio.connection import Connection, SSLConnection, UnixDomainSocketConnection
from redis.exceptions import ConnectionError as RedisConnectionError
from redis.exceptions import DataError

from table.store import base
from table.store.base import STORAGE_ERRORS, connect
from tests.conftest import RedisServer


@pytest.mark.parametrize(
    "args",
    [
        ("EVALSHA", "f" * 40, 2, "s:{5}:k", "s:{5}:j", "Привет, мир", -7, 1.5, 10**20, ""),
        ("CLIENT SETNAME", "bot"),
        (b"CLIENT SETNAME", b"\x00\xff", bytearray(b"ab"), memoryview(b"cd")),
    ],
)
def test_packs_the_same_bytes_as_redis_py(args: tuple[Any, ...]) -> None:
    packed = connect("redis://localhost:1/0").connection_pool.connection_class()
    assert b"".join(packed.pack_command(*args)) == b"".join(Connection().pack_command(*args))


@pytest.mark.parametrize("bad", [None, True, object()])
def test_refuses_what_redis_py_refuses(bad: object) -> None:
    packed = connect("redis://localhost:1/0").connection_pool.connection_class()
    with pytest.raises(DataError):
        Connection().pack_command("SET", "k", bad)
    with pytest.raises(DataError):
        packed.pack_command("SET", "k", bad)


@pytest.mark.parametrize(
    ("url", "kind"),
    [
        ("redis://localhost:1/0", Connection),
        ("rediss://localhost:1/0", SSLConnection),
        ("unix:///tmp/none.sock", UnixDomainSocketConnection),
    ],
)
def test_keeps_the_kind_of_connection_the_url_names(url: str, kind: type) -> None:
    chosen = connect(url).connection_pool.connection_class
    assert issubclass(chosen, kind)
    assert chosen is not kind


# The pool (redis-py's blocking one) hands out and takes back connections as promised.


@pytest.fixture
def small_pool(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(base, "POOL_SIZE", 2)
    monkeypatch.setattr(base, "POOL_WAIT", 0.3)


def books(redis: Redis) -> tuple[int, int]:
    pool = redis.connection_pool
    return len(pool._in_use_connections), len(pool._available_connections)


@pytest.mark.usefixtures("small_pool")
async def test_many_callers_share_the_pool_and_every_connection_comes_back(
    redis_server: RedisServer,
) -> None:
    redis = connect(redis_server.url)
    try:
        replies = await asyncio.gather(*(redis.incr("n") for _ in range(50)))
        assert sorted(replies) == list(range(1, 51))
        assert books(redis) == (0, 2)
        # Transactions (WATCH … MULTI/EXEC) take and give back their connection the same way.
        async with redis.pipeline() as pipe:
            await pipe.watch("n")
            pipe.multi()
            pipe.incr("n")
            assert await pipe.execute() == [51]
        assert books(redis) == (0, 2)
    finally:
        await redis.aclose()


@pytest.mark.usefixtures("small_pool")
async def test_a_caller_waits_for_a_connection_and_gives_up_in_time(
    redis_server: RedisServer,
) -> None:
    redis = connect(redis_server.url)
    try:
        await redis.ping()  # one connection made and idle
        held = [await redis.connection_pool.get_connection() for _ in range(2)]
        waiter = asyncio.create_task(redis.ping())
        await asyncio.sleep(0.05)
        assert not waiter.done()
        await redis.connection_pool.release(held.pop())  # handed to the waiting caller
        assert await asyncio.wait_for(waiter, 1) is True
        await redis.connection_pool.get_connection()  # both in use again
        with pytest.raises(RedisConnectionError, match="No connection available"):
            await redis.ping()
    finally:
        await redis.aclose()


async def test_a_cancelled_command_leaves_no_reply_for_the_next(
    redis_server: RedisServer,
) -> None:
    redis = connect(redis_server.url)
    try:
        await redis.set("k", "v")
        blocked = asyncio.create_task(redis.blpop(["list"], timeout=5))
        await asyncio.sleep(0.05)
        blocked.cancel()
        with pytest.raises(asyncio.CancelledError):
            await blocked
        await redis.rpush("list", "late")  # the cancelled BLPOP must not take it
        assert books(redis)[0] == 0
        assert await redis.get("k") == "v"
        assert await redis.lrange("list", 0, -1) == ["late"]
    finally:
        await redis.aclose()


async def test_an_outage_surfaces_as_a_storage_error_and_heals(
    redis_server: RedisServer,
) -> None:
    redis = connect(redis_server.url)
    try:
        await redis.set("k", "v")
        redis_server.stop()
        with pytest.raises(STORAGE_ERRORS):
            await redis.get("k")
        assert books(redis)[0] == 0
        redis_server.start()
        # The pooled connection died with the server: it is found out and made anew.
        assert await redis.ping() is True
        assert books(redis)[0] == 0
    finally:
        await redis.aclose()
