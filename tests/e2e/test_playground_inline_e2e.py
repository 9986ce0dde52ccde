"""The playground's inline mode in Chromium: ``@bot 7 6`` typed in the input lists the bot's
offer above it like Telegram; choosing it posts the message via the bot, and its button rolls.

The same playground process as tests/e2e/test_playground_e2e.py (its fixture, imported).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from localapi.patience import patient
from tests.e2e.test_playground_e2e import CHROMIUM, CHROMIUM_ARGS, FACES, WAIT_MS
from tests.e2e.test_playground_e2e import playground as playground  # the fixture

pytestmark = [pytest.mark.e2e]


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="Debian's chromium is not installed")
async def test_an_inline_roll_in_the_page(playground: str) -> None:
    from playwright.async_api import async_playwright

    async with async_playwright() as driver:
        browser = await driver.chromium.launch(
            executable_path=CHROMIUM, args=CHROMIUM_ARGS, timeout=patient(30) * 1000
        )
        try:
            page = await browser.new_page(viewport={"width": 400, "height": 800})
            page.set_default_timeout(WAIT_MS)
            await page.goto(playground + "/")
            await page.locator("#chats button").first.wait_for(timeout=WAIT_MS)
            await page.fill("#text", "@storyteller_test_bot 7 6")
            offered = page.locator("#inline-results button").first
            await offered.wait_for(timeout=WAIT_MS)
            assert "7к10" in await offered.inner_text()
            await offered.click()
            message = page.locator(".message", has_text="via @storyteller_test_bot").last
            await message.wait_for(timeout=WAIT_MS)
            assert not FACES.search(await message.locator(".text").inner_text())
            await message.locator(".keyboard button", has_text="Бросить").click()
            await page.wait_for_function(
                "() => [...document.querySelectorAll('.message .text')].some("
                "e => /^(?:\\d+ ){6}\\d+$/m.test(e.innerText))",
                timeout=WAIT_MS,
            )
            rolled = page.locator(".message", has_text=re.compile(r"7к10")).last
            assert FACES.search(await rolled.locator(".text").inner_text())
            assert await page.locator("#inline-results").is_hidden()
        finally:
            await browser.close()
