"""The buttons of several actions as one pure step (bot/runner.py): the next action's roll,
a split of one pool (§A.9, Dark Ages), and «Стоп»; only the roller presses."""

from __future__ import annotations

from aiogram.types import InlineKeyboardMarkup

from bot import rolling
from bot.runner import Actor, Advance, Known, Outcome, Tap, Who, refuse
from handlers.multi import view
from handlers.multi.callbacks import MultiAction, MultiCallback
from handlers.multi.flow import KIND, MultiFlow, declare
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from table.store import Flow, LogEntry


def step(
    state: MultiFlow, action: MultiCallback, actor: Actor, known: Known[None], rng: Rng | None
) -> Outcome[MultiFlow]:
    profile = known.profile
    if action.a is MultiAction.STOP:
        return _closing(state.model_copy(update={"stopped": True}))
    if action.a is MultiAction.SPLIT:
        if state.declared or state.split_of is None:
            raise RulesInputError(ErrorCode.STATE, "split", "already split")
        first = action.x
        first_d, second_d = state.part_difficulties or (None, None)
        return _closing(
            declare(state, [(first, first_d), (state.split_of - first, second_d)], profile)
        )
    k = state.next_action()
    if k is None:
        raise RulesInputError(ErrorCode.STATE, "action", "nothing left to roll")
    if action.x != k:
        return refuse(view.not_in_order_text)
    threshold = state.thresholds[k] if k < len(state.thresholds) else 0
    result = rolling.roll_d10(
        state.dice[k], state.difficulties[k], profile, threshold=threshold, rng=rng
    )
    results = list(state.results)
    results[k] = result
    entry = rolling.log_entry(known.flow.owner_id, state.roller, state.dice[k], result, KIND)
    return _closing(state.model_copy(update={"results": tuple(results)}), entry)


def _closing(after: MultiFlow, *entries: LogEntry) -> Outcome[MultiFlow]:
    """The step, closed once stopped or once every declared action is rolled."""
    close = after.stopped or (bool(after.declared) and after.next_action() is None)
    return Advance(state=after, close=close, entries=entries)


def draw(
    flow: Flow, state: MultiFlow, known: Known[None]
) -> tuple[str, InlineKeyboardMarkup | None]:
    return view.draw(flow, state, known.profile)


TAP: Tap[MultiFlow, MultiCallback, None] = Tap(
    model=MultiFlow, callback=MultiCallback, step=step, view=draw, who=Who.OWNER
)
