"""The command menu Telegram shows when a player types ``/`` (setMyCommands).

The features declare their commands (:class:`bot.features.MenuCommand`); this publishes one
list per language from the catalogues: the default scope without a language code is English
(what any client not speaking Russian sees), and ``language_code="ru"`` is Russian.

That menu is one for every chat, in the default game's words. A chat that switches to another
game (``/rules``) gets a menu of its own in the chat's scope (BotCommandScopeChat, both
languages again): only that game's commands, in its words (the d6 game's GM, its chance;
no magick in Dark Ages, no blood in Mage). Back
on the default game, the chat's own menu is deleted and the common one shows again.

A release may change a game's menu (a command added, reworded, or left out of a game), and
Telegram keeps the old one in every chat that chose its game before. So each chat's menu is
published with a mark of what it held (``sdb:menu:{CHAT}``: the game and a digest of both
languages' lists), and the first update a process sees from a chat on another game than
the default compares the mark with the menu this release would publish: a different one is
published again. One Redis read per such chat per process, none for the default game, no
scan of every chat at start-up.
"""

from __future__ import annotations

import hashlib
import json
import logging
from typing import Any

from aiogram import BaseMiddleware, Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import BotCommand, BotCommandScopeChat, Chat, TelegramObject
from aiogram.utils.i18n import I18n

from bot.features import FeatureSet
from bot.session import with_flood_budget
from rules import profiles
from table.store import ChatSettings, Store
from table.store.base import REDIS_ERRORS

log = logging.getLogger(__name__)

# Telegram language code → our locale; None is the default scope for every other language.
MENUS: tuple[tuple[str | None, str], ...] = ((None, "en"), ("ru", "ru"))
# How long a chat's menu may wait out Telegram's flood control: the game is switched and
# answered already, and a menu a minute late is not worth holding the chat's next updates.
MENU_FLOOD_WAIT = 5.0
# How many chats a process remembers having looked at the menu of (a few MB at most).
SEEN_CAP = 100_000


async def set_commands(bot: Bot, i18n: I18n, features: FeatureSet) -> None:
    for language_code, locale in MENUS:
        await bot.set_my_commands(features.menu(i18n, locale), language_code=language_code)


def game_menus(i18n: I18n, features: FeatureSet, game: str) -> list[list[BotCommand]] | None:
    """The menus of ``game`` in the order of :data:`MENUS`; None for the default game."""
    if game == profiles.DEFAULT:
        return None
    profile = profiles.get(game)
    return [features.menu(i18n, locale, profile) for _, locale in MENUS]


def menu_mark(game: str, menus: list[list[BotCommand]] | None) -> str | None:
    """What the chat's own menu holds, short: the game and a digest of its lists."""
    if menus is None:
        return None
    listed = [[(c.command, c.description) for c in menu] for menu in menus]
    digest = hashlib.sha256(json.dumps(listed, ensure_ascii=False).encode()).hexdigest()
    return f"{game}:{digest[:16]}"


async def set_game_commands(
    bot: Bot,
    i18n: I18n,
    features: FeatureSet,
    chat_id: int,
    game: str,
    store: Store | None = None,
) -> bool:
    """Give the chat the menu of ``game`` (a profile name), or none of its own for the
    default game, and remember its mark in ``store``; False if Telegram refused, which is
    logged and otherwise left alone: the chat keeps the menu it had, and the game switch
    stands (the next process to see the chat tries again)."""
    scope = BotCommandScopeChat(chat_id=chat_id)
    menus = game_menus(i18n, features, game)
    try:
        waiting = with_flood_budget(bot, MENU_FLOOD_WAIT)  # one budget for its calls
        for index, (language_code, _) in enumerate(MENUS):
            if menus is None:
                await waiting.delete_my_commands(scope=scope, language_code=language_code)
            else:
                await waiting.set_my_commands(
                    menus[index], scope=scope, language_code=language_code
                )
    except TelegramAPIError as error:
        log.warning("could not set the command menu of chat %s for %s: %s", chat_id, game, error)
        return False
    if store is not None:
        try:
            await store.set_menu_mark(chat_id, menu_mark(game, menus))
        except REDIS_ERRORS as error:  # published; the next process publishes it once more
            log.warning("could not remember the command menu of chat %s: %s", chat_id, error)
    return True


class MenuUpkeep(BaseMiddleware):
    """Publishes again the menu of a chat on another game whose menu this release changed
    (the module's docstring), once the update that finds it is answered. Each process looks
    at each chat once; a chat on the default game has no menu of its own to keep."""

    def __init__(self, i18n: I18n) -> None:
        self.i18n = i18n
        self.seen: set[int] = set()
        self.marks: dict[str, str | None] = {}

    async def __call__(self, handler: Any, event: TelegramObject, data: dict[str, Any]) -> Any:
        result = await handler(event, data)
        chat: Chat | None = data.get("event_chat")
        settings: ChatSettings | None = data.get("chat_settings")
        if chat is None or settings is None or chat.id in self.seen:
            return result
        if len(self.seen) >= SEEN_CAP:  # a long-lived process forgets, and looks once more
            self.seen.clear()
        self.seen.add(chat.id)
        if settings.profile != profiles.DEFAULT:
            await self.keep(data["bot"], data["store"], data["features"], chat.id)
        return result

    async def keep(self, bot: Bot, store: Store, features: FeatureSet, chat_id: int) -> None:
        try:
            game = (await store.load_chat(chat_id)).profile  # a /rules since the update began
            if game not in profiles.PROFILES:
                return
            if game not in self.marks:
                self.marks[game] = menu_mark(game, game_menus(self.i18n, features, game))
            if await store.menu_mark(chat_id) == self.marks[game]:
                return
        except REDIS_ERRORS as error:
            log.info("command menu of chat %s not checked: %s", chat_id, error)
            return
        await set_game_commands(bot, self.i18n, features, chat_id, game, store)
