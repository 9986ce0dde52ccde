"""``/log`` and ``/stats``: the chat's recent rolls and whether its dice look fair.

``/log`` reads the roll log and the chat's hidden rolls in one round-trip; a hidden roll shows
as «тайный бросок» until it is revealed (``merge_history``). ``/stats`` reads the counters kept
for the whole campaign as the dice are rolled, where a hidden roll counts from its reveal; it is
docs/product.md's promise that anyone can check the dice: ``bot.stats`` runs the chi-square
test, the view says its verdict in a sentence.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.types import CallbackQuery, Message

from bot import hidden_rolls, render
from bot.runner import tell
from bot.session import safe_edit
from bot.stats import from_counters
from bot.store import LOG_CAP, Store
from handlers.history import view
from handlers.history.callbacks import LogCallback


def make_router() -> Router:
    router = Router(name="history")
    router.message.register(log_command, Command("log"))
    router.message.register(stats_command, Command("stats"))
    router.callback_query.register(log_tap, LogCallback.filter())
    return router


async def log_command(message: Message, store: Store) -> None:
    entries, hidden = await store.history(message.chat.id)
    merged = hidden_rolls.merge_history(entries, hidden)
    text, shown = view.log_page(merged)
    await message.answer(text, reply_markup=view.log_keyboard(0, shown, len(merged)))


async def log_tap(callback: CallbackQuery, callback_data: LogCallback, store: Store) -> None:
    """A page of the log, read afresh: the log moves on between presses, so a page is «the
    entries from the n-th newest», which is what the button says."""
    message = callback.message
    if not isinstance(message, Message) or not 0 <= callback_data.o < LOG_CAP:
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    entries, hidden = await store.history(message.chat.id)
    merged = hidden_rolls.merge_history(entries, hidden)
    offset = min(callback_data.o, max(0, len(merged) - 1))
    text, shown = view.log_page(merged, offset)
    markup = view.log_keyboard(offset, shown, len(merged))
    await safe_edit(message, text, markup)
    await callback.answer()


async def stats_command(message: Message, store: Store) -> None:
    """The whole campaign's counters, one read (ARCHITECTURE.md "Statistics of a whole
    campaign"); a hidden roll counts from its reveal."""
    counters = await store.campaign_counters(message.chat.id, hidden_rolls.older_tally)
    await message.answer(view.stats_text(from_counters(counters)))
