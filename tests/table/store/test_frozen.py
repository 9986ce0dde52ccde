"""A Redis frozen under a table's rolls (a stalled host, a long fork): the calls in flight
time out, redis-py sends them again without knowing whether they ran, and the updates are
put off and run again, as bot/middlewares.py does. When Redis wakes it runs everything it
had read, the first sends included, and still every roll is one log line and one count in
/stats (ARCHITECTURE.md "Nothing lost, nothing twice")."""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import signal
import time
from collections.abc import AsyncIterator
from typing import ClassVar

import pytest

from table.scope import Actor, Scope
from table.store import (
    REDIS_ERRORS,
    STORAGE_ERRORS,
    Begun,
    FlowState,
    LogEntry,
    Store,
    UpdateRef,
    log_key,
    stats_key,
)
from table.store.base import COMMAND_TIMEOUT
from tests.conftest import RedisServer
from tests.table.store.scoping import bound_to

BOT, USER, TOKEN = 7, 42, "replica-a"
CHATS = 50  # a roll of each in flight when Redis freezes
ROLLS = 3  # rolls per chat, one after another: the middle one meets the freeze
FREEZE = 2.0  # seconds: twice the command timeout


class Rolled(FlowState):
    kind: ClassVar[str] = "test-frozen-roll"

    pool: int = 0


@pytest.fixture
async def store(redis_server: RedisServer) -> AsyncIterator[Store]:
    opened = Store.from_url(redis_server.url)
    await opened.load_scripts()
    try:
        yield opened
    finally:
        await opened.close()


class Table:
    """The rolls of every chat, each run until it is finished, and what the outage did."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self.waiting = 0
        self.all_waiting = asyncio.Event()
        self.frozen = asyncio.Event()
        self.put_off = 0  # runs put off after an outage
        self.resent = 0  # writes that outlived the command timeout: redis-py sent them again

    async def roll(self, chat: int, update_id: int, pool: int, *, gated: bool = False) -> None:
        """One update: begin, the roll's write with its log line, finish; run again after
        an outage until it is done. A ``gated`` one sends its write once Redis is frozen."""
        ref = UpdateRef(BOT, update_id, chat, chat, TOKEN)
        while True:
            try:
                status, _, journal, _ = await self.store.begin_update(
                    ref, force=True, seed=secrets.token_bytes(32)
                )
                if status is Begun.DONE:
                    return
                assert status is Begun.GO, status
                assert journal is not None
                if gated and not self.frozen.is_set():
                    self.waiting += 1
                    if self.waiting == CHATS:
                        self.all_waiting.set()
                    await self.frozen.wait()
                entry = LogEntry(
                    user_id=USER,
                    name="Аня",
                    pool=pool,
                    difficulty=6,
                    successes=1,
                    faces=(7,),
                    outcome="success",
                )
                sent = time.monotonic()
                with bound_to(
                    self.store, Scope(journal=journal, actor=Actor(USER, "player"))
                ) as bound:
                    await bound.create_flow(Rolled(pool=pool), chat, USER, entries=[entry])
                if time.monotonic() - sent > COMMAND_TIMEOUT:
                    self.resent += 1
                await self.store.finish_update(BOT, update_id, chat, TOKEN)
                return
            except STORAGE_ERRORS:
                self.put_off += 1
                with contextlib.suppress(*REDIS_ERRORS):
                    await self.store.postpone_update(BOT, update_id, chat)
                await asyncio.sleep(0.1)

    async def chat(self, chat: int) -> None:
        for n in range(ROLLS):
            await self.roll(chat, chat * 100 + n, pool=n + 1, gated=n == 1)


async def test_a_frozen_redis_logs_and_counts_every_roll_once(
    store: Store, redis_server: RedisServer
) -> None:
    assert redis_server.process is not None
    table = Table(store)
    chats = [asyncio.create_task(table.chat(chat)) for chat in range(-1000, -1000 - CHATS, -1)]
    await asyncio.wait_for(table.all_waiting.wait(), 60)
    redis_server.process.send_signal(signal.SIGSTOP)
    try:
        table.frozen.set()  # every chat's roll sends its write now, into the frozen server
        await asyncio.sleep(FREEZE)
    finally:
        redis_server.process.send_signal(signal.SIGCONT)
    started = time.monotonic()
    await asyncio.wait_for(asyncio.gather(*chats), 120)
    assert time.monotonic() - started < 120
    for chat in range(-1000, -1000 - CHATS, -1):
        lines = await store.redis.lrange(log_key(chat), 0, -1)
        assert sorted(lines) == sorted(set(lines)), f"a roll logged twice in {chat}"
        assert len(lines) == ROLLS, chat
        counted = await store.redis.hmget(stats_key(chat), ["logged", f"r:{USER}"])
        assert counted == [str(ROLLS), str(ROLLS)], chat
    # The outage reached every roll in flight: its write timed out and was sent again, or
    # failed and the update was put off and run again.
    assert table.resent + table.put_off >= CHATS, (table.resent, table.put_off)
