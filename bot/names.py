"""How the bot names whoever sent a message (PRODUCT.md §2: results name the roller)."""

from __future__ import annotations

from aiogram.types import Message, User


def roller_name(message: Message, user: User | None) -> str:
    """An anonymous admin speaks as the chat (sender_chat); everyone else by first name."""
    if message.sender_chat is not None and message.sender_chat.title:
        return message.sender_chat.title
    if user is not None:
        return user.first_name
    return "?"
