"""``/screen``: the Storyteller's screen in their private chat (docs/product.md §2b)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import D6_ONLY, D10_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from bot.miniapp.handoffs import REFRESH_SCREEN
from handlers.screen import view, watch
from handlers.screen.router import make_router

FEATURE = Feature(
    name="screen",
    make_router=make_router,
    commands=(
        MenuCommand(
            "screen", __("The Storyteller's screen (private chat)"), rank=125, systems=D10_ONLY
        ),
        MenuCommand("screen", __("The GM's screen (private chat)"), rank=125, systems=D6_ONLY),
    ),
    help=(
        HelpLine(HelpSection.STORYTELLER, view.help_line, D10_ONLY),
        HelpLine(HelpSection.STORYTELLER, view.d6_help_line, D6_ONLY),
    ),
    after_update=watch.after_update,
    # A sheet changed in the Mini App: the open screen shows it too.
    provides={REFRESH_SCREEN: watch.refresh},
)
