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
from rules.d6.roll import ContestResult, challenge_contest, contest
from rules.dice import Rng
from rules.profiles import GameSystem, Profile
from table.store import Flow, LogEntry


def sides_max(profile: Profile) -> int:
    """S2 «нередко участвует более двух сторон»; a table that plays contests of two only
    (AMB-D12) has no room for a third."""
    return SIDES_MAX if profile.d6.multi_side_contests else 2


def side(
    key: str,
    name: str,
    label: str,
    dice: int,
    profile: Profile,
    rng: Rng | None,
    actions: int = 1,
) -> Side:
    """A side's roll, or in a challenge its ``actions`` rolls of the same chance, all at once
    (S2 «все действия происходят одновременно»)."""
    results = [rolling.roll_d6(dice, rng=rng, profile=profile) for _ in range(actions)]
    faces = tuple(f for r in results for f in r.faces)
    measures = sum(r.measures for r in results)
    rolls = tuple(r.measures for r in results) if actions > 1 else ()
    return Side(key=key, name=name, label=label, faces=faces, measures=measures, rolls=rolls)


def entries(user_id: int, side: Side) -> tuple[LogEntry, ...]:
    """The log's lines of a side: one per roll (a challenge's each action)."""
    count = max(1, len(side.rolls))
    chance = len(side.faces) // count
    measures = side.rolls or (side.measures,)
    return tuple(
        LogEntry(
            user_id=user_id,
            name=side.name,
            system="d6",
            chance=chance,
            required=1,
            faces=side.faces[n * chance : (n + 1) * chance],
            measures=got,
            outcome="fiasco" if got == 0 else "success",
            kind="vs",
        )
        for n, got in enumerate(measures)
    )


def settle(state: ContestFlow, profile: Profile) -> ContestResult:
    """Who won: the most measures (§D.5), a challenge by its sides' totals over its actions."""
    if state.actions > 1:
        rolls = {s.key: s.rolls or (s.measures,) for s in state.sides}
        return challenge_contest(rolls, state.actions, profile)
    return contest({s.key: s.measures for s in state.sides}, profile)


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
        outcome = settle(state, profile)
        return Advance(state=state.model_copy(update={"outcome": outcome}), close=True)
    key = f"u{actor.id}"
    if any(s.key == key for s in state.sides):
        return refuse(view.already_in_text)
    if action.x not in view.JOIN_CHANCES:
        return refuse(render.invalid_button_text)
    most = sides_max(profile)
    if len(state.sides) >= most:
        return refuse(lambda: view.full_text(most))
    joined = side(key, actor.whole_name, str(action.x), action.x, profile, rng, state.actions)
    after = state.model_copy(update={"sides": (*state.sides, joined)})
    return Advance(state=after, entries=entries(actor.id, joined))


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
