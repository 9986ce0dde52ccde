"""A table to play at: the real Dispatcher, a Bot whose session records every API call, a
fakeredis Store and seeded dice.

``Table.say`` feeds a text message, ``Table.tap`` a button press, both through
``Dispatcher.feed_update`` with the whole middleware chain of ``bot.app``. The session
answers each method with a plausible object (a sent message gets the next message id), so
handlers that edit "their" message later find it.
"""

from __future__ import annotations

import random
from collections.abc import AsyncGenerator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, NamedTuple, cast

import fakeredis
import pytest
from aiogram import Bot, Dispatcher
from aiogram.client.session.base import BaseSession
from aiogram.enums import ChatMemberStatus
from aiogram.methods import (
    AnswerCallbackQuery,
    EditMessageReplyMarkup,
    EditMessageText,
    GetChatMember,
    GetMe,
    SendMessage,
    TelegramMethod,
)
from aiogram.methods.base import TelegramType
from aiogram.types import (
    CallbackQuery,
    Chat,
    ChatMemberMember,
    ChatMemberOwner,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    MessageEntity,
    Update,
    User,
)
from aiogram.utils.i18n import I18n

from bot.app import create_dispatcher, make_bot
from bot.i18n import LOCALES_DIR, load_i18n
from bot.sent import LostSendGuard
from bot.session import SayUnderstood
from bot.settings import Settings
from table.store import Store, flow_key

TOKEN = "123456:TEST-token-for-the-recording-session"
GROUP = Chat(id=-1001, type="supergroup", title="Chronicle")


class Edit(NamedTuple):
    message_id: int
    text: str
    reply_markup: InlineKeyboardMarkup | None


class RecordingSession(BaseSession):
    """Records every Bot API call and answers it like a quiet, cooperative Telegram."""

    def __init__(self) -> None:
        super().__init__()
        self.calls: list[TelegramMethod[Any]] = []
        self.admins: set[int] = set()
        self.next_message_id = 1000
        self.messages: list[Message] = []
        # Each message's keyboard as the bot last drew it: Telegram hands it back with a press.
        self.keyboards: dict[int, InlineKeyboardMarkup | None] = {}

    async def close(self) -> None:
        return None

    async def stream_content(
        self,
        url: str,
        headers: dict[str, Any] | None = None,
        timeout: int = 30,  # noqa: ASYNC109
        chunk_size: int = 65536,
        raise_for_status: bool = True,
    ) -> AsyncGenerator[bytes, None]:  # pragma: no cover
        raise NotImplementedError
        yield b""

    def _message(self, chat_id: int | str, text: str, markup: Any) -> Message:
        self.next_message_id += 1
        return Message(
            message_id=self.next_message_id,
            date=datetime.now(UTC),
            chat=Chat(id=int(chat_id), type="supergroup"),
            text=text,
            reply_markup=markup if isinstance(markup, InlineKeyboardMarkup) else None,
        )

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        timeout: int | None = None,  # noqa: ASYNC109 - BaseSession's signature
    ) -> TelegramType:
        self.calls.append(method)
        result: Any
        if isinstance(method, SendMessage):
            result = self._message(method.chat_id, method.text, method.reply_markup)
            self.messages.append(result)
            self.keyboards[result.message_id] = result.reply_markup
        elif isinstance(method, EditMessageText):
            result = self._message(method.chat_id or 0, method.text or "", method.reply_markup)
            if method.message_id is not None:
                self.keyboards[method.message_id] = result.reply_markup
        elif isinstance(method, EditMessageReplyMarkup):
            if method.message_id is not None:
                markup = method.reply_markup
                self.keyboards[method.message_id] = (
                    markup if isinstance(markup, InlineKeyboardMarkup) else None
                )
            result = True
        elif isinstance(method, GetChatMember):
            user = User(id=method.user_id, is_bot=False, first_name="member")
            if method.user_id in self.admins:
                result = ChatMemberOwner(
                    status=ChatMemberStatus.CREATOR, user=user, is_anonymous=False
                )
            else:
                result = ChatMemberMember(status=ChatMemberStatus.MEMBER, user=user)
        elif isinstance(method, GetMe):
            result = User(id=123456, is_bot=True, first_name="Dice", username="dice_bot")
        else:  # answerCallbackQuery, editMessageReplyMarkup, setMyCommands...
            result = True
        return cast(TelegramType, result)

    def of(self, kind: type[TelegramMethod[Any]]) -> list[Any]:
        return [call for call in self.calls if isinstance(call, kind)]

    @property
    def sent(self) -> list[SendMessage]:
        return self.of(SendMessage)

    @property
    def edits(self) -> list[Edit]:
        return [
            Edit(call.message_id or 0, call.text or "", call.reply_markup)
            for call in self.of(EditMessageText)
        ]

    @property
    def answers(self) -> list[AnswerCallbackQuery]:
        return self.of(AnswerCallbackQuery)

    @property
    def markup_edits(self) -> list[EditMessageReplyMarkup]:
        return self.of(EditMessageReplyMarkup)


