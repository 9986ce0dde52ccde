"""A roll request's buttons as one pure step (bot/runner.py): «Бросить» rolls each asked
player's pool from their own sheet once; «Закрыть» is the asker's or the Storyteller's.

The buttons carry no version: every player presses the same «Бросить», and the step applies
each player's press once whatever the version. What the step needs — the presser's sheet, or
whether they may close a request they did not make — is read before it (:func:`read`).
"""

from __future__ import annotations

from dataclasses import dataclass

from aiogram.types import InlineKeyboardMarkup

from bot import render, rolling
from bot.access import GameAccess, game_access
from bot.runner import Actor, Advance, Known, Outcome, Reading, Tap, refuse
from handlers.requests import view
from handlers.requests.callbacks import RequestAction, RequestCallback
from handlers.requests.flow import RequestAnswer, RequestState
from rules.actions import PoolStatus
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from rules.sheet import Sheet, TraitCode, pool_from_traits, system_of, trait_code
from table.store import Flow

REQUEST = RequestState.kind


@dataclass(frozen=True)
class Presser:
    """What the chat knows of the presser: their sheet for the request's game (a roll), and
    whether they run the game now (a close of someone else's request)."""

    sheet: Sheet | None = None
    runs_game: bool = False


async def read(reading: Reading[RequestState, RequestCallback]) -> Presser:
    user, flow = reading.presser, reading.flow
    if reading.action.a is RequestAction.CLOSE:
        if user.id == flow.owner_id or reading.bot is None or reading.chat_settings is None:
            return Presser()
        access = await game_access(
            reading.bot, reading.message.chat, reading.chat_settings, user, None
        )
        return Presser(runs_game=access is GameAccess.ALLOWED)
    if reading.state.answered(user.id):
        return Presser()  # the step refuses it without the sheet
    sheet = await reading.store.load_sheet(flow.chat_id, user.id, reading.state.system)
    return Presser(sheet=sheet)


def codes_of(state: RequestState) -> list[TraitCode]:
    return [trait_code(c, state.system) for c in state.codes]


def step(
    state: RequestState,
    action: RequestCallback,
    actor: Actor,
    known: Known[Presser],
    rng: Rng | None,
) -> Outcome[RequestState]:
    codes = codes_of(state)
    if state.system is not system_of(known.profile):
        raise RulesInputError(ErrorCode.STATE, "system", "the chat's game changed")
    if action.a is RequestAction.CLOSE:
        # The asker closes, or whoever may run the game now (a tap carries the real id, so an
        # anonymous administrator who asked can close too). Answers landed so far are kept.
        if actor.id != known.flow.owner_id and not known.read.runs_game:
            return refuse(view.only_asker_closes_text)
        return Advance(state=state, close=True)
    if state.only is not None and actor.id != state.only:
        name = state.only_name or "?"
        return refuse(lambda: view.asked_of_another_text(name))
    if state.answered(actor.id):
        return refuse(view.already_rolled_text)
    sheet = known.read.sheet
    if sheet is None:
        return refuse(lambda: view.no_sheet_text(codes, known.own or known.locale, state.system))
    pool = pool_from_traits(sheet, codes, known.profile)
    if pool.missing:
        missing = pool.missing
        return refuse(
            lambda: view.missing_traits_text(missing, known.own or known.locale, state.system)
        )
    try:
        harder = rolling.conditions_difficulty(sheet, pool.codes)
    except rolling.PoolRefused as refused:
        said = refused.text
        return refuse(lambda: render.plain(said))
    result = None
    if pool.status is PoolStatus.ROLL:
        difficulty = min(10, state.difficulty + harder)  # a request carries no threshold
        result = rolling.roll_d10(pool.dice, difficulty, known.profile, rng=rng)
    answer = RequestAnswer(
        user_id=actor.id,
        name=actor.name,
        status=pool.status,
        base=pool.base,
        penalty=pool.wound_penalty,
        dice=pool.dice,
        reason=pool.reason,
        result=result,
    )
    entries = (
        ()
        if result is None
        else (rolling.log_entry(actor.id, actor.name, answer.dice, result, REQUEST),)
    )
    return Advance(
        state=state.model_copy(update={"answers": (*state.answers, answer)}),
        entries=entries,
        close=state.only is not None,  # the one player asked has answered
    )


def draw(
    flow: Flow, state: RequestState, known: Known[Presser]
) -> tuple[str, InlineKeyboardMarkup | None]:
    text = view.request_text(
        state, codes_of(state), known.locale, known.profile, closed=flow.closed
    )
    return text, None if flow.closed else view.request_keyboard(flow.id, one=state.only is not None)


TAP: Tap[RequestState, RequestCallback, Presser] = Tap(
    model=RequestState,
    callback=RequestCallback,
    step=step,
    view=draw,
    system=None,
    read=read,
    versioned=False,
)
