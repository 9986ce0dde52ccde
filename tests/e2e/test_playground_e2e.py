"""``python -m bot playground``: the real process, its JSON API, and the page in Chromium.

Outside contract (docs/product.md §4): with no BOT_TOKEN and no REDIS_URL,
``python -m bot playground --port P --no-browser`` serves an HTML page at ``/``, and a
``/r 7 6`` posted to ``/api/messages`` for chat -100 is answered in
``GET /api/messages?chat_id=-100`` by a message with 7 faces. The browser tests drive
Debian's headless Chromium with Playwright on a phone-sized page, one process and one page
for the whole module, in order: who one is, switched in one tap; the page's words in the
English player's language; a roll and a button under it; a /command in a message tapped; a
session's chronicle shown as two documents with their links; the forum group's topics, each
showing its own messages, a closed one with its input off; and last, because it spends the
group's budget for a minute, the notice while Telegram's 20 messages a minute hold the bot's
replies back.
"""

from __future__ import annotations

import asyncio
import os
import re
import shutil
import socket
import sys
import time
from collections.abc import AsyncIterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import aiohttp
import pytest
import pytest_asyncio

from localapi.patience import patient
from localapi.processes import REPO_ROOT, end_process

if TYPE_CHECKING:
    from playwright.async_api import Page

pytestmark = [pytest.mark.e2e, pytest.mark.asyncio(loop_scope="module")]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
HAVE_CHROMIUM = Path(CHROMIUM).exists()
FACES = re.compile(r"^(?:\d+ ){6}\d+$", re.M)  # a line of exactly seven faces
# Headless Chromium on a machine with no network and no display (see the env notes): no
# sandbox as root, no background traffic that the closed network refuses.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
GROUP, FORUM, MASTER, ANYA, BORIS, JOHN = -100, -200, 1001, 1002, 1003, 1005
# Playwright counts in milliseconds: what the page needs on an idle machine, times the scale.
WAIT_MS = patient(10) * 1000


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def playground(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[str]:
    directory = tmp_path_factory.mktemp("playground")
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("BOT_TOKEN", "REDIS_URL")}
    log = (directory / "playground.log").open("wb")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "playground",
        "--port",
        str(port),
        "--no-browser",
        cwd=directory,  # no .env of the repository's is read
        env={**env, "PYTHONPATH": str(REPO_ROOT)},
        stdout=log,
        stderr=asyncio.subprocess.STDOUT,
        start_new_session=True,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + patient(30)
        async with aiohttp.ClientSession() as session:
            while True:
                try:
                    async with session.get(url + "/api/people") as response:
                        if response.status == 200:
                            break
                except aiohttp.ClientError:
                    pass
                assert process.returncode is None, (directory / "playground.log").read_text()
                assert time.monotonic() < deadline, "the playground did not start"
                await asyncio.sleep(0.2)
        yield url
    finally:
        if process.returncode is None:
            process.terminate()
        # Replies still held by the group's budget would keep it up for its grace: two
        # seconds, then it is killed with anything it started.
        await end_process(process, grace=2, group=True)
        log.close()
        print((directory / "playground.log").read_text())


class Browser:
    """One phone-sized page for the module, every answer of 400 or more it was given, and
    every error its script raised."""

    def __init__(self, page: Page) -> None:
        self.page = page
        self.failed: list[str] = []

    def person(self, user_id: int) -> Any:
        return self.page.locator(f'.person[data-user-id="{user_id}"]')


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def browser(playground: str) -> AsyncIterator[Browser]:
    if not HAVE_CHROMIUM:
        pytest.skip("Debian's chromium is not installed")
    from playwright.async_api import async_playwright

    async with async_playwright() as driver:
        chromium = await driver.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=patient(30) * 1000
        )
        try:
            page = await chromium.new_page(viewport={"width": 400, "height": 800})
            page.set_default_timeout(WAIT_MS)
            opened = Browser(page)

            def note(response: Any) -> None:
                if response.status >= 400:
                    opened.failed.append(f"{response.status} {response.url}")

            page.on("response", note)
            page.on("pageerror", lambda error: opened.failed.append(f"script: {error}"))
            await page.goto(playground + "/")
            await page.locator(".person").first.wait_for()
            yield opened
        finally:
            await chromium.close()


