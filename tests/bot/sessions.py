"""A bot on the fake Bot API with the production session's middlewares and no pauses between
tries, for tests of what those middlewares do with a failed send (bot/sent.py)."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from aiogram import Bot
from aiogram.client.telegram import TelegramAPIServer

from bot.app import make_bot
from bot.session import BotSession, RetryMiddleware, install_middlewares
from localapi.server import FakeBotApi


class NoSleep:
    async def __call__(self, delay: float) -> None:
        return None


@asynccontextmanager
async def bot_without_pauses(fake_api: FakeBotApi) -> AsyncIterator[Bot]:
    session = BotSession(api=TelegramAPIServer.from_base(fake_api.base_url))
    install_middlewares(session)
    for middleware in session.middleware._middlewares:
        if isinstance(middleware, RetryMiddleware):
            middleware.sleep = NoSleep()
    try:
        yield make_bot(fake_api.token, session)
    finally:
        await session.close()
