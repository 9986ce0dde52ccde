"""Several actions as the wizard's target: the declared pools (or the pool to split) become
the /multi message; nothing is rolled until each action's button (§A.9)."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _

from bot.wizard import Opening, WizardChoice, WizardMode, WizardTarget
from handlers.multi import view
from handlers.multi.flow import KIND, MultiFlow, declare
from rules.profiles import MultipleActions, Profile


def mode(profile: Profile) -> WizardMode:
    if profile.multiple_actions is MultipleActions.SPLIT_POOL:
        return WizardMode.SPLIT
    return WizardMode.DECLARE


def from_wizard(choice: WizardChoice, profile: Profile) -> Opening:
    state = MultiFlow(roller=choice.roller, default_difficulty=choice.difficulty)
    if mode(profile) is WizardMode.SPLIT:
        state = state.model_copy(update={"split_of": choice.pool})
    else:
        difficulties = choice.difficulties or (choice.difficulty,) * len(choice.pools)
        state = declare(state, list(zip(choice.pools, difficulties, strict=True)), profile)

    return Opening(state=state, entries=(), draw=lambda flow: view.draw(flow, state, profile))


def _title() -> str:
    return "🔀 <b>" + _("Multiple actions") + "</b>"


WIZARD_TARGET = WizardTarget(
    name=KIND, title=_title, mode=mode, start=from_wizard, rolls_first=False
)
