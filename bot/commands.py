"""The command menu Telegram shows when a player types ``/`` (setMyCommands).

One list per language from the catalogues: the default scope without a language code is
English (what any client not speaking Russian sees), and ``language_code="ru"`` is Russian.
"""

from __future__ import annotations

from aiogram import Bot
from aiogram.types import BotCommand
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import lazy_gettext as __
from babel.support import LazyProxy

COMMANDS: tuple[tuple[str, LazyProxy], ...] = (
    ("r", __("Roll dice: /r 7 6")),
    ("prob", __("Chances of a roll: /prob 7 6")),
    ("ext", __("Extended roll: /ext 7 6 10")),
    ("vs", __("Opposed roll: reply with /vs 6 7")),
    ("team", __("Teamwork: /team 7 6")),
    ("multi", __("Several actions: /multi 6 7 7")),
    ("set", __("Set your sheet's traits: /set dexterity 3")),
    ("sheet", __("Your character sheet")),
    ("ask", __("Ask the table for a roll (Storyteller): /ask perc+alert 8")),
    ("rules", __("The game's rules (admins)")),
    ("lang", __("Language of this chat")),
    ("st", __("The Storyteller's role")),
    ("h", __("Hidden roll (Storyteller): /h 7 6")),
    ("reveal", __("Reveal a hidden roll")),
    ("log", __("Recent rolls")),
    ("stats", __("Dice statistics and fairness")),
    ("help", __("How to use the bot")),
)

# Telegram language code → our locale; None is the default scope for every other language.
MENUS: tuple[tuple[str | None, str], ...] = ((None, "en"), ("ru", "ru"))


def command_list(i18n: I18n, locale: str) -> list[BotCommand]:
    with i18n.context(), i18n.use_locale(locale):
        return [BotCommand(command=name, description=str(text)) for name, text in COMMANDS]


async def set_commands(bot: Bot, i18n: I18n) -> None:
    for language_code, locale in MENUS:
        await bot.set_my_commands(command_list(i18n, locale), language_code=language_code)
