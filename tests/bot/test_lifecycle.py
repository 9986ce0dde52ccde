"""Start-up and graceful shutdown of long polling, with a recording session.

A stop must not cut a roll in half: the update being handled finishes and its reply goes out
before the session and Redis are closed.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

from aiogram import Bot, Router
from aiogram.filters import Command
from aiogram.methods import GetUpdates, SetMyCommands, TelegramMethod
from aiogram.methods.base import TelegramType
from aiogram.types import Message
from aiogram.utils.i18n import I18n

from bot.app import create_dispatcher, make_bot
from bot.settings import Settings
from localapi.patience import patient
from table.store import Store
from tests.bot.telegram_fakes import TOKEN, RecordingSession, text_update


class PollingSession(RecordingSession):
    """getUpdates yields the scripted updates once, then long-polls forever."""

    def __init__(self, updates: list[Any]) -> None:
        super().__init__()
        self.updates = updates
        self.closed_after: list[str] = []

    async def make_request(
        self,
        bot: Bot,
        method: TelegramMethod[TelegramType],
        timeout: int | None = None,  # noqa: ASYNC109 - aiogram's signature
    ) -> TelegramType:
        if isinstance(method, GetUpdates):
            if self.updates:
                batch, self.updates = self.updates, []
                return batch  # type: ignore[return-value]
            await asyncio.sleep(3600)
        return await super().make_request(bot, method, timeout)

    async def close(self) -> None:
        self.closed_after = [r.__api_method__ for r in self.requests]


async def test_stop_waits_for_the_update_in_flight(fake_store: Store, tmp_path: Path) -> None:
    started = asyncio.Event()
    router = Router()

    @router.message(Command("slow"))
    async def slow(message: Message) -> None:
        started.set()
        await asyncio.sleep(0.3)
        await message.answer("done")

    settings = Settings(_env_file=None, bot_token=TOKEN)  # type: ignore[call-arg]
    dispatcher = create_dispatcher(
        settings, fake_store, I18n(path=tmp_path, default_locale="ru"), routers=[router]
    )
    session = PollingSession([text_update("/slow")])
    bot = make_bot(TOKEN, session)
    polling = asyncio.create_task(dispatcher.start_polling(bot, handle_signals=False))
    await asyncio.wait_for(started.wait(), patient(5))
    await dispatcher.stop_polling()
    await polling

    sent = session.calls("sendMessage")
    assert [m.text for m in sent] == ["done"]
    # The reply went out before the session was closed.
    assert "sendMessage" in session.closed_after
    # Start-up published the command menu in both languages and asked getMe.
    menus = [m for m in session.requests if isinstance(m, SetMyCommands)]
    assert {m.language_code for m in menus} == {None, "ru"}
    assert session.calls("getMe")


def test_default_routers_are_the_features(fake_store: Store, tmp_path: Path) -> None:
    from handlers import all_features

    settings = Settings(_env_file=None, bot_token=TOKEN)  # type: ignore[call-arg]
    dispatcher = create_dispatcher(settings, fake_store, I18n(path=tmp_path, default_locale="ru"))
    expected = [*(router.name for router in all_features().routers()), "fallback"]
    assert [router.name for router in dispatcher.sub_routers] == expected
    # Two factories, two independent Dispatchers: nothing is shared at module level.
    other = create_dispatcher(settings, fake_store, I18n(path=tmp_path, default_locale="ru"))
    assert other.sub_routers[0] is not dispatcher.sub_routers[0]
