"""What the extended action serves other features: the wizard's «Бросить» and «Продлить».

Both hand over a first roll already made; the action starts with it (§A.11). See
:mod:`bot.wizard` for why a hand-off is a pure step and then an opening.
"""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _

from bot import rolling
from bot.wizard import ExtendRequest, Opening, WizardChoice, WizardMode, WizardTarget
from handlers.extended import view
from handlers.extended.flow import KIND, ExtendedFlow, begin, finished
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import Profile
from table.store import LogEntry


def _opening(state: ExtendedFlow, entry: LogEntry | None, profile: Profile) -> Opening:
    return Opening(
        state=state,
        entries=() if entry is None else (entry,),
        draw=lambda flow: view.draw(flow, state, profile),
        closed=finished(state),  # the first roll finished it: nothing to press
    )


def from_wizard(choice: WizardChoice, profile: Profile) -> Opening:
    if choice.pool is None or choice.first is None:
        raise RulesInputError(ErrorCode.STATE, "pool", "not rolled")
    state = begin(
        choice.roller,
        choice.pool,
        choice.difficulty,
        choice.target or 0,
        None,
        choice.first,
        profile,
    )
    entry = rolling.log_entry(choice.owner_id, choice.roller, choice.pool, choice.first, KIND)
    return _opening(state, entry, profile)


def from_roll(request: ExtendRequest, profile: Profile) -> Opening:
    """«Продлить»: the roll was logged when it was made, so no second log line."""
    state = begin(
        request.roller,
        request.pool,
        request.difficulty,
        request.target,
        None,
        request.first,
        profile,
    )
    return _opening(state, None, profile)


def _title() -> str:
    return "⏳ <b>" + _("Extended action") + "</b>"


WIZARD_TARGET = WizardTarget(
    name=KIND,
    title=_title,
    mode=lambda profile: WizardMode.ONE_POOL,
    start=from_wizard,
    targets=True,
    target_required=True,
)
