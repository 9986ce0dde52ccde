"""Webhook mode: an aiohttp server that only accepts updates carrying our secret (PRODUCT.md §4).

Telegram sends the secret given to setWebhook in the ``X-Telegram-Bot-Api-Secret-Token``
header; aiogram's handler compares it in constant time and answers 401 otherwise, so a
stranger who finds the URL cannot forge updates. Several replicas may serve the same URL
behind a load balancer: they share nothing but Redis.
"""

from __future__ import annotations

import asyncio
import logging
import signal

from aiogram import Bot, Dispatcher
from aiogram.webhook.aiohttp_server import SimpleRequestHandler, setup_application
from aiohttp import web

from bot.settings import Settings

log = logging.getLogger(__name__)


def build_app(settings: Settings, dispatcher: Dispatcher, bot: Bot) -> web.Application:
    """The aiohttp application: the webhook route, the Dispatcher's start-up and shutdown.

    The Dispatcher's shutdown (which waits for updates in flight) is registered before the
    request handler's, which closes the bot's session, so late replies still go out.
    """
    if settings.webhook_secret is None:
        raise ValueError("webhook mode needs WEBHOOK_SECRET")
    secret = settings.webhook_secret.get_secret_value()
    app = web.Application()
    setup_application(app, dispatcher, bot=bot)
    handler = SimpleRequestHandler(dispatcher=dispatcher, bot=bot, secret_token=secret)
    handler.register(app, path=settings.listen_path)

    async def register_webhook(_: web.Application) -> None:
        await bot.set_webhook(
            url=settings.webhook_url or "",
            secret_token=secret,
            allowed_updates=dispatcher.resolve_used_update_types(),
        )

    app.on_startup.append(register_webhook)
    return app


async def serve(settings: Settings, dispatcher: Dispatcher, bot: Bot) -> None:
    """Serve until SIGTERM or SIGINT, then shut down gracefully."""
    app = build_app(settings, dispatcher, bot)
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, settings.webhook_host, settings.webhook_port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await site.start()
        log.info(
            "listening on %s:%d%s",
            settings.webhook_host,
            settings.webhook_port,
            settings.listen_path,
        )
        await stop.wait()
        log.info("stop requested")
    finally:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        await runner.cleanup()
