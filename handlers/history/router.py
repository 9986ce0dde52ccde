"""``/log`` and ``/stats``: the chat's recent rolls and whether its dice look fair.

``/log`` reads the roll log and the chat's hidden rolls in one round-trip; a hidden roll shows
as «тайный бросок» until it is revealed (``merge_history``). ``/stats`` reads the counters kept
for the whole campaign as the dice are rolled, where a hidden roll counts from its reveal; it is
docs/product.md's promise that anyone can check the dice: ``bot.stats`` runs the chi-square
test, the view says its verdict in a sentence.
"""

from __future__ import annotations

from typing import Any

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot import hidden_rolls, render, vocabulary
from bot.runner import tell
from bot.session import safe_edit
from bot.stats import chat_stats, from_counters
from bot.store import LOG_CAP, ChatSettings, Store
from bot.store.sessions import SessionRecord, chosen_session, of_session
from handlers.history import view
from handlers.history.callbacks import LogCallback, SessionLogCallback


def make_router() -> Router:
    router = Router(name="history")
    router.message.register(log_command, Command("log"))
    router.message.register(stats_command, Command("stats"))
    router.callback_query.register(log_tap, LogCallback.filter())
    router.callback_query.register(session_log_tap, SessionLogCallback.filter())
    return router


def _session_asked(command: CommandObject | None) -> tuple[bool, int | None] | None:
    """Whether the line asks for a session (and which, by number); None for a line that is
    neither empty nor a session's (answered with the usage)."""
    words = (command.args or "").split() if command is not None else []
    if not words:
        return False, None
    if words[0].casefold() not in vocabulary.SESSION:
        return False, None  # as before sessions: the words after /log were never read
    if len(words) > 2:
        return None
    if len(words) == 1:
        return True, None
    number = words[1].lstrip("#№")
    return (True, int(number)) if number.isdecimal() and len(number) < 7 else None


async def _session_entries(
    store: Store, chat_id: int, record: SessionRecord
) -> list[dict[str, Any]]:
    entries, hidden = await store.history(chat_id)
    return hidden_rolls.merge_history(of_session(entries, record.number), hidden)


async def _which_session(
    message: Message, store: Store, chat_settings: ChatSettings, number: int | None
) -> SessionRecord | None:
    record = await chosen_session(store.redis, message.chat.id, chat_settings.session, number)
    if record is None:
        await message.answer(view.no_session_text())
    return record


async def log_command(
    message: Message,
    store: Store,
    chat_settings: ChatSettings,
    command: CommandObject | None = None,
) -> None:
    asked = _session_asked(command)
    if asked is None:
        await message.answer(view.history_usage_text())
        return
    if asked[0]:
        record = await _which_session(message, store, chat_settings, asked[1])
        if record is None:
            return
        merged = await _session_entries(store, message.chat.id, record)
        text, shown = view.log_page(merged, session=record.number)
        markup = view.log_keyboard(0, shown, len(merged), session=record.number)
        await message.answer(text, reply_markup=markup)
        return
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


async def session_log_tap(
    callback: CallbackQuery, callback_data: SessionLogCallback, store: Store
) -> None:
    """A page of one session's log, read afresh as ``log_tap``'s."""
    message = callback.message
    number = callback_data.s
    if not isinstance(message, Message) or not 0 <= callback_data.o < LOG_CAP or number < 1:
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    record = await chosen_session(store.redis, message.chat.id, None, number)
    merged = [] if record is None else await _session_entries(store, message.chat.id, record)
    offset = min(callback_data.o, max(0, len(merged) - 1))
    text, shown = view.log_page(merged, offset, session=number)
    markup = view.log_keyboard(offset, shown, len(merged), session=number)
    await safe_edit(message, text, markup)
    await callback.answer()


async def stats_command(
    message: Message,
    store: Store,
    chat_settings: ChatSettings,
    command: CommandObject | None = None,
) -> None:
    """The whole campaign's counters, one read (ARCHITECTURE.md "Statistics of a whole
    campaign"); a hidden roll counts from its reveal. A session's are counted from the log's
    lines of that session (the log keeps the latest rolls: a session's fit in it)."""
    asked = _session_asked(command)
    if asked is None:
        await message.answer(view.history_usage_text())
        return
    if asked[0]:
        record = await _which_session(message, store, chat_settings, asked[1])
        if record is None:
            return
        merged = await _session_entries(store, message.chat.id, record)
        await message.answer(view.stats_text(chat_stats(merged), session=record.number))
        return
    counters = await store.campaign_counters(message.chat.id, hidden_rolls.older_tally)
    await message.answer(view.stats_text(from_counters(counters)))
