"""Data survives an upgrade: what a previous release left in Redis is brought to this
release's layout at start-up, once, and the table plays on (README "Upgrading").

Each file in tests/e2e/data/ is what a release wrote (tests/e2e/release_data.py made it, at
that release): a chat with its game, a sheet, flows, log lines and stats. It is loaded into
a fresh redis-server, the real ``python -m bot`` starts on it, and the player reads her sheet,
rolls from it, and finds the evening's log and counts carried on. The same data is also
given as the layout before hash tags wrote it (layout 1), so the start really moves keys.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import redis.asyncio as aioredis

from localapi.processes import RedisServer
from localapi.server import FakeBotApi, GroupShape
from table.store.legacy import LAYOUT, LAYOUT_KEY
from tests.e2e.conftest import BotLauncher, InChat
from tests.e2e.release_data import PLAYERS, TITLE, load, seat
from tests.e2e.test_roll_e2e import check_roll_report

pytestmark = pytest.mark.e2e

DATA = Path(__file__).resolve().parent / "data"
RELEASES = {path.stem: json.loads(path.read_text()) for path in sorted(DATA.glob("release-*.json"))}
WAIT = 10.0

# What layout 1 named a chat's keys (the migration's own list, table/store/legacy.py).
_TAGGED = re.compile(r"^sdb:(chat|log|sheet|hidden|hseq):\{(-?\d+)\}$")
_TAGGED_LIVE = re.compile(r"^sdb:live:\{(-?\d+)\}:(.+)$")
_TAGGED_FLOW = re.compile(r"^sdb:flow:\{(-?\d+)\}:(.+)$")


def as_layout_1(keys: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """The same data as the release before hash tags stored it: chat keys untagged, a flow
    by its id alone with its chat in the hash, and no ``sdb:layout``."""
    older: dict[str, dict[str, Any]] = {}
    for key, entry in keys.items():
        if key == LAYOUT_KEY:
            continue
        if found := _TAGGED.match(key):
            key = f"sdb:{found[1]}:{found[2]}"
        elif found := _TAGGED_LIVE.match(key):
            key = f"sdb:live:{found[1]}:{found[2]}"
        elif found := _TAGGED_FLOW.match(key):
            key = f"sdb:flow:{found[2]}"
            entry = {**entry, "value": {**entry["value"], "chat_id": found[1]}}
        older[key] = entry
    return older


def test_there_is_a_release_to_upgrade_from() -> None:
    assert RELEASES, f"no release-*.json in {DATA}"


@pytest.mark.parametrize("layout", ["as written", "layout 1"])
@pytest.mark.parametrize("release", sorted(RELEASES))
async def test_a_previous_releases_table_plays_on_after_the_upgrade(
    release: str,
    layout: str,
    fake_api: FakeBotApi,
    redis_server: RedisServer,
    bot_process: BotLauncher,
) -> None:
    data = RELEASES[release]
    keys = data["keys"] if layout == "as written" else as_layout_1(data["keys"])
    group, users = seat(fake_api, data["telegram"])
    anya = users["Аня"]
    client = aioredis.Redis.from_url(redis_server.url, decode_responses=True)
    try:
        await load(client, keys)
        log_before = len(data["keys"][f"sdb:log:{{{group.id}}}"]["value"])
        stats_before = await client.hget(f"sdb:stats:{{{group.id}}}", f"r:{anya.id}")

        await bot_process.start()  # the migration runs before the bot polls
        assert await client.get(LAYOUT_KEY) == LAYOUT
        assert await client.exists("sdb:layout:lock") == 0  # the lock is given back
        assert not [k async for k in client.scan_iter(match="sdb:chat:-*")]  # none left behind

        typed = fake_api.send_text(group, anya, "/sheet")
        sheet = await fake_api.wait_for_message(group, after=typed, timeout=WAIT)
        for trait in ("Сила 3", "Ловкость 2", "Драка 2"):
            assert trait in sheet.text, sheet.text

        typed = fake_api.send_text(group, anya, "/r сила+драка 6")
        rolled = await fake_api.wait_for_message(group, after=typed, timeout=WAIT)
        check_roll_report(rolled, 5, 6)  # the pool from the sheet that came through

        assert await client.llen(f"sdb:log:{{{group.id}}}") == log_before + 1
        stats_after = await client.hget(f"sdb:stats:{{{group.id}}}", f"r:{anya.id}")
        assert stats_before is not None
        assert stats_after == str(int(stats_before) + 1), (stats_before, stats_after)
        for key in (f"sdb:chat:{{{group.id}}}", f"sdb:sheet:{{{group.id}}}"):
            assert await client.ttl(key) > 0, key  # every key keeps a clock
        flows = [k async for k in client.scan_iter(match=f"sdb:flow:{{{group.id}}}:*")]
        assert len(flows) >= 4  # the evening's three and the new roll's
    finally:
        await client.aclose()


@pytest.mark.parametrize("release", sorted(RELEASES))
async def test_a_group_made_a_forum_plays_on_in_general_and_its_topics_start_afresh(
    release: str,
    fake_api: FakeBotApi,
    redis_server: RedisServer,
    bot_process: BotLauncher,
) -> None:
    """What a release stored for a group is its own game's, which a forum plays in General:
    no migration moves it. A topic made later is a campaign of its own and starts empty."""
    data = RELEASES[release]
    users = {name: fake_api.add_user(name) for name in PLAYERS}
    anya = users["Аня"]
    original, _ = seat(FakeBotApi(), data["telegram"])  # the id the data was written for
    forum = fake_api.add_group(
        TITLE,
        owner=anya,
        members=list(users.values()),
        shape=GroupShape(is_forum=True, chat_id=original.id),
    )
    fake_api._next_update_id = data["telegram"]["next_update_id"]
    forum.next_message_id = data["telegram"]["next_message_id"]
    fake_api.create_topic(forum, "Маг", by=anya)
    general, mage = InChat(fake_api, forum), InChat(fake_api, forum, "Маг")
    client = aioredis.Redis.from_url(redis_server.url, decode_responses=True)
    try:
        await load(client, data["keys"])
        log_before = len(data["keys"][f"sdb:log:{{{forum.id}}}"]["value"])
        await bot_process.start()

        sheet = await general.say(anya, "/sheet")
        for trait in ("Сила 3", "Ловкость 2", "Драка 2"):
            assert trait in sheet.text, sheet.text
        rolled = await general.say(anya, "/r сила+драка 6")
        check_roll_report(rolled, 5, 6)
        assert rolled.topic_id is None
        assert await client.llen(f"sdb:log:{{{forum.id}}}") == log_before + 1

        fresh = await mage.say(anya, "/sheet")  # the topic's own campaign: no sheet yet
        assert fresh.topic_id == mage.thread_id
        assert "Сила 3" not in fresh.text
        assert await client.llen(f"sdb:log:{{{forum.id}}}") == log_before + 1
        assert not await client.exists(f"sdb:sheet:{{{forum.id}:{mage.thread_id}}}")
    finally:
        await client.aclose()
