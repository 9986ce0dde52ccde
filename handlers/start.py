"""``/start`` and ``/help``: short, with examples, in the chat's language (PRODUCT.md §2).

Nobody reads a manual at the table, so help is one screen of lines a player can copy.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.enums import ParseMode
from aiogram.filters import Command, CommandStart
from aiogram.types import Message

from bot import render
from rules.profiles import Profile


def make_router() -> Router:
    router = Router(name="start")
    router.message.register(start_command, CommandStart())
    router.message.register(help_command, Command("help"))
    return router


async def start_command(message: Message, profile: Profile) -> None:
    await message.answer(
        render.start_text() + "\n\n" + render.help_text(profile), parse_mode=ParseMode.HTML
    )


async def help_command(message: Message, profile: Profile) -> None:
    await message.answer(render.help_text(profile), parse_mode=ParseMode.HTML)
