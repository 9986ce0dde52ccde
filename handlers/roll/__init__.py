"""``/r``: the roll, its wizard, «Ещё раз», «Продлить» and «Автоуспех» (docs/product.md §2)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import D10_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from handlers.roll import view
from handlers.roll.router import make_router

FEATURE = Feature(
    name="roll",
    make_router=make_router,
    commands=(MenuCommand("r", __("Roll dice: /r 7 6"), rank=10, systems=D10_ONLY),),
    help=(HelpLine(HelpSection.ROLLS, view.help_lines, D10_ONLY),),
)
