"""A press on a button of an old message, placed in the forum topic the message is in.

Telegram hands a press on a message it no longer shows the bot (an old one) as an
``InaccessibleMessage``: the chat and the message's id, nothing else, so not its topic. In a
forum each topic is a campaign of its own (ARCHITECTURE.md, "The update's scope"), and a
press read as General's would look for its flow, its sheet or its tracker in the wrong game.
The chat's register of what the bot posted (table/store/posts.py) knows each message's
topic: before such a press is kept in the inbox and queued, the topic found there is written
into the press's message as :data:`PLACED_THREAD`, where :func:`placed_thread` reads it. The
inbox keeps the press with it, so its run after a crash plays in the same campaign.

A press the register does not know (older than what it keeps, or Redis away) stays with the
chat's own game: a flow of a topic is not found there, and the player is told the buttons
are closed, which they are as far as the bot can tell.

The press itself is then taken as a press under a message whose keyboard Telegram did not
send (:func:`pressed_message`): the message a flow recorded it is drawn in, found by its
chat and id, is its own, and it is edited in place as any other.
"""

from __future__ import annotations

import logging
from datetime import UTC, datetime
from typing import Any

from aiogram.types import CallbackQuery, InaccessibleMessage, Message, Update

from table.store import STORAGE_ERRORS, Store

log = logging.getLogger(__name__)

PLACED_THREAD = "placed_thread_id"  # ours, beside Telegram's fields of the press's message


def _old_press(raw: dict[str, Any]) -> dict[str, Any] | None:
    """The message of a press on an old message in a forum, as the raw update has it."""
    query = raw.get("callback_query")
    message = query.get("message") if isinstance(query, dict) else None
    if not isinstance(message, dict) or message.get("date") != 0 or PLACED_THREAD in message:
        return None
    chat = message.get("chat")
    # Only a supergroup has topics; its ``is_forum`` is not relied on, as an old message's
    # chat may come without it (a chat the register does not know is looked up in vain).
    if not isinstance(chat, dict) or not (chat.get("is_forum") or chat.get("type") == "supergroup"):
        return None
    return message


async def place_old_presses(store: Store, raws: list[dict[str, Any]]) -> list[int]:
    """Write each old press's topic into it (module docstring); the indices of the raws
    changed, whose validated updates must be made again."""
    changed = []
    for index, raw in enumerate(raws):
        message = _old_press(raw)
        if message is None:
            continue
        chat_id, message_id = message["chat"].get("id"), message.get("message_id")
        if not isinstance(chat_id, int) or not isinstance(message_id, int):
            continue
        try:
            posted = await store.posted(chat_id, message_id)
        except STORAGE_ERRORS as error:
            log.info("press on old message %s: its topic not read (%s)", message_id, error)
            continue
        message[PLACED_THREAD] = posted.thread_id or 0 if posted is not None else 0
        changed.append(index)
    return changed


def placed_thread(update: Update) -> int | None:
    """The topic an old message's press was placed in (None: General, or not placed)."""
    query = update.callback_query
    message = query.message if query is not None else None
    if not isinstance(message, InaccessibleMessage):
        return None
    thread = (message.model_extra or {}).get(PLACED_THREAD)
    return thread if isinstance(thread, int) and thread > 0 else None


def pressed_message(callback: CallbackQuery) -> Message | None:
    """The message a press came under: Telegram's, or for an old one (an
    ``InaccessibleMessage``) a stand-in that knows its chat, id and placed topic and no
    keyboard or text, enough to find its flow and edit it. None in inline mode."""
    message = callback.message
    if isinstance(message, Message) or message is None:
        return message
    thread = (message.model_extra or {}).get(PLACED_THREAD)
    topic = thread if isinstance(thread, int) and thread > 0 else None
    stand_in = Message(
        message_id=message.message_id,
        date=datetime.fromtimestamp(0, UTC),
        chat=message.chat,
        message_thread_id=topic,
        is_topic_message=True if topic is not None else None,
    )
    return stand_in.as_(callback.bot) if callback.bot is not None else stand_in
