"""The fake Bot API server on its own: validation, semantics, simulation and fault injection.

These run without the bot. Each expectation is Telegram's documented or observed behaviour,
because E2E tests are only as good as the server's realism.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest
from aiogram import Bot
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError, TelegramRetryAfter
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeChat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
)
from aiohttp import web

from localapi.server import (
    GROUP_ANONYMOUS_BOT_ID,
    SECRET_TOKEN_HEADER,
    ApiError,
    FakeBotApi,
    FakeChat,
    FakeUser,
    free_port,
    parse_html,
    parse_markdown_v2,
)

JsonDict = dict[str, Any]


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    async with aiohttp.ClientSession() as session:
        yield session


@pytest.fixture
async def bot(fake_api: FakeBotApi) -> AsyncIterator[Bot]:
    session = AiohttpSession(api=TelegramAPIServer.from_base(fake_api.base_url))
    async with Bot(fake_api.token, session=session) as client:
        yield client


@pytest.fixture
def player(fake_api: FakeBotApi) -> FakeUser:
    return fake_api.add_user("Аня", username="anya")


@pytest.fixture
def group(fake_api: FakeBotApi, player: FakeUser) -> FakeChat:
    return fake_api.add_group("Стол", owner=player)


async def call(
    http: aiohttp.ClientSession,
    api: FakeBotApi,
    method: str,
    *,
    json: JsonDict | None = None,
    data: dict[str, str] | None = None,
) -> tuple[int, JsonDict]:
    async with http.post(api.method_url(method), json=json, data=data) as response:
        body: JsonDict = await response.json()
        return response.status, body


def keyboard(*buttons: tuple[str, str]) -> JsonDict:
    return {"inline_keyboard": [[{"text": t, "callback_data": d} for t, d in buttons]]}


# ----- validation against api.json ------------------------------------------------------------


async def test_unknown_method_is_404(fake_api: FakeBotApi, http: aiohttp.ClientSession) -> None:
    status, body = await call(http, fake_api, "sendRoll", json={"chat_id": 1})
    assert status == 404
    assert body == {"ok": False, "error_code": 404, "description": "Not Found: method not found"}
    assert fake_api.calls[-1].method == "sendRoll"
    assert not fake_api.calls[-1].applied


async def test_method_names_are_case_insensitive(
    fake_api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    status, body = await call(http, fake_api, "GETME")
    assert status == 200
    assert body["result"]["username"] == "storyteller_test_bot"


async def test_wrong_token_is_401(fake_api: FakeBotApi, http: aiohttp.ClientSession) -> None:
    async with http.post(fake_api.method_url("getMe", token="1:WRONG")) as response:
        assert response.status == 401
        assert (await response.json())["description"] == "Unauthorized"


async def test_missing_required_field(
    fake_api: FakeBotApi, http: aiohttp.ClientSession, group: FakeChat
) -> None:
    status, body = await call(http, fake_api, "sendMessage", json={"text": "7 кубов"})
    assert status == 400
    assert body["ok"] is False
    assert body["error_code"] == 400
    assert body["description"] == 'Bad Request: parameter "chat_id" is required'
    assert group.messages == []


async def test_unknown_field(
    fake_api: FakeBotApi, http: aiohttp.ClientSession, group: FakeChat
) -> None:
    status, body = await call(
        http, fake_api, "sendMessage", json={"chat_id": group.id, "text": "x", "colour": "red"}
    )
    assert status == 400
    assert body["description"] == 'Bad Request: unknown parameter "colour"'


@pytest.mark.parametrize(
    ("method", "params", "field"),
    [
        ("sendMessage", {"chat_id": True, "text": "x"}, "chat_id"),
        ("sendMessage", {"chat_id": 1, "text": 7}, "text"),
        ("getUpdates", {"timeout": "ten"}, "timeout"),
        (
            "sendMessage",
            {"chat_id": 1, "text": "x", "disable_notification": "yes"},
            "disable_notification",
        ),
        (
            "sendMessage",
            {"chat_id": 1, "text": "x", "reply_markup": {"inline_keyboard": [[{"text": 5}]]}},
            "reply_markup",
        ),
        ("setMyCommands", {"commands": [{"command": "r"}]}, "commands[0].description"),
        ("setMyCommands", {"commands": [], "scope": {"type": "chat"}}, "scope"),
    ],
)
async def test_wrong_types_are_rejected(
    fake_api: FakeBotApi,
    http: aiohttp.ClientSession,
    method: str,
    params: JsonDict,
    field: str,
) -> None:
    status, body = await call(http, fake_api, method, json=params)
    assert status == 400
    assert body["description"].startswith("Bad Request: ")
    assert field in body["description"]


async def test_form_bodies_are_coerced_like_telegram(
    fake_api: FakeBotApi, http: aiohttp.ClientSession, group: FakeChat
) -> None:
    markup = '{"inline_keyboard": [[{"text": "Бросить", "callback_data": "roll:1"}]]}'
    status, body = await call(
        http,
        fake_api,
        "sendMessage",
        data={"chat_id": str(group.id), "text": "7 кубов", "reply_markup": markup},
    )
    assert status == 200, body
    assert body["result"]["chat"]["id"] == group.id
    assert fake_api.calls[-1].params["chat_id"] == group.id  # the string became an Integer
    assert group.messages[-1].button_texts == ["Бросить"]


async def test_text_limit_is_4096_characters_after_entity_parsing(
    fake_api: FakeBotApi, http: aiohttp.ClientSession, group: FakeChat
) -> None:
    status, _ = await call(
        http, fake_api, "sendMessage", json={"chat_id": group.id, "text": "я" * 4096}
    )
    assert status == 200
    status, body = await call(
        http, fake_api, "sendMessage", json={"chat_id": group.id, "text": "я" * 4097}
    )
    assert (status, body["description"]) == (400, "Bad Request: message is too long")
    # 4096 visible characters: tags and entities do not count.
    html = "<b>" + "&lt;" * 4000 + "</b>" + "x" * 96
    status, body = await call(
        http,
        fake_api,
        "sendMessage",
        json={"chat_id": group.id, "text": html, "parse_mode": "HTML"},
    )
    assert status == 200, body
    assert len(group.messages[-1].text) == 4096
    status, body = await call(
        http,
        fake_api,
        "sendMessage",
        json={"chat_id": group.id, "text": html + "y", "parse_mode": "HTML"},
    )
    assert (status, body["description"]) == (400, "Bad Request: message is too long")


@pytest.mark.parametrize("text", ["", "   "])
async def test_empty_text_is_rejected(
    fake_api: FakeBotApi, http: aiohttp.ClientSession, group: FakeChat, text: str
) -> None:
    status, body = await call(
        http, fake_api, "sendMessage", json={"chat_id": group.id, "text": text}
    )
    assert (status, body["description"]) == (400, "Bad Request: message text is empty")


@pytest.mark.parametrize(
    ("html", "detail"),
    [
        ("<b>7 успехов", 'Can\'t find end tag corresponding to start tag "b"'),
        ("<b><i>x</b></i>", 'Unmatched end tag at byte offset 7, expected "</i>", found "</b>"'),
        ("<marquee>x</marquee>", 'Unsupported start tag "marquee" at byte offset 0'),
        ("сложность < 6", "Unclosed start tag at byte offset 19"),
        ("x <b", "Unclosed start tag at byte offset 2"),
    ],
)
async def test_malformed_html_is_rejected_like_telegram(
    fake_api: FakeBotApi, http: aiohttp.ClientSession, group: FakeChat, html: str, detail: str
) -> None:
    status, body = await call(
        http,
        fake_api,
        "sendMessage",
        json={"chat_id": group.id, "text": html, "parse_mode": "HTML"},
    )
    assert status == 400
    assert body["description"].startswith("Bad Request: can't parse entities: ")
    assert detail in body["description"]


def test_html_entities_have_utf16_offsets() -> None:
    text, entities = parse_html(
        'Бросок: <b>7</b> &amp; 😀 <a href="https://x.y/?a=1&amp;b=2">x</a>'
    )
    assert text == "Бросок: 7 & 😀 x"
    assert entities == [
        {"type": "bold", "offset": 8, "length": 1},
        # the emoji is two UTF-16 code units, so the link starts at 15, not 14
        {"type": "text_link", "url": "https://x.y/?a=1&b=2", "offset": 15, "length": 1},
    ]


def test_markdown_v2_reserved_characters_must_be_escaped() -> None:
    assert parse_markdown_v2(r"*7* успехов \(сложность 6\)\.") == "7 успехов (сложность 6)."
    with pytest.raises(ApiError) as raised:
        parse_markdown_v2("Сложность 6.")
    assert "Character '.' is reserved" in raised.value.description


async def test_callback_data_limit_is_64_bytes(
    fake_api: FakeBotApi, http: aiohttp.ClientSession, group: FakeChat
) -> None:
    ok_data = "ж" * 32  # 64 bytes in UTF-8
    status, _ = await call(
        http,
        fake_api,
        "sendMessage",
        json={"chat_id": group.id, "text": "x", "reply_markup": keyboard(("a", ok_data))},
    )
    assert status == 200
    status, body = await call(
        http,
        fake_api,
        "sendMessage",
        json={"chat_id": group.id, "text": "x", "reply_markup": keyboard(("a", ok_data + "z"))},
    )
    assert (status, body["description"]) == (400, "Bad Request: BUTTON_DATA_INVALID")


async def test_inline_button_needs_text_and_an_action(
    fake_api: FakeBotApi, http: aiohttp.ClientSession, group: FakeChat
) -> None:
    status, body = await call(
        http,
        fake_api,
        "sendMessage",
        json={"chat_id": group.id, "text": "x", "reply_markup": keyboard(("", "roll"))},
    )
    assert (status, body["description"]) == (400, "Bad Request: BUTTON_TEXT_EMPTY")
    plain_button = {"inline_keyboard": [[{"text": "Бросить"}]]}
    status, body = await call(
        http,
        fake_api,
        "sendMessage",
        json={"chat_id": group.id, "text": "x", "reply_markup": plain_button},
    )
    assert status == 400
    assert "text buttons are unallowed" in body["description"]


async def test_callback_answer_limit_and_single_answer(
    fake_api: FakeBotApi,
    http: aiohttp.ClientSession,
    group: FakeChat,
    player: FakeUser,
    bot: Bot,
) -> None:
    sent = await bot.send_message(
        group.id,
        "x",
        reply_markup=InlineKeyboardMarkup(
            inline_keyboard=[[InlineKeyboardButton(text="Бросить", callback_data="roll")]]
        ),
    )
    query = fake_api.press(group, player, sent.message_id, "Бросить")
    status, body = await call(
        http, fake_api, "answerCallbackQuery", json={"callback_query_id": query, "text": "я" * 201}
    )
    assert status == 400
    assert fake_api.unanswered_callback_queries()[0].id == query
    status, _ = await call(
        http,
        fake_api,
        "answerCallbackQuery",
        json={"callback_query_id": query, "text": "я" * 200, "show_alert": True},
    )
    assert status == 200
    answer = await fake_api.wait_for_callback_answer(query)
    assert answer.show_alert is True
    assert answer.text == "я" * 200
    status, body = await call(
        http, fake_api, "answerCallbackQuery", json={"callback_query_id": query}
    )
    assert status == 400
    assert "query ID is invalid" in body["description"]
    assert fake_api.unanswered_callback_queries() == []


async def test_invalid_command_names_are_rejected(bot: Bot) -> None:
    with pytest.raises(TelegramBadRequest, match="BOT_COMMAND_INVALID"):
        await bot.set_my_commands([BotCommand(command="бросок", description="Бросить кубы")])


# ----- semantics ------------------------------------------------------------------------------


async def test_get_updates_offsets_acknowledge(
    fake_api: FakeBotApi, http: aiohttp.ClientSession, group: FakeChat, player: FakeUser
) -> None:
    fake_api.send_text(group, player, "/r 7 6")
    fake_api.send_text(group, player, "/r 5 7")
    _, first = await call(http, fake_api, "getUpdates", json={"limit": 1})
    assert [u["message"]["text"] for u in first["result"]] == ["/r 7 6"]
    first_id = first["result"][0]["update_id"]
    _, again = await call(http, fake_api, "getUpdates", json={})
    assert [u["update_id"] for u in again["result"]] == [first_id, first_id + 1]  # not confirmed
    _, rest = await call(http, fake_api, "getUpdates", json={"offset": first_id + 1})
    assert [u["message"]["text"] for u in rest["result"]] == ["/r 5 7"]
    _, done = await call(http, fake_api, "getUpdates", json={"offset": first_id + 2})
    assert done["result"] == []


async def test_get_updates_long_polls(
    fake_api: FakeBotApi, http: aiohttp.ClientSession, group: FakeChat, player: FakeUser
) -> None:
    started = time.monotonic()
    _, empty = await call(http, fake_api, "getUpdates", data={"timeout": "1"})
    assert empty["result"] == []
    assert time.monotonic() - started >= 0.9

    async def write_later() -> None:
        await asyncio.sleep(0.2)
        fake_api.send_text(group, player, "/r 7 6")

    started = time.monotonic()
    writer = asyncio.create_task(write_later())
    _, body = await call(http, fake_api, "getUpdates", data={"timeout": "10"})
    await writer
    assert [u["message"]["text"] for u in body["result"]] == ["/r 7 6"]
    assert time.monotonic() - started < 2


async def test_a_newer_get_updates_terminates_the_older(
    fake_api: FakeBotApi, http: aiohttp.ClientSession
) -> None:
    older = asyncio.create_task(call(http, fake_api, "getUpdates", json={"timeout": 5}))
    await fake_api.wait_for(lambda: len(fake_api.calls_to("getUpdates")) == 1)
    await call(http, fake_api, "getUpdates", json={})
    status, body = await asyncio.wait_for(older, 2)
    assert status == 409
    assert "terminated by other getUpdates request" in body["description"]


async def test_commands_are_entities_and_privacy_mode_filters(
    fake_api: FakeBotApi, http: aiohttp.ClientSession, group: FakeChat, player: FakeUser
) -> None:
    fake_api.send_text(group, player, "кто-то просто пишет")
    fake_api.send_text(group, player, "/r@other_bot 7 6")
    fake_api.send_text(group, player, "/r@storyteller_test_bot 7 6")
    _, body = await call(http, fake_api, "getUpdates", json={})
    messages = [u["message"] for u in body["result"]]
    assert [m["text"] for m in messages] == ["/r@storyteller_test_bot 7 6"]
    assert messages[0]["entities"] == [{"type": "bot_command", "offset": 0, "length": 23}]
    assert len(group.messages) == 3  # the chat shows all three


async def test_anonymous_admin_writes_as_the_group(
    fake_api: FakeBotApi, http: aiohttp.ClientSession, player: FakeUser
) -> None:
    storyteller = fake_api.add_user("Мастер", language_code="en")
    group = fake_api.add_group("Хроника", owner=player, anonymous_admins=[storyteller])
    fake_api.send_text(group, storyteller, "/st")
    _, body = await call(http, fake_api, "getUpdates", json={})
    message = body["result"][0]["message"]
    assert message["from"]["id"] == GROUP_ANONYMOUS_BOT_ID
    assert message["from"]["username"] == "GroupAnonymousBot"
    assert message["sender_chat"]["id"] == group.id


async def test_send_edit_and_chat_state(
    fake_api: FakeBotApi, bot: Bot, group: FakeChat, player: FakeUser
) -> None:
    fake_api.send_text(group, player, "/r 7 6")
    markup = InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text="Сила Воли", callback_data="wp:1")]]
    )
    first = await bot.send_message(group.id, "Аня: 7 кубов", reply_markup=markup)
    second = await bot.send_message(group.id, "Аня: 5 кубов")
    assert (first.message_id, second.message_id) == (2, 3)  # ids count per chat
    assert first.from_user is not None
    assert first.from_user.id == fake_api.bot.id
    assert group.texts == ["/r 7 6", "Аня: 7 кубов", "Аня: 5 кубов"]

    edited = await bot.edit_message_text(
        "Аня: 7 кубов, <b>3 успеха</b>",
        chat_id=group.id,
        message_id=first.message_id,
        parse_mode="HTML",
        reply_markup=markup,
    )
    assert not isinstance(edited, bool)
    assert edited.text == "Аня: 7 кубов, 3 успеха"
    assert group.messages[1].text == "Аня: 7 кубов, 3 успеха"
    assert group.messages[1].button_texts == ["Сила Воли"]
    assert group.messages[1].edits == 1

    with pytest.raises(TelegramBadRequest, match="message is not modified"):
        await bot.edit_message_reply_markup(
            chat_id=group.id, message_id=first.message_id, reply_markup=markup
        )
    with pytest.raises(TelegramBadRequest, match="message to edit not found"):
        await bot.edit_message_text("x", chat_id=group.id, message_id=99)
    with pytest.raises(TelegramBadRequest, match="message can't be edited"):
        await bot.edit_message_text("x", chat_id=group.id, message_id=1)

    # An edit that does not repeat the keyboard removes it, as in Telegram.
    await bot.edit_message_text("Аня: закрыто", chat_id=group.id, message_id=first.message_id)
    assert group.messages[1].buttons == []
    with pytest.raises(LookupError, match="Сила Воли"):
        fake_api.press(group, player, first.message_id, "Сила Воли")

    assert await bot.delete_message(group.id, second.message_id)
    assert group.texts == ["/r 7 6", "Аня: закрыто"]
    with pytest.raises(TelegramBadRequest, match="message to delete not found"):
        await bot.delete_message(group.id, second.message_id)


async def test_press_finds_the_current_button_and_enqueues_a_callback(
    fake_api: FakeBotApi, bot: Bot, http: aiohttp.ClientSession, group: FakeChat, player: FakeUser
) -> None:
    other = fake_api.add_user("Борис", language_code="en")
    markup = InlineKeyboardMarkup(
        inline_keyboard=[
            [InlineKeyboardButton(text="Бросить", callback_data="roll:v1:42")],
            [InlineKeyboardButton(text="Правила", url="https://example.org")],
        ]
    )
    sent = await bot.send_message(group.id, "Сложность 6", reply_markup=markup)
    query = fake_api.press(group, other, sent.message_id, "roll:v1:42")  # by callback_data
    with pytest.raises(LookupError):
        fake_api.press(group, other, sent.message_id, "Правила")  # a URL button makes no query
    _, body = await call(http, fake_api, "getUpdates", json={})
    callback = body["result"][0]["callback_query"]
    assert callback["id"] == query
    assert callback["from"]["id"] == other.id
    assert callback["data"] == "roll:v1:42"
    assert callback["message"]["message_id"] == sent.message_id
    assert callback["message"]["text"] == "Сложность 6"


async def test_private_chat_needs_start(fake_api: FakeBotApi, bot: Bot, player: FakeUser) -> None:
    with pytest.raises(TelegramForbiddenError, match="can't initiate conversation"):
        await bot.send_message(player.id, "тайный бросок")
    chat = fake_api.open_private_chat(player)
    await bot.send_message(player.id, "тайный бросок")
    assert chat.texts == ["тайный бросок"]
    with pytest.raises(TelegramBadRequest, match="chat not found"):
        await bot.send_message(-42, "x")


async def test_members_and_commands(fake_api: FakeBotApi, bot: Bot, player: FakeUser) -> None:
    admin = fake_api.add_user("Мастер")
    stranger = fake_api.add_user("Гость")
    member = fake_api.add_user("Игрок")
    group = fake_api.add_group("Стол", owner=player, admins=[admin], members=[member])
    statuses = [
        (await bot.get_chat_member(group.id, u.id)).status
        for u in (player, admin, member, stranger)
    ]
    assert statuses == ["creator", "administrator", "member", "left"]
    admins = await bot.get_chat_administrators(group.id)
    assert [a.user.id for a in admins] == [player.id, admin.id]

    ru = [BotCommand(command="r", description="Бросок")]
    en = [BotCommand(command="r", description="Roll")]
    await bot.set_my_commands(ru, language_code="ru")
    await bot.set_my_commands(en, scope=BotCommandScopeAllGroupChats(), language_code="en")
    russian = await bot.get_my_commands(language_code="ru")
    assert [(c.command, c.description) for c in russian] == [("r", "Бросок")]
    english = await bot.get_my_commands(scope=BotCommandScopeAllGroupChats(), language_code="en")
    assert [(c.command, c.description) for c in english] == [("r", "Roll")]
    assert await bot.get_my_commands(scope=BotCommandScopeChat(chat_id=group.id)) == []
    assert await bot.get_my_commands() == []  # no fallback from a language to the default
    assert fake_api.commands_for({"type": "all_group_chats"}, "en") == ["r"]


async def test_other_methods_get_a_valid_generic_answer(
    fake_api: FakeBotApi, bot: Bot, group: FakeChat
) -> None:
    dice = await bot.send_dice(group.id)
    assert dice.message_id == 1
    assert await bot.set_chat_title(group.id, "Новый стол") is True
    assert [c.method for c in fake_api.calls] == ["sendDice", "setChatTitle"]
    assert all(c.applied for c in fake_api.calls)


# ----- fault injection and proofs ---------------------------------------------------------------


async def test_429_is_seen_by_aiogram_and_not_applied(
    fake_api: FakeBotApi, bot: Bot, group: FakeChat
) -> None:
    fake_api.fail_next("sendMessage", retry_after=3)
    with pytest.raises(TelegramRetryAfter) as raised:
        await bot.send_message(group.id, "7 кубов")
    assert raised.value.retry_after == 3
    assert "Too Many Requests: retry after 3" in raised.value.message
    assert group.messages == []
    await bot.send_message(group.id, "7 кубов")  # the retry applies once
    assert group.texts == ["7 кубов"]
    assert [c.status for c in fake_api.calls_to("sendMessage")] == [429, 200]
    fake_api.assert_no_duplicate_sends()


@pytest.mark.parametrize(
    ("status", "description"), [(500, "Internal Server Error"), (502, "Bad Gateway")]
)
async def test_server_errors_for_any_method(
    fake_api: FakeBotApi,
    http: aiohttp.ClientSession,
    group: FakeChat,
    status: int,
    description: str,
) -> None:
    fake_api.fail_next(status=status, count=2)
    for _ in range(2):
        got, body = await call(http, fake_api, "getMe")
        assert (got, body["description"]) == (status, description)
    got, _ = await call(http, fake_api, "getMe")
    assert got == 200


async def test_flood_limits_are_opt_in(fake_api: FakeBotApi, bot: Bot, group: FakeChat) -> None:
    fake_api.enforce_flood_limits(per_group_per_minute=3)
    for n in range(3):
        await bot.send_message(group.id, f"бросок {n}")
    with pytest.raises(TelegramRetryAfter) as raised:
        await bot.send_message(group.id, "бросок 3")
    assert 55 <= raised.value.retry_after <= 60
    await bot.edit_message_text("бросок 0, правка", chat_id=group.id, message_id=1)  # not a send
    assert len(group.messages) == 3


async def test_duplicates_are_detected_and_calls_are_seen_per_chat(
    fake_api: FakeBotApi, bot: Bot, group: FakeChat, player: FakeUser
) -> None:
    fake_api.open_private_chat(player)
    await bot.send_message(player.id, "Тайный бросок: 3 успеха")
    await bot.send_message(group.id, "Рассказчик бросил тайно")
    assert [c.params["text"] for c in fake_api.calls_for_chat(group)] == ["Рассказчик бросил тайно"]
    fake_api.assert_no_duplicate_sends()
    await bot.send_message(group.id, "Рассказчик бросил тайно")
    with pytest.raises(AssertionError, match="sent twice"):
        fake_api.assert_no_duplicate_sends()


async def test_a_delayed_answer_is_still_applied(
    fake_api: FakeBotApi, http: aiohttp.ClientSession, group: FakeChat
) -> None:
    fake_api.delay_next("sendMessage", seconds=0.5)
    timeout = aiohttp.ClientTimeout(total=0.1)
    with pytest.raises(TimeoutError):
        async with http.post(
            fake_api.method_url("sendMessage"),
            json={"chat_id": group.id, "text": "7 кубов"},
            timeout=timeout,
        ):
            pass
    assert group.texts == ["7 кубов"]  # the client gave up, the server did not


async def test_wait_for_message_times_out_with_what_the_chat_shows(
    fake_api: FakeBotApi, bot: Bot, group: FakeChat
) -> None:
    await bot.send_message(group.id, "Аня: 2 успеха")
    found = await fake_api.wait_for_message(group, containing="2 успеха", timeout=1)
    assert found.message_id == 1
    with pytest.raises(AssertionError, match="Аня: 2 успеха"):
        await fake_api.wait_for_message(group, containing="провал", timeout=0.2)


# ----- webhooks -----------------------------------------------------------------------------------


async def test_webhook_delivery_with_secret_and_reply(
    fake_api: FakeBotApi, bot: Bot, http: aiohttp.ClientSession, group: FakeChat, player: FakeUser
) -> None:
    received: list[tuple[str | None, JsonDict]] = []

    async def webhook(request: web.Request) -> web.Response:
        secret = request.headers.get(SECRET_TOKEN_HEADER)
        received.append((secret, await request.json()))
        if secret != "s3cret":
            return web.Response(status=401)
        return web.json_response({"method": "sendMessage", "chat_id": group.id, "text": "принято"})

    app = web.Application()
    app.router.add_post("/hook", webhook)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    try:
        port = runner.addresses[0][1]
        url = f"http://127.0.0.1:{port}/hook"
        await bot.set_webhook(url, secret_token="s3cret")
        assert (await bot.get_webhook_info()).url == url
        _, body = await call(http, fake_api, "getUpdates", json={})
        assert body["error_code"] == 409

        fake_api.send_text(group, player, "/r 7 6")
        assert await fake_api.push_updates_to_webhook() == 1
        assert received[0][0] == "s3cret"
        assert received[0][1]["message"]["text"] == "/r 7 6"
        assert group.texts[-1] == "принято"
        assert fake_api.calls[-1].via_webhook_reply

        update = {"update_id": 1, "message": received[0][1]["message"]}
        assert await fake_api.post_update(update, secret_token="wrong") == 401
        assert await fake_api.post_update(update, use_webhook_secret=False) == 401
        assert [secret for secret, _ in received[1:]] == ["wrong", None]
    finally:
        await runner.cleanup()


async def test_undelivered_updates_stay_queued(
    fake_api: FakeBotApi, http: aiohttp.ClientSession, group: FakeChat, player: FakeUser
) -> None:
    fake_api.send_text(group, player, "/r 7 6")
    fake_api.send_text(group, player, "/r 5 6")
    closed_port_url = f"http://127.0.0.1:{free_port()}/hook"  # freed again: nobody listens
    assert await fake_api.push_updates_to_webhook([closed_port_url], concurrency=2) == 0
    _, body = await call(http, fake_api, "getUpdates", json={})
    assert [u["message"]["text"] for u in body["result"]] == ["/r 7 6", "/r 5 6"]
