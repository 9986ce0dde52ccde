"""``/project`` in a d6 chat: projects and challenges (docs/rules.md §D.6).

S2 «Размах замысла — минимальное количество мер успеха, которое нужно получить, чтобы
воплотить его»: each action is a roll whose measures add to the readiness; a fiasco takes the
roller's weakness away (3 without one) and a readiness below zero fails the project. A
challenge adds S2's time: each character has so many actions. Anyone at the table presses
their chance for an action; the opener or the Storyteller may stop it unfinished (it then
eases a difficulty by its readiness, S2 «Недоделанный замысел»).
"""

from __future__ import annotations

from aiogram import Bot, Router
from aiogram.filters import Command, CommandObject
from aiogram.types import CallbackQuery, Message

from bot import render, rolling
from bot.access import owner_or_storyteller
from bot.parsing import ArgumentsError, parse_project_arguments
from bot.store import ChatSettings, LogEntry, Store
from bot.taps import commit_tap, open_state, retrying, tell
from handlers.d6project import view
from handlers.d6project.callbacks import ProjectAction, ProjectCallback
from handlers.d6project.flow import HISTORY_KEPT, ProjectFlow
from rules.d6.projects import ProjectStatus, new_project, project_step
from rules.d6.roll import D6Outcome, auto_success, fiasco_penalty, gain_value
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import SheetSystem


def make_router() -> Router:
    router = Router(name="d6project")
    router.message.register(project_command, Command("project", "proj"))
    router.callback_query.register(project_tap, ProjectCallback.filter())
    return router


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


@retrying
async def project_tap(
    callback: CallbackQuery,
    callback_data: ProjectCallback,
    store: Store,
    profile: Profile,
    bot: Bot,
    chat_settings: ChatSettings,
    rng: Rng | None = None,
) -> None:
    opened = await open_state(
        callback,
        callback_data.f,
        callback_data.v,
        store,
        ProjectFlow,
        profile,
        system=GameSystem.D6,
    )
    if opened is None:
        return
    flow, message, state = opened
    user = callback.from_user
    if callback_data.a is ProjectAction.CLOSE:
        if not await owner_or_storyteller(bot, message.chat, chat_settings, user, flow.owner_id):
            await tell(callback, lambda: view.only_opener_text(), alert=True)
            return
        if state.actions is not None:
            # A challenge has S2's time: stopping it is the Storyteller's «time is up».
            lost = state.project.model_copy(update={"status": ProjectStatus.FAILED_TIME})
            after = state.model_copy(update={"project": lost})
        else:
            after = state.model_copy(update={"closed_unfinished": True})
        await commit_tap(
            callback,
            message,
            store,
            flow,
            after,
            lambda f: view.draw(f, after, profile),
            close=True,
        )
        return
    auto = callback_data.a is ProjectAction.AUTO
    if not auto and (
        callback_data.a is not ProjectAction.ROLL or callback_data.x not in view.ROLL_CHANCES
    ):
        await tell(callback, lambda: render.invalid_button_text(), alert=True)
        return
    key = f"u{user.id}"
    used = state.used.get(key, 0)
    if state.actions is not None and used >= state.actions:
        await tell(callback, lambda: view.no_actions_text(), alert=True)
        return
    sheet = await store.load_sheet(flow.chat_id, user.id, SheetSystem.D6)
    weakness = sheet.weakness if sheet is not None else None
    # S2 «бросать кубики не нужно»: the gain of an action with no roll is the chat's number
    # for it (AMB-D2, ``d6.auto_success_gain``), as :func:`project_step` reads it.
    result = auto_success() if auto else rolling.roll_d6(callback_data.x, rng=rng, profile=profile)
    try:
        project = project_step(state.project, result, weakness, profile)
    except RulesInputError:
        await tell(callback, lambda: render.closed_text(), alert=True)
        return
    fiasco = fiasco_penalty(weakness, profile) if result.outcome is D6Outcome.FIASCO else None
    if auto:
        line = view.auto_line(user.full_name, gain_value(result, profile))
    else:
        faces = render.d6_faces_text(result)
        line = view.action_line(user.full_name, faces, result.measures, fiasco)
    used_now = {**state.used, key: used + 1}
    after = state.model_copy(
        update={
            "project": project,
            "used": used_now,
            "names": {**state.names, key: user.full_name},
            "history": (*state.history, line)[-HISTORY_KEPT:],
            "auto_counted": state.auto_counted or auto,
        }
    )
    done = project.status is not ProjectStatus.IN_PROGRESS
    # Nothing rolled (an action without a roll): no line in the log of rolls.
    entries = (
        []
        if auto
        else [
            LogEntry(
                user_id=user.id,
                name=user.full_name,
                system="d6",
                chance=callback_data.x,
                required=1,
                faces=result.faces,
                measures=result.measures,
                outcome=result.outcome.value,
                kind="project",
            )
        ]
    )
    await commit_tap(
        callback,
        message,
        store,
        flow,
        after,
        lambda f: view.draw(f, after, profile),
        close=done,
        entries=entries,
    )
