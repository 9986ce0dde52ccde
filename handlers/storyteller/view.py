"""``/st`` on screen: who runs the game and the refusals around the role."""

from __future__ import annotations

from html import escape

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from handlers.storyteller.callbacks import StCallback
from rules.profiles import GameSystem, Profile


def help_line(profile: Profile) -> str:
    """One line in /help (the screen must stay one screen), in the game's own word for the
    one who runs it: the d6 texts call them «сценарист»."""
    if profile.system is GameSystem.D6:
        return _("/st the GM")
    return _("/st Storyteller")


# Every answer below has the d6 game's own word for the role («сценарист», the GM) beside the
# World of Darkness one: a d6 chat never reads «Рассказчик».


def storyteller_set_text(name: str, *, d6: bool = False) -> str:
    if d6:
        return "🎭 " + _("{name} is now the GM of this chat.").format(name=escape(name))
    return "🎭 " + _("{name} is now the Storyteller of this chat.").format(name=escape(name))


def storyteller_passed_text(old: str, new: str, *, d6: bool = False) -> str:
    if d6:
        text = _("{old} hands the GM's role to {new}.")
    else:
        text = _("{old} hands the Storyteller's role to {new}.")
    return "🎭 " + text.format(old=escape(old), new=escape(new))


def storyteller_current_text(name: str, *, d6: bool = False) -> str:
    if d6:
        return (
            _("The GM of this chat: {name}.").format(name=escape(name))
            + "\n"
            + _("The GM passes the role with /st as a reply to a player's message.")
        )
    return (
        _("The Storyteller of this chat: {name}.").format(name=escape(name))
        + "\n"
        + _("The Storyteller passes the role with /st as a reply to a player's message.")
    )


def storyteller_already_text(*, d6: bool = False) -> str:
    if d6:
        return _("You are already the GM of this chat.")
    return _("You are already the Storyteller of this chat.")


def storyteller_admins_only_text(*, d6: bool = False) -> str:
    if d6:
        return _("Only a chat administrator can become the GM.")
    return _("Only a chat administrator can become the Storyteller.")


def storyteller_group_only_text() -> str:
    return _("The Storyteller's role belongs to a group: send /st in your game's group.")


def storyteller_anonymous_text(*, d6: bool = False) -> str:
    if d6:
        return _(
            "You are writing anonymously on behalf of the group. "
            "Tap the button to become the GM (only administrators can)."
        )
    return _(
        "You are writing anonymously on behalf of the group. "
        "Tap the button to become the Storyteller (only administrators can)."
    )


def storyteller_takeover_text(current: str, *, d6: bool = False) -> str:
    if d6:
        return _("The GM now is {name}. Take the role over?").format(name=escape(current))
    return _("The Storyteller now is {name}. Take the role over?").format(name=escape(current))


def storyteller_changed_text(*, d6: bool = False) -> str:
    if d6:
        return _("The GM's role changed in the meantime; send /st again.")
    return _("The Storyteller's role changed in the meantime; send /st again.")


def storyteller_target_problem_text() -> str:
    return _(
        "Pass the role by replying with /st to a message of the player who gets it "
        "(not a bot, not an anonymous administrator)."
    )


def not_for_you_text() -> str:
    return _("This button is not for you.")


def claim_keyboard(
    flow_id: str, version: int, takeover: bool, *, d6: bool = False
) -> InlineKeyboardMarkup:
    text = (
        _("Take the role") if takeover else (_("I am the GM") if d6 else _("I am the Storyteller"))
    )
    data = StCallback(f=flow_id, v=version).pack()
    return InlineKeyboardMarkup(
        inline_keyboard=[[InlineKeyboardButton(text="🎭 " + text, callback_data=data)]]
    )
