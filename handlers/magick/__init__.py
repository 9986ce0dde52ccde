"""``/m``: an Effect cast in chat, with Quintessence, Paradox and Backlash (docs/rules.md §C)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import MAGE_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from handlers.magick import view
from handlers.magick.router import make_router

FEATURE = Feature(
    name="magick",
    make_router=make_router,
    commands=(
        MenuCommand("m", __("Magick: /m 3 vulgar q 1"), rank=87, sheets=MAGE_ONLY),
        MenuCommand(
            "sphere", __("The Spheres and what each level allows"), rank=88, sheets=MAGE_ONLY
        ),
        MenuCommand(
            "barrier", __("Cross the Barrier into the spirit worlds"), rank=89, sheets=MAGE_ONLY
        ),
    ),
    help=(HelpLine(HelpSection.COMBAT, view.help_line, sheets=MAGE_ONLY),),
)
