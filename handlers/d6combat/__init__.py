"""The d6 game's fight, one feature: ``/init`` and the die-spending round tracker
(docs/rules.md §D.7–§D.9), ``/atk`` with defence, armour and the gain (§D.9–§D.11), and
``/dmg``, ``/heal``, ``/hp``: physical and mental wounds (§D.1–§D.2).

The parts call each other directly (ARCHITECTURE.md "Combat"): the tracker's «⚔️ Атака» rolls
through ``attack.router.attack_from_tracker``, and a defence takes the tracker's step
(``tracker.steps.defend_for_attack``) with its own. Their buttons run on bot/runner.py, each
part's step in its ``tap.py``.
"""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.combat import D6_TRACKER
from bot.features import D6_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from handlers.d6combat.attack import view as attack_view
from handlers.d6combat.attack.callbacks import D6AttackCallback
from handlers.d6combat.router import make_router
from handlers.d6combat.tracker import view as tracker_view
from handlers.d6combat.tracker.callbacks import D6InitCallback
from handlers.d6combat.wounds import view as wounds_view

FEATURE = Feature(
    name="d6combat",
    make_router=make_router,
    commands=(
        MenuCommand("init", __("Initiative and the round tracker"), rank=83, systems=D6_ONLY),
        MenuCommand("atk", __("Attack: /atk 4 in reply to the target"), rank=84, systems=D6_ONLY),
        MenuCommand("dmg", __("A wound on your sheet: /dmg 2 phys"), rank=85, systems=D6_ONLY),
        MenuCommand("hp", __("Your character's wounds"), rank=86, systems=D6_ONLY),
    ),
    help=(
        HelpLine(HelpSection.COMBAT, tracker_view.help_line, D6_ONLY),
        HelpLine(HelpSection.COMBAT, attack_view.help_line, D6_ONLY),
        HelpLine(HelpSection.COMBAT, wounds_view.help_line, D6_ONLY),
    ),
    # «⚔️ Атака» rolls from the attacker's sheet, and a defence sets aside a die on the
    # tracker, in the tap's first round-trip (docs/product.md).
    reads_ahead={
        D6InitCallback.__prefix__: (D6_TRACKER,),
        D6AttackCallback.__prefix__: (D6_TRACKER,),
    },
)
