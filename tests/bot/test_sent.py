"""A send whose answer was lost is looked for before it is sent again (bot/sent.py), against
the project's fake Bot API: it applies a call and then answers 502, as a front end that lost
Telegram's answer does."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager, contextmanager

import fakeredis
import pytest
from aiogram import Bot
from aiogram.exceptions import TelegramServerError
from redis.exceptions import ConnectionError as RedisConnectionError

from bot.scope import scope_of, scoped_bot
from bot.sent import Outbox, Unrecorded
from localapi.server import FakeBotApi, FakeChat
from table.scope import Scope
from table.store import Journal, Store, UpdateRef
from tests.bot.sessions import bot_without_pauses


@pytest.fixture
async def bot(fake_api: FakeBotApi) -> AsyncIterator[Bot]:
    async with bot_without_pauses(fake_api) as bot:
        yield bot


@pytest.fixture
def store() -> Store:
    return Store(fakeredis.FakeAsyncRedis(decode_responses=True))


@pytest.fixture
def group(fake_api: FakeBotApi) -> FakeChat:
    return fake_api.add_group("Стол", owner=fake_api.add_user("Аня"))


@contextmanager
def in_update(
    bot: Bot,
    store: Store,
    chat_id: int,
    *,
    after_crash: bool = False,
    journal: Journal | None = None,
) -> Iterator[tuple[Bot, Outbox]]:
    """An update's outbox in its scope, and the Bot that carries that scope (bot/scope.py)."""
    box = Outbox(store, chat_id, after_crash=after_crash)
    yield scoped_bot(bot, Scope(outbox=box, journal=journal)), box


@asynccontextmanager
async def update(bot: Bot, store: Store, chat_id: int) -> AsyncIterator[Bot]:
    """An update's handling: its outbox, and at its finish the chat's floor raised."""
    with in_update(bot, store, chat_id) as (scoped, box):
        yield scoped
    if box.sent() is not None:
        await store.note_sent(chat_id, box.newest)


def bot_texts(api: FakeBotApi, chat: FakeChat) -> list[str]:
    return [m.text for m in chat.messages if m.sender_id == api.bot.id]


async def test_a_send_applied_then_answered_502_is_not_sent_again(
    fake_api: FakeBotApi, bot: Bot, store: Store, group: FakeChat
) -> None:
    anya = fake_api.add_user("Борис")
    command = fake_api.send_text(group, anya, "/r 5 6")
    fake_api.fail_after_applying("sendMessage", status=502)
    with in_update(bot, store, group.id) as (scoped, box):
        message = await scoped.send_message(
            group.id, "Борис: 3 успеха", reply_to_message_id=command.message_id
        )
        assert box.sent() == message.message_id
    assert bot_texts(fake_api, group) == ["Борис: 3 успеха"]
    [shown] = [m for m in group.messages if m.sender_id == fake_api.bot.id]
    assert message.message_id == shown.message_id  # what the handler stores is the real id
    assert len(fake_api.calls_to("sendMessage")) == 1
    assert fake_api.calls_to("editMessageCaption")  # it looked before anything else


@pytest.mark.parametrize("status", [502, 504])
async def test_a_send_applied_then_answered_with_an_html_page_is_not_sent_again(
    fake_api: FakeBotApi, bot: Bot, store: Store, group: FakeChat, status: int
) -> None:
    """nginx in front of the Bot API lost Telegram's answer and sends its own HTML page: no
    JSON to read, so the send may have been applied, and it is looked for as after a 5xx."""
    fake_api.fail_after_applying("sendMessage", status=status, page=True)
    with in_update(bot, store, group.id) as (scoped, box):
        message = await scoped.send_message(group.id, "Аня: 2 успеха")
        assert box.sent() == message.message_id
    assert bot_texts(fake_api, group) == ["Аня: 2 успеха"]
    [call] = fake_api.calls_to("sendMessage")
    assert call.page
    assert call.applied


async def test_a_send_answered_with_an_html_page_before_applying_is_sent_again_once(
    fake_api: FakeBotApi, bot: Bot, store: Store, group: FakeChat
) -> None:
    fake_api.fail_next("sendMessage", status=502, page=True)
    with in_update(bot, store, group.id) as (scoped, _box):
        await scoped.send_message(group.id, "результат")
    assert bot_texts(fake_api, group) == ["результат"]
    assert [c.page for c in fake_api.calls_to("sendMessage")] == [True, False]


