"""The playground's JSON API beyond the Bot API (localapi/playground.py): what a page needs
to explain itself — replies held by a group's budget, the bot's name, the icon."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import aiohttp
import pytest

from localapi.playground import BOT_NAMES, GROUP_ID, Playground
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
