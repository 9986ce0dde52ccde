"""Every message lands in the topic it belongs to (ARCHITECTURE.md, "The update's scope").

In a forum supergroup each topic is a campaign of its own (``table.scope.Campaign``). A
message the bot sends without a thread goes to General, so the session's request
middleware :class:`InCampaignThread` files every send to the update's own chat under the
thread of the campaign it plays in, unless the call named a thread itself (a send to
another campaign: the Storyteller's screen, a hidden roll from a private chat). It never
sends Telegram's ``message_thread_id=1``: General has no thread id.

A topic closed or deleted since the update began is refused by Telegram (TOPIC_CLOSED,
"message thread not found"); the result must still reach the players, once: the same send
goes to General, saying which topic it was for, inside the same call, so the lost-send
check (bot/sent.py) sees one send answered, never one to repeat. It is tried once: a closed
topic is not retried.
"""

from __future__ import annotations

import logging
from typing import TYPE_CHECKING, Any

from aiogram.client.session.middlewares.base import (
    BaseRequestMiddleware,
    NextRequestMiddlewareType,
)
from aiogram.exceptions import TelegramBadRequest
from aiogram.methods import SendMessage, TelegramMethod
from aiogram.methods.base import Response, TelegramType
from aiogram.utils.i18n import gettext as _

from bot.scope import scope_of
from table.scope import Campaign

if TYPE_CHECKING:
    from aiogram import Bot

log = logging.getLogger("bot.threads")

# What Telegram answers a post into a thread it cannot post to now.
_GONE = ("TOPIC_CLOSED", "message thread not found")
GENERAL_THREAD = 1  # General's own thread id: never sent


def _posts(method: TelegramMethod[Any]) -> bool:
    name = method.__api_method__
    return name.startswith("send") and name not in ("sendChatAction", "sendInvoice")


def topic_gone(error: TelegramBadRequest) -> bool:
    """Whether Telegram refused a post because its topic is closed or gone."""
    return any(reason in error.message for reason in _GONE)


def thread_of(campaign: Campaign | None, chat_id: object) -> int | None:
    """The thread a send to ``chat_id`` goes to when it plays in ``campaign``: the topic's,
    for a send to the campaign's own chat; None (General, or no forum) otherwise."""
    if campaign is None or campaign.thread_id is None or chat_id != campaign.chat_id:
        return None
    return campaign.thread_id


def redirected_text(text: str, campaign: Campaign | None) -> str:
    """The send's text posted in General instead, saying which topic it was for."""
    name = campaign.name if campaign is not None else None
    if name:
        note = _("The topic «{topic}» is closed, so its answer is here:").format(topic=name)
    else:
        note = _("The topic is closed, so its answer is here:")
    return note + "\n" + text


class InCampaignThread(BaseRequestMiddleware):
    """Files a send under its campaign's topic, and posts it in General when that topic is
    closed or gone (module docstring)."""

    async def __call__(
        self,
        make_request: NextRequestMiddlewareType[TelegramType],
        bot: Bot,
        method: TelegramMethod[TelegramType],
    ) -> Response[TelegramType]:
        if not _posts(method):
            return await make_request(bot, method)
        scope = scope_of(bot)
        campaign = scope.campaign if scope is not None else None
        chat_id = getattr(method, "chat_id", None)
        thread = getattr(method, "message_thread_id", None)
        general = thread == GENERAL_THREAD  # General named as Telegram numbers it
        if general:
            method.message_thread_id = thread = None  # type: ignore[attr-defined]
        if thread is None and not general:
            thread = thread_of(campaign, chat_id)
            if thread is not None:
                method.message_thread_id = thread  # type: ignore[attr-defined]
        if thread is None:
            return await make_request(bot, method)
        try:
            return await make_request(bot, method)
        except TelegramBadRequest as error:
            if not topic_gone(error):
                raise
            log.info("topic %s of chat %s is closed or gone: posted in General", thread, chat_id)
            where = campaign if campaign is not None and campaign.thread_id == thread else None
            return await make_request(bot, self._in_general(method, where))

    @staticmethod
    def _in_general(
        method: TelegramMethod[TelegramType], campaign: Campaign | None
    ) -> TelegramMethod[TelegramType]:
        """The same send for General: no thread, no reply into the closed topic, its text
        saying which topic it was for."""
        changes: dict[str, Any] = {"message_thread_id": None}
        if hasattr(method, "reply_parameters"):
            changes["reply_parameters"] = None
        if hasattr(method, "reply_to_message_id"):
            changes["reply_to_message_id"] = None
        if isinstance(method, SendMessage) and isinstance(method.text, str):
            changes["text"] = redirected_text(method.text, campaign)
        return method.model_copy(update=changes)
