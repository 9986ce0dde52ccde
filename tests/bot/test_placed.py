"""A press on an old message placed in its forum topic by the chat's register (bot/placed.py)."""

from __future__ import annotations

from typing import Any

import fakeredis
import pytest
from aiogram.types import Message, Update
from redis.exceptions import ConnectionError as RedisConnectionError

from bot.middlewares import campaign_of
from bot.placed import PLACED_THREAD, place_old_presses, placed_thread, pressed_message
from table.scope import Campaign
from table.store import Posted, Store

FORUM = -1_001_000_000_077


def press(
    message_id: int, *, forum: bool = True, kind: str = "supergroup", date: int = 0
) -> dict[str, Any]:
    chat: dict[str, Any] = {"id": FORUM, "type": kind, "title": "Клуб"}
    if forum:
        chat["is_forum"] = True
    message: dict[str, Any] = {"chat": chat, "message_id": message_id, "date": date}
    return {
        "update_id": 10 + message_id,
        "callback_query": {
            "id": "q",
            "from": {"id": 5, "is_bot": False, "first_name": "Аня"},
            "chat_instance": "1",
            "data": "x",
            "message": message,
        },
    }


@pytest.fixture
def store() -> Store:
    return Store(fakeredis.FakeAsyncRedis(decode_responses=True))


async def test_an_old_press_plays_in_the_topic_its_message_was_posted_in(store: Store) -> None:
    await store.end_send_turn(FORUM, "", Posted(40, 9, 1))
    await store.end_send_turn(FORUM, "", Posted(41, None, 2))
    raws = [
        press(40),
        press(41),
        press(42),
        press(40, forum=False),  # a supergroup whose chat came without ``is_forum``
        press(40, forum=False, kind="group"),  # a basic group has no topics
        press(40, date=1700000000),  # a message Telegram still shows: it has its topic
    ]
    assert await place_old_presses(store, raws) == [0, 1, 2, 3]
    updates = [Update.model_validate(raw) for raw in raws]
    assert [placed_thread(u) for u in updates] == [9, None, None, 9, None, None]
    assert campaign_of(updates[0]) == Campaign(FORUM, 9)
    assert campaign_of(updates[1]) == campaign_of(updates[2]) == Campaign(FORUM)
    assert await place_old_presses(store, raws) == []  # placed once: the inbox keeps it so
    query = updates[0].callback_query
    assert query is not None
    stand_in = pressed_message(query)
    assert isinstance(stand_in, Message)
    assert (stand_in.chat.id, stand_in.message_id, stand_in.message_thread_id) == (FORUM, 40, 9)
    assert stand_in.reply_markup is None


async def test_with_redis_away_an_old_press_stays_the_chat_s(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    async def away(*args: object) -> None:
        raise RedisConnectionError("away")

    monkeypatch.setattr(store, "posted", away)
    raws = [press(40)]
    assert await place_old_presses(store, raws) == []
    assert PLACED_THREAD not in raws[0]["callback_query"]["message"]
    assert campaign_of(Update.model_validate(raws[0])) == Campaign(FORUM)
