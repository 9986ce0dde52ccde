"""Which errors of the Redis client are an outage (table/store/base.py): every one, so an
update that meets an error nobody foresaw is run again later, never told to try again."""

from __future__ import annotations

import pytest
from redis.exceptions import (
    BusyLoadingError,
    OutOfMemoryError,
    ResponseError,
)

from bot.middlewares import RETRIED_LATER
from table.store import REDIS_ERRORS, STORAGE_ERRORS, RedisUnavailable, Store, client_faults
from tests.conftest import RedisServer


@pytest.mark.parametrize(
    "error",
    [
        OutOfMemoryError("command not allowed when used memory > 'maxmemory'."),
        ResponseError("MISCONF Redis is configured to save RDB snapshots"),
        ResponseError("BUSY Redis is busy running a script"),
        ResponseError("SOMETHING nobody has seen before"),
        BusyLoadingError("Redis is loading the dataset in memory"),
    ],
)
def test_every_error_of_the_redis_client_is_an_outage(error: Exception) -> None:
    assert isinstance(error, STORAGE_ERRORS)
    assert isinstance(error, REDIS_ERRORS)
    assert isinstance(error, RETRIED_LATER)  # the update is run again later


def _raise_in_client(error: Exception) -> None:
    """Raise ``error`` from a frame of the Redis client's, as its cluster transaction does."""
    fault = compile("raise error", "redis/asyncio/cluster.py", "exec")
    exec(fault, {"__name__": "redis.asyncio.cluster", "error": error})


def test_what_the_cluster_client_raises_while_it_fails_over_is_an_outage() -> None:
    """redis-py's cluster transaction raises RuntimeError while it finds the cluster again
    after a primary died: an outage, not a bug of the bot's."""
    with pytest.raises(RedisUnavailable, match="RuntimeError") as raised, client_faults():
        _raise_in_client(RuntimeError("dictionary changed size during iteration"))
    assert isinstance(raised.value, STORAGE_ERRORS)


def test_an_error_of_the_bot_s_own_inside_a_client_call_stays_a_bug() -> None:
    """A transaction's callback is the bot's code, called by the client: what it raises is
    the bot's, whatever client frames lie above it."""

    def callback() -> None:
        raise RuntimeError("a bug of ours")

    call = compile("callback()", "redis/asyncio/client.py", "exec")
    with pytest.raises(RuntimeError, match="a bug of ours"), client_faults():
        exec(call, {"__name__": "redis.asyncio.client", "callback": callback})


def test_an_error_of_the_client_passes_as_it_is() -> None:
    with pytest.raises(OutOfMemoryError), client_faults():
        _raise_in_client(OutOfMemoryError("OOM"))


async def test_a_server_out_of_memory_refuses_writes_with_an_outage(
    redis_server: RedisServer,
) -> None:
    """A real redis-server at its maxmemory with noeviction answers -OOM to a write: the
    Store's error for it is an outage, and the same write goes through once memory is back."""
    store = Store.from_url(redis_server.url)
    try:
        await store.redis.config_set("maxmemory-policy", "noeviction")
        await store.redis.config_set("maxmemory", "1")
        with pytest.raises(STORAGE_ERRORS) as raised:
            await store.note_sent(-100, 7)
        assert isinstance(raised.value, OutOfMemoryError)
        assert await store.last_sent(-100) == 0  # reads still answer
        await store.redis.config_set("maxmemory", "0")
        await store.note_sent(-100, 7)
        assert await store.last_sent(-100) == 7
    finally:
        await store.close()
