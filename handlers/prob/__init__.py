"""``/prob``: the exact odds of a roll before anyone rolls (docs/product.md §2)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import D6_ONLY, D10_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from handlers.prob import view
from handlers.prob.router import make_router

FEATURE = Feature(
    name="prob",
    make_router=make_router,
    commands=(
        MenuCommand("prob", __("Chances of a roll: /prob 7 6"), rank=20, systems=D10_ONLY),
        MenuCommand("prob", __("Chances of a roll: /prob 4"), rank=20, systems=D6_ONLY),
    ),
    help=(HelpLine(HelpSection.ROLLS, view.help_line),),
)
