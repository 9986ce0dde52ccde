"""Webhook mode: only requests with the right secret header reach the Dispatcher."""

from __future__ import annotations

import asyncio
from pathlib import Path

from aiogram import Router
from aiogram.filters import Command
from aiogram.methods import SetWebhook
from aiogram.types import Message
from aiogram.utils.i18n import I18n
from aiohttp.test_utils import TestClient, TestServer

from bot.app import create_dispatcher
from bot.settings import Settings
from bot.store import Store
from bot.webhook import build_app
from tests.bot.telegram_fakes import TOKEN, make_bot, text_update

SECRET = "s3cret-Token_1"


def webhook_settings() -> Settings:
    return Settings(  # type: ignore[call-arg]
        _env_file=None,
        bot_token=TOKEN,
        webhook_url="https://dice.example.org/tg/hook",
        webhook_secret=SECRET,
    )


async def test_webhook_checks_the_secret(fake_store: Store, tmp_path: Path) -> None:
    seen: list[str] = []
    router = Router()

    @router.message(Command("ping"))
    async def ping(message: Message) -> None:
        seen.append(message.text or "")

    settings = webhook_settings()
    i18n = I18n(path=tmp_path, default_locale="ru")
    dispatcher = create_dispatcher(settings, fake_store, i18n, routers=[router])
    bot, session = make_bot()
    app = build_app(settings, dispatcher, bot)
    async with TestClient(TestServer(app)) as client:
        [set_webhook] = session.calls("setWebhook")
        assert isinstance(set_webhook, SetWebhook)
        assert set_webhook.url == "https://dice.example.org/tg/hook"
        assert set_webhook.secret_token == SECRET
        assert "message" in (set_webhook.allowed_updates or [])

        body = text_update("/ping").model_dump(mode="json", exclude_none=True)
        missing = await client.post("/tg/hook", json=body)
        wrong = await client.post(
            "/tg/hook", json=body, headers={"X-Telegram-Bot-Api-Secret-Token": "guess"}
        )
        assert (missing.status, wrong.status) == (401, 401)
        await asyncio.sleep(0.05)
        assert seen == []

        right = await client.post(
            "/tg/hook", json=body, headers={"X-Telegram-Bot-Api-Secret-Token": SECRET}
        )
        assert right.status == 200
        for _ in range(100):
            if seen:
                break
            await asyncio.sleep(0.01)
        assert seen == ["/ping"]

        garbage = await client.post(
            "/tg/hook",
            data=b"not json at all",
            headers={"X-Telegram-Bot-Api-Secret-Token": SECRET},
        )
        not_an_update = await client.post(
            "/tg/hook", json={"hello": 1}, headers={"X-Telegram-Bot-Api-Secret-Token": SECRET}
        )
        assert (garbage.status, not_an_update.status) == (400, 400)
        assert seen == ["/ping"]
        # The same update delivered again (a webhook retry) is not handled twice.
        again = await client.post(
            "/tg/hook", json=body, headers={"X-Telegram-Bot-Api-Secret-Token": SECRET}
        )
        assert again.status == 200
        await asyncio.sleep(0.2)
        assert seen == ["/ping"]
