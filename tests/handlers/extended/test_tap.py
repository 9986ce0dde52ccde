"""The extended action's step, pure: a roll adds up, the last one closes, «Стоп» closes."""

from __future__ import annotations

from bot.runner import Advance, Open, Who
from handlers.extended.callbacks import ExtAction, ExtCallback
from handlers.extended.flow import ExtendedFlow
from handlers.extended.tap import TAP, draw, step
from rules.actions import ExtendedStatus
from tests.handlers.stepping import ANNA, Faces, flow_of, known, speaking

STATE = ExtendedFlow(roller="Аня", pool=3, difficulty=6, target=5, accumulated=2, rolls_made=1)


def press(action: ExtAction) -> ExtCallback:
    return ExtCallback(f="f1", v=3, a=action)


def test_a_roll_adds_its_successes_and_logs_the_roll() -> None:
    outcome = step(STATE, press(ExtAction.ROLL), ANNA, known(STATE), Faces([8, 9, 2]))
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.accumulated == 4
    assert outcome.state.rolls_made == 2
    assert not outcome.close
    (entry,) = outcome.entries
    assert entry.user_id == ANNA.id
    assert entry.faces == (8, 9, 2)
    assert entry.kind == "ext"


def test_the_roll_that_reaches_the_target_closes_the_action() -> None:
    outcome = step(STATE, press(ExtAction.ROLL), ANNA, known(STATE), Faces([8, 9, 10]))
    assert isinstance(outcome, Advance | Open)
    assert outcome.state.status is ExtendedStatus.COMPLETE
    assert outcome.close


def test_the_roll_is_logged_for_the_owner_whoever_runs_it() -> None:
    outcome = step(STATE, press(ExtAction.ROLL), ANNA, known(STATE, owner=7), Faces([1, 1, 1]))
    assert [e.user_id for e in outcome.entries] == [7]


def test_stop_closes_the_action_as_it_stands_and_rolls_nothing() -> None:
    outcome = step(STATE, press(ExtAction.STOP), ANNA, known(STATE), Faces([]))
    assert outcome.state == STATE
    assert outcome.close
    assert outcome.entries == ()


def test_a_stopped_action_is_drawn_stopped_without_buttons() -> None:
    closed = flow_of(STATE).next(STATE, close=True)
    with speaking():
        text, markup = draw(closed, STATE, known(STATE))
        _open_text, open_markup = draw(flow_of(STATE), STATE, known(STATE))
    assert markup is None
    assert "Stopped" in text
    assert open_markup is not None


def test_only_the_roller_presses() -> None:
    assert TAP.who is Who.OWNER
