"""A d6 project's buttons as one pure step (bot/runner.py): each action's roll or its gain
with no roll (S2 «бросать кубики не нужно»), and «Закрыть» by its opener or the game-runner.

The presser's weakness (from their sheet), or whether they may close a project they did not
open, is read before the step (:func:`read`).
"""

from __future__ import annotations

from dataclasses import dataclass

from aiogram.types import InlineKeyboardMarkup

from bot import render, rolling
from bot.access import owner_or_storyteller
from bot.runner import Actor, Advance, Known, Outcome, Reading, Tap, refuse
from handlers.d6project import view
from handlers.d6project.callbacks import ProjectAction, ProjectCallback
from handlers.d6project.flow import HISTORY_KEPT, ProjectFlow
from rules.d6.projects import ProjectStatus, project_step
from rules.d6.roll import D6Outcome, D6Result, auto_success, fiasco_penalty, gain_value
from rules.dice import Rng
from rules.errors import RulesInputError
from rules.profiles import GameSystem, Profile
from rules.sheet import SheetSystem
from table.store import Flow, LogEntry


@dataclass(frozen=True)
class Presser:
    """The presser's weakness (None: no sheet or none), and whether they may close."""

    weakness: int | None = None
    may_close: bool = False


async def read(reading: Reading[ProjectFlow, ProjectCallback]) -> Presser:
    user, flow = reading.presser, reading.flow
    if reading.action.a is ProjectAction.CLOSE:
        if reading.bot is None or reading.chat_settings is None:
            return Presser(may_close=user.id == flow.owner_id)
        chat, settings = reading.message.chat, reading.chat_settings
        allowed = await owner_or_storyteller(reading.bot, chat, settings, user, flow.owner_id)
        return Presser(may_close=allowed)
    sheet = await reading.store.load_sheet(flow.chat_id, user.id, SheetSystem.D6)
    return Presser(weakness=sheet.weakness if sheet is not None else None)


def step(
    state: ProjectFlow,
    action: ProjectCallback,
    actor: Actor,
    known: Known[Presser],
    rng: Rng | None,
) -> Outcome[ProjectFlow]:
    if action.a is ProjectAction.CLOSE:
        if not known.read.may_close:
            return refuse(view.only_opener_text)
        return Advance(state=_closed(state), close=True)
    auto = action.a is ProjectAction.AUTO
    if not auto and (action.a is not ProjectAction.ROLL or action.x not in view.ROLL_CHANCES):
        return refuse(render.invalid_button_text)
    if state.actions is not None and state.used.get(f"u{actor.id}", 0) >= state.actions:
        return refuse(view.no_actions_text)
    # S2 «бросать кубики не нужно»: the gain of an action with no roll is the chat's number
    # for it (AMB-D2, ``d6.auto_success_gain``), as :func:`project_step` reads it.
    profile = known.profile
    result = auto_success() if auto else rolling.roll_d6(action.x, rng=rng, profile=profile)
    return act(state, actor, known.read.weakness, profile, result, action.x)


def act(
    state: ProjectFlow,
    actor: Actor,
    weakness: int | None,
    profile: Profile,
    result: D6Result,
    chance: int,
) -> Outcome[ProjectFlow]:
    """One action on the project, rolled (from a button or a ``/r`` sent in reply to the
    project) or with no roll (``result`` an automatic success): its measures go to the
    readiness, a fiasco takes the weakness off (§D.6)."""
    auto = result.outcome is D6Outcome.AUTO_SUCCESS
    key = f"u{actor.id}"
    used = state.used.get(key, 0)
    if state.actions is not None and used >= state.actions:
        return refuse(view.no_actions_text)
    try:
        project = project_step(state.project, result, weakness, profile)
    except RulesInputError:
        return refuse(render.closed_text)
    name = actor.whole_name
    if auto:
        line = view.auto_line(name, gain_value(result, profile))
    else:
        fiasco = fiasco_penalty(weakness, profile) if result.outcome is D6Outcome.FIASCO else None
        line = view.action_line(name, render.d6_faces_text(result), result.measures, fiasco)
    after = state.model_copy(
        update={
            "project": project,
            "used": {**state.used, key: used + 1},
            "names": {**state.names, key: name},
            "history": (*state.history, line)[-HISTORY_KEPT:],
            "auto_counted": state.auto_counted or auto,
        }
    )
    # Nothing rolled (an action without a roll): no line in the log of rolls.
    entries = () if auto else (_entry(actor, chance, result),)
    done = project.status is not ProjectStatus.IN_PROGRESS
    return Advance(state=after, close=done, entries=entries)


def _closed(state: ProjectFlow) -> ProjectFlow:
    if state.actions is not None:
        # A challenge has S2's time: stopping it is the Storyteller's «time is up».
        lost = state.project.model_copy(update={"status": ProjectStatus.FAILED_TIME})
        return state.model_copy(update={"project": lost})
    return state.model_copy(update={"closed_unfinished": True})


def _entry(actor: Actor, chance: int, result: D6Result) -> LogEntry:
    return LogEntry(
        user_id=actor.id,
        name=actor.whole_name,
        system="d6",
        chance=chance,
        required=1,
        faces=result.faces,
        measures=result.measures,
        outcome=result.outcome.value,
        kind="project",
    )


def draw(
    flow: Flow, state: ProjectFlow, known: Known[Presser]
) -> tuple[str, InlineKeyboardMarkup | None]:
    return view.draw(flow, state, known.profile)


TAP: Tap[ProjectFlow, ProjectCallback, Presser] = Tap(
    model=ProjectFlow,
    callback=ProjectCallback,
    step=step,
    view=draw,
    system=GameSystem.D6,
    read=read,
)
