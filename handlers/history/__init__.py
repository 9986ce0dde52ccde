"""``/log`` and ``/stats``: the chat's recent rolls and the dice's fairness (docs/product.md §2)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import Feature, HelpLine, HelpSection, MenuCommand
from handlers.history import view
from handlers.history.router import make_router

FEATURE = Feature(
    name="history",
    make_router=make_router,
    commands=(
        MenuCommand("log", __("Recent rolls"), rank=150),
        MenuCommand("stats", __("Dice statistics and fairness"), rank=160),
    ),
    help=(HelpLine(HelpSection.STORYTELLER, view.help_line),),
)
