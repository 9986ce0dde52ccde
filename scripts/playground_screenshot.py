"""Regenerate docs/playground.png: the playground after a few rolls, in headless Chromium.

Run: ``.venv/bin/python scripts/playground_screenshot.py`` (needs Debian's chromium and the
dev extra's playwright; starts ``python -m bot playground`` on a free port and stops it).
"""

from __future__ import annotations

import asyncio
import socket
import sys
from pathlib import Path

import aiohttp
from playwright.async_api import async_playwright

ROOT = Path(__file__).resolve().parents[1]
ARGS = ["--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking"]


async def main() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    process = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "bot", "playground", "--port", str(port), "--no-browser", cwd=ROOT
    )
    url = f"http://127.0.0.1:{port}"
    try:
        async with aiohttp.ClientSession() as session:
            for _ in range(100):
                try:
                    async with session.get(url + "/api/people"):
                        break
                except aiohttp.ClientError:
                    await asyncio.sleep(0.2)
            for user, text in ((1002, "/r 7 6"), (1003, "/init 6"), (1002, "/init 7")):
                await session.post(
                    url + "/api/messages", json={"chat_id": -100, "user_id": user, "text": text}
                )
                await asyncio.sleep(0.6)
        async with async_playwright() as driver:
            browser = await driver.chromium.launch(executable_path="/usr/bin/chromium", args=ARGS)
            page = await browser.new_page(viewport={"width": 1000, "height": 760})
            await page.goto(url + "/")
            await page.locator('.person[data-user-id="1004"]').click()
            await page.fill("#text", "/r 5 7")
            await page.press("#text", "Enter")
            await page.wait_for_timeout(1500)
            await page.screenshot(path=str(ROOT / "docs" / "playground.png"))
            await browser.close()
    finally:
        process.terminate()
        await process.wait()


if __name__ == "__main__":
    asyncio.run(main())
