"""What ``python -m bot`` runs once its settings passed (bot/__main__.py): long polling, or a
webhook server when WEBHOOK_URL is set, and the one line and exit code for whatever start-up
cannot get past (README "Exit codes"): a token Telegram refuses, a password Redis refuses or
wants, a port taken, a wrong setting (2); a Bot API server that stays unreachable, or
answers with a proxy's error or an HTML page, through the session's retries (3, for a
supervisor to try again later).

Here the heavy imports (aiogram, the features, Redis) happen: bot/__main__.py imports this
module only after the settings are known good, so a typo is answered at once.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import logging
import signal
from urllib.parse import parse_qs, urlsplit

from aiogram import Bot, Dispatcher
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramServerError,
    TelegramUnauthorizedError,
)
from redis.exceptions import AuthenticationError as RedisAuthenticationError

from bot import metrics
from bot.app import SHUTDOWN_GRACE, create_dispatcher, make_bot
from bot.delivery import Delivery
from bot.i18n import LOCALES_DIR, load_i18n
from bot.miniapp import server as miniapp_server
from bot.miniapp.server import MiniApp
from bot.session import UnreadableRefusal, make_session
from bot.settings import EXIT_BAD_SETTINGS, EXIT_UNREACHABLE, Settings
from bot.webhook import serve
from table.store import Store
from table.store.legacy import LayoutTooNew

log = logging.getLogger("bot")


def startup_failure(error: BaseException, settings: Settings) -> tuple[int, str] | None:
    """The exit code and the one line for an error start-up cannot get past, or None for
    a bug (which keeps its traceback)."""
    if isinstance(error, TelegramUnauthorizedError | TelegramNotFound):
        return EXIT_BAD_SETTINGS, (
            f"Telegram refused BOT_TOKEN ({_said(error.message, type(error).__name__)}): "
            "check the token @BotFather gave you"
        )
    if isinstance(error, ClientDecodeError | UnreadableRefusal):
        # No Bot API answers this way: the URL is wrong, or a proxy refused (401, 404…); a
        # proxy's 5xx page is Telegram away for now (bot/session.py), below.
        said = str(error.data) if isinstance(error, ClientDecodeError) else error.message
        return EXIT_BAD_SETTINGS, (
            f"{settings.telegram_api_url} does not answer like a Bot API server "
            f"({_said(said, 'an empty answer')}): check TELEGRAM_API_URL and BOT_TOKEN"
        )
    if isinstance(error, LayoutTooNew):  # a rollback past an upgrade (README "Upgrading")
        return EXIT_BAD_SETTINGS, str(error)
    if isinstance(error, RedisAuthenticationError):
        return EXIT_BAD_SETTINGS, redis_refusal(error, settings.redis_url)
    if isinstance(error, OSError) and error.errno in (errno.EADDRINUSE, errno.EADDRNOTAVAIL):
        return EXIT_BAD_SETTINGS, f"cannot listen: {error}"
    if isinstance(error, TelegramNetworkError | TelegramServerError):
        return EXIT_UNREACHABLE, (
            f"the Bot API at {settings.telegram_api_url} is unreachable "
            f"(gave up after retries): {_said(error.message, type(error).__name__)}"
        )
    return None


def redis_refusal(error: RedisAuthenticationError, url: str | None) -> str:
    """Why Redis would not let us in, told by what REDIS_URL gave: a server that wants a
    password the URL does not give, one that has none but is given one, or one that refuses
    the credentials given (only then are they "refused")."""
    parts = urlsplit(url or "")
    given = bool(parts.password or parts.username or parse_qs(parts.query).get("password"))
    said = str(error).lower()
    if not given:
        return (
            "Redis asks for a password and REDIS_URL gives none: put it in the URL, "
            "redis://:PASSWORD@host:6379/0 (or redis://USER:PASSWORD@… for an ACL user)"
        )
    if "without any password configured" in said or "no password is set" in said:
        return (
            "Redis has no password set, yet REDIS_URL gives one: take it out of the URL "
            "(or set the password on the server)"
        )
    return f"Redis refused the credentials in REDIS_URL: {_said(str(error), 'no reason given')}"


def _said(text: str | None, otherwise: str) -> str:
    """What the other side said, on one line and short, or ``otherwise`` if nothing."""
    line = " ".join((text or "").split())
    return (line[:117] + "...") if len(line) > 120 else (line or otherwise)


async def run(settings: Settings) -> None:
    """Build everything from the settings and run until a signal asks us to stop."""
    token = settings.bot_token.get_secret_value() if settings.bot_token else ""
    store = Store.from_url(settings.redis_url)
    i18n = load_i18n(LOCALES_DIR, settings.default_locale)
    dispatcher = create_dispatcher(settings, store, i18n)
    # Everything built so far (routers, catalogues, pydantic models) lives as long as the
    # process; freezing it keeps full collections from walking it and pausing the bot for
    # hundreds of milliseconds mid-roll (bench/e2e.py measured p99 pauses of 140-400 ms).
    # The collector was off since bot/__main__.py began importing (start-up only makes
    # what lives on: collecting meanwhile was a sixth of its CPU); it is on again from here.
    gc.collect()
    gc.freeze()
    gc.enable()
    bot = make_bot(token, make_session(settings, store))
    try:
        miniapp = miniapp_server.build(settings, dispatcher, bot)
        async with metrics.serving(settings, store, bot):
            if settings.webhook_url:
                await serve(settings, dispatcher, bot, miniapp)
            else:
                async with miniapp_server.serving(settings, miniapp):
                    await poll(dispatcher, bot, store, miniapp)
    except Exception:
        # Start-up failed (a clean stop closes Redis in the Dispatcher's shutdown).
        with contextlib.suppress(Exception):
            await store.close()
        raise
    finally:
        await bot.session.close()


async def poll(
    dispatcher: Dispatcher, bot: Bot, store: Store, miniapp: MiniApp | None = None
) -> None:
    """Long polling through bot/delivery.py (an update is confirmed only once it is in the
    inbox; a chat's updates in order, chats side by side) until SIGTERM or SIGINT; what is
    left unfinished stays in the inbox for the next start."""
    delivery = Delivery(dispatcher, bot, store, take_over=True)
    if miniapp is not None:  # the page's rolls join the same queues (bot/miniapp/)
        miniapp.use(delivery)
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    for sig in (signal.SIGTERM, signal.SIGINT):
        loop.add_signal_handler(sig, stop.set)
    workflow = {**dispatcher.workflow_data, "dispatcher": dispatcher, "bot": bot}
    try:
        await dispatcher.emit_startup(**workflow)
    except BaseException:
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        raise
    tasks = [
        asyncio.create_task(delivery.poll(dispatcher.resolve_used_update_types())),
        asyncio.create_task(delivery.recover_forever()),
    ]
    try:
        await stop.wait()
        log.info("stop requested")
    finally:
        delivery.stop()
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        left = await delivery.drain(SHUTDOWN_GRACE)
        if left:
            log.warning("%d chat(s) still busy at shutdown: left in the inbox", left)
        for sig in (signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)
        await dispatcher.emit_shutdown(**workflow)
        await bot.session.close()
