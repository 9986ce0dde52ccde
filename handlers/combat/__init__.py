"""The d10 fight, one feature: ``/init`` and the round tracker (docs/rules.md §B.1–§B.2),
``/atk`` and the attack panel (§B.3–§B.10), ``/dmg``, ``/heal`` and ``/hp`` (§B.9–§B.12),
``/ambush`` before the fight (§B.7).

The three parts call each other directly (ARCHITECTURE.md "Combat"): the tracker's «Атака»
opens the panel (``attack.router.open_panel``), and a wound or an attack takes the tracker's
step with its own (``tracker.steps``). Their buttons run on bot/runner.py, each part's step
in its ``tap.py``.
"""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.combat import ATTACK, TRACKER
from bot.features import D10_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from bot.miniapp.handoffs import REFRESH_LIVE
from handlers.combat.ambush import view as ambush_view
from handlers.combat.attack import view as attack_view
from handlers.combat.attack.callbacks import AtkCallback
from handlers.combat.health import view as health_view
from handlers.combat.router import make_router
from handlers.combat.tracker import steps as tracker_steps
from handlers.combat.tracker import view as tracker_view
from handlers.combat.tracker.callbacks import InitCallback

FEATURE = Feature(
    name="combat",
    make_router=make_router,
    commands=(
        MenuCommand("init", __("Initiative and the round tracker"), rank=83, systems=D10_ONLY),
        MenuCommand(
            "atk", __("Attack on the panel: manoeuvre, target, dice"), rank=84, systems=D10_ONLY
        ),
        MenuCommand("dmg", __("Damage your character: /dmg 3 l"), rank=85, systems=D10_ONLY),
        MenuCommand("hp", __("Health levels and wound penalty"), rank=86, systems=D10_ONLY),
    ),
    help=(
        HelpLine(HelpSection.COMBAT, tracker_view.help_line, D10_ONLY),
        HelpLine(HelpSection.COMBAT, attack_view.help_line, D10_ONLY),
        HelpLine(HelpSection.COMBAT, health_view.help_line, D10_ONLY),
        HelpLine(HelpSection.COMBAT, ambush_view.help_line, D10_ONLY),
    ),
    # «Атака» opens the panel from the participants' sheets, and a wound landed shows on the
    # tracker too, read in the tap's first round-trip (docs/product.md §5: ≤ 3 round-trips).
    reads_ahead={
        InitCallback.__prefix__: (TRACKER, ATTACK),
        AtkCallback.__prefix__: (TRACKER,),
    },
    # The Mini App sheet changed health: the tracker shows it at once.
    provides={REFRESH_LIVE: tracker_steps.refresh},
)
