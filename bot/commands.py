"""The command menu Telegram shows when a player types ``/`` (setMyCommands).

The features declare their commands (:class:`bot.features.MenuCommand`); this publishes one
list per language from the catalogues: the default scope without a language code is English
(what any client not speaking Russian sees), and ``language_code="ru"`` is Russian.
"""

from __future__ import annotations

from aiogram import Bot
from aiogram.utils.i18n import I18n

from bot.features import FeatureSet

# Telegram language code → our locale; None is the default scope for every other language.
MENUS: tuple[tuple[str | None, str], ...] = ((None, "en"), ("ru", "ru"))


async def set_commands(bot: Bot, i18n: I18n, features: FeatureSet) -> None:
    for language_code, locale in MENUS:
        await bot.set_my_commands(features.menu(i18n, locale), language_code=language_code)
