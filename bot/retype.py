"""A line the bot is not sure of, offered back as buttons (docs/product.md §2 "Typing as
people type on phones"): «ловк» could be Ловкость or Ловкость… — instead of asking the
player to type the command again, the answer carries one button per reading, and the
typer's press runs that line as if they had typed it.

The readings are kept in a flow (their lines do not fit a button's 64 bytes); a press
closes it by compare-and-set, so two presses run the line once, and then the line goes
through the Dispatcher as the presser's message: every command reads it as its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from html import escape
from typing import Any

from aiogram import Dispatcher
from aiogram.filters.callback_data import CallbackData
from aiogram.types import (
    CallbackQuery,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
)
from aiogram.utils.i18n import gettext as _

from bot import render
from bot.session import safe_edit
from table.store import FlowState, FlowStateError, Store

CHOICES_MAX = 6
LABEL_MAX = 40


class RetypeFlow(FlowState):
    """The lines a command may have meant, in the order offered."""

    kind = "retype"
    lines: tuple[str, ...]


class RetypeCallback(CallbackData, prefix="rt"):
    f: str  # the flow
    i: int  # which line


def replaced(line: str, typed: str, meant: str, *, one_word: bool = True) -> str:
    """``line`` with the first ``typed`` (any case, whole between spaces and «+») read as
    ``meant``; ``one_word``: its spaces become «_» so a trait's name stays one word of a
    pool («сила_воли»). Empty when ``typed`` is not in the line."""
    pattern = re.compile(r"(?<![^\s+])" + re.escape(typed) + r"(?![^\s+\-0-9])", re.IGNORECASE)
    if pattern.search(line) is None:
        return ""
    return pattern.sub(meant.replace(" ", "_") if one_word else meant, line, count=1)


async def offer(
    message: Message, store: Store, text: str, choices: Sequence[tuple[str, str]]
) -> None:
    """Answer ``text`` with a button per choice (its label, the line it runs): only the
    sender of ``message`` may press one. Without choices (or a sender), the text alone."""
    user = message.from_user
    kept = [(label, line) for label, line in choices if line][:CHOICES_MAX]
    if not kept or user is None or message.sender_chat is not None:
        await message.answer(text)
        return
    state = RetypeFlow(lines=tuple(line for _label, line in kept))
    flow = await store.create_flow(state, message.chat.id, user.id)
    rows = [
        [
            InlineKeyboardButton(
                text=label[:LABEL_MAX], callback_data=RetypeCallback(f=flow.id, i=i).pack()
            )
        ]
        for i, (label, _line) in enumerate(kept)
    ]
    await message.answer(text, reply_markup=InlineKeyboardMarkup(inline_keyboard=rows))


async def retype_tap(
    callback: CallbackQuery,
    callback_data: RetypeCallback,
    store: Store,
    dispatcher: Dispatcher,
    **data: Any,
) -> None:
    """The typer's press: the offer closes (once) showing the line chosen, and the line
    runs as their message."""
    message = callback.message
    if not isinstance(message, Message):
        await callback.answer(render.invalid_button_text(), show_alert=True)
        return
    flow = await store.load_flow(message.chat.id, callback_data.f)
    try:
        state = flow.state(RetypeFlow) if flow is not None else None
    except FlowStateError:
        state = None
    if flow is None or state is None or not 0 <= callback_data.i < len(state.lines):
        await callback.answer(render.invalid_button_text(), show_alert=True)
        return
    if flow.closed:
        await callback.answer(render.closed_text())
        return
    if flow.owner_id != callback.from_user.id:
        await callback.answer(not_yours_text(), show_alert=True)
        return
    line = state.lines[callback_data.i]
    if await store.advance_flow(flow, flow.version, state, close=True) is None:
        await callback.answer(render.closed_text())
        return
    await callback.answer()
    await safe_edit(message, f"<code>{escape(line)}</code>", None)
    typed = Message(
        message_id=message.message_id,
        date=datetime.now(UTC),
        chat=message.chat,
        from_user=callback.from_user,
        text=line,
        message_thread_id=message.message_thread_id,
        is_topic_message=message.is_topic_message,
    ).as_(message.bot)
    await dispatcher.propagate_event(
        update_type="message", event=typed, store=store, dispatcher=dispatcher, **data
    )


def not_yours_text() -> str:
    return _("Only the one who typed the command picks what they meant.")
