"""A double fault never takes the notice that the table's memory is away for a result
(bot/sent.py): Redis away, the command told so in reply (a message no floor knows of), then
the process dies mid-run, and the run after the crash looks above the floor for what the
dead run sent. The real middleware chain on a real redis-server against the fake Bot API."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from aiogram import Bot, Dispatcher, Router
from aiogram.filters import Command
from aiogram.types import Message, Update

from bot.app import create_dispatcher
from bot.i18n import LOCALES_DIR, load_i18n
from bot.settings import Settings
from localapi.server import ChatMessage, FakeBotApi, FakeChat
from table.store import STORAGE_ERRORS, Store
from tests.bot.sessions import bot_without_pauses
from tests.conftest import RedisServer

RESULT = "Аня: 3 успеха. Сила Воли: осталось 4 из 5"
MEMORY_AWAY = "Память стола сейчас недоступна"


class Died(BaseException):
    """The process is killed here: nothing after this point of the run happens (no finish,
    no putting off), as with SIGKILL."""


class Table:
    """The handler of ``/pay``: it pays (a write), then replies with the result; ``before``
    runs first, where a test stops Redis or kills the run."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.before: list[Any] = []

    def router(self) -> Router:
        router = Router(name="double-fault")

        @router.message(Command("pay"))
        async def pay(message: Message) -> None:
            if self.before:
                await self.before.pop(0)()
            await self.store.last_sent(message.chat.id)  # stands for the spend's write
            await message.reply(RESULT)

        return router

    def process(self) -> Dispatcher:
        """A bot process: a Dispatcher of its own, so nothing is remembered from another."""
        settings = Settings(_env_file=None, bot_token="1:x", default_locale="ru")  # type: ignore[call-arg]
        return create_dispatcher(
            settings, self.store, load_i18n(LOCALES_DIR, "ru"), routers=[self.router()]
        )


@pytest.fixture
async def bot(fake_api: FakeBotApi) -> AsyncIterator[Bot]:
    async with bot_without_pauses(fake_api) as bot:
        yield bot


@pytest.fixture
async def store(redis_server: RedisServer) -> AsyncIterator[Store]:
    store = Store.from_url(redis_server.url)
    try:
        yield store
    finally:
        await store.close()


async def run(process: Dispatcher, bot: Bot, raw: dict[str, Any], *, attempt: int) -> None:
    """One run of the update, as bot/delivery.py feeds it."""
    update = Update.model_validate(raw, context={"bot": bot})
    await process.feed_update(bot, update, delivery_token=str(id(process)), attempt=attempt)


def bot_messages(api: FakeBotApi, group: FakeChat) -> list[ChatMessage]:
    return [m for m in group.messages if m.sender_id == api.bot.id]


async def told_memory_away(process: Dispatcher, bot: Bot, raw: dict[str, Any]) -> None:
    """A run that meets Redis away: the player is told so in reply, the error goes on to be
    run again later (bot/middlewares.py)."""
    with pytest.raises(STORAGE_ERRORS):
        await run(process, bot, raw, attempt=0)


async def test_a_crash_after_redis_is_back_never_takes_the_notice_for_the_result(
    fake_api: FakeBotApi, bot: Bot, store: Store, redis_server: RedisServer
) -> None:
    """The notice went out while Redis was away; Redis is back and the process dies in the
    run that would send the result. The next process shows the result, the notice stays."""
    table = Table(store)
    anya = fake_api.add_user("Аня")
    group = fake_api.add_group("Стол", owner=anya)
    command = fake_api.send_text(group, anya, "/pay")
    [raw] = fake_api.take_updates()
    dying = table.process()

    redis_server.stop()
    await told_memory_away(dying, bot, raw)
    [notice] = bot_messages(fake_api, group)
    assert MEMORY_AWAY in notice.text
    redis_server.start()

    async def die() -> None:
        raise Died

    table.before.append(die)
    with pytest.raises(Died):
        await run(dying, bot, raw, attempt=1)
    assert bot_messages(fake_api, group) == [notice]  # it died before its send

    await run(table.process(), bot, raw, attempt=0)  # the next process, after the crash
    texts = [m.text for m in bot_messages(fake_api, group)]
    assert texts == [notice.text, RESULT]
    assert bot_messages(fake_api, group)[-1].data["reply_to_message"]["message_id"] == (
        command.message_id
    )


async def test_a_crash_while_redis_is_still_away_turns_the_notice_into_the_result(
    fake_api: FakeBotApi, bot: Bot, store: Store, redis_server: RedisServer
) -> None:
    """The run began, then Redis went away: the player is told so, and the process dies
    before Redis is back, so no floor ever hears of the notice. The run after the crash finds
    the notice above the floor and makes it show the result it promised: shown, once."""
    table = Table(store)
    anya = fake_api.add_user("Аня")
    group = fake_api.add_group("Стол", owner=anya)
    fake_api.send_text(group, anya, "/pay")
    [raw] = fake_api.take_updates()

    async def redis_goes_away() -> None:
        redis_server.stop()

    table.before.append(redis_goes_away)
    await told_memory_away(table.process(), bot, raw)
    [notice] = bot_messages(fake_api, group)
    assert MEMORY_AWAY in notice.text
    redis_server.start()  # the process that told the player is gone by now

    await run(table.process(), bot, raw, attempt=0)
    [shown] = bot_messages(fake_api, group)
    assert shown.message_id == notice.message_id
    assert shown.text == RESULT
    assert len(fake_api.calls_to("sendMessage")) == 1  # the notice's only


async def test_a_crash_after_the_result_was_delivered_shows_it_once_and_edits_nothing(
    fake_api: FakeBotApi, bot: Bot, store: Store
) -> None:
    """The ordinary crash: the dead run's result is above the floor, and the check that it
    is the send changes nothing in it."""
    table = Table(store)
    anya = fake_api.add_user("Аня")
    group = fake_api.add_group("Стол", owner=anya)
    fake_api.send_text(group, anya, "/pay")
    [raw] = fake_api.take_updates()
    dying = table.process()

    async def sent_then_die() -> None:
        await bot.send_message(group.id, RESULT)  # as the dead run's reply, then SIGKILL
        raise Died

    table.before.append(sent_then_die)
    with pytest.raises(Died):
        await run(dying, bot, raw, attempt=0)
    [delivered] = bot_messages(fake_api, group)

    await run(table.process(), bot, raw, attempt=0)
    [shown] = bot_messages(fake_api, group)
    assert shown.message_id == delivered.message_id
    assert "edit_date" not in shown.data
    assert fake_api.calls_to("editMessageText")  # checked, and found identical
