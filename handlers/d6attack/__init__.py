"""``/atk`` in a d6 chat: attack, defence, armour and the gain (RULES.md §D.9–§D.11)."""

from __future__ import annotations

from bot.features import D6_ONLY, Feature, HelpLine, HelpSection
from handlers.d6attack import view
from handlers.d6attack.router import make_router

FEATURE = Feature(
    name="d6attack",
    make_router=make_router,
    help=(HelpLine(HelpSection.COMBAT, view.help_line, D6_ONLY),),
)