def player(user_id: int, name: str, language: str = "ru") -> User:
    return User(id=user_id, is_bot=False, first_name=name, language_code=language)


@dataclass
class Table:
    """One group chat with the bot; ``rng`` is the seeded die every update rolls with."""

    dispatcher: Dispatcher
    bot: Bot
    session: RecordingSession
    store: Store
    i18n: I18n
    chat: Chat = GROUP
    rng: random.Random = field(default_factory=lambda: random.Random(7))
    update_id: int = 0
    message_id: int = 0

    async def feed(self, **payload: Any) -> None:
        self.update_id += 1
        update = Update(update_id=self.update_id, **payload)
        await self.dispatcher.feed_update(self.bot, update, rng=self.rng)

    async def say(
        self,
        user: User,
        text: str,
        sender_chat: Chat | None = None,
        *,
        reply_to: User | None = None,
        replied_text: str = "…",
        replied_id: int | None = None,
        replied_markup: Any = None,
    ) -> None:
        """``user`` types ``text``; with ``reply_to``, as a reply to a message of theirs (the
        bot's message ``replied_id`` when given, with its buttons ``replied_markup``)."""
        replied = None
        if reply_to is not None:
            if replied_id is None:
                self.message_id += 1
            replied = Message(
                message_id=self.message_id if replied_id is None else replied_id,
                date=datetime.now(UTC),
                chat=self.chat,
                from_user=reply_to,
                text=replied_text,
                reply_markup=replied_markup,
            )
        self.message_id += 1
        command_length = len(text.split()[0]) if text.startswith("/") and text.split() else 0
        entities = (
            [MessageEntity(type="bot_command", offset=0, length=command_length)]
            if command_length
            else None
        )
        message = Message(
            message_id=self.message_id,
            date=datetime.now(UTC),
            chat=self.chat,
            from_user=user,
            sender_chat=sender_chat,
            text=text,
            entities=entities,
            reply_to_message=replied,
        )
        await self.feed(message=message)

    async def tap(self, user: User, data: str, message_id: int, text: str = "…") -> None:
        """Press a button with ``data`` under the bot's message ``message_id``, which comes
        with the keyboard the bot last drew on it, as Telegram sends it."""
        message = Message(
            message_id=message_id,
            date=datetime.now(UTC),
            chat=self.chat,
            from_user=User(id=123456, is_bot=True, first_name="Dice"),
            text=text,
            reply_markup=self.session.keyboards.get(message_id),
        )
        query = CallbackQuery(
            id=f"cb{self.update_id + 1}",
            from_user=user,
            chat_instance="ci",
            message=message,
            data=data,
        )
        await self.feed(callback_query=query)


@pytest.fixture(scope="session")
def i18n() -> I18n:
    return load_i18n(LOCALES_DIR, "ru")


def make_table(store: Store, i18n: I18n, seed: int = 7) -> Table:
    session = RecordingSession()
    session.middleware(LostSendGuard())  # notes what each update sent, as in production
    session.middleware(SayUnderstood())  # a command read on the other layout says so
    bot = make_bot(TOKEN, session)
    settings = Settings(_env_file=None)
    dispatcher = create_dispatcher(settings, store, i18n)
    return Table(dispatcher, bot, session, store, i18n, rng=random.Random(seed))


def fresh_store() -> Store:
    return Store(fakeredis.FakeAsyncRedis(decode_responses=True))


async def flows(store: Store) -> dict[Any, Any]:
    """Every stored flow, raw: a test compares these before and after a tap."""
    keys = sorted(await store.redis.keys(flow_key("*", "*")))
    return {key: await store.redis.hgetall(key) for key in keys}


def buttons(markup: object) -> list[InlineKeyboardButton]:
    assert isinstance(markup, InlineKeyboardMarkup)
    return [button for row in markup.inline_keyboard for button in row]


@pytest.fixture
def table(fake_store: Store, i18n: I18n) -> Table:
    return make_table(fake_store, i18n)
