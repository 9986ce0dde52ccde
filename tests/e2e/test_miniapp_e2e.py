"""The Mini App sheet in the playground: the real process, its page in headless Chromium.

Outside contract: ``GET /api/people`` names ``miniapp``, a base URL that opens the sheet for
``?user_id=…&chat_id=…``; the page has ``data-trait``/``data-value`` per trait with
``data-dot`` buttons, ``data-pick`` and ``data-roll``; ``GET <miniapp>api/sheet`` answers 401
to a forged ``X-Telegram-Init-Data``. Each tap is then seen where the chat shows it: /sheet,
the roll's faces in the group.
"""

from __future__ import annotations

import asyncio
import re
from collections.abc import AsyncIterator
from typing import Any
from urllib.parse import parse_qs, urlencode

import aiohttp
import pytest
import pytest_asyncio

from tests.e2e.test_playground_e2e import (
    CHROMIUM,
    CHROMIUM_ARGS,
    HAVE_CHROMIUM,
    playground,  # noqa: F401 - the module's process, the same fixture
    post,
)

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

GROUP, ANYA, BORIS = -100, 1002, 1003
FIVE_FACES = re.compile(r"^(?:\d+ ){4}\d+$", re.M)


async def people(url: str) -> dict[str, Any]:
    async with aiohttp.ClientSession() as session, session.get(url + "/api/people") as got:
        data: dict[str, Any] = await got.json()
        return data


async def launch_data(base: str, user_id: int, chat_id: int, thread_id: int | None = None) -> str:
    """The initData the playground signs, read off its redirect like the page reads it
    (``thread_id``: opened from that forum topic)."""
    topic = f"&message_thread_id={thread_id}" if thread_id is not None else ""
    url = f"{base}?user_id={user_id}&chat_id={chat_id}{topic}"
    async with (
        aiohttp.ClientSession() as session,
        session.get(url, allow_redirects=False) as opened,
    ):
        assert opened.status == 302
        fragment = opened.headers["Location"].split("#", 1)[1]
    return parse_qs(fragment)["tgWebAppData"][0]


async def messages(url: str, chat_id: int) -> list[dict[str, Any]]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{url}/api/messages?chat_id={chat_id}") as got,
    ):
        found: list[dict[str, Any]] = (await got.json())["messages"]
        return found


async def bot_answer(url: str, chat_id: int, after: int, pattern: str) -> str:
    """The bot's first message after message ``after`` that matches ``pattern``."""
    for _ in range(150):
        for message in await messages(url, chat_id):
            if (
                message["message_id"] > after
                and message["from"]["is_bot"]
                and re.search(pattern, message["text"], re.M)
            ):
                return str(message["text"])
        await asyncio.sleep(0.1)
    raise AssertionError(f"no answer matching {pattern!r}: {await messages(url, chat_id)}")


async def last_id(url: str, chat_id: int) -> int:
    found = await messages(url, chat_id)
    return int(found[-1]["message_id"]) if found else 0


async def test_the_api_refuses_forged_expired_and_foreign_requests(playground: str) -> None:  # noqa: F811
    base = (await people(playground))["miniapp"]
    assert base.endswith("/miniapp/")
    data = await launch_data(base, ANYA, GROUP)
    fields = {k: v[0] for k, v in parse_qs(data).items()}
    forged = urlencode({**fields, "user": fields["user"].replace(str(ANYA), str(BORIS))})
    async with aiohttp.ClientSession() as session:
        async with session.get(base + "api/sheet", headers={"X-Telegram-Init-Data": data}) as ok:
            assert ok.status == 200
            assert (await ok.json())["name"] == "Аня"
        for header in (forged, "", "user=1&auth_date=1&hash=00"):
            async with session.get(
                base + "api/sheet", headers={"X-Telegram-Init-Data": header}
            ) as refused:
                assert refused.status == 401
        # Boris's private chat is not Anya's campaign.
        async with session.get(
            base + "api/sheet?campaign=p1003", headers={"X-Telegram-Init-Data": data}
        ) as foreign:
            assert foreign.status == 403
        async with session.post(
            base + "api/edit",
            json={"op": "set", "trait": "strength", "value": 5, "version": "x"},
            headers={"X-Telegram-Init-Data": forged},
        ) as refused:
            assert refused.status == 401


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def page(playground: str) -> AsyncIterator[Any]:  # noqa: F811
    if not HAVE_CHROMIUM:
        pytest.skip("Debian's chromium is not installed")
    from playwright.async_api import async_playwright

    base = (await people(playground))["miniapp"]
    async with async_playwright() as driver:
        chromium = await driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            opened = await chromium.new_page(viewport={"width": 360, "height": 740})
            errors: list[str] = []
            opened.on("pageerror", lambda error: errors.append(str(error)))
            await opened.goto(f"{base}?user_id={ANYA}&chat_id={GROUP}")
            await opened.locator('[data-trait="Ловкость"]').wait_for()
            yield opened
            assert errors == []
        finally:
            await chromium.close()


