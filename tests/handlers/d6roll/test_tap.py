"""The d6 /r message's step, pure: the wizard's choices, the roll and what it spends."""

from __future__ import annotations

from bot import render
from bot.runner import Advance, Known, Open, Refuse
from handlers.d6roll.callbacks import D6Action, D6Callback
from handlers.d6roll.flow import D6RollState
from handlers.d6roll.tap import step
from rules.profiles import D6
from rules.sheet import Sheet, SheetSystem, new_sheet, set_power
from tests.handlers.stepping import ANNA, Faces, flow_of, speaking

WIZARD = D6RollState(roller="Аня")
SHEET = set_power(new_sheet(SheetSystem.D6), "сила", 2)


def press(action: D6Action, x: int = 0) -> D6Callback:
    return D6Callback(f="f1", v=3, a=action, x=x)


def known(state: D6RollState, sheet: Sheet | None = SHEET) -> Known[Sheet | None]:
    return Known(flow=flow_of(state), profile=D6, read=sheet)


def test_a_power_is_toggled_and_a_chance_replaces_the_powers() -> None:
    chosen = step(WIZARD, press(D6Action.POWER, 0), ANNA, known(WIZARD), Faces([]))
    assert isinstance(chosen, Advance | Open)
    assert chosen.state.powers == ("сила",)
    again = step(chosen.state, press(D6Action.POWER, 0), ANNA, known(chosen.state), Faces([]))
    assert isinstance(again, Advance | Open)
    assert again.state.powers == ()
    typed = step(chosen.state, press(D6Action.CHANCE, 4), ANNA, known(chosen.state), Faces([]))
    assert isinstance(typed, Advance | Open)
    assert (typed.state.chance, typed.state.powers) == (4, ())


def test_a_power_the_sheet_has_not_is_refused_in_words() -> None:
    outcome = step(WIZARD, press(D6Action.POWER, 5), ANNA, known(WIZARD), Faces([]))
    assert isinstance(outcome, Refuse)
    assert outcome.alert
    assert outcome.answer is not None
    with speaking("en"):
        assert outcome.answer() == render.plain(render.invalid_button_text())


def test_more_luck_than_the_sheet_holds_is_refused() -> None:
    outcome = step(WIZARD, press(D6Action.LUCK, 3), ANNA, known(WIZARD), Faces([]))
    assert isinstance(outcome, Refuse)
    assert outcome.alert


def test_the_roll_logs_the_dice_and_is_stored_once_with_its_spend() -> None:
    ready = WIZARD.model_copy(update={"chance": 3})
    outcome = step(ready, press(D6Action.ROLL), ANNA, known(ready), Faces([6, 6, 6]))
    after = outcome.state
    assert after is not None
    assert after.result is not None
    assert after.result.faces == (6, 6, 6)
    assert len(outcome.entries) == 1
    assert not outcome.close


def test_rolling_with_nothing_chosen_is_refused() -> None:
    outcome = step(WIZARD, press(D6Action.ROLL), ANNA, known(WIZARD), Faces([]))
    assert isinstance(outcome, Refuse)
    assert outcome.alert
