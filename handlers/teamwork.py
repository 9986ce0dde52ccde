"""Teamwork (работа в команде, RULES.md §A.13): ``/team 7 6 цель 5``, one message for all.

S0 «…разные персонажи не могут объединять свои Черты…»: helpers do not pool their dice, each
rolls their own pool and the successes add (:func:`rules.contests.teamwork`); S0 «каждый
игрок преуспевает, а также терпит неудачу или провал отдельно», so every roll keeps its own
line and its own botch. The leader rolls first with the command; each helper presses
«Помочь», picks a pool on the same message and rolls once; the leader closes the effort.
"""

from __future__ import annotations

from typing import ClassVar

from aiogram import Router
from aiogram.enums import ParseMode
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, InlineKeyboardMarkup, Message
from pydantic import BaseModel, ConfigDict, ValidationError

from bot import render, table_render
from bot.parsing import parse_team_arguments
from bot.store import Flow, FlowState, LogEntry, Store
from bot.table_render import TeamAction, TeamCallback
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
from rules.contests import CONTEST_LIMIT, teamwork
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError, check_int
from rules.profiles import Profile, TeamBotch

KIND = "team"
MAX_MEMBERS = 20  # a message stays well under Telegram's 4096 characters


class Member(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")

    user_id: int
    name: str
    pool: int
    result: d10.D10Result
    source: str | None = None  # the sheet's traits the pool came from, as shown


class TeamFlow(FlowState):
    kind: ClassVar[str] = KIND
    model_config = ConfigDict(frozen=True, extra="forbid")

    leader: str
    difficulty: int
    target: int | None = None
    members: tuple[Member, ...] = ()
    pending: tuple[tuple[int, str], ...] = ()  # pressed «Помочь», pool not yet chosen
    closed: bool = False

    def has_rolled(self, user_id: int) -> bool:
        return any(m.user_id == user_id for m in self.members)

    def is_pending(self, user_id: int) -> bool:
        return any(uid == user_id for uid, _name in self.pending)


def make_router() -> Router:
    router = Router(name="teamwork")
    router.message.register(team_command, Command("team"))
    router.callback_query.register(team_tap, TeamCallback.filter())
    return router


def view(flow: Flow, state: TeamFlow, profile: Profile) -> tuple[str, InlineKeyboardMarkup | None]:
    result = teamwork([m.result for m in state.members], profile, state.target)
    ruined = profile.team_botch is TeamBotch.RUINS_ALL and any(
        m.result.outcome is d10.Outcome.BOTCH for m in state.members
    )
    text = table_render.team_text(
        leader=state.leader,
        difficulty=state.difficulty,
        target=state.target,
        members=[(m.name, m.pool, m.result, m.source) for m in state.members],
        pending=[name for _uid, name in state.pending],
        total=result.total,
        reached=result.reached,
        ruined=ruined,
        closed=state.closed,
    )
    if state.closed:
        return text, None
    return text, table_render.team_keyboard(flow.id, flow.version, choosing=bool(state.pending))


async def team_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    rng: Rng | None = None,
) -> None:
    from handlers import setup  # the wizard builds on this module

    args = await setup.typed_or_wizard(
        message, command, store, profile, setup.Feature.TEAM, parse_team_arguments
    )
    if args is None:
        return
    user = message.from_user
    leader_id = user.id if user else 0
    leader = roller_name(message, user)
    try:
        typed, source = await typed_pool(store, message, leader, args.pool, args.traits, profile)
    except PoolRefused as refused:
        await message.answer(
            refused.text + "\n" + table_render.usage_text("team"), parse_mode=ParseMode.HTML
        )
        return
    try:
        pool = check_pool(typed, profile)
        difficulty = check_difficulty(args.difficulty, profile)
        if args.target is not None:
            check_int(args.target, "target", 1, CONTEST_LIMIT)
        first = d10.roll(pool, difficulty, profile, rng=rng)
    except RulesInputError as error:
        await message.answer(
            table_render.range_text(error.field, profile, "team"), parse_mode=ParseMode.HTML
        )
        return
    state = TeamFlow(
        leader=leader,
        difficulty=difficulty,
        target=args.target,
        members=(Member(user_id=leader_id, name=leader, pool=pool, result=first, source=source),),
    )
    entry = log_entry(leader_id, leader, pool, first, KIND)
    flow = await store.create_flow(state, message.chat.id, leader_id, entries=[entry])
    text, markup = view(flow, state, profile)
    await message.answer(text, parse_mode=ParseMode.HTML, reply_markup=markup)


async def team_tap(
    callback: CallbackQuery,
    callback_data: TeamCallback,
    store: Store,
    profile: Profile,
    rng: Rng | None = None,
) -> None:
    opened = await open_table_tap(
        callback, callback_data.f, callback_data.v, store, KIND, profile, owner_only=False
    )
    if opened is None:
        return
    flow, message = opened
    user = callback.from_user
    try:
        state = TeamFlow.model_validate(flow.data)
    except ValidationError:
        await callback.answer(render.invalid_button_text(), show_alert=True)
        return
    action = callback_data.a
    entries: list[LogEntry] = []
    if action is TeamAction.FINISH:
        if user.id != flow.owner_id:
            await callback.answer(table_render.team_leader_only_text(), show_alert=True)
            return
        after = state.model_copy(update={"closed": True, "pending": ()})
    elif state.has_rolled(user.id):
        await callback.answer(table_render.team_already_text(), show_alert=True)
        return
    elif action is TeamAction.JOIN:
        if state.is_pending(user.id):
            await callback.answer()
            return
        if len(state.members) + len(state.pending) >= MAX_MEMBERS:
            await callback.answer(render.invalid_button_text(), show_alert=True)
            return
        after = state.model_copy(update={"pending": (*state.pending, (user.id, user.first_name))})
    elif not state.is_pending(user.id):
        await callback.answer(table_render.team_press_help_text(), show_alert=True)
        return
    else:
        try:
            if callback_data.x not in table_render.TABLE_POOLS:
                raise RulesInputError(ErrorCode.RANGE, "pool", str(callback_data.x))
            pool = check_pool(callback_data.x, profile)
            result = d10.roll(pool, state.difficulty, profile, rng=rng)
        except RulesInputError:
            await callback.answer(render.invalid_button_text(), show_alert=True)
            return
        member = Member(user_id=user.id, name=user.first_name, pool=pool, result=result)
        after = state.model_copy(
            update={
                "members": (*state.members, member),
                "pending": tuple(p for p in state.pending if p[0] != user.id),
            }
        )
        entries.append(log_entry(user.id, user.first_name, pool, result, KIND))
    advanced = await store.advance_flow(
        flow, flow.version, after, entries=entries, close=after.closed
    )
    await show_tap(callback, message, advanced, lambda f: view(f, after, profile))
