"""``/multi``: several actions in one turn, their pools reduced (docs/rules.md §A.9)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import D10_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from bot.wizard import target_key
from handlers.multi import handoffs, view
from handlers.multi.router import make_router

FEATURE = Feature(
    name="multi",
    make_router=make_router,
    commands=(
        MenuCommand("multi", __("Several actions: /multi 6 7 7"), rank=60, systems=D10_ONLY),
    ),
    help=(HelpLine(HelpSection.TABLE, view.help_line, D10_ONLY),),
    provides={target_key(handoffs.WIZARD_TARGET.name): handoffs.WIZARD_TARGET},
)
