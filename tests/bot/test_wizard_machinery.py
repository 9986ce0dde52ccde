"""The one wizard machinery (bot/wizard.py), pure: a choice changes the choices, a number no
button offers and an action the wizard lacks are refused, an ending button runs its own step."""

from __future__ import annotations

from enum import StrEnum
from typing import ClassVar

import pytest
from aiogram.filters.callback_data import CallbackData

from bot.runner import Actor, Advance, Known, Outcome
from bot.wizard import Choices, Wizard
from rules.dice import Rng
from rules.errors import ErrorCode, RulesInputError
from rules.profiles import HOUSE_MAGE
from table.store import Flow, FlowState


class Act(StrEnum):
    COUNT = "c"
    FLIP = "f"
    DONE = "d"
    ODD = "o"


class Press(CallbackData, prefix="wm"):
    f: str
    v: int
    a: Act
    x: int = 0


class Picks(FlowState):
    kind: ClassVar[str] = "wizard-machinery"

    count: int = 0
    flipped: bool = False


def _count(state: Picks, x: int, most: int) -> Picks:
    if not 1 <= x <= most:
        raise RulesInputError(ErrorCode.RANGE, "count", str(x))
    return state.model_copy(update={"count": x})


def _flip(state: Picks, x: int, most: int) -> Picks:
    return state.model_copy(update={"flipped": not state.flipped})


def _done(
    state: Picks, data: Press, actor: Actor, known: Known[None], rng: Rng | None
) -> Outcome[Picks]:
    return Advance(state=state, close=True)


WIZARD: Wizard[Picks, Press, None, int] = Wizard(
    choices=Choices({Act.COUNT: _count, Act.FLIP: _flip}),
    ends={Act.DONE: _done},
    seen=lambda state, known: 5,
)
START = Picks()
KNOWN: Known[None] = Known(
    flow=Flow(id="f1", kind=Picks.kind, chat_id=-1, owner_id=1, version=0, data={}),
    profile=HOUSE_MAGE,
    read=None,
)
ANNA = Actor(id=1, name="Аня")


def press(action: Act, x: int = 0) -> Press:
    return Press(f="f1", v=0, a=action, x=x)


def test_a_choice_changes_the_choices_and_keeps_the_wizard_open() -> None:
    outcome = WIZARD.step(START, press(Act.COUNT, 3), ANNA, KNOWN, None)
    assert outcome.state == Picks(count=3)
    assert not outcome.close
    flipped = WIZARD.step(START, press(Act.FLIP), ANNA, KNOWN, None)
    assert flipped.state == Picks(flipped=True)


@pytest.mark.parametrize("data", [press(Act.COUNT, 6), press(Act.COUNT, 0), press(Act.ODD, 1)])
def test_a_number_no_button_offers_or_an_action_it_lacks_is_refused(data: Press) -> None:
    with pytest.raises(RulesInputError):
        WIZARD.step(START, data, ANNA, KNOWN, None)


def test_an_ending_button_runs_its_own_step() -> None:
    outcome = WIZARD.step(Picks(count=2), press(Act.DONE), ANNA, KNOWN, None)
    assert isinstance(outcome, Advance)
    assert outcome.close
    assert outcome.state == Picks(count=2)
