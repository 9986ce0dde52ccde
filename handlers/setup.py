"""The one-message wizard behind ``/ext``, ``/team`` and ``/vs`` typed without numbers.

PRODUCT.md §2: every command also works without arguments, as an inline keyboard in one
message edited in place. The player picks the pool (1–15), the difficulty and, for an
extended action, the target (the number of successes, §A.11; optional for teamwork, §A.13),
sees the odds of one roll, and presses «Бросить»: the same message then becomes the extended
action, the team's effort or the challenge, exactly as if the line had been typed.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import StrEnum
from typing import ClassVar, TypeVar

from aiogram import Router
from aiogram.enums import ParseMode
from aiogram.filters import CommandObject
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from pydantic import ConfigDict, ValidationError

from bot import render, table_render
from bot.parsing import ArgumentsError
from bot.session import safe_edit
from bot.store import Flow, FlowState, Store
from bot.table_render import SetupAction, SetupCallback
from bot.taps import show_tap
from handlers import extended, multi, opposed, teamwork
from handlers.roll import roller_name
from handlers.tabletop import check_difficulty, log_entry, open_table_tap
from rules import d10, probability
from rules.actions import multiple_action_pools, start_extended
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import GameSystem, MultipleActions, Profile

KIND = "setup"
Arguments = TypeVar("Arguments")


class Feature(StrEnum):
    EXTENDED = "ext"
    TEAM = "team"
    OPPOSED = "vs"
    MULTI = "multi"


class SetupState(FlowState):
    """The choices so far; ``challenge`` is the /vs challenge waiting for the pool."""

    kind: ClassVar[str] = KIND

    model_config = ConfigDict(frozen=True, extra="forbid")

    feature: Feature
    roller: str
    pool: int | None = None
    difficulty: int
    target: int | None = None
    challenge: opposed.OpposedFlow | None = None
    pools: tuple[int, ...] = ()  # /multi, cumulative mode: each declared action's pool
    split: bool = False  # /multi in a game that splits one pool (§A.9 SPLIT_POOL)

    @property
    def ready(self) -> bool:
        if self.feature is Feature.MULTI and not self.split:
            return len(self.pools) >= 2
        return self.pool is not None and (self.feature is not Feature.EXTENDED or bool(self.target))


def make_router() -> Router:
    router = Router(name="setup")
    router.callback_query.register(setup_tap, SetupCallback.filter())
    return router


def view(flow: Flow, state: SetupState, profile: Profile) -> tuple[str, InlineKeyboardMarkup]:
    chances = None
    if state.pool is not None:
        chances = probability.d10(pool=state.pool, difficulty=state.difficulty, profile=profile)
    opponent = state.challenge.b.name if state.challenge is not None else None
    if state.feature is Feature.MULTI and not state.split:
        return _multi_view(flow, state, profile)
    text = table_render.setup_text(
        feature=state.feature.value,
        roller=state.roller,
        pool=state.pool,
        difficulty=state.difficulty,
        target=state.target,
        opponent=opponent,
        profile=profile,
        chances=chances,
    )
    markup = table_render.setup_keyboard(
        flow.id,
        flow.version,
        pool=state.pool,
        difficulty=state.difficulty,
        difficulties=range(profile.difficulty_min, profile.difficulty_max + 1),
        targets=table_render.EXTEND_TARGETS
        if state.feature in (Feature.EXTENDED, Feature.TEAM)
        else (),
        target=state.target,
        ready=state.ready,
    )
    return text, markup


def _multi_view(
    flow: Flow, state: SetupState, profile: Profile
) -> tuple[str, InlineKeyboardMarkup]:
    """Declaring actions one pool at a time, each shown already reduced (§A.9)."""
    reduced = multiple_action_pools(state.pools, profile) if len(state.pools) >= 2 else ()
    text = table_render.multi_setup_text(
        roller=state.roller, declared=state.pools, reduced=reduced, difficulty=state.difficulty
    )
    markup = table_render.multi_setup_keyboard(
        flow.id,
        flow.version,
        difficulty=state.difficulty,
        difficulties=range(profile.difficulty_min, profile.difficulty_max + 1),
        declared=len(state.pools),
        full=len(state.pools) >= profile.max_declared_actions,
        ready=state.ready,
    )
    return text, markup


async def open_setup(
    message: Message,
    store: Store,
    profile: Profile,
    feature: Feature,
    roller: str,
    challenge: opposed.OpposedFlow | None = None,
) -> None:
    user = message.from_user
    state = SetupState(
        feature=feature,
        roller=roller,
        difficulty=profile.default_difficulty,
        challenge=challenge,
        split=feature is Feature.MULTI and profile.multiple_actions is MultipleActions.SPLIT_POOL,
    )
    flow = await store.create_flow(state, message.chat.id, user.id if user else 0)
    text, markup = view(flow, state, profile)
    await message.answer(text, parse_mode=ParseMode.HTML, reply_markup=markup)


async def typed_or_wizard(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    feature: Feature,
    parse: Callable[[str | None], Arguments],
) -> Arguments | None:
    """The arguments of ``/ext``, ``/team`` or ``/multi``, or None once answered: the d6
    game has no such rolls, a bare command opens this wizard (PRODUCT.md §2), and a line
    that does not parse is explained with the command's usage."""
    if profile.system is not GameSystem.D10:
        await message.answer(render.wrong_system_text())
        return None
    if not (command.args or "").strip():
        roller = roller_name(message, message.from_user)
        await open_setup(message, store, profile, feature, roller)
        return None
    try:
        return parse(command.args)
    except ArgumentsError as problem:
        await message.answer(
            table_render.problem_text(problem.problem, problem.token, profile, feature.value),
            parse_mode=ParseMode.HTML,
        )
        return None


