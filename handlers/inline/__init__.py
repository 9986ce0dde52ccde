"""Inline mode: ``@bot 7 6`` in any chat, the roll offered with its odds and rolled by its
sender's press, once (README "Inline mode")."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import Feature, HelpLine, HelpSection, MenuCommand
from handlers.inline import view
from handlers.inline.router import make_router

FEATURE = Feature(
    name="inline",
    make_router=make_router,
    commands=(MenuCommand("inline", __("Roll from any chat: @bot 7 6"), rank=165),),
    help=(HelpLine(HelpSection.ROLLS, view.help_line),),
)
