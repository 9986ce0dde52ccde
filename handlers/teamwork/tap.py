"""The team's buttons as one pure step (bot/runner.py): «Помочь», a helper's pool, «Готово».

Anyone may help, once: «Помочь» puts the presser among those choosing, their pool rolls for
them at the team's difficulty (§A.13), and only the leader who opened the effort closes it.
"""

from __future__ import annotations

from aiogram.types import InlineKeyboardMarkup

from bot import render, rolling, table_text
from bot.runner import Actor, Advance, Known, Outcome, Tap, refuse
from handlers.teamwork import view
from handlers.teamwork.callbacks import TeamAction, TeamCallback
from handlers.teamwork.flow import KIND, MAX_MEMBERS, Member, TeamFlow
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from table.store import Flow


def step(
    state: TeamFlow, action: TeamCallback, actor: Actor, known: Known[None], rng: Rng | None
) -> Outcome[TeamFlow]:
    if action.a is TeamAction.FINISH:
        if actor.id != known.flow.owner_id:
            return refuse(view.team_leader_only_text)
        return Advance(state=state.model_copy(update={"closed": True, "pending": ()}), close=True)
    if state.has_rolled(actor.id):
        return refuse(view.team_already_text)
    if action.a is TeamAction.JOIN:
        return _join(state, actor)
    if not state.is_pending(actor.id):
        return refuse(view.team_press_help_text)
    if action.x not in table_text.TABLE_POOLS:
        raise RulesInputError(ErrorCode.RANGE, "pool", str(action.x))
    pool = rolling.check_pool(action.x, known.profile)
    result = rolling.roll_d10(pool, state.difficulty, known.profile, rng=rng)
    member = Member(user_id=actor.id, name=actor.name, pool=pool, result=result)
    after = state.model_copy(
        update={
            "members": (*state.members, member),
            "pending": tuple(p for p in state.pending if p[0] != actor.id),
        }
    )
    entry = rolling.log_entry(actor.id, actor.name, pool, result, KIND)
    return Advance(state=after, entries=(entry,))


def _join(state: TeamFlow, actor: Actor) -> Outcome[TeamFlow]:
    if state.is_pending(actor.id):
        return refuse(render.already_done_text, alert=False)
    if len(state.members) + len(state.pending) >= MAX_MEMBERS:
        return refuse(lambda: view.team_full_text(MAX_MEMBERS))
    return Advance(
        state=state.model_copy(update={"pending": (*state.pending, (actor.id, actor.name))})
    )


def draw(
    flow: Flow, state: TeamFlow, known: Known[None]
) -> tuple[str, InlineKeyboardMarkup | None]:
    return view.draw(flow, state, known.profile)


TAP: Tap[TeamFlow, TeamCallback, None] = Tap(
    model=TeamFlow, callback=TeamCallback, step=step, view=draw
)
