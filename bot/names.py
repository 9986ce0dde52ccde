"""How the bot names whoever sent a message (docs/product.md §2: results name the roller)."""

from __future__ import annotations

from collections.abc import Callable

from aiogram.types import Message, User


def roller_name(message: Message, user: User | None) -> str:
    """An anonymous admin speaks as the chat (sender_chat); everyone else by first name."""
    if message.sender_chat is not None and message.sender_chat.title:
        return message.sender_chat.title
    if user is not None:
        return user.first_name
    return "?"


def numbered_names(name: str, copies: int, taken: Callable[[str], bool]) -> list[str]:
    """``Гуль`` once, or ``Гуль 1``…``Гуль 3`` for several NPCs at once, numbering on past the
    names ``taken`` says are already in the fight (both round trackers); one more of a group
    already numbered gets the next number too."""
    if copies == 1 and not taken(f"{name} 1"):
        return [name]
    names: list[str] = []
    n = 1 if taken(name) else 0  # a lone «Гуль» already fighting counts as the first
    while len(names) < copies:
        n += 1
        candidate = f"{name} {n}"
        if not taken(candidate):
            names.append(candidate)
    return names
