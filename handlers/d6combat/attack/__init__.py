"""``/atk`` in a d6 chat: attack, defence, armour and the gain (docs/rules.md §D.9–§D.11)."""

from __future__ import annotations

from bot.combat import D6_OPEN_ATTACK, D6_TRACKER
from bot.features import D6_ONLY, Feature, HelpLine, HelpSection
from handlers.d6combat.attack import view
from handlers.d6combat.attack.callbacks import D6AttackCallback
from handlers.d6combat.attack.router import make_router, open_from_tracker

FEATURE = Feature(
    name="d6attack",
    make_router=make_router,
    help=(HelpLine(HelpSection.COMBAT, view.help_line, D6_ONLY),),
    provides={D6_OPEN_ATTACK: open_from_tracker},
    # A defence sets aside a die on the tracker in the same step (docs/product.md).
    reads_ahead={D6AttackCallback.__prefix__: (D6_TRACKER,)},
)
