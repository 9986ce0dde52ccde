"""``/init`` in a d6 chat: the die-spending initiative and its round tracker, one live message
per chat (RULES.md §D.7–§D.9)."""

from __future__ import annotations

from bot.features import D6_ONLY, Feature, HelpLine, HelpSection
from handlers.d6init import view
from handlers.d6init.router import make_router

FEATURE = Feature(
    name="d6init",
    make_router=make_router,
    help=(HelpLine(HelpSection.COMBAT, view.help_line, D6_ONLY),),
)
