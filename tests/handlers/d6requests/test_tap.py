"""A d6 roll request's step, pure: each asked player rolls their sheet's powers once."""

from __future__ import annotations

from bot.runner import Known
from handlers.d6requests import view
from handlers.d6requests.callbacks import D6RequestAction, D6RequestCallback
from handlers.d6requests.flow import D6RequestState
from handlers.d6requests.tap import Presser, step
from rules.profiles import D6
from rules.sheet import SheetSystem, new_sheet, set_power
from tests.handlers.stepping import ANNA, BORIS, Faces, flow_of

ASKED = D6RequestState(asker="Сценарист", powers=("сила",), required=1)
SHEET = set_power(new_sheet(SheetSystem.D6), "сила", 2)


def press(action: D6RequestAction) -> D6RequestCallback:
    return D6RequestCallback(f="f1", v=3, a=action)


def known(presser: Presser) -> Known[Presser]:
    return Known(flow=flow_of(ASKED, owner=BORIS.id), profile=D6, read=presser)


def test_a_player_rolls_their_powers_once_and_it_is_logged_as_a_request() -> None:
    outcome = step(
        ASKED, press(D6RequestAction.ROLL), ANNA, known(Presser(sheet=SHEET)), Faces([6, 6])
    )
    after = outcome.state
    assert after is not None
    (answer,) = after.answers
    assert answer.user_id == ANNA.id
    assert [e.kind for e in outcome.entries] == ["request"]
    again = step(after, press(D6RequestAction.ROLL), ANNA, known(Presser(sheet=SHEET)), Faces([]))
    assert again.answer is view.already_rolled_text


def test_only_the_asker_or_the_game_runner_closes() -> None:
    refused = step(ASKED, press(D6RequestAction.CLOSE), ANNA, known(Presser()), Faces([]))
    assert refused.answer is view.only_asker_text
    runner = step(
        ASKED, press(D6RequestAction.CLOSE), ANNA, known(Presser(runs_game=True)), Faces([])
    )
    assert runner.close
    assert runner.state == ASKED
