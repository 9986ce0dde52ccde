"""Webhook mode: an aiohttp server that only accepts updates carrying our secret
(docs/product.md §4).

Telegram sends the secret given to setWebhook in the ``X-Telegram-Bot-Api-Secret-Token``
header; it is compared in constant time and anything else gets 401, so a stranger who finds
the URL cannot forge updates. A body that is not an Update gets 400. An update is answered
200 only once it is in the Redis inbox (503 while Redis is away, so Telegram sends it again,
while this replica runs it from memory all the same, so the player hears at once that the
answer will come); bot/delivery.py then runs it. Several replicas may serve the same URL
behind a load balancer: they share nothing but Redis, which serialises each chat's updates
between them.
"""

from __future__ import annotations

import asyncio
import hmac
import itertools
import json
import logging
import re
import signal
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import Bot, Dispatcher
from aiogram.types import Update
from aiogram.webhook.aiohttp_server import setup_application
from aiohttp import web
from pydantic import ValidationError

from bot import metrics
from bot.app import SHUTDOWN_GRACE
from bot.delivery import Delivery
from bot.miniapp.server import MiniApp
from bot.settings import Settings
from table.store import REDIS_ERRORS, Store

log = logging.getLogger(__name__)

SECRET_HEADER = "X-Telegram-Bot-Api-Secret-Token"
DELIVERY_KEY = web.AppKey("delivery", Delivery)
TASKS_KEY = web.AppKey("delivery_tasks", list[asyncio.Task[None]])
# How the app tells Telegram where it listens: called once its port is open (:func:`serve`).
REGISTER_KEY: web.AppKey[Callable[[], Awaitable[None]]] = web.AppKey("register_webhook")


# What a body may be before it is parsed: an update is tens of kilobytes at most (a message
# of 4096 characters with its entities and the message it replies to) and about ten levels
# deep; a body far past either is refused with 400 before the parser sees it, so a sender
# with the secret (or a leaked one) cannot make the parser recurse until it fails, nor fill
# memory.
BODY_MAX = 256 << 10
DEPTH_MAX = 64
# A string, possessively, its end optional: an unterminated one runs to the end of the body
# in one match, so no body makes the scan go over it more than once.
_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"?')
_OPENS = {ord("["): 1, ord("{"): 1, ord("]"): -1, ord("}"): -1}
_NOT_BRACKETS = bytes(b for b in range(256) if b not in _OPENS)


async def _body(request: web.Request) -> bytes | None:
    """The request's body, or None if it is longer than :data:`BODY_MAX` (read no further)."""
    if request.content_length is not None and request.content_length > BODY_MAX:
        return None
    chunks: list[bytes] = []
    size = 0
    while chunk := await request.content.read(BODY_MAX + 1 - size):
        chunks.append(chunk)
        size += len(chunk)
        if size > BODY_MAX:
            return None
    return b"".join(chunks)


def too_deep(body: bytes) -> bool:
    """Whether the JSON ``body`` nests arrays and objects deeper than :data:`DEPTH_MAX`,
    told from its brackets outside strings, without parsing it."""
    brackets = _STRING.sub(b"", body).translate(None, _NOT_BRACKETS)
    if len(brackets) <= DEPTH_MAX:
        return False
    return max(itertools.accumulate(map(_OPENS.__getitem__, brackets))) > DEPTH_MAX


def build_app(
    settings: Settings, dispatcher: Dispatcher, bot: Bot, miniapp: MiniApp | None = None
) -> web.Application:
    """The aiohttp application: the webhook route, the Dispatcher's start-up and shutdown.

    The chats' queues are drained before the Dispatcher's shutdown (which closes Redis and
    waits for updates in flight), so late replies still go out.
    """
    if settings.webhook_secret is None:
        raise ValueError("webhook mode needs WEBHOOK_SECRET")
    secret = settings.webhook_secret.get_secret_value().encode()
    store: Store = dispatcher.workflow_data["store"]
    delivery = Delivery(dispatcher, bot, store, take_over=False)
    app = web.Application()
    app[DELIVERY_KEY] = delivery

    async def receive(request: web.Request) -> web.Response:
        given = request.headers.get(SECRET_HEADER, "").encode()
        if not hmac.compare_digest(given, secret):
            return web.Response(status=401, text="Unauthorized")
        body = await _body(request)
        if body is None:
            return web.Response(status=400, text="Bad Request: body too large")
        if too_deep(body):
            return web.Response(status=400, text="Bad Request: nested too deep")
        try:
            raw: Any = json.loads(body)
            update = Update.model_validate(raw, context={"bot": bot})
        except (ValueError, ValidationError, RecursionError):
            return web.Response(status=400, text="Bad Request: not an Update")
        try:
            await delivery.receive_or_hold([raw], [update])
        except REDIS_ERRORS as error:
            metrics.redis_error("webhook")
            log.warning("update %s not taken, Redis away: %s", raw.get("update_id"), error)
            return web.Response(status=503, text="Service Unavailable")
        return web.Response(status=200, text="ok")

    app.router.add_post(settings.listen_path, receive)
    if miniapp is not None:  # the Mini App sheet shares the webhook's server (bot/miniapp/)
        miniapp.use(delivery)
        miniapp.add_routes(app, settings.miniapp_path)

        async def close_miniapp(_: web.Application) -> None:
            await miniapp.close()

        app.on_shutdown.append(close_miniapp)
    # /livez and /readyz where a load balancer in front of the webhook looks (bot/metrics.py).
    metrics.add_probes(app, with_health=False)

    async def start_delivery(_: web.Application) -> None:
        app[TASKS_KEY] = [asyncio.create_task(delivery.recover_forever())]

    async def stop_delivery(_: web.Application) -> None:
        delivery.stop()
        for task in app[TASKS_KEY]:
            task.cancel()
        await asyncio.gather(*app[TASKS_KEY], return_exceptions=True)
        left = await delivery.drain(SHUTDOWN_GRACE)
        if left:
            log.warning("%d chat(s) still busy at shutdown: left in the inbox", left)

    async def register_webhook() -> None:
        await bot.set_webhook(
            url=settings.webhook_url or "",
            secret_token=settings.webhook_secret.get_secret_value()
            if settings.webhook_secret
            else None,
            allowed_updates=dispatcher.resolve_used_update_types(),
        )

    app.on_shutdown.append(stop_delivery)
    setup_application(app, dispatcher, bot=bot)
    # The inbox is run only after the Dispatcher's start-up, which brings the data to this
    # release's layout (table/store/legacy.py): nothing reads or writes a chat mid-move.
    app.on_startup.append(start_delivery)
    # Telegram is told the URL only once the port listens (serve): told earlier, it would
    # try the first update against a closed port and then back off before trying again.
    app[REGISTER_KEY] = register_webhook
    return app


async def serve(
    settings: Settings, dispatcher: Dispatcher, bot: Bot, miniapp: MiniApp | None = None
) -> None:
    """Serve until SIGTERM or SIGINT, then shut down gracefully."""
    app = build_app(settings, dispatcher, bot, miniapp)
    runner = web.AppRunner(app, handle_signals=False)
    await runner.setup()
    site = web.TCPSite(runner, settings.webhook_host, settings.webhook_port)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    try:
        await site.start()
        await app[REGISTER_KEY]()
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
        await bot.session.close()
