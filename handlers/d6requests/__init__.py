"""``/ask`` in a d6 chat: the Storyteller's roll request of named powers (docs/rules.md §D.2)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import D6_ONLY, Feature, MenuCommand
from handlers.d6requests.router import make_router

FEATURE = Feature(
    name="d6requests",
    make_router=make_router,
    commands=(
        MenuCommand(
            "ask",
            __("Ask the table for a roll (GM): /ask strength+agility"),
            rank=90,
            systems=D6_ONLY,
        ),
    ),
)
