"""End to end: the real ``python -m bot`` against the fake Bot API and a real redis-server.

What a player sees is checked against the rules themselves: the faces the bot prints are
resolved again with ``rules.d10`` and the count of successes it announces must match (§A.4).
"""

from __future__ import annotations

import re
from collections.abc import Callable

import pytest
import redis.asyncio as aioredis

from localapi.processes import RedisServer
from localapi.server import ChatMessage, FakeBotApi, FakeChat, FakeUser
from rules import d10, profiles
from tests.e2e.conftest import BotLauncher

pytestmark = pytest.mark.e2e

FACES_LINE = re.compile(r"^(?:10|[1-9])(?: (?:10|[1-9]))*$", re.MULTILINE)


def faces_in(message: ChatMessage) -> list[int]:
    lines = FACES_LINE.findall(message.text)
    assert len(lines) == 1, f"expected one line of faces in {message.text!r}"
    return [int(face) for face in lines[0].split()]


def check_roll_report(message: ChatMessage, pool: int, difficulty: int) -> None:
    """The message lists ``pool`` faces 1–10 and states what they mean under the default rules."""
    faces = faces_in(message)
    assert len(faces) == pool
    assert all(1 <= face <= 10 for face in faces)
    result = d10.resolve(faces, difficulty, profiles.get(profiles.DEFAULT))
    if result.successes > 0:
        stated = re.search(r"(\d+) успех", message.text)
        assert stated is not None, message.text
        assert int(stated.group(1)) == result.successes
    elif result.outcome is d10.Outcome.BOTCH:
        assert "Провал" in message.text
    else:
        assert "Неудача" in message.text


@pytest.fixture
def table(fake_api: FakeBotApi) -> tuple[FakeChat, FakeUser]:
    anya = fake_api.add_user("Аня", language_code="ru")
    return fake_api.add_group("Стол", owner=anya), anya


async def test_roll_in_a_supergroup(
    fake_api: FakeBotApi, bot_process: BotLauncher, table: tuple[FakeChat, FakeUser]
) -> None:
    group, anya = table
    await bot_process.start()
    command = fake_api.send_text(group, anya, "/r 7 6")
    reply = await fake_api.wait_for_message(group, after=command, timeout=10)
    assert "Аня" in reply.text
    check_roll_report(reply, pool=7, difficulty=6)
    assert [c.method for c in fake_api.calls_for_chat(group)] == ["sendMessage"]
    assert await bot_process.stop() == 0  # SIGTERM is a clean shutdown


async def test_flood_control_is_retried_and_sent_once(
    fake_api: FakeBotApi, bot_process: BotLauncher, table: tuple[FakeChat, FakeUser]
) -> None:
    group, anya = table
    await bot_process.start()
    fake_api.fail_next("sendMessage", status=429, retry_after=1)
    fake_api.fail_next("sendMessage", status=502)
    command = fake_api.send_text(group, anya, "/r 5 7")
    reply = await fake_api.wait_for_message(group, after=command, timeout=15)
    check_roll_report(reply, pool=5, difficulty=7)
    sends = fake_api.calls_to("sendMessage")
    assert [c.status for c in sends] == [429, 502, 200]
    assert sends[1].at - sends[0].at >= 0.9  # retry_after was respected
    assert len([m for m in group.messages if m.sender_id == fake_api.bot.id]) == 1
    fake_api.assert_no_duplicate_sends()


async def test_redis_with_aof_survives_a_crash(redis_factory: Callable[..., RedisServer]) -> None:
    """The fixture's AOF mode is what the restart tests rely on (docs/product.md §3, §5)."""
    server = redis_factory(appendonly=True)
    await server.start()
    url = server.url
    client = aioredis.Redis.from_url(url)
    await client.set("flow:1", "v3")
    await client.aclose()
    await server.kill()
    await server.start()
    assert server.url == url  # same port, so a running bot can reconnect
    client = aioredis.Redis.from_url(url)
    assert await client.get("flow:1") == b"v3"
    await client.aclose()
