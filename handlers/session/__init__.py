"""``/session start|end``: a session whose dice come from a committed seed (docs/product.md §2b)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import Feature, HelpLine, HelpSection, MenuCommand
from handlers.session import view
from handlers.session.router import make_router

FEATURE = Feature(
    name="session",
    make_router=make_router,
    commands=(MenuCommand("session", __("Start or end a session (provably fair dice)"), rank=162),),
    help=(HelpLine(HelpSection.STORYTELLER, view.help_line),),
)
