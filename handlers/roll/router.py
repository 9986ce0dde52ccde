"""The simple roll: ``/r 7 6``, its wizard, «Ещё раз» and «Автоуспех» (docs/product.md §2).

One straight road per update: parse → rules → state → render → answer or edit. Every tap is
a :class:`~bot.render.RollCallback` naming a flow and the version its button was drawn at;
nothing in it is trusted. The flow is loaded, its owner checked, every number re-validated
against the chat's profile, and the change applied by the Store's compare-and-set, so a
double tap or two players pressing at once change the state exactly once.

A d10 result message owns a ``roll`` flow for the buttons under it: «Ещё раз» after a failure
(§A.10: a new attempt follows a failure) and «Продлить», which turns the roll into the first
roll of an extended action (§A.11, :mod:`handlers.extended`). Either closes the flow, so an
old button never works twice.
"""

from __future__ import annotations

from contextlib import suppress

from aiogram import Bot, Router
from aiogram.exceptions import TelegramBadRequest
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import get_i18n
from pydantic import ValidationError

from bot import render, rolling, sheet_text, table_text
from bot.access import runs_game
from bot.features import FeatureSet
from bot.names import roller_name
from bot.parsing import ArgumentsError, parse_roll_arguments
from bot.session import safe_edit
from bot.store import ChatSettings, Flow, FlowStateError, Store
from bot.taps import TapConflict, commit_tap, heal, load_tap, retrying, screen_of, tell
from bot.traits import display_name
from bot.wizard import EXTEND_ROLL, ExtendRequest
from handlers.roll import view
from handlers.roll.callbacks import MODIFIER_SHIFT, RollAction, RollCallback
from handlers.roll.flow import RESULT, WIZARD, RollRecord, WizardState
from rules import d10, probability
from rules.actions import AutoStatus, auto_success
from rules.dice import Rng
from rules.difficulty import check_base, retry_difficulty
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import GameSystem, Profile, RollContext
from rules.sheet import (
    Ability,
    Attribute,
    Discipline,
    Sheet,
    Stat,
    TraitCode,
    Virtue,
    catalogue,
    system_of,
    trait_code,
)


def make_router() -> Router:
    router = Router(name="roll")
    router.message.register(roll_command, Command("r", "roll"))
    router.callback_query.register(roll_tap, RollCallback.filter())
    return router


def auto_success_offered(pool: int, difficulty: int, profile: Profile) -> bool:
    """§A.6 in an ordinary situation (RollContext.NORMAL); the S1 variant's Willpower price is
    taken on trust, since the bot does not yet know the character's Willpower."""
    if not profile.auto_success:
        return False
    try:
        found = auto_success(pool, difficulty, profile, RollContext.NORMAL, wp_current=1)
    except RulesInputError:
        return False
    return found.status is AutoStatus.APPLIED


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
    npc = await rolling.npc_named(store, message.chat.id, profile, line)
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
        await message.answer(refused.with_example(view.example_text("r")))
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
        text, markup = await _store_result(
            store, message.chat.id, user_id, roller, record, result, profile
        )
    except NoWillpower as refused:
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
    text, markup = _wizard_view(flow, state, profile, sheet, None)
    await message.answer(text, reply_markup=markup)


def _wizard_trait(code: TraitCode) -> bool:
    """What a wizard button may add to a pool: an Attribute, an Ability, and on a Dark Ages
    sheet what a vampire rolls besides them — a Virtue, a Discipline, Humanity."""
    return isinstance(code, (Attribute, Ability, Virtue, Discipline)) or code is Stat.HUMANITY


def _trait_buttons(sheet: Sheet | None, state: WizardState) -> list[view.TraitButton]:
    """§A.2 on buttons: the sheet's Attributes, then its highest Abilities, then (Dark Ages)
    its Virtues, Humanity and Disciplines; the pool is their sum, so the player never adds
    ratings in their head."""
    if sheet is None:
        return []
    codes = catalogue(sheet.system)
    rated = [(c, sheet.rating(c)) for c in codes if _wizard_trait(c)]
    attributes = [(c, r) for c, r in rated if isinstance(c, Attribute) and r is not None]
    abilities = sorted(
        ((c, r) for c, r in rated if isinstance(c, Ability) and r),
        key=lambda pair: -(pair[1] or 0),
    )[: max(0, view.WIZARD_TRAITS_MAX - len(attributes))]
    vampire = [(c, r) for c, r in rated if not isinstance(c, (Attribute, Ability)) and r]
    lang = sheet_text.lang_of(get_i18n().current_locale)
    return [
        view.TraitButton(
            index=codes.index(code),
            text=f"{display_name(code, lang, sheet.system)} {rating}",
            chosen=code.value in state.traits,
        )
        for code, rating in attributes + abilities + vampire
    ]