async def post(url: str, chat_id: int, user_id: int, text: str) -> None:
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            url + "/api/messages", json={"chat_id": chat_id, "user_id": user_id, "text": text}
        ) as posted,
    ):
        assert posted.status == 200, await posted.text()


async def test_the_outside_contract(playground: str) -> None:
    async with aiohttp.ClientSession() as session:
        async with session.get(playground + "/") as page:
            assert page.status == 200
            assert "<html" in (await page.text()).lower()
        async with session.post(
            playground + "/api/messages", json={"chat_id": -100, "user_id": 1002, "text": "/r 7 6"}
        ) as posted:
            assert posted.status == 200
        found: list[dict[str, Any]] = []
        deadline = time.monotonic() + patient(5)
        while time.monotonic() < deadline:
            async with session.get(playground + "/api/messages?chat_id=-100") as response:
                messages = (await response.json())["messages"]
            found = [m for m in messages if m["from"]["is_bot"] and FACES.search(m["text"])]
            if found:
                break
            await asyncio.sleep(0.1)
        assert found, messages
        assert {"message_id", "from", "text", "reply_markup"} <= set(found[0])
        # Bad input gets a clear refusal and changes nothing.
        for body in ({"chat_id": -100, "user_id": 1, "text": "x"}, {"chat_id": "?"}, [1]):
            async with session.post(playground + "/api/messages", json=body) as refused:
                assert 400 <= refused.status < 500
        async with session.post(
            playground + "/api/messages", json={"chat_id": 1003, "user_id": 1002, "text": "hi"}
        ) as foreign:
            assert foreign.status == 403  # someone else's private chat


async def test_the_icon_is_served_and_no_request_fails(playground: str, browser: Browser) -> None:
    linked = await browser.page.get_attribute("link[rel=icon]", "href")
    async with aiohttp.ClientSession() as session:
        for path in ("/favicon.ico", str(linked)):
            async with session.get(playground + path) as icon:
                assert icon.status == 200, path
                assert icon.content_type == "image/svg+xml"
    assert browser.failed == []


# A 🟥 drawn on a canvas in the page's font: with a colour emoji font (Debian's
# fonts-noto-color-emoji, which scripts/install adds) it is red; the box a missing glyph
# leaves is drawn in the black of the pen.
COLOURED_PIXELS_OF_AN_EMOJI = """() => {
  const canvas = document.createElement("canvas");
  canvas.width = canvas.height = 48;
  const pen = canvas.getContext("2d");
  pen.font = "36px " + getComputedStyle(document.body).fontFamily;
  pen.textBaseline = "top";
  pen.fillStyle = "#000";
  pen.fillText("🟥", 4, 4);
  const data = pen.getImageData(0, 0, 48, 48).data;
  let coloured = 0;
  for (let i = 0; i < data.length; i += 4) {
    const [r, g, b, a] = [data[i], data[i + 1], data[i + 2], data[i + 3]];
    if (a > 0 && Math.max(r, g, b) - Math.min(r, g, b) > 40) coloured++;
  }
  return coloured;
}"""


async def test_emoji_are_drawn_in_colour(browser: Browser) -> None:
    assert await browser.page.evaluate(COLOURED_PIXELS_OF_AN_EMOJI) > 400


async def test_who_one_is_shows_and_changes_in_one_tap_on_a_phone(browser: Browser) -> None:
    page = browser.page
    checked = page.locator('.person[aria-checked="true"]')
    # It opens as a player, not as the Storyteller, and says so without opening a menu.
    assert await checked.get_attribute("data-user-id") == str(ANYA)
    for user_id in (1001, ANYA, BORIS, 1004, JOHN):  # all on screen, none behind ☰
        box = await browser.person(user_id).bounding_box()
        assert box is not None
        assert box["x"] >= 0, (user_id, box)
        assert box["x"] + box["width"] <= 400, (user_id, box)
    await browser.person(JOHN).click()
    assert await checked.get_attribute("data-user-id") == str(JOHN)
    await browser.person(ANYA).click()
    assert await checked.get_attribute("data-user-id") == str(ANYA)


