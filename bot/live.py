"""A chat's live message: one message per chat and kind (the round tracker, the attack panel)
that every step edits in place, so a round of play sends only a few new messages (docs/product.md
§5: about 20 messages a minute in a group).

Where it is shown is kept beside its flow (:class:`table.store.Live`). A command that finds it
buried under the conversation, deleted, or never shown (a crash between storing and sending)
posts it again at the bottom with the same state and deletes the old copy, so the chat shows
one; the tracker is pinned when the bot may pin.
"""

from __future__ import annotations

import logging
from dataclasses import dataclass

from aiogram import Bot
from aiogram.enums import ChatType
from aiogram.exceptions import TelegramAPIError, TelegramBadRequest
from aiogram.types import Chat, InlineKeyboardMarkup, Message

from bot.session import is_not_modified
from table.store import Flow, Live, Screen, Store

log = logging.getLogger(__name__)

# How many messages may follow the live message before a command posts it again at the
# bottom: about a screen of a phone's chat.
BURIED = 12

Drawn = tuple[str, InlineKeyboardMarkup | None]


@dataclass(frozen=True)
class Shown:
    """A live message as a step leaves it: its kind (``name``), its flow, where it stands
    (``live``), what it shows, how long it lives, and whether it is pinned."""

    name: str
    flow: Flow
    live: Live
    drawn: Drawn
    ttl: int
    pin: bool = False


async def post_live(bot: Bot, store: Store, chat: Chat, shown: Shown) -> None:
    """Send the live message (again) at the bottom, point the chat at it, drop the old copy
    and pin the new one when asked and allowed."""
    name, live = shown.name, shown.live
    text, markup = shown.drawn
    with store.scope.about(None):  # the table's message, nobody's in particular
        sent = await bot.send_message(chat.id, text, reply_markup=markup)
    await store.show_live(chat.id, name, shown.flow.id, sent.message_id, ttl=shown.ttl)
    if live.message is not None and live.message != sent.message_id:
        try:
            await bot.delete_message(chat.id, live.message)
        except TelegramAPIError as error:
            log.info("old %s message %s not deleted: %s", name, live.message, error)
    if shown.pin and chat.type != ChatType.PRIVATE:
        try:
            await bot.pin_chat_message(chat.id, sent.message_id, disable_notification=True)
        except TelegramAPIError as error:
            log.info("%s message not pinned (no right to pin?): %s", name, error)


async def open_shown(
    bot: Bot,
    store: Store,
    message: Message,
    name: str,
    fresh: Flow,
    drawn: Drawn,
    *,
    ttl: int,
) -> Live | None:
    """Open a new live message when the update read ahead that the chat has none: send it,
    then store its flow, screen and message in one round-trip. None when it was not read
    ahead or another update opened one meanwhile (the message just sent is deleted); the
    caller then takes :meth:`Store.open_live`'s way."""
    ahead = store.live_ahead(message.chat.id, name)
    if ahead is None or ahead.flow is not None:
        return None
    text, markup = drawn
    with store.scope.about(None):  # the table's message, nobody's in particular
        sent = await bot.send_message(message.chat.id, text, reply_markup=markup)
    dumped = markup.model_dump(mode="json", exclude_none=True) if markup is not None else None
    live = await store.create_live(
        name,
        fresh,
        sent.message_id,
        Screen(text=text, markup=dumped),
        expected=ahead.raw,
        ttl=ttl,
    )
    if live is None:
        try:
            await bot.delete_message(message.chat.id, sent.message_id)
        except TelegramAPIError as error:
            log.info("a second %s message %s not deleted: %s", name, sent.message_id, error)
        return None
    old = _live_of(ahead.raw)
    if old is not None and old.message is not None:
        try:
            await bot.delete_message(message.chat.id, old.message)
        except TelegramAPIError as error:
            log.info("old %s message %s not deleted: %s", name, old.message, error)
    return live


def _live_of(raw: str | None) -> Live | None:
    if raw is None:
        return None
    try:
        return Live.model_validate_json(raw)
    except ValueError:
        return None


async def show_live(bot: Bot, store: Store, message: Message, shown: Shown) -> None:
    """After a command changed it: edit the live message where it is, or post it again when
    it is buried, missing or gone."""
    chat, live = message.chat, shown.live
    if live.message is None or message.message_id - live.message > BURIED:
        await post_live(bot, store, chat, shown)
        return
    text, markup = shown.drawn
    try:
        await bot.edit_message_text(
            text=text, chat_id=chat.id, message_id=live.message, reply_markup=markup
        )
    except TelegramBadRequest as error:
        if is_not_modified(error):
            return
        log.info("%s message %s not edited (%s): posted again", shown.name, live.message, error)
        await post_live(bot, store, chat, shown)


async def redraw(bot: Bot, chat_id: int, live: Live, drawn: Drawn) -> None:
    """Edit the live message with no step taken (what it shows changed elsewhere); a failure
    only costs the redraw."""
    if live.message is None:
        return
    text, markup = drawn
    try:
        await bot.edit_message_text(
            text=text, chat_id=chat_id, message_id=live.message, reply_markup=markup
        )
    except TelegramAPIError as error:
        log.info("live message %s not redrawn: %s", live.message, error)


async def unpin(bot: Bot, message: Message) -> None:
    if message.chat.type == ChatType.PRIVATE:
        return
    try:
        await bot.unpin_chat_message(message.chat.id, message_id=message.message_id)
    except TelegramAPIError as error:
        log.info("message %s not unpinned: %s", message.message_id, error)
