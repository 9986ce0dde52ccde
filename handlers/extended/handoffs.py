"""What the extended action serves other features: the wizard's «Бросить» and «Продлить».

Both hand over a first roll already made; the action starts with it (§A.11). See
:mod:`bot.wizard` for why a hand-off is a pure step and then an opening.
"""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _

from bot import rolling
from bot.wizard import Drawn, ExtendRequest, Opening, WizardChoice, WizardMode, WizardTarget
from handlers.extended import view
from handlers.extended.flow import KIND, ExtendedFlow, begin
from handlers.extended.router import store_flow
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import Profile
from table.store import LogEntry, Store


def _opening(state: ExtendedFlow, entry: LogEntry | None, profile: Profile) -> Opening:
    async def open_(store: Store, chat_id: int, owner_id: int) -> Drawn:
        flow = await store_flow(store, chat_id, owner_id, state, entry)
        return view.draw(flow, state, profile)

    return Opening(state=state, entries=() if entry is None else (entry,), open=open_)


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
