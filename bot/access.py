"""Who may do what in a chat: the one answer every feature asks (docs/product.md §2 "Storyteller").

Three roles matter at a table:

- a chat administrator (getChatMember says creator or administrator; in a private chat the
  user owns it; an anonymous administrator posts as the chat itself);
- the Storyteller (Рассказчик), once an administrator has claimed the role with ``/st``;
- who runs the game right now: the Storyteller, or, while the chat has none, any
  administrator standing in. This decides ``/rules``, ``/ask``, NPC sides and other players'
  sheets.

Anonymous administrators post as the group, so their message says nothing about who they
are. While the chat has no Storyteller they act as any admin; once it has one, an anonymous
command can only be trusted tap by tap (a button press carries the real user id), which is
:attr:`GameAccess.BY_TAP`.
"""

from __future__ import annotations

from enum import StrEnum

from aiogram import Bot
from aiogram.enums import ChatMemberStatus, ChatType
from aiogram.filters import Filter
from aiogram.types import CallbackQuery, Chat, Message, User

from table.store import ChatSettings

ADMIN_STATUSES = frozenset({ChatMemberStatus.CREATOR, ChatMemberStatus.ADMINISTRATOR})


class GameAccess(StrEnum):
    """Whether the sender runs the game right now."""

    ALLOWED = "allowed"
    DENIED = "denied"
    # An anonymous admin while a Storyteller exists: a keyboard may be shown, and each tap
    # (which carries the real user id) is checked on its own.
    BY_TAP = "by_tap"


def is_anonymous(message: Message) -> bool:
    """An anonymous administrator's message: sent on behalf of the chat itself."""
    return message.sender_chat is not None and message.sender_chat.id == message.chat.id


async def is_chat_admin(bot: Bot, chat_id: int, user_id: int) -> bool:
    """Telegram's own answer (getChatMember) for one user of one chat."""
    member = await bot.get_chat_member(chat_id, user_id)
    return member.status in ADMIN_STATUSES


async def is_admin(bot: Bot, chat: Chat, user: User | None, sender_chat: Chat | None) -> bool:
    """In a private chat the user owns it; an anonymous admin is an admin; otherwise Telegram
    is asked. A message posted as another chat (a channel) is nobody's."""
    if chat.type == ChatType.PRIVATE:
        return True
    if sender_chat is not None:
        return sender_chat.id == chat.id
    if user is None:
        return False
    return await is_chat_admin(bot, chat.id, user.id)


def is_storyteller(chat_settings: ChatSettings, user: User | None) -> bool:
    """Whether ``user`` is this chat's claimed Storyteller; no one is until ``/st``."""
    return (
        user is not None
        and chat_settings.storyteller_id is not None
        and user.id == chat_settings.storyteller_id
    )


async def game_access(
    bot: Bot,
    chat: Chat,
    chat_settings: ChatSettings,
    user: User | None,
    sender_chat: Chat | None,
) -> GameAccess:
    """Chat administrators until a Storyteller exists, then the Storyteller alone."""
    if chat.type == ChatType.PRIVATE:
        return GameAccess.ALLOWED
    anonymous = sender_chat is not None and sender_chat.id == chat.id
    if chat_settings.storyteller_id is None:
        if anonymous:
            return GameAccess.ALLOWED
        if user is None or sender_chat is not None:
            return GameAccess.DENIED
        allowed = await is_chat_admin(bot, chat.id, user.id)
        return GameAccess.ALLOWED if allowed else GameAccess.DENIED
    if anonymous:
        return GameAccess.BY_TAP
    if sender_chat is None and is_storyteller(chat_settings, user):
        return GameAccess.ALLOWED
    return GameAccess.DENIED


async def runs_game(
    bot: Bot, chat: Chat, chat_settings: ChatSettings, user: User | None, sender_chat: Chat | None
) -> bool:
    """:func:`game_access` as a yes or no, for a single action that cannot wait for a tap."""
    access = await game_access(bot, chat, chat_settings, user, sender_chat)
    return access is GameAccess.ALLOWED


class StorytellerFilter(Filter):
    """Passes a message or tap only from the chat's claimed Storyteller (never an anonymous
    message: it cannot say who sent it)."""

    async def __call__(self, event: Message | CallbackQuery, chat_settings: ChatSettings) -> bool:
        if isinstance(event, Message) and event.sender_chat is not None:
            return False
        return is_storyteller(chat_settings, event.from_user)


class RunsGameFilter(Filter):
    """Passes whoever :func:`runs_game`: the Storyteller, or an admin while there is none."""

    async def __call__(
        self, event: Message | CallbackQuery, bot: Bot, chat_settings: ChatSettings
    ) -> bool:
        if isinstance(event, Message):
            return await runs_game(
                bot, event.chat, chat_settings, event.from_user, event.sender_chat
            )
        message = event.message
        if not isinstance(message, Message):
            return False
        return await runs_game(bot, message.chat, chat_settings, event.from_user, None)


async def owner_or_storyteller(
    bot: Bot, chat: Chat, chat_settings: ChatSettings, user: User, owner_id: int
) -> bool:
    """Who may call a table roll or close a request: whoever opened it, or whoever runs the
    game (the Storyteller, or an admin until there is one)."""
    return user.id == owner_id or await runs_game(bot, chat, chat_settings, user, None)
