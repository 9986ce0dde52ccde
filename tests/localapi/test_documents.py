"""Documents on the local Bot API server: ``sendDocument`` as aiogram sends it (multipart,
``attach://``), validated like every call, and the playground showing the file with a link."""

from __future__ import annotations

from collections.abc import AsyncIterator

import aiohttp
import pytest
from aiogram import Bot
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.exceptions import TelegramBadRequest
from aiogram.types import BufferedInputFile

from localapi.playground import BOT_NAMES, FORUM_ID, GROUP_ID, Playground
from localapi.server import FakeBotApi


@pytest.fixture
async def served() -> AsyncIterator[tuple[FakeBotApi, Bot, str]]:
    api = FakeBotApi(bot_name=BOT_NAMES["ru"])
    playground = Playground(api)
    await api.start(routes=playground.routes)
    session = AiohttpSession(api=TelegramAPIServer.from_base(api.base_url))
    bot = Bot(api.token, session=session, default=DefaultBotProperties(parse_mode="HTML"))
    try:
        yield api, bot, api.base_url
    finally:
        await session.close()
        await api.close()


async def test_a_document_is_shown_with_a_link_to_its_bytes(
    served: tuple[FakeBotApi, Bot, str],
) -> None:
    api, bot, url = served
    content = "# Хроника\n\nбросок\n".encode()
    sent = await bot.send_document(
        GROUP_ID, BufferedInputFile(content, filename="chronicle.md"), caption="<b>Хроника</b>"
    )
    assert sent.document is not None
    assert sent.document.file_name == "chronicle.md"
    assert sent.document.file_size == len(content)
    assert sent.caption == "Хроника"
    async with aiohttp.ClientSession() as client:
        async with client.get(f"{url}/api/messages?chat_id={GROUP_ID}") as response:
            shown = (await response.json())["messages"][-1]
        assert shown["document"]["file_name"] == "chronicle.md"
        assert shown["text"] == "Хроника"
        async with client.get(url + shown["document"]["url"]) as response:
            assert response.status == 200
            assert await response.read() == content
        # and as Telegram serves a file: getFile, then /file/bot<token>/<path>
        found = await bot.get_file(sent.document.file_id)
        async with client.get(f"{url}/file/bot{api.token}/{found.file_path}") as response:
            assert await response.read() == content


async def test_a_document_is_validated_like_every_call(
    served: tuple[FakeBotApi, Bot, str],
) -> None:
    api, bot, url = served
    with pytest.raises(TelegramBadRequest):  # an empty file
        await bot.send_document(GROUP_ID, BufferedInputFile(b"", filename="empty.md"))
    with pytest.raises(TelegramBadRequest):  # a file_id never sent
        await bot.send_document(GROUP_ID, "no-such-file")
    async with aiohttp.ClientSession() as client:
        form = aiohttp.FormData()
        form.add_field("chat_id", str(GROUP_ID))
        form.add_field("document", b"x", filename="a.txt")
        form.add_field("colour", "red")
        async with client.post(api.method_url("sendDocument"), data=form) as response:
            assert response.status == 400
            assert "unknown parameter" in (await response.json())["description"]
        async with client.get(f"{url}/api/files/nothing") as response:
            assert response.status == 404
    assert not api.internal_errors


async def test_a_document_goes_to_the_topic_it_is_sent_to(
    served: tuple[FakeBotApi, Bot, str],
) -> None:
    api, bot, url = served
    mage = api.chats[FORUM_ID].topic("Маг").message_thread_id
    sent = await bot.send_document(
        FORUM_ID, BufferedInputFile(b"# Mage\n", filename="mage.md"), message_thread_id=mage
    )
    assert sent.message_thread_id == mage
    assert sent.is_topic_message is True
    with pytest.raises(TelegramBadRequest, match="message thread not found"):
        await bot.send_document(
            FORUM_ID, BufferedInputFile(b"x", filename="x.md"), message_thread_id=1
        )
    async with (
        aiohttp.ClientSession() as client,
        client.get(f"{url}/api/messages?chat_id={FORUM_ID}") as response,
    ):
        shown = (await response.json())["messages"][-1]
    assert shown["document"]["file_name"] == "mage.md"
    assert shown["message_thread_id"] == mage
