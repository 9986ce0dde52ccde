"""``/chronicle``: a session or the campaign as Markdown and a web page (docs/product.md §2b)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import Feature, MenuCommand
from handlers.chronicle.router import make_router

FEATURE = Feature(
    name="chronicle",
    make_router=make_router,
    commands=(
        MenuCommand("chronicle", __("The session's chronicle with its dice proof"), rank=163),
    ),
)
