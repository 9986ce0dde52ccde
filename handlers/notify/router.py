"""``/notify on|off`` (bot/notices.py): a player's own switch, kept for them in every campaign."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import notices
from handlers.notify import view
from table import vocabulary
from table.store import Store


def make_router() -> Router:
    router = Router(name="notify")
    router.message.register(notify_command, Command("notify"))
    return router


async def notify_command(message: Message, command: CommandObject, store: Store) -> None:
    user = message.from_user
    if user is None or message.sender_chat is not None:
        await message.answer(view.usage_text())
        return
    words = (command.args or "").split()
    word = words[0].casefold() if len(words) == 1 else ""
    if not words:
        await message.answer(
            view.state_text(await notices.is_quiet(store.redis, user.id)) + "\n" + view.usage_text()
        )
        return
    if word not in vocabulary.YES and word not in vocabulary.NO:
        await message.answer(view.usage_text())
        return
    quiet = word in vocabulary.NO
    await notices.set_quiet(store.redis, user.id, quiet)
    await message.answer(view.state_text(quiet))
