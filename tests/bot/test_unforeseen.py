"""Errors nobody foresaw (bot/middlewares.py): an update that wrote or sent anything is never
told to try again, one that paid and showed nothing has it given back, the notice that the
table's memory is away comes once per chat and outage, and a notice whose floor cannot be
raised never fails the chat's next update. The real middleware chain on a real redis-server
against the fake Bot API."""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Any

import pytest
from aiogram import Bot, Dispatcher, Router
from aiogram.filters import Command
from aiogram.types import Message, Update
from redis.exceptions import OutOfMemoryError

from bot.app import create_dispatcher
from bot.i18n import LOCALES_DIR, load_i18n
from bot.settings import Settings
from localapi.server import ChatMessage, FakeBotApi, FakeChat
from rules.sheet import Sheet, SheetSystem, from_json
from table.store import STORAGE_ERRORS, Store, sheet_key
from table.store.journaled import note_spent
from table.store.sheets import player_field
from tests.bot.sessions import bot_without_pauses
from tests.conftest import RedisServer

MEMORY_AWAY = "Память стола сейчас недоступна"
TRY_AGAIN = "попробуйте ещё раз"
SYSTEM = SheetSystem.MAGE


def with_willpower(points: int) -> Callable[[Sheet], Sheet]:
    return lambda sheet: sheet.model_copy(update={"willpower": 5, "willpower_current": points})


class Table:
    """``/pay`` takes a point of Willpower (a journaled spend, as a roll's), then does what
    the test put in ``after``; ``/say`` only replies."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.after: list[Callable[[Message], Awaitable[None]]] = []

    def router(self) -> Router:
        router = Router(name="unforeseen")

        @router.message(Command("pay"))
        async def pay(message: Message, store: Store) -> None:
            # ``store``: the shared one bound to the update's scope (bot/scope.py)
            assert message.from_user is not None
            field = player_field(message.from_user.id, SYSTEM)

            def spend(sheet: Sheet) -> Sheet:
                paid = sheet.model_copy(update={"willpower_current": 4})
                note_spent(store.scope, field, sheet, paid)
                return paid

            await store.update_sheet(message.chat.id, message.from_user.id, SYSTEM, spend)
            for step in self.after:
                await step(message)

        @router.message(Command("say"))
        async def say(message: Message) -> None:
            await message.reply("сказано")

        return router

    def process(self) -> Dispatcher:
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


async def run(process: Dispatcher, bot: Bot, raw: dict[str, Any], *, attempt: int = 0) -> None:
    """One run of the update, as bot/delivery.py feeds it."""
    update = Update.model_validate(raw, context={"bot": bot})
    await process.feed_update(bot, update, delivery_token=str(id(process)), attempt=attempt)


def said(api: FakeBotApi, group: FakeChat) -> list[ChatMessage]:
    return [m for m in group.messages if m.sender_id == api.bot.id]


async def willpower(store: Store, group: FakeChat, user_id: int) -> int | None:
    raw = await store.redis.hget(sheet_key(group.id), player_field(user_id, SYSTEM))
    assert raw is not None
    return from_json(raw).willpower_current


async def test_a_result_refused_for_its_length_gives_back_what_it_spent(
    fake_api: FakeBotApi, bot: Bot, store: Store
) -> None:
    """Telegram refuses the result (400, too long) after the point was paid: the point comes
    back, and the player is told so, never to try again as if nothing had happened."""
    table = Table(store)
    anya = fake_api.add_user("Аня")
    group = fake_api.add_group("Стол", owner=anya)
    await store.update_sheet(group.id, anya.id, SYSTEM, with_willpower(5))

    async def too_long(message: Message) -> None:
        await message.reply("кость " * 1000)

    table.after.append(too_long)
    fake_api.send_text(group, anya, "/pay")
    [raw] = fake_api.take_updates()
    await run(table.process(), bot, raw)
    [told] = said(fake_api, group)
    assert "вернулось на лист" in told.text
    assert TRY_AGAIN not in told.text.casefold()
    assert await willpower(store, group, anya.id) == 5
    await run(table.process(), bot, raw)  # delivered again: dropped, nothing paid or said
    assert await willpower(store, group, anya.id) == 5
    assert len(said(fake_api, group)) == 1


async def test_a_failure_after_the_result_was_shown_is_never_told_to_try_again(
    fake_api: FakeBotApi, bot: Bot, store: Store
) -> None:
    table = Table(store)
    anya = fake_api.add_user("Аня")
    group = fake_api.add_group("Стол", owner=anya)
    await store.update_sheet(group.id, anya.id, SYSTEM, with_willpower(5))

    async def shown_then_broken(message: Message) -> None:
        await message.reply("Аня: 3 успеха")
        raise RuntimeError("a bug after the result")

    table.after.append(shown_then_broken)
    fake_api.send_text(group, anya, "/pay")
    [raw] = fake_api.take_updates()
    await run(table.process(), bot, raw)
    result, told = said(fake_api, group)
    assert result.text == "Аня: 3 успеха"
    assert TRY_AGAIN not in told.text.casefold()
    assert "Проверьте" in told.text
    assert await willpower(store, group, anya.id) == 4  # shown, so paid


async def test_a_failure_before_anything_was_done_is_still_to_be_tried_again(
    fake_api: FakeBotApi, bot: Bot, store: Store
) -> None:
    """The rule's other side: an update that wrote and sent nothing may be sent again."""
    table = Table(store)
    process = table.process()
    router = Router(name="broken")

    @router.message(Command("broken"))
    async def broken(message: Message) -> None:
        raise RuntimeError("a bug before anything")

    process.include_router(router)
    anya = fake_api.add_user("Аня")
    group = fake_api.add_group("Стол", owner=anya)
    fake_api.send_text(group, anya, "/broken")
    [raw] = fake_api.take_updates()
    await run(process, bot, raw)
    [told] = said(fake_api, group)
    assert TRY_AGAIN in told.text.casefold()


