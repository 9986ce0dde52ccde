"""A d6 roll request's buttons as one pure step (bot/runner.py): «Бросить» rolls each asked
player's pool from their own sheet once; «Закрыть» is the asker's or the game-runner's.

The presser's sheet, or whether they may close a request they did not make, is read before
the step (:func:`read`); the pool is worked out from that sheet inside the step.
"""

from __future__ import annotations

from dataclasses import dataclass

from aiogram.types import InlineKeyboardMarkup

from bot import render, rolling
from bot.access import runs_game
from bot.runner import Actor, Advance, Known, Outcome, Reading, Tap, refuse
from handlers.d6requests import view
from handlers.d6requests.callbacks import D6RequestAction, D6RequestCallback
from handlers.d6requests.flow import D6Answer, D6RequestState
from rules.dice import Rng
from rules.profiles import GameSystem
from rules.sheet import Sheet, SheetSystem
from table.store import Flow


@dataclass(frozen=True)
class Presser:
    """The presser's sheet (a roll), and whether they run the game (a close)."""

    sheet: Sheet | None = None
    runs_game: bool = False


async def read(reading: Reading[D6RequestState, D6RequestCallback]) -> Presser:
    user, flow = reading.presser, reading.flow
    if reading.action.a is D6RequestAction.CLOSE:
        if user.id == flow.owner_id or reading.bot is None or reading.chat_settings is None:
            return Presser()
        chat = reading.message.chat
        return Presser(
            runs_game=await runs_game(reading.bot, chat, reading.chat_settings, user, None)
        )
    if reading.state.answered(user.id):
        return Presser()  # the step refuses it without the sheet
    sheet = await reading.store.load_sheet(flow.chat_id, user.id, SheetSystem.D6)
    return Presser(sheet=sheet)


def step(
    state: D6RequestState,
    action: D6RequestCallback,
    actor: Actor,
    known: Known[Presser],
    rng: Rng | None,
) -> Outcome[D6RequestState]:
    if action.a is D6RequestAction.CLOSE:
        if actor.id != known.flow.owner_id and not known.read.runs_game:
            return refuse(view.only_asker_text)
        return Advance(state=state, close=True)
    if state.answered(actor.id):
        return refuse(view.already_rolled_text)
    profile = known.profile
    try:
        ask = rolling.D6Ask(powers=state.powers)
        pool = rolling.d6_pool_of(known.read.sheet, actor.name, profile, ask)
    except rolling.PoolRefused as refused:
        said = refused.text
        return refuse(lambda: render.plain(said))
    result = rolling.roll_d6(pool.dice, required=state.required, rng=rng, profile=profile)
    answer = D6Answer(user_id=actor.id, name=actor.name, label=pool.label, result=result)
    entry = rolling.d6_log_entry(actor.id, actor.name, pool.dice, state.required, result)
    return Advance(
        state=state.model_copy(update={"answers": (*state.answers, answer)}),
        entries=(entry.model_copy(update={"kind": "request"}),),
    )


def draw(
    flow: Flow, state: D6RequestState, known: Known[Presser]
) -> tuple[str, InlineKeyboardMarkup | None]:
    if flow.closed:
        return view.request_text(state, closed=True), None
    return view.request_text(state, closed=False), view.keyboard(flow)


TAP: Tap[D6RequestState, D6RequestCallback, Presser] = Tap(
    model=D6RequestState,
    callback=D6RequestCallback,
    step=step,
    view=draw,
    system=GameSystem.D6,
    read=read,
)