def trait(page: Any, name: str) -> Any:
    return page.locator(f'[data-trait="{name}"]')


async def wait_value(page: Any, name: str, value: int) -> None:
    await page.locator(f'[data-trait="{name}"][data-value="{value}"]').wait_for(timeout=10_000)


async def test_a_tapped_dot_sets_the_trait_seen_on_sheet(playground: str, page: Any) -> None:  # noqa: F811
    # Two quick taps, the second before the first is answered: both count.
    await trait(page, "Ловкость").locator('[data-dot="3"]').click()
    await trait(page, "Драка").locator('[data-dot="2"]').click()
    await wait_value(page, "Ловкость", 3)
    await wait_value(page, "Драка", 2)
    before = await last_id(playground, GROUP)
    await post(playground, GROUP, ANYA, "/sheet")
    text = await bot_answer(playground, GROUP, before, r"Ловкость")
    assert re.search(r"Ловкость\D{0,12}3", text), text
    assert re.search(r"Драка\D{0,12}2", text), text


async def test_a_wound_and_a_willpower_point_are_seen_on_sheet(
    playground: str,  # noqa: F811
    page: Any,
) -> None:
    await page.locator('[data-box="1"]').click()
    await page.locator('[data-box="1"][data-mark="B"]').wait_for(timeout=10_000)
    await trait(page, "Сила Воли").locator('[data-dot="5"]').click()
    await wait_value(page, "Сила Воли", 5)
    await page.locator('[data-willpower="5"] [data-point="5"]').click()
    await page.locator('[data-willpower="4"]').wait_for(timeout=10_000)
    before = await last_id(playground, GROUP)
    await post(playground, GROUP, ANYA, "/sheet")
    text = await bot_answer(playground, GROUP, before, r"Сила Воли")
    assert "Сила Воли: 4 из 5" in text, text
    assert "Здоровье: Синяки [/ ·" in text, text


async def test_a_roll_from_the_sheet_is_posted_once(playground: str, page: Any) -> None:  # noqa: F811
    await trait(page, "Ловкость").locator("[data-pick]").click()
    await trait(page, "Драка").locator("[data-pick]").click()
    await page.locator("#odds").filter(has_text="%").wait_for(timeout=10_000)
    before = await last_id(playground, GROUP)
    await page.locator("[data-roll]").click()
    text = await bot_answer(playground, GROUP, before, FIVE_FACES.pattern)
    assert "Аня" in text, text
    await asyncio.sleep(1.0)
    rolled = [
        m
        for m in await messages(playground, GROUP)
        if m["message_id"] > before and FIVE_FACES.search(m["text"])
    ]
    assert len(rolled) == 1


async def test_a_chat_edit_racing_a_page_edit_both_survive(playground: str, page: Any) -> None:  # noqa: F811
    before = await last_id(playground, GROUP)
    await post(playground, GROUP, ANYA, "/set сила 4")  # the page still shows the old sheet
    await bot_answer(playground, GROUP, before, r"Сила")
    await trait(page, "Обаяние").locator('[data-dot="2"]').click()
    await wait_value(page, "Обаяние", 2)
    await wait_value(page, "Сила", 4)
    await page.locator("#note").filter(has_text="Лист обновился").wait_for(timeout=10_000)
    before = await last_id(playground, GROUP)
    await post(playground, GROUP, ANYA, "/sheet")
    text = await bot_answer(playground, GROUP, before, r"Обаяние")
    assert re.search(r"Сила\D{0,12}4", text), text
    assert re.search(r"Обаяние\D{0,12}2", text), text


