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
from bot.webhook import BODY_MAX, DEPTH_MAX, REGISTER_KEY, SECRET_HEADER, build_app, too_deep
from table.store import Store
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
        assert session.calls("setWebhook") == []  # not before the port listens
        await app[REGISTER_KEY]()
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


async def test_webhook_refuses_pathological_bodies_before_parsing_them(
    fake_store: Store, tmp_path: Path
) -> None:
    """A body nested 100,000 deep made the parser fail with RecursionError (500); one far
    past any update's size filled memory. Both are 400 now, with the right secret too, and
    an update as deep as Telegram's still goes through."""
    seen: list[str] = []
    router = Router()

    @router.message(Command("ping"))
    async def ping(message: Message) -> None:
        seen.append(message.text or "")

    settings = webhook_settings()
    dispatcher = create_dispatcher(
        settings, fake_store, I18n(path=tmp_path, default_locale="ru"), routers=[router]
    )
    bot, _session = make_bot()
    app = build_app(settings, dispatcher, bot)
    secret = {"X-Telegram-Bot-Api-Secret-Token": SECRET, "Content-Type": "application/json"}
    async with TestClient(TestServer(app)) as client:
        deep = await client.post("/tg/hook", data=b"[" * 100_000 + b"]" * 100_000, headers=secret)
        assert deep.status == 400
        assert "deep" in await deep.text()
        hidden = b'{"update_id": 1, "x": ' + b"[" * 5_000 + b"]" * 5_000 + b"}"
        assert (await client.post("/tg/hook", data=hidden, headers=secret)).status == 400
        large = b'{"update_id": 1, "x": "' + b"a" * (BODY_MAX + 1) + b'"}'
        refused = await client.post("/tg/hook", data=large, headers=secret)
        assert refused.status == 400
        assert "large" in await refused.text()

        body = text_update("/ping").model_dump(mode="json", exclude_none=True)
        body["message"]["text"] = "/ping " + "[" * 200  # brackets in a string are no depth
        fine = await client.post("/tg/hook", json=body, headers={SECRET_HEADER: SECRET})
        assert fine.status == 200
        for _ in range(100):
            if seen:
                break
            await asyncio.sleep(0.01)
        assert seen == [body["message"]["text"]]


def test_depth_is_told_from_brackets_outside_strings() -> None:
    assert not too_deep(b'{"a": [[[1]]], "b": "[[[[[[[[[["}')
    assert too_deep(b"{" * (DEPTH_MAX + 1))
    assert not too_deep(b'"' + b"[" * 1000)  # an unterminated string holds them all
    assert not too_deep(b'["\\"' + b"[" * 1000 + b'"]')  # an escaped quote ends nothing
