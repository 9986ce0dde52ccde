"""``/project`` in a d6 chat: projects and challenges (docs/rules.md §D.6).

S2 «Размах замысла — минимальное количество мер успеха, которое нужно получить, чтобы
воплотить его»: each action is a roll whose measures add to the readiness; a fiasco takes the
roller's weakness away (3 without one) and a readiness below zero fails the project. A
challenge adds S2's time: each character has so many actions. Anyone at the table presses
their chance for an action; the opener or the Storyteller may stop it unfinished (it then
eases a difficulty by its readiness, S2 «Недоделанный замысел»).
"""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandObject
from aiogram.types import Message

from bot import runner
from bot.parsing import ArgumentsError, parse_project_arguments
from bot.store import Store
from handlers.d6project import view
from handlers.d6project.flow import ProjectFlow
from handlers.d6project.tap import TAP
from rules.d6.projects import new_project
from rules.profiles import GameSystem, Profile


def make_router() -> Router:
    router = Router(name="d6project")
    router.message.register(project_command, Command("project", "proj"))
    runner.register(router, TAP)
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
