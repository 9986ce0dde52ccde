"""Whom a command typed in reply points at.

A reply to a player's own message targets that player; a reply to one of the bot's messages
targets the player it is about — the roller of a result, whoever the bot answered — so the
Storyteller's ``/dmg 1 у`` in reply to the bot's result of Аня's roll wounds Аня. Whom each
bot message is about is written as the update that sent it finishes (``bot.sent.Outbox``,
``Store.message_about``), in the write that finishing makes anyway; reading it costs one
round-trip, and only for a command in reply to the bot.
"""

from __future__ import annotations

from aiogram.types import Message, User

from table.scope import Scope
from table.store import Store, Subject


async def replied_player(message: Message, store: Store) -> User | None:
    """The player ``message`` replies to or about; None for no reply, or a reply to a bot
    message about nobody in particular (the round tracker) or too old to remember."""
    replied = message.reply_to_message
    author = replied.from_user if replied is not None else None
    if replied is None or author is None:
        return None
    if not author.is_bot:
        return author
    subject = await store.message_about(message.chat.id, replied.message_id)
    if subject is None:
        return None
    return User(
        id=subject.user_id, is_bot=False, first_name=subject.name, username=subject.username
    )


def concerns(
    scope: Scope, user_id: int | None, name: str = "", username: str | None = None
) -> None:
    """The rest of this update's messages are about this player (a wound the Storyteller
    dealt them), or about nobody in particular (None: an NPC's)."""
    scope.subject = (
        Subject(user_id=user_id, name=name, username=username) if user_id is not None else None
    )
