"""``python -m bot``: long polling, or a webhook server when WEBHOOK_URL is set.

A wrong or missing setting ends the process before anything starts, with one line on stderr
and exit code 2, so a mistake in ``.env`` reads like a sentence and not like a traceback.
"""

from __future__ import annotations

import asyncio
import gc
import importlib
import logging
import signal
import sys
from typing import NoReturn

from aiogram import Bot, Dispatcher
from pydantic import ValidationError

from bot.app import SHUTDOWN_GRACE, create_dispatcher
from bot.delivery import Delivery
from bot.i18n import LOCALES_DIR, load_i18n
from bot.session import make_session
from bot.settings import Settings, describe_error
from bot.store import Store
from bot.webhook import serve

log = logging.getLogger("bot")

EXIT_BAD_SETTINGS = 2


def load_settings() -> Settings:
    """The settings, or exit 2 with one line naming what is wrong."""
    try:
        settings = Settings()
    except ValidationError as error:
        fail(describe_error(error))
    if settings.bot_token is None:
        fail("invalid settings: BOT_TOKEN is required (ask @BotFather for one)")
    return settings


def fail(message: str) -> NoReturn:
    print(f"bot: {message}", file=sys.stderr)
    raise SystemExit(EXIT_BAD_SETTINGS)


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
    bot = Bot(token=token, session=make_session(settings, store))
    if settings.webhook_url:
        await serve(settings, dispatcher, bot)
        return
    await poll(dispatcher, bot, store)


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
    await dispatcher.emit_startup(**workflow)
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
    """``python -m bot playground`` (PRODUCT.md §4) lives in its own module, ``bot.playground``."""
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
    asyncio.run(run(settings))
    return 0


if __name__ == "__main__":
    sys.exit(main())
