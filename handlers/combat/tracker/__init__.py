"""``/init``: initiative and the round tracker, one live message per chat
(docs/rules.md §B.1–§B.2)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.combat import (
    AFTER_ATTACK,
    ATTACK,
    CURRENT_ROUND,
    REFRESH_TRACKER,
    STUN_TRACKER,
    TRACKER,
    TRACKER_HEALTH,
)
from bot.features import D10_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from handlers.combat.tracker import view
from handlers.combat.tracker.callbacks import InitCallback
from handlers.combat.tracker.router import (
    after_attack,
    current_round,
    health_step,
    make_router,
    refresh,
    stun_fighter,
)

FEATURE = Feature(
    name="initiative",
    make_router=make_router,
    commands=(MenuCommand("init", __("Initiative and the round tracker"), rank=83),),
    help=(HelpLine(HelpSection.COMBAT, view.help_line, D10_ONLY),),
    provides={
        REFRESH_TRACKER: refresh,
        CURRENT_ROUND: current_round,
        TRACKER_HEALTH: health_step,
        AFTER_ATTACK: after_attack,
        STUN_TRACKER: stun_fighter,
    },
    # «Атака» opens the panel from the participants' sheets (docs/product.md §5: ≤ 3 round-trips).
    reads_ahead={InitCallback.__prefix__: (TRACKER, ATTACK)},
)