async def test_the_page_speaks_the_language_of_the_person_one_is(browser: Browser) -> None:
    page = browser.page
    assert await page.get_attribute("#text", "placeholder") == "Сообщение… например /r 7 6"
    await browser.person(JOHN).click()
    assert await page.get_attribute("#text", "placeholder") == "Message… e.g. /r 7 6"
    assert await page.get_attribute("#send", "title") == "Send"
    assert await page.get_attribute("html", "lang") == "en"
    assert await page.inner_text("#chat-sub") == "group"
    assert await page.locator(".person small").first.inner_text() == "group admin"
    assert "kept in memory" in await page.locator(".hint").text_content()  # type: ignore[operator]
    await browser.person(ANYA).click()
    assert await page.get_attribute("#text", "placeholder") == "Сообщение… например /r 7 6"
    assert await page.inner_text("#chat-sub") == "группа"


async def test_a_roll_and_a_button_under_it(browser: Browser) -> None:
    page = browser.page
    await page.fill("#text", "/r 7 6")
    await page.press("#text", "Enter")
    result = page.locator(".message", has_text=re.compile(r"Аня: 7к10"))
    await result.last.wait_for(timeout=WAIT_MS)
    text = await result.last.locator(".text").inner_text()
    assert FACES.search(text), text
    # The bot is the dice, not the Storyteller (a person at the table).
    assert await result.last.locator(".author").inner_text() == "Кубы"
    button = result.last.locator(".keyboard button").first
    label = await button.inner_text()
    before = await result.last.inner_text()
    await button.click()
    await page.wait_for_function(
        '([id, before]) => document.querySelector(`[data-message-id="${id}"]`)'
        ' && document.querySelector(`[data-message-id="${id}"]`).innerText !== before',
        arg=[await result.last.get_attribute("data-message-id"), before],
        timeout=WAIT_MS,
    )
    after = await page.locator(".message").last.inner_text()
    assert after != before, (label, after)


async def test_a_command_in_a_message_is_sent_by_a_tap(browser: Browser) -> None:
    page = browser.page
    await browser.person(JOHN).click()
    await page.click("#menu-toggle")
    await page.locator(".chat-item", has_text="Dice bot").click()
    assert await page.inner_text("#chat-title") == "Dice bot"
    await page.fill("#text", "/start")
    await page.press("#text", "Enter")
    command = page.locator('.message:not(.own) a.command[data-command="/help"]')
    await command.first.wait_for(timeout=WAIT_MS)
    answers = await page.locator(".message:not(.own)").count()
    await command.first.click()
    await page.wait_for_function(
        "n => document.querySelectorAll('.message:not(.own)').length > n",
        arg=answers,
        timeout=WAIT_MS,
    )
    assert await page.locator(".message.own .text").last.inner_text() == "/help"


async def test_a_chronicle_is_shown_as_documents_to_download(
    playground: str, browser: Browser
) -> None:
    """``/chronicle`` in the group: two documents, each named, with a link to its bytes, both
    in ``GET /api/messages`` (``document: {file_name, url}``) and on the page."""
    page = browser.page
    master = 1001
    await post(playground, GROUP, master, "/session start")
    await post(playground, GROUP, ANYA, "/r 3 6")
    await post(playground, GROUP, master, "/session end")
    await post(playground, GROUP, ANYA, "/chronicle")
    documents: list[dict[str, Any]] = []
    async with aiohttp.ClientSession() as session:
        for _ in range(100):
            async with session.get(f"{playground}/api/messages?chat_id={GROUP}") as response:
                messages = (await response.json())["messages"]
            documents = [m["document"] for m in messages if m.get("document")]
            if len(documents) >= 2:
                break
            await asyncio.sleep(0.1)
        names = {d["file_name"] for d in documents}
        assert {"chronicle-session-1.md", "chronicle-session-1.html"} <= names, messages
        markdown = next(d for d in documents if d["file_name"].endswith(".md"))
        async with session.get(playground + markdown["url"]) as served:
            assert served.status == 200
            assert "session 1 seed = " in await served.text()
    await browser.person(ANYA).click()
    await page.click("#menu-toggle")
    await page.locator(".chat-item", has_text="Хроника").click()
    link = page.locator("a.document", has_text="chronicle-session-1.html")
    await link.last.wait_for(timeout=10_000)
    assert await link.last.get_attribute("href") is not None
    assert await link.last.get_attribute("download") == "chronicle-session-1.html"


