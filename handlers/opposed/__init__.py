"""``/vs``: an opposed roll between two players or a player and an NPC (docs/rules.md §A.12)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import D10_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from bot.wizard import target_key
from handlers.opposed import handoffs, view
from handlers.opposed.router import make_router

FEATURE = Feature(
    name="opposed",
    make_router=make_router,
    commands=(
        MenuCommand("vs", __("Opposed roll: reply with /vs 6 7"), rank=40, systems=D10_ONLY),
    ),
    help=(HelpLine(HelpSection.TABLE, view.help_line, D10_ONLY),),
    provides={target_key(handoffs.WIZARD_TARGET.name): handoffs.WIZARD_TARGET},
)
