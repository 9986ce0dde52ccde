"""Multiple actions in one turn (docs/rules.md §A.9): ``/multi 6 7 7``, rolled one by one.

Both profile modes. ``CUMULATIVE`` (S0, S4): every declared action loses dice, the k-th of N
losing N + (k − 1) (S4 «…уменьшенное на общее кол-во действий + номер действия в порядке
проверок - 1»), so 6, 7, 7 become 3, 3, 2, and an action reduced to nothing is shown as
impossible rather than refused (S0 «…не может предпринять это действие»). ``SPLIT_POOL``
(Dark Ages, S1): one pool is divided between the actions, so ``/multi 8 3 5`` splits eight
dice into three and five, and ``/multi 8`` asks for the split with buttons. Either way the
actions are rolled in the declared order from the same message.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import rolling, runner, table_text
from bot.features import FeatureSet
from bot.names import roller_name
from bot.wizard import typed_or_wizard
from handlers.multi import view
from handlers.multi.flow import MultiFlow, declare
from handlers.multi.tap import TAP
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import MultipleActions, Profile
from table.parsing import parse_multi_arguments
from table.store import Store


def make_router() -> Router:
    router = Router(name="multi")
    router.message.register(multi_command, Command("multi"))
    runner.register(router, TAP)
    return router


async def multi_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    features: FeatureSet,
) -> None:
    args = await typed_or_wizard(
        message,
        command,
        store,
        profile,
        features,
        "multi",
        parse_multi_arguments,
        view.usage_text(),
    )
    if args is None:
        return
    user = message.from_user
    roller = roller_name(message, user)
    split = profile.multiple_actions is MultipleActions.SPLIT_POOL
    read_as = args.traits[0] if args.repeated else None
    if args.repeated and not split:
        args = args.as_repeated()
    actions = list(args.actions)
    sources: list[str | None] = [None] * len(actions)
    condition_mod = 0  # one character's conditions: the same on every action
    try:
        for k, traits in enumerate(args.traits):
            if split and k > 0:
                break  # the parts of a split pool are shares of it, not pools of their own
            resolved = await rolling.command_pool(
                store, message, roller, actions[k][0], traits, profile, args.dice[k]
            )
            actions[k] = (resolved.dice, actions[k][1])
            sources[k] = resolved.source
            condition_mod = resolved.difficulty_mod
    except rolling.PoolRefused as refused:
        await message.answer(refused.with_example(view.usage_text()))
        return
    try:
        state = _declared(roller, actions, sources, read_as, split, condition_mod, profile)
    except RulesInputError as error:
        await message.answer(table_text.range_text(error.field, profile, view.usage_text()))
        return
    flow = await store.create_flow(state, message.chat.id, user.id if user else 0)
    text, markup = view.draw(flow, state, profile)
    await message.answer(text, reply_markup=markup)


def _declared(
    roller: str,
    actions: list[tuple[int, int | None]],
    sources: list[str | None],
    read_as: str | None,
    split: bool,
    condition_mod: int,
    profile: Profile,
) -> MultiFlow:
    """The flow of the typed actions. In a split-pool game (§A.9, S1) the first is the pool
    and the rest its parts; a sheet pool followed by two numbers that are not its parts
    («ловк+драка 6 7» of five dice) is read as the difficulties of two actions it is split
    between, by buttons."""
    state = MultiFlow(
        roller=roller,
        default_difficulty=profile.default_difficulty,
        sources=tuple(sources),
        condition_mod=condition_mod,
    )
    if not split:
        return declare(state.model_copy(update={"read_as": read_as}), actions, profile)
    (pool, difficulty), parts = actions[0], actions[1:]
    state = state.model_copy(
        update={
            "split_of": rolling.check_pool(pool, profile),
            "default_difficulty": rolling.check_difficulty(difficulty, profile),
            "sources": tuple(sources[:1]),
        }
    )
    if read_as is not None and len(parts) == 2 and sum(p for p, _d in parts) != pool:
        difficulties = tuple(rolling.check_difficulty(p, profile) for p, _d in parts)
        return state.model_copy(update={"read_as": read_as, "part_difficulties": difficulties})
    if not parts and not 2 <= pool <= table_text.SPLIT_BUTTONS_MAX:
        raise RulesInputError(ErrorCode.RANGE, "parts", "split by typing")
    return declare(state, parts, profile) if parts else state
