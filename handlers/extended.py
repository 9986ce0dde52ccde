"""Extended rolls (длительное действие, RULES.md §A.11): ``/ext 7 6 10 [5]`` and «Продлить».

S1 «Действие, которое требует 2 и более успешных баллов, считается длительным»: the same pool
is rolled turn after turn and the successes add up toward a target, maybe against a limit of
rolls (S0's spirit summoned before the Nephandus arrives). The progress lives in a flow, so
it survives across turns, messages and bot restarts; only the roller rolls on. A botch
follows the profile (``extended_botch``) through :func:`rules.actions.extended_step`, and
whether the work goes on after it is the Storyteller's call, so the button stays («Начать
сначала»); a finished or timed-out action closes its flow.
"""

from __future__ import annotations

from typing import ClassVar

from aiogram import Router
from aiogram.enums import ParseMode
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from pydantic import ConfigDict, ValidationError

from bot import render, table_render
from bot.parsing import parse_extended_arguments
from bot.store import Flow, FlowState, LogEntry, Store
from bot.table_render import ExtAction, ExtCallback
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
from rules.actions import ExtendedState, ExtendedStatus, extended_step, start_extended
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import Profile

KIND = "ext"
_FINAL = (ExtendedStatus.COMPLETE, ExtendedStatus.OUT_OF_TIME)


class ExtendedFlow(FlowState):
    """The flow's data: the request, the rules' progress and the latest rolls to show."""

    kind: ClassVar[str] = KIND

    model_config = ConfigDict(frozen=True, extra="forbid")

    roller: str
    pool: int
    difficulty: int
    target: int
    max_rolls: int | None = None
    accumulated: int = 0
    rolls_made: int = 0
    status: ExtendedStatus = ExtendedStatus.IN_PROGRESS
    excess: int = 0
    history: tuple[d10.D10Result, ...] = ()
    source: str | None = None  # the sheet's traits the pool came from, as shown

    def rules_state(self) -> ExtendedState:
        return ExtendedState(
            target=self.target,
            max_rolls=self.max_rolls,
            accumulated=self.accumulated,
            rolls_made=self.rolls_made,
            status=self.status,
            excess=self.excess,
        )

    def after(self, result: d10.D10Result, profile: Profile) -> ExtendedFlow:
        """One more roll counted by the rules; the shown history keeps the latest rolls."""
        state = extended_step(self.rules_state(), result, profile)
        history = (*self.history, result)[-table_render.HISTORY_SHOWN :]
        return self.model_copy(
            update={
                "accumulated": state.accumulated,
                "rolls_made": state.rolls_made,
                "status": state.status,
                "excess": state.excess,
                "history": history,
            }
        )


def make_router() -> Router:
    router = Router(name="extended")
    router.message.register(ext_command, Command("ext", "extended"))
    router.callback_query.register(ext_tap, ExtCallback.filter())
    return router


def view(
    flow: Flow, state: ExtendedFlow, profile: Profile, *, stopped: bool = False
) -> tuple[str, InlineKeyboardMarkup | None]:
    text = table_render.extended_text(
        roller=state.roller,
        pool=state.pool,
        difficulty=state.difficulty,
        target=state.target,
        max_rolls=state.max_rolls,
        accumulated=state.accumulated,
        rolls_made=state.rolls_made,
        status=state.status,
        history=state.history,
        profile=profile,
        stopped=stopped,
        source=state.source,
    )
    if stopped or state.status in _FINAL:
        return text, None
    markup = table_render.extended_keyboard(
        flow.id,
        flow.version,
        next_roll=state.rolls_made + 1,
        botched=state.status is ExtendedStatus.BOTCHED,
    )
    return text, markup


async def store_flow(
    store: Store, chat_id: int, owner_id: int, state: ExtendedFlow, entry: LogEntry | None
) -> Flow:
    """The action's flow, with its first roll's log line unless that roll was logged already
    (a /r result turned extended); closed at once when the first roll already finished the
    action: nothing to press, and the flow need not wait for a tap."""
    entries = () if entry is None else (entry,)
    flow = await store.create_flow(state, chat_id, owner_id, entries=entries)
    if finished(state):
        await store.close_flow(flow, flow.version)
    return flow


def finished(state: ExtendedFlow) -> bool:
    """Complete or out of rolls: nothing left to press (a botch may still start over)."""
    return state.status in _FINAL


def begin(
    roller: str,
    pool: int,
    difficulty: int,
    target: int,
    max_rolls: int | None,
    first: d10.D10Result,
    profile: Profile,
) -> ExtendedFlow:
    """A new extended action whose first roll is ``first`` (typed /ext, or a /r «Продлить»)."""
    start = start_extended(target, max_rolls)
    state = ExtendedFlow(
        roller=roller, pool=pool, difficulty=difficulty, target=start.target, max_rolls=max_rolls
    )
    return state.after(first, profile)


async def ext_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    rng: Rng | None = None,
) -> None:
    from handlers import setup  # the wizard builds on this module

    args = await setup.typed_or_wizard(
        message, command, store, profile, setup.Feature.EXTENDED, parse_extended_arguments
    )
    if args is None:
        return
    user = message.from_user
    roller = roller_name(message, user)
    try:
        typed, source = await typed_pool(store, message, roller, args.pool, args.traits, profile)
    except PoolRefused as refused:
        await message.answer(
            refused.text + "\n" + table_render.usage_text("ext"), parse_mode=ParseMode.HTML
        )
        return
    try:
        pool = check_pool(typed, profile)
        difficulty = check_difficulty(args.difficulty, profile)
        start_extended(args.target, args.max_rolls)
        first = d10.roll(pool, difficulty, profile, rng=rng)
        state = begin(roller, pool, difficulty, args.target, args.max_rolls, first, profile)
        state = state.model_copy(update={"source": source})
    except RulesInputError as error:
        await message.answer(
            table_render.range_text(error.field, profile, "ext"), parse_mode=ParseMode.HTML
        )
        return
    owner = user.id if user else 0
    entry = log_entry(owner, roller, pool, first, KIND)
    flow = await store_flow(store, message.chat.id, owner, state, entry)
    text, markup = view(flow, state, profile)
    await message.answer(text, parse_mode=ParseMode.HTML, reply_markup=markup)


async def ext_tap(
    callback: CallbackQuery,
    callback_data: ExtCallback,
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
        state = ExtendedFlow.model_validate(flow.data)
        if callback_data.a is ExtAction.STOP:
            advanced = await store.close_flow(flow, flow.version)
            await show_tap(
                callback, message, advanced, lambda f: view(f, state, profile, stopped=True)
            )
            return
        result = d10.roll(state.pool, state.difficulty, profile, rng=rng)
        after = state.after(result, profile)
    except (RulesInputError, ValidationError):
        await callback.answer(render.invalid_button_text(), show_alert=True)
        return
    entry = log_entry(flow.owner_id, state.roller, state.pool, result, KIND)
    advanced = await store.advance_flow(
        flow,
        flow.version,
        after,
        entries=[entry],
        close=after.status in _FINAL,
    )
    await show_tap(callback, message, advanced, lambda f: view(f, after, profile))
