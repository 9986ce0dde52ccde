"""Multiple actions in one turn (RULES.md §A.9): ``/multi 6 7 7``, rolled one by one.

Both profile modes. ``CUMULATIVE`` (S0, S4): every declared action loses dice, the k-th of N
losing N + (k − 1) (S4 «…уменьшенное на общее кол-во действий + номер действия в порядке
проверок - 1»), so 6, 7, 7 become 3, 3, 2, and an action reduced to nothing is shown as
impossible rather than refused (S0 «…не может предпринять это действие»). ``SPLIT_POOL``
(Dark Ages, S1): one pool is divided between the actions, so ``/multi 8 3 5`` splits eight
dice into three and five, and ``/multi 8`` asks for the split with buttons. Either way the
actions are rolled in the declared order from the same message.
"""

from __future__ import annotations

from typing import ClassVar

from aiogram import Router
from aiogram.enums import ParseMode
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from pydantic import ConfigDict, ValidationError

from bot import render, table_render
from bot.parsing import parse_multi_arguments
from bot.store import Flow, FlowState, LogEntry, Store
from bot.table_render import MultiAction, MultiCallback
from bot.taps import show_tap
from handlers.roll import roller_name
from handlers.tabletop import (
    PoolRefused,
    check_difficulty,
    check_pool,
    log_entry,
    open_table_tap,
    typed_pool,
)
from rules import d10
from rules.actions import Pool, PoolStatus, multiple_action_pools, split_pool
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import MultipleActions, Profile

KIND = "multi"
SPLIT_BUTTONS_MAX = 20  # a bigger pool is split by typing: /multi 30 10 10 10


class MultiFlow(FlowState):
    """``declared`` are the typed pools (or the parts of a split pool), ``dice`` what each
    action rolls after §A.9; ``split_of`` is the split pool, waiting for its split while
    ``declared`` is empty."""

    kind: ClassVar[str] = KIND

    model_config = ConfigDict(frozen=True, extra="forbid")

    roller: str
    declared: tuple[int, ...] = ()
    dice: tuple[int, ...] = ()
    difficulties: tuple[int, ...] = ()
    split_of: int | None = None
    default_difficulty: int
    results: tuple[d10.D10Result | None, ...] = ()
    stopped: bool = False

    @property
    def pools(self) -> tuple[Pool, ...]:
        return tuple(
            Pool(n, PoolStatus.ROLL if n > 0 else PoolStatus.IMPOSSIBLE) for n in self.dice
        )

    def next_action(self) -> int | None:
        """The first declared action not yet rolled that can be rolled at all."""
        for k, (pool, result) in enumerate(zip(self.pools, self.results, strict=True)):
            if pool.rollable and result is None:
                return k
        return None


def make_router() -> Router:
    router = Router(name="multi")
    router.message.register(multi_command, Command("multi"))
    router.callback_query.register(multi_tap, MultiCallback.filter())
    return router


def declare(state: MultiFlow, actions: list[tuple[int, int | None]], profile: Profile) -> MultiFlow:
    """The reduced pools of §A.9 for the declared actions, in the profile's mode."""
    if profile.multiple_actions is MultipleActions.CUMULATIVE:
        if len(actions) < 2:
            raise RulesInputError(ErrorCode.RANGE, "base_pools", "one action is not multiple")
        for pool, _d in actions:
            check_pool(pool, profile)  # a typed pool of 0 or 999 is a typo, not an action
        pools = multiple_action_pools([p for p, _d in actions], profile)
    else:
        if state.split_of is None or len(actions) < 2:
            raise RulesInputError(ErrorCode.RANGE, "parts", "split into two or more")
        parts = split_pool(state.split_of, [p for p, _d in actions], profile)
        pools = tuple(Pool(n, PoolStatus.ROLL) for n in parts)
    difficulties = tuple(
        check_difficulty(d if d is not None else state.default_difficulty, profile)
        for _p, d in actions
    )
    return state.model_copy(
        update={
            "declared": tuple(p for p, _d in actions),
            "dice": tuple(p.dice for p in pools),
            "difficulties": difficulties,
            "results": (None,) * len(pools),
        }
    )


