"""``/project`` in a d6 chat: projects and challenges (docs/rules.md §D.6).

S2 «Размах замысла — минимальное количество мер успеха, которое нужно получить, чтобы
воплотить его»: each action is a roll whose measures add to the readiness; a fiasco takes the
roller's weakness away (3 without one) and a readiness below zero fails the project. A
challenge adds S2's time: each character has so many actions. Anyone at the table presses
their chance for an action; the opener or the Storyteller may stop it unfinished (it then
eases a difficulty by its readiness, S2 «Недоделанный замысел»). A d6 ``/r`` sent in reply to
the project's message is an action on it too: its measures go to the readiness.
"""

from __future__ import annotations

from typing import Any

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import rolling, runner
from bot.features import in_game
from bot.names import roller_name
from bot.runner import Actor, Advance, Refuse, screen_of
from bot.session import safe_edit
from handlers.d6project import view
from handlers.d6project.callbacks import ProjectCallback
from handlers.d6project.flow import ProjectFlow
from handlers.d6project.tap import TAP, act
from rules.d6.projects import new_project
from rules.d6.roll import auto_success
from rules.dice import Rng
from rules.profiles import GameSystem, Profile
from rules.sheet import SheetSystem
from table.parsing import ArgumentsError, parse_d6_arguments, parse_project_arguments
from table.store import FlowStateError, Store


def make_router() -> Router:
    router = Router(name="d6project")
    router.message.register(project_command, Command("project", "proj"))
    router.message.register(
        project_roll, Command("r", "roll"), in_game(GameSystem.D6), replies_to_project
    )
    runner.register(router, TAP)
    return router


async def replies_to_project(message: Message) -> dict[str, Any] | bool:
    """A filter: the message answers a project's message (its buttons name the flow)."""
    replied = message.reply_to_message
    markup = replied.reply_markup if replied is not None else None
    if markup is None:
        return False
    for row in markup.inline_keyboard:
        for button in row:
            data = button.callback_data or ""
            if data.startswith(ProjectCallback.__prefix__ + ":"):
                try:
                    return {"project_id": ProjectCallback.unpack(data).f}
                except (TypeError, ValueError):
                    return False
    return False


async def project_roll(
    message: Message,
    command: CommandObject,
    store: Store,
    profile: Profile,
    project_id: str,
    rng: Rng | None = None,
) -> None:
    """``/r`` in reply to a project (§D.6): the roll is an action on it, as a button's is. A
    roll that would spend luck dice or waiting tricks is refused, so nothing is taken off a
    sheet in a step that does not write it."""
    user = message.from_user
    replied = message.reply_to_message
    if user is None or replied is None:
        return
    flow = await store.load_flow(message.chat.id, project_id)
    try:
        state = flow.state(ProjectFlow) if flow is not None else None
    except FlowStateError:
        state = None
    if flow is None or state is None or flow.closed:
        await message.answer(view.project_closed_text())
        return
    who = rolling.Roller(message.chat.id, user.id, roller_name(message, user))
    try:
        args = parse_d6_arguments(command.args)
        pool = (
            None
            if args.auto
            else await rolling.d6_pool(store, who, profile, rolling.D6Ask.typed(args))
        )
    except ArgumentsError:
        await message.answer(view.roll_usage_text())
        return
    except rolling.PoolRefused as refused:
        await message.answer(str(refused))
        return
    if pool is not None and rolling.d6_spend(who, pool) is not None:
        await message.answer(view.no_luck_here_text())
        return
    sheet = await store.load_sheet(message.chat.id, user.id, SheetSystem.D6)
    weakness = sheet.weakness if sheet is not None else None
    if pool is None:
        result, chance = auto_success(), 0
    else:
        result, chance = rolling.roll_d6(pool.dice, rng=rng, profile=profile), pool.dice
    outcome = act(state, Actor.of(user), weakness, profile, result, chance)
    if isinstance(outcome, Refuse):
        await message.answer(outcome.answer())
        return
    assert isinstance(outcome, Advance)
    drawn = view.draw(flow.next(outcome.state), outcome.state, profile)
    stored = await store.advance_flow(
        flow,
        flow.version,
        outcome.state,
        close=outcome.close,
        entries=outcome.entries,
        screen=screen_of(*drawn),
    )
    if stored is None:
        await message.answer(view.project_closed_text())
        return
    text, markup = view.draw(stored, outcome.state, profile)
    await safe_edit(replied, text, reply_markup=None if outcome.close else markup)


async def project_command(
    message: Message, command: CommandObject, store: Store, profile: Profile
) -> None:
    if profile.system is not GameSystem.D6:
        await message.answer(view.d6_only_text())
        return
    try:
        args = parse_project_arguments(command.args)
    except ArgumentsError:
        await message.answer(view.usage_text())
        return
    state = ProjectFlow(title=args.title, project=new_project(args.scope), actions=args.actions)
    user = message.from_user
    flow = await store.create_flow(state, message.chat.id, user.id if user else 0)
    text, markup = view.draw(flow, state, profile)
    await message.answer(text, reply_markup=markup)
