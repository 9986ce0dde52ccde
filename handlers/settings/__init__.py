"""``/lang`` and ``/rules``: the chat's language and game (docs/product.md §2)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import Feature, HelpLine, HelpSection, MenuCommand
from handlers.settings import view
from handlers.settings.router import make_router

FEATURE = Feature(
    name="settings",
    make_router=make_router,
    commands=(
        MenuCommand("rules", __("The game's rules (admins)"), rank=100),
        MenuCommand("lang", __("Language of this chat"), rank=110),
    ),
    help=(HelpLine(HelpSection.SETTINGS, view.help_lines),),
)
