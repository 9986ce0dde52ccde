"""``/start`` and ``/help``: short, with examples, in the chat's language (docs/product.md §2).

Nobody reads a manual at the table, so help is one screen of lines a player can copy. The
lines are the features' own (:class:`bot.features.HelpLine`); ``/help sheet`` and other
topics are the details a feature keeps off that screen.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject, CommandStart
from aiogram.types import Message

from bot.features import FeatureSet
from handlers.start import view
from rules.profiles import Profile


def make_router() -> Router:
    router = Router(name="start")
    router.message.register(start_command, CommandStart())
    router.message.register(help_command, Command("help"))
    return router


def full_help(features: FeatureSet, profile: Profile) -> str:
    return view.help_text(features.help_lines(profile), profile)


async def start_command(message: Message, profile: Profile, features: FeatureSet) -> None:
    await message.answer(view.start_text() + "\n\n" + full_help(features, profile))


async def help_command(
    message: Message, command: CommandObject, profile: Profile, features: FeatureSet
) -> None:
    topic = features.help_topic((command.args or "").strip().casefold())
    text = topic(profile) if topic is not None else full_help(features, profile)
    await message.answer(text)
