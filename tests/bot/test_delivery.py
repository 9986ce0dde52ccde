"""The order a chat's updates run in (bot/delivery.py): the oldest first, even when an older
one comes back from the inbox (a dead replica had taken it) after later ones were queued."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import fakeredis
from aiogram.exceptions import TelegramServerError
from aiogram.methods import GetUpdates, SendMessage
from aiogram.types import Update
from redis.exceptions import (
    ClusterDownError,
    MovedError,
    SlotNotCoveredError,
    TryAgainError,
)
from redis.exceptions import (
    ConnectionError as RedisConnectionError,
)

from bot import delivery
from bot.delivery import Delivery
from bot.i18n import LOCALES_DIR, load_i18n
from bot.middlewares import ChatBusy, DeadRunFirst
from bot.settings import Settings
from localapi.patience import patient
from table.store import Store, running_key
from tests.bot.telegram_fakes import GROUP, make_bot, text_update, user


class Dispatcher:
    """Runs nothing: notes the order, and answers «busy» while the chat is held elsewhere."""

    def __init__(self) -> None:
        self.held = True
        self.handled: list[int] = []

    async def feed_update(self, bot: object, update: Update, **kwargs: Any) -> None:
        if self.held:
            raise ChatBusy(GROUP.id)
        self.handled.append(update.update_id)


def raw(update_id: int) -> dict[str, Any]:
    update = text_update("/r 5 6", chat=GROUP, from_user=user())
    data = update.model_dump(mode="json", exclude_none=True)
    data["update_id"] = update_id
    return data


async def test_an_older_update_found_later_runs_before_the_later_ones(monkeypatch: Any) -> None:
    monkeypatch.setattr(delivery, "BUSY_PAUSE", 0.01)
    monkeypatch.setattr(delivery, "BUSY_PAUSE_MAX", 0.02)
    bot, _session = make_bot()
    dispatcher = Dispatcher()
    runner = Delivery(
        dispatcher,  # type: ignore[arg-type]
        bot,
        Store(fakeredis.FakeAsyncRedis(decode_responses=True)),
        take_over=False,
    )
    runner.submit(raw(12))
    runner.submit(raw(13))
    await asyncio.sleep(0.05)  # 12 waits for the chat's lock, held by a dead replica
    runner.submit(raw(11))  # which had taken 11: the inbox gives it back
    runner.submit(raw(11))  # found twice: queued once
    await asyncio.sleep(0.05)
    dispatcher.held = False  # the dead replica's lock ran out
    for _ in range(100):
        if len(dispatcher.handled) == 3:
            break
        await asyncio.sleep(0.01)
    assert dispatcher.handled == [11, 12, 13]
    assert not runner._known


async def test_polling_outlives_any_redis_error_and_anything_else(monkeypatch: Any) -> None:
    """A Redis Cluster missing a primary raises CLUSTERDOWN, MOVED or TRYAGAIN rather than a
    connection error; none of those, nor a bug, may end the polling loop: the batch stays
    unconfirmed (the same offset is asked again) until it is in the inbox."""
    monkeypatch.setattr(delivery, "POLL_BACKOFF", (0.0,))
    bot, _session = make_bot()
    runner = Delivery(
        Dispatcher(),  # type: ignore[arg-type]
        bot,
        Store(fakeredis.FakeAsyncRedis(decode_responses=True)),
        take_over=True,
    )
    faults: list[BaseException] = [
        ClusterDownError("The cluster is down"),
        TryAgainError("TRYAGAIN"),
        MovedError("3999 127.0.0.1:6381"),
        SlotNotCoveredError("slot 3999 is not covered"),
        RuntimeError("a bug"),
    ]
    offsets: list[int | None] = []
    batch = [Update.model_validate(raw(21))]

    async def get_updates(method: GetUpdates, **kwargs: Any) -> list[Update]:
        await asyncio.sleep(0)
        offsets.append(method.offset)
        return batch

    async def receive(raws: list[dict[str, Any]], updates: object = None) -> None:
        if faults:
            raise faults.pop(0)
        runner.stop()

    runner.bot = get_updates  # type: ignore[assignment]
    monkeypatch.setattr(runner, "receive", receive)
    await asyncio.wait_for(runner.poll([]), patient(5))
    assert offsets == [None] * 6  # never confirmed before it was kept
    assert not faults


class KeepingDispatcher:
    """Stands for the update's first step: keeps it in the inbox as ``begin_update`` does
    (or fails to, like Redis away), then notes it."""

    def __init__(self, store: Store, *, fails: bool = False) -> None:
        self.store = store
        self.fails = fails
        self.handled: list[int] = []

    async def feed_update(self, bot: Any, update: Update, **kwargs: Any) -> None:
        entry = kwargs.get("inbox_entry")
        if self.fails:
            raise RuntimeError("the first step failed")
        if entry is not None:
            await self.store.inbox_add(bot.id, {update.update_id: entry})
            kwargs["on_kept"]()
        self.handled.append(update.update_id)


async def test_an_update_its_chat_runs_at_once_is_kept_by_its_first_step(
    monkeypatch: Any,
) -> None:
    """One round-trip less per update: the fetch does not write what the update's first step
    writes, and it returns only once the update is in the inbox."""
    bot, _session = make_bot()
    store = Store(fakeredis.FakeAsyncRedis(decode_responses=True))
    dispatcher = KeepingDispatcher(store)
    runner = Delivery(dispatcher, bot, store, take_over=True)  # type: ignore[arg-type]
    writes: list[list[int]] = []
    original = store.inbox_add

    async def counted(bot_id: int, updates: dict[int, str]) -> None:
        writes.append(sorted(updates))
        await original(bot_id, updates)

    monkeypatch.setattr(store, "inbox_add", counted)
    first, second = raw(21), raw(22)  # the same chat: the second waits behind the first
    await runner.receive([first, second], [Update.model_validate(r) for r in (first, second)])
    assert writes[0] == [22]  # the fetch's own write: only the one queued behind
    assert 21 in await store.inbox(bot.id)  # kept by its first step before receive returned
    for _ in range(100):
        if len(dispatcher.handled) == 2:
            break
        await asyncio.sleep(0.01)
    assert dispatcher.handled == [21, 22]


async def test_an_update_whose_first_step_failed_is_kept_by_the_fetch(monkeypatch: Any) -> None:
    monkeypatch.setattr(delivery, "RETRY_PAUSE", (5.0,))
    bot, _session = make_bot()
    store = Store(fakeredis.FakeAsyncRedis(decode_responses=True))
    runner = Delivery(
        KeepingDispatcher(store, fails=True),  # type: ignore[arg-type]
        bot,
        store,
        take_over=True,
    )
    update = raw(31)
    await asyncio.wait_for(runner.receive([update], [Update.model_validate(update)]), 2)
    assert 31 in await store.inbox(bot.id)


class Marked:
    """Stands for the update's first step with the chat's running mark: an update begins only
    if no other update's run is marked (else ``DeadRunFirst`` names it), marks itself, and
    clears the mark as it finishes."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.handled: list[int] = []

    async def feed_update(self, bot: Any, update: Update, **kwargs: Any) -> None:
        marks = running_key(bot.id, GROUP.id)
        marked = await self.store.redis.get(marks)
        if marked is not None and int(marked) != update.update_id:
            raise DeadRunFirst(GROUP.id, int(marked))
        self.handled.append(update.update_id)
        await self.store.redis.delete(marks)


