"""The team's effort as the wizard's target: the opener's roll is the team's first (§A.13)."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _

from bot import rolling
from bot.wizard import Opening, WizardChoice, WizardMode, WizardTarget
from handlers.teamwork import view
from handlers.teamwork.flow import KIND, Member, TeamFlow
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import Profile


def from_wizard(choice: WizardChoice, profile: Profile) -> Opening:
    if choice.pool is None or choice.first is None:
        raise RulesInputError(ErrorCode.STATE, "pool", "not rolled")
    member = Member(
        user_id=choice.owner_id, name=choice.roller, pool=choice.pool, result=choice.first
    )
    state = TeamFlow(
        leader=choice.roller,
        difficulty=choice.difficulty,
        target=choice.target,
        members=(member,),
    )
    entry = rolling.log_entry(choice.owner_id, choice.roller, choice.pool, choice.first, KIND)

    return Opening(state=state, entries=(entry,), draw=lambda flow: view.draw(flow, state, profile))


def _title() -> str:
    return "🤝 <b>" + _("Teamwork") + "</b>"


WIZARD_TARGET = WizardTarget(
    name=KIND,
    title=_title,
    mode=lambda profile: WizardMode.ONE_POOL,
    start=from_wizard,
    targets=True,
)
