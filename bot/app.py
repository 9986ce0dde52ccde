"""The Dispatcher and Bot factories: the one place where state, languages, middlewares, routers
and the one parse mode meet.

Nothing here lives at module level: every call builds a fresh Dispatcher, so tests and
several bots in one process never share a router or a middleware (as in aiogram's own
examples).
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Sequence
from typing import Any

from aiogram import BaseMiddleware, Bot, Dispatcher, Router
from aiogram.client.default import DefaultBotProperties
from aiogram.client.session.base import BaseSession
from aiogram.enums import ParseMode
from aiogram.exceptions import TelegramAPIError
from aiogram.types import TelegramObject
from aiogram.utils.i18n import I18n
from redis.exceptions import AuthenticationError, RedisError

from bot import fallback
from bot.commands import MenuUpkeep, set_commands
from bot.features import FeatureSet
from bot.i18n import ChatLocaleMiddleware
from bot.middlewares import ErrorMiddleware, InFlightMiddleware, MetricsMiddleware, StateMiddleware
from bot.routing import RoutedDispatcher
from bot.settings import Settings
from bot.version import version
from bot.watchers import AfterUpdateMiddleware
from table.durability import check_durability
from table.store import RedisUnavailable, Store, legacy

log = logging.getLogger(__name__)

IN_FLIGHT_KEY = "in_flight"
# How long a stop waits for updates already being handled (Docker's default kill is at 10 s).
SHUTDOWN_GRACE = 8.0
LAYOUT_GATE_KEY = "layout_gate"
_BACKGROUND: set[asyncio.Task[None]] = set()  # start-up's work left for when Redis answers


class LayoutGate(BaseMiddleware):
    """Holds every update back while the data's layout is not known to be this release's:
    Redis was away at start-up, so the data may still be in an older layout, and an update
    would read or write a chat mid-move (table/store/legacy.py). Held back as when Redis is
    away: the player is told the answer will come, and the update runs once the move is done.
    Open unless start-up closes it."""

    def __init__(self) -> None:
        self.open = True

    async def __call__(
        self,
        handler: Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]],
        event: TelegramObject,
        data: dict[str, Any],
    ) -> Any:
        if not self.open:
            raise RedisUnavailable("the data's layout is not checked yet")
        return await handler(event, data)

    async def open_when_migrated(self, store: Store) -> None:
        """Open once the data is in this release's layout, as soon as Redis answers; stay
        shut if a newer release wrote it (no update may touch that data)."""
        self.open = await legacy.migrate_when_reachable(store.redis)


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
    defaults to every feature of ``handlers.FEATURES``, whose routers come in order and then
    the fallback (bot/fallback.py); ``routers``, when given, replaces them all (tests that
    drive one router). A message is offered only to the routers
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
    gate = LayoutGate()
    dispatcher.update.outer_middleware(gate)
    dispatcher[LAYOUT_GATE_KEY] = gate
    dispatcher.update.outer_middleware(StateMiddleware())
    dispatcher.update.outer_middleware(ChatLocaleMiddleware(i18n))
    dispatcher.update.outer_middleware(MenuUpkeep(i18n))
    dispatcher.update.outer_middleware(AfterUpdateMiddleware(features.after_updates()))
    dispatcher[IN_FLIGHT_KEY] = in_flight
    dispatcher.include_routers(*(fallback.routers(features) if routers is None else routers))
    dispatcher.startup.register(on_startup)
    dispatcher.shutdown.register(on_shutdown)
    return dispatcher


async def on_startup(
    bot: Bot,
    settings: Settings,
    store: Store,
    i18n: I18n,
    features: FeatureSet,
    layout_gate: LayoutGate,
) -> None:
    """Check the token (getMe), publish the command menu, say in one line how we run.

    A Redis that is down at start-up is only a warning: the bot answers "storage
    unavailable" until it returns, and then recovers by itself. One that refuses the
    password in REDIS_URL will not change its mind: that stops start-up (bot/__main__.py).
    """
    me = await bot.me()
    # The rest at once: Telegram's calls and Redis's checks do not wait for each other (the
    # time to the first poll is a restart's time without answers, bench/startup.py).
    telegram = asyncio.create_task(_prepare_telegram(bot, settings, i18n, features))
    try:
        storage = await _check_storage(settings, store, layout_gate)
    except BaseException:
        telegram.cancel()
        await asyncio.gather(telegram, return_exceptions=True)
        raise
    await telegram
    mode = f"webhook {settings.webhook_url}" if settings.webhook_url else "long polling"
    log.info(
        "bot @%s (id %d) started: storyteller-dice-bot %s, %s, %s, Bot API %s",
        me.username,
        me.id,
        version(),
        mode,
        storage,
        settings.telegram_api_url,
    )


async def _prepare_telegram(bot: Bot, settings: Settings, i18n: I18n, features: FeatureSet) -> None:
    """No webhook left over in long polling, and the command menus published; a refusal
    of either is only a warning."""
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


async def _check_storage(settings: Settings, store: Store, layout_gate: LayoutGate) -> str:
    """Redis answers, its scripts are loaded and its layout is current: how it is, for the
    start-up line. A refused password stops start-up; Redis away does not."""
    try:
        await store.ping()
        await store.load_scripts()
        await store.migrate_layout()
    except AuthenticationError:
        raise
    except RedisError as error:
        # The data's layout is brought up to date as soon as Redis answers; no update runs
        # before that.
        layout_gate.open = False
        task = asyncio.create_task(layout_gate.open_when_migrated(store))
        _BACKGROUND.add(task)
        task.add_done_callback(_BACKGROUND.discard)
        return f"redis (unreachable for now: {error})"
    if settings.redis_url:
        await check_durability(store.redis, settings.redis_appendfsync)
    return "redis" if settings.redis_url else "in-process storage"


async def on_shutdown(dispatcher: Dispatcher, store: Store) -> None:
    """Let updates in flight finish (their replies still need the session), then close Redis."""
    for task in _BACKGROUND:
        task.cancel()
    in_flight: InFlightMiddleware = dispatcher[IN_FLIGHT_KEY]
    left = await in_flight.drain(SHUTDOWN_GRACE)
    if left:
        log.warning("%d update(s) still running at shutdown were abandoned", left)
    await store.close()
    log.info("stopped")
