"""The playground's JSON API beyond the Bot API (localapi/playground.py): what a page needs
to explain itself — replies held by a group's budget, the bot's name, the icon."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from localapi.playground import BOT_NAMES, FORUM_ID, GROUP_ID, Playground
from localapi.server import FakeBotApi


@pytest.fixture
async def served() -> AsyncIterator[tuple[Playground, str]]:
    api = FakeBotApi(bot_name=BOT_NAMES["ru"])
    playground = Playground(api)
    await api.start(routes=playground.routes)
    try:
        yield playground, api.base_url
    finally:
        await api.close()


async def get(url: str) -> Any:
    async with aiohttp.ClientSession() as session, session.get(url) as response:
        assert response.status == 200
        return await response.json()


async def test_a_group_says_while_replies_are_held(served: tuple[Playground, str]) -> None:
    playground, url = served
    messages = f"{url}/api/messages?chat_id={GROUP_ID}"
    assert (await get(messages))["held"] is None
    version = playground.api.version
    playground.hold(GROUP_ID, 2, 41.5)
    assert playground.api.version > version  # the page is told to look again
    held = (await get(messages))["held"]
    assert held["sends"] == 2
    assert 40 < held["seconds"] <= 41.5
    assert (await get(f"{url}/api/messages?chat_id=1002"))["held"] is None  # only that chat
    playground.hold(GROUP_ID, 0, 0.0)
    assert (await get(messages))["held"] is None
    playground.hold("@channel", 1, 5.0)  # not a chat of the playground: ignored
    assert (await get(messages))["held"] is None


async def test_the_bot_is_named_per_language_and_not_after_a_role(
    served: tuple[Playground, str],
) -> None:
    _, url = served
    people = await get(f"{url}/api/people")
    assert people["bot"]["name"] == "Кубы"
    assert people["bot"]["names"] == {"ru": "Кубы", "en": "Dice bot"}
    roles = {"Storyteller", "Рассказчик", "Мастер", "сценарист"}
    assert not roles & {people["bot"]["name"], *people["bot"]["names"].values()}


async def test_the_icon(served: tuple[Playground, str]) -> None:
    _, url = served
    async with aiohttp.ClientSession() as session, session.get(f"{url}/favicon.ico") as icon:
        assert icon.status == 200
        assert icon.content_type == "image/svg+xml"
        assert "<svg" in await icon.text()


async def post(url: str, body: dict[str, Any]) -> tuple[int, Any]:
    async with aiohttp.ClientSession() as session, session.post(url, json=body) as response:
        if response.content_type == "application/json":
            return response.status, await response.json()
        return response.status, await response.text()


async def test_the_forum_group_and_its_topics(served: tuple[Playground, str]) -> None:
    _, url = served
    people = await get(f"{url}/api/people")
    assert people["group"] == {"chat_id": GROUP_ID, "title": "Хроника"}  # as before
    forum = people["forum"]
    assert forum["chat_id"] == FORUM_ID
    assert forum["title"]
    topics = forum["topics"]
    assert [t["name"] for t in topics] == ["General", "Маг", "Тёмные века"]
    assert topics[0]["message_thread_id"] is None
    assert all(isinstance(t["message_thread_id"], int) for t in topics[1:])
    assert not any(t["closed"] for t in topics)


async def test_messages_in_topics_carry_their_thread(served: tuple[Playground, str]) -> None:
    playground, url = served
    people = await get(f"{url}/api/people")
    mage = people["forum"]["topics"][1]["message_thread_id"]
    anya = 1002
    status, typed = await post(
        f"{url}/api/messages",
        {"chat_id": FORUM_ID, "user_id": anya, "text": "в теме", "message_thread_id": mage},
    )
    assert status == 200
    status, general = await post(
        f"{url}/api/messages", {"chat_id": FORUM_ID, "user_id": anya, "text": "в общей"}
    )
    assert status == 200
    status, reply = await post(
        f"{url}/api/messages",
        {"chat_id": FORUM_ID, "user_id": anya, "text": "ответ", "reply_to": typed["message_id"]},
    )
    assert status == 200
    shown = await get(f"{url}/api/messages?chat_id={FORUM_ID}")
    threads = {m["message_id"]: m["message_thread_id"] for m in shown["messages"]}
    assert threads[typed["message_id"]] == mage
    assert threads[general["message_id"]] is None
    assert threads[reply["message_id"]] == mage  # a reply lands in the replied-to topic
    created = next(m for m in shown["messages"] if m["message_id"] == mage)
    assert created["service"] == "forum_topic_created"
    assert [t["name"] for t in shown["topics"]] == ["General", "Маг", "Тёмные века"]
    # The plain group's messages say they are in no topic.
    await post(f"{url}/api/messages", {"chat_id": GROUP_ID, "user_id": anya, "text": "x"})
    plain = await get(f"{url}/api/messages?chat_id={GROUP_ID}")
    assert plain["messages"][-1]["message_thread_id"] is None
    assert "topics" not in plain
    for wrong in (1, 999, "x"):
        status, _ = await post(
            f"{url}/api/messages",
            {"chat_id": FORUM_ID, "user_id": anya, "text": "x", "message_thread_id": wrong},
        )
        assert status == 400
    assert playground.api.version > 0


async def test_an_admin_closes_and_reopens_a_topic(served: tuple[Playground, str]) -> None:
    _, url = served
    people = await get(f"{url}/api/people")
    ages = people["forum"]["topics"][2]["message_thread_id"]
    master, anya = 1001, 1002
    topic = {"chat_id": FORUM_ID, "message_thread_id": ages}
    status, _ = await post(f"{url}/api/topics/close", {**topic, "user_id": anya})
    assert status == 403  # a player may not
    status, closed = await post(f"{url}/api/topics/close", {**topic, "user_id": master})
    assert status == 200
    assert closed["topics"][2]["closed"] is True
    assert (await get(f"{url}/api/people"))["forum"]["topics"][2]["closed"] is True
    status, _ = await post(f"{url}/api/topics/close", {**topic, "user_id": master})
    assert status == 409
    text = {"chat_id": FORUM_ID, "message_thread_id": ages, "text": "можно?"}
    status, _ = await post(f"{url}/api/messages", {**text, "user_id": anya})
    assert status == 403
    status, _ = await post(f"{url}/api/messages", {**text, "user_id": master})
    assert status == 200  # admins write in closed topics, as in Telegram
    status, _ = await post(f"{url}/api/topics/reopen", {**topic, "user_id": master})
    assert status == 200
    status, _ = await post(f"{url}/api/messages", {**text, "user_id": anya})
    assert status == 200
    status, _ = await post(
        f"{url}/api/topics/close", {"chat_id": FORUM_ID, "message_thread_id": 999, "user_id": 1001}
    )
    assert status == 404
    general = {"chat_id": FORUM_ID, "message_thread_id": None, "user_id": master}
    status, closed = await post(f"{url}/api/topics/close", general)
    assert status == 200
    assert closed["topics"][0] == {"message_thread_id": None, "name": "General", "closed": True}
    status, _ = await post(
        f"{url}/api/messages", {"chat_id": FORUM_ID, "user_id": anya, "text": "в общую"}
    )
    assert status == 403


async def test_a_button_in_a_topic_is_pressed_as_any_other(served: tuple[Playground, str]) -> None:
    playground, url = served
    api = playground.api
    mage = playground.forum.topic("Маг").message_thread_id
    markup = {"inline_keyboard": [[{"text": "Ещё", "callback_data": "again"}]]}
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            api.method_url("sendMessage"),
            json={
                "chat_id": FORUM_ID,
                "text": "бросок",
                "message_thread_id": mage,
                "reply_markup": markup,
            },
        ) as sent,
    ):
        message = (await sent.json())["result"]
    assert message["message_thread_id"] == mage

    async def the_bot_answers() -> None:
        await api.wait_for(lambda: bool(api.callback_queries))
        query = next(iter(api.callback_queries.values()))
        assert query.message_id == message["message_id"]
        async with (
            aiohttp.ClientSession() as session,
            session.post(
                api.method_url("answerCallbackQuery"),
                json={"callback_query_id": query.id, "text": "ок"},
            ) as answered,
        ):
            assert answered.status == 200

    answering = asyncio.create_task(the_bot_answers())
    status, pressed = await post(
        f"{url}/api/press",
        {
            "chat_id": FORUM_ID,
            "user_id": 1002,
            "message_id": message["message_id"],
            "data": "again",
        },
    )
    await answering
    assert status == 200
    assert pressed["answer"]["text"] == "ок"
    update = api.take_updates()[-1]["callback_query"]
    assert update["message"]["message_thread_id"] == mage
