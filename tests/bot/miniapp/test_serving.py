"""Where the Mini App is served: the webhook's own server in webhook mode, a port of its own
in polling mode, at the path of MINIAPP_URL; nothing at all without MINIAPP_URL."""

from __future__ import annotations

import socket
from pathlib import Path

import aiohttp
from aiogram.utils.i18n import I18n
from aiohttp.test_utils import TestClient, TestServer

from bot.app import create_dispatcher
from bot.miniapp import server
from bot.settings import Settings
from bot.webhook import build_app
from table.store import Store
from tests.bot.telegram_fakes import TOKEN, make_bot


def settings(**extra: object) -> Settings:
    return Settings(_env_file=None, bot_token=TOKEN, **extra)  # type: ignore[arg-type]


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port: int = sock.getsockname()[1]
        return port


async def test_no_url_no_mini_app(fake_store: Store, tmp_path: Path) -> None:
    plain = settings()
    dispatcher = create_dispatcher(plain, fake_store, I18n(path=tmp_path, default_locale="ru"))
    bot, _session = make_bot()
    assert server.build(plain, dispatcher, bot) is None


async def test_polling_mode_serves_it_on_its_own_port(fake_store: Store, tmp_path: Path) -> None:
    port = free_port()
    chosen = settings(
        miniapp_url="https://dice.example.org/sheet", miniapp_port=port, miniapp_host="127.0.0.1"
    )
    assert chosen.miniapp_path == "/sheet/"
    dispatcher = create_dispatcher(chosen, fake_store, I18n(path=tmp_path, default_locale="ru"))
    bot, _session = make_bot()
    miniapp = server.build(chosen, dispatcher, bot)
    assert miniapp is not None
    async with server.serving(chosen, miniapp), aiohttp.ClientSession() as session:
        async with session.get(f"http://127.0.0.1:{port}/sheet/") as page:
            assert page.status == 200
            assert "app.js" in await page.text()
        async with session.get(f"http://127.0.0.1:{port}/sheet/api/sheet") as refused:
            assert refused.status == 401
        bare = f"http://127.0.0.1:{port}/sheet?c=g100"
        async with session.get(bare, allow_redirects=False) as moved:
            assert moved.status == 302
            assert moved.headers["Location"] == "/sheet/?c=g100"


async def test_webhook_mode_serves_it_beside_the_webhook(fake_store: Store, tmp_path: Path) -> None:
    chosen = settings(
        webhook_url="https://dice.example.org/tg/hook",
        webhook_secret="s3cret-Token_1",
        miniapp_url="https://dice.example.org/sheet",
    )
    dispatcher = create_dispatcher(chosen, fake_store, I18n(path=tmp_path, default_locale="ru"))
    bot, _session = make_bot()
    miniapp = server.build(chosen, dispatcher, bot)
    app = build_app(chosen, dispatcher, bot, miniapp)
    async with TestClient(TestServer(app)) as client:
        page = await client.get("/sheet/static/app.js")
        assert page.status == 200
        refused = await client.get("/sheet/api/sheet", headers={"X-Telegram-Init-Data": "x=1"})
        assert refused.status == 401
