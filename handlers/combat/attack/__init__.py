"""``/atk``: an attack played out on the chat's attack panel (docs/rules.md §B.3–§B.10)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.combat import OPEN_ATTACK, TRACKER
from bot.features import D10_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from handlers.combat.attack import view
from handlers.combat.attack.callbacks import AtkCallback
from handlers.combat.attack.router import make_router, open_panel

FEATURE = Feature(
    name="attack",
    make_router=make_router,
    commands=(MenuCommand("atk", __("Attack on the panel: manoeuvre, target, dice"), rank=84),),
    help=(HelpLine(HelpSection.COMBAT, view.help_line, D10_ONLY),),
    provides={OPEN_ATTACK: open_panel},
    # A wound landed shows on the tracker too: its health step reads no sheet again.
    reads_ahead={AtkCallback.__prefix__: (TRACKER,)},
)