async def test_the_update_of_a_run_that_died_runs_before_the_one_that_found_its_mark() -> None:
    """A newer update whose run died on another replica, in the inbox only, runs before the
    older ones queued here: nothing of the chat finishes before it (bot/sent.py)."""
    bot, _session = make_bot()
    store = Store(fakeredis.FakeAsyncRedis(decode_responses=True))
    dispatcher = Marked(store)
    await store.inbox_add(bot.id, {15: json.dumps(raw(15))})
    await store.redis.set(running_key(bot.id, GROUP.id), "15")
    runner = Delivery(dispatcher, bot, store, take_over=False)  # type: ignore[arg-type]
    runner.submit(raw(12))
    runner.submit(raw(13))
    for _ in range(100):
        if len(dispatcher.handled) == 3:
            break
        await asyncio.sleep(0.01)
    assert dispatcher.handled == [15, 12, 13]
    assert not runner._known
    assert not runner._first


async def test_a_mark_whose_update_left_the_inbox_is_cleared_and_holds_nothing_up() -> None:
    bot, _session = make_bot()
    store = Store(fakeredis.FakeAsyncRedis(decode_responses=True))
    dispatcher = Marked(store)
    await store.redis.set(running_key(bot.id, GROUP.id), "15")  # finished or dropped since
    runner = Delivery(dispatcher, bot, store, take_over=False)  # type: ignore[arg-type]
    runner.submit(raw(12))
    runner.submit(raw(13))
    for _ in range(100):
        if len(dispatcher.handled) == 2:
            break
        await asyncio.sleep(0.01)
    assert dispatcher.handled == [12, 13]
    assert await store.redis.get(running_key(bot.id, GROUP.id)) is None


