"""A Bot bound to one update's scope (ARCHITECTURE.md, "The update's scope").

The scope itself is the application's (table/scope.py); what is Telegram's is here: the
update's Bot, a shallow copy of the shared one carrying the scope, and the update's event
objects bound to it, so ``message.answer(...)`` goes through it and the Telegram session's
request middlewares read the scope from the Bot they are handed.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from aiogram.types import TelegramObject

from table.scope import Scope

if TYPE_CHECKING:
    from aiogram import Bot


# The attribute of a Bot bound to an update that holds its scope (:func:`scoped_bot`).
_SCOPE = "scope"


def scoped_bot(bot: Bot, scope: Scope) -> Bot:
    """A Bot for one update: a shallow copy of the shared one (the same session, HTTP
    connector and token) that carries ``scope``, so the session's request middlewares under
    its methods read the update's scope from the Bot they are handed (bot/session.py)."""
    view = copy.copy(bot)
    vars(view)[_SCOPE] = scope
    return view


def scope_of(bot: Bot | None) -> Scope | None:
    """The scope a Bot carries (:func:`scoped_bot`); None for the shared Bot."""
    found = vars(bot).get(_SCOPE) if bot is not None and hasattr(bot, "__dict__") else None
    return found if isinstance(found, Scope) else None


def bind(obj: Any, bot: Bot | None) -> None:
    """Bind a Telegram object and every object inside it to ``bot`` (aiogram's ``as_``), so
    the shortcuts of the update's message, callback query and inline query call through the
    update's Bot. No validation: the fields Telegram sent are walked and re-pointed, nothing
    else (aiogram would validate the whole update again to bind it to another Bot)."""
    if isinstance(obj, TelegramObject):
        obj._bot = bot  # what ``as_`` does, without its call
        fields = obj.__dict__
        for name in obj.__pydantic_fields_set__:  # what Telegram sent: a few of its fields
            value = fields.get(name)
            if isinstance(value, _NESTED):
                bind(value, bot)
    elif isinstance(obj, list | tuple):
        for item in obj:
            if isinstance(item, _NESTED):
                bind(item, bot)


_NESTED = (TelegramObject, list, tuple)
