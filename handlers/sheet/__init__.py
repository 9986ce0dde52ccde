"""``/set``, ``/sheet``, ``/npc``: character sheets, typed, pasted or on buttons
(docs/product.md §2)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import (
    D6_ONLY,
    D10_ONLY,
    DARK_AGES_ONLY,
    Feature,
    HelpLine,
    HelpSection,
    MenuCommand,
)
from handlers.sheet import view
from handlers.sheet.router import make_router

FEATURE = Feature(
    name="sheet",
    make_router=make_router,
    commands=(
        MenuCommand(
            "set", __("Set your sheet's traits: /set dexterity 3"), rank=70, systems=D10_ONLY
        ),
        MenuCommand("set", __("Set your sheet's powers: /set fire 2"), rank=70, systems=D6_ONLY),
        MenuCommand("sheet", __("Your character sheet"), rank=80),
        MenuCommand(
            "blood", __("Spend blood (Dark Ages): /blood 2"), rank=81, sheets=DARK_AGES_ONLY
        ),
    ),
    help=(HelpLine(HelpSection.SHEET, view.help_line),),
    help_topics={"sheet": view.help_section},
)
