"""``/ask`` in a d6 chat: the Storyteller asks for a roll of named powers, and each player's tap
rolls the chance THEIR sheet gives (§D.2: the powers' levels, less the sheet's wounds). Answers
are lines of the same message; a player answers once, concurrent taps each land once."""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot import render, rolling
from bot.access import GameAccess, game_access, owner_or_storyteller
from bot.features import in_game
from bot.parsing import ArgumentsError, Problem, parse_d6_arguments
from bot.store import ChatSettings, LogEntry, Store
from bot.taps import commit_tap, open_state, retrying, tell
from handlers.d6requests import view
from handlers.d6requests.callbacks import D6RequestAction, D6RequestCallback
from handlers.d6requests.flow import D6Answer, D6RequestState
from rules.dice import Rng
from rules.profiles import GameSystem, Profile


def make_router() -> Router:
    router = Router(name="d6requests")
    router.message.register(d6_ask_command, Command("ask"), in_game(GameSystem.D6))
    router.callback_query.register(d6_request_tap, D6RequestCallback.filter())
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


@retrying
async def d6_request_tap(
    callback: CallbackQuery,
    callback_data: D6RequestCallback,
    bot: Bot,
    store: Store,
    profile: Profile,
    chat_settings: ChatSettings,
    rng: Rng | None = None,
) -> None:
    opened = await open_state(
        callback,
        callback_data.f,
        callback_data.v,
        store,
        D6RequestState,
        profile,
        system=GameSystem.D6,
    )
    if opened is None:
        return
    flow, message, state = opened
    user = callback.from_user
    if callback_data.a is D6RequestAction.CLOSE:
        if not await owner_or_storyteller(bot, message.chat, chat_settings, user, flow.owner_id):
            await tell(callback, lambda: view.only_asker_text(), alert=True)
            return
        await commit_tap(
            callback,
            message,
            store,
            flow,
            state,
            lambda _f: (view.request_text(state, closed=True), None),
            close=True,
        )
        return
    if state.answered(user.id):
        await tell(callback, lambda: view.already_rolled_text(), alert=True)
        return
    who = rolling.Roller(flow.chat_id, user.id, user.first_name)
    try:
        pool = await rolling.d6_pool(store, who, profile, rolling.D6Ask(powers=state.powers))
    except rolling.PoolRefused as refused:
        await callback.answer(render.plain(refused.text), show_alert=True)
        return
    result = rolling.roll_d6(pool.dice, required=state.required, rng=rng, profile=profile)
    answer = D6Answer(user_id=user.id, name=user.first_name, label=pool.label, result=result)
    after = state.model_copy(update={"answers": (*state.answers, answer)})
    entry: LogEntry = rolling.d6_log_entry(
        user.id, user.first_name, pool.dice, state.required, result
    )
    entry = entry.model_copy(update={"kind": "request"})
    await commit_tap(
        callback,
        message,
        store,
        flow,
        after,
        lambda f: (view.request_text(after, closed=False), view.keyboard(f)),
        entries=[entry],
    )
