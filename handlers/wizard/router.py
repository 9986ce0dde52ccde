"""The one-message wizard behind ``/ext``, ``/team``, ``/vs`` and ``/multi`` typed bare.

docs/product.md §2: every command also works without arguments, as an inline keyboard in one
message edited in place. The player picks the pool (1–15), the difficulty and, when the
roll asks for one, the target (the number of successes, §A.11; optional for teamwork,
§A.13), sees the odds of one roll, and presses «Бросить»: the same message then becomes the
roll it was opened for, exactly as if the line had been typed. Which rolls those are is
declared by their features (:class:`bot.wizard.WizardTarget`); this one imports none.
"""

from __future__ import annotations

from aiogram import Router
from aiogram.types import CallbackQuery, Message

from bot import render, rolling, table_text
from bot.features import FeatureSet
from bot.session import safe_edit
from bot.store import Flow, FlowState, FlowStateError, Store
from bot.taps import TapConflict, commit_tap, open_table_tap, retrying, screen_of, tell
from bot.wizard import WizardChoice, WizardMode, WizardTarget, target_key
from handlers.wizard import view
from handlers.wizard.callbacks import SetupAction, SetupCallback
from handlers.wizard.flow import KIND, SetupState
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import Profile


def make_router() -> Router:
    router = Router(name="wizard")
    router.callback_query.register(setup_tap, SetupCallback.filter())
    return router


async def open_wizard(
    message: Message,
    store: Store,
    profile: Profile,
    target: str,
    roller: str,
    *,
    carry: FlowState | None = None,
    opponent: str | None = None,
    features: FeatureSet,
) -> None:
    """The wizard for ``target`` in a new message (:data:`bot.wizard.OPEN_WIZARD`)."""
    found = features.handoff(target_key(target))
    user = message.from_user
    state = SetupState(
        target_name=target,
        mode=found.mode(profile),
        roller=roller,
        difficulty=profile.default_difficulty,
        carry=None if carry is None else carry.model_dump_json(),
        opponent=opponent,
    )
    flow = await store.create_flow(state, message.chat.id, user.id if user else 0)
    text, markup = view.draw(flow, state, found, profile)
    await message.answer(text, reply_markup=markup)


@retrying
async def setup_tap(
    callback: CallbackQuery,
    callback_data: SetupCallback,
    store: Store,
    profile: Profile,
    features: FeatureSet,
    rng: Rng | None = None,
) -> None:
    opened = await open_table_tap(
        callback, callback_data.f, callback_data.v, store, KIND, profile, owner_only=True
    )
    if opened is None:
        return
    flow, message = opened
    try:
        state = flow.state(SetupState)
        key = target_key(state.target_name)
        if not features.has(key):
            raise RulesInputError(ErrorCode.STATE, "target", state.target_name)
        target = features.handoff(key)
        if target.mode(profile) is not state.mode:
            # The chat switched between a cumulative and a split-pool game (§A.9) since
            # the wizard was drawn: its choices mean nothing in the new mode.
            raise RulesInputError(ErrorCode.STATE, "mode", "the chat's game changed")
        action, x = callback_data.a, callback_data.x
        if action is SetupAction.CANCEL:
            cancelled = state.model_copy(update={"cancelled": True})
            await commit_tap(
                callback,
                message,
                store,
                flow,
                cancelled,
                lambda f: view.draw(f, cancelled, target, profile),
                close=True,
            )
            return
        if action is SetupAction.GO:
            await _start(callback, message, flow, state, target, store, profile, rng)
            return
        state = _choose(state, target, action, x, profile)
    except (RulesInputError, FlowStateError):
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    await commit_tap(
        callback, message, store, flow, state, lambda f: view.draw(f, state, target, profile)
    )


def _choose(
    state: SetupState, target: WizardTarget, action: SetupAction, x: int, profile: Profile
) -> SetupState:
    declaring = state.mode is WizardMode.DECLARE
    if action is SetupAction.UNDO:
        if not declaring or not state.pools:
            raise RulesInputError(ErrorCode.STATE, "pools", "nothing to undo")
        return state.model_copy(
            update={"pools": state.pools[:-1], "difficulties": state.difficulties[:-1]}
        )
    if action is SetupAction.POOL and declaring:
        if x not in table_text.TABLE_POOLS or len(state.pools) >= profile.max_declared_actions:
            raise RulesInputError(ErrorCode.RANGE, "pool", str(x))
        return state.model_copy(
            update={
                "pools": (*state.pools, x),
                "difficulties": (*state.difficulties, state.difficulty),
            }
        )
    split = state.mode is WizardMode.SPLIT
    if action is SetupAction.POOL and split and not 2 <= x <= table_text.SPLIT_BUTTONS_MAX:
        raise RulesInputError(ErrorCode.RANGE, "pool", str(x))
    if action is SetupAction.POOL:
        if x not in table_text.TABLE_POOLS or x > profile.pool_sanity_max:
            raise RulesInputError(ErrorCode.RANGE, "pool", str(x))
        return state.model_copy(update={"pool": x})
    if action is SetupAction.DIFFICULTY:
        return state.model_copy(update={"difficulty": rolling.check_difficulty(x, profile)})
    if not target.targets or x not in table_text.EXTEND_TARGETS:
        raise RulesInputError(ErrorCode.RANGE, "target", str(x))
    # A second tap on the chosen target clears it where a target is optional (teamwork).
    cleared = state.target == x and not target.target_required
    return state.model_copy(update={"target": None if cleared else x})


async def _start(
    callback: CallbackQuery,
    message: Message,
    flow: Flow,
    state: SetupState,
    target: WizardTarget,
    store: Store,
    profile: Profile,
    rng: Rng | None,
) -> None:
    """«Бросить»: the first roll (when the target rolls at once), and the message becomes
    the target's own flow."""
    if not state.ready(target):
        raise RulesInputError(ErrorCode.STATE, "pool", "not chosen")
    difficulty = rolling.check_difficulty(state.difficulty, profile)
    first = None
    if target.rolls_first and state.pool is not None:
        first = rolling.roll_d10(state.pool, difficulty, profile, rng=rng)
    choice = WizardChoice(
        owner_id=flow.owner_id,
        roller=state.roller,
        pool=state.pool,
        difficulty=difficulty,
        target=state.target,
        pools=state.pools,
        difficulties=state.difficulties,
        carry=state.carry,
        first=first,
    )
    opening = target.start(choice, profile)
    if await store.close_flow(flow, flow.version) is None:
        raise TapConflict(flow.id)
    text, markup = await opening.open(store, flow.chat_id, flow.owner_id)
    await store.keep_screen(flow, screen_of(text, markup))
    await safe_edit(message, text, markup)
    await callback.answer()
