"""A challenge's buttons as one pure step (bot/runner.py): each side rolls with its own button,
the challenged side chooses its pool and difficulty first, and either side may call it off.

Which side a presser plays is read before the step (:func:`read`): the challenged player by
id or @username, or whoever runs the game for the Storyteller's side, asked of Telegram only
when that side's button is pressed.
"""

from __future__ import annotations

from aiogram.types import InlineKeyboardMarkup

from bot import rolling, table_text
from bot.access import runs_game
from bot.runner import Actor, Advance, Known, Outcome, Reading, Tap, refuse
from handlers.opposed import view
from handlers.opposed.callbacks import VsAction, VsCallback
from handlers.opposed.flow import KIND, OpposedFlow
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import Profile
from table.store import Flow, LogEntry


def _plays_a(state: OpposedFlow, user_id: int) -> bool:
    return state.a.user_id == user_id


async def read(reading: Reading[OpposedFlow, VsCallback]) -> bool:
    """Whether the presser plays the challenged side (False when the step does not ask)."""
    state, user, action = reading.state, reading.presser, reading.action.a
    if action is VsAction.ROLL_A or (action is VsAction.CANCEL and _plays_a(state, user.id)):
        return False
    party = state.b
    if party.user_id is not None:
        return party.user_id == user.id
    if party.username is not None:
        return (user.username or "").casefold() == party.username.casefold()
    if reading.bot is None or reading.chat_settings is None:
        return False
    return await runs_game(reading.bot, reading.message.chat, reading.chat_settings, user, None)


def step(
    state: OpposedFlow, action: VsCallback, actor: Actor, known: Known[bool], rng: Rng | None
) -> Outcome[OpposedFlow]:
    is_a = _plays_a(state, actor.id)
    if action.a is VsAction.ROLL_A:
        allowed = is_a
    else:
        allowed = (is_a and action.a is VsAction.CANCEL) or known.read
    if not allowed:
        return refuse(view.not_your_side_text)
    if action.a not in (VsAction.ROLL_A, VsAction.CANCEL) and _by_username(state):
        # The @username has shown up: from now on the side is theirs by id, by their name.
        b = state.b.model_copy(update={"user_id": actor.id, "name": actor.name})
        state = state.model_copy(update={"b": b})
    if action.a is VsAction.CANCEL:
        return _finished(state.model_copy(update={"cancelled": True}))
    if action.a in (VsAction.POOL, VsAction.DIFFICULTY):
        return _finished(_choose(state, action.a, action.x, known.profile))
    return _roll(state, action.a, actor, known.profile, rng)


def _by_username(state: OpposedFlow) -> bool:
    return state.b.user_id is None and not state.b.storyteller


def _finished(after: OpposedFlow, *entries: LogEntry) -> Outcome[OpposedFlow]:
    return Advance(state=after, close=after.finished or after.cancelled, entries=entries)


def _choose(state: OpposedFlow, action: VsAction, x: int, profile: Profile) -> OpposedFlow:
    if not state.choosing:
        raise RulesInputError(ErrorCode.STATE, "b", "the pool is already rolled")
    if action is VsAction.POOL:
        if x not in table_text.TABLE_POOLS:
            raise RulesInputError(ErrorCode.RANGE, "pool", str(x))
        b = state.b.model_copy(update={"pool": rolling.check_pool(x, profile)})
    else:
        b = state.b.model_copy(update={"difficulty": rolling.check_difficulty(x, profile)})
    return state.model_copy(update={"b": b})


def _roll(
    state: OpposedFlow, action: VsAction, actor: Actor, profile: Profile, rng: Rng | None
) -> Outcome[OpposedFlow]:
    if action is VsAction.ROLL_A:
        party, rolled = state.a, state.roll_a
    elif action is VsAction.ROLL_B:
        party, rolled = state.b, state.roll_b
    else:
        raise RulesInputError(ErrorCode.UNKNOWN_KEY, "action", action.value)
    if rolled is not None:
        return refuse(view.already_rolled_text)
    if party.pool is None:
        raise RulesInputError(ErrorCode.STATE, "pool", "not chosen")
    result = rolling.roll_d10(
        party.pool, party.difficulty, profile, threshold=party.threshold, rng=rng
    )
    side = "roll_a" if action is VsAction.ROLL_A else "roll_b"
    after = state.model_copy(update={side: result}).settled()
    return _finished(after, rolling.log_entry(actor.id, party.name, party.pool, result, KIND))


def draw(
    flow: Flow, state: OpposedFlow, known: Known[bool]
) -> tuple[str, InlineKeyboardMarkup | None]:
    return view.draw(flow, state, known.profile)


TAP: Tap[OpposedFlow, VsCallback, bool] = Tap(
    model=OpposedFlow, callback=VsCallback, step=step, view=draw, read=read
)
