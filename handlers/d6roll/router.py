"""``/r`` in a d6 chat (docs/rules.md §D.2–§D.4): a typed chance or the sheet's powers, the wizard,
and the special effort under the result.

One flow per message: the wizard's choices, then the roll, then the one special effort. The
roll and the luck dice it spends are one transaction with the log line; the effort's wound
goes onto the sheet in the step that rerolls, so a double tap pays once and a player never
pays for a result they did not see (docs/product.md §3).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message

from bot import render, rolling
from bot.features import in_game
from bot.names import roller_name
from bot.parsing import ArgumentsError, D6Arguments, parse_d6_arguments
from bot.session import safe_edit
from bot.store import Flow, LogEntry, SheetSpend, Store
from bot.taps import TapConflict, open_state, retrying, screen_of
from handlers.d6roll import view
from handlers.d6roll.callbacks import MODIFIER_SHIFT, D6Action, D6Callback
from handlers.d6roll.flow import D6RollState
from rules.d6.chance import Difficulty
from rules.d6.combat import ActionKind, Edge, Trick, after_action, declare
from rules.d6.roll import D6Result, auto_success, special_effort
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import Sheet, SheetSystem, add_wound, set_edges

Drawn = tuple[str, InlineKeyboardMarkup | None]
SheetChange = Callable[[Sheet], Sheet]


def make_router() -> Router:
    router = Router(name="d6roll")
    router.message.register(d6_roll_command, Command("r", "roll"), in_game(GameSystem.D6))
    router.callback_query.register(d6_tap, D6Callback.filter())
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


def _wizard_pool(
    state: D6RollState, sheet: Sheet | None, profile: Profile
) -> rolling.D6Pool | str | None:
    """The chance the wizard's choices make, the reason there is none, or None while nothing
    is picked."""
    if not state.powers and state.chance is None:
        return None
    try:
        ask = rolling.D6Ask(
            chance=state.chance,
            powers=state.powers,
            weakness=state.weakness,
            modifier=state.modifier,
            luck=state.luck,
            action=ActionKind.OTHER,
        )
        return rolling.d6_pool_of(sheet, state.roller, profile, ask)
    except rolling.PoolRefused as refused:
        return str(refused)


def _draw(flow: Flow, state: D6RollState, sheet: Sheet | None, profile: Profile) -> Drawn:
    """The message at ``flow``'s version: the result once rolled, else the wizard."""
    if state.result is not None:
        weakness = sheet.weakness if sheet is not None else None
        return (
            view.result_text(state, weakness, profile),
            view.result_keyboard(flow.id, flow.version, state, profile),
        )
    pool = _wizard_pool(state, sheet, profile)
    if isinstance(pool, rolling.D6Pool):
        shown = state.model_copy(update={"label": pool.label})
        text = view.wizard_text(shown, pool.dice, None, profile=profile)
    else:
        text = view.wizard_text(
            state, None, pool, powers=bool(sheet and sheet.powers), profile=profile
        )
    ready = isinstance(pool, rolling.D6Pool)
    return text, view.wizard_keyboard(flow.id, flow.version, state, sheet, ready)


# ----- the buttons ----------------------------------------------------------------------------


class _Refused(Exception):
    def __init__(self, text: str) -> None:
        self.text = text


@dataclass(frozen=True)
class _Tap:
    """One press on a d6 roll's message: what every step of it reads and redraws."""

    callback: CallbackQuery
    message: Message
    store: Store
    profile: Profile
    flow: Flow
    sheet: Sheet | None
    rng: Rng | None


@retrying
async def d6_tap(
    callback: CallbackQuery,
    callback_data: D6Callback,
    store: Store,
    profile: Profile,
    rng: Rng | None = None,
) -> None:
    opened = await open_state(
        callback,
        callback_data.f,
        callback_data.v,
        store,
        D6RollState,
        profile,
        owner_only=True,
        current_only=True,  # one person's steps, in order: an older drawing is a repeat
        system=GameSystem.D6,
    )
    if opened is None:
        return
    flow, message, state = opened
    who = rolling.Roller(flow.chat_id, flow.owner_id, state.roller)
    sheet = await rolling.load_sheet(store, who, profile)
    tap = _Tap(callback, message, store, profile, flow, sheet, rng)
    try:
        if state.result is None:
            await _wizard_step(tap, state, callback_data)
        else:
            await _effort_step(tap, state, callback_data)
    except _Refused as refused:
        await callback.answer(render.plain(refused.text), show_alert=True)


async def _commit(
    tap: _Tap,
    after: D6RollState,
    *,
    spend: SheetSpend | None = None,
    entry: LogEntry | None = None,
) -> None:
    """Store the step with the screen it draws (compare-and-set, the spend in the same
    transaction), then edit the message."""
    store, flow = tap.store, tap.flow
    drawn = _draw(flow.next(after), after, tap.sheet, tap.profile)
    entries = [entry] if entry is not None else []
    if spend is None:
        advanced = await store.advance_flow(
            flow, flow.version, after, entries=entries, screen=screen_of(*drawn)
        )
    else:
        try:
            advanced, _sheet = await store.advance_flow_spending(
                flow, flow.version, after, spend, entries=entries, screen=screen_of(*drawn)
            )
        except RulesInputError:
            raise _Refused(rolling.no_luck_text(0)) from None
    if advanced is None:
        raise TapConflict(flow.id)
    await safe_edit(tap.message, drawn[0], drawn[1])
    await tap.callback.answer()