async def test_the_memory_away_notice_comes_once_per_chat_and_outage(
    fake_api: FakeBotApi, bot: Bot, store: Store, redis_server: RedisServer
) -> None:
    """A burst of commands while Redis refuses writes (out of memory): one notice in the
    chat, not one per command, so the group's 20 messages a minute stay for the results.
    Once an update of the chat runs through, the next outage is told again."""
    table = Table(store)
    process = table.process()
    anya = fake_api.add_user("Аня")
    group = fake_api.add_group("Стол", owner=anya)
    await store.redis.config_set("maxmemory-policy", "noeviction")
    await store.redis.config_set("maxmemory", "1")
    for _ in range(3):
        fake_api.send_text(group, anya, "/say")
    raws = fake_api.take_updates()
    for raw in raws:
        with pytest.raises(STORAGE_ERRORS):
            await run(process, bot, raw)
    [notice] = said(fake_api, group)
    assert MEMORY_AWAY in notice.text
    assert TRY_AGAIN not in notice.text.casefold()
    await store.redis.config_set("maxmemory", "0")
    for raw in raws:
        await run(process, bot, raw, attempt=1)
    assert [m.text for m in said(fake_api, group)][1:] == ["сказано"] * 3
    await store.redis.config_set("maxmemory", "1")
    fake_api.send_text(group, anya, "/say")
    [raw] = fake_api.take_updates()
    with pytest.raises(STORAGE_ERRORS):
        await run(process, bot, raw)
    assert MEMORY_AWAY in said(fake_api, group)[-1].text
    await store.redis.config_set("maxmemory", "0")


async def test_a_notice_whose_floor_cannot_be_raised_does_not_fail_the_next_update(
    fake_api: FakeBotApi,
    bot: Bot,
    store: Store,
    redis_server: RedisServer,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    table = Table(store)
    process = table.process()
    anya = fake_api.add_user("Аня")
    group = fake_api.add_group("Стол", owner=anya)
    redis_server.stop()
    fake_api.send_text(group, anya, "/say")
    [raw] = fake_api.take_updates()
    with pytest.raises(STORAGE_ERRORS):
        await run(process, bot, raw)
    [notice] = said(fake_api, group)
    assert MEMORY_AWAY in notice.text
    redis_server.start()

    async def refused(chat_id: int, message_id: int) -> None:
        raise OutOfMemoryError("command not allowed when used memory > 'maxmemory'.")

    monkeypatch.setattr(store, "note_sent", refused)
    await run(process, bot, raw, attempt=1)
    assert [m.text for m in said(fake_api, group)] == [notice.text, "сказано"]
    monkeypatch.undo()
    fake_api.send_text(group, anya, "/say")
    [raw] = fake_api.take_updates()
    await run(process, bot, raw)  # the floor goes over the notice now
    assert await store.last_sent(group.id) >= notice.message_id
