"""``/vs`` in a d6 chat: contests of two or more sides (docs/rules.md §D.5)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import D6_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from handlers.d6contest import view
from handlers.d6contest.router import make_router

FEATURE = Feature(
    name="d6contest",
    make_router=make_router,
    commands=(MenuCommand("vs", __("A contest: /vs 4"), rank=40, systems=D6_ONLY),),
    help=(HelpLine(HelpSection.TABLE, view.help_line, D6_ONLY),),
)