async def _wizard_step(tap: _Tap, state: D6RollState, data: D6Callback) -> None:
    action, x, sheet = data.a, data.x, tap.sheet
    powers = sheet.powers if sheet is not None else ()
    if action is D6Action.POWER:
        if not 0 <= x < len(powers):
            raise _Refused(render.invalid_button_text())
        name = powers[x].name
        chosen = tuple(p for p in state.powers if p != name)
        if len(chosen) == len(state.powers):
            chosen = (*state.powers, name)
        after = state.model_copy(update={"powers": chosen, "chance": None})
    elif action is D6Action.CHANCE:
        if x not in view.WIZARD_CHANCES and x != view.NO_POWER:
            raise _Refused(render.invalid_button_text())
        after = state.model_copy(update={"chance": x, "powers": ()})
    elif action is D6Action.WEAKNESS:
        after = state.model_copy(update={"weakness": not state.weakness})
    elif action is D6Action.LUCK:
        if sheet is None or not 0 <= x <= sheet.luck:
            raise _Refused(rolling.no_luck_text(sheet.luck if sheet else 0))
        after = state.model_copy(update={"luck": x})
    elif action is D6Action.REQUIRED:
        if x not in view.WIZARD_REQUIRED:
            raise _Refused(render.invalid_button_text())
        after = state.model_copy(update={"required": x})
    elif action is D6Action.MODIFIER:
        if x - MODIFIER_SHIFT not in view.WIZARD_MODIFIERS:
            raise _Refused(render.invalid_button_text())
        after = state.model_copy(update={"modifier": x - MODIFIER_SHIFT})
    elif action is D6Action.ROLL:
        await _roll_step(tap, state)
        return
    else:
        raise _Refused(render.invalid_button_text())
    await _commit(tap, after)


async def _roll_step(tap: _Tap, state: D6RollState) -> None:
    flow = tap.flow
    pool = _wizard_pool(state, tap.sheet, tap.profile)
    if not isinstance(pool, rolling.D6Pool):
        raise _Refused(pool or view.hint_text())
    result = rolling.roll_d6(pool.dice, required=state.required, rng=tap.rng, profile=tap.profile)
    after = state.model_copy(update={"label": pool.label, "result": result})
    who = rolling.Roller(flow.chat_id, flow.owner_id, state.roller)
    entry = rolling.d6_log_entry(who.user_id, who.name, pool.dice, state.required, result)
    spend = rolling.d6_spend(who, pool)
    await _commit(tap, after, spend=spend, entry=entry)


async def _effort_step(tap: _Tap, state: D6RollState, data: D6Callback) -> None:
    flow, sheet, profile = tap.flow, tap.sheet, tap.profile
    result = state.result
    assert result is not None
    if not view.effort_offered(result, profile):
        if result.faces and not result.special_effort and not result.armour:
            raise _Refused(view.effort_noop_refused_text(profile))
        raise _Refused(view.effort_refused_text())
    if data.a is D6Action.BACK:
        await _commit(tap, state.model_copy(update={"choosing": False}))
        return
    if data.a is not D6Action.EFFORT:
        raise _Refused(render.invalid_button_text())
    if data.x == 0:
        await _commit(tap, state.model_copy(update={"choosing": True}))
        return
    fuel = view.EFFORT_PRICES.get(data.x)
    if fuel is None or not state.choosing:
        raise _Refused(render.invalid_button_text())
    try:
        effort = special_effort(result, fuel, rng=tap.rng, profile=profile)
    except RulesInputError:
        raise _Refused(view.effort_refused_text()) from None
    wound = effort.wound
    after = state.model_copy(
        update={
            "result": effort.result,
            "choosing": False,
            "price": fuel,
            "wound_written": wound is not None and sheet is not None,
        }
    )
    who = rolling.Roller(flow.chat_id, flow.owner_id, state.roller)
    entry = _effort_entry(who, effort.result)
    trick = _trick_of(state)
    left = state.left
    if trick is not None and left is not None and sheet is not None and sheet.edges == left:
        # The effort changed the trick's measures, and nothing has touched what it left.
        declared = declare(trick, effort.result.measures, state.aim or 0)
        left = tuple(e for e in left if e.trick is not trick)
        left = (*left, declared) if declared is not None else left
        after = after.model_copy(update={"left": left})
    spend = None
    if sheet is not None and (wound is not None or left != state.left):
        spend = SheetSpend(who.user_id, SheetSystem.D6, _effort_change(wound, left))
    await _commit(tap, after, spend=spend, entry=entry)


def _trick_of(state: D6RollState) -> Trick | None:
    if state.aim is not None:
        return Trick.AIM
    if state.escape:
        return Trick.ESCAPE
    if state.charge:
        return Trick.CHARGE
    if state.full_defence:
        return Trick.FULL_DEFENCE
    return None


def _effort_change(wound: Difficulty | None, edges: tuple[Edge, ...] | None) -> SheetChange:
    """The effort's price on the sheet, and the trick its new measures leave waiting."""

    def change(sheet: Sheet) -> Sheet:
        if wound is not None:
            sheet = add_wound(sheet, wound.kind, wound.magnitude)
        return set_edges(sheet, edges) if edges is not None else sheet

    return change


def _effort_entry(who: rolling.Roller, result: D6Result) -> LogEntry:
    entry = rolling.d6_log_entry(who.user_id, who.name, len(result.faces), result.required, result)
    fresh = tuple(result.faces[i] for i in result.rerolled)
    return entry.model_copy(update={"kind": "effort", "fresh": fresh})