async def _wizard_pool(
    store: Store, who: rolling.Roller, profile: Profile, state: WizardState
) -> rolling.Pool | str | None:
    """The wizard's pool through the one road (§A.2 traits, §B.9 wounds, §B.8 conditions), the
    reason there is none, or None while nothing is chosen."""
    try:
        if state.traits:
            return await rolling.resolve_pool(
                store, who, profile, traits="+".join(state.traits), modifier=state.modifier
            )
        if state.pool is not None:
            return await rolling.resolve_pool(store, who, profile, dice=state.pool)
    except rolling.PoolRefused as refused:
        return refused.text
    return None


def _wizard_view(
    flow: Flow,
    state: WizardState,
    profile: Profile,
    sheet: Sheet | None,
    resolved: rolling.Pool | str | None,
) -> tuple[str, InlineKeyboardMarkup]:
    chances = None
    offered = False
    pool = resolved.dice if isinstance(resolved, rolling.Pool) else None
    if pool is not None:
        chances = probability.d10(
            pool=pool,
            difficulty=state.difficulty,
            profile=profile,
            willpower=state.willpower,
        )
        offered = auto_success_offered(pool, state.difficulty, profile)
    traits = _trait_buttons(sheet, state)
    recent = _recent_buttons(sheet, state)
    text = view.wizard_text(
        pool=pool,
        difficulty=state.difficulty,
        willpower=state.willpower,
        profile=profile,
        chances=chances,
        source=resolved.source if isinstance(resolved, rolling.Pool) else None,
        problem=resolved if isinstance(resolved, str) else None,
        from_sheet=bool(traits),
    )
    extras = view.WizardExtras(
        traits=traits, recent=recent, auto_success=offered, ready=pool is not None
    )
    markup = view.wizard_keyboard(flow, state, profile, extras)
    return text, markup


def _recent_buttons(sheet: Sheet | None, state: WizardState) -> list[str]:
    """The player's latest sheet pools as they read («Ловкость + Драка»): one tap to a pool
    rolled before, the wizard's shortest road to a roll with Willpower (three taps)."""
    if sheet is None:
        return []
    lang = sheet_text.lang_of(get_i18n().current_locale)
    shown: list[str] = []
    for expression in state.recent:
        try:
            codes = [trait_code(c, sheet.system) for c in expression.split("+")]
        except RulesInputError:
            shown.append(expression)
            continue
        shown.append(" + ".join(display_name(c, lang, sheet.system) for c in codes))
    return shown


async def _store_result(
    store: Store,
    chat_id: int,
    owner_id: int,
    roller: str,
    record: RollRecord,
    result: d10.D10Result,
    profile: Profile,
) -> tuple[str, InlineKeyboardMarkup | None]:
    """Log the roll and open the flow behind the buttons under it (one round-trip).

    A roll that spends Willpower takes the point off the player's sheet in the same
    transaction (:meth:`Store.create_flow_spending`); with no points left it raises
    :class:`NoWillpower` and nothing is written."""
    entry = rolling.log_entry(
        owner_id, roller, record.pool, result, attempt=record.attempt, traits=record.traits
    )
    kept = record.model_copy(update={"result": result})
    left: tuple[int, int] | None = None
    if result.willpower and profile.system is GameSystem.D10:
        try:
            who = rolling.Roller(chat_id, owner_id, roller, npc=record.npc)
            spend = rolling.spend(who, profile, willpower=True)
            assert spend is not None
            flow, sheet = await store.create_flow_spending(
                kept, chat_id, owner_id, spend, entries=[entry]
            )
        except RulesInputError as error:
            if error.code is not ErrorCode.WP_UNAVAILABLE:
                raise
            known = await rolling.willpower_on_sheet(store, chat_id, owner_id, profile)
            raise NoWillpower(rolling.no_willpower_text(known[1] if known else 0)) from None
        if sheet is not None and sheet.willpower is not None:
            left = (sheet.willpower_current or 0, sheet.willpower)
    else:
        flow = await store.create_flow(kept, chat_id, owner_id, entries=[entry])
    text = render.roll_result_text(
        result,
        pool=record.pool,
        roller=roller,
        profile=profile,
        attempt=record.attempt,
        source=record.source,
        willpower_left=left,
    )
    return text, view.result_keyboard(flow.id, flow.version, retry=_failed(result))


