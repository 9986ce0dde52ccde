"""The bot says at start what the Redis server would lose in a power cut (table/durability.py)."""

from __future__ import annotations

import logging

import pytest
import redis.asyncio as aioredis

from table.durability import check_durability
from tests.conftest import RedisServer


async def test_the_server_s_fsync_is_read_and_a_broken_promise_is_warned_of(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    client = aioredis.Redis.from_url(redis_server.url, decode_responses=True)
    try:
        with caplog.at_level(logging.INFO, "table.durability"):
            assert await check_durability(client, "everysec") == "everysec"
            assert not [r for r in caplog.records if r.levelno >= logging.WARNING]
            assert await check_durability(client, "always") == "everysec"
            assert "REDIS_APPENDFSYNC=always" in caplog.text
            await client.config_set("appendonly", "no")
            assert await check_durability(client, None) == "off"
            assert "no append-only file" in caplog.text
    finally:
        await client.aclose()


async def test_a_server_that_refuses_config_is_not_checked(
    redis_server: RedisServer, caplog: pytest.LogCaptureFixture
) -> None:
    """A managed Redis renames or refuses CONFIG: the bot starts all the same."""
    client = aioredis.Redis.from_url(redis_server.url, decode_responses=True)
    try:
        await client.execute_command("ACL", "SETUSER", "default", "-config")
        with caplog.at_level(logging.INFO, "table.durability"):
            assert await check_durability(client, "always") is None
        assert "not checked" in caplog.text
    finally:
        await client.aclose()
