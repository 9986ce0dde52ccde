"""A line the bot is not sure of, offered back as buttons (docs/product.md §2 "Typing as
people type on phones"): «ловк» could be Ловкость or Ловкость… — instead of asking the
player to type the command again, the answer carries one button per reading, and the
typer's press runs that line as if they had typed it.

The readings are kept in a flow (their lines do not fit a button's 64 bytes). The press is
a :class:`~bot.runner.RecordTap` on the runner's road: the flow is its record, the typer's
press closes it by compare-and-set (two presses run the line once), and the tap's effect
sends the line through the Dispatcher as the presser's message: every command reads it as
its own.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from html import escape

from aiogram.filters.callback_data import CallbackData
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import gettext as _

from bot import render
from bot.runner import (
    INVALID,
    Actor,
    Change,
    Deed,
    Drawn,
    Pressed,
    RecordTap,
    Refuse,
    Seen,
)
from table.store import Flow, FlowState, FlowStateError, Store

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


async def _load(pressed: Pressed[RetypeCallback]) -> Flow | Refuse:
    """The offer a press names, in the message's own chat: a choice it never offered (a
    forged flow or number) is an invalid button, a closed offer says so quietly."""
    message, data = pressed.message, pressed.data
    if message is None:
        return INVALID
    flow = await pressed.store.load_flow(message.chat.id, data.f)
    lines = _lines(flow)
    if flow is None or lines is None or not 0 <= data.i < len(lines):
        return INVALID
    if flow.closed:
        return Refuse(render.closed_text, alert=False)
    return flow


def _lines(flow: Flow | None) -> tuple[str, ...] | None:
    if flow is None:
        return None
    try:
        return flow.state(RetypeFlow).lines
    except FlowStateError:
        return None


def _step(flow: Flow, data: RetypeCallback, actor: Actor, _seen: Seen[None]) -> Deed[Flow]:
    """Only the typer picks what they meant; their press closes the offer."""
    if flow.owner_id != actor.id:
        return Refuse(not_yours_text)
    return Change(flow.model_copy(update={"closed": True}))


async def _swap(pressed: Pressed[RetypeCallback], flow: Flow, _after: Flow) -> Flow | None:
    """The offer closed by compare-and-set: of two presses, one runs the line."""
    return await pressed.store.close_flow(flow, flow.version)


def _view(flow: Flow, data: RetypeCallback, _seen: Seen[None]) -> Drawn:
    """The offer becomes the line chosen, without buttons."""
    lines = _lines(flow) or ()
    line = lines[data.i] if 0 <= data.i < len(lines) else ""
    return f"<code>{escape(line)}</code>", None


async def _run_line(pressed: Pressed[RetypeCallback], flow: Flow) -> None:
    """The line chosen goes through the Dispatcher as the presser's message, with the
    update's own workflow data: every command reads it as its own."""
    message, context = pressed.message, pressed.context
    lines = _lines(flow) or ()
    if message is None or context.dispatcher is None or not 0 <= pressed.data.i < len(lines):
        return
    typed = Message(
        message_id=message.message_id,
        date=datetime.now(UTC),
        chat=message.chat,
        from_user=pressed.presser,
        text=lines[pressed.data.i],
        message_thread_id=message.message_thread_id,
        is_topic_message=message.is_topic_message,
    ).as_(message.bot)
    await context.dispatcher.propagate_event(update_type="message", event=typed, **context.workflow)


TAP: RecordTap[Flow, RetypeCallback, None] = RecordTap(
    name="retype",
    callback=RetypeCallback,
    load=_load,
    step=_step,
    view=_view,
    swap=_swap,
    effect=_run_line,
)


def not_yours_text() -> str:
    return _("Only the one who typed the command picks what they meant.")
