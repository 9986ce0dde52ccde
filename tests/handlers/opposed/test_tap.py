"""The challenge's step, pure: each side presses its own button, once a round."""

from __future__ import annotations

import pytest

from bot.runner import Actor, Advance, Known, Open, Refuse
from handlers.opposed import view
from handlers.opposed.callbacks import VsAction, VsCallback
from handlers.opposed.flow import OpposedFlow, Party
from handlers.opposed.tap import step
from rules.errors import RulesInputError
from rules.profiles import HOUSE_MAGE
from tests.handlers.stepping import ANNA, BORIS, Faces, flow_of

CHALLENGE = OpposedFlow(
    a=Party(user_id=ANNA.id, name=ANNA.name, pool=2, difficulty=6),
    b=Party(user_id=BORIS.id, name=BORIS.name, difficulty=6),
)
BY_NAME = CHALLENGE.model_copy(update={"b": Party(username="boris", name="@boris", difficulty=6)})


def press(action: VsAction, x: int = 0) -> VsCallback:
    return VsCallback(f="f1", v=3, a=action, x=x)


def known(state: OpposedFlow, *, plays_b: bool = False) -> Known[bool]:
    return Known(flow=flow_of(state), profile=HOUSE_MAGE, read=plays_b)


def test_the_challenger_rolls_their_own_side_once() -> None:
    outcome = step(CHALLENGE, press(VsAction.ROLL_A), ANNA, known(CHALLENGE), Faces([8, 3]))
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.roll_a is not None
    assert [(e.user_id, e.name) for e in outcome.entries] == [(ANNA.id, ANNA.name)]
    again = step(outcome.state, press(VsAction.ROLL_A), ANNA, known(outcome.state), Faces([]))
    assert isinstance(again, Refuse)
    assert again.answer is view.already_rolled_text


def test_nobody_else_presses_a_sides_button() -> None:
    outcome = step(CHALLENGE, press(VsAction.ROLL_A), BORIS, known(CHALLENGE), Faces([]))
    assert isinstance(outcome, Refuse)
    assert outcome.answer is view.not_your_side_text
    stranger = step(CHALLENGE, press(VsAction.POOL, 3), ANNA, known(CHALLENGE), Faces([]))
    assert stranger.answer is view.not_your_side_text


def test_the_challenged_side_chooses_then_rolls_and_the_round_is_settled() -> None:
    rolled = step(CHALLENGE, press(VsAction.ROLL_A), ANNA, known(CHALLENGE), Faces([8, 3]))
    assert isinstance(rolled, Advance | Open)
    chose = step(
        rolled.state, press(VsAction.POOL, 3), BORIS, known(rolled.state, plays_b=True), Faces([])
    )
    assert isinstance(chose, Advance | Open)
    assert chose.state.b.pool == 3
    done = step(
        chose.state, press(VsAction.ROLL_B), BORIS, known(chose.state, plays_b=True), Faces([2] * 3)
    )
    assert isinstance(done, Advance | Open)
    assert done.state.finished
    assert done.close


def test_an_at_name_side_becomes_its_presser_by_id() -> None:
    emma = Actor(id=5, name="Эмма")
    outcome = step(BY_NAME, press(VsAction.POOL, 4), emma, known(BY_NAME, plays_b=True), Faces([]))
    assert isinstance(outcome, Advance | Open)
    assert (outcome.state.b.user_id, outcome.state.b.name) == (5, "Эмма")


def test_either_side_calls_it_off() -> None:
    outcome = step(CHALLENGE, press(VsAction.CANCEL), ANNA, known(CHALLENGE), Faces([]))
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.cancelled
    assert outcome.close


def test_a_pool_no_button_offers_is_invalid() -> None:
    with pytest.raises(RulesInputError):
        step(CHALLENGE, press(VsAction.POOL, 99), BORIS, known(CHALLENGE, plays_b=True), Faces([]))
