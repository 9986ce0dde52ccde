"""The wizard's step, pure: choices change the state, «Бросить» hands the message over."""

from __future__ import annotations

import pytest

from bot.runner import Advance, HandOver, Open
from bot.wizard import WizardMode
from handlers import all_features
from handlers.wizard.callbacks import SetupAction, SetupCallback
from handlers.wizard.flow import SetupState
from handlers.wizard.tap import step
from rules.errors import RulesInputError
from rules.profiles import DARK_AGES, HOUSE_MAGE
from tests.handlers.stepping import ANNA, Faces, known

FEATURES = all_features()
TEAM = SetupState(target_name="team", roller="Аня", difficulty=6)
EXT = SetupState(target_name="ext", roller="Аня", difficulty=6)


def press(action: SetupAction, x: int = 0) -> SetupCallback:
    return SetupCallback(f="f1", v=3, a=action, x=x)


def test_a_pool_and_a_difficulty_are_chosen() -> None:
    pooled = step(TEAM, press(SetupAction.POOL, 5), ANNA, known(TEAM, features=FEATURES), None)
    assert isinstance(pooled, Advance | Open)
    assert pooled.state.pool == 5
    harder = step(
        TEAM, press(SetupAction.DIFFICULTY, 8), ANNA, known(TEAM, features=FEATURES), None
    )
    assert isinstance(harder, Advance | Open)
    assert harder.state.difficulty == 8
    assert not pooled.close
    assert not isinstance(pooled, HandOver)


def test_a_second_press_on_an_optional_target_clears_it() -> None:
    aimed = TEAM.model_copy(update={"target": 5})
    outcome = step(aimed, press(SetupAction.TARGET, 5), ANNA, known(aimed, features=FEATURES), None)
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.target is None


def test_go_before_a_required_target_is_invalid() -> None:
    pooled = EXT.model_copy(update={"pool": 4})
    with pytest.raises(RulesInputError):
        step(pooled, press(SetupAction.GO), ANNA, known(pooled, features=FEATURES), Faces([]))


def test_go_rolls_first_and_hands_the_message_over_closing_the_wizard() -> None:
    ready = EXT.model_copy(update={"pool": 2, "target": 5})
    dice = Faces([9, 9])
    outcome = step(ready, press(SetupAction.GO), ANNA, known(ready, features=FEATURES), dice)
    assert isinstance(outcome, HandOver)  # the wizard closes as it is
    assert dice.faces == []  # the first roll was cast before the wizard closed


def test_cancel_closes_the_wizard() -> None:
    outcome = step(TEAM, press(SetupAction.CANCEL), ANNA, known(TEAM, features=FEATURES), None)
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.cancelled
    assert outcome.close


def test_a_wizard_drawn_for_another_game_mode_is_invalid() -> None:
    multi = SetupState(target_name="multi", mode=WizardMode.DECLARE, roller="Аня", difficulty=6)
    mage = step(multi, press(SetupAction.POOL, 3), ANNA, known(multi, features=FEATURES), None)
    assert isinstance(mage, Advance | Open)
    assert mage.state.pools == (3,)
    dark = known(multi, profile=DARK_AGES, features=FEATURES)  # a split-pool game since
    with pytest.raises(RulesInputError):
        step(multi, press(SetupAction.POOL, 3), ANNA, dark, None)
    unknown = SetupState(target_name="nothing", roller="Аня", difficulty=6)
    with pytest.raises(RulesInputError):
        step(unknown, press(SetupAction.POOL, 3), ANNA, known(unknown, features=FEATURES), None)


def test_a_pool_no_button_offers_is_invalid() -> None:
    with pytest.raises(RulesInputError):
        step(
            TEAM,
            press(SetupAction.POOL, 99),
            ANNA,
            known(TEAM, profile=HOUSE_MAGE, features=FEATURES),
            None,
        )
