"""The several actions' step, pure: rolled in the declared order, split once, closed at the end."""

from __future__ import annotations

import pytest

from bot.runner import Advance, Open, Refuse
from handlers.multi import view
from handlers.multi.callbacks import MultiAction, MultiCallback
from handlers.multi.flow import MultiFlow, declare
from handlers.multi.tap import step
from rules.errors import RulesInputError
from rules.profiles import DARK_AGES, HOUSE_MAGE
from tests.handlers.stepping import ANNA, Faces, known

DECLARED = declare(
    MultiFlow(roller="Аня", default_difficulty=6), [(6, None), (6, None)], HOUSE_MAGE
)
SPLIT = MultiFlow(roller="Аня", default_difficulty=6, split_of=8)


def press(action: MultiAction, x: int = 0) -> MultiCallback:
    return MultiCallback(f="f1", v=3, a=action, x=x)


def test_the_first_action_rolls_its_reduced_pool_and_is_logged() -> None:
    dice = DECLARED.dice[0]
    outcome = step(DECLARED, press(MultiAction.ROLL, 0), ANNA, known(DECLARED), Faces([7] * dice))
    assert isinstance(outcome, Advance | Open)
    first = outcome.state.results[0]
    assert first is not None
    assert first.faces == (7,) * dice
    assert outcome.state.results[1] is None
    assert not outcome.close
    assert [(e.pool, e.kind) for e in outcome.entries] == [(dice, "multi")]


def test_an_action_out_of_order_is_refused() -> None:
    outcome = step(DECLARED, press(MultiAction.ROLL, 1), ANNA, known(DECLARED), Faces([]))
    assert isinstance(outcome, Refuse)
    assert outcome.answer is view.not_in_order_text


def test_the_last_action_closes_the_message() -> None:
    once = step(DECLARED, press(MultiAction.ROLL, 0), ANNA, known(DECLARED), Faces([7] * 9))
    assert isinstance(once, Advance | Open)
    twice = step(once.state, press(MultiAction.ROLL, 1), ANNA, known(once.state), Faces([7] * 9))
    assert twice.close


def test_stop_closes_without_a_roll() -> None:
    outcome = step(DECLARED, press(MultiAction.STOP), ANNA, known(DECLARED), Faces([]))
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.stopped
    assert outcome.close
    assert outcome.entries == ()


def test_a_split_pool_is_split_once() -> None:
    outcome = step(
        SPLIT, press(MultiAction.SPLIT, 3), ANNA, known(SPLIT, profile=DARK_AGES), Faces([])
    )
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.declared == (3, 5)
    assert not outcome.close
    with pytest.raises(RulesInputError):
        step(
            outcome.state,
            press(MultiAction.SPLIT, 3),
            ANNA,
            known(outcome.state, profile=DARK_AGES),
            Faces([]),
        )
