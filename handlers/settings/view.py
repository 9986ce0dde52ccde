"""``/lang`` and ``/rules`` on screen, and who may change the game."""

from __future__ import annotations

from collections.abc import Iterable

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot import render
from handlers.settings import privacy
from handlers.settings.callbacks import (
    HouseCallback,
    LangCallback,
    ProfileCallback,
    SheetsCallback,
)
from rules.profiles import GameSystem, Profile
from table.store import ChatSettings


def language_prompt() -> str:
    return _("Choose the language of this chat:")


PERSONAL = "own"  # the button's code for «each person's own language» (/lang свой)


def language_keyboard(pinned: bool = False) -> InlineKeyboardMarkup:
    """The languages; once the chat pinned one, a way back to each person's own."""
    rows = [
        [
            InlineKeyboardButton(text=name, callback_data=LangCallback(code=code).pack())
            for code, name in render.LANGUAGES.items()
        ]
    ]
    if pinned:
        own = _("👤 Each person's own")
        rows.append(
            [InlineKeyboardButton(text=own, callback_data=LangCallback(code=PERSONAL).pack())]
        )
    return InlineKeyboardMarkup(inline_keyboard=rows)


def language_personal_text() -> str:
    return _("The chat no longer has one language: each person reads the bot in their own.")


def language_set_text() -> str:
    return _("This chat now speaks English.")


def language_problem_text() -> str:
    return _("Unknown language. Example: /lang ru, /lang en, or /lang own for each person's own")


def rules_text(current: str, sheets_open: bool | None = None) -> str:
    """The /rules card: the game, and (when given) the campaign's privacy setting."""
    text = _("Game of this chat: <b>{title}</b>. Choose another:").format(
        title=render.profile_title(current)
    )
    if sheets_open is None:
        return text
    return text + "\n" + privacy.line(sheets_open)


def rules_keyboard(
    names: Iterable[str], current: str, sheets_open: bool | None = None
) -> InlineKeyboardMarkup:
    rows = [
        [
            InlineKeyboardButton(
                text=("✅ " if name == current else "") + render.profile_title(name),
                callback_data=ProfileCallback(name=name).pack(),
            )
        ]
        for name in names
    ]
    if sheets_open is not None:
        rows.append(
            [
                InlineKeyboardButton(
                    text=privacy.button_text(sheets_open),
                    callback_data=SheetsCallback(o=0 if sheets_open else 1).pack(),
                )
            ]
        )
    rows.append(
        [
            InlineKeyboardButton(
                text="🏠 " + _("House rules"), callback_data=HouseCallback(a="t").pack()
            )
        ]
    )
    return InlineKeyboardMarkup(inline_keyboard=rows)


def rules_set_text(name: str) -> str:
    return _("Game of this chat: <b>{title}</b>.").format(title=render.profile_title(name))


def game_storyteller_only_text(d6: bool = False) -> str:
    if d6:
        return _("Only the GM can change the game.")
    return _("Only the Storyteller can change the game.")


def game_refusal_text(chat_settings: ChatSettings, d6: bool = False) -> str:
    if chat_settings.storyteller_id is None:
        return render.admins_only_text()
    return game_storyteller_only_text(d6)


def help_lines(profile: Profile) -> str:
    return "\n".join(
        [
            _("/lang — language of this chat"),
            _("/rules — the game and its house rules (the GM; chat admins until there is one)")
            if profile.system is GameSystem.D6
            else _(
                "/rules — the game and its house rules (the Storyteller; chat admins until "
                "there is one)"
            ),
        ]
    )


def language_refusal_text(d6: bool = False) -> str:
    if d6:
        return _("The group's language is set by its GM or an administrator.")
    return _("The group's language is set by its Storyteller or an administrator.")
