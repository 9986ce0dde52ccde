"""``python -m bot``: long polling, or a webhook server when WEBHOOK_URL is set.

A wrong or missing setting ends the process before anything starts, with one line on stderr
and exit code 2, so a mistake in ``.env`` reads like a sentence and not like a traceback. The
same holds for what only start-up can find out (README "Exit codes"): a token Telegram
refuses or a password Redis refuses is a wrong setting (2); a Bot API server that stays
unreachable through the session's retries is 3, for a supervisor to try again later. With
LOG_LEVEL=DEBUG the traceback is logged before that line.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import gc
import importlib
import logging
import signal
import sys
from typing import NoReturn

from aiogram import Bot, Dispatcher
from aiogram.exceptions import (
    ClientDecodeError,
    TelegramNetworkError,
    TelegramNotFound,
    TelegramServerError,
    TelegramUnauthorizedError,
)
from pydantic import ValidationError
from redis.exceptions import AuthenticationError as RedisAuthenticationError

from bot import metrics
from bot.app import SHUTDOWN_GRACE, create_dispatcher, make_bot
from bot.delivery import Delivery
from bot.i18n import LOCALES_DIR, load_i18n
from bot.session import UnreadableRefusal, make_session
from bot.settings import Settings, describe_error
from bot.store import Store
from bot.webhook import serve

log = logging.getLogger("bot")

EXIT_BAD_SETTINGS = 2  # a setting is missing or wrong, or Telegram or Redis refused it
EXIT_UNREACHABLE = 3  # the Bot API server did not answer at start-up, retries included


def load_settings() -> Settings:
    """The settings, or exit 2 with one line naming what is wrong."""
    try:
        settings = Settings()
    except ValidationError as error:
        fail(describe_error(error))
    if settings.bot_token is None:
        fail("invalid settings: BOT_TOKEN is required (ask @BotFather for one)")
    return settings


def fail(message: str, code: int = EXIT_BAD_SETTINGS) -> NoReturn:
    print(f"bot: {message}", file=sys.stderr)  # noqa: T201 - the command line's own answer
    raise SystemExit(code)


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
        # proxy's 5xx page is Telegram away (bot/session.py), below.
        said = str(error.data) if isinstance(error, ClientDecodeError) else error.message
        return EXIT_BAD_SETTINGS, (
            f"{settings.telegram_api_url} does not answer like a Bot API server "
            f"({_said(said, 'an empty answer')}): check TELEGRAM_API_URL and BOT_TOKEN"
        )
    if isinstance(error, RedisAuthenticationError):
        return EXIT_BAD_SETTINGS, f"Redis refused the credentials in REDIS_URL: {error}"
    if isinstance(error, OSError) and error.errno in (errno.EADDRINUSE, errno.EADDRNOTAVAIL):
        return EXIT_BAD_SETTINGS, f"cannot listen: {error}"
    if isinstance(error, TelegramNetworkError | TelegramServerError):
        return EXIT_UNREACHABLE, (
            f"the Bot API at {settings.telegram_api_url} is unreachable "
            f"(gave up after retries): {_said(error.message, type(error).__name__)}"
        )
    return None


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
    gc.collect()
    gc.freeze()
    bot = make_bot(token, make_session(settings, store))
    try:
        async with metrics.serving(settings):
            if settings.webhook_url:
                await serve(settings, dispatcher, bot)
            else:
                await poll(dispatcher, bot, store)
    except Exception:
        # Start-up failed (a clean stop closes Redis in the Dispatcher's shutdown).
        with contextlib.suppress(Exception):
            await store.close()
        raise
    finally:
        await bot.session.close()


async def poll(dispatcher: Dispatcher, bot: Bot, store: Store) -> None:
    """Long polling through bot/delivery.py (an update is confirmed only once it is in the
    inbox; a chat's updates in order, chats side by side) until SIGTERM or SIGINT; what is
    left unfinished stays in the inbox for the next start."""
    delivery = Delivery(dispatcher, bot, store, take_over=True)
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


def run_playground(args: list[str]) -> int:
    """``python -m bot playground`` (docs/product.md §4) lives in its own module,
    ``bot.playground``."""
    try:
        playground = importlib.import_module("bot.playground")
    except ModuleNotFoundError as error:
        if error.name not in ("bot.playground", "localapi", "localapi.playground"):
            raise
        fail("the playground is not part of this build")
    return int(playground.main(args))


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if args[:1] == ["playground"]:
        return run_playground(args[1:])
    if args:
        fail(f"unknown arguments: {' '.join(args)} (usage: python -m bot [playground])")
    settings = load_settings()
    logging.basicConfig(
        level=settings.log_level,
        format="%(asctime)s %(levelname)s %(name)s: %(message)s",
    )
    try:
        asyncio.run(run(settings))
    except Exception as error:
        failure = startup_failure(error, settings)
        if failure is None:
            raise
        log.debug("start-up failed", exc_info=error)
        fail(failure[1], failure[0])
    return 0


if __name__ == "__main__":
    sys.exit(main())
