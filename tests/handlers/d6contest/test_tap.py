"""A d6 contest's step, pure: a side joins once with its chance, the opener settles it."""

from __future__ import annotations

from bot import render
from bot.runner import Advance, Known, Open
from handlers.d6contest import view
from handlers.d6contest.callbacks import ContestAction, ContestCallback
from handlers.d6contest.flow import ContestFlow, Side
from handlers.d6contest.tap import step
from rules.profiles import D6
from tests.handlers.stepping import ANNA, BORIS, Faces, flow_of

OPENED = ContestFlow(
    sides=(Side(key=f"u{BORIS.id}", name="Борис", label="3", faces=(6, 2, 1), measures=1),)
)


def press(action: ContestAction, x: int = 0) -> ContestCallback:
    return ContestCallback(f="f1", v=3, a=action, x=x)


def known(state: ContestFlow, *, may_settle: bool = False) -> Known[bool]:
    return Known(flow=flow_of(state, owner=BORIS.id), profile=D6, read=may_settle)


def test_a_side_joins_once_and_its_roll_is_logged() -> None:
    chance = view.JOIN_CHANCES[0]
    outcome = step(
        OPENED, press(ContestAction.JOIN, chance), ANNA, known(OPENED), Faces([6] * chance)
    )
    after = outcome.state
    assert after is not None
    assert [s.key for s in after.sides] == [f"u{BORIS.id}", f"u{ANNA.id}"]
    assert [e.kind for e in outcome.entries] == ["vs"]
    again = step(after, press(ContestAction.JOIN, chance), ANNA, known(after), Faces([]))
    assert again.answer is view.already_in_text


def test_a_chance_no_button_offers_is_invalid() -> None:
    outcome = step(OPENED, press(ContestAction.JOIN, 99), ANNA, known(OPENED), Faces([]))
    assert outcome.answer is render.invalid_button_text


def test_only_the_opener_or_the_game_runner_settles_and_settling_closes() -> None:
    refused = step(OPENED, press(ContestAction.RESOLVE), ANNA, known(OPENED), Faces([]))
    assert refused.answer is view.only_opener_text
    two = OPENED.model_copy(
        update={
            "sides": (
                *OPENED.sides,
                Side(key="u1", name="Аня", label="2", faces=(3, 1), measures=0),
            )
        }
    )
    settled = step(two, press(ContestAction.RESOLVE), BORIS, known(two, may_settle=True), Faces([]))
    assert settled.close
    assert isinstance(settled, Advance | Open)
    assert settled.state.outcome is not None
    late = step(settled.state, press(ContestAction.JOIN, 2), ANNA, known(settled.state), Faces([]))
    assert late.answer is render.closed_text
