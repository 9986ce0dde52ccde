"""``/dmg``, ``/heal``, ``/hp``: health levels and their wound penalty
(docs/rules.md §B.9–§B.12)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import D10_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from handlers.combat.health import view
from handlers.combat.health.router import make_router

FEATURE = Feature(
    name="health",
    make_router=make_router,
    commands=(
        MenuCommand("dmg", __("Damage your character: /dmg 3 l"), rank=85),
        MenuCommand("hp", __("Health levels and wound penalty"), rank=86),
    ),
    help=(HelpLine(HelpSection.COMBAT, view.help_line, D10_ONLY),),
)
