"""``/r`` in a d6 chat: the chance from a number or the sheet's powers, the wizard with live
odds, and the special effort (docs/rules.md §D.2–§D.4)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import D6_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from handlers.d6roll import view
from handlers.d6roll.router import make_router

FEATURE = Feature(
    name="d6roll",
    make_router=make_router,
    commands=(MenuCommand("r", __("Roll dice: /r 4"), rank=10, systems=D6_ONLY),),
    help=(HelpLine(HelpSection.ROLLS, view.help_lines, D6_ONLY),),
)