class NoWillpower(Exception):
    """The sheet has no Willpower left for a roll that spends it (§A.7)."""

    def __init__(self, text: str) -> None:
        super().__init__(text)
        self.text = text


def _failed(result: d10.D10Result) -> bool:
    return result.outcome in (d10.Outcome.FAILURE, d10.Outcome.BOTCH)


@retrying
async def roll_tap(
    callback: CallbackQuery,
    callback_data: RollCallback,
    store: Store,
    profile: Profile,
    features: FeatureSet,
    rng: Rng | None = None,
) -> None:
    loaded = await load_tap(callback, callback_data.f, store, WIZARD, RESULT)
    if loaded is None:
        return
    flow, message = loaded
    if flow.owner_id != callback.from_user.id:
        await tell(callback, lambda: render.not_yours_text(), alert=True)
        return
    if flow.version != callback_data.v:
        # Only the owner presses here, so an older drawing means they already acted on it.
        if callback_data.v > flow.version:
            await tell(callback, lambda: render.invalid_button_text(), alert=True)
            return
        await heal(message, flow)
        await tell(callback, lambda: render.already_done_text())
        return
    if profile.system is not GameSystem.D10:
        await tell(callback, lambda: render.d6_unsupported_text(), alert=True)
        return
    try:
        if flow.kind == WIZARD:
            await _wizard_tap(callback, message, callback_data, flow, store, profile, rng)
        elif callback_data.a is RollAction.EXTEND:
            await _extend_tap(callback, message, callback_data, flow, store, profile, features)
        else:
            await _retry_tap(callback, message, callback_data, flow, store, profile, rng)
    except (RulesInputError, ValidationError, FlowStateError):
        await tell(callback, lambda: render.invalid_button_text(), alert=True)


async def _wizard_tap(
    callback: CallbackQuery,
    message: Message,
    data: RollCallback,
    flow: Flow,
    store: Store,
    profile: Profile,
    rng: Rng | None,
) -> None:
    state = flow.state(WizardState)
    who = rolling.Roller(flow.chat_id, flow.owner_id, callback.from_user.first_name)
    sheet = await rolling.load_sheet(store, who, profile)
    action = data.a
    if action is RollAction.POOL:
        if data.x not in view.WIZARD_POOLS or data.x > profile.pool_sanity_max:
            raise RulesInputError(ErrorCode.RANGE, "pool", str(data.x))
        state = state.model_copy(update={"pool": data.x, "traits": ()})
    elif action is RollAction.TRAIT:
        codes = catalogue(system_of(profile))
        if not 0 <= data.x < len(codes) or not _wizard_trait(codes[data.x]):
            raise RulesInputError(ErrorCode.RANGE, "trait", str(data.x))
        code = codes[data.x].value
        if code in state.traits:
            traits = tuple(t for t in state.traits if t != code)
        else:  # a third trait replaces the last one (S0: at most two, an Attribute + an Ability)
            traits = (*state.traits[: profile.max_traits_per_pool - 1], code)
        state = state.model_copy(update={"traits": traits, "pool": None})
    elif action is RollAction.RECENT:
        if not 0 <= data.x < len(state.recent):
            raise RulesInputError(ErrorCode.RANGE, "recent", str(data.x))
        traits = tuple(state.recent[data.x].split("+"))
        state = state.model_copy(update={"traits": traits, "pool": None})
    elif action is RollAction.MODIFIER:
        if data.x - MODIFIER_SHIFT not in view.WIZARD_MODIFIERS:
            raise RulesInputError(ErrorCode.RANGE, "modifier", str(data.x))
        state = state.model_copy(update={"modifier": data.x - MODIFIER_SHIFT})
    elif action is RollAction.DIFFICULTY:
        state = state.model_copy(update={"difficulty": check_base(data.x, profile)})
    elif action is RollAction.WILLPOWER:
        if not profile.wp_auto_success or not state.willpower_offered:
            raise RulesInputError(ErrorCode.NOT_ALLOWED, "willpower")
        state = state.model_copy(update={"willpower": not state.willpower})
    elif action is RollAction.ROLL:
        await _wizard_roll(callback, message, data, flow, state, store, profile, rng)
        return
    elif action is RollAction.AUTO:
        await _wizard_auto(callback, message, flow, state, store, profile, who)
        return
    else:
        raise RulesInputError(ErrorCode.UNKNOWN_KEY, "action", action.value)
    resolved = await _wizard_pool(store, who, profile, state)
    await commit_tap(
        callback,
        message,
        store,
        flow,
        state,
        lambda f: _wizard_view(f, state, profile, sheet, resolved),
    )


