"""``/start`` and ``/help``: short, with examples, in the chat's language (PRODUCT.md §2).

Nobody reads a manual at the table, so help is one screen of lines a player can copy.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.enums import ParseMode
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import Message

from bot import render, sheet_view, storyteller_view
from rules.profiles import Profile


def make_router() -> Router:
    router = Router(name="start")
    router.message.register(start_command, CommandStart())
    router.message.register(help_command, Command("help"))
    return router


def full_help(profile: Profile) -> str:
    """The rolls' help, then one line per feature of the table (details: ``/help sheet``)."""
    return "\n".join(
        [render.help_text(profile), sheet_view.help_line(), storyteller_view.help_line()]
    )


async def start_command(message: Message, profile: Profile) -> None:
    await message.answer(
        render.start_text() + "\n\n" + full_help(profile), parse_mode=ParseMode.HTML
    )


async def help_command(message: Message, command: CommandObject, profile: Profile) -> None:
    topic = (command.args or "").strip().casefold()
    if topic == "sheet":
        await message.answer(sheet_view.help_section(), parse_mode=ParseMode.HTML)
        return
    await message.answer(full_help(profile), parse_mode=ParseMode.HTML)
