"""``/ext``: the extended action, one message edited in place (docs/rules.md §A.11)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import D10_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from bot.wizard import EXTEND_ROLL, target_key
from handlers.extended import handoffs, view
from handlers.extended.router import make_router

FEATURE = Feature(
    name="extended",
    make_router=make_router,
    commands=(MenuCommand("ext", __("Extended roll: /ext 7 6 10"), rank=30, systems=D10_ONLY),),
    help=(HelpLine(HelpSection.TABLE, view.help_line, D10_ONLY),),
    provides={
        target_key(handoffs.WIZARD_TARGET.name): handoffs.WIZARD_TARGET,
        EXTEND_ROLL: handoffs.from_roll,
    },
)
