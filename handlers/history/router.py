"""``/log`` and ``/stats``: the chat's recent rolls and whether its dice look fair.

Both read the roll log and the chat's hidden rolls in one round-trip; a hidden roll shows as
«тайный бросок» and counts for nothing until it is revealed (``merge_history``). ``/stats``
is PRODUCT.md's promise that anyone can check the dice: ``bot.stats`` runs the chi-square
test, the view says its verdict in a sentence.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.enums import ParseMode
from aiogram.filters import Command
from aiogram.types import Message

from bot import hidden_rolls
from bot.stats import chat_stats
from bot.store import Store
from handlers.history import view


def make_router() -> Router:
    router = Router(name="history")
    router.message.register(log_command, Command("log"))
    router.message.register(stats_command, Command("stats"))
    return router


async def log_command(message: Message, store: Store) -> None:
    entries, hidden = await store.history(message.chat.id, view.LOG_LINES)
    text = view.log_text(hidden_rolls.merge_history(entries, hidden))
    await message.answer(text, parse_mode=ParseMode.HTML)


async def stats_command(message: Message, store: Store) -> None:
    entries, hidden = await store.history(message.chat.id)
    stats = chat_stats(view.countable(hidden_rolls.merge_history(entries, hidden)))
    await message.answer(view.stats_text(stats), parse_mode=ParseMode.HTML)
