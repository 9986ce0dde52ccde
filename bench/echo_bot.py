"""The baseline for ``bench/e2e.py``: the smallest aiogram 3 bot that answers every message.

Why it exists: the end-to-end benchmark's target is relative — our bot must
reach at least 60% of the throughput of "a minimal aiogram bot on the same server". So this
bot does nothing but what every aiogram bot does: long polling, one Dispatcher with one
message handler, one ``sendMessage`` per text. No Redis, no middlewares, no rate limiter, no
rendering. It connects exactly like ``python -m bot`` (``BOT_TOKEN``, ``TELEGRAM_API_URL``,
``AiohttpSession(api=TelegramAPIServer.from_base(url))``) and polls the same way
(``handle_as_tasks=True``), so the difference between the two is the cost of our own code.

Run: ``BOT_TOKEN=123456:TEST TELEGRAM_API_URL=http://127.0.0.1:8081 python bench/echo_bot.py``
"""

from __future__ import annotations

import asyncio
import logging
import os
import sys

from aiogram import Bot, Dispatcher, F
from aiogram.client.session.aiohttp import AiohttpSession
from aiogram.client.telegram import TelegramAPIServer
from aiogram.types import Message

OFFICIAL_API = "https://api.telegram.org"


async def echo(message: Message) -> None:
    """Same text back; ``message.text`` is never None here (the ``F.text`` filter)."""
    await message.answer(message.text or "")


def create_dispatcher() -> Dispatcher:
    dispatcher = Dispatcher()
    dispatcher.message.register(echo, F.text)
    return dispatcher


async def run(token: str, api_url: str) -> None:
    session = AiohttpSession(api=TelegramAPIServer.from_base(api_url))
    bot = Bot(token=token, session=session)
    dispatcher = create_dispatcher()
    await dispatcher.start_polling(
        bot,
        handle_as_tasks=True,
        handle_signals=True,
        close_bot_session=True,
        allowed_updates=dispatcher.resolve_used_update_types(),
    )


def main() -> int:
    token = os.environ.get("BOT_TOKEN")
    if not token:
        print("echo_bot: BOT_TOKEN is required", file=sys.stderr)
        return 2
    api_url = os.environ.get("TELEGRAM_API_URL", OFFICIAL_API).rstrip("/")
    # As in aiogram's own echo example, and as our bot at its default LOG_LEVEL=INFO: both
    # write one line per handled update (ours its own, with the outcome, in place of
    # aiogram's, bot/logs.py), so logging costs the same on both sides.
    logging.basicConfig(
        level=logging.INFO, format="%(asctime)s %(levelname)s %(name)s: %(message)s"
    )
    asyncio.run(run(token, api_url))
    return 0


if __name__ == "__main__":
    sys.exit(main())
