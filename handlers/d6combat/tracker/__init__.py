"""``/init`` in a d6 chat: the die-spending initiative and its round tracker, one live message
per chat (docs/rules.md §D.7–§D.9)."""

from __future__ import annotations

from bot.combat import D6_DEFEND
from bot.features import D6_ONLY, Feature, HelpLine, HelpSection
from handlers.d6combat.tracker import view
from handlers.d6combat.tracker.callbacks import D6InitCallback
from handlers.d6combat.tracker.flow import KIND
from handlers.d6combat.tracker.router import defend_for_attack, make_router

FEATURE = Feature(
    name="d6init",
    make_router=make_router,
    help=(HelpLine(HelpSection.COMBAT, view.help_line, D6_ONLY),),
    provides={D6_DEFEND: defend_for_attack},
    # «⚔️ Атака» rolls from the attacker's sheet in the tap's first round-trip (docs/product.md).
    reads_ahead={D6InitCallback.__prefix__: (KIND,)},
)
