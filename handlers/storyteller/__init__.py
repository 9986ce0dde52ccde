"""``/st``: who runs the game in this chat (docs/product.md §2 "The Storyteller")."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import D6_ONLY, D10_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from handlers.storyteller import view
from handlers.storyteller.router import make_router

FEATURE = Feature(
    name="storyteller",
    make_router=make_router,
    commands=(
        MenuCommand("st", __("The Storyteller's role"), rank=120, systems=D10_ONLY),
        MenuCommand("st", __("The GM's role"), rank=120, systems=D6_ONLY),
    ),
    help=(HelpLine(HelpSection.STORYTELLER, view.help_line),),
)