async def test_a_send_that_failed_before_applying_is_sent_again_once(
    fake_api: FakeBotApi, bot: Bot, store: Store, group: FakeChat
) -> None:
    fake_api.fail_next("sendMessage", status=502)
    with in_update(bot, store, group.id) as (scoped, _box):
        await scoped.send_message(group.id, "результат")
    assert bot_texts(fake_api, group) == ["результат"]
    assert len(fake_api.calls_to("sendMessage")) == 2


async def test_the_bots_older_messages_are_below_the_floor_and_never_taken_for_the_lost_one(
    fake_api: FakeBotApi, bot: Bot, store: Store, group: FakeChat
) -> None:
    """The floor comes from Redis, where each finished update leaves the newest message it
    sent: a bot message from an earlier update, and players' messages, are passed over."""
    vera = fake_api.add_user("Вера")
    async with update(bot, store, group.id) as scoped:
        await scoped.send_message(group.id, "раньше")
    for n in range(4):
        fake_api.send_text(group, vera, f"реплика {n}")
    fake_api.fail_next("sendMessage", status=502)
    async with update(bot, store, group.id) as scoped:
        await scoped.send_message(group.id, "сейчас")
    assert bot_texts(fake_api, group) == ["раньше", "сейчас"]  # not lost, not twice

    for n in range(3):
        fake_api.send_text(group, vera, f"ещё {n}")
    fake_api.fail_after_applying("sendMessage", status=503)
    async with update(bot, store, group.id) as scoped:
        found = await scoped.send_message(group.id, "и ещё")
    assert bot_texts(fake_api, group) == ["раньше", "сейчас", "и ещё"]
    assert group.messages[-1].message_id == found.message_id


async def test_a_private_send_applied_then_answered_502_is_found_across_the_id_gaps(
    fake_api: FakeBotApi, bot: Bot, store: Store
) -> None:
    """A private chat is numbered with the user's ids, which their other chats take too:
    the bot's lost message sits past a run of ids that hold nothing here, and is found."""
    anya = fake_api.add_user("Аня")
    private = fake_api.open_private_chat(anya, id_gaps=(0, 6, 9))
    async with update(bot, store, private.id) as scoped:
        await scoped.send_message(private.id, "раньше")
    command = fake_api.send_text(private, anya, "/r 5 6")
    fake_api.fail_after_applying("sendMessage", status=502)
    async with update(bot, store, private.id) as scoped:
        found = await scoped.send_message(
            private.id, "Аня: 3 успеха", reply_to_message_id=command.message_id
        )
    assert bot_texts(fake_api, private) == ["раньше", "Аня: 3 успеха"]
    assert found.message_id == private.messages[-1].message_id > command.message_id + 3
    assert len(fake_api.calls_to("sendMessage")) == 2


async def test_a_run_after_a_crash_finds_what_the_dead_run_delivered(
    fake_api: FakeBotApi, bot: Bot, store: Store, group: FakeChat
) -> None:
    """The process died after Telegram applied its result and before the update finished:
    the run in the next process looks above the floor first, past a burst of players'
    commands, finds the dead run's message, and sends only what the dead run never got to."""
    anya, vera = fake_api.add_user("Аня"), fake_api.add_user("Вера")
    async with update(bot, store, group.id) as scoped:
        await scoped.send_message(group.id, "раньше")
    command = fake_api.send_text(group, anya, "/r 5 6")
    for n in range(15):
        fake_api.send_text(group, vera, f"/r {n} 6")
    # the run that died: nothing finished, no floor raised
    with in_update(bot, store, group.id) as (scoped, _box):
        shown = await scoped.send_message(
            group.id, "Аня: 3 успеха", reply_to_message_id=command.message_id
        )
    with in_update(bot, store, group.id, after_crash=True) as (scoped, box):
        found = await scoped.send_message(
            group.id, "Аня: 3 успеха", reply_to_message_id=command.message_id
        )
        more = await scoped.send_message(group.id, "Продлить?")
        assert box.sent() == more.message_id
    assert found.message_id == shown.message_id
    assert bot_texts(fake_api, group) == ["раньше", "Аня: 3 успеха", "Продлить?"]
    assert len(fake_api.calls_to("sendMessage")) == 3


