"""``/log`` and ``/stats``: the chat's recent rolls and whether its dice look fair.

``/log`` reads the roll log and the chat's hidden rolls in one round-trip; a hidden roll shows
as «тайный бросок» until it is revealed (``merge_history``). ``/stats`` reads the counters kept
for the whole campaign as the dice are rolled, where a hidden roll counts from its reveal; it is
docs/product.md's promise that anyone can check the dice: ``table.stats`` runs the chi-square
test, the view says its verdict in a sentence.
"""

from __future__ import annotations

from typing import Any

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import hidden_rolls, render, runner
from bot.runner import Keep
from handlers.history import view
from handlers.history.callbacks import LogCallback, SessionLogCallback
from rules.errors import ErrorCode, RulesInputError
from table import vocabulary
from table.stats import chat_stats, from_counters
from table.store import LOG_CAP, ChatSettings, Store
from table.store.sessions import SessionRecord, chosen_session, of_session


def make_router() -> Router:
    router = Router(name="history")
    router.message.register(log_command, Command("log"))
    router.message.register(stats_command, Command("stats"))
    runner.register(router, LOG_TAP)
    runner.register(router, SESSION_LOG_TAP)
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
    record = await chosen_session(
        store.redis, store.at(message.chat.id), chat_settings.session, number
    )
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


Log = list[dict[str, Any]]


async def load_log(pressed: runner.Pressed[LogCallback]) -> Log | runner.Refuse:
    """The log as it is now, hidden rolls merged: the log moves on between presses, so a page
    is «the entries from the n-th newest», which is what the button says."""
    message = pressed.message
    if message is None:
        return runner.refuse(render.invalid_button_text)
    entries, hidden = await pressed.store.history(message.chat.id)
    return hidden_rolls.merge_history(entries, hidden)


def log_step(merged: Log, data: LogCallback, actor: runner.Actor, seen: runner.Seen[None]) -> Keep:
    """A page of the log, for anyone: stateless, so any copy of any page may be pressed."""
    if not 0 <= data.o < LOG_CAP:
        raise RulesInputError(ErrorCode.RANGE, "offset", str(data.o))
    return Keep()


def log_view(merged: Log, data: LogCallback, seen: runner.Seen[None]) -> runner.Drawn:
    offset = min(data.o, max(0, len(merged) - 1))
    text, shown = view.log_page(merged, offset)
    return text, view.log_keyboard(offset, shown, len(merged))


LOG_TAP: runner.RecordTap[Log, LogCallback, None] = runner.RecordTap(
    name="log", callback=LogCallback, load=load_log, step=log_step, view=log_view
)


async def load_session_log(
    pressed: runner.Pressed[SessionLogCallback],
) -> Log | runner.Refuse:
    """One session's log as it is now, read afresh as the whole log's pages are."""
    message, number = pressed.message, pressed.data.s
    if message is None or number < 1:
        return runner.refuse(render.invalid_button_text)
    record = await chosen_session(
        pressed.store.redis, pressed.store.at(message.chat.id), None, number
    )
    if record is None:
        return []
    return await _session_entries(pressed.store, message.chat.id, record)


def session_log_step(
    merged: Log, data: SessionLogCallback, actor: runner.Actor, seen: runner.Seen[None]
) -> Keep:
    """A page of a session's log, for anyone, as the whole log's."""
    if not 0 <= data.o < LOG_CAP:
        raise RulesInputError(ErrorCode.RANGE, "offset", str(data.o))
    return Keep()


def session_log_view(
    merged: Log, data: SessionLogCallback, seen: runner.Seen[None]
) -> runner.Drawn:
    offset = min(data.o, max(0, len(merged) - 1))
    text, shown = view.log_page(merged, offset, session=data.s)
    return text, view.log_keyboard(offset, shown, len(merged), session=data.s)


SESSION_LOG_TAP: runner.RecordTap[Log, SessionLogCallback, None] = runner.RecordTap(
    name="session_log",
    callback=SessionLogCallback,
    load=load_session_log,
    step=session_log_step,
    view=session_log_view,
)


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