async def test_a_roll_sent_twice_is_shown_once_and_paid_once(playground: str) -> None:  # noqa: F811
    base = (await people(playground))["miniapp"]
    data = await launch_data(base, BORIS, GROUP)
    headers = {"X-Telegram-Init-Data": data}
    async with aiohttp.ClientSession() as session:
        async with session.get(base + "api/sheet", headers=headers) as got:
            drawn = await got.json()
        for step in (
            {"op": "set", "trait": "willpower", "value": 3},
            {"op": "set", "trait": "wits", "value": 2},
        ):
            async with session.post(
                base + "api/edit", json={**step, "version": drawn["version"]}, headers=headers
            ) as edited:
                assert edited.status == 200
                drawn = (await edited.json())["sheet"]
        before = await last_id(playground, GROUP)
        roll = {"traits": ["wits"], "difficulty": 6, "willpower": True, "request_id": "twice-0001"}
        for _ in range(2):
            async with session.post(base + "api/roll", json=roll, headers=headers) as rolled:
                assert rolled.status == 200
        await bot_answer(playground, GROUP, before, r"^(?:\d+ )?\d+$")
        await asyncio.sleep(1.5)
        async with session.get(base + "api/sheet", headers=headers) as got:
            after = await got.json()
    shown = [
        m
        for m in await messages(playground, GROUP)
        if m["message_id"] > before and re.search(r"^(?:\d+ )?\d+$", m["text"], re.M)
    ]
    assert len(shown) == 1, shown
    assert after["willpower"]["current"] == 2  # one point, however often it was sent


async def test_a_sheet_opened_in_a_forum_topic_is_that_topic_s_and_rolls_there(
    playground: str,  # noqa: F811
) -> None:
    """A forum topic is a campaign of its own: the sheet opened from «Маг» is Anya's sheet
    there (General's is another), and its roll is posted in that topic, as her ``/r`` typed
    there would be."""
    listed = await people(playground)
    base, forum = listed["miniapp"], listed["forum"]
    chat_id = forum["chat_id"]
    thread = forum["topics"][1]["message_thread_id"]  # General first, then «Маг»
    in_topic = {"X-Telegram-Init-Data": await launch_data(base, ANYA, chat_id, thread)}
    in_general = {"X-Telegram-Init-Data": await launch_data(base, ANYA, chat_id)}
    async with aiohttp.ClientSession() as session:
        async with session.get(base + "api/sheet", headers=in_topic) as got:
            drawn = await got.json()
        assert drawn["campaign"] == f"g{-chat_id}t{thread}"
        step = {"op": "set", "trait": "perception", "value": 4, "version": drawn["version"]}
        async with session.post(base + "api/edit", json=step, headers=in_topic) as edited:
            assert edited.status == 200
        async with session.get(base + "api/sheet", headers=in_general) as got:
            general = await got.json()
        before = await last_id(playground, chat_id)
        roll = {"traits": ["perception"], "difficulty": 6, "request_id": "topic-0001"}
        async with session.post(base + "api/roll", json=roll, headers=in_topic) as rolled:
            assert rolled.status == 200
    await bot_answer(playground, chat_id, before, r"^(?:\d+ ){3}\d+$")
    assert all(
        t["code"] != "perception" or t["value"] == 0 for g in general["groups"] for t in g["traits"]
    )
    answer = [
        m
        for m in await messages(playground, chat_id)
        if m["message_id"] > before and m["from"]["is_bot"]
    ]
    assert answer
    assert all(m.get("message_thread_id") == thread for m in answer), answer


async def test_the_playground_opens_the_sheet_beside_the_chat(playground: str) -> None:  # noqa: F811
    if not HAVE_CHROMIUM:
        pytest.skip("Debian's chromium is not installed")
    from playwright.async_api import async_playwright

    before = await last_id(playground, GROUP)
    await post(playground, GROUP, ANYA, "/sheet")
    await bot_answer(playground, GROUP, before, r"Аня")
    async with async_playwright() as driver:
        chromium = await driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            chat = await chromium.new_page(viewport={"width": 400, "height": 800})
            await chat.goto(playground + "/")
            await chat.locator(f'.person[data-user-id="{ANYA}"]').click()
            button = chat.locator(".keyboard button", has_text="Открыть лист").last
            await button.click()
            frame = chat.frame_locator("#miniapp-frame")
            await frame.locator('[data-trait="Ловкость"][data-value="3"]').wait_for()
        finally:
            await chromium.close()


