"""``/ask``: the Storyteller asks the table for a roll from everyone's sheet
(docs/product.md §2)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import D10_ONLY, Feature, MenuCommand
from bot.roll_requests import ASK_ROLL
from handlers.requests import handoffs
from handlers.requests.router import make_router

FEATURE = Feature(
    name="requests",
    make_router=make_router,
    commands=(
        MenuCommand(
            "ask",
            __("Ask the table for a roll (Storyteller): /ask perc+alert 8"),
            rank=90,
            systems=D10_ONLY,
        ),
    ),
    provides={ASK_ROLL: handoffs.ask_player},
)
