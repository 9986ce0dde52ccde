"""The command menu Telegram shows when a player types ``/`` (setMyCommands).

The features declare their commands (:class:`bot.features.MenuCommand`); this publishes one
list per language from the catalogues: the default scope without a language code is English
(what any client not speaking Russian sees), and ``language_code="ru"`` is Russian.

That menu is one for every chat, in the default game's words. A chat that switches to another
game (``/rules``) gets a menu of its own in the chat's scope (BotCommandScopeChat, both
languages again): only that game's commands, in its words (the d6 game's GM, its chance;
no magick in Dark Ages, no blood in Mage). Back
on the default game, the chat's own menu is deleted and the common one shows again.
"""

from __future__ import annotations

import logging

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.types import BotCommandScopeChat
from aiogram.utils.i18n import I18n

from bot.features import FeatureSet
from bot.session import flood_budget
from rules import profiles

log = logging.getLogger(__name__)

# Telegram language code → our locale; None is the default scope for every other language.
MENUS: tuple[tuple[str | None, str], ...] = ((None, "en"), ("ru", "ru"))
# How long a chat's menu may wait out Telegram's flood control: the game is switched and
# answered already, and a menu a minute late is not worth holding the chat's next updates.
MENU_FLOOD_WAIT = 5.0


async def set_commands(bot: Bot, i18n: I18n, features: FeatureSet) -> None:
    for language_code, locale in MENUS:
        await bot.set_my_commands(features.menu(i18n, locale), language_code=language_code)


async def set_game_commands(
    bot: Bot, i18n: I18n, features: FeatureSet, chat_id: int, game: str
) -> bool:
    """Give the chat the menu of ``game`` (a profile name), or none of its own for the
    default game; False if Telegram refused, which is logged and otherwise left alone: the
    chat keeps the menu it had, and the game switch stands."""
    scope = BotCommandScopeChat(chat_id=chat_id)
    profile = None if game == profiles.DEFAULT else profiles.get(game)
    try:
        with flood_budget(MENU_FLOOD_WAIT):
            for language_code, locale in MENUS:
                if profile is None:
                    await bot.delete_my_commands(scope=scope, language_code=language_code)
                else:
                    menu = features.menu(i18n, locale, profile)
                    await bot.set_my_commands(menu, scope=scope, language_code=language_code)
    except TelegramAPIError as error:
        log.warning("could not set the command menu of chat %s for %s: %s", chat_id, game, error)
        return False
    return True
