"""A lost send in a forum (bot/sent.py, table/store/posts.py): the chat's topics send beside
each other, so a bot message above a topic's floor may be another topic's. Each send takes
the chat's send turn and leaves what it posted on the chat's register; the search passes
over what the register names for another update, and finds this update's own send."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from aiogram import Bot
from redis.exceptions import ConnectionError as RedisConnectionError

from bot.scope import scoped_bot
from bot.sent import Outbox, Turns
from localapi.server import FakeBotApi, FakeChat, ForumTopic, GroupShape
from table.scope import Campaign, Scope
from table.store import Posted, Store
from table.store.posts import turn_key
from tests.bot.test_sent import bot as bot  # the fixtures of the plain group's tests
from tests.bot.test_sent import store as store


@pytest.fixture
def forum(fake_api: FakeBotApi) -> FakeChat:
    owner = fake_api.add_user("Мира")
    chat = fake_api.add_group("Клуб", owner=owner, shape=GroupShape(is_forum=True))
    for name in ("Маг", "Тёмные века"):
        fake_api.create_topic(chat, name, by=owner, announce=False)
    return chat


def topic(chat: FakeChat, name: str) -> ForumTopic:
    return next(t for t in chat.topics.values() if t.name == name)


@contextmanager
def in_topic(
    bot: Bot, store: Store, chat: FakeChat, name: str, update_id: int, *, after_crash: bool = False
) -> Iterator[tuple[Bot, Outbox]]:
    """An update of the topic's campaign: its outbox (a forum's) in its scope."""
    campaign = Campaign(chat.id, topic(chat, name).message_thread_id, name=name)
    box = Outbox(
        store, chat.id, floor=campaign, forum=True, update_id=update_id, after_crash=after_crash
    )
    yield scoped_bot(bot, Scope(campaign=campaign, outbox=box)), box


def texts(api: FakeBotApi, chat: FakeChat) -> list[str]:
    return [m.text for m in chat.messages if m.sender_id == api.bot.id]


async def test_a_lost_send_in_a_topic_passes_over_the_other_topics_result(
    fake_api: FakeBotApi, bot: Bot, store: Store, forum: FakeChat
) -> None:
    """«Маг»'s roll is typed first, «Тёмные века»'s answer lands in between, then «Маг»'s
    answer is applied and answered 502. Above «Маг»'s command the first bot message is the
    other topic's: the register names it, so it is passed over and left as it was, and «Маг»'s
    own answer is found instead of sent twice."""
    anya, boris = fake_api.add_user("Аня"), fake_api.add_user("Борис")
    mage, ages = topic(forum, "Маг"), topic(forum, "Тёмные века")
    command = fake_api.send_text(forum, anya, "/r 5 6", thread_id=mage.message_thread_id)
    fake_api.send_text(forum, boris, "/r 4", thread_id=ages.message_thread_id)
    with in_topic(bot, store, forum, "Тёмные века", 1) as (scoped, _box):
        other = await scoped.send_message(forum.id, "Борис: 2 успеха")
    fake_api.fail_after_applying("sendMessage", status=502)
    with in_topic(bot, store, forum, "Маг", 2) as (scoped, box):
        mine = await scoped.send_message(
            forum.id, "Аня: 3 успеха", reply_to_message_id=command.message_id
        )
    assert texts(fake_api, forum) == ["Борис: 2 успеха", "Аня: 3 успеха"]
    assert [m.topic_id for m in forum.messages if m.sender_id == fake_api.bot.id] == [
        ages.message_thread_id,
        mage.message_thread_id,
    ]
    assert mine.message_id == box.newest != other.message_id
    assert len(fake_api.calls_to("sendMessage")) == 2
    assert all(
        c.params["message_id"] != other.message_id for c in fake_api.calls_to("editMessageText")
    )
    assert await store.posted(forum.id, mine.message_id) == Posted(
        mine.message_id, mage.message_thread_id, 2
    )


async def test_without_the_send_turn_a_lost_send_is_sent_again_and_nothing_else_changes(
    fake_api: FakeBotApi,
    bot: Bot,
    store: Store,
    forum: FakeChat,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """Redis away when the send takes its turn: another topic's send may be on its way, so
    nothing is looked for: the answer goes again (the same result twice), the other
    topic's message untouched."""
    boris = fake_api.add_user("Борис")
    ages = topic(forum, "Тёмные века")
    fake_api.send_text(forum, boris, "/r 4", thread_id=ages.message_thread_id)
    with in_topic(bot, store, forum, "Тёмные века", 1) as (scoped, _box):
        await scoped.send_message(forum.id, "Борис: 2 успеха")

    async def away(*args: object, **kwargs: object) -> bool:
        raise RedisConnectionError("away")

    monkeypatch.setattr(store, "take_send_turn", away)
    fake_api.fail_after_applying("sendMessage", status=502)
    with in_topic(bot, store, forum, "Маг", 2) as (scoped, _box):
        await scoped.send_message(forum.id, "Аня: 3 успеха")
    assert texts(fake_api, forum) == ["Борис: 2 успеха", "Аня: 3 успеха", "Аня: 3 успеха"]
    assert not fake_api.calls_to("editMessageCaption")
    assert not fake_api.calls_to("editMessageText")


