"""The challenge as the wizard's target: ``/vs @name`` typed bare asks the challenger's pool
on buttons, then the challenger rolls and the challenge goes on as if typed (§A.12)."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _
from pydantic import ValidationError

from bot import rolling
from bot.wizard import Opening, WizardChoice, WizardMode, WizardTarget
from handlers.opposed import view
from handlers.opposed.flow import KIND, OpposedFlow
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import Profile


def from_wizard(choice: WizardChoice, profile: Profile) -> Opening:
    if choice.pool is None or choice.first is None or choice.carry is None:
        raise RulesInputError(ErrorCode.STATE, "challenge", "missing")
    try:
        challenge = OpposedFlow.model_validate_json(choice.carry)
    except ValidationError:
        raise RulesInputError(ErrorCode.STATE, "challenge", "unreadable") from None
    a = challenge.a.model_copy(update={"pool": choice.pool, "difficulty": choice.difficulty})
    b = challenge.b.model_copy(update={"difficulty": choice.difficulty})
    state = challenge.model_copy(update={"a": a, "b": b, "roll_a": choice.first})
    entry = rolling.log_entry(choice.owner_id, a.name, choice.pool, choice.first, KIND)

    return Opening(state=state, entries=(entry,), draw=lambda flow: view.draw(flow, state, profile))


def _title() -> str:
    return "⚔️ <b>" + _("Opposed roll") + "</b>"


WIZARD_TARGET = WizardTarget(
    name=KIND, title=_title, mode=lambda profile: WizardMode.ONE_POOL, start=from_wizard
)