async def _wizard_roll(
    callback: CallbackQuery,
    message: Message,
    data: RollCallback,
    flow: Flow,
    state: WizardState,
    store: Store,
    profile: Profile,
    rng: Rng | None,
) -> None:
    who = rolling.Roller(flow.chat_id, flow.owner_id, callback.from_user.first_name)
    resolved = await _wizard_pool(store, who, profile, state)
    if isinstance(resolved, str):
        await tell(callback, lambda: render.plain(resolved), alert=True)
        return
    if resolved is None:
        raise RulesInputError(ErrorCode.STATE, "pool", "not chosen")
    base = check_base(state.difficulty, profile)
    harder = resolved.difficulty(base, profile, 0)
    record = RollRecord(
        pool=resolved.dice,
        base=harder.difficulty,
        willpower=state.willpower,
        threshold=harder.threshold,
        source=resolved.source,
        traits=resolved.traits,
    )
    # Rolling is pure, so the dice are cast before the flow closes: a roll the rules refuse
    # (a profile changed mid-wizard) leaves the wizard open, and a lost race shows nothing.
    result = rolling.roll_d10(
        record.pool,
        record.base,
        profile,
        willpower=record.willpower,
        threshold=record.threshold,
        rng=rng,
    )
    if record.willpower and not await _has_willpower(callback, store, flow, profile):
        return
    if await store.close_flow(flow, flow.version) is None:
        raise TapConflict(flow.id)
    text, markup = await _store_result(
        store,
        message.chat.id,
        flow.owner_id,
        callback.from_user.first_name,
        record,
        result,
        profile,
    )
    await store.keep_screen(flow, screen_of(text, markup))
    await safe_edit(message, text, markup)
    await callback.answer()


async def _has_willpower(
    callback: CallbackQuery, store: Store, flow: Flow, profile: Profile
) -> bool:
    """Checked before a button's flow closes, so an empty sheet leaves the button usable
    without Willpower (the wizard) and nothing rolled; the roll's own transaction re-checks."""
    left = await rolling.willpower_on_sheet(store, flow.chat_id, flow.owner_id, profile)
    if left is not None and left[0] < 1:
        await tell(callback, lambda: rolling.no_willpower_text(left[1]), alert=True)
        return False
    return True


