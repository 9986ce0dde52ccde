"""``/h`` and ``/reveal``: the Storyteller's hidden rolls (docs/product.md §2)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import D6_ONLY, D10_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from bot.hidden_rolls import HIDDEN_ROLL
from handlers.hidden import handoffs, view
from handlers.hidden.router import make_router

FEATURE = Feature(
    name="hidden",
    make_router=make_router,
    commands=(
        MenuCommand("h", __("Hidden roll (Storyteller): /h 7 6"), rank=130, systems=D10_ONLY),
        MenuCommand("h", __("Hidden roll (GM): /h 4"), rank=130, systems=D6_ONLY),
        MenuCommand("reveal", __("Reveal a hidden roll"), rank=140),
    ),
    help=(HelpLine(HelpSection.STORYTELLER, view.help_line),),
    provides={HIDDEN_ROLL: handoffs.roll_for},
)