def view(flow: Flow, state: MultiFlow, profile: Profile) -> tuple[str, InlineKeyboardMarkup | None]:
    if not state.declared and state.split_of is not None:
        text = table_render.split_prompt_text(state.roller, state.split_of)
        if state.stopped:
            return text + "\n⏹ " + table_render.stopped_text(), None
        return text, table_render.split_keyboard(flow.id, flow.version, state.split_of)
    text = table_render.multi_text(
        roller=state.roller,
        declared=state.declared,
        pools=state.pools,
        difficulties=state.difficulties,
        results=state.results,
        split_of=state.split_of,
        profile=profile,
        stopped=state.stopped,
    )
    nxt = state.next_action()
    if state.stopped or nxt is None:
        return text, None
    return text, table_render.multi_keyboard(
        flow.id, flow.version, action=nxt, dice=state.dice[nxt]
    )


async def multi_command(
    message: Message, command: CommandObject, store: Store, profile: Profile
) -> None:
    from handlers import setup  # the wizard builds on this module

    args = await setup.typed_or_wizard(
        message, command, store, profile, setup.Feature.MULTI, parse_multi_arguments
    )
    if args is None:
        return
    user = message.from_user
    roller = roller_name(message, user)
    actions = list(args.actions)
    try:
        for k, traits in enumerate(args.traits):
            if traits is not None:
                dice, _label = await typed_pool(store, message, roller, 0, traits, profile)
                actions[k] = (dice, actions[k][1])
    except PoolRefused as refused:
        await message.answer(
            refused.text + "\n" + table_render.usage_text("multi"), parse_mode=ParseMode.HTML
        )
        return
    try:
        state = MultiFlow(roller=roller, default_difficulty=profile.default_difficulty)
        if profile.multiple_actions is MultipleActions.SPLIT_POOL:
            (pool, difficulty), actions = actions[0], actions[1:]
            state = state.model_copy(
                update={
                    "split_of": check_pool(pool, profile),
                    "default_difficulty": check_difficulty(difficulty, profile),
                }
            )
            if not actions and not 2 <= pool <= SPLIT_BUTTONS_MAX:
                raise RulesInputError(ErrorCode.RANGE, "parts", "split by typing")
        if actions or state.split_of is None:
            state = declare(state, actions, profile)
    except RulesInputError as error:
        await message.answer(
            table_render.range_text(error.field, profile, "multi"), parse_mode=ParseMode.HTML
        )
        return
    flow = await store.create_flow(state, message.chat.id, user.id if user else 0)
    text, markup = view(flow, state, profile)
    await message.answer(text, parse_mode=ParseMode.HTML, reply_markup=markup)


async def multi_tap(
    callback: CallbackQuery,
    callback_data: MultiCallback,
    store: Store,
    profile: Profile,
    rng: Rng | None = None,
) -> None:
    opened = await open_table_tap(
        callback, callback_data.f, callback_data.v, store, KIND, profile, owner_only=True
    )
    if opened is None:
        return
    flow, message = opened
    entries: list[LogEntry] = []
    try:
        state = MultiFlow.model_validate(flow.data)
        action = callback_data.a
        if action is MultiAction.STOP:
            after = state.model_copy(update={"stopped": True})
        elif action is MultiAction.SPLIT:
            if state.declared or state.split_of is None:
                raise RulesInputError(ErrorCode.STATE, "split", "already split")
            first = callback_data.x
            after = declare(state, [(first, None), (state.split_of - first, None)], profile)
        else:
            k = state.next_action()
            if k is None:
                raise RulesInputError(ErrorCode.STATE, "action", "nothing left to roll")
            if callback_data.x != k:
                await callback.answer(table_render.not_in_order_text(), show_alert=True)
                return
            result = d10.roll(state.dice[k], state.difficulties[k], profile, rng=rng)
            results = list(state.results)
            results[k] = result
            after = state.model_copy(update={"results": tuple(results)})
            entries.append(log_entry(flow.owner_id, state.roller, state.dice[k], result, KIND))
    except (RulesInputError, ValidationError):
        await callback.answer(render.invalid_button_text(), show_alert=True)
        return
    close = after.stopped or (bool(after.declared) and after.next_action() is None)
    advanced = await store.advance_flow(flow, flow.version, after, entries=entries, close=close)
    await show_tap(callback, message, advanced, lambda f: view(f, after, profile))
