"""``/dmg``, ``/heal`` and ``/hp`` in a d6 chat: physical and mental wounds on the sheet
(docs/rules.md §D.1–§D.2), the difficulties every later chance counts."""

from __future__ import annotations

from bot.features import D6_ONLY, Feature, HelpLine, HelpSection
from handlers.d6combat.wounds import view
from handlers.d6combat.wounds.router import make_router

FEATURE = Feature(
    name="d6wounds",
    make_router=make_router,
    help=(HelpLine(HelpSection.COMBAT, view.help_line, D6_ONLY),),
)
