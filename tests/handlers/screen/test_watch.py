"""The screen's own redraw after the group's changes, pure parts: where the open screen is,
which updates may change it, and the pace of its edits (handlers/screen/watch.py)."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from typing import cast

from aiogram import Bot
from aiogram.types import CallbackQuery, Chat, Message, Update, User

from handlers.screen.watch import MIN_GAP, Pace, Pointer, changes_the_table, refresh
from table.store import Store

GROUP = Chat(id=-100, type="supergroup", title="Хроника")
PRIVATE = Chat(id=9, type="private", first_name="Mira")
ANNA = User(id=1, is_bot=False, first_name="Anna")


def said(text: str, chat: Chat = GROUP) -> Update:
    message = Message(message_id=1, date=datetime.now(UTC), chat=chat, from_user=ANNA, text=text)
    return Update(update_id=1, message=message)


def test_the_pointer_reads_back_and_anything_else_is_none() -> None:
    pointer = Pointer(9, "AbC-_1", 1004)
    assert Pointer.parse(pointer.stored()) == pointer
    for raw in (None, "", "9:x", "a:b:c", "9::4", "9:x:y", "1:2:3:4"):
        assert Pointer.parse(raw) is None


def test_a_groups_command_or_press_may_change_the_table_talk_and_the_screen_do_not() -> None:
    assert changes_the_table(said("/dmg Anna 1 л"), GROUP)
    assert not changes_the_table(said("просто разговор"), GROUP)
    assert not changes_the_table(said("/screen", PRIVATE), PRIVATE)
    query = CallbackQuery(id="q", from_user=ANNA, chat_instance="c", data="x")
    assert changes_the_table(Update(update_id=2, callback_query=query), GROUP)
    assert not changes_the_table(None, GROUP)


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


async def test_a_burst_of_changes_is_one_edit_a_second_the_last_at_its_end() -> None:
    clock = Clock()
    pace = Pace(clock=clock)
    drawn: list[float] = []

    async def redraw() -> bool:
        drawn.append(clock.now)
        return True

    await pace.run("s", redraw)  # the first change: at once
    assert drawn == [100.0]
    clock.now += MIN_GAP - 0.02  # within the second: left to one redraw at its end
    await pace.run("s", redraw)
    await pace.run("s", redraw)
    await pace.run("s", redraw)
    assert drawn == [100.0]
    assert len(pace.tasks) == 1
    await asyncio.gather(*pace.tasks)
    assert len(drawn) == 2  # three changes, one edit
    assert not pace.waiting
    await pace.run("other", redraw)  # another screen keeps its own pace
    assert len(drawn) == 3


async def test_an_unchanged_screen_spends_no_edit() -> None:
    clock = Clock()
    pace = Pace(clock=clock)
    calls: list[int] = []

    async def unchanged() -> bool:
        calls.append(1)
        return False

    await pace.run("s", unchanged)
    await pace.run("s", unchanged)
    assert calls == [1, 1]  # nothing was edited, so nothing waits
    assert not pace.tasks


async def test_a_change_from_the_mini_app_forgets_an_expired_screen(fake_store: Store) -> None:
    """``refresh`` (the Mini App's hand-off): no pointer, nothing read; a pointer to a screen
    whose flow expired is cleared, so the campaign stops looking for it."""
    await refresh(cast(Bot, None), fake_store, -100, None)
    await fake_store.update_chat(-100, screen="9:gone:1004")
    await refresh(cast(Bot, None), fake_store, -100, "9:gone:1004")
    assert (await fake_store.load_chat(-100)).screen is None
