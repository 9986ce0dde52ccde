"""A release's data in Redis, kept as a file, for the upgrade test (test_upgrade_e2e.py).

``python -m tests.e2e.release_data FILE`` plays a short evening at a table through the real
``python -m bot`` of this checkout (against the fake Bot API and a redis-server of its own)
and writes every key it left, with its type, value and clock, to FILE as JSON. Run it once
for a release, commit the file beside the others and never write it again: the file is what
that release wrote, and the upgrade test loads each such file into a fresh Redis and plays
on with the current code.

The table: Аня (the group's owner) sets the game and her sheet, rolls from it and opens an
extended roll (a flow with buttons), Борис rolls plain dice; so the file holds a chat with
a game, a sheet, a flow, log lines and stats.
"""

from __future__ import annotations

import asyncio
import json
import sys
import tempfile
from pathlib import Path
from typing import Any

import redis.asyncio as aioredis

from localapi.processes import RedisServer
from localapi.server import FakeBotApi, FakeChat, FakeUser
from tests.e2e.conftest import BotLauncher

# Who sits at the table; the fake Bot API numbers users and groups in this order, so the test
# that loads the file meets the same ids.
PLAYERS = ("Аня", "Борис")
TITLE = "Хроника"
EVENING = (
    ("Аня", "/rules mage-revised"),
    ("Аня", "/set сила 3"),
    ("Аня", "/set ловкость 2"),
    ("Аня", "/set драка 2"),
    ("Аня", "/set сила воли 5"),
    ("Аня", "/r сила+драка 6"),
    ("Борис", "/r 4 7"),
    ("Аня", "/ext 4 6 10"),
)


def seat(
    api: FakeBotApi, telegram: dict[str, int] | None = None
) -> tuple[FakeChat, dict[str, FakeUser]]:
    """The table's group and players, numbered by the fake as when the file was written;
    with the file's ``telegram`` counters, Telegram goes on numbering updates and messages
    where it was (the bot keeps which updates it has done and the chat's last message)."""
    users = {name: api.add_user(name) for name in PLAYERS}
    group = api.add_group(TITLE, owner=users[PLAYERS[0]])
    if telegram is not None:
        api._next_update_id = telegram["next_update_id"]
        group.next_message_id = telegram["next_message_id"]
    return group, users


async def dump(client: aioredis.Redis) -> dict[str, dict[str, Any]]:
    """Every key: its type, its value in JSON's terms, and its clock (ms; -1: none)."""
    found: dict[str, dict[str, Any]] = {}
    async for key in client.scan_iter(match="*", count=1000):
        kind = await client.type(key)
        value: Any
        if kind == "string":
            value = await client.get(key)
        elif kind == "hash":
            value = await client.hgetall(key)
        elif kind == "list":
            value = await client.lrange(key, 0, -1)
        elif kind == "set":
            value = sorted(await client.smembers(key))
        elif kind == "zset":
            value = [[m, s] for m, s in await client.zrange(key, 0, -1, withscores=True)]
        else:
            raise ValueError(f"{key}: a {kind} cannot be kept in the file")
        found[key] = {"type": kind, "value": value, "ttl_ms": await client.pttl(key)}
    return dict(sorted(found.items()))


async def load(client: aioredis.Redis, data: dict[str, dict[str, Any]]) -> None:
    """Write the keys of :func:`dump` back, each with the clock it had."""
    for key, entry in data.items():
        kind, value = entry["type"], entry["value"]
        if kind == "string":
            await client.set(key, value)
        elif kind == "hash":
            await client.hset(key, mapping=value)
        elif kind == "list":
            await client.rpush(key, *value)
        elif kind == "set":
            await client.sadd(key, *value)
        elif kind == "zset":
            await client.zadd(key, {member: score for member, score in value})
        if entry["ttl_ms"] > 0:
            await client.pexpire(key, entry["ttl_ms"])


async def record() -> dict[str, Any]:
    with tempfile.TemporaryDirectory() as directory:
        root = Path(directory)
        (root / "redis").mkdir()
        redis = RedisServer(root / "redis")
        async with FakeBotApi() as api:
            await redis.start()
            launcher = BotLauncher(api, redis, root)
            try:
                group, users = seat(api)
                await launcher.start()
                for name, text in EVENING:
                    typed = api.send_text(group, users[name], text)
                    await api.wait_for_message(group, after=typed, timeout=10)
                await launcher.stop_all()
                client = aioredis.Redis.from_url(redis.url, decode_responses=True)
                try:
                    keys = await dump(client)
                finally:
                    await client.aclose()
                telegram = {
                    "next_update_id": api._next_update_id,
                    "next_message_id": group.next_message_id,
                }
            finally:
                await launcher.stop_all()
                await redis.stop()
    return {"telegram": telegram, "keys": keys}


if __name__ == "__main__":
    data = asyncio.run(record())
    path = Path(sys.argv[1])
    path.write_text(json.dumps(data, ensure_ascii=False, indent=1, sort_keys=True) + "\n")
    sys.stdout.write(f"{path}: {len(data['keys'])} keys\n")
