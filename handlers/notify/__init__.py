"""``/notify on|off``: whether the Storyteller's changes to one's sheet are told privately."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import Feature, MenuCommand
from handlers.notify.router import make_router

FEATURE = Feature(
    name="notify",
    make_router=make_router,
    commands=(MenuCommand("notify", __("Private notices of sheet changes: on or off"), rank=164),),
)
