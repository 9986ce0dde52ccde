"""A Redis that is away at start-up: the data's layout cannot be checked then, so no update
runs until it has been (bot/app.py ``LayoutGate``); once Redis answers, the layout is brought
up to date and the bot answers again (README "Upgrading")."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from aiogram import Router
from aiogram.filters import Command
from aiogram.methods import SendMessage
from aiogram.types import Message
from redis import Redis as SyncRedis

from bot.app import LAYOUT_GATE_KEY, LayoutGate, create_dispatcher
from bot.i18n import LOCALES_DIR, load_i18n
from bot.settings import Settings
from table.store import Store, legacy
from table.store.legacy import LAYOUT, LAYOUT_KEY
from tests.bot.telegram_fakes import TOKEN, make_bot, text_update
from tests.conftest import REDIS_SERVER, RedisServer


@pytest.fixture
def redis_later(tmp_path: Path) -> Iterator[RedisServer]:
    """A redis-server with its port chosen and not yet started: Redis away at start-up."""
    if not Path(REDIS_SERVER).exists():
        pytest.skip("redis-server is not installed")
    server = RedisServer(tmp_path)
    try:
        yield server
    finally:
        server.stop()


async def test_no_update_runs_before_the_layout_is_checked(
    redis_later: RedisServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(legacy, "RETRY_PAUSE", 3600.0)  # the test says when Redis is tried again
    router = Router()
    ran: list[str] = []

    @router.message(Command("ping"))
    async def ping(message: Message) -> None:
        ran.append("ping")
        await message.answer("pong")

    settings = Settings(_env_file=None, bot_token=TOKEN, redis_url=redis_later.url)  # type: ignore[call-arg]
    store = Store.from_url(redis_later.url)
    dispatcher = create_dispatcher(settings, store, load_i18n(LOCALES_DIR, "ru"), routers=[router])
    bot, session = make_bot()
    gate: LayoutGate = dispatcher[LAYOUT_GATE_KEY]
    workflow = {**dispatcher.workflow_data, "dispatcher": dispatcher, "bot": bot}
    try:
        await dispatcher.emit_startup(**workflow)
        assert not gate.open

        # Redis is back, but the layout is not checked yet: the update is held back, and the
        # player told the table's memory is away.
        redis_later.start()
        await dispatcher.feed_update(bot, text_update("/ping"))
        assert ran == []
        told = [r for r in session.requests if isinstance(r, SendMessage)]
        assert told
        assert "memory is unavailable" in told[-1].text

        await gate.open_when_migrated(store)  # what the start-up's retry does
        assert gate.open
        with SyncRedis(port=redis_later.port, decode_responses=True) as client:
            assert client.get(LAYOUT_KEY) == LAYOUT
        await dispatcher.feed_update(bot, text_update("/ping"))
        assert ran == ["ping"]
    finally:
        await dispatcher.emit_shutdown(**workflow)


async def test_data_of_a_newer_release_keeps_the_gate_shut(
    redis_later: RedisServer,
) -> None:
    redis_later.start()
    with SyncRedis(port=redis_later.port, decode_responses=True) as client:
        client.set(LAYOUT_KEY, str(int(LAYOUT) + 1))
    store = Store.from_url(redis_later.url)
    try:
        gate = LayoutGate()
        gate.open = False
        await gate.open_when_migrated(store)
        assert not gate.open
    finally:
        await store.close()
