"""``/project`` in a d6 chat: projects and challenges (docs/rules.md §D.6)."""

from __future__ import annotations

from aiogram.utils.i18n import lazy_gettext as __

from bot.features import D6_ONLY, Feature, HelpLine, HelpSection, MenuCommand
from handlers.d6project import view
from handlers.d6project.router import make_router

FEATURE = Feature(
    name="d6project",
    make_router=make_router,
    commands=(
        MenuCommand(
            "project", __("A project or challenge (d6): /project 5"), rank=65, systems=D6_ONLY
        ),
    ),
    help=(HelpLine(HelpSection.TABLE, view.help_line, D6_ONLY),),
)
