"""``/start`` and ``/help`` on screen: one screen a player can copy lines from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aiogram.utils.i18n import gettext as _

from bot import render
from bot.features import HelpSection
from rules.profiles import Profile


def start_text() -> str:
    return _(
        "Hello! I roll dice for World of Darkness games and count successes.\n"
        "Try /r 7 6 — or just /r for buttons. /help lists everything."
    )


def help_text(sections: Mapping[HelpSection, Sequence[str]], profile: Profile) -> str:
    """The features' lines by section, then the chat's game, in one screen (at most 16
    lines): the rolls and the settings carry a heading; the table's rolls and the
    Storyteller's tools are one line each, their features' words joined by « · »."""
    rolls: list[str] = []
    settings: list[str] = []
    for section, lines in sections.items():
        if section is HelpSection.SETTINGS:
            settings = ["<b>" + _("Settings") + "</b>", *lines]
        elif section in JOINED:
            rolls.append(JOINED[section] + " · ".join(lines))
        else:
            rolls.extend(lines)
    current = _("Current game: {title}").format(title=render.profile_title(profile.name))
    rolls_block = "\n".join(["<b>" + _("Rolls") + "</b>", *rolls])
    return rolls_block + "\n\n" + "\n".join([*settings, current])


JOINED = {HelpSection.TABLE: "", HelpSection.COMBAT: "⚔️ ", HelpSection.STORYTELLER: "🎭 "}
