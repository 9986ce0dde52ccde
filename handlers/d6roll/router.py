"""``/r`` in a d6 chat (docs/rules.md §D.2–§D.4): a typed chance or the sheet's powers, the wizard,
and the special effort under the result.

One flow per message: the wizard's choices, then the roll, then the one special effort. The
roll and the luck dice it spends are one transaction with the log line; the effort's wound
goes onto the sheet in the step that rerolls, so a double tap pays once and a player never
pays for a result they did not see (docs/product.md §3).
"""

from __future__ import annotations

from collections.abc import Callable

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import InlineKeyboardMarkup, Message

from bot import rolling, runner
from bot.features import in_game
from bot.names import roller_name
from handlers.d6roll import view
from handlers.d6roll.flow import D6RollState
from handlers.d6roll.tap import TAP
from handlers.d6roll.tap import draw_state as _draw
from rules.d6.combat import ActionKind, Edge, after_action, declare
from rules.d6.roll import auto_success
from rules.dice import Rng
from rules.profiles import GameSystem, Profile
from rules.sheet import Sheet
from table.parsing import ArgumentsError, D6Arguments, parse_d6_arguments
from table.store import Store

Drawn = tuple[str, InlineKeyboardMarkup | None]
SheetChange = Callable[[Sheet], Sheet]


def make_router() -> Router:
    router = Router(name="d6roll")
    router.message.register(d6_roll_command, Command("r", "roll"), in_game(GameSystem.D6))
    runner.register(router, TAP)
    return router


def _roller(message: Message) -> rolling.Roller:
    user = message.from_user
    return rolling.Roller(message.chat.id, user.id if user else 0, roller_name(message, user))


async def d6_roll_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    rng: Rng | None = None,
) -> None:
    who = _roller(message)
    if not (command.args or "").strip():
        await _open_wizard(message, store, profile, who)
        return
    try:
        args = parse_d6_arguments(command.args)
    except ArgumentsError:
        await message.answer(view.hint_text())
        return
    if args.auto:
        await _auto_success(message, store, profile, who, args)
        return
    trick = args.trick()
    try:
        ask = rolling.D6Ask.typed(
            args, action=ActionKind.OTHER if trick is None else ActionKind.TRICK
        )
        pool = await rolling.d6_pool(store, who, profile, ask)
    except rolling.PoolRefused as refused:
        await message.answer(str(refused) + "\n" + view.hint_text())
        return
    result = rolling.roll_d6(pool.dice, required=args.required, rng=rng, profile=profile)
    declared: Edge | None = None
    left: tuple[Edge, ...] | None = None
    if trick is not None:
        # §D.12: the trick's measures wait on the sheet for the roll they change.
        declared = declare(trick, result.measures, args.aim or 0)
        waiting = pool.sheet.edges if pool.sheet is not None else ()
        left = after_action(waiting, ActionKind.TRICK, declared)
        if declared is not None:
            await rolling.ensure_d6_sheet(store, who)
    state = D6RollState(
        roller=who.name,
        powers=args.powers,
        chance=args.chance,
        weakness=args.weakness,
        luck=args.luck,
        required=args.required,
        modifier=args.modifier,
        aim=args.aim,
        escape=args.escape,
        charge=args.charge,
        full_defence=args.full_defence,
        left=left,
        label=pool.label,
        result=result,
    )
    entry = rolling.d6_log_entry(who.user_id, who.name, pool.dice, args.required, result)
    flow = await rolling.create_d6_flow(store, state, who, pool, [entry], declared)
    if flow is None:  # the luck dice left the sheet since it was read
        await message.answer(rolling.no_luck_text(0))
        return
    text, markup = _draw(flow, state, pool.sheet, profile)
    await message.answer(text, reply_markup=markup)


async def _auto_success(
    message: Message, store: Store, profile: Profile, who: rolling.Roller, args: D6Arguments
) -> None:
    """S2 «Если у тебя есть подходящие силы и тебе никто не мешает … бросать кубики не нужно»:
    no dice, nothing spent or logged; the powers named are checked on the sheet and shown, and
    the gain reads as the chat's number for it (AMB-D2, ``d6.auto_success_gain``)."""
    label = ""
    if args.powers or args.chance is not None:
        try:
            pool = await rolling.d6_pool(
                store, who, profile, rolling.D6Ask(chance=args.chance, powers=args.powers)
            )
        except rolling.PoolRefused as refused:
            await message.answer(str(refused))
            return
        label = pool.label
    state = D6RollState(
        roller=who.name,
        powers=args.powers,
        chance=args.chance,
        label=label,
        result=auto_success(),
    )
    await message.answer(view.result_text(state, None, profile))


async def _open_wizard(
    message: Message, store: Store, profile: Profile, who: rolling.Roller
) -> None:
    state = D6RollState(roller=who.name)
    flow = await store.create_flow(state, who.chat_id, who.user_id)
    sheet = await rolling.load_sheet(store, who, profile)
    text, markup = _draw(flow, state, sheet, profile)
    await message.answer(text, reply_markup=markup)
