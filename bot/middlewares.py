"""What happens to every update before and after a handler: one straight road (STYLE.md).

Order on the ``update`` observer, outermost first (after aiogram's own user-context step):

1. :class:`InFlightMiddleware` — counts running updates so shutdown can wait for them;
2. :class:`ErrorMiddleware` — nothing a handler raises may stop polling or leave a player
   without an answer;
3. :class:`StateMiddleware` — drops a re-delivered update and loads the chat's settings in
   the same Redis round-trip, then hands handlers ``chat_settings``, ``profile`` and ``rng``;
4. :class:`bot.i18n.ChatLocaleMiddleware` — picks the language and sets ``locale``.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from aiogram import BaseMiddleware, Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import Chat, TelegramObject, Update, User
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _
from pydantic import ValidationError

from bot.i18n import choose_locale
from bot.session import tracking_answers
from bot.store import STORAGE_ERRORS, ChatSettings, Store, current_actor
from rules import profiles
from rules.dice import system_rng
from rules.errors import RulesInputError
from rules.profiles import Profile

log = logging.getLogger(__name__)

Handler = Callable[[TelegramObject, dict[str, Any]], Awaitable[Any]]


def apply_switches(profile: Profile, switches: dict[str, bool | int | str]) -> Profile:
    """The profile with the chat's house-rule switches, each validated on its own.

    A switch that no longer exists or has a value of the wrong type (a chat configured by an
    older version of the bot) is skipped and logged, never fatal: the table keeps playing by
    the profile's default for that rule. ``section.name`` reaches the nested §B/§C/§D options.
    """
    current = profile.model_dump()
    for key, value in switches.items():
        section, _, name = key.partition(".")
        if section == "name":
            continue
        candidate = {**current}
        if name:
            nested = candidate.get(section)
            if not isinstance(nested, dict):
                log.info("unknown switch %r ignored", key)
                continue
            candidate[section] = {**nested, name: value}
        elif section in current:
            candidate[section] = value
        else:
            log.info("unknown switch %r ignored", key)
            continue
        try:
            Profile.model_validate(candidate)
        except ValidationError:
            log.info("invalid switch %s=%r ignored", key, value)
            continue
        current = candidate
    return Profile.model_validate(current)


def chat_profile(chat_settings: ChatSettings) -> Profile:
    """The chat's profile by name (the default one if the name is unknown) with its switches."""
    try:
        base = profiles.get(chat_settings.profile)
    except RulesInputError:
        log.warning("unknown profile %r, using %s", chat_settings.profile, profiles.DEFAULT)
        base = profiles.get(profiles.DEFAULT)
    if not chat_settings.switches:
        return base
    return apply_switches(base, chat_settings.switches)


class InFlightMiddleware(BaseMiddleware):
    """Remembers the tasks handling updates, so a graceful stop can let them finish."""

    def __init__(self) -> None:
        self.tasks: set[asyncio.Task[Any]] = set()

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        task = asyncio.current_task()
        if task is None:  # pragma: no cover - always inside a task under asyncio
            return await handler(event, data)
        self.tasks.add(task)
        try:
            return await handler(event, data)
        finally:
            self.tasks.discard(task)

    async def drain(self, grace: float) -> int:
        """Wait up to ``grace`` seconds for running updates; return how many were left."""
        current = asyncio.current_task()
        pending = {t for t in self.tasks if t is not current and not t.done()}
        if not pending:
            return 0
        log.info("waiting for %d update(s) in flight", len(pending))
        _, still = await asyncio.wait(pending, timeout=grace)
        return len(still)


class StateMiddleware(BaseMiddleware):
    """De-duplication and the chat's settings in one round-trip; injects what handlers need."""

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        if not isinstance(event, Update):
            return await handler(event, data)
        store: Store = data["store"]
        bot: Bot = data["bot"]
        chat: Chat | None = data.get("event_chat")
        fresh, chat_settings = await store.take_update(
            bot.id, event.update_id, chat.id if chat is not None else None
        )
        if not fresh:
            log.info("update %d was already taken, skipped", event.update_id)
            return None
        data["chat_settings"] = chat_settings
        data["profile"] = chat_profile(chat_settings)
        data.setdefault("rng", system_rng())
        user: User | None = data.get("event_from_user")
        token = current_actor.set(user.id if user is not None else 0)
        try:
            return await handler(event, data)
        finally:
            current_actor.reset(token)


class ErrorMiddleware(BaseMiddleware):
    """Logs any failure with its update id and tells the player something short and useful.

    Redis down → "storage unavailable, try in a minute"; a :class:`RulesInputError` that no
    handler turned into a specific message → "that input is not valid"; anything else →
    "something went wrong". A callback query the handler did not answer is answered here (as
    an alert), so the button's spinner never hangs.
    """

    def __init__(self, i18n: I18n, default_locale: str) -> None:
        self.i18n = i18n
        self.default_locale = default_locale

    async def __call__(self, handler: Handler, event: TelegramObject, data: dict[str, Any]) -> Any:
        with tracking_answers() as answered:
            try:
                return await handler(event, data)
            except Exception as error:
                if not isinstance(event, Update):
                    raise
                await self._report(event, data, error, answered)
                return None

    def _locale(self, data: dict[str, Any]) -> str:
        locale = data.get("locale")
        if isinstance(locale, str):
            return locale
        user: User | None = data.get("event_from_user")
        return choose_locale(data.get("chat_settings"), user, self.default_locale)

    def _text(self, error: Exception, locale: str) -> str:
        with self.i18n.context(), self.i18n.use_locale(locale):
            if isinstance(error, STORAGE_ERRORS):
                return _(
                    "The dice table's memory is unavailable right now. "
                    "Please try again in a minute."
                )
            if isinstance(error, RulesInputError):
                return _("That input is not valid. Send /help to see examples.")
            return _("Something went wrong on our side. Please try again.")

    async def _report(
        self, update: Update, data: dict[str, Any], error: Exception, answered: set[str]
    ) -> None:
        if isinstance(error, STORAGE_ERRORS):
            log.error("update %d: storage unavailable: %s", update.update_id, error)
        elif isinstance(error, RulesInputError):
            log.warning("update %d: unhandled rules input error: %s", update.update_id, error)
        else:
            log.exception("update %d: handler failed", update.update_id, exc_info=error)
        text = self._text(error, self._locale(data))
        try:
            if update.callback_query is not None:
                if update.callback_query.id not in answered:
                    await update.callback_query.answer(text, show_alert=True)
            elif update.message is not None:
                await update.message.answer(text)
        except TelegramAPIError as reply_error:
            log.warning("update %d: could not tell the player: %s", update.update_id, reply_error)