async def _wizard_auto(
    callback: CallbackQuery,
    message: Message,
    flow: Flow,
    state: WizardState,
    store: Store,
    profile: Profile,
    who: rolling.Roller,
) -> None:
    """§A.6: no dice; the pool reaching the difficulty is one (marginal) success. Where the
    table's variant makes it cost a Willpower point (S1, ``auto_success_costs_wp``), the point
    leaves the sheet in the same step, and a sheet with none left cannot take it. The pool is
    the one the wizard shows — typed or built from the sheet's traits, less the wounds."""
    resolved = await _wizard_pool(store, who, profile, state)
    if not isinstance(resolved, rolling.Pool):
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "auto_success")
    pool = resolved.dice
    if not auto_success_offered(pool, state.difficulty, profile):
        raise RulesInputError(ErrorCode.NOT_ALLOWED, "auto_success")
    known = await rolling.willpower_on_sheet(store, flow.chat_id, flow.owner_id, profile)
    try:
        found = auto_success(
            pool,
            state.difficulty,
            profile,
            RollContext.NORMAL,
            wp_current=1 if known is None else known[0],  # an untracked sheet: on trust
        )
    except RulesInputError as error:
        if error.code is not ErrorCode.WP_UNAVAILABLE:
            raise
        await tell(
            callback, lambda: rolling.no_willpower_text(known[1] if known else 0), alert=True
        )
        return
    if found.degree is None:
        raise RulesInputError(ErrorCode.STATE, "auto_success")
    roller = callback.from_user.first_name
    entry = rolling.auto_success_entry(
        flow.owner_id, roller, pool, state.difficulty, found.successes
    )
    text = view.auto_success_text(
        pool=pool,
        difficulty=state.difficulty,
        roller=roller,
        profile=profile,
        degree=found.degree,
        source=resolved.source,
    )
    spend = rolling.spend(
        rolling.Roller(flow.chat_id, flow.owner_id, roller), profile, willpower=True
    )
    if found.wp_delta < 0 and known is not None and spend is not None:
        advanced, sheet = await store.advance_flow_spending(
            flow, flow.version, state, spend, close=True, entries=[entry]
        )
        if advanced is None:
            raise TapConflict(flow.id)
        text = view.auto_success_text(
            pool=pool,
            difficulty=state.difficulty,
            roller=roller,
            profile=profile,
            degree=found.degree,
            willpower_left=rolling.willpower_left(sheet),
            source=resolved.source,
        )
    else:
        if await store.close_flow(flow, flow.version) is None:
            raise TapConflict(flow.id)
        await store.log_roll(message.chat.id, entry)
    await safe_edit(message, text, None)
    await callback.answer()


async def _retry_tap(
    callback: CallbackQuery,
    message: Message,
    data: RollCallback,
    flow: Flow,
    store: Store,
    profile: Profile,
    rng: Rng | None,
) -> None:
    """«Ещё раз»: §A.10's next attempt, posted as a new message; the old button goes away."""
    if data.a is not RollAction.RETRY:
        raise RulesInputError(ErrorCode.UNKNOWN_KEY, "action", data.a.value)
    record = flow.state(RollRecord)
    if record.result is not None and not _failed(record.result):
        raise RulesInputError(ErrorCode.STATE, "action", "a success is not retried")
    attempt = record.attempt + 1
    harder = retry_difficulty(record.base, attempt, profile)
    threshold = record.threshold + harder.threshold
    result = rolling.roll_d10(
        record.pool,
        harder.difficulty,
        profile,
        willpower=record.willpower,
        threshold=threshold,
        rng=rng,
    )
    if record.willpower and not await _has_willpower(callback, store, flow, profile):
        return
    if await store.close_flow(flow, flow.version) is None:
        raise TapConflict(flow.id)
    again = record.model_copy(update={"attempt": attempt})
    text, markup = await _store_result(
        store,
        message.chat.id,
        flow.owner_id,
        callback.from_user.first_name,
        again,
        result,
        profile,
    )
    # The old message may be gone or too old to edit; its flow is closed either way.
    with suppress(TelegramBadRequest):
        await message.edit_reply_markup(reply_markup=None)
    await message.answer(text, reply_markup=markup)
    await callback.answer()


async def _extend_tap(
    callback: CallbackQuery,
    message: Message,
    data: RollCallback,
    flow: Flow,
    store: Store,
    profile: Profile,
    features: FeatureSet,
) -> None:
    """«Продлить»: the first tap asks for the target, the second starts the extended action
    with this roll as its first (§A.11), in the same message."""
    record = flow.state(RollRecord)
    if record.result is None:
        raise RulesInputError(ErrorCode.STATE, "result", "no roll to extend")
    if data.x == 0:
        with suppress(TelegramBadRequest):
            await message.edit_reply_markup(
                reply_markup=view.extend_targets_keyboard(flow.id, flow.version)
            )
        await tell(callback, lambda: table_text.extend_prompt_text())
        return
    request = ExtendRequest(
        roller=callback.from_user.first_name,
        pool=record.pool,
        difficulty=record.base,
        target=data.x,
        first=record.result,
    )
    opening = features.handoff(EXTEND_ROLL)(request, profile)
    if await store.close_flow(flow, flow.version) is None:
        raise TapConflict(flow.id)
    text, markup = await opening.open(store, flow.chat_id, flow.owner_id)
    await store.keep_screen(flow, screen_of(text, markup))
    await safe_edit(message, text, markup)
    await callback.answer()
