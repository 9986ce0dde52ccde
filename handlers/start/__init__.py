"""``/start`` and ``/help``, assembled from what every feature declares (docs/product.md §2)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import Feature, MenuCommand
from handlers.start.router import make_router

FEATURE = Feature(
    name="start",
    make_router=make_router,
    commands=(MenuCommand("help", __("How to use the bot"), rank=170),),
)
