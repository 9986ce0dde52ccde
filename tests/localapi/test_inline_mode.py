"""The fake Bot API's inline mode: queries in, answers validated, results posted "via" the bot,
edits and presses by ``inline_message_id`` — what a real client shows of inline mode."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from localapi.server import FakeBotApi, FakeChat, FakeUser

JsonDict = dict[str, Any]


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


async def call(
    http: aiohttp.ClientSession, api: FakeBotApi, method: str, body: JsonDict
) -> tuple[int, JsonDict]:
    async with http.post(api.method_url(method), json=body) as response:
        answer: JsonDict = await response.json()
        return response.status, answer


def article(result_id: str, text: str, button: str | None = None) -> JsonDict:
    result: JsonDict = {
        "type": "article",
        "id": result_id,
        "title": "7d10",
        "input_message_content": {"message_text": text, "parse_mode": "HTML"},
    }
    if button is not None:
        result["reply_markup"] = {
            "inline_keyboard": [[{"text": "🎲 Roll", "callback_data": button}]]
        }
    return result


@pytest.fixture
def anya(fake_api: FakeBotApi) -> FakeUser:
    return fake_api.add_user("Аня")


@pytest.fixture
def side_chat(fake_api: FakeBotApi, anya: FakeUser) -> FakeChat:
    """A group the bot is not needed in: inline mode works anywhere."""
    return fake_api.add_group("Болтовня", owner=anya)


async def test_an_inline_query_is_an_update_without_a_chat(
    fake_api: FakeBotApi, anya: FakeUser, side_chat: FakeChat
) -> None:
    query_id = fake_api.inline_query(anya, "7 6", chat=side_chat)
    (update,) = fake_api.take_updates()
    assert update["inline_query"] == {
        "id": query_id,
        "from": anya.as_json(),
        "query": "7 6",
        "offset": "",
        "chat_type": "supergroup",
    }


async def test_answer_inline_query_is_validated_and_kept_once(
    fake_api: FakeBotApi, anya: FakeUser, http: aiohttp.ClientSession
) -> None:
    query_id = fake_api.inline_query(anya, "7 6")
    status, body = await call(
        http,
        fake_api,
        "answerInlineQuery",
        {"inline_query_id": query_id, "results": [{"type": "article", "id": "a"}]},
    )
    assert status == 400
    assert "InlineQueryResultArticle" in body["description"]
    duplicate = [article("a", "x"), article("a", "y")]
    status, body = await call(
        http, fake_api, "answerInlineQuery", {"inline_query_id": query_id, "results": duplicate}
    )
    assert status == 400
    assert body["description"] == "Bad Request: RESULT_ID_DUPLICATE"
    status, body = await call(
        http,
        fake_api,
        "answerInlineQuery",
        {"inline_query_id": query_id, "results": [article("a", "<b>open")]},
    )
    assert status == 400  # the message's HTML is checked like a sent one
    good = {"inline_query_id": query_id, "results": [article("a", "ok")], "is_personal": True}
    assert (await call(http, fake_api, "answerInlineQuery", good))[0] == 200
    answer = await fake_api.wait_for_inline_answer(query_id)
    assert answer.is_personal
    assert answer.results[0]["id"] == "a"
    status, _ = await call(http, fake_api, "answerInlineQuery", good)
    assert status == 400  # answered already
    status, _ = await call(
        http, fake_api, "answerInlineQuery", {"inline_query_id": "404", "results": []}
    )
    assert status == 400


async def test_a_chosen_result_is_posted_via_the_bot_and_edited_by_its_inline_id(
    fake_api: FakeBotApi, anya: FakeUser, side_chat: FakeChat, http: aiohttp.ClientSession
) -> None:
    query_id = fake_api.inline_query(anya, "7 6", chat=side_chat)
    body = {"inline_query_id": query_id, "results": [article("r1", "<b>7d10</b>", "inl:x:1")]}
    await call(http, fake_api, "answerInlineQuery", body)
    posted = fake_api.choose_inline_result(side_chat, anya, query_id, "r1")
    assert posted.sender_id == anya.id
    assert posted.data["via_bot"]["id"] == fake_api.bot.id
    assert posted.text == "7d10"
    assert posted.button_texts == ["🎲 Roll"]
    inline_id = fake_api.inline_message_id(side_chat, posted.message_id)
    assert inline_id is not None

    fake_api.take_updates()
    fake_api.press(side_chat, anya, posted, "🎲 Roll")
    (update,) = fake_api.take_updates()
    assert update["callback_query"]["inline_message_id"] == inline_id
    assert "message" not in update["callback_query"]

    status, answer = await call(
        http, fake_api, "editMessageText", {"inline_message_id": inline_id, "text": "10 9 8"}
    )
    assert (status, answer["result"]) == (200, True)
    assert posted.text == "10 9 8"
    assert posted.buttons == []
    status, answer = await call(
        http, fake_api, "editMessageText", {"inline_message_id": inline_id, "text": "10 9 8"}
    )
    assert status == 400
    assert "not modified" in answer["description"]
    status, _ = await call(http, fake_api, "editMessageReplyMarkup", {"inline_message_id": "nope"})
    assert status == 400
    status, answer = await call(
        http,
        fake_api,
        "editMessageReplyMarkup",
        {
            "inline_message_id": inline_id,
            "reply_markup": {"inline_keyboard": [[{"text": "again", "callback_data": "x"}]]},
        },
    )
    assert (status, answer["result"]) == (200, True)
    assert posted.button_texts == ["again"]


async def test_chosen_results_reach_the_bot_only_with_inline_feedback(
    fake_api: FakeBotApi, anya: FakeUser, side_chat: FakeChat, http: aiohttp.ClientSession
) -> None:
    query_id = fake_api.inline_query(anya, "7 6")
    await call(
        http,
        fake_api,
        "answerInlineQuery",
        {"inline_query_id": query_id, "results": [article("r1", "x")]},
    )
    fake_api.take_updates()
    fake_api.choose_inline_result(side_chat, anya, query_id, "r1")
    assert fake_api.take_updates() == []
    with pytest.raises(LookupError):
        fake_api.choose_inline_result(side_chat, anya, query_id, "r2")