class Failing:
    """Fails each update with the errors given, in turn, then runs it."""

    def __init__(self, *errors: BaseException) -> None:
        self.errors = list(errors)
        self.handled: list[int] = []

    async def feed_update(self, bot: object, update: Update, **kwargs: Any) -> None:
        if self.errors:
            raise self.errors.pop(0)
        self.handled.append(update.update_id)


async def test_an_update_is_never_dropped_while_redis_is_away(monkeypatch: Any) -> None:
    """Past GIVE_UP_AFTER an update that met Redis away is still run again: its result comes
    once Redis is back (only Telegram refusing the result drops an update)."""
    monkeypatch.setattr(delivery, "RETRY_PAUSE", (0.0,))
    bot, _session = make_bot()
    dispatcher = Failing(*(RedisConnectionError("away") for _ in range(8)))
    runner = Delivery(
        dispatcher,  # type: ignore[arg-type]
        bot,
        Store(fakeredis.FakeAsyncRedis(decode_responses=True)),
        take_over=True,
    )
    runner.give_up_after = 0.0
    runner.submit(raw(31))
    for _ in range(100):
        if dispatcher.handled:
            break
        await asyncio.sleep(0.01)
    assert dispatcher.handled == [31]
    assert not runner._known


class Stopped:
    """A Dispatcher whose updates meet Telegram refusing their result, with the data every
    handler gets (bot/app.py): the i18n and the settings."""

    def __init__(self) -> None:
        self.workflow_data = {
            "i18n": load_i18n(LOCALES_DIR, "ru"),
            "settings": Settings(_env_file=None, give_up_after=1.0),  # type: ignore[call-arg]
        }

    async def feed_update(self, bot: object, update: Update, **kwargs: Any) -> None:
        raise TelegramServerError(SendMessage(chat_id=GROUP.id, text="x"), "Bad Gateway")


async def test_a_dropped_update_is_told_in_reply_in_its_players_language_once_telegram_takes_it(
    monkeypatch: Any,
) -> None:
    monkeypatch.setattr(delivery, "RETRY_PAUSE", (0.0,))
    bot, session = make_bot()
    store = Store(fakeredis.FakeAsyncRedis(decode_responses=True))
    runner = Delivery(Stopped(), bot, store, take_over=True)  # type: ignore[arg-type]
    assert runner.give_up_after == 1.0  # GIVE_UP_AFTER
    runner.give_up_after = 0.0
    # The notice itself meets Telegram away once more, and goes when it is back.
    session.fail_next("sendMessage", TelegramServerError(SendMessage(chat_id=1, text="x"), "x"))
    update = raw(41)  # a player whose Telegram speaks English, in a chat with no /lang
    runner.submit(update)
    for _ in range(200):
        if session.calls("sendMessage") and not runner._known:
            break
        await asyncio.sleep(0.01)
    [_failed, notice] = session.calls("sendMessage")
    assert isinstance(notice, SendMessage)
    assert notice.chat_id == GROUP.id
    assert notice.reply_parameters is not None
    assert notice.reply_parameters.message_id == update["message"]["message_id"]
    assert notice.text.startswith("The result could not be shown")
    assert "Everything it spent" not in notice.text  # it spent nothing


def test_the_drop_notice_claims_only_what_the_drop_did() -> None:
    """Paid points are back, but what else the update wrote stays: the player is never told
    all is undone, nor asked to simply send again what would then be made twice."""
    i18n = load_i18n(LOCALES_DIR, "ru")
    with i18n.context(), i18n.use_locale("ru"):
        paid = delivery.dropped_text(refunded=True, wrote=True)
        wrote = delivery.dropped_text(refunded=False, wrote=True)
        nothing = delivery.dropped_text(refunded=False, wrote=False)
    assert "Всё потраченное вернулось на лист" in paid
    assert "остальные изменения, если они были, сохранились" in paid
    assert "потрачен" not in wrote
    assert "Изменения, если они были, сохранились" in wrote
    assert "Проверьте, прежде чем повторять" in paid
    assert "Проверьте, прежде чем повторять" in wrote
    assert "Повторите, если это ещё нужно" in nothing
    assert len({paid, wrote, nothing}) == 3