async def test_a_run_after_a_crash_in_a_topic_finds_its_send_below_another_topics(
    fake_api: FakeBotApi, bot: Bot, store: Store, forum: FakeChat
) -> None:
    """The dead run's answer was delivered and never written down; «Тёмные века» posted after
    it. The run again finds the dead run's message, not the newer one of the other topic."""
    anya, boris = fake_api.add_user("Аня"), fake_api.add_user("Борис")
    mage, ages = topic(forum, "Маг"), topic(forum, "Тёмные века")
    command = fake_api.send_text(forum, anya, "/r 5 6", thread_id=mage.message_thread_id)
    # What the dead run delivered: the same send, answered to a process that then died.
    dead = await bot.send_message(
        forum.id,
        "Аня: 3 успеха",
        message_thread_id=mage.message_thread_id,
        reply_to_message_id=command.message_id,
    )
    fake_api.send_text(forum, boris, "/r 4", thread_id=ages.message_thread_id)
    with in_topic(bot, store, forum, "Тёмные века", 1) as (scoped, _box):
        await scoped.send_message(forum.id, "Борис: 2 успеха")
    with in_topic(bot, store, forum, "Маг", 2, after_crash=True) as (scoped, box):
        again = await scoped.send_message(
            forum.id, "Аня: 3 успеха", reply_to_message_id=command.message_id
        )
    assert again.message_id == dead.message_id == box.newest
    assert texts(fake_api, forum) == ["Аня: 3 успеха", "Борис: 2 успеха"]


async def test_a_send_from_another_chat_into_a_forum_takes_its_turn_and_is_registered(
    fake_api: FakeBotApi, bot: Bot, store: Store, forum: FakeChat
) -> None:
    """A hidden roll's notice sent from the Storyteller's private chat: the forum's search
    passes over it, and its floor is raised over it."""
    mira = fake_api.add_user("Мира")
    private = fake_api.open_private_chat(mira)
    box = Outbox(store, private.id, update_id=5)
    scoped = scoped_bot(bot, Scope(outbox=box))
    notice = await scoped.send_message(forum.id, "Рассказчик бросил тайно: №1")
    assert await store.posted(forum.id, notice.message_id) == Posted(notice.message_id, None, 5)
    assert await store.last_sent(forum.id) == notice.message_id


async def test_one_process_s_sends_to_a_chat_queue_for_its_turn(store: Store) -> None:
    """Two sends of one process to one forum: the second takes the turn after the first
    let it go, without a second holder in Redis meanwhile."""
    turns = Turns()
    order: list[str] = []
    async with turns.held(store, -100_777, None) as first:
        assert first.held
        other = Turns()  # another replica
        async with other.held(store, -100_555, None) as elsewhere:
            assert elsewhere.held  # another chat's turn is its own
        order.append("first")
    async with turns.held(store, -100_777, None) as second:
        assert second.held
        assert second.token != first.token
        order.append("second")
    assert order == ["first", "second"]


async def test_a_send_waiting_long_keeps_its_turn(
    store: Store, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A send that waits past the turn's clock (its slot in the group's minute) renews the
    turn meanwhile: another replica's send to the chat still finds it held."""
    monkeypatch.setattr("bot.sent.TURN_RENEW_EVERY", 0.01)
    turns = Turns()
    async with turns.held(store, -100_777, None) as turn:
        await store.redis.pexpire(turn_key(-100_777), 30)  # all but lapsed
        await asyncio.sleep(0.1)  # renewed meanwhile, every 10 ms
        assert await store.redis.get(turn_key(-100_777)) == turn.token
        assert not await store.take_send_turn(-100_777, "another replica")
    assert await store.take_send_turn(-100_777, "another replica")
