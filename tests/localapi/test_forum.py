"""Forum supergroups in the fake Bot API: topics, threads and their errors as Telegram has them.

A forum files every message under a topic (General has none); the Bot API refuses a thread it
cannot post to with the exact errors the bot will meet: "message thread not found" (General's
id 1, an unknown or a deleted topic) and TOPIC_CLOSED.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from localapi.server import (
    FakeBotApi,
    FakeChat,
    FakeUser,
    ForumTopic,
    GroupShape,
    TopicClosedError,
)

JsonDict = dict[str, Any]


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@pytest.fixture
def owner(fake_api: FakeBotApi) -> FakeUser:
    return fake_api.add_user("Мастер")


@pytest.fixture
def player(fake_api: FakeBotApi) -> FakeUser:
    return fake_api.add_user("Аня")


@pytest.fixture
def forum(fake_api: FakeBotApi, owner: FakeUser, player: FakeUser) -> FakeChat:
    chat = fake_api.add_group(
        "Клуб",
        owner=owner,
        members=[player],
        bot_is_admin=True,
        shape=GroupShape(is_forum=True),
    )
    fake_api.create_topic(chat, "Маг", by=owner, announce=False)
    fake_api.create_topic(chat, "Тёмные века", by=owner, announce=False)
    return chat


async def call(
    http: aiohttp.ClientSession, api: FakeBotApi, method: str, **params: Any
) -> tuple[int, JsonDict]:
    async with http.post(api.method_url(method), json=params) as response:
        body: JsonDict = await response.json()
        return response.status, body


async def test_a_forum_is_a_forum_with_topics_numbered_by_their_creation(
    fake_api: FakeBotApi, forum: FakeChat, http: aiohttp.ClientSession
) -> None:
    status, body = await call(http, fake_api, "getChat", chat_id=forum.id)
    assert status == 200
    assert body["result"]["is_forum"] is True
    mage = forum.topic("Маг")
    created = forum.message(mage.message_thread_id)
    assert created is not None
    assert created.data["forum_topic_created"] == {"name": "Маг", "icon_color": 7322096}
    assert created.data["message_thread_id"] == mage.message_thread_id
    assert created.data["is_topic_message"] is True
    assert [t.name for t in forum.topics.values()] == ["Маг", "Тёмные века"]
    assert forum.topic("Тёмные века").message_thread_id > mage.message_thread_id


async def test_a_user_writes_in_a_topic_and_the_bot_gets_its_thread(
    fake_api: FakeBotApi, forum: FakeChat, player: FakeUser
) -> None:
    mage = forum.topic("Маг")
    typed = fake_api.send_text(forum, player, "/r 5", thread_id=mage.message_thread_id)
    general = fake_api.send_text(forum, player, "/r 6")
    updates = fake_api.take_updates()
    in_topic, in_general = (u["message"] for u in updates[-2:])
    assert in_topic["message_thread_id"] == mage.message_thread_id
    assert in_topic["is_topic_message"] is True
    assert "message_thread_id" not in in_general
    assert "is_topic_message" not in in_general
    assert forum.thread_messages(mage.message_thread_id)[-1] is typed
    assert forum.thread_messages(None)[-1] is general


async def test_the_bot_posts_in_a_topic_and_its_reply_follows_the_replied_message(
    fake_api: FakeBotApi, forum: FakeChat, player: FakeUser, http: aiohttp.ClientSession
) -> None:
    ages = forum.topic("Тёмные века").message_thread_id
    status, body = await call(
        http, fake_api, "sendMessage", chat_id=forum.id, text="в теме", message_thread_id=ages
    )
    assert status == 200
    assert body["result"]["message_thread_id"] == ages
    assert body["result"]["is_topic_message"] is True
    # A reply with no thread given is filed under the topic of the message it answers.
    typed = fake_api.send_text(forum, player, "бросаю", thread_id=ages)
    status, body = await call(
        http,
        fake_api,
        "sendMessage",
        chat_id=forum.id,
        text="ответ",
        reply_parameters={"message_id": typed.message_id},
    )
    assert status == 200
    assert body["result"]["message_thread_id"] == ages
    # So is a user's reply to the bot's message there.
    answered = fake_api.send_text(forum, player, "ещё", reply_to=body["result"]["message_id"])
    assert answered.topic_id == ages
    status, body = await call(http, fake_api, "sendMessage", chat_id=forum.id, text="общая")
    assert "message_thread_id" not in body["result"]
    assert [m.text for m in forum.thread_messages(ages)][-4:] == [
        "в теме",
        "бросаю",
        "ответ",
        "ещё",
    ]


@pytest.mark.parametrize(
    ("method", "extra"),
    [
        ("sendMessage", {"text": "x"}),
        ("sendPhoto", {"photo": "AgACAgIAAxkBAAI"}),
        ("sendChatAction", {"action": "typing"}),
    ],
)
async def test_threads_telegram_cannot_find(
    fake_api: FakeBotApi,
    forum: FakeChat,
    owner: FakeUser,
    http: aiohttp.ClientSession,
    method: str,
    extra: JsonDict,
) -> None:
    doomed = fake_api.create_topic(forum, "Удалится", by=owner)
    fake_api.delete_topic(forum, doomed, owner)
    for thread in (1, 999_999, doomed.message_thread_id):
        status, body = await call(
            http, fake_api, method, chat_id=forum.id, message_thread_id=thread, **extra
        )
        assert (status, body["description"]) == (400, "Bad Request: message thread not found")
    assert not [c for c in fake_api.calls if c.applied and c.method == method]


async def test_a_closed_topic_refuses_the_bots_posts_until_reopened(
    fake_api: FakeBotApi,
    forum: FakeChat,
    owner: FakeUser,
    player: FakeUser,
    http: aiohttp.ClientSession,
) -> None:
    mage = forum.topic("Маг")
    thread = mage.message_thread_id
    typed = fake_api.send_text(forum, player, "до закрытия", thread_id=thread)
    fake_api.close_topic(forum, mage, owner)
    assert forum.thread_messages(thread)[-1].service == "forum_topic_closed"
    status, body = await call(
        http, fake_api, "sendMessage", chat_id=forum.id, text="x", message_thread_id=thread
    )
    assert (status, body["description"]) == (400, "Bad Request: TOPIC_CLOSED")
    # A reply to a message there is refused the same way: it would land in that topic.
    status, body = await call(
        http,
        fake_api,
        "sendMessage",
        chat_id=forum.id,
        text="x",
        reply_parameters={"message_id": typed.message_id},
    )
    assert (status, body["description"]) == (400, "Bad Request: TOPIC_CLOSED")
    with pytest.raises(TopicClosedError):
        fake_api.send_text(forum, player, "можно?", thread_id=thread)
    fake_api.send_text(forum, owner, "админ может", thread_id=thread)
    fake_api.reopen_topic(forum, mage, owner)
    status, _ = await call(
        http, fake_api, "sendMessage", chat_id=forum.id, text="снова", message_thread_id=thread
    )
    assert status == 200


async def test_a_thread_outside_forums(
    fake_api: FakeBotApi, owner: FakeUser, player: FakeUser, http: aiohttp.ClientSession
) -> None:
    """Documented for forum supergroups (and bots' private chats with topics) only: a private
    chat and a basic group ignore it, a plain supergroup takes only a reply thread that is
    one of its messages."""
    supergroup = fake_api.add_group("Стол", owner=owner, bot_is_admin=True)
    basic = fake_api.add_group("Старый", owner=owner, shape=GroupShape(supergroup=False))
    private = fake_api.open_private_chat(player)
    status, body = await call(
        http, fake_api, "sendMessage", chat_id=supergroup.id, text="x", message_thread_id=77
    )
    assert (status, body["description"]) == (400, "Bad Request: message thread not found")
    root = fake_api.send_text(supergroup, player, "корень")
    status, body = await call(
        http,
        fake_api,
        "sendMessage",
        chat_id=supergroup.id,
        text="в ветке",
        message_thread_id=root.message_id,
    )
    assert status == 200
    assert body["result"]["message_thread_id"] == root.message_id
    assert "is_topic_message" not in body["result"]
    for chat in (basic, private):
        status, body = await call(
            http, fake_api, "sendMessage", chat_id=chat.id, text="x", message_thread_id=77
        )
        assert status == 200
        assert "message_thread_id" not in body["result"]
    with pytest.raises(LookupError):
        fake_api.send_text(supergroup, player, "x", thread_id=root.message_id)


async def test_the_bot_manages_topics(
    fake_api: FakeBotApi, forum: FakeChat, http: aiohttp.ClientSession
) -> None:
    status, body = await call(
        http, fake_api, "createForumTopic", chat_id=forum.id, name="Оборотень"
    )
    assert status == 200
    created: JsonDict = body["result"]
    thread = created["message_thread_id"]
    assert created["name"] == "Оборотень"
    assert forum.message(thread) is not None
    assert (await call(http, fake_api, "editForumTopic", chat_id=forum.id,
                       message_thread_id=thread, name="Апокалипсис"))[0] == 200  # fmt: skip
    assert forum.topic(thread).name == "Апокалипсис"
    status, body = await call(
        http, fake_api, "editForumTopic", chat_id=forum.id, message_thread_id=thread,
        name="Апокалипсис",
    )  # fmt: skip
    assert (status, body["description"]) == (400, "Bad Request: TOPIC_NOT_MODIFIED")
    for method in ("closeForumTopic", "reopenForumTopic"):
        status, _ = await call(http, fake_api, method, chat_id=forum.id, message_thread_id=thread)
        assert status == 200
    status, body = await call(
        http, fake_api, "reopenForumTopic", chat_id=forum.id, message_thread_id=thread
    )
    assert (status, body["description"]) == (400, "Bad Request: TOPIC_NOT_MODIFIED")
    fake_api.send_text(forum, forum.owner or fake_api.bot, "тут", thread_id=thread)
    status, _ = await call(
        http, fake_api, "deleteForumTopic", chat_id=forum.id, message_thread_id=thread
    )
    assert status == 200
    assert forum.thread_messages(thread) == []  # the topic went with all its messages
    with pytest.raises(LookupError):
        forum.topic(thread)
    status, body = await call(
        http, fake_api, "closeForumTopic", chat_id=forum.id, message_thread_id=thread
    )
    assert (status, body["description"]) == (400, "Bad Request: message thread not found")


async def test_topic_methods_check_the_chat_and_the_bots_rights(
    fake_api: FakeBotApi, owner: FakeUser, http: aiohttp.ClientSession
) -> None:
    plain = fake_api.add_group("Стол", owner=owner, bot_is_admin=True)
    status, body = await call(http, fake_api, "createForumTopic", chat_id=plain.id, name="Маг")
    assert (status, body["description"]) == (400, "Bad Request: the chat is not a forum")
    forum = fake_api.add_group("Клуб", owner=owner, shape=GroupShape(is_forum=True))
    status, body = await call(http, fake_api, "createForumTopic", chat_id=forum.id, name="Маг")
    assert (status, body["description"]) == (
        400,
        "Bad Request: not enough rights to create a topic",
    )
    theirs = fake_api.create_topic(forum, "Маг", by=owner)
    status, body = await call(
        http, fake_api, "closeForumTopic", chat_id=forum.id,
        message_thread_id=theirs.message_thread_id,
    )  # fmt: skip
    assert (status, body["description"]) == (
        400,
        "Bad Request: not enough rights to close the topic",
    )
    forum.bot_is_admin = True
    status, body = await call(
        http, fake_api, "createForumTopic", chat_id=forum.id, name="x", icon_color=123
    )
    assert (status, body["description"]) == (400, "Bad Request: TOPIC_ICON_COLOR_INVALID")


async def test_copies_and_forwards_go_to_the_topic_given(
    fake_api: FakeBotApi, forum: FakeChat, player: FakeUser, http: aiohttp.ClientSession
) -> None:
    ages: ForumTopic = forum.topic("Тёмные века")
    typed = fake_api.send_text(forum, player, "лист персонажа")
    for method in ("copyMessage", "forwardMessage"):
        status, body = await call(
            http,
            fake_api,
            method,
            chat_id=forum.id,
            from_chat_id=forum.id,
            message_id=typed.message_id,
            message_thread_id=ages.message_thread_id,
        )
        assert status == 200, body
        copied = forum.message(body["result"]["message_id"])
        assert copied is not None
        assert copied.topic_id == ages.message_thread_id
        assert copied.text == "лист персонажа"
    status, body = await call(
        http, fake_api, "copyMessage", chat_id=forum.id, from_chat_id=forum.id,
        message_id=ages.message_thread_id,
    )  # fmt: skip
    assert (status, body["description"]) == (400, "Bad Request: message can't be copied")


async def test_several_copies_go_to_the_topic_given(
    fake_api: FakeBotApi, forum: FakeChat, player: FakeUser, http: aiohttp.ClientSession
) -> None:
    ages = forum.topic("Тёмные века").message_thread_id
    typed = [fake_api.send_text(forum, player, f"строка {i}").message_id for i in (1, 2)]
    for method in ("copyMessages", "forwardMessages"):
        status, body = await call(
            http,
            fake_api,
            method,
            chat_id=forum.id,
            from_chat_id=forum.id,
            message_ids=typed,
            message_thread_id=ages,
        )
        assert status == 200, body
        copies = [forum.message(m["message_id"]) for m in body["result"]]
        assert [c.text for c in copies if c is not None] == ["строка 1", "строка 2"]
        assert all(c is not None and c.topic_id == ages for c in copies)


async def test_a_closed_general_refuses_posts_without_a_thread(
    fake_api: FakeBotApi,
    forum: FakeChat,
    owner: FakeUser,
    player: FakeUser,
    http: aiohttp.ClientSession,
) -> None:
    status, _ = await call(http, fake_api, "closeGeneralForumTopic", chat_id=forum.id)
    assert status == 200
    assert forum.thread_messages(None)[-1].service == "forum_topic_closed"
    status, body = await call(http, fake_api, "sendMessage", chat_id=forum.id, text="x")
    assert (status, body["description"]) == (400, "Bad Request: TOPIC_CLOSED")
    mage = forum.topic("Маг").message_thread_id
    status, _ = await call(
        http, fake_api, "sendMessage", chat_id=forum.id, text="x", message_thread_id=mage
    )
    assert status == 200  # the other topics stay open
    with pytest.raises(TopicClosedError):
        fake_api.send_text(forum, player, "можно?")
    with pytest.raises(PermissionError):
        fake_api.reopen_topic(forum, None, player)
    fake_api.reopen_topic(forum, None, owner)
    status, body = await call(http, fake_api, "reopenGeneralForumTopic", chat_id=forum.id)
    assert (status, body["description"]) == (400, "Bad Request: TOPIC_NOT_MODIFIED")
    status, _ = await call(http, fake_api, "sendMessage", chat_id=forum.id, text="снова")
    assert status == 200
