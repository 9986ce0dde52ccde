"""``python -m bot playground``: the real process, its JSON API, and the page in Chromium.

Outside contract (PRODUCT.md §4): with no BOT_TOKEN and no REDIS_URL,
``python -m bot playground --port P --no-browser`` serves an HTML page at ``/``, and a
``/r 7 6`` posted to ``/api/messages`` for chat -100 is answered in
``GET /api/messages?chat_id=-100`` by a message with 7 faces. The browser test drives
Debian's headless Chromium with Playwright: type ``/r 7 6``, see seven faces, press a button
under the result, see the message change.
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
from typing import Any

import aiohttp
import pytest

from localapi.processes import REPO_ROOT

pytestmark = [pytest.mark.e2e]

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
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


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


@pytest.fixture
async def playground(tmp_path: Path) -> AsyncIterator[str]:
    port = free_port()
    env = {k: v for k, v in os.environ.items() if k not in ("BOT_TOKEN", "REDIS_URL")}
    log = (tmp_path / "playground.log").open("wb")
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        "-m",
        "bot",
        "playground",
        "--port",
        str(port),
        "--no-browser",
        cwd=tmp_path,  # no .env of the repository's is read
        env={**env, "PYTHONPATH": str(REPO_ROOT)},
        stdout=log,
        stderr=asyncio.subprocess.STDOUT,
    )
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + 30
        async with aiohttp.ClientSession() as session:
            while True:
                try:
                    async with session.get(url + "/api/people") as response:
                        if response.status == 200:
                            break
                except aiohttp.ClientError:
                    pass
                assert process.returncode is None, (tmp_path / "playground.log").read_text()
                assert time.monotonic() < deadline, "the playground did not start"
                await asyncio.sleep(0.2)
        yield url
    finally:
        if process.returncode is None:
            process.terminate()
            try:
                await asyncio.wait_for(process.wait(), 10)
            except TimeoutError:
                process.kill()
        log.close()
        print((tmp_path / "playground.log").read_text())


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
        for _ in range(50):
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


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")
async def test_the_page_in_chromium(playground: str, tmp_path: Path) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as driver:
        browser = await driver.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        try:
            page = await browser.new_page(viewport={"width": 400, "height": 800})
            await page.goto(playground + "/")
            await page.select_option("#who", "1002")  # Аня, a player
            await page.fill("#text", "/r 7 6")
            await page.press("#text", "Enter")
            result = page.locator(".message", has_text=re.compile(r"Аня: 7к10"))
            await result.last.wait_for(timeout=10_000)
            text = await result.last.locator(".text").inner_text()
            assert FACES.search(text), text
            button = result.last.locator(".keyboard button").first
            label = await button.inner_text()
            before = await result.last.inner_text()
            await button.click()
            await page.wait_for_function(
                '([id, before]) => document.querySelector(`[data-message-id="${id}"]`)'
                ' && document.querySelector(`[data-message-id="${id}"]`).innerText !== before',
                arg=[await result.last.get_attribute("data-message-id"), before],
                timeout=10_000,
            )
            after = await page.locator(".message").last.inner_text()
            assert after != before, (label, after)
            await page.screenshot(path=str(tmp_path / "playground.png"))
        finally:
            await browser.close()