async def test_a_wound_on_the_page_redraws_the_round_tracker(playground: str) -> None:  # noqa: F811
    vera = 1004
    before = await last_id(playground, GROUP)
    await post(playground, GROUP, vera, "/init 6")
    await bot_answer(playground, GROUP, before, r"Вера")
    tracker = next(
        m
        for m in reversed(await messages(playground, GROUP))
        if m["from"]["is_bot"] and "Вера" in m["text"] and m["message_id"] > before
    )
    base = (await people(playground))["miniapp"]
    headers = {"X-Telegram-Init-Data": await launch_data(base, vera, GROUP)}
    async with aiohttp.ClientSession() as session:
        async with session.get(base + "api/sheet", headers=headers) as got:
            drawn = await got.json()
        wound = {"op": "wound", "kind": "L", "version": drawn["version"]}
        async with session.post(base + "api/edit", json=wound, headers=headers) as edited:
            assert edited.status == 200
    for _ in range(100):
        now = next(
            m for m in await messages(playground, GROUP) if m["message_id"] == tracker["message_id"]
        )
        if now["text"] != tracker["text"]:
            break
        await asyncio.sleep(0.1)
    assert now["text"] != tracker["text"], now["text"]
    assert now["edited"]


MASTER = 1001


async def test_open_sheets_are_read_only_to_another_player(playground: str) -> None:  # noqa: F811
    """The privacy setting typed in the chat reaches the running process's Mini App."""
    base = (await people(playground))["miniapp"]
    anya = {"X-Telegram-Init-Data": await launch_data(base, ANYA, GROUP)}
    boris = {"X-Telegram-Init-Data": await launch_data(base, BORIS, GROUP)}
    async with aiohttp.ClientSession() as session:
        async with session.get(base + "api/sheet", headers=anya) as got:
            drawn = await got.json()
        async with session.post(
            base + "api/edit",
            json={"op": "set", "trait": "stamina", "value": 3, "version": drawn["version"]},
            headers=anya,
        ) as edited:
            assert edited.status == 200
        async with session.get(base + f"api/sheet?user={ANYA}", headers=boris) as closed:
            assert closed.status == 403
        before = await last_id(playground, GROUP)
        await post(playground, GROUP, MASTER, "/rules set листы=открыты")
        await bot_answer(playground, GROUP, before, r"Листы игроков теперь открыты")
        try:
            async with session.get(base + f"api/sheet?user={ANYA}", headers=boris) as opened:
                assert opened.status == 200
                seen = await opened.json()
            assert seen["read_only"] is True
            assert seen["read_only_note"] == "Лист: Аня (только чтение)"
            async with session.post(
                base + "api/edit",
                json={
                    "op": "set",
                    "trait": "stamina",
                    "value": 1,
                    "user": ANYA,
                    "version": seen["version"],
                },
                headers=boris,
            ) as refused:
                assert refused.status == 403
            async with session.get(base + "api/sheet", headers=anya) as got:
                assert (await got.json())["version"] == seen["version"]  # nothing changed
        finally:
            before = await last_id(playground, GROUP)
            await post(playground, GROUP, MASTER, "/rules set листы=закрыты")
            await bot_answer(playground, GROUP, before, r"Листы игроков теперь закрыты")


async def test_the_page_draws_another_players_open_sheet_without_editing(
    playground: str,  # noqa: F811
) -> None:
    if not HAVE_CHROMIUM:
        pytest.skip("Debian's chromium is not installed")
    from playwright.async_api import async_playwright

    base = (await people(playground))["miniapp"]
    before = await last_id(playground, GROUP)
    await post(playground, GROUP, ANYA, "/set выносливость 3")  # Anya has a sheet to read
    await bot_answer(playground, GROUP, before, r"Выносливость")
    before = await last_id(playground, GROUP)
    await post(playground, GROUP, MASTER, "/rules set листы=открыты")
    await bot_answer(playground, GROUP, before, r"Листы игроков теперь открыты")
    try:
        async with async_playwright() as driver:
            chromium = await driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
            try:
                opened = await chromium.new_page(viewport={"width": 360, "height": 740})
                await opened.goto(f"{base}?user_id={BORIS}&chat_id={GROUP}")
                await opened.locator('[data-trait="Ловкость"]').wait_for()
                await opened.locator("#whose").select_option(f"user:{ANYA}")
                await (
                    opened.locator("#name")
                    .filter(has_text="Лист: Аня (только чтение)")
                    .wait_for(timeout=10_000)
                )
                await wait_value(opened, "Выносливость", 3)
                assert await opened.locator("#sheet.readonly").count() == 1
                assert await opened.locator("#sheet button.small").count() == 0
                assert await opened.locator("#sheet button:not([disabled])").count() == 0
                assert await opened.locator("#roller").is_hidden()
            finally:
                await chromium.close()
    finally:
        before = await last_id(playground, GROUP)
        await post(playground, GROUP, MASTER, "/rules set листы=закрыты")
        await bot_answer(playground, GROUP, before, r"Листы игроков теперь закрыты")
