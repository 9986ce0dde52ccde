"""A d6 contest's buttons as one pure step (bot/runner.py): another side joins with its chance
and rolls at once; its opener (or whoever runs the game) settles it (§D contests).

Whether the presser may settle a contest they did not open is read before the step
(:func:`read`), and only for that button.
"""

from __future__ import annotations

from aiogram.types import InlineKeyboardMarkup

from bot import render, rolling
from bot.access import owner_or_storyteller
from bot.runner import Actor, Advance, Known, Outcome, Reading, Tap, refuse
from handlers.d6contest import view
from handlers.d6contest.callbacks import ContestAction, ContestCallback
from handlers.d6contest.flow import SIDES_MAX, ContestFlow, Side
from rules.d6.roll import contest
from rules.dice import Rng
from rules.profiles import GameSystem, Profile
from table.store import Flow, LogEntry


def sides_max(profile: Profile) -> int:
    """S2 «нередко участвует более двух сторон»; a table that plays contests of two only
    (AMB-D12) has no room for a third."""
    return SIDES_MAX if profile.d6.multi_side_contests else 2


def side(key: str, name: str, label: str, dice: int, profile: Profile, rng: Rng | None) -> Side:
    result = rolling.roll_d6(dice, rng=rng, profile=profile)
    return Side(key=key, name=name, label=label, faces=result.faces, measures=result.measures)


def entry(user_id: int, side: Side) -> LogEntry:
    return LogEntry(
        user_id=user_id,
        name=side.name,
        system="d6",
        chance=len(side.faces),
        required=1,
        faces=side.faces,
        measures=side.measures,
        outcome="fiasco" if side.measures == 0 else "success",
        kind="vs",
    )


async def read(reading: Reading[ContestFlow, ContestCallback]) -> bool:
    """Whether the presser may settle the contest (False when the step does not ask)."""
    user, flow = reading.presser, reading.flow
    if reading.action.a is not ContestAction.RESOLVE:
        return False
    if reading.bot is None or reading.chat_settings is None:
        return user.id == flow.owner_id
    chat, settings = reading.message.chat, reading.chat_settings
    return await owner_or_storyteller(reading.bot, chat, settings, user, flow.owner_id)


def step(
    state: ContestFlow, action: ContestCallback, actor: Actor, known: Known[bool], rng: Rng | None
) -> Outcome[ContestFlow]:
    profile = known.profile
    if state.outcome is not None:
        return refuse(render.closed_text)
    if action.a is ContestAction.RESOLVE:
        if not known.read:
            return refuse(view.only_opener_text)
        outcome = contest({s.key: s.measures for s in state.sides}, profile)
        return Advance(state=state.model_copy(update={"outcome": outcome}), close=True)
    key = f"u{actor.id}"
    if any(s.key == key for s in state.sides):
        return refuse(view.already_in_text)
    if action.x not in view.JOIN_CHANCES:
        return refuse(render.invalid_button_text)
    most = sides_max(profile)
    if len(state.sides) >= most:
        return refuse(lambda: view.full_text(most))
    joined = side(key, actor.whole_name, str(action.x), action.x, profile, rng)
    after = state.model_copy(update={"sides": (*state.sides, joined)})
    return Advance(state=after, entries=(entry(actor.id, joined),))


def draw(
    flow: Flow, state: ContestFlow, known: Known[bool]
) -> tuple[str, InlineKeyboardMarkup | None]:
    return view.draw(flow, state, sides_max(known.profile))


TAP: Tap[ContestFlow, ContestCallback, bool] = Tap(
    model=ContestFlow,
    callback=ContestCallback,
    step=step,
    view=draw,
    system=GameSystem.D6,
    read=read,
)
