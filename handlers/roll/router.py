"""The simple roll: ``/r 7 6`` and ``/r`` with no arguments, which opens its wizard
(docs/product.md §2).

One straight road per update: parse → rules → state → render → answer. The buttons — the
wizard's, and «Ещё раз» and «Продлить» under a d10 result — are pure steps on the runner
(:mod:`handlers.roll.tap`, bot/runner.py).
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import render, retype, rolling, runner
from bot.access import runs_game
from bot.names import roller_name
from handlers.roll import tap, view
from handlers.roll.flow import RollRecord, WizardState
from rules.dice import Rng
from rules.difficulty import check_base
from rules.errors import RulesInputError
from rules.profiles import Profile
from table.parsing import ArgumentsError, parse_roll_arguments
from table.store import ChatSettings, Store


def make_router() -> Router:
    router = Router(name="roll")
    router.message.register(roll_command, Command("r", "roll"))
    runner.register(router, tap.WIZARD_TAP)
    runner.register(router, tap.RESULT_TAP)
    return router


async def roll_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None = None,
) -> None:
    if not (command.args or "").strip():
        await _open_wizard(message, store, profile)
        return
    line = command.args or ""
    user = message.from_user
    try:
        npc = await rolling.npc_named(store, message.chat.id, profile, line)
    except rolling.PoolRefused as refused:
        await retype.offer(message, store, refused.text, refused.choices(message.text or ""))
        return
    if npc is not None:
        if not await runs_game(bot, message.chat, chat_settings, user, message.sender_chat):
            await message.answer(render.npc_storyteller_only_text(npc[0]))
            return
        line = npc[1]
    try:
        args = parse_roll_arguments(line, allow_traits=True)
    except ArgumentsError as problem:
        await message.answer(render.parse_problem_text(problem.problem, problem.token, profile))
        return
    user_id = user.id if user else 0
    roller = npc[0] if npc is not None else roller_name(message, user)
    who = rolling.Roller(message.chat.id, user_id, roller, npc=npc[0] if npc else None)
    try:
        resolved = await rolling.resolve_pool(
            store,
            who,
            profile,
            dice=args.pool if args.traits is None else None,
            traits=args.traits,
            modifier=args.dice,
        )
    except rolling.PoolRefused as refused:
        text = refused.with_example(view.example_text("r"))
        await retype.offer(message, store, text, refused.choices(message.text or ""))
        return
    pool, source = resolved.dice, resolved.source
    typed = profile.default_difficulty if args.difficulty is None else args.difficulty
    record = RollRecord(
        pool=pool,
        base=typed,
        willpower=args.willpower,
        threshold=args.threshold,
        source=source,
        traits=resolved.traits if npc is None else None,
        npc=npc[0] if npc is not None else None,
    )
    try:
        check_base(record.base, profile)
        harder = resolved.difficulty(record.base, profile, record.threshold)
        record = record.model_copy(
            update={"base": harder.difficulty, "threshold": harder.threshold}
        )
        result = rolling.roll_d10(
            record.pool,
            record.base,
            profile,
            willpower=record.willpower,
            threshold=record.threshold,
            rng=rng,
        )
        text, markup = await tap.store_result(store, who, record, result, profile)
    except tap.NoWillpower as refused:
        await message.answer(refused.text)
        return
    except RulesInputError as error:
        await message.answer(render.range_problem_text(error.field, profile))
        return
    await message.answer(text, reply_markup=markup)


async def _open_wizard(message: Message, store: Store, profile: Profile) -> None:
    user = message.from_user
    who = rolling.Roller(message.chat.id, user.id if user else 0, roller_name(message, user))
    sheet = await rolling.load_sheet(store, who, profile)
    left = rolling.willpower_left(sheet)
    recent = await store.recent_pools(message.chat.id, who.user_id) if sheet else []
    state = WizardState(
        difficulty=profile.default_difficulty,
        willpower_offered=left is None or left[0] > 0,
        recent=tuple(recent),
    )
    flow = await store.create_flow(state, message.chat.id, who.user_id)
    text, markup = tap.wizard_view(flow, state, profile, sheet, None)
    await message.answer(text, reply_markup=markup)
