"""``/ask`` in a d6 chat: the Storyteller asks for a roll of named powers, and each player's tap
rolls the chance THEIR sheet gives (§D.2: the powers' levels, less the sheet's wounds). Answers
are lines of the same message; a player answers once, concurrent taps each land once."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import render, runner
from bot.access import GameAccess, game_access
from bot.features import in_game
from handlers.d6requests import view
from handlers.d6requests.flow import D6RequestState
from handlers.d6requests.tap import TAP
from rules.profiles import GameSystem
from table.parsing import ArgumentsError, Problem, parse_d6_arguments
from table.store import ChatSettings, Store


def make_router() -> Router:
    router = Router(name="d6requests")
    router.message.register(d6_ask_command, Command("ask"), in_game(GameSystem.D6))
    runner.register(router, TAP)
    return router


async def d6_ask_command(
    message: Message,
    command: CommandObject,
    bot: Bot,
    store: Store,
    chat_settings: ChatSettings,
) -> None:
    access = await game_access(
        bot, message.chat, chat_settings, message.from_user, message.sender_chat
    )
    if access is GameAccess.DENIED:
        await message.answer(render.storyteller_only_text(d6=True))
        return
    try:
        args = parse_d6_arguments(command.args)
        if not args.powers or args.luck or args.weakness or args.modifier or args.auto:
            raise ArgumentsError(Problem.POOL_MISSING)
    except ArgumentsError:
        await message.answer(view.usage_text())
        return
    user = message.from_user
    asker = user.first_name if user is not None else "?"
    state = D6RequestState(
        powers=tuple(p[:40] for p in args.powers), required=args.required, asker=asker
    )
    flow = await store.create_flow(state, message.chat.id, user.id if user else 0)
    await message.answer(
        view.request_text(state, closed=False),
        reply_markup=view.keyboard(flow),
    )
