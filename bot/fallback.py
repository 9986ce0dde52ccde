"""The last router of the Dispatcher: what no feature took.

It answers any button no feature recognised (garbled or forged callback_data, or a button
of a feature that no longer exists), so every callback query is answered once and nothing
raises (docs/product.md §5); a mistyped command of ours with the line that was meant
(``table.typos``), offered as a button (bot/retype.py) whose press runs on the runner's
road like every other.

It stands apart from :mod:`bot.features`: the retype offer's press is a runner tap, and the
runner knows the :class:`~bot.features.FeatureSet`, so the set cannot build this router
without an import cycle. The composition root (bot/app.py) puts it after the features'.
"""

from __future__ import annotations

from collections.abc import Collection

from aiogram import Bot, Router
from aiogram.enums import ChatType
from aiogram.types import CallbackQuery, Message

from bot import render, retype, runner
from bot.features import FeatureSet
from table import typos
from table.store import Store


def make_router(commands: Collection[str] = ()) -> Router:
    """The fallback for a bot whose menu lists ``commands`` (a typo is read against them)."""
    router = Router(name="fallback")
    runner.register(router, retype.TAP)
    router.callback_query.register(_unknown_tap)
    known = frozenset(commands)

    async def mistyped(message: Message, bot: Bot, store: Store) -> None:
        if not message.text:
            return
        me = await bot.me()
        private = message.chat.type == ChatType.PRIVATE
        line = typos.meant(message.text, known, bot_username=me.username, slash=not private)
        if line is not None:
            await retype.offer(message, store, render.meant_text(line), [(line, line)])

    router.message.register(mistyped)
    return router


def routers(features: FeatureSet) -> list[Router]:
    """Each feature's router in order, then the fallback, which must stay last."""
    return [*features.routers(), make_router(features.command_names())]


async def _unknown_tap(callback: CallbackQuery) -> None:
    await callback.answer(render.invalid_button_text(), show_alert=True)