async def setup_tap(
    callback: CallbackQuery,
    callback_data: SetupCallback,
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
    try:
        state = SetupState.model_validate(flow.data)
        splits = profile.multiple_actions is MultipleActions.SPLIT_POOL
        if state.feature is Feature.MULTI and state.split is not splits:
            # The chat switched between a cumulative and a split-pool game (§A.9) since
            # the wizard was drawn: its declared pools mean nothing in the new mode.
            raise RulesInputError(ErrorCode.STATE, "split", "the chat's game changed")
        action, x = callback_data.a, callback_data.x
        if action is SetupAction.GO:
            await _start(callback, message, flow, state, store, profile, rng)
            return
        state = _choose(state, action, x, profile)
    except (RulesInputError, ValidationError):
        await callback.answer(render.invalid_button_text(), show_alert=True)
        return
    advanced = await store.advance_flow(flow, flow.version, state)
    await show_tap(callback, message, advanced, lambda f: view(f, state, profile))


def _choose(state: SetupState, action: SetupAction, x: int, profile: Profile) -> SetupState:
    cumulative = state.feature is Feature.MULTI and not state.split
    if action is SetupAction.UNDO:
        if not cumulative or not state.pools:
            raise RulesInputError(ErrorCode.STATE, "pools", "nothing to undo")
        return state.model_copy(update={"pools": state.pools[:-1]})
    if action is SetupAction.POOL and cumulative:
        if x not in table_render.TABLE_POOLS or len(state.pools) >= profile.max_declared_actions:
            raise RulesInputError(ErrorCode.RANGE, "pool", str(x))
        return state.model_copy(update={"pools": (*state.pools, x)})
    if action is SetupAction.POOL and state.split and not 2 <= x <= multi.SPLIT_BUTTONS_MAX:
        raise RulesInputError(ErrorCode.RANGE, "pool", str(x))
    if action is SetupAction.POOL:
        if x not in table_render.TABLE_POOLS or x > profile.pool_sanity_max:
            raise RulesInputError(ErrorCode.RANGE, "pool", str(x))
        return state.model_copy(update={"pool": x})
    if action is SetupAction.DIFFICULTY:
        return state.model_copy(update={"difficulty": check_difficulty(x, profile)})
    if state.feature not in (Feature.EXTENDED, Feature.TEAM) or x not in (
        table_render.EXTEND_TARGETS
    ):
        raise RulesInputError(ErrorCode.RANGE, "target", str(x))
    # A second tap on the chosen target clears it (a team may work without one).
    cleared = state.target == x and state.feature is Feature.TEAM
    return state.model_copy(update={"target": None if cleared else x})


async def _start(
    callback: CallbackQuery,
    message: Message,
    flow: Flow,
    state: SetupState,
    store: Store,
    profile: Profile,
    rng: Rng | None,
) -> None:
    """«Бросить»: the first roll, and the message becomes the feature's own flow."""
    if state.feature is Feature.MULTI:
        await _start_multi(callback, message, flow, state, store, profile)
        return
    if not state.ready or state.pool is None:
        raise RulesInputError(ErrorCode.STATE, "pool", "not chosen")
    difficulty = check_difficulty(state.difficulty, profile)
    first = d10.roll(state.pool, difficulty, profile, rng=rng)
    entry = log_entry(flow.owner_id, state.roller, state.pool, first, state.feature.value)
    data: FlowState
    if state.feature is Feature.EXTENDED:
        start_extended(state.target or 0)
        data = extended.begin(
            state.roller, state.pool, difficulty, state.target or 0, None, first, profile
        )
    elif state.feature is Feature.TEAM:
        member = teamwork.Member(
            user_id=flow.owner_id, name=state.roller, pool=state.pool, result=first
        )
        data = teamwork.TeamFlow(
            leader=state.roller, difficulty=difficulty, target=state.target, members=(member,)
        )
    else:
        if state.challenge is None:
            raise RulesInputError(ErrorCode.STATE, "challenge", "missing")
        a = state.challenge.a.model_copy(update={"pool": state.pool, "difficulty": difficulty})
        b = state.challenge.b.model_copy(update={"difficulty": difficulty})
        data = state.challenge.model_copy(update={"a": a, "b": b, "roll_a": first})
    if await store.close_flow(flow, flow.version) is None:
        await callback.answer()
        return
    text: str
    markup: InlineKeyboardMarkup | None
    if isinstance(data, extended.ExtendedFlow):
        new = await extended.store_flow(store, flow.chat_id, flow.owner_id, data, entry)
        text, markup = extended.view(new, data, profile)
    else:
        new = await store.create_flow(data, flow.chat_id, flow.owner_id, entries=[entry])
        if isinstance(data, teamwork.TeamFlow):
            text, markup = teamwork.view(new, data, profile)
        else:
            assert isinstance(data, opposed.OpposedFlow)
            text, markup = opposed.view(new, data, profile)
    await safe_edit(message, text, markup, parse_mode=ParseMode.HTML)
    await callback.answer()


async def _start_multi(
    callback: CallbackQuery,
    message: Message,
    flow: Flow,
    state: SetupState,
    store: Store,
    profile: Profile,
) -> None:
    """The declared actions become /multi's message: nothing is rolled yet, each action is
    rolled in order from there (or, in a split-pool game, the split is asked first)."""
    if not state.ready:
        raise RulesInputError(ErrorCode.STATE, "pools", "not declared")
    difficulty = check_difficulty(state.difficulty, profile)
    data = multi.MultiFlow(roller=state.roller, default_difficulty=difficulty)
    if state.split:
        data = data.model_copy(update={"split_of": state.pool})
    else:
        data = multi.declare(data, [(p, None) for p in state.pools], profile)
    if await store.close_flow(flow, flow.version) is None:
        await callback.answer()
        return
    new = await store.create_flow(data, flow.chat_id, flow.owner_id)
    text, markup = multi.view(new, data, profile)
    await safe_edit(message, text, markup, parse_mode=ParseMode.HTML)
    await callback.answer()
