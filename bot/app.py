"""The Dispatcher and Bot factories: the one place where state, languages, middlewares, routers
and the one parse mode meet.

Nothing here lives at module level: every call builds a fresh Dispatcher, so tests and
several bots in one process never share a router or a middleware (as in aiogram's own
examples).
"""

from __future__ import annotations

import logging
from collections.abc import Sequence

from aiogram import Bot, Dispatcher, Router
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.base import BaseSession
from aiogram.enums import ParseMode
from aiogram.exceptions import TelegramAPIError
from aiogram.utils.i18n import I18n
from redis.exceptions import AuthenticationError, RedisError

from bot.commands import MenuUpkeep, set_commands
from bot.durability import check_durability
from bot.features import FeatureSet
from bot.i18n import ChatLocaleMiddleware
from bot.metrics import MetricsMiddleware
from bot.middlewares import ErrorMiddleware, InFlightMiddleware, StateMiddleware
from bot.routing import RoutedDispatcher
from bot.settings import Settings
from bot.store import Store

log = logging.getLogger(__name__)

IN_FLIGHT_KEY = "in_flight"
# How long a stop waits for updates already being handled (Docker's default kill is at 10 s).
SHUTDOWN_GRACE = 8.0


def make_bot(token: str, session: BaseSession | None = None) -> Bot:
    """The Bot every send and edit goes through, with HTML as its one parse mode.

    Every text the bot shows is HTML (the catalogues hold <b> and <code>), so no call picks
    its own mode and a view escapes what a player typed exactly once, where it draws it
    (bot/render.py); a name like «Том & Джерри <3>» then reads as typed everywhere.
    """
    return Bot(token, session=session, default=DefaultBotProperties(parse_mode=ParseMode.HTML))


def create_dispatcher(
    settings: Settings,
    store: Store,
    i18n: I18n,
    routers: Sequence[Router] | None = None,
    features: FeatureSet | None = None,
) -> Dispatcher:
    """A Dispatcher with the middleware chain of :mod:`bot.middlewares` and the features.

    ``store``, ``settings`` and ``features`` become workflow data for every handler (a
    feature reaches another only through ``features``, ARCHITECTURE.md). ``features``
    defaults to every feature of ``handlers.FEATURES``; ``routers``, when given, replaces
    their routers (tests that drive one router). A message is offered only to the routers
    that could take it (bot/routing.py). FSM is disabled: all state is in Redis, so
    any replica can handle any update (docs/product.md §3).
    """
    if features is None:
        from handlers import all_features  # the composition root is the one place that may

        features = all_features()
    dispatcher = RoutedDispatcher(
        disable_fsm=True, store=store, settings=settings, i18n=i18n, features=features
    )
    in_flight = InFlightMiddleware()
    dispatcher.update.outer_middleware(in_flight)
    dispatcher.update.outer_middleware(ErrorMiddleware(i18n, settings.default_locale))
    dispatcher.update.outer_middleware(MetricsMiddleware())
    dispatcher.update.outer_middleware(StateMiddleware())
    dispatcher.update.outer_middleware(ChatLocaleMiddleware(i18n))
    dispatcher.update.outer_middleware(MenuUpkeep(i18n))
    dispatcher[IN_FLIGHT_KEY] = in_flight
    dispatcher.include_routers(*(features.routers() if routers is None else routers))
    dispatcher.startup.register(on_startup)
    dispatcher.shutdown.register(on_shutdown)
    return dispatcher


async def on_startup(
    bot: Bot, settings: Settings, store: Store, i18n: I18n, features: FeatureSet
) -> None:
    """Check the token (getMe), publish the command menu, say in one line how we run.

    A Redis that is down at start-up is only a warning: the bot answers "storage
    unavailable" until it returns, and then recovers by itself. One that refuses the
    password in REDIS_URL will not change its mind: that stops start-up (bot/__main__.py).
    """
    me = await bot.me()
    if not settings.webhook_url:
        # A webhook left over from an earlier deployment would make getUpdates fail with 409.
        try:
            await bot.delete_webhook(drop_pending_updates=False)
        except TelegramAPIError as error:
            log.warning("could not remove an old webhook: %s", error)
    try:
        await set_commands(bot, i18n, features)
    except TelegramAPIError as error:
        log.warning("could not set the command menu: %s", error)
    try:
        await store.ping()
        await store.load_scripts()
        await store.migrate_layout()
        storage = "redis" if settings.redis_url else "in-process storage"
    except AuthenticationError:
        raise
    except RedisError as error:
        storage = f"redis (unreachable for now: {error})"
    if settings.redis_url:
        await check_durability(store.redis, settings.redis_appendfsync)
    mode = f"webhook {settings.webhook_url}" if settings.webhook_url else "long polling"
    log.info(
        "bot @%s (id %d) started: %s, %s, Bot API %s",
        me.username,
        me.id,
        mode,
        storage,
        settings.telegram_api_url,
    )


async def on_shutdown(dispatcher: Dispatcher, store: Store) -> None:
    """Let updates in flight finish (their replies still need the session), then close Redis."""
    in_flight: InFlightMiddleware = dispatcher[IN_FLIGHT_KEY]
    left = await in_flight.drain(SHUTDOWN_GRACE)
    if left:
        log.warning("%d update(s) still running at shutdown were abandoned", left)
    await store.close()
    log.info("stopped")
