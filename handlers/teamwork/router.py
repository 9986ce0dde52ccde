"""Teamwork (работа в команде, docs/rules.md §A.13): ``/team 7 6 цель 5``, one message for all.

S0 «…разные персонажи не могут объединять свои Черты…»: helpers do not pool their dice, each
rolls their own pool and the successes add (:func:`rules.contests.teamwork`); S0 «каждый
игрок преуспевает, а также терпит неудачу или провал отдельно», so every roll keeps its own
line and its own botch. The leader rolls first with the command; each helper presses
«Помочь», picks a pool on the same message and rolls once; the leader closes the effort.
"""

from __future__ import annotations

import contextlib
from contextlib import suppress

from aiogram import Router
from aiogram.exceptions import TelegramAPIError
from aiogram.filters import Command, CommandObject
from aiogram.types import Message
from pydantic import ValidationError

from bot import render, rolling, runner, table_text
from bot.features import FeatureSet
from bot.i18n import drawing
from bot.names import roller_name
from bot.runner import CONFLICT_ATTEMPTS, screen_of
from bot.wizard import typed_or_wizard
from handlers.teamwork import view
from handlers.teamwork.callbacks import TeamCallback
from handlers.teamwork.flow import KIND, MAX_MEMBERS, Member, TeamFlow
from handlers.teamwork.tap import TAP
from rules.contests import CONTEST_LIMIT
from rules.dice import Rng
from rules.errors import RulesInputError, check_int
from rules.profiles import Profile
from table.parsing import ArgumentsError, parse_team_arguments
from table.store import FlowStateError, Store


def make_router() -> Router:
    router = Router(name="teamwork")
    router.message.register(team_command, Command("team"))
    runner.register(router, TAP)
    return router


async def team_command(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    features: FeatureSet,
    rng: Rng | None = None,
) -> None:
    joined = _replied_team(message)
    if joined is not None and (command.args or "").strip():
        await _join_by_reply(message, command, store, profile, joined, rng)
        return
    args = await typed_or_wizard(
        message, command, store, profile, features, "team", parse_team_arguments, view.usage_text()
    )
    if args is None:
        return
    user = message.from_user
    leader_id = user.id if user else 0
    leader = roller_name(message, user)
    try:
        resolved = await rolling.command_pool(
            store, message, leader, args.pool, args.traits, profile, args.dice
        )
        typed, source = resolved.dice, resolved.source
    except rolling.PoolRefused as refused:
        await message.answer(refused.with_example(view.usage_text()))
        return
    try:
        pool = rolling.check_pool(typed, profile)
        difficulty = rolling.check_difficulty(args.difficulty, profile)
        if args.target is not None:
            check_int(args.target, "target", 1, CONTEST_LIMIT)
        # The team's difficulty is the leader's task; the leader's own conditions (§B.8) make
        # only the leader's dice harder.
        own = resolved.difficulty(difficulty, profile)
        first = rolling.roll_d10(pool, own.difficulty, profile, threshold=own.threshold, rng=rng)
    except RulesInputError as error:
        await message.answer(table_text.range_text(error.field, profile, view.usage_text()))
        return
    state = TeamFlow(
        leader=leader,
        difficulty=difficulty,
        target=args.target,
        members=(Member(user_id=leader_id, name=leader, pool=pool, result=first, source=source),),
    )
    entry = rolling.log_entry(leader_id, leader, pool, first, KIND)
    flow = await store.create_flow(state, message.chat.id, leader_id, entries=[entry])
    text, markup = view.draw(flow, state, profile)
    await message.answer(text, reply_markup=markup)


def _replied_team(message: Message) -> tuple[str, int] | None:
    """The team effort a /team replies to: its flow (from the buttons Telegram sends with
    the replied message) and the message id; None when it is no open team's message."""
    replied = message.reply_to_message
    markup = replied.reply_markup if replied is not None else None
    if replied is None or markup is None:
        return None
    for row in markup.inline_keyboard:
        for button in row:
            data = button.callback_data or ""
            if data.startswith(TeamCallback.__prefix__ + ":"):
                try:
                    return TeamCallback.unpack(data).f, replied.message_id
                except (TypeError, ValueError):
                    return None
    return None


async def _join_by_reply(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    joined: tuple[str, int],
    rng: Rng | None,
) -> None:
    """``/team инт+техника`` in reply to a team's message: the helper's roll joins that team
    at its difficulty, and the one message shows it (§A.13)."""
    user = message.from_user
    if user is None or message.sender_chat is not None:
        await message.answer(view.usage_text())
        return
    try:
        args = parse_team_arguments(command.args)
    except ArgumentsError:
        await message.answer(view.usage_text())
        return
    name = roller_name(message, user)
    flow_id, message_id = joined
    flow = await store.load_flow(message.chat.id, flow_id)
    try:
        # The pool's words are a line of the team's message: in that message's language.
        with drawing(flow) if flow is not None else contextlib.nullcontext():
            resolved = await rolling.command_pool(
                store, message, name, args.pool, args.traits, profile, args.dice
            )
            source = resolved.source
    except rolling.PoolRefused as refused:
        await message.answer(refused.with_example(view.usage_text()))
        return
    for attempt in range(CONFLICT_ATTEMPTS):
        if attempt:
            flow = await store.load_flow(message.chat.id, flow_id)
        if flow is None or flow.closed or flow.chat_id != message.chat.id:
            await message.answer(render.closed_text())
            return
        try:
            state = flow.state(TeamFlow)
        except (ValidationError, FlowStateError):
            await message.answer(view.usage_text())
            return
        if state.has_rolled(user.id):
            await message.answer(view.team_already_text())
            return
        if len(state.members) >= MAX_MEMBERS:
            await message.answer(view.team_full_text(MAX_MEMBERS))
            return
        try:
            pool = rolling.check_pool(resolved.dice, profile)
            own = resolved.difficulty(state.difficulty, profile)
            result = rolling.roll_d10(
                pool, own.difficulty, profile, threshold=own.threshold, rng=rng
            )
        except RulesInputError as error:
            await message.answer(table_text.range_text(error.field, profile, view.usage_text()))
            return
        member = Member(user_id=user.id, name=name, pool=pool, result=result, source=source)
        after = state.model_copy(
            update={
                "members": (*state.members, member),
                "pending": tuple(p for p in state.pending if p[0] != user.id),
            }
        )
        text, markup = view.draw(flow.next(after), after, profile)
        entry = rolling.log_entry(user.id, name, pool, result, KIND)
        advanced = await store.advance_flow(
            flow, flow.version, after, entries=[entry], screen=screen_of(text, markup)
        )
        if advanced is None:
            continue
        bot = message.bot
        if bot is not None:
            # The step is stored with its screen: if this edit fails, the next tap redraws.
            with suppress(TelegramAPIError):
                await bot.edit_message_text(
                    text=text, chat_id=message.chat.id, message_id=message_id, reply_markup=markup
                )
        return
    await message.answer(render.busy_text())
