"""``/team``: several characters pool their successes (docs/rules.md §A.13)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import D10_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from bot.wizard import target_key
from handlers.teamwork import handoffs, view
from handlers.teamwork.router import make_router

FEATURE = Feature(
    name="teamwork",
    make_router=make_router,
    commands=(MenuCommand("team", __("Teamwork: /team 7 6"), rank=50, systems=D10_ONLY),),
    help=(HelpLine(HelpSection.TABLE, view.help_line, D10_ONLY),),
    provides={target_key(handoffs.WIZARD_TARGET.name): handoffs.WIZARD_TARGET},
)
