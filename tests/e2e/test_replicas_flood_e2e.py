"""Two webhook replicas under Telegram's flood control, one of them killed mid-burst and
started again (docs/product.md §5 "Scale"): the send budget is one for the bot, kept in
Redis, so together — and across the restart — they never send faster than Telegram allows
(about 30 messages a second overall, 20 a minute in one group), and nothing is lost or shown
twice.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import pytest
import redis.asyncio as aioredis

from bot.store import inbox_key, log_key
from localapi.processes import RedisServer
from localapi.server import FakeBotApi, FakeChat, FakeUser, free_port
from tests.e2e.test_faults_e2e import check_burst, replies
from tests.e2e.test_scale_e2e import WAIT, Balancer, Bots, Telegram, bots

pytestmark = pytest.mark.e2e

__all__ = ["bots"]  # the fixture, shared with the scale tests

BUSY_ROLLS = 24  # in one group: more than its 20 a minute, so the budget must hold some back
TABLES = 10  # other groups, each with a few rolls at once: the bot's 30 a second overall
ROLLS_PER_TABLE = 3


async def test_two_replicas_and_a_restart_keep_to_telegrams_limits_and_lose_nothing(
    fake_api: FakeBotApi,
    bots: Bots,
    redis_factory: Callable[..., RedisServer],
) -> None:
    redis = redis_factory()
    await redis.start()
    fake_api.enforce_flood_limits()  # 20 a minute in a group, 30 a second overall
    ports = [free_port(), free_port()]
    replicas = [f"http://127.0.0.1:{port}/hook" for port in ports]
    async with Balancer(replicas) as balancer, Telegram(fake_api) as telegram:
        first, _second = await asyncio.gather(
            *(bots.webhook(redis.url, balancer.url, port) for port in ports)
        )
        busy_player = fake_api.add_user("Аня")
        busy = fake_api.add_group("Шумный стол", owner=busy_player)
        tables: list[tuple[FakeChat, FakeUser]] = [(busy, busy_player)]
        for n in range(TABLES):
            player = fake_api.add_user(f"Игрок{n}")
            tables.append((fake_api.add_group(f"Стол {n}", owner=player), player))
        telegram.delivering.clear()
        commands = [(busy, fake_api.send_text(busy, busy_player, "/r 6 6")) for _ in range(12)]
        commands += [
            (group, fake_api.send_text(group, player, "/r 6 6"))
            for _ in range(ROLLS_PER_TABLE)
            for group, player in tables[1:]
        ]
        commands += [
            (busy, fake_api.send_text(busy, busy_player, "/r 6 6")) for _ in range(BUSY_ROLLS - 12)
        ]
        telegram.delivering.set()
        await fake_api.wait_for(lambda: len(fake_api.calls_to("sendMessage")) >= 25, timeout=WAIT)
        await first.kill()  # mid-burst, whatever it was sending
        await bots.webhook(redis.url, balancer.url, ports[0])  # and back: its budget is Redis's

        def answered() -> bool:
            return all(c.message_id in replies(fake_api, g) for g, c in commands)

        await fake_api.wait_for(answered, timeout=120)
        await asyncio.sleep(1.0)  # anything sent twice would show up by now
        flooded = [c for c in fake_api.calls if c.status == 429]
        assert not flooded, [(c.method, c.chat_id) for c in flooded]
        # Not in order: an update the dead replica had received but not yet answered comes
        # back from Telegram only after the chat's later ones ran on the other replica.
        check_burst(fake_api, commands, ordered=False)
        assert all(count > 0 for count in balancer.sent.values()), balancer.sent

    client = aioredis.Redis.from_url(redis.url, decode_responses=True)
    try:
        assert await client.llen(log_key(busy.id)) == BUSY_ROLLS  # each rolled once
        for group, _player in tables[1:]:
            assert await client.llen(log_key(group.id)) == ROLLS_PER_TABLE
        assert await client.hlen(inbox_key(fake_api.bot.id)) == 0
    finally:
        await client.aclose()