async def test_a_run_after_a_crash_that_finds_nothing_sends_as_usual(
    fake_api: FakeBotApi, bot: Bot, store: Store, group: FakeChat
) -> None:
    """The dead run got no further than its writes: the first send is looked for once, then
    everything is sent without looking again."""
    with in_update(bot, store, group.id, after_crash=True) as (scoped, _box):
        await scoped.send_message(group.id, "Аня: 3 успеха")
        await scoped.send_message(group.id, "Продлить?")
    assert bot_texts(fake_api, group) == ["Аня: 3 успеха", "Продлить?"]
    probes = len(fake_api.calls_to("editMessageCaption"))
    assert 1 <= probes <= 3  # one search, ended by the ids that hold nothing


async def test_a_run_put_off_writes_down_what_it_delivered_for_the_next_process(
    fake_api: FakeBotApi, bot: Bot, store: Store, group: FakeChat
) -> None:
    """A run met an outage after its sends and was put off (``postpone_update``, in the same
    round-trip): a run in another process later repeats those sends from the journal without
    sending them, in both chats."""
    anya = fake_api.add_user("Аня")
    private = fake_api.open_private_chat(anya)
    shown = []
    for _run in range(2):
        _, _, journal, _ = await store.begin_update(
            UpdateRef(7, 900, group.id, group.id, "p"), force=True, seed=bytes(32)
        )
        with in_update(bot, store, group.id, journal=journal) as (scoped, box):
            shown.append(await scoped.send_message(group.id, "Аня: 3 успеха"))
            await scoped.send_message(private.id, "тайно: 7 3 1")
            scope = scope_of(scoped)
            assert scope is not None
            await store.bound(scope).postpone_update(7, 900, group.id, sent=box.sent())
    assert bot_texts(fake_api, group) == ["Аня: 3 успеха"]
    assert bot_texts(fake_api, private) == ["тайно: 7 3 1"]
    assert shown[0].message_id == shown[1].message_id
    assert len(fake_api.calls_to("sendMessage")) == 2


async def test_a_send_to_another_chat_is_not_looked_for(
    fake_api: FakeBotApi, bot: Bot, store: Store, group: FakeChat
) -> None:
    """Only the running update's own chat has an exact floor; elsewhere a lost answer is
    retried as before (a repeat shows the same result). What it sent there raises that
    chat's floor, so a lost send of that chat's own update never takes it for its own."""
    other = fake_api.add_group("Другой стол", owner=fake_api.add_user("Глеб"))
    fake_api.fail_next("sendMessage", status=500)
    with in_update(bot, store, group.id) as (scoped, _box):
        sent = await scoped.send_message(other.id, "в личку")
    assert not fake_api.calls_to("editMessageCaption")
    assert bot_texts(fake_api, other) == ["в личку"]
    assert await store.last_sent(other.id) == sent.message_id


async def test_outside_an_update_nothing_is_looked_for(
    fake_api: FakeBotApi, bot: Bot, group: FakeChat
) -> None:
    fake_api.fail_next("sendMessage", status=502, count=4)
    with pytest.raises(TelegramServerError):
        await bot.send_message(group.id, "никому")
    assert not fake_api.calls_to("editMessageCaption")


async def test_the_floor_survives_in_redis_and_only_rises(store: Store) -> None:
    assert await store.last_sent(-5) == 0
    await store.note_sent(-5, 40)
    await store.note_sent(-5, 12)
    assert await store.last_sent(-5) == 40
    await store.finish_update(7, 1, -5, "t", sent=41)
    assert await store.last_sent(-5) == 41


async def test_a_send_to_another_chat_while_redis_is_away_raises_its_floor_before_its_next_update(
    fake_api: FakeBotApi, bot: Bot, store: Store, group: FakeChat, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The other chat's floor could not be raised after the send: the process keeps the
    message, and raises that floor once it can, before that chat's next update."""
    other = fake_api.add_group("Другой стол", owner=fake_api.add_user("Глеб"))

    async def away(*args: object, **kwargs: object) -> None:
        raise RedisConnectionError("away")

    # A group's send takes its send turn, whose end raises the floor (table/store/posts.py).
    for name in ("note_sent", "take_send_turn", "end_send_turn"):
        monkeypatch.setattr(store, name, away)
    with in_update(bot, store, group.id) as (scoped, box):
        box.unrecorded = unrecorded = Unrecorded()
        sent = await scoped.send_message(other.id, "в личку")
    monkeypatch.undo()
    assert await store.last_sent(other.id) == 0
    assert unrecorded.newest == {other.id: sent.message_id}
    await unrecorded.record(store, other.id)
    assert await store.last_sent(other.id) == sent.message_id
    assert unrecorded.newest == {}