async def post_in_topic(url: str, user_id: int, text: str, thread: int | None) -> int:
    body = {"chat_id": FORUM, "user_id": user_id, "text": text, "message_thread_id": thread}
    async with (
        aiohttp.ClientSession() as session,
        session.post(url + "/api/messages", json=body) as posted,
    ):
        assert posted.status == 200, await posted.text()
        message_id: int = (await posted.json())["message_id"]
        return message_id


async def test_a_forum_shows_one_topic_at_a_time(playground: str, browser: Browser) -> None:
    """Topics listed General first; each shows its own messages; what one types goes to the
    open topic; a topic an admin closes shows closed, with the input off for a player."""
    page = browser.page
    async with (
        aiohttp.ClientSession() as session,
        session.get(playground + "/api/people") as response,
    ):
        forum = (await response.json())["forum"]
    mage, ages = (t["message_thread_id"] for t in forum["topics"][1:])
    await post_in_topic(playground, BORIS, "слово в Маге", mage)
    await post_in_topic(playground, BORIS, "слово в Тёмных веках", ages)
    await post_in_topic(playground, BORIS, "слово в General", None)
    await browser.person(ANYA).click()
    await page.click("#menu-toggle")
    await page.locator(".chat-item", has_text=forum["title"]).click()
    assert await page.inner_text("#chat-title") == forum["title"]
    assert await page.locator(".topic").all_inner_texts() == ["# General", "# Маг", "# Тёмные века"]
    words = page.locator(".message .text")

    async def shows(expected: str) -> None:
        await page.locator(".message", has_text=expected).first.wait_for()
        texts = await words.all_inner_texts()
        others = {"слово в Маге", "слово в Тёмных веках", "слово в General"} - {expected}
        assert not others & set(texts), texts

    await shows("слово в General")
    await page.locator(".topic", has_text="Маг").click()
    await shows("слово в Маге")
    assert "Маг" in await page.locator(".service").first.inner_text()  # the topic's creation
    await page.fill("#text", "пишу в Маг")
    await page.press("#text", "Enter")
    await page.locator(".message.own", has_text="пишу в Маг").wait_for()
    await page.locator(".topic", has_text="Тёмные века").click()
    await shows("слово в Тёмных веках")
    assert await page.locator(".message", has_text="пишу в Маг").count() == 0
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{playground}/api/messages?chat_id={FORUM}") as response,
    ):
        messages = (await response.json())["messages"]
    typed = next(m for m in messages if m["text"] == "пишу в Маг")
    assert typed["message_thread_id"] == mage
    # The Storyteller closes the topic: a player sees it closed, and cannot write there.
    async with (
        aiohttp.ClientSession() as session,
        session.post(
            playground + "/api/topics/close",
            json={"chat_id": FORUM, "user_id": MASTER, "message_thread_id": ages},
        ) as closed,
    ):
        assert closed.status == 200, await closed.text()
    await page.locator(".topic.closed", has_text="Тёмные века").wait_for()
    await page.wait_for_function("() => document.getElementById('text').disabled")
    await page.locator(".topic", has_text="Маг").click()
    await page.wait_for_function("() => !document.getElementById('text').disabled")
    assert browser.failed == []


async def test_held_replies_are_explained(playground: str, browser: Browser) -> None:
    page = browser.page
    await browser.person(ANYA).click()  # to her own private chat, then to the group
    await page.click("#menu-toggle")
    await page.locator(".chat-item", has_text="Хроника").click()
    assert await page.inner_text("#chat-title") == "Хроника"
    notice = page.locator("#held")
    assert await notice.is_hidden()
    # More replies than Telegram lets a bot send to one group in a minute.
    for _ in range(22):
        await post(playground, GROUP, BORIS, "/r 1 6")
    await notice.wait_for(timeout=WAIT_MS)
    assert "ждём: Telegram разрешает 20 сообщений в минуту в группе" in await notice.inner_text()
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"{playground}/api/messages?chat_id={GROUP}") as response,
    ):
        held = (await response.json())["held"]
    assert held["sends"] >= 1, held
    assert 0 < held["seconds"] <= 60, held
    await browser.person(JOHN).click()  # the group again, in English
    await notice.wait_for(timeout=patient(5) * 1000)
    assert "waiting: Telegram allows 20 messages a minute in a group" in (await notice.inner_text())
    assert browser.failed == []
