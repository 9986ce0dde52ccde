"""«Бросить» and «Стоп» under the extended action, as one pure step (bot/runner.py).

Only whoever started the action presses (§A.11: the same character rolls turn after turn);
a roll adds its successes through the rules, a finished action closes its flow, and «Стоп»
closes it as it stands.
"""

from __future__ import annotations

from aiogram.types import InlineKeyboardMarkup

from bot import rolling
from bot.runner import Actor, Advance, Known, Outcome, Tap, Who
from handlers.extended import view
from handlers.extended.callbacks import ExtAction, ExtCallback
from handlers.extended.flow import KIND, ExtendedFlow, finished
from rules.dice import Rng
from table.store import Flow


def step(
    state: ExtendedFlow, action: ExtCallback, actor: Actor, known: Known[None], rng: Rng | None
) -> Outcome[ExtendedFlow]:
    if action.a is ExtAction.STOP:
        return Advance(state=state, close=True)
    profile = known.profile
    result = rolling.roll_d10(
        state.pool, state.difficulty, profile, threshold=state.threshold, rng=rng
    )
    after = state.after(result, profile)
    entry = rolling.log_entry(known.flow.owner_id, state.roller, state.pool, result, KIND)
    return Advance(state=after, close=finished(after), entries=(entry,))


def draw(
    flow: Flow, state: ExtendedFlow, known: Known[None]
) -> tuple[str, InlineKeyboardMarkup | None]:
    """A flow closed before its action finished was stopped («Стоп»)."""
    stopped = flow.closed and not finished(state)
    return view.draw(flow, state, known.profile, stopped=stopped)


TAP: Tap[ExtendedFlow, ExtCallback, None] = Tap(
    model=ExtendedFlow, callback=ExtCallback, step=step, view=draw, who=Who.OWNER
)
