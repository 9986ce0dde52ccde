"""A Bot session that records every API call instead of talking to Telegram.

Dispatcher-level tests feed updates with ``dp.feed_update(bot, update)`` and then read what
the bot tried to send. Failures can be scripted per method to play Telegram's errors.
"""

from __future__ import annotations

import datetime
import itertools
from collections.abc import AsyncGenerator
from typing import Any

from aiogram import Bot
from aiogram.client.session.base import BaseSession
from aiogram.methods import TelegramMethod
from aiogram.methods.base import TelegramType
from aiogram.types import CallbackQuery, Chat, Message, Update, User

from bot import app
from bot.session import CallbackAnswerTracker

TOKEN = "42:TEST-token"
BOT_USER = User(id=42, is_bot=True, first_name="Dice", username="dice_test_bot")
GROUP = Chat(id=-1001, type="supergroup", title="Table")


class RecordingSession(BaseSession):
    """Answers every call with a plausible result and keeps the call in ``requests``."""

    def __init__(self) -> None:
        super().__init__()
        self.requests: list[TelegramMethod[Any]] = []
        self.failures: dict[str, list[Exception]] = {}
        self._ids = itertools.count(1000)
        self.middleware(CallbackAnswerTracker())

    def fail_next(self, api_method: str, error: Exception) -> None:
        self.failures.setdefault(api_method, []).append(error)

    def calls(self, api_method: str) -> list[TelegramMethod[Any]]:
        return [r for r in self.requests if r.__api_method__ == api_method]

    async def close(self) -> None:
        return None

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        timeout: int | None = None,  # noqa: ASYNC109 - aiogram's signature
    ) -> TelegramType:
        self.requests.append(method)
        pending = self.failures.get(method.__api_method__)
        if pending:
            raise pending.pop(0)
        returning = method.__returning__
        if returning is User:
            return BOT_USER  # type: ignore[return-value]
        if returning is Message or "Message" in str(returning):
            chat_id = getattr(method, "chat_id", GROUP.id)
            return Message(  # type: ignore[return-value]
                message_id=getattr(method, "message_id", None) or next(self._ids),
                date=datetime.datetime.now(datetime.UTC),
                chat=Chat(id=chat_id, type="supergroup" if chat_id < 0 else "private"),
                text=getattr(method, "text", None),
            )
        return True  # type: ignore[return-value]

    async def stream_content(
        self,
        url: str,
        headers: dict[str, Any] | None = None,
        timeout: int = 30,  # noqa: ASYNC109 - aiogram's signature
        chunk_size: int = 65536,
        raise_for_status: bool = True,
    ) -> AsyncGenerator[bytes, None]:
        yield b""


def make_bot() -> tuple[Bot, RecordingSession]:
    session = RecordingSession()
    return app.make_bot(TOKEN, session), session


_update_ids = itertools.count(1)


def user(language_code: str | None = "en", user_id: int = 7) -> User:
    return User(id=user_id, is_bot=False, first_name="Player", language_code=language_code)


def text_update(
    text: str,
    *,
    from_user: User | None = None,
    chat: Chat = GROUP,
    update_id: int | None = None,
) -> Update:
    return Update(
        update_id=update_id if update_id is not None else next(_update_ids),
        message=Message(
            message_id=next(_update_ids),
            date=datetime.datetime.now(datetime.UTC),
            chat=chat,
            from_user=from_user or user(),
            text=text,
        ),
    )


def tap_update(data: str, *, from_user: User | None = None, query_id: str = "q1") -> Update:
    message = Message(
        message_id=5,
        date=datetime.datetime.now(datetime.UTC),
        chat=GROUP,
        from_user=BOT_USER,
        text="result",
    )
    return Update(
        update_id=next(_update_ids),
        callback_query=CallbackQuery(
            id=query_id,
            from_user=from_user or user(),
            chat_instance="ci",
            message=message,
            data=data,
        ),
    )
