"""The one-message wizard behind ``/ext``, ``/team`` and ``/vs`` typed without numbers.

PRODUCT.md §2: every command also works without arguments, as an inline keyboard in one
message edited in place. The player picks the pool (1–15), the difficulty and, for an
extended action, the target (the number of successes, §A.11; optional for teamwork, §A.13),
sees the odds of one roll, and presses «Бросить»: the same message then becomes the extended
action, the team's effort or the challenge, exactly as if the line had been typed.
"""

from __future__ import annotations

from enum import StrEnum

from aiogram import Router
from aiogram.enums import ParseMode
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from pydantic import BaseModel, ConfigDict, ValidationError

from bot import render, table_render
from bot.session import safe_edit
from bot.state import Flow, Store
from bot.table_render import SetupAction, SetupCallback
from handlers import extended, opposed, teamwork
from handlers.tabletop import check_difficulty, log_entry, open_tap
from rules import d10, probability
from rules.actions import start_extended
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import GameSystem, Profile

KIND = "setup"


class Feature(StrEnum):
    EXTENDED = "ext"
    TEAM = "team"
    OPPOSED = "vs"


class SetupState(BaseModel):
    """The choices so far; ``challenge`` is the /vs challenge waiting for the pool."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    feature: Feature
    roller: str
    pool: int | None = None
    difficulty: int
    target: int | None = None
    challenge: opposed.OpposedFlow | None = None

    @property
    def ready(self) -> bool:
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
        targets=() if state.feature is Feature.OPPOSED else table_render.EXTEND_TARGETS,
        target=state.target,
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
    )
    flow = await store.create_flow(
        KIND, message.chat.id, user.id if user else 0, state.model_dump(mode="json")
    )
    text, markup = view(flow, state, profile)
    await message.answer(text, parse_mode=ParseMode.HTML, reply_markup=markup)


async def setup_tap(
    callback: CallbackQuery,
    callback_data: SetupCallback,
    store: Store,
    profile: Profile,
    rng: Rng | None = None,
) -> None:
    opened = await open_tap(callback, callback_data.f, callback_data.v, store, KIND)
    if opened is None:
        return
    flow, message = opened
    if flow.owner_id != callback.from_user.id:
        await callback.answer(render.not_yours_text(), show_alert=True)
        return
    if profile.system is not GameSystem.D10:
        await callback.answer(table_render.wrong_system_text(), show_alert=True)
        return
    try:
        state = SetupState.model_validate(flow.data)
        action, x = callback_data.a, callback_data.x
        if action is SetupAction.GO:
            await _start(callback, message, flow, state, store, profile, rng)
            return
        state = _choose(state, action, x, profile)
    except (RulesInputError, ValidationError):
        await callback.answer(render.invalid_button_text(), show_alert=True)
        return
    advanced = await store.advance_flow(flow.id, flow.version, state.model_dump(mode="json"))
    if advanced is not None:
        text, markup = view(advanced, state, profile)
        await safe_edit(message, text, markup, parse_mode=ParseMode.HTML)
    await callback.answer()


def _choose(state: SetupState, action: SetupAction, x: int, profile: Profile) -> SetupState:
    if action is SetupAction.POOL:
        if x not in table_render.TABLE_POOLS or x > profile.pool_sanity_max:
            raise RulesInputError(ErrorCode.RANGE, "pool", str(x))
        return state.model_copy(update={"pool": x})
    if action is SetupAction.DIFFICULTY:
        return state.model_copy(update={"difficulty": check_difficulty(x, profile)})
    if state.feature is Feature.OPPOSED or x not in table_render.EXTEND_TARGETS:
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
    if not state.ready or state.pool is None:
        raise RulesInputError(ErrorCode.STATE, "pool", "not chosen")
    difficulty = check_difficulty(state.difficulty, profile)
    first = d10.roll(state.pool, difficulty, profile, rng=rng)
    entry = log_entry(flow.owner_id, state.roller, state.pool, first, state.feature.value)
    kind: str
    data: BaseModel
    if state.feature is Feature.EXTENDED:
        start_extended(state.target or 0)
        data = extended.begin(
            state.roller, state.pool, difficulty, state.target or 0, None, first, profile
        )
        kind = extended.KIND
    elif state.feature is Feature.TEAM:
        member = teamwork.Member(
            user_id=flow.owner_id, name=state.roller, pool=state.pool, result=first
        )
        data = teamwork.TeamFlow(
            leader=state.roller, difficulty=difficulty, target=state.target, members=(member,)
        )
        kind = teamwork.KIND
    else:
        if state.challenge is None:
            raise RulesInputError(ErrorCode.STATE, "challenge", "missing")
        a = state.challenge.a.model_copy(update={"pool": state.pool, "difficulty": difficulty})
        b = state.challenge.b.model_copy(update={"difficulty": difficulty})
        data = state.challenge.model_copy(update={"a": a, "b": b, "roll_a": first})
        kind = opposed.KIND
    if await store.advance_flow(flow.id, flow.version, flow.data, close=True) is None:
        await callback.answer()
        return
    new = await store.create_flow_and_log(
        kind, flow.chat_id, flow.owner_id, data.model_dump(mode="json"), entry
    )
    text: str
    markup: InlineKeyboardMarkup | None
    if isinstance(data, extended.ExtendedFlow):
        if extended.finished(data):
            await store.advance_flow(new.id, new.version, new.data, close=True)
        text, markup = extended.view(new, data, profile)
    elif isinstance(data, teamwork.TeamFlow):
        text, markup = teamwork.view(new, data, profile)
    else:
        assert isinstance(data, opposed.OpposedFlow)
        text, markup = opposed.view(new, data, profile)
    await safe_edit(message, text, markup, parse_mode=ParseMode.HTML)
    await callback.answer()
